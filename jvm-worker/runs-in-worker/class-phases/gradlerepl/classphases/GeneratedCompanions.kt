@file:OptIn(SymbolInternals::class)

package gradlerepl.classphases

import org.jetbrains.kotlin.fir.FirSession
import org.jetbrains.kotlin.fir.declarations.FirRegularClass
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
 * classes, and a local class's phases; it passes over a snippet's classes, so the companion is generated
 * (`Q.Companion.serializer()` resolves) but is not the class's companion: `Q.serializer()` is an unresolved reference.
 *
 * The companion set is the generated one, found as the compiler finds it for a local class: the class's nested
 * classifier named `Companion` whose origin is generated. A class that has a companion (its own, or set by the
 * compiler) is left as it is.
 */
internal object GeneratedCompanions {
    fun set(session: FirSession, regularClass: FirRegularClass) {
        if (regularClass.companionObjectSymbol == null) {
            generatedCompanion(session, regularClass)?.let(regularClass::replaceCompanionObjectSymbol)
        }
    }

    private fun generatedCompanion(session: FirSession, regularClass: FirRegularClass): FirRegularClassSymbol? {
        var found: FirRegularClassSymbol? = null
        val nested = session.nestedClassifierScope(regularClass) ?: return null
        nested.processClassifiersByName(SpecialNames.DEFAULT_NAME_FOR_COMPANION_OBJECT) {
            if (it is FirRegularClassSymbol && it.origin.generated) found = it
        }
        return found
    }
}
