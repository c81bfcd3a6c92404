@file:OptIn(SymbolInternals::class)

package gradlerepl.companions

import gradlerepl.repl.ReplDriver
import org.jetbrains.kotlin.com.intellij.openapi.project.Project
import org.jetbrains.kotlin.fir.FirSession
import org.jetbrains.kotlin.fir.declarations.FirDeclaration
import org.jetbrains.kotlin.fir.declarations.FirRegularClass
import org.jetbrains.kotlin.fir.extensions.FirExtensionRegistrar
import org.jetbrains.kotlin.fir.extensions.FirExtensionRegistrarAdapter
import org.jetbrains.kotlin.fir.extensions.FirStatusTransformerExtension
import org.jetbrains.kotlin.fir.scopes.impl.nestedClassifierScope
import org.jetbrains.kotlin.fir.scopes.processClassifiersByName
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirRegularClassSymbol
import org.jetbrains.kotlin.name.SpecialNames

/**
 * Makes a compiler plugin's generated companion object the companion of a class declared in a snippet.
 *
 * A plugin such as kotlinx.serialization generates a `Companion` for the classes it matches (with `serializer()` in
 * it). The compiler makes it the class's companion in `FirCompanionGenerationTransformer`, which walks a file's
 * classes, and a local class's phases; the K2 REPL keeps a snippet's classes inside its `FirReplSnippet`, which that
 * walk passes over, so the companion is generated (`Q.Companion.serializer()` resolves) but is not the class's
 * companion: `Q.serializer()` is an unresolved reference. (Read in Kotlin 2.2.21 and 2.3.21.)
 *
 * The status phase reaches every snippet class (all-open works there), after the phase that matches plugin
 * annotations and before any body is resolved; there a status "transformer" that transforms nothing sets the class's
 * companion to the generated one, found as the compiler finds it for a local class: the class's nested classifier
 * named `Companion` whose origin is generated. A class that has a companion (its own, or set by the compiler) is left
 * as it is.
 */
class GeneratedCompanions(driver: ReplDriver) {
    init {
        FirExtensionRegistrarAdapter.registerExtension(driver.compilerProject() as Project, Registrar())
    }
}

private class Registrar : FirExtensionRegistrar() {
    override fun ExtensionRegistrarContext.configurePlugin() {
        +FirStatusTransformerExtension.Factory { session -> CompanionSetter(session) }
    }
}

private class CompanionSetter(session: FirSession) : FirStatusTransformerExtension(session) {
    override fun needTransformStatus(declaration: FirDeclaration): Boolean {
        if (declaration is FirRegularClass && declaration.companionObjectSymbol == null) {
            generatedCompanion(declaration)?.let(declaration::replaceCompanionObjectSymbol)
        }
        return false
    }

    private fun generatedCompanion(regularClass: FirRegularClass): FirRegularClassSymbol? {
        var found: FirRegularClassSymbol? = null
        session.nestedClassifierScope(regularClass)?.processClassifiersByName(SpecialNames.DEFAULT_NAME_FOR_COMPANION_OBJECT) {
            if (it is FirRegularClassSymbol && it.origin.generated) found = it
        }
        return found
    }
}
