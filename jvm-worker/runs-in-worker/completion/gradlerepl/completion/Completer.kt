@file:OptIn(SymbolInternals::class, DirectDeclarationsAccess::class)

package gradlerepl.completion

import gradlerepl.repl.AnalysisComplete
import gradlerepl.repl.ReplDriver
import gradlerepl.repl.StopBeforeBackend
import org.jetbrains.kotlin.backend.common.extensions.IrGenerationExtension
import org.jetbrains.kotlin.backend.common.extensions.IrPluginContext
import org.jetbrains.kotlin.cli.common.fir.reportToMessageCollector
import org.jetbrains.kotlin.diagnostics.impl.BaseDiagnosticsCollector
import org.jetbrains.kotlin.fir.declarations.FirReplSnippet
import org.jetbrains.kotlin.fir.types.FirResolvedTypeRef
import org.jetbrains.kotlin.fir.types.FirUserTypeRef
import org.jetbrains.kotlin.fir.types.renderReadableWithFqNames
import org.jetbrains.kotlin.ir.declarations.IrModuleFragment
import org.jetbrains.kotlin.com.intellij.openapi.project.Project
import org.jetbrains.kotlin.diagnostics.DiagnosticReporter
import org.jetbrains.kotlin.fir.FirElement
import org.jetbrains.kotlin.fir.FirSession
import org.jetbrains.kotlin.fir.declarations.DirectDeclarationsAccess
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.scopes.impl.nestedClassifierScope
import org.jetbrains.kotlin.fir.analysis.checkers.MppCheckerKind
import org.jetbrains.kotlin.fir.analysis.checkers.context.CheckerContext
import org.jetbrains.kotlin.fir.analysis.checkers.declaration.DeclarationCheckers
import org.jetbrains.kotlin.fir.analysis.checkers.declaration.FirFileChecker
import org.jetbrains.kotlin.fir.analysis.extensions.FirAdditionalCheckersExtension
import org.jetbrains.kotlin.fir.declarations.FirAnonymousFunction
import org.jetbrains.kotlin.fir.declarations.FirClass
import org.jetbrains.kotlin.fir.declarations.FirDeclaration
import org.jetbrains.kotlin.fir.declarations.FirFile
import org.jetbrains.kotlin.fir.declarations.FirFunction
import org.jetbrains.kotlin.fir.declarations.FirProperty
import org.jetbrains.kotlin.fir.declarations.FirRegularClass
import org.jetbrains.kotlin.fir.declarations.FirResolvePhase
import org.jetbrains.kotlin.fir.declarations.FirTypeAlias
import org.jetbrains.kotlin.fir.declarations.FirValueParameter
import org.jetbrains.kotlin.fir.expressions.FirBlock
import org.jetbrains.kotlin.fir.expressions.FirQualifiedAccessExpression
import org.jetbrains.kotlin.fir.expressions.FirResolvedQualifier
import org.jetbrains.kotlin.fir.extensions.FirExtensionRegistrar
import org.jetbrains.kotlin.fir.extensions.FirExtensionRegistrarAdapter
import org.jetbrains.kotlin.fir.references.FirNamedReference
import org.jetbrains.kotlin.fir.resolve.ScopeSession
import org.jetbrains.kotlin.fir.resolve.providers.symbolProvider
import org.jetbrains.kotlin.fir.scopes.CallableCopyTypeCalculator
import org.jetbrains.kotlin.fir.scopes.processAllCallables
import org.jetbrains.kotlin.fir.resolve.scope
import org.jetbrains.kotlin.fir.symbols.impl.FirCallableSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirClassLikeSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirConstructorSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirFunctionSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirRegularClassSymbol
import org.jetbrains.kotlin.fir.types.ConeClassLikeType
import org.jetbrains.kotlin.fir.types.ConeErrorType
import org.jetbrains.kotlin.fir.types.ConeKotlinType
import org.jetbrains.kotlin.fir.types.ConeKotlinTypeProjection
import org.jetbrains.kotlin.fir.types.ConeStarProjection
import org.jetbrains.kotlin.fir.types.ConeTypeParameterType
import org.jetbrains.kotlin.fir.types.coneType
import org.jetbrains.kotlin.fir.types.typeContext
import org.jetbrains.kotlin.fir.types.withArguments
import org.jetbrains.kotlin.fir.languageVersionSettings
import org.jetbrains.kotlin.types.AbstractTypeChecker
import org.jetbrains.kotlin.fir.types.lowerBoundIfFlexible
import org.jetbrains.kotlin.fir.types.renderReadable
import org.jetbrains.kotlin.fir.types.resolvedType
import org.jetbrains.kotlin.fir.visitors.FirVisitorVoid
import org.jetbrains.kotlin.name.ClassId
import org.jetbrains.kotlin.name.FqName
import org.jetbrains.kotlin.name.Name

