package gradlerepl.repl

import gradlerepl.runtime.ReplOutput
import org.jetbrains.kotlin.KtSourceFile
import org.jetbrains.kotlin.com.intellij.openapi.project.Project
import org.jetbrains.kotlin.config.KotlinCompilerVersion
import org.jetbrains.kotlin.fir.FirSession
import org.jetbrains.kotlin.fir.declarations.FirDeclaration
import org.jetbrains.kotlin.fir.declarations.FirImport
import org.jetbrains.kotlin.fir.declarations.FirReplSnippet
import org.jetbrains.kotlin.fir.declarations.utils.isReplSnippetDeclaration
import org.jetbrains.kotlin.fir.declarations.utils.originalReplSnippetSymbol
import org.jetbrains.kotlin.fir.extensions.FirExtension
import org.jetbrains.kotlin.fir.extensions.FirExtensionRegistrar
import org.jetbrains.kotlin.fir.extensions.FirReplHistoryProvider
import org.jetbrains.kotlin.fir.extensions.FirReplSnippetResolveExtension
import org.jetbrains.kotlin.fir.resolve.providers.firProvider
import org.jetbrains.kotlin.fir.scopes.FirScope
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirClassLikeSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirNamedFunctionSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirPropertySymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirRegularClassSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirReplSnippetSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirTypeAliasSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirVariableSymbol
import org.jetbrains.kotlin.name.Name
import org.jetbrains.kotlin.scripting.compiler.plugin.services.FirReplHistoryProviderImpl
import org.jetbrains.kotlin.scripting.compiler.plugin.services.FirReplSnippetResolveExtensionImpl
import org.jetbrains.kotlin.scripting.compiler.plugin.services.firReplHistoryProvider
import org.jetbrains.kotlin.scripting.resolve.FirReplHistoryScope
import kotlin.script.experimental.api.repl
import kotlin.script.experimental.host.ScriptingHostConfiguration

/**
 * What every earlier snippet gives a compilation — its imports, its declarations — read once per snippet, not once per
 * resolve phase of every compilation.
 *
 * The K2 REPL's `FirReplSnippetResolveExtensionImpl` walks the whole history each time a resolve phase builds a
 * snippet's scopes: `getSnippetDefaultImports` asks each earlier snippet's session for its file's imports,
 * `getSnippetScope` reads each snippet class's members, marks them and files them by name (upstream's "consider
 * caching", KT-72975). So a compilation's cost grew with the session: the walks were 12 % of a warm `1 + 1`'s compile
 * at a session's 150th–450th snippet and 41 % at its 1,200th–1,500th (bench/README.md, "The REPL's history, read once
 * per snippet").
 *
 * This extension gives the same answers from an index: each snippet is read once it is no longer the history's
 * newest, and the merged imports and maps are made again only when the history changed. As in the REPL's own, every
 * snippet of the history counts, and a later class or type alias of a name wins over an earlier one. The defaults
 * (the compilation configuration's default imports) still come from the REPL's own extension, made over an empty
 * history. In 2.3.20–2.3.21 every call comes before the compiling snippet joins the history (`updateResolved` ends
 * its body's resolution), so the newest is always a finished snippet and the history only grows between calls;
 * reading the newest on each call and following a history that lost snippets (a check or a failed run takes its
 * snippet back) keep the answers right should a compiler ask later than that.
 *
 * Only where this was read against the REPL's own extension: Kotlin 2.3.20 to 2.3.2x, where a snippet's declarations
 * are its snippet class's members. Kotlin 2.2 to 2.3.10 copy a snippet's properties for its state, and a later Kotlin
 * may change the extension (KT-72975 itself): both keep the REPL's own walk.
 */
internal object SnippetHistoryIndex {
    private const val REPL_REGISTRAR = "org.jetbrains.kotlin.scripting.compiler.plugin.FirReplCompilerExtensionRegistrar"

