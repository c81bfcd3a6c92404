package gradlerepl.dependencies

import gradlerepl.repl.LibraryResolver
import gradlerepl.repl.runSuspend
import java.io.File
import kotlin.reflect.KClass
import kotlin.script.experimental.api.*
import kotlin.script.experimental.dependencies.CompoundDependenciesResolver
import kotlin.script.experimental.dependencies.DependsOn
import kotlin.script.experimental.dependencies.Repository
import kotlin.script.experimental.dependencies.RepositoryCoordinates
import kotlin.script.experimental.dependencies.FileSystemDependenciesResolver
import kotlin.script.experimental.dependencies.maven.MavenDependenciesResolver
import kotlin.script.experimental.dependencies.resolveFromScriptSourceAnnotations
import kotlin.script.experimental.jvm.JvmDependency

/**
 * Libraries snippets add with `@file:DependsOn("group:artifact:version")` (and `@file:Repository(url)`),
 * resolved by Kotlin scripting's own Maven resolver with their transitive dependencies: from the local
 * repository, the build's repositories and those snippets named, then Maven Central. A library the project already has
 * keeps the project's version, as the project's own runtime would, and the snippet is told so.
 */
class AddedLibraries(projectClasspath: Array<String>, projectRepositories: Array<String>) : LibraryResolver {
    // Made on the first @file:DependsOn, so a session that never asks pays nothing for Maven's resolver.
    private val resolver by lazy {
        CompoundDependenciesResolver(FileSystemDependenciesResolver(), MavenDependenciesResolver()).apply {
            // The build's own repositories first, as its dependencies came from there. Maven Central is the
            // resolver's default only while it has no repository at all, so it is named explicitly.
            (projectRepositories.toList() + MAVEN_CENTRAL).distinctBy { it.trimEnd('/') }
                .forEach { url -> addRepository(RepositoryCoordinates(url)) }
        }
    }
    private val projectArtifacts: Map<String, String> =
        projectClasspath.mapNotNull { artifactOf(File(it)) }.toMap()
    private val added = LinkedHashSet<String>()
    // Guarded by `added`'s lock, like it: the two are read together for a restart's replay.
    private val repositories = LinkedHashSet<String>()

    override val annotations: List<KClass<out Annotation>> = listOf(DependsOn::class, Repository::class)

    /** The coordinates snippets asked for, in order, once their resolution succeeded. */
    override fun added(): Array<String> = synchronized(added) { added.toTypedArray() }

    /** The repositories snippets named, in order, once their snippet's resolution succeeded. */
    override fun repositories(): Array<String> = synchronized(added) { repositories.toTypedArray() }

    override fun refine(context: ScriptConfigurationRefinementContext): ResultWithDiagnostics<ScriptCompilationConfiguration> {
        val annotations = context.collectedData?.get(ScriptCollectedData.collectedAnnotations)?.takeIf { it.isNotEmpty() }
            ?: return context.compilationConfiguration.asSuccess()
        val resolved = try {
            runSuspend { resolver.resolveFromScriptSourceAnnotations(annotations) }
        } catch (t: Throwable) {
            return ResultWithDiagnostics.Failure(t.asDiagnostics(customMessage = "resolving @file:DependsOn failed: $t"))
        }
        if (resolved is ResultWithDiagnostics.Failure) {
            // The resolver reports a missing artifact as warnings; for the snippet it is an error.
            return ResultWithDiagnostics.Failure(resolved.reports.map { report ->
                report.copy(message = "@file:DependsOn: ${report.message}", severity = ScriptDiagnostic.Severity.ERROR)
            })
        }
        return resolved.onSuccess { files ->
            val notes = mutableListOf<ScriptDiagnostic>()
            val kept = files.filter { file ->
                val (key, version) = artifactOf(file) ?: return@filter true
                val projectVersion = projectArtifacts[key] ?: return@filter true
                if (projectVersion != version) {
                    notes += ScriptDiagnostic(
                        ScriptDiagnostic.unspecifiedInfo,
                        "${key.substringAfter(':')}: kept the project's version $projectVersion (the snippet's dependencies asked for $version)",
                        ScriptDiagnostic.Severity.WARNING,
                    )
                }
                false
            }
            synchronized(added) {
                annotations.mapNotNull { it.annotation as? Repository }.forEach { repositories.addAll(it.repositoriesCoordinates) }
                annotations.mapNotNull { it.annotation as? DependsOn }.forEach { added.addAll(it.artifactsCoordinates) }
            }
            context.compilationConfiguration.with { dependencies.append(JvmDependency(kept)) }.asSuccess(notes)
        }
    }

    private companion object {
        const val MAVEN_CENTRAL = "https://repo.maven.apache.org/maven2/"

        /**
         * "groupTail:artifact" and version of a jar in a Maven repository (…/group/artifact/version/artifact-version.jar)
         * or Gradle's cache (…/group/artifact/version/hash/artifact-version.jar); null for anything else.
         */
        fun artifactOf(file: File): Pair<String, String>? {
            for (versionDir in listOfNotNull(file.parentFile, file.parentFile?.parentFile)) {
                val artifactDir = versionDir.parentFile ?: continue
                val version = versionDir.name
                val artifact = artifactDir.name
                if (!file.name.startsWith("$artifact-$version")) continue
                val group = artifactDir.parentFile?.name?.substringAfterLast('.') ?: continue
                return "$group:$artifact" to version
            }
            return null
        }
    }
}
