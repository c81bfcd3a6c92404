package gradlerepl.classphases

import gradlerepl.repl.ReplDriver
import org.jetbrains.kotlin.com.intellij.openapi.project.Project
import org.jetbrains.kotlin.fir.FirSession
import org.jetbrains.kotlin.fir.declarations.FirDeclaration
import org.jetbrains.kotlin.fir.declarations.FirRegularClass
import org.jetbrains.kotlin.fir.extensions.FirExtensionRegistrar
import org.jetbrains.kotlin.fir.extensions.FirExtensionRegistrarAdapter
import org.jetbrains.kotlin.fir.extensions.FirStatusTransformerExtension

/**
 * Gives a snippet's classes what two of the compiler's whole-file passes give a file's classes.
 *
 * The K2 REPL keeps a snippet's classes inside its `FirReplSnippet`. The compiler's passes that walk a file's
 * classes (`transformFile` → its declarations → `transformRegularClass`) return a snippet as it is, so its classes
 * miss what they set: the companion object a compiler plugin generated ([GeneratedCompanions]) and a sealed class's
 * inheritors ([SealedInheritors]). (Read in Kotlin 2.2.21 and 2.3.21.)
 *
 * The status phase reaches every snippet class (all-open works there), after the phases that resolve supertypes and
 * match plugin annotations and before any body is resolved; there a status "transformer" that transforms nothing sets
 * both, on each class as the phase meets it.
 */
class ClassPhases(driver: ReplDriver) {
    init {
        FirExtensionRegistrarAdapter.registerExtension(driver.compilerProject() as Project, Registrar())
    }
}

private class Registrar : FirExtensionRegistrar() {
    override fun ExtensionRegistrarContext.configurePlugin() {
        +FirStatusTransformerExtension.Factory { session -> ClassPhasesAtStatus(session) }
    }
}

private class ClassPhasesAtStatus(session: FirSession) : FirStatusTransformerExtension(session) {
    override fun needTransformStatus(declaration: FirDeclaration): Boolean {
        if (declaration is FirRegularClass) {
            GeneratedCompanions.set(session, declaration)
            SealedInheritors.record(session, declaration)
        }
        return false
    }
}