    /**
     * Puts the index in place of the REPL's history walks in the compiler's [project] (reached by reflection, as
     * ReplDriver does); [history] is the REPL's, [host] the configuration the REPL's state was made with. Where it
     * can't, the REPL keeps its own walks and the worker's log says why; returns the index once it is in place.
     */
    fun install(project: () -> Any, history: FirReplHistoryProvider, host: ScriptingHostConfiguration): HistoryIndex? {
        val index = HistoryIndex(history)
        val why = try {
            if (readAgainstThisKotlin()) replaceWalks(project() as Project, index, host)
            else "read against Kotlin 2.3.20 to 2.3.2x, this is ${KotlinCompilerVersion.VERSION}"
        } catch (e: Exception) {
            e.toString()
        } catch (e: LinkageError) {
            e.toString()
        }
        why?.let { ReplOutput.toWorkerLog("compilations read earlier snippets through the REPL's own history walk ($it)") }
        return if (why == null) index else null
    }

    /** Why the walks stay, or null once the index replaces them. */
    private fun replaceWalks(project: Project, index: HistoryIndex, host: ScriptingHostConfiguration): String? {
        val lists = resolveExtensionFactories(project)
        if (lists.isEmpty()) return "no $REPL_REGISTRAR is registered"
        val defaults = FirReplSnippetResolveExtensionImpl.getFactory(
            ScriptingHostConfiguration(host) { repl { firReplHistoryProvider(FirReplHistoryProviderImpl()) } },
        )
        val indexed = FirReplSnippetResolveExtension.Factory { session -> Indexed(session, defaults.create(session), index) }
        for (list in lists) {
            @Suppress("UNCHECKED_CAST")
            (list as MutableList<FirExtension.Factory<FirExtension>>).replaceAll { indexed as FirExtension.Factory<FirExtension> }
        }
        // What the next compilation will read, read back: a Kotlin whose configure() hands out a copy keeps its walk.
        val now = resolveExtensionFactories(project).flatten()
        return if (now.isNotEmpty() && now.all { it === indexed }) null else "the registrar's factories did not change"
    }

    /**
     * The REPL registrar's lists of snippet-resolve extension factories, as the compiler reads them for each
     * compilation's session (configure() hands out the registrar's own map of factories, not a copy).
     */
    private fun resolveExtensionFactories(project: Project): List<List<FirExtension.Factory<FirExtension>>> =
        FirExtensionRegistrar.getInstances(project)
            .filter { it.javaClass.name == REPL_REGISTRAR }
            .mapNotNull { it.configure().extensions[FirReplSnippetResolveExtension::class] }

    /** Kotlin 2.3.20 to 2.3.2x, and a snippet laid out as those lay it out (its declarations its class's members). */
    private fun readAgainstThisKotlin(): Boolean {
        val (major, minor, patch) = (KotlinCompilerVersion.VERSION.split('.', '-') + listOf("", "", ""))
            .take(3).map { it.toIntOrNull() ?: -1 }
        return major == 2 && minor == 3 && patch in 20..29 &&
            FirReplSnippet::class.java.methods.any { it.name == "getSnippetClass" && it.parameterCount == 0 }
    }
}

/**
 * The members of a snippet's snippet class (Kotlin 2.3.20 on), or null where this Kotlin lays a snippet out otherwise;
 * read by name, as the layouts differ between the Kotlin versions the facade is compiled for.
 */
internal fun snippetClassMembers(snippet: FirReplSnippet): List<*>? =
    snippet.javaClass.methods.firstOrNull { it.name == "getSnippetClass" && it.parameterCount == 0 }
        ?.invoke(snippet)?.let { it.javaClass.getMethod("getDeclarations").invoke(it) as? List<*> }

private class Indexed(
    session: FirSession,
    private val defaults: FirReplSnippetResolveExtension,
    private val index: HistoryIndex,
) : FirReplSnippetResolveExtension(session) {
    override fun getSnippetDefaultImports(sourceFile: KtSourceFile, snippet: FirReplSnippet): List<FirImport>? =
        defaults.getSnippetDefaultImports(sourceFile, snippet)?.let { it + index.imports() }

    override fun getSnippetScope(currentSnippet: FirReplSnippet, useSiteSession: FirSession): FirScope =
        index.scope(useSiteSession)

    override fun updateResolved(snippet: FirReplSnippet) {
        index.history.putSnippet(snippet.symbol)
    }
}

/** One snippet as later compilations see it: its file's imports, its snippet declarations. */
private class Entry(val snippet: FirReplSnippetSymbol, val imports: List<FirImport>, val declarations: List<FirDeclaration>)