/** One candidate, read by the worker's Python through JPype. */
class Candidate(
    @JvmField val text: String,
    @JvmField val kind: String,
    @JvmField val detail: String,
    /**
     * Lower is better: 0 locals, 1 the snippet's own, 2 members and a package's contents, 3 extensions, 4 imported;
     * [AUTO_IMPORT_RANK] and above, classes not imported yet.
     */
    @JvmField val rank: Int,
    /** The class this candidate needs imported (`java.io.File`), as IntelliJ's auto-import adds it; else empty. */
    @JvmField val importName: String = "",
)

/** Classes not imported yet rank after everything in scope (and the worker's keywords, 6), the likeliest first. */
const val AUTO_IMPORT_RANK = 7
/** How many not-yet-imported classes matching the prefix are looked up in the compiler (each a symbol load). */
const val AUTO_IMPORT_LOOKUPS = 30

class CompletionOutcome {
    @JvmField var candidates: MutableList<Candidate> = mutableListOf()
    /** What stands before the cursor: `member` after `x.`, `package` after a package name, `type` where a type is
     * written (`val f: Fi`), else `scope`. */
    @JvmField var position: String = "scope"
    /** Set when the compiler never reached the code at the cursor (then the caller answers from what it knows). */
    @JvmField var found = false
    @JvmField var internalError: Throwable? = null
}

/**
 * Completion from the K2 compiler's own resolution: the code is compiled in the session's state (and taken back,
 * ReplDriver.compileUntraced) with a marker identifier in place of the prefix at the cursor; a FIR file checker,
 * registered in the compiler's project, finds the marker in the resolved FIR and asks the compiler what fits
 * there: the members of the receiver's type (its FIR type scope), extension callables whose receiver the
 * receiver's type is, the declarations and parameters in scope, the members of a package. FIR internals move
 * between Kotlin releases; this add-on is compiled per Kotlin version, and when it doesn't compile the session
 * says completion is unavailable on that version.
 */
class Completer(private val driver: ReplDriver, classpath: Array<String>) : StopBeforeBackend {
    /** The classes a snippet could import, indexed on a thread of its own while the first completion compiles. */
    private val classIndex = java.util.concurrent.CompletableFuture.supplyAsync { ClassIndex.build(classpath.toList()) }

    /** The class index once built; null if building it failed (completion then offers only what is in scope). */
    internal fun index(): ClassIndex? = try {
        classIndex.get()
    } catch (e: java.util.concurrent.ExecutionException) {
        null
    }

    @Volatile private var active: Request? = null
    /** Set while a check compiles: its checker keeps the diagnostics and the value's type, its IR step ends it. */
    @Volatile internal var checking: Check? = null

    init {
        val project = driver.compilerProject() as Project
        FirExtensionRegistrarAdapter.registerExtension(project, Registrar(this))
        IrGenerationExtension.registerExtension(project, EndCheck(this))
        driver.analysis = this
    }

    override fun <T> beforeBackend(compilation: () -> T): T {
        checking = Check()
        try {
            return compilation()
        } finally {
            checking = null
        }
    }

    internal fun endCheck() {
        val check = checking ?: return
        val reporter = check.reporter ?: return
        reporter.reportToMessageCollector(driver.messageCollector(), false)
        throw AnalysisComplete(check.valueType)
    }

