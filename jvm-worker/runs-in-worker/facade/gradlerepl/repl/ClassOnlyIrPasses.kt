package gradlerepl.repl

import gradlerepl.runtime.ReplOutput
import org.jetbrains.kotlin.backend.common.extensions.IrGenerationExtension
import org.jetbrains.kotlin.backend.common.extensions.IrPluginContext
import org.jetbrains.kotlin.com.intellij.openapi.Disposable
import org.jetbrains.kotlin.com.intellij.openapi.extensions.impl.ExtensionPointImpl
import org.jetbrains.kotlin.com.intellij.openapi.project.Project
import org.jetbrains.kotlin.ir.IrElement
import org.jetbrains.kotlin.ir.declarations.IrClass
import org.jetbrains.kotlin.ir.declarations.IrDeclarationOrigin
import org.jetbrains.kotlin.ir.declarations.IrModuleFragment
import org.jetbrains.kotlin.ir.visitors.IrVisitorVoid
import org.jetbrains.kotlin.ir.visitors.acceptChildrenVoid

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
 * The project's IR extensions are registered once, when the REPL's state is made. They are all taken out and put back
 * in their order, the listed ones wrapped; where that can't be done (this Kotlin's extension point is another), they
 * stay as they were, and the worker's log says so.
 */
internal object ClassOnlyIrPasses {
    /** IR generation extensions whose `generate` only runs class lowering passes over the module's files. */
    private val CLASS_ONLY = setOf(
        "org.jetbrains.kotlinx.serialization.compiler.extensions.SerializationLoweringExtension",
    )

    /**
     * Wraps the class-only passes among the IR extensions of the [project] (the compiler's, as ReplDriver reaches it
     * by reflection: a failure to reach it leaves them as they are). [disposable] is the new registrations' parent. It
     * is never disposed, nor is the project, whose disposal would look for the first registrations taken out here.
     */
    fun install(project: () -> Any, disposable: Disposable) {
        val point = try {
            (project() as Project).extensionArea.getExtensionPoint(IrGenerationExtension.extensionPointName)
                as ExtensionPointImpl<IrGenerationExtension>
        } catch (e: Exception) {
            return notInstalled(e)
        } catch (e: LinkageError) {
            return notInstalled(e)
        }
        val registered = point.extensionList.toList()
        if (registered.none { it.javaClass.name in CLASS_ONLY }) return
        val wrapped = registered.map { if (it.javaClass.name in CLASS_ONLY) OnlyWithClasses(it) else it }
        try {
            replaceAll(point, wrapped, disposable)
        } catch (t: Throwable) {
            replaceAll(point, registered, disposable)
            notInstalled(t)
        }
    }

    /** Every extension of the point taken out (by its registration, whatever its class), then [extensions] in order. */
    private fun replaceAll(
        point: ExtensionPointImpl<IrGenerationExtension>,
        extensions: List<IrGenerationExtension>,
        disposable: Disposable,
    ) {
        point.unregisterExtensions({ _, _ -> false }, false)
        extensions.forEach { point.registerExtension(it, disposable) }
    }

    private fun notInstalled(why: Throwable) {
        ReplOutput.toWorkerLog("IR passes that lower only classes run for every snippet (extensions as they were): $why")
    }

    private class OnlyWithClasses(private val passes: IrGenerationExtension) : IrGenerationExtension by passes {
        override fun generate(moduleFragment: IrModuleFragment, pluginContext: IrPluginContext) {
            if (hasClass(moduleFragment)) passes.generate(moduleFragment, pluginContext)
        }
    }

    /**
     * Whether the module has a class of the snippet's code anywhere: nested, local, an object expression's. The
     * snippet's own class (origin SCRIPT_CLASS when the plugins' passes run) is looked into, not counted; where a
     * Kotlin gives it another origin, it counts, and the plugin's passes run as before.
     */
    private fun hasClass(moduleFragment: IrModuleFragment): Boolean {
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
