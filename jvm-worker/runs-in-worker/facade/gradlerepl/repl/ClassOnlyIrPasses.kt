package gradlerepl.repl

import org.jetbrains.kotlin.backend.common.extensions.IrGenerationExtension
import org.jetbrains.kotlin.backend.common.extensions.IrPluginContext
import org.jetbrains.kotlin.cli.jvm.compiler.VfsBasedProjectEnvironment
import org.jetbrains.kotlin.com.intellij.openapi.Disposable
import org.jetbrains.kotlin.ir.IrElement
import org.jetbrains.kotlin.ir.declarations.IrClass
import org.jetbrains.kotlin.ir.declarations.IrDeclarationOrigin
import org.jetbrains.kotlin.ir.declarations.IrModuleFragment
import org.jetbrains.kotlin.ir.visitors.IrVisitorVoid
import org.jetbrains.kotlin.ir.visitors.acceptChildrenVoid
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplCompilationState

/**
 * Compiler plugins' IR passes that lower classes and nothing else, run only for a snippet whose IR has a class.
 *
 * kotlinx-serialization's IR pass (`SerializationLoweringExtension.generate`) builds two plugin contexts on every
 * compilation — each looks up a dozen declarations of the stdlib and the runtime, and so builds the lazy IR of their
 * classes (`LazyThreadSafetyMode`'s entries, `Lazy`, `Array`, `KSerializer`) again, since each compilation has its
 * own — then lowers each class of the module, outermost first. A snippet that declares no class (`1 + 1`, a call, a
 * `val`: most of an agent's snippets) has nothing for it to lower and still paid the contexts: a warm `1 + 1` on
 * sample-project took 0.84x the time without them (bench/README.md, "kotlinx-serialization's pass"). The plugin's
 * other parts — its FIR extensions, its `serializer<T>()` intrinsics (`getPlatformIntrinsicExtension`) — are its
 * own as before: the wrapper delegates every member but `generate`.
 *
 * The project's IR extensions are registered once, when the REPL's state is made; they are put back in their order
 * (the REPL's own, which turns the snippet into a class, first), the listed ones wrapped. Best effort, as
 * [SnippetModuleChain]: where this Kotlin lays the state out otherwise, the extensions stay as they are.
 */
internal object ClassOnlyIrPasses {
    /** IR generation extensions whose `generate` only runs class lowering passes over the module's files. */
    private val CLASS_ONLY = setOf(
        "org.jetbrains.kotlinx.serialization.compiler.extensions.SerializationLoweringExtension",
    )

    /** Wraps the class-only passes among the state's IR extensions. */
    fun install(state: K2ReplCompilationState, disposable: Disposable) {
        val point = try {
            // An internal property of the state, reached by its JVM getter (as SnippetModuleChain reaches another).
            val getter = state.javaClass.getMethod("getProjectEnvironment\$kotlin_scripting_compiler")
            val environment = getter.invoke(state)
            (environment as VfsBasedProjectEnvironment).project.extensionArea
                .getExtensionPoint(IrGenerationExtension.extensionPointName)
        } catch (e: Exception) {
            return
        }
        val registered = point.extensionList.toList()
        if (registered.none { it.javaClass.name in CLASS_ONLY }) return
        val replaced = registered.map { if (it.javaClass.name in CLASS_ONLY) OnlyWithClasses(it) else it }
        // Unregistered by class and registered again in the same order: the point appends what is registered.
        registered.map { it.javaClass }.distinct().forEach { point.unregisterExtension(it) }
        replaced.forEach { point.registerExtension(it, disposable) }
    }

    private class OnlyWithClasses(private val passes: IrGenerationExtension) : IrGenerationExtension by passes {
        override fun generate(moduleFragment: IrModuleFragment, pluginContext: IrPluginContext) {
            if (hasClass(moduleFragment)) passes.generate(moduleFragment, pluginContext)
        }
    }

    /**
     * Whether the module has a class of the snippet's code anywhere: nested, local, an object expression's. The
     * snippet's own class (made by the REPL's lowering, which runs before the plugins': origin SCRIPT_CLASS) is looked
     * into, not counted; where a Kotlin gives it another origin, it counts, and the plugin's passes run as before.
     */
    internal fun hasClass(moduleFragment: IrModuleFragment): Boolean {
        var found = false
        moduleFragment.acceptChildrenVoid(object : IrVisitorVoid() {
            override fun visitElement(element: IrElement) {
                if (!found) element.acceptChildrenVoid(this)
            }

            override fun visitClass(declaration: IrClass) {
                if (declaration.origin == IrDeclarationOrigin.SCRIPT_CLASS) visitElement(declaration) else found = true
            }
        })
        return found
    }
}