    /** Each package's top-level callables, read once: library packages don't change within a session. */
    internal val packageCallables = java.util.concurrent.ConcurrentHashMap<FqName, List<FirCallableSymbol<*>>>()

    fun complete(code: String, prefixStart: Int, cursor: Int, sourceName: String, defaultPackages: Array<String>): CompletionOutcome =
        driver.onCompilerThread {
            val request = Request(this, defaultPackages.map(::FqName), code.substring(prefixStart, cursor))
            active = request
            try {
                driver.compileUntraced(code.substring(0, prefixStart) + MARKER + code.substring(cursor), sourceName)
            } finally {
                active = null
            }
            request.outcome
        }

    internal fun analyse(file: FirFile, session: FirSession, scopeSession: ScopeSession) {
        val request = active ?: return
        if (request.done) return
        request.done = true
        try {
            request.analyse(file, session, scopeSession)
        } catch (t: Throwable) {
            request.outcome.internalError = t
        }
    }

    companion object {
        const val MARKER = "gradleReplCompletionMarker"
    }
}

private class Registrar(private val completer: Completer) : FirExtensionRegistrar() {
    override fun ExtensionRegistrarContext.configurePlugin() {
        +FirAdditionalCheckersExtension.Factory { session -> Checkers(session, completer) }
    }
}

private class Checkers(session: FirSession, completer: Completer) : FirAdditionalCheckersExtension(session) {
    override val declarationCheckers: DeclarationCheckers = object : DeclarationCheckers() {
        override val fileCheckers: Set<FirFileChecker> = setOf(Capture(completer))
    }
}

private class Capture(private val completer: Completer) : FirFileChecker(MppCheckerKind.Common) {
    context(context: CheckerContext, reporter: DiagnosticReporter)
    override fun check(declaration: FirFile) {
        completer.checking?.let { check ->
            check.reporter = reporter as? BaseDiagnosticsCollector
            check.valueType = resultType(declaration)
        }
        completer.analyse(declaration, context.session, context.scopeSession)
    }
}

internal class Check {
    @Volatile var reporter: BaseDiagnosticsCollector? = null
    @Volatile var valueType: String? = null
}

/** IR generation starts only when the checkers found no error: a check ends there, before the backend. */
private class EndCheck(private val completer: Completer) : IrGenerationExtension {
    override fun generate(moduleFragment: IrModuleFragment, pluginContext: IrPluginContext) {
        completer.endCheck()
    }
}

/**
 * The type of the snippet's value as the frontend resolved it: the snippet's result type (Kotlin 2.2's
 * `FirReplSnippet.resultTypeRef`) or the type of its result property (2.3: a property of `snippetClass` whose source
 * kind is `ReplResultField`).
 * Read by name, so one source serves both shapes; Unit (no value) is null.
 */
private fun resultType(file: FirFile): String? {
    val snippet = file.declarations.firstOrNull { it is FirReplSnippet } ?: return null
    val type = try {
        (snippet.javaClass.getMethod("getResultTypeRef").invoke(snippet) as? FirResolvedTypeRef)?.coneType
    } catch (e: NoSuchMethodException) {
        // 2.3 keeps the value in a property of the snippet's class whose source is the REPL's result field.
        val snippetClass = snippet.javaClass.getMethod("getSnippetClass").invoke(snippet) as FirRegularClass
        val result = snippetClass.declarations.filterIsInstance<FirProperty>().lastOrNull { "ReplResultField" in it.source?.kind.toString() }
        (result?.returnTypeRef as? FirResolvedTypeRef)?.coneType
    } ?: return null
    val rendered = type.renderReadableWithFqNames()
    return if (rendered == "kotlin.Unit") null else rendered
}

private class Request(private val completer: Completer, private val defaultPackages: List<FqName>, private val prefix: String) {
    @Volatile var done = false
    val outcome = CompletionOutcome()
    private val seen = HashSet<String>()

