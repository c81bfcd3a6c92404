// gradle-repl: reports what a Kotlin REPL needs to run a project's code.
//
// Registers `resolveReplEnvironment` in every project. It is only realised when asked for, so it
// neither changes nor slows any other task. Run as
//   gradle --init-script repl-env.init.gradle.kts :app:resolveReplEnvironment -Pgradle-repl.sourceSet=main -Pgradle-repl.nonce=N \
//       -Pgradle-repl.defaultKotlinVersion=… -Pgradle-repl.minimumKotlinVersion=… -Pgradle-repl.replHostArtifacts=…
// it prints `[gradle-mcp-repl-env] N key=value` lines (no JSON; list keys repeat once per entry) and
// `end=true` last, so a truncated run is told apart from a complete one. N is gradle-repl's fresh
// per-run nonce: text a build prints can't pass for a marker.
//
// Gradle's public API is used directly (checked against gradle/gradle sources, cited per call).
// The Kotlin Gradle plugin is not on an init script's compile classpath, so KGP is read by
// reflection (checked against JetBrains/kotlin sources, cited per call); an optional fact that
// cannot be read becomes a `warning=` marker instead of a failure.
// It must compile without warnings: builds may set org.gradle.kotlin.dsl.allWarningsAsErrors=true.

import org.gradle.api.GradleException
import org.gradle.api.Project
import org.gradle.api.artifacts.repositories.MavenArtifactRepository
import org.gradle.api.attributes.Bundling
import org.gradle.api.attributes.Category
import org.gradle.api.attributes.LibraryElements
import org.gradle.api.attributes.Usage
import org.gradle.api.plugins.JavaPluginExtension
import org.gradle.api.tasks.SourceSet
import org.gradle.api.tasks.SourceSetContainer
import org.gradle.jvm.toolchain.JavaToolchainService

val replMarker = "[gradle-mcp-repl-env]"

// gradle-repl's Kotlin version policy comes from gradle-repl (toolchain.py), which passes it as properties:
//   gradle-repl.defaultKotlinVersion   the REPL's Kotlin where the project's has no usable K2 REPL or no Kotlin plugin
//   gradle-repl.minimumKotlinVersion   the first Kotlin whose K2 REPL is usable (major.minor.patch)
//   gradle-repl.replHostArtifacts      the REPL compiler, evaluator and compiler they drive (comma-separated),
//                                      all -embeddable to pair with the plugins KGP puts on pluginClasspath
fun Project.replPolicy(name: String): String =
    // Project.findProperty(String): project, extra and -P properties (org.gradle.api.Project, @since 2.13).
    findProperty("gradle-repl.$name")?.toString()
        ?: throw GradleException("gradle-repl: property gradle-repl.$name is missing; this init script is run by gradle-repl, which passes it")

// Gradle.allprojects(Action<Project>): org.gradle.api.invocation.Gradle (subprojects/core-api).
allprojects {
    val target = this
    // TaskContainer.register(String, Action): lazy, realised only when the task is requested.
    tasks.register("resolveReplEnvironment") {
        group = "help"
        description = "Prints the classpath, JDK and Kotlin compiler settings gradle-repl needs."
        val sourceSetName = target.findProperty("gradle-repl.sourceSet")?.toString() ?: "main"
        val linePrefix = "$replMarker ${target.findProperty("gradle-repl.nonce")?.toString() ?: "-"}"
        // SourceSetContainer is the "sourceSets" extension of the java plugin (JavaPluginExtension.getSourceSets).
        val sourceSet = target.extensions.findByType(SourceSetContainer::class.java)?.findByName(sourceSetName)
        if (sourceSet != null) {
            // SourceSet.getClassesTaskName(): compiles the source set so its output dirs exist; and
            // SourceSet.getRuntimeClasspath() as a dependency (Task.dependsOn(Object...) takes a FileCollection
            // and runs what builds it): the jars and classes of sibling modules the report will name.
            dependsOn(sourceSet.classesTaskName, sourceSet.runtimeClasspath)
        }
        // Script-level values reach the report class through its constructor: classes declared in a
        // script don't see the script's properties. The project is captured at configuration time;
        // this task never runs under the configuration cache (gradle-repl passes --no-configuration-cache).
        val defaultKotlinVersion = target.replPolicy("defaultKotlinVersion")
        val minimumKotlinVersion = target.replPolicy("minimumKotlinVersion").split('.').map { it.toInt() }
        val hostArtifacts = target.replPolicy("replHostArtifacts").split(',')
        doLast {
            ReplEnvironmentReport(
                target, sourceSetName, linePrefix, defaultKotlinVersion, minimumKotlinVersion, hostArtifacts,
            ).print()
        }
    }
}

