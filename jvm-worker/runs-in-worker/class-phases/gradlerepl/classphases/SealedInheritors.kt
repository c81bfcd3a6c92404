@file:OptIn(SymbolInternals::class)

package gradlerepl.classphases

import org.jetbrains.kotlin.descriptors.Modality
import org.jetbrains.kotlin.fir.FirSession
import org.jetbrains.kotlin.fir.declarations.FirRegularClass
import org.jetbrains.kotlin.fir.declarations.getSealedClassInheritors
import org.jetbrains.kotlin.fir.declarations.setSealedClassInheritors
import org.jetbrains.kotlin.fir.declarations.utils.modality
import org.jetbrains.kotlin.fir.moduleData
import org.jetbrains.kotlin.fir.resolve.toRegularClassSymbol
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.types.coneType

/**
 * Tells a sealed class or interface declared in a snippet which classes of that snippet inherit it.
 *
 * The compiler collects a sealed class's inheritors in `FirSealedClassInheritorsProcessor`, which visits a file's
 * classes and passes over a snippet's. Without them a sealed type declared in a snippet had none: a `when` over it
 * missing a subclass compiled, `sealedSubclasses` read `[]`, and kotlinx.serialization's serializer for it knew no
 * subclass ("Serializer for subclass 'Sq' is not found in the polymorphic scope of 'Shape'").
 *
 * Each class met adds itself to every sealed supertype of the same snippet, as that processor adds it (a sealed type's
 * inheritors live in its own module, and each snippet is one: a class of a later snippet can't inherit it).
 *
 * Kotlin 2.3.20 on. Before it (2.2, 2.3.0, 2.3.10) the compiler sees a snippet's classes as local classes
 * (`<local>/Shape`), and it finds a sealed type's inheritors by id, which a local class has none of: nothing is
 * recorded there, and a sealed type of a snippet has no inheritors, as before.
 */
internal object SealedInheritors {
    fun record(session: FirSession, regularClass: FirRegularClass) {
        val classId = regularClass.symbol.classId
        if (classId.isLocal) return // a REPL before 2.3.20: the compiler can't look a local inheritor up (below)
        for (typeRef in regularClass.superTypeRefs) {
            val parent = typeRef.coneType.toRegularClassSymbol(session)?.fir ?: continue
            if (parent.modality != Modality.SEALED || parent.moduleData != session.moduleData) continue
            val known = parent.getSealedClassInheritors(session)
            if (classId !in known) parent.setSealedClassInheritors(known + classId)
        }
    }
}