    fun analyse(file: FirFile, session: FirSession, scopeSession: ScopeSession) {
        languageVersionSettings = session.languageVersionSettings
        val finder = MarkerFinder()
        file.accept(finder)
        val access = finder.access
        if (finder.importPackage != null) {
            outcome.found = true
            outcome.position = "package"
            packageMembers(finder.importPackage!!, session)
            return
        }
        val typeQualifier = finder.typeQualifier
        if (typeQualifier != null) {
            outcome.found = true
            typeAt(typeQualifier, finder.path, file, session, scopeSession)
            return
        }
        if (access == null) return
        outcome.found = true
        val receiver = access.explicitReceiver
        if (receiver is FirResolvedQualifier && receiver.relativeClassFqName == null) {
            outcome.position = "package"
            packageMembers(receiver.packageFqName, session)
            return
        }
        if (receiver is FirResolvedQualifier) {
            outcome.position = "member"
            val symbol = receiver.symbol as? FirRegularClassSymbol ?: return
            // An object's or a companion's members: the qualifier's type is that object's.
            val type = receiver.resolvedType.lowerBoundIfFlexible()
            if (type is ConeClassLikeType && type.lookupTag.classId.asString() != "kotlin/Unit") {
                members(type, session, scopeSession)
                extensions(type, session, file)  // `Modifier.fillMaxSize`: extensions on a companion object
            }
            staticMembers(symbol, session, scopeSession)
            return
        }
        if (receiver != null) {
            outcome.position = "member"
            val type = receiver.resolvedType.lowerBoundIfFlexible()
            // A receiver the compiler could not resolve has no members to offer (and would pass every subtype check);
            // a dotted name may still be a package that holds no class itself (`kotlinx.`).
            if (type is ConeErrorType) {
                val name = dottedName(receiver) ?: return
                if (completer.index()?.subPackages(name).isNullOrEmpty()) return
                outcome.position = "package"
                packageMembers(FqName(name), session)
                return
            }
            members(type, session, scopeSession)
            extensions(type, session, file)
            return
        }
        locals(finder.path)
        implicitReceivers(finder.path, session, scopeSession, file)
        imported(file, session)
        autoImports(file, session)
    }

    /**
     * What `this` offers without a dot: the members of the receivers of enclosing extension functions and lambdas
     * (`fun String.slug() = low…`, `buildString { app… }`), and the extensions that take them.
     */
    private fun implicitReceivers(path: List<FirElement>, session: FirSession, scopeSession: ScopeSession, file: FirFile) {
        for (element in path.asReversed()) {
            // An enclosing class's own declarations are the locals' (a class's default type is an API that moves).
            val function = element as? FirFunction ?: continue
            val type = (function.receiverParameter?.typeRef as? FirResolvedTypeRef)?.coneType ?: continue
            if (type is ConeErrorType) continue
            members(type, session, scopeSession)
            extensions(type, session, file)
        }
    }

    /**
     * Where a type is written (`val f: Fi`, `: java.io.Fi`, `@Serializ`): after a qualifier, the package's classes and
     * sub-packages or the class's nested ones; without one, the classes in scope and those an import would bring.
     */
    private fun typeAt(qualifier: List<Name>, path: List<FirElement>, file: FirFile, session: FirSession, scopeSession: ScopeSession) {
        outcome.position = "type"
        if (qualifier.isEmpty()) {
            locals(path)
            imported(file, session)
            autoImports(file, session)
            outcome.candidates.removeAll { it.kind !in CLASSIFIER_KINDS }
            return
        }
        val name = FqName.fromSegments(qualifier.map { it.asString() })
        val klass = session.symbolProvider.getClassLikeSymbolByClassId(ClassId.topLevel(name)) as? FirRegularClassSymbol
        if (klass != null) {
            staticMembers(klass, session, scopeSession)
            outcome.candidates.removeAll { it.kind !in CLASSIFIER_KINDS }
        } else {
            packageMembers(name, session)
            outcome.candidates.removeAll { it.kind !in CLASSIFIER_KINDS && it.kind != "package" }
        }
    }

