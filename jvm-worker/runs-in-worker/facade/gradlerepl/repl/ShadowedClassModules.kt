package gradlerepl.repl

import org.jetbrains.kotlin.contracts.description.KtContractDescriptionElement
import org.jetbrains.kotlin.fir.FirElement
import org.jetbrains.kotlin.fir.FirModuleData
import org.jetbrains.kotlin.fir.contracts.FirContractElementDeclaration
import org.jetbrains.kotlin.fir.declarations.FirCallableDeclaration
import org.jetbrains.kotlin.fir.declarations.FirClassLikeDeclaration
import org.jetbrains.kotlin.fir.declarations.FirFunction
import org.jetbrains.kotlin.fir.declarations.utils.isReplSnippetDeclaration
import org.jetbrains.kotlin.fir.expressions.FirAnnotation
import org.jetbrains.kotlin.fir.expressions.FirExpression
import org.jetbrains.kotlin.fir.expressions.FirResolvedQualifier
import org.jetbrains.kotlin.fir.expressions.UnresolvedExpressionTypeAccess
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirReplSnippetSymbol
import org.jetbrains.kotlin.fir.types.ConeClassLikeType
import org.jetbrains.kotlin.fir.types.ConeKotlinType
import org.jetbrains.kotlin.fir.types.FirResolvedTypeRef
import org.jetbrains.kotlin.fir.types.abbreviatedType
import org.jetbrains.kotlin.fir.types.contains
import org.jetbrains.kotlin.fir.visitors.FirVisitorVoid
import org.jetbrains.kotlin.name.ClassId
import java.util.IdentityHashMap

/**
 * Takes a snippet's module out of what later compilations depend on once none of its classes can be reached: each was
 * declared again under its name by a later snippet, and nothing a later snippet can reach mentions it.
 *
 * A snippet that declares a class keeps its module in the REPL's list (`ReplModuleDataProvider.moduleDataHistory`),
 * which every later compilation's session depends on, so every class lookup asks the module's providers
 * ([SnippetModuleChain]). A session that declares the same class again and again — an agent iterating on a data class,
 * a notebook cell run again — kept one more module per declaration: after 140 of the 30-line class a warm `1 + 1`
 * compiled in 27 ms against 20 ms (bench/README.md, "What a kept snippet module costs every later compile").
 *
 * Later snippets reach a class by its name (the REPL's history scope: a later class or type alias of a name wins, as in
 * [SnippetHistoryIndex]) or through a type that mentions it: an earlier value's or function's signature (a shadowed
 * `val f: Foo` still holds the old `Foo`), another reachable class's supertypes and members, a type alias's expansion.
 * So the module of a class is needed when its class is the newest of its name, when a callable of any snippet in the
 * history mentions it in its signature (types, receiver, type parameters' bounds, annotations, its contract's effects;
 * an inline function's body too, which a later call would inline), or when a needed module's classes mention it
 * anywhere. Every other class module leaves the list. A snippet's own statements (its result's computation) and
 * non-inline bodies count for nothing: later compilations never read them. Nothing a later snippet can name becomes
 * reachable again (a run's snippet only adds to the history, and names what is reachable), so a module once out stays
 * out; should the history ever lose a snippet, one needed again goes back in its place.
 *
 * Each snippet is read once (its FIR doesn't change after its compilation); each run's compilation then follows the
 * mentions over what was read. Only where [SnippetHistoryIndex] is in place (Kotlin 2.3.20–2.3.2x): which class a
 * name means is the index's answer ([HistoryIndex.classLikesByName]), and the layout (declarations as the snippet
 * class's members) is the one it was read against.
 */
internal class ShadowedClassModules(private val index: HistoryIndex) {
    private val read = IdentityHashMap<FirReplSnippetSymbol, ClassUse>()
    // Modules taken out, to go back in should their classes be needed again.
    private val parked = java.util.Collections.newSetFromMap(IdentityHashMap<FirModuleData, Boolean>())

    /** After a run's compilation: [modules] is the REPL's list, [snippets] its history, oldest first. */
    fun update(modules: MutableList<FirModuleData>, snippets: List<FirReplSnippetSymbol>) {
        val infos = snippets.map { read.getOrPut(it) { readSnippet(it) } }
        if (read.size > infos.size) {
            val inHistory = java.util.Collections.newSetFromMap(IdentityHashMap<FirReplSnippetSymbol, Boolean>())
            inHistory.addAll(snippets)
            read.keys.retainAll(inHistory)
            parked.retainAll(infos.map { it.module }.toSet())
        }
        val owners = HashMap<ClassId, ClassUse>()
        for (info in infos) info.classLikes.forEach { owners[it] = info }
        if (owners.isEmpty()) return
        val needed = java.util.Collections.newSetFromMap(IdentityHashMap<ClassUse, Boolean>())
        val pending = ArrayDeque<ClassId>(index.classLikesByName().map { it.classId })
        for (info in infos) pending.addAll(info.callableMentions)
        while (pending.isNotEmpty()) {
            val owner = ownerOf(pending.removeLast(), owners) ?: continue
            if (needed.add(owner)) pending.addAll(owner.classMentions)
        }
        val position = IdentityHashMap<FirModuleData, Int>()
        infos.forEachIndexed { i, info -> position[info.module] = i }
        for (info in infos) {
            if (info.classLikes.isEmpty()) continue
            if (info in needed) {
                if (parked.remove(info.module)) putBack(modules, info.module, position)
            } else if (modules.remove(info.module)) {
                parked.add(info.module)
            }
        }
    }