/** A history's declarations by name, as the REPL's scope takes them; never changed once made (scopes keep them). */
private class Declarations(
    val properties: Map<Name, List<FirVariableSymbol<*>>> = emptyMap(),
    val functions: Map<Name, List<FirNamedFunctionSymbol>> = emptyMap(),
    val classLikes: Map<Name, FirClassLikeSymbol<*>> = emptyMap(),
) {
    fun plus(entries: List<Entry>): Declarations {
        if (entries.all { it.declarations.isEmpty() }) return this
        val properties = HashMap(properties)
        val functions = HashMap(functions)
        val classLikes = HashMap(classLikes)
        for (entry in entries) {
            for (declaration in entry.declarations) {
                when (val symbol = declaration.symbol) {
                    is FirPropertySymbol -> properties[symbol.name] = properties[symbol.name].orEmpty() + symbol
                    is FirNamedFunctionSymbol -> functions[symbol.name] = functions[symbol.name].orEmpty() + symbol
                    is FirRegularClassSymbol -> classLikes[symbol.name] = symbol
                    is FirTypeAliasSymbol -> classLikes[symbol.name] = symbol
                    else -> {}
                }
            }
        }
        return Declarations(properties, functions, classLikes)
    }
}

/** The history's imports and declarations, each snippet read once (see [SnippetHistoryIndex]). */
internal class HistoryIndex(val history: FirReplHistoryProvider) {
    // Every snippet of the history but its newest, in its order, each read once.
    private val settled = ArrayList<Entry>()
    private var settledImports: List<FirImport> = emptyList()
    private var settledDeclarations = Declarations()
    // The settled declarations with the newest snippet's, for as long as neither changes (a compilation's phases ask
    // for the scope again and again).
    private var withNewest: WithNewest? = null

    private class WithNewest(val settled: Declarations, val newest: Entry, val merged: Declarations)

    @Synchronized
    fun imports(): List<FirImport> {
        val newest = syncedNewest() ?: return settledImports
        return if (newest.imports.isEmpty()) settledImports else settledImports + newest.imports
    }

    @Synchronized
    fun scope(useSiteSession: FirSession): FirScope {
        val declarations = declarations()
        return FirReplHistoryScope(declarations.properties, declarations.functions, declarations.classLikes, useSiteSession)
    }

    /** The class or type alias each name means to the next snippet: of the snippets declaring one, the latest's. */
    @Synchronized
    fun classLikesByName(): Collection<FirClassLikeSymbol<*>> = declarations().classLikes.values

    private fun declarations(): Declarations {
        val newest = syncedNewest()
        return if (newest == null || newest.declarations.isEmpty()) settledDeclarations else withNewest(newest)
    }

    private fun withNewest(newest: Entry): Declarations {
        withNewest?.let {
            if (it.settled === settledDeclarations && it.newest.snippet === newest.snippet &&
                it.newest.declarations == newest.declarations
            ) {
                return it.merged
            }
        }
        return settledDeclarations.plus(listOf(newest)).also { withNewest = WithNewest(settledDeclarations, newest, it) }
    }

    /** Brings the settled entries in line with the history; returns its newest snippet, read now. */
    private fun syncedNewest(): Entry? {
        val snippets = history.getSnippets().toList()
        val settledCount = maxOf(snippets.size - 1, 0)
        var same = 0
        while (same < settled.size && same < settledCount && settled[same].snippet === snippets[same]) same++
        if (same < settled.size) {
            settled.subList(same, settled.size).clear()
            settledImports = settled.flatMap { it.imports }
            settledDeclarations = Declarations().plus(settled)
        }
        if (settled.size < settledCount) {
            val added = snippets.subList(settled.size, settledCount).map(::read)
            settled.addAll(added)
            settledImports = settledImports + added.flatMap { it.imports }
            settledDeclarations = settledDeclarations.plus(added)
        }
        return snippets.lastOrNull()?.let(::read)
    }

    @OptIn(SymbolInternals::class)
    private fun read(snippet: FirReplSnippetSymbol): Entry {
        val fir = snippet.fir
        val imports = snippet.moduleData.session.firProvider.getFirReplSnippetContainerFile(snippet)?.imports.orEmpty()
        val declarations = snippetClassMembers(fir).orEmpty()
            .filterIsInstance<FirDeclaration>()
            .filter { it.isReplSnippetDeclaration == true }
        declarations.forEach { it.originalReplSnippetSymbol = snippet }
        return Entry(snippet, imports.toList(), declarations)
    }
}