    /**
     * Classes not imported yet whose name starts with the prefix, with the import each needs: from the session's
     * class index (the classpath and the JDK), checked by the compiler (it resolves and is public), the project's own
     * and the JDK's `java.`/`kotlin.` ones first. Only with a prefix: every class on the classpath is no answer.
     */
    private fun autoImports(file: FirFile, session: FirSession) {
        if (prefix.isEmpty()) return
        val index = completer.index() ?: return
        val inScope = importedPackages(file).map { it.asString() }.toSet()
        // A name already in scope (imported, or a Kotlin alias such as kotlin.collections.RandomAccess) needs no import.
        val named = file.imports.filter { !it.isAllUnder }.mapNotNull { it.importedFqName?.shortName()?.asString() }.toSet() +
            outcome.candidates.filter { it.kind in CLASSIFIER_KINDS }.map { it.text }
        val likeliest = index.classesStartingWith(prefix)
            .filter { it.packageName.isNotEmpty() && it.packageName !in inScope && it.simpleName !in named }
            .sortedWith(compareBy({ !it.simpleName.startsWith(prefix) }, ::importPenalty, { it.simpleName.length }, { it.fqName }))
            .take(AUTO_IMPORT_LOOKUPS)
        for (indexed in likeliest) {
            val classId = ClassId(FqName(indexed.packageName), Name.identifier(indexed.simpleName))
            val symbol = session.symbolProvider.getClassLikeSymbolByClassId(classId) ?: continue
            val visibility = symbol.resolvedStatus.visibility.name
            if (visibility != "public" && !(visibility == "internal" && indexed.origin == Origin.PROJECT)) continue
            addClassifier(symbol, AUTO_IMPORT_RANK + importPenalty(indexed), indexed.fqName)
        }
    }

    /** A package name written as a chain of plain names (`kotlinx.coroutines`), else null. */
    private fun dottedName(expression: org.jetbrains.kotlin.fir.expressions.FirExpression): String? {
        if (expression is FirResolvedQualifier) return expression.packageFqName.asString().takeIf { expression.relativeClassFqName == null }
        val access = expression as? FirQualifiedAccessExpression ?: return null
        val name = (access.calleeReference as? FirNamedReference)?.name?.asString() ?: return null
        val receiver = access.explicitReceiver ?: return name
        return dottedName(receiver)?.let { "$it.$name" }
    }

    /** Names the prefix can complete to (any case; the worker ranks exact case first). */
    private fun wanted(name: String): Boolean = name.startsWith(prefix, ignoreCase = true)

    private fun add(name: String, kind: String, detail: String, rank: Int, importName: String = "") {
        if (name.isEmpty() || name.startsWith("<") || '$' in name || name.contains(Completer.MARKER) || !wanted(name)) return
        if (seen.add("$name|$kind|$detail")) outcome.candidates.add(Candidate(name, kind, detail, rank, importName))
    }

    private fun addCallable(symbol: FirCallableSymbol<*>, rank: Int) {
        if (symbol is FirConstructorSymbol) return
        val name = symbol.name.asString()
        if (!wanted(name) || '$' in name || !visible(symbol.resolvedStatus.visibility) || hidden(symbol)) return
        if (symbol is FirFunctionSymbol<*>) {
            add(name, "function", signature(symbol), rank)
        } else {
            add(name, "property", type(symbol), rank)
        }
    }

    private fun addClassifier(symbol: FirClassLikeSymbol<*>, rank: Int, importName: String = "") {
        if (!wanted(symbol.classId.shortClassName.asString()) || !visible(symbol.resolvedStatus.visibility)) return
        val fir = symbol.fir
        val kind = when {
            fir is FirTypeAlias -> "typealias"
            fir is FirRegularClass && fir.classKind.name == "INTERFACE" -> "interface"
            fir is FirRegularClass && fir.classKind.name == "OBJECT" -> "object"
            fir is FirRegularClass && fir.classKind.name == "ENUM_CLASS" -> "enum"
            else -> "class"
        }
        add(symbol.classId.shortClassName.asString(), kind, symbol.classId.packageFqName.asString(), rank, importName)
    }