    /** Before the first module of a later snippet, so the list keeps the history's order. */
    private fun putBack(modules: MutableList<FirModuleData>, module: FirModuleData, position: Map<FirModuleData, Int>) {
        val at = position.getValue(module)
        val later = modules.indexOfFirst { (position[it] ?: -1) > at }
        if (later < 0) modules.add(module) else modules.add(later, module)
    }

    /** The top-level class of a snippet that declares [id] or the class it is nested in, if any snippet does. */
    private fun ownerOf(id: ClassId, owners: Map<ClassId, ClassUse>): ClassUse? {
        var at: ClassId? = id
        while (at != null) {
            owners[at]?.let { return it }
            at = at.outerClassId
        }
        return null
    }
}

/**
 * What one snippet declares and mentions: its class-likes; the ids its callables' signatures
 * mention; the ids its class-likes mention anywhere.
 */
private class ClassUse(
    val module: FirModuleData,
    val classLikes: List<ClassId>,
    val callableMentions: Set<ClassId>,
    val classMentions: Set<ClassId>,
)

@OptIn(SymbolInternals::class)
private fun readSnippet(snippet: FirReplSnippetSymbol): ClassUse {
    val members = snippetClassMembers(snippet.fir).orEmpty()
    val classLikes = ArrayList<ClassId>()
    val callables = Mentions(deep = false)
    val classes = Mentions(deep = true)
    for (member in members) {
        when {
            member is FirClassLikeDeclaration && member.isReplSnippetDeclaration == true -> {
                classLikes += member.symbol.classId
                member.accept(classes)
            }
            member is FirCallableDeclaration -> member.accept(callables)
        }
    }
    return ClassUse(snippet.moduleData, classLikes, callables.ids, classes.ids)
}

/**
 * The class ids a declaration's types mention. Not [deep]: its signature only — an expression (a body, an initializer,
 * a default value) is skipped unless it is an annotation or inside an inline function, whose body later calls inline.
 * Every element comes through [visitElement] (FirVisitorVoid's default), so the rules hold whatever the element's kind.
 * An expression's type is read as it is, null included: a failed snippet stays in the history, partly resolved.
 */
@OptIn(UnresolvedExpressionTypeAccess::class)
private class Mentions(private var deep: Boolean) : FirVisitorVoid() {
    val ids = HashSet<ClassId>()

    private companion object {
        // Far deeper than a contract's conditions nest; a bound on a walk by reflection.
        const val MAX_CONTRACT_DEPTH = 32
    }

    override fun visitElement(element: FirElement) {
        when {
            element is FirResolvedTypeRef -> add(element.coneType)
            // A contract's effects are no FIR tree (their acceptChildren visits nothing), yet a caller's smart cast
            // reads the types they name: `returns(true) implies (x is Foo)`.
            element is FirContractElementDeclaration -> addTypesIn(element.effect, depth = 0)
            element is FirAnnotation || (element is FirFunction && element.status.isInline) -> return deeply(element)
            element is FirExpression -> {
                if (!deep) return
                element.coneTypeOrNull?.let(::add)
                if (element is FirResolvedQualifier) element.classId?.let(ids::add)
            }
        }
        element.acceptChildren(this)
    }

    private fun deeply(element: FirElement) {
        val was = deep
        deep = true
        try {
            if (element is FirExpression) element.coneTypeOrNull?.let(::add)
            element.acceptChildren(this)
        } finally {
            deep = was
        }
    }

    /**
     * Every type a contract's element names, read field by field: the kinds of effect and condition differ between
     * Kotlin versions (2.2 added some), and each keeps its types and sub-elements in fields.
     */
    private fun addTypesIn(element: KtContractDescriptionElement<*, *>, depth: Int) {
        if (depth > MAX_CONTRACT_DEPTH) return
        var type: Class<*>? = element.javaClass
        while (type != null && type != Any::class.java) {
            for (field in type.declaredFields) {
                if (java.lang.reflect.Modifier.isStatic(field.modifiers)) continue
                field.isAccessible = true
                when (val value = field.get(element)) {
                    is ConeKotlinType -> add(value)
                    is KtContractDescriptionElement<*, *> -> addTypesIn(value, depth + 1)
                    is Collection<*> -> value.filterIsInstance<KtContractDescriptionElement<*, *>>().forEach { addTypesIn(it, depth + 1) }
                }
            }
            type = type.superclass
        }
    }

    private fun add(type: ConeKotlinType) {
        type.contains { part ->
            (part as? ConeClassLikeType)?.lookupTag?.classId?.let(ids::add)
            part.abbreviatedType?.let(::add)
            false
        }
    }
}