class ReplEnvironmentReport(
    private val project: Project,
    private val sourceSetName: String,
    private val marker: String,
    private val defaultKotlinVersion: String,
    private val minimumKotlinVersion: List<Int>,
    private val hostArtifacts: List<String>,
) {
    private val lines = mutableListOf<String>()

    private fun emit(key: String, value: Any?) {
        if (value != null) lines.add("$marker $key=$value")
    }

    private fun warn(what: String, error: Throwable?) {
        emit("warning", "$what: ${error?.javaClass?.simpleName ?: ""} ${error?.message ?: ""}".trim().replace('\n', ' '))
    }

    fun print() {
        rejectUnsupported()
        val sourceSet = findSourceSet()
        emit("projectPath", project.path)
        // Project.getProjectDir(): the module's directory, the REPL's working directory.
        emit("projectDir", project.projectDir.absolutePath)
        emit("sourceSet", sourceSetName)
        // SourceSet.getRuntimeClasspath(): the output dirs, then the runtimeClasspath configuration, in order.
        sourceSet.runtimeClasspath.files.forEach { emit("classpath", it.absolutePath) }
        reportInputDirs(sourceSet)
        reportRepositories()
        reportJava()
        val kotlinVersion = reportKotlin(sourceSet)
        reportReplHost(kotlinVersion)
        emit("end", "true")
        // One println per line: Gradle may interleave other output between calls, never inside one.
        lines.forEach { println(it) }
    }

    private fun rejectUnsupported() {
        // PluginManager.hasPlugin(String) (org.gradle.api.plugins.PluginManager, @since 2.3).
        if (listOf("com.android.application", "com.android.library", "com.android.base").any { project.pluginManager.hasPlugin(it) }) {
            throw GradleException("gradle-repl: Android projects are not supported (project ${project.path}); use a JVM module")
        }
        if (project.pluginManager.hasPlugin("org.jetbrains.kotlin.multiplatform") &&
            project.extensions.findByType(SourceSetContainer::class.java) == null
        ) {
            throw GradleException("gradle-repl: Kotlin Multiplatform project ${project.path} has no JVM source sets; not supported yet")
        }
    }

    private fun findSourceSet(): SourceSet {
        val sourceSets = project.extensions.findByType(SourceSetContainer::class.java)
            ?: throw GradleException(
                "gradle-repl: project ${project.path} has no JVM source sets; apply the 'java' or kotlin(\"jvm\") plugin"
            )
        return sourceSets.findByName(sourceSetName) ?: throw GradleException(
            "gradle-repl: project ${project.path} has no source set '$sourceSetName'; available: ${sourceSets.names.joinToString()}"
        )
    }

    /** Directories the build reads that may lie outside the project tree, so gradle-repl notices their edits. */
    private fun reportInputDirs(sourceSet: SourceSet) {
        // SourceSet.getAllSource(): every source directory of the set (KGP adds its kotlin dirs to it);
        // SourceSet.getResources(); Gradle.getIncludedBuilds() → IncludedBuild.getProjectDir().
        (sourceSet.allSource.srcDirs + sourceSet.resources.srcDirs).forEach { emit("inputDir", it.absolutePath) }
        project.gradle.includedBuilds.forEach { emit("inputDir", it.projectDir.absolutePath) }
    }

    /** The project's Maven repositories, where a snippet's @file:DependsOn looks before Maven Central. */
    private fun reportRepositories() {
        // Project.getRepositories() (RepositoryHandler, a NamedDomainObjectList<ArtifactRepository>);
        // MavenArtifactRepository.getUrl(): URI. Repositories declared only in settings'
        // dependencyResolutionManagement are not reported yet (Settings.getDependencyResolutionManagement()).
        project.repositories.withType(MavenArtifactRepository::class.java).forEach { emit("repository", it.url) }
    }

    private fun reportJava() {
        try {
            // JavaPluginExtension.getToolchain() (JavaToolchainSpec); Kotlin's jvmToolchain(n) sets it too
            // (KGP DefaultToolchainSupport → java.toolchain.languageVersion).
            val spec = project.extensions.findByType(JavaPluginExtension::class.java)?.toolchain
            if (spec != null && spec.languageVersion.isPresent) {
                // JavaToolchainService is the "javaToolchains" extension; launcherFor(JavaToolchainSpec)
                // (org.gradle.jvm.toolchain.JavaToolchainService, @since 6.7).
                val launcher = project.extensions.getByType(JavaToolchainService::class.java).launcherFor(spec).get()
                // JavaLauncher.getExecutablePath(): RegularFile; getMetadata().getInstallationPath(): Directory.
                emit("javaExecutable", launcher.executablePath.asFile.absolutePath)
                emit("javaHome", launcher.metadata.installationPath.asFile.absolutePath)
                return
            }
        } catch (e: Exception) {
            warn("could not read the Java toolchain, using the JVM running Gradle", e)
        }
        val home = File(System.getProperty("java.home"))
        val exe = File(home, if (System.getProperty("os.name").startsWith("Windows")) "bin/java.exe" else "bin/java")
        emit("javaExecutable", exe.absolutePath)
        emit("javaHome", home.absolutePath)
    }

    /** Reports the Kotlin version and compile settings; returns the version for the REPL host. */
    private fun reportKotlin(sourceSet: SourceSet): String {
        val kotlin = project.extensions.findByName("kotlin")
        if (kotlin == null) {
            emit("warning", "no Kotlin plugin in ${project.path}; the REPL uses Kotlin $defaultKotlinVersion")
            emit("kotlinVersion", defaultKotlinVersion)
            return defaultKotlinVersion
        }
        val projectVersion = kotlinPluginVersion(kotlin)
        emit("projectKotlinVersion", projectVersion)
        val supported = atLeast(projectVersion, minimumKotlinVersion)
        val version = if (supported) projectVersion else defaultKotlinVersion
        // Where the two differ, gradle-repl warns and loads the build's plugins at the REPL's Kotlin version.
        emit("kotlinVersion", version)
        // SourceSet.getCompileTaskName("kotlin") → compileKotlin / compileTestKotlin, KGP's task names.
        val task = project.tasks.findByName(sourceSet.getCompileTaskName("kotlin"))
        if (task == null) {
            emit("warning", "no Kotlin compile task for source set '$sourceSetName'; compiler plugins not reported")
            return version
        }
        reportPlugins(task)
        reportCompilerOptions(task, supported)
        return version
    }

    private fun atLeast(version: String, minimum: List<Int>): Boolean {
        val parts = version.split('.', '-').take(3).map { it.toIntOrNull() ?: 0 }
        for (i in minimum.indices) {
            val part = parts.getOrElse(i) { 0 }
            if (part != minimum[i]) return part > minimum[i]
        }
        return true
    }

    private fun kotlinPluginVersion(kotlin: Any): String {
        // KotlinPluginWrapper.kt: `fun Project.getKotlinPluginVersion(): String` (a top-level function
        // of class KotlinPluginWrapperKt, public in KGP 1.9–2.x).
        try {
            val wrapper = Class.forName("org.jetbrains.kotlin.gradle.plugin.KotlinPluginWrapperKt", true, kotlin.javaClass.classLoader)
            return wrapper.getMethod("getKotlinPluginVersion", Project::class.java).invoke(null, project).toString()
        } catch (e: Exception) {
            warn("KotlinPluginWrapperKt.getKotlinPluginVersion not readable, using kotlin.coreLibrariesVersion", e)
        }
        // KotlinTopLevelExtension.coreLibrariesVersion defaults to the plugin's own version.
        return call(kotlin, "getCoreLibrariesVersion")?.toString() ?: defaultKotlinVersion
    }

    private fun reportPlugins(task: Any) {
        try {
            // BaseKotlinCompile.pluginClasspath: ConfigurableFileCollection (kotlin-gradle-plugin-api, BaseKotlinCompile.kt).
            val classpath = call(task, "getPluginClasspath") as org.gradle.api.file.FileCollection
            classpath.files.forEach { emit("pluginClasspath", it.absolutePath) }
        } catch (e: Exception) {
            warn("compiler plugin classpath not readable", e)
        }
        try {
            // BaseKotlinCompile.pluginOptions: ListProperty<CompilerPluginConfig>;
            // CompilerPluginConfig.allOptions(): Map<pluginId, List<SubpluginOption>> (SubpluginOption.kt),
            // SubpluginOption.key / .value.
            val configs = (call(task, "getPluginOptions") as org.gradle.api.provider.Provider<*>).get() as List<*>
            for (config in configs) {
                val byPlugin = call(config!!, "allOptions") as Map<*, *>
                for ((pluginId, options) in byPlugin) {
                    for (option in options as List<*>) {
                        emit("pluginOption", "plugin:$pluginId:${call(option!!, "getKey")}=${call(option, "getValue")}")
                    }
                }
            }
        } catch (e: Exception) {
            warn("compiler plugin options not readable", e)
        }
    }

    /** Without the project's own compiler (`supported` false) its language and API levels don't apply. */
    private fun reportCompilerOptions(task: Any, supported: Boolean) {
        try {
            // KotlinCompilationTask.compilerOptions: KotlinJvmCompilerOptions (KGP 1.8+); the properties below are
            // CommonCompilerOptions / KotlinJvmCompilerOptions (generated in kotlin-gradle-plugin-api).
            val options = call(task, "getCompilerOptions") ?: return
            providerValue(options, "getJvmTarget")?.let { emit("jvmTarget", call(it, "getTarget")) }
            if (supported) {
                providerValue(options, "getLanguageVersion")?.let { emit("compilerArg", "-language-version=${call(it, "getVersion")}") }
                providerValue(options, "getApiVersion")?.let { emit("compilerArg", "-api-version=${call(it, "getVersion")}") }
            }
            (providerValue(options, "getOptIn") as? List<*>)?.forEach { emit("compilerArg", "-opt-in=$it") }
            if (providerValue(options, "getProgressiveMode") == true) emit("compilerArg", "-progressive")
            (providerValue(options, "getFreeCompilerArgs") as? List<*>)?.forEach { emit("compilerArg", it) }
        } catch (e: Exception) {
            warn("Kotlin compiler options not readable", e)
        }
    }

    private fun reportReplHost(kotlinVersion: String) {
        // DependencyHandler.create(Object) and ConfigurationContainer.detachedConfiguration(Dependency...):
        // resolved with the project's own repositories, so mirrors and offline builds behave as the build does.
        val dependencies = hostArtifacts.map { project.dependencies.create("org.jetbrains.kotlin:$it:$kotlinVersion") }
        val configuration = project.configurations.detachedConfiguration(*dependencies.toTypedArray())
        // Standard JVM runtime attributes (org.gradle.api.attributes.*), so Gradle module metadata picks the jars.
        configuration.attributes {
            attribute(Usage.USAGE_ATTRIBUTE, project.objects.named(Usage::class.java, Usage.JAVA_RUNTIME))
            attribute(Category.CATEGORY_ATTRIBUTE, project.objects.named(Category::class.java, Category.LIBRARY))
            attribute(LibraryElements.LIBRARY_ELEMENTS_ATTRIBUTE, project.objects.named(LibraryElements::class.java, LibraryElements.JAR))
            attribute(Bundling.BUNDLING_ATTRIBUTE, project.objects.named(Bundling::class.java, Bundling.EXTERNAL))
        }
        configuration.files.forEach { emit("replHostClasspath", it.absolutePath) }
    }

    private fun providerValue(owner: Any, getter: String): Any? =
        (call(owner, getter) as? org.gradle.api.provider.Provider<*>)?.orNull

    private fun call(owner: Any, method: String): Any? =
        owner.javaClass.methods.firstOrNull { it.name == method && it.parameterCount == 0 }?.invoke(owner)
}