    /** The receiver type's members as its FIR scope has them: declared and inherited, Java members included. */
    private fun members(type: ConeKotlinType, session: FirSession, scopeSession: ScopeSession) {
        val scope = type.scope(session, scopeSession, CallableCopyTypeCalculator.DoNothing, FirResolvePhase.STATUS) ?: return
        scope.processAllCallables { addCallable(it, if (it.callableId?.classId?.asString() == "kotlin/Any") 4 else 2) }
    }

    /** A class named before the dot: its (Java) static members and its nested classes. */
    private fun staticMembers(symbol: FirRegularClassSymbol, session: FirSession, scopeSession: ScopeSession) {
        val klass = symbol.fir
        klass.scopeProvider.getStaticScope(klass, session, scopeSession)?.processAllCallables { addCallable(it, 2) }
        for (name in session.nestedClassifierScope(klass)?.getClassifierNames().orEmpty()) {
            val nested = session.symbolProvider.getClassLikeSymbolByClassId(symbol.classId.createNestedClassId(name)) ?: continue
            addClassifier(nested, 2)
        }
    }

    /** Top-level callables whose receiver the receiver's type is a subtype of, in the packages in scope. */
    private fun extensions(type: ConeKotlinType, session: FirSession, file: FirFile) {
        forEachImportedCallable(file, session) { symbol ->
            if (!wanted(symbol.name.asString())) return@forEachImportedCallable
            val receiver = symbol.resolvedReceiverType ?: return@forEachImportedCallable
            if (appliesTo(type, receiver, session, 0)) addCallable(symbol, 3)
        }
    }

    /**
     * Whether a receiver of [type] can call an extension on [receiver]: the subtype check with the extension's own
     * type parameters as star projections (`Iterable<T>` takes any Iterable, `Iterable<Float>` only those of Float),
     * and a type parameter receiver (`T.also`) taking whatever meets its bounds.
     */
    private fun appliesTo(type: ConeKotlinType, receiver: ConeKotlinType, session: FirSession, depth: Int): Boolean {
        if (depth > 3) return true
        val wanted = when (val bare = receiver.lowerBoundIfFlexible()) {
            is ConeTypeParameterType ->
                return bare.lookupTag.typeParameterSymbol.resolvedBounds.all { appliesTo(type, it.coneType, session, depth + 1) }
            is ConeClassLikeType -> bare.withArguments { argument ->
                // `Array<out T>.sumOf`: a projection's type counts too.
                val argumentType = (argument as? ConeKotlinTypeProjection)?.type?.lowerBoundIfFlexible()
                if (argumentType != null && mentionsTypeParameter(argumentType, 0)) ConeStarProjection else argument
            }
            else -> return false
        }
        return AbstractTypeChecker.isSubtypeOf(session.typeContext, type, wanted)
    }

    /** `T`, or `Pair<K, V>` (`Iterable<Pair<K, V>>.toMap`): an argument taken as a star projection. */
    private fun mentionsTypeParameter(type: ConeKotlinType, depth: Int): Boolean = depth < 4 && (
        type is ConeTypeParameterType ||
            type.typeArguments.any { argument ->
                val inner = (argument as? ConeKotlinTypeProjection)?.type?.lowerBoundIfFlexible()
                inner != null && mentionsTypeParameter(inner, depth + 1)
            }
        )

    /** Public and protected declarations; internal ones too (a project's own module is the session's friend). */
    private fun visible(visibility: org.jetbrains.kotlin.descriptors.Visibility): Boolean =
        visibility.name in setOf("public", "protected", "internal")

    private fun hidden(symbol: FirCallableSymbol<*>): Boolean = try {
        symbol.getDeprecation(languageVersionSettings)?.all?.deprecationLevel?.name == "HIDDEN"
    } catch (e: Exception) {
        false
    }

    private lateinit var languageVersionSettings: org.jetbrains.kotlin.config.LanguageVersionSettings

    /** Names in scope at the marker: enclosing functions' and lambdas' parameters, declarations before it. */
    private fun locals(path: List<FirElement>) {
        for ((index, element) in path.withIndex()) {
            val child = path.getOrNull(index + 1)
            when (element) {
                is FirFunction -> element.valueParameters.forEach { add(it.name.asString(), "parameter", it.returnTypeRef.renderType(), 0) }
                is FirBlock -> {
                    for (statement in element.statements) {
                        if (statement === child) break
                        if (statement is FirDeclaration) declared(statement, 1)
                    }
                }
                is FirClass -> element.declarations.forEach { declared(it, 1) }
                else -> {}
            }
        }
    }

    private fun declared(declaration: FirDeclaration, rank: Int) {
        when (declaration) {
            is FirProperty -> add(declaration.name.asString(), "variable", declaration.returnTypeRef.renderType(), rank)
            is FirFunction -> if (declaration !is FirAnonymousFunction) addCallable(declaration.symbol, rank)
            is FirRegularClass -> addClassifier(declaration.symbol, rank)
            is FirTypeAlias -> addClassifier(declaration.symbol, rank)
            else -> {}
        }
    }

    /** What the file's imports (the REPL adds every earlier snippet's) and Kotlin's default imports bring in. */
    private fun imported(file: FirFile, session: FirSession) {
        forEachImportedCallable(file, session) { if (it.resolvedReceiverType == null) addCallable(it, 4) }
        for (pkg in importedPackages(file)) {
            val names = session.symbolProvider.symbolNamesProvider.getTopLevelClassifierNamesInPackage(pkg) ?: continue
            for (name in names) {
                if (!wanted(name.asString())) continue
                val symbol = session.symbolProvider.getClassLikeSymbolByClassId(ClassId(pkg, name)) ?: continue
                addClassifier(symbol, 4)
            }
        }
        for (import in file.imports) {
            val fqName = import.importedFqName ?: continue
            if (import.isAllUnder) continue
            val symbol = session.symbolProvider.getClassLikeSymbolByClassId(ClassId.topLevel(fqName))
            if (symbol != null) addClassifier(symbol, 4)
        }
    }

    private fun importedPackages(file: FirFile): List<FqName> =
        (file.imports.filter { it.isAllUnder }.mapNotNull { it.importedFqName } + defaultPackages).distinct()

    private fun forEachImportedCallable(file: FirFile, session: FirSession, action: (FirCallableSymbol<*>) -> Unit) {
        val provider = session.symbolProvider
        for (pkg in importedPackages(file)) {
            completer.packageCallables.getOrPut(pkg) {
                val names = provider.symbolNamesProvider.getTopLevelCallableNamesInPackage(pkg).orEmpty()
                names.flatMap { provider.getTopLevelCallableSymbols(pkg, it) }
            }.forEach(action)
        }
        for (import in file.imports) {
            val fqName = import.importedFqName ?: continue
            if (import.isAllUnder || fqName.isRoot) continue
            provider.getTopLevelCallableSymbols(fqName.parent(), fqName.shortName()).forEach(action)
        }
    }

    /** A package named before the dot: its classes and top-level callables as the compiler's providers list them. */
    private fun packageMembers(pkg: FqName, session: FirSession) {
        val names = session.symbolProvider.symbolNamesProvider
        names.getTopLevelClassifierNamesInPackage(pkg)?.forEach { name ->
            if (wanted(name.asString())) session.symbolProvider.getClassLikeSymbolByClassId(ClassId(pkg, name))?.let { addClassifier(it, 2) }
        }
        names.getTopLevelCallableNamesInPackage(pkg)?.forEach { name ->
            if (wanted(name.asString())) session.symbolProvider.getTopLevelCallableSymbols(pkg, name).forEach { addCallable(it, 2) }
        }
        // The compiler's providers list no packages; the class index knows which hold classes below this one.
        completer.index()?.subPackages(pkg.asString())?.forEach { add(it, "package", pkg.child(Name.identifier(it)).asString(), 2) }
    }

    /** `fun Iterable<T>.map(transform: (T) -> R): List<R>`, as Kotlin declares it. */
    private fun signature(symbol: FirFunctionSymbol<*>): String {
        val receiver = symbol.resolvedReceiverType?.let { "${it.renderReadable()}." } ?: ""
        val parameters = symbol.valueParameterSymbols.joinToString(", ") { "${it.name}: ${it.resolvedReturnType.renderReadable()}" }
        return "fun $receiver${symbol.name}($parameters): ${symbol.resolvedReturnType.renderReadable()}"
    }

    private fun type(symbol: FirCallableSymbol<*>): String = try {
        symbol.resolvedReturnType.renderReadable()
    } catch (e: Exception) {
        ""
    }
}

private val CLASSIFIER_KINDS = setOf("class", "interface", "object", "enum", "typealias")

/**
 * How far down a not-yet-imported class goes among those of the same prefix: the project's own, then Kotlin's and
 * the JDK's `java.` packages, then libraries, then `javax.`, then the JDK's others (`sun.`, `jdk.`, `org.w3c.`) and
 * anyone's `internal` and `impl` packages.
 */
private fun importPenalty(indexed: IndexedClass): Int {
    val pkg = indexed.packageName
    return when {
        indexed.origin == Origin.PROJECT -> 0
        ".internal" in pkg || ".impl" in pkg -> 4
        pkg.startsWith("kotlin.") || pkg.startsWith("java.") -> 1
        indexed.origin == Origin.LIBRARY -> 2
        pkg.startsWith("javax.") -> 3
        else -> 4
    }
}

private fun org.jetbrains.kotlin.fir.types.FirTypeRef.renderType(): String =
    (this as? org.jetbrains.kotlin.fir.types.FirResolvedTypeRef)?.coneType?.renderReadable() ?: ""

/** The qualifier before the marker in a written type (`java.io.Fi`, `List<Mo`, `Map<String, Li`), else null. */
private fun markerIn(typeRef: org.jetbrains.kotlin.fir.types.FirTypeRef?, depth: Int): List<Name>? {
    val written = typeRef as? FirUserTypeRef ?: return null
    val parts = written.qualifier
    val at = parts.indexOfFirst { it.name.asString().startsWith(Completer.MARKER) }
    if (at >= 0) return parts.subList(0, at).map { it.name }
    if (depth > 4) return null
    for (part in parts) {
        for (argument in part.typeArgumentList.typeArguments) {
            val inner = (argument as? org.jetbrains.kotlin.fir.types.FirTypeProjectionWithVariance)?.typeRef ?: continue
            markerIn((inner as? FirResolvedTypeRef)?.delegatedTypeRef ?: inner, depth + 1)?.let { return it }
        }
    }
    return null
}

/** Walks the file to the marker: the access that names it (with the elements around it), or the import that does. */
private class MarkerFinder : FirVisitorVoid() {
    var access: FirQualifiedAccessExpression? = null
    var importPackage: FqName? = null
    /** Set where the marker is (the last part of) a written type: the qualifier before it, empty for none. */
    var typeQualifier: List<Name>? = null
    var path: List<FirElement> = emptyList()
    private val stack = ArrayList<FirElement>()

    override fun visitElement(element: FirElement) {
        if (access != null || typeQualifier != null) return
        if (element is FirFile) {
            for (import in element.imports) {
                val name = import.importedFqName?.asString() ?: continue
                if (Completer.MARKER in name) {
                    importPackage = FqName(name.substringBefore(Completer.MARKER).removeSuffix("."))
                    return
                }
            }
        }
        if (element is FirQualifiedAccessExpression) {
            val reference = element.calleeReference
            if (reference is FirNamedReference && reference.name.asString().startsWith(Completer.MARKER)) {
                access = element
                path = ArrayList(stack)
                return
            }
        }
        if (element is FirResolvedTypeRef) {
            val found = markerIn(element.delegatedTypeRef, 0)
            if (found != null) {
                typeQualifier = found
                path = ArrayList(stack)
                return
            }
        }
        stack.add(element)
        element.acceptChildren(this)
        stack.removeAt(stack.size - 1)
    }
}
