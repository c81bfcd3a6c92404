// gradle-repl: reports what a Kotlin REPL needs to run a project's code.
//
// Registers `resolveReplEnvironment` in every project. It is only realised when asked for, so it
// neither changes nor slows any other task. Run as
//   gradle --init-script repl-env.init.gradle.kts :app:resolveReplEnvironment -Pgradle-repl.sourceSet=main -Pgradle-repl.nonce=N \
//       -Pgradle-repl.defaultKotlinVersion=… -Pgradle-repl.minimumKotlinVersion=… -Pgradle-repl.replHostArtifacts=…
// it prints `[gradle-mcp-repl-env] N key=value` lines (no JSON; list keys repeat once per entry) and
// `end=true` last, so a truncated run is told apart from a complete one. N is gradle-repl's fresh
// per-run nonce: text a build prints can't pass for a marker.
// The keys are gradle-repl's (`MarkerKey`, written into this script from environment.py's table).
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
import org.gradle.api.file.FileCollection
import org.gradle.api.plugins.JavaPluginExtension
import org.gradle.api.tasks.SourceSetContainer
import org.gradle.api.tasks.testing.Test
import org.gradle.api.tasks.testing.junit.JUnitOptions
import org.gradle.api.tasks.testing.junitplatform.JUnitPlatformOptions
import org.gradle.api.tasks.testing.testng.TestNGOptions
import org.gradle.jvm.toolchain.JavaToolchainService
import java.util.concurrent.Callable

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
        // Read when used, not when the task is configured: the task graph is built after every project (and KGP's
        // afterEvaluate setup) is configured.
        val sourceSetName = { target.findProperty("gradle-repl.sourceSet")?.toString() ?: "main" }
        val linePrefix = "${MarkerKey.MARKER} ${target.findProperty("gradle-repl.nonce")?.toString() ?: "-"}"
        // What to build first, so the output dirs and sibling modules' jars the report names exist: Task.dependsOn
        // takes a Callable, called when the task graph is built, returning task names and FileCollections (Gradle
        // runs what builds them). A lookup that fails here fails again, with its message, when the task runs.
        dependsOn(Callable { runCatching { ReplCompilation.find(target, sourceSetName()).buildFirst }.getOrDefault(emptyList()) })
        // Script-level values reach the report class through its constructor: classes declared in a
        // script don't see the script's properties. The project is captured at configuration time;
        // this task never runs under the configuration cache (gradle-repl passes --no-configuration-cache).
        val defaultKotlinVersion = target.replPolicy("defaultKotlinVersion")
        val minimumKotlinVersion = KotlinVersions.minimum(target.replPolicy("minimumKotlinVersion"))
        val hostArtifacts = target.replPolicy("replHostArtifacts").split(',')
        doLast {
            ReplEnvironmentReport(
                target, sourceSetName(), linePrefix, defaultKotlinVersion, minimumKotlinVersion, hostArtifacts,
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

    // Gradle plugins that generate sources a compilation compiles: each plugin id and what a notice calls it.
    private val generatingPlugins = listOf("org.jetbrains.kotlin.kapt" to "kapt", "com.google.devtools.ksp" to "KSP")

    private fun emit(key: MarkerKey, value: Any?) {
        if (value != null) lines.add("$marker ${key.name}=$value")
    }

    private fun warn(what: String, error: Throwable?) {
        emit(MarkerKey.warning, "$what: ${error?.javaClass?.simpleName ?: ""} ${error?.message ?: ""}".trim().replace('\n', ' '))
    }

    fun print() {
        val compilation = ReplCompilation.find(project, sourceSetName)
        emit(MarkerKey.projectPath, project.path)
        // Project.getProjectDir(): the module's directory, the REPL's working directory.
        emit(MarkerKey.projectDir, project.projectDir.absolutePath)
        emit(MarkerKey.sourceSet, sourceSetName)
        compilation.runtimeClasspath().forEach { emit(MarkerKey.classpath, it.absolutePath) }
        // Directories the build reads that may lie outside the project tree, so gradle-repl notices their edits;
        // Gradle.getIncludedBuilds() → IncludedBuild.getProjectDir().
        (compilation.inputDirs() + project.gradle.includedBuilds.map { it.projectDir }).forEach { emit(MarkerKey.inputDir, it.absolutePath) }
        reportRepositories()
        reportJava()
        val kotlinVersion = reportKotlin(compilation)
        reportReplHost(kotlinVersion)
        try {
            reportEditSources(compilation)
        } catch (e: Exception) {
            warn("the compilation's sources not readable; every edit is compiled by Gradle", e)
            emit(MarkerKey.editUnavailable, "Gradle's compile settings for this source set could not be read")
        }
        try {
            reportTestTask(compilation)
        } catch (e: Exception) {
            warn("the test task's settings not readable; tests in the session run without them", e)
        }
        emit(MarkerKey.end, "true")
        // One println per line: Gradle may interleave other output between calls, never inside one.
        lines.forEach { println(it) }
    }

    /** The project's Maven repositories, where a snippet's @file:DependsOn looks before Maven Central. */
    private fun reportRepositories() {
        // Project.getRepositories() (RepositoryHandler, a NamedDomainObjectList<ArtifactRepository>);
        // MavenArtifactRepository.getUrl(): URI. Repositories declared only in settings'
        // dependencyResolutionManagement are not reported yet (Settings.getDependencyResolutionManagement()).
        project.repositories.withType(MavenArtifactRepository::class.java).forEach { emit(MarkerKey.repository, it.url) }
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
                emit(MarkerKey.javaExecutable, launcher.executablePath.asFile.absolutePath)
                emit(MarkerKey.javaHome, launcher.metadata.installationPath.asFile.absolutePath)
                return
            }
        } catch (e: Exception) {
            warn("could not read the Java toolchain, using the JVM running Gradle", e)
        }
        val home = File(System.getProperty("java.home"))
        val exe = File(home, if (System.getProperty("os.name").startsWith("Windows")) "bin/java.exe" else "bin/java")
        emit(MarkerKey.javaExecutable, exe.absolutePath)
        emit(MarkerKey.javaHome, home.absolutePath)
    }

    /** Reports the Kotlin version and compile settings; returns the version for the REPL host. */
    private fun reportKotlin(compilation: ReplCompilation): String {
        val kotlin = project.extensions.findByName("kotlin")
        if (kotlin == null) {
            emit(MarkerKey.warning, "no Kotlin plugin in ${project.path}; the REPL uses Kotlin $defaultKotlinVersion")
            emit(MarkerKey.kotlinVersion, defaultKotlinVersion)
            return defaultKotlinVersion
        }
        val projectVersion = kotlinPluginVersion(kotlin)
        emit(MarkerKey.projectKotlinVersion, projectVersion)
        val supported = KotlinVersions.atLeast(projectVersion, minimumKotlinVersion)
        val version = if (supported) projectVersion else defaultKotlinVersion
        // Where the two differ, gradle-repl warns and loads the build's plugins at the REPL's Kotlin version.
        emit(MarkerKey.kotlinVersion, version)
        val task = compilation.kotlinCompileTaskName?.let { project.tasks.findByName(it) }
        if (task == null) {
            emit(MarkerKey.warning, "no Kotlin compile task for ${compilation.description}; compiler plugins not reported")
            return version
        }
        reportPlugins(task)
        reportCompilerOptions(task, supported)
        return version
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
            classpath.files.forEach { emit(MarkerKey.pluginClasspath, it.absolutePath) }
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
                        emit(MarkerKey.pluginOption, "plugin:$pluginId:${call(option!!, "getKey")}=${call(option, "getValue")}")
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
            providerValue(options, "getJvmTarget")?.let { emit(MarkerKey.jvmTarget, call(it, "getTarget")) }
            if (supported) {
                providerValue(options, "getLanguageVersion")?.let { emit(MarkerKey.compilerArg, "-language-version=${call(it, "getVersion")}") }
                providerValue(options, "getApiVersion")?.let { emit(MarkerKey.compilerArg, "-api-version=${call(it, "getVersion")}") }
            }
            (providerValue(options, "getOptIn") as? List<*>)?.forEach { emit(MarkerKey.compilerArg, "-opt-in=$it") }
            if (providerValue(options, "getProgressiveMode") == true) emit(MarkerKey.compilerArg, "-progressive")
            (providerValue(options, "getFreeCompilerArgs") as? List<*>)?.forEach { emit(MarkerKey.compilerArg, it) }
        } catch (e: Exception) {
            warn("Kotlin compiler options not readable", e)
        }
    }

    /**
     * What gradle-repl needs to compile an edit of the compilation's own sources in the session as the build compiles
     * them (issue 42): its Kotlin and Java source roots, the module name and friend paths of its Kotlin compile task,
     * or why it can't (sources generated by kapt, KSP or Java annotation processors). gradle-repl reads them into
     * ReplEnvironment.edit_sources (environment.py); without them every edit goes to Gradle.
     */
    private fun reportEditSources(compilation: ReplCompilation) {
        compilation.editRoots().forEach { emit(MarkerKey.editRoot, it.absolutePath) }
        val task = compilation.kotlinCompileTaskName?.let { project.tasks.findByName(it) }
        // A project without Kotlin: javac alone compiles its edits, the module name is only a placeholder.
        val moduleName = if (task == null) project.name else kotlinModuleName(task)
        emit(MarkerKey.editModuleName, moduleName ?: project.name)
        if (moduleName == null) emit(MarkerKey.editUnavailable, "the module name ${compilation.kotlinCompileTaskName} compiles with is not readable")
        if (task != null) {
            // BaseKotlinCompile.friendPaths: ConfigurableFileCollection (kotlin-gradle-plugin-api, BaseKotlinCompile.kt),
            // "output directories of the friend modules whose internal declarations should be visible": for a test
            // compilation its associated main compilation's classes dirs (and the main jar, KGP's friendArtifacts).
            (call(task, "getFriendPaths") as FileCollection).files.forEach { emit(MarkerKey.editFriendDir, it.absolutePath) }
        }
        generatedSources(compilation)?.let { emit(MarkerKey.editUnavailable, it) }
    }

    /**
     * The -module-name the compile task passes (`internal` is per module). KotlinJvmCompilerOptions.moduleName
     * (KGP 1.9+) is what the task uses, else the task's own BaseKotlinCompile.moduleName (deprecated in 2.x). Unset,
     * KGP's convention is moduleNameForCompilation (plugin/mpp/kotlinCompilations.kt): the archives name, else the
     * project name, with `_<compilation>` appended for every compilation but main (`app_test`).
     */
    private fun kotlinModuleName(task: Any): String? {
        val options = call(task, "getCompilerOptions")
        val fromOptions = options?.let { runCatching { providerValue(it, "getModuleName") }.getOrNull() }
        return (fromOptions ?: providerValue(task, "getModuleName"))?.toString()
    }

    /** Why the build generates sources for this compilation (the session would compile against stale ones), or null. */
    private fun generatedSources(compilation: ReplCompilation): String? {
        // PluginManager.hasPlugin(String): kapt is KGP's org.jetbrains.kotlin.kapt (META-INF/gradle-plugins of
        // kotlin-gradle-plugin 1.9–2.x); KSP's Gradle plugin is com.google.devtools.ksp.
        generatingPlugins.firstOrNull { (id, _) -> project.pluginManager.hasPlugin(id) }?.let { (id, name) ->
            return "$name generates sources in this build (plugin $id)"
        }
        // SourceSet.getAnnotationProcessorConfigurationName() (@since 4.6): javac's processor path; a dependency
        // declared in it (Configuration.getAllDependencies(), not resolved here) means processors run on the Java sources.
        val processors = compilation.annotationProcessorConfiguration?.let { project.configurations.findByName(it) }
        if (processors != null && processors.allDependencies.isNotEmpty()) {
            val names = processors.allDependencies.joinToString { "${it.group}:${it.name}" }
            return "Java annotation processors generate sources in this build (${processors.name}: $names)"
        }
        return null
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
        configuration.files.forEach { emit(MarkerKey.replHostClasspath, it.absolutePath) }
    }

    /**
     * What the Test task that runs this compilation's classes sets for its test JVM (`test` for a JVM project, KGP's
     * `jvmTest` for a multiplatform jvm() target: the task whose testClassesDirs are the compilation's classes dirs).
     * Every getter below is on org.gradle.api.tasks.testing.Test (or AbstractTestTask, TestFilter and the framework
     * options) from Gradle 7.6 through 9.x, read at execution time, after the build configured the task.
     */
    private fun reportTestTask(compilation: ReplCompilation) {
        val classesDirs = compilation.classesDirs().toSet()
        // TaskContainer.withType(Class): every Test task (KGP's KotlinJvmTest extends Test); Test.getTestClassesDirs()
        // (@since 4.0): the directories it scans for test classes.
        val task = project.tasks.withType(Test::class.java).filter { test -> test.testClassesDirs.files.any { it in classesDirs } }
            .minByOrNull { it.name.length } ?: return
        emit(MarkerKey.testTask, task.path)
        // Test.getSystemProperties(): Map<String, Object>, values as given (a Provider's read here).
        task.systemProperties.forEach { (key, value) -> emitTestValue(MarkerKey.testSystemProperty, "system property", key, plainValue(value)) }
        // Test.getEnvironment() starts as the whole inherited environment (DefaultProcessForkOptions copies
        // System.getenv()): what the build set is what differs from it.
        task.environment.forEach { (key, value) ->
            val text = plainValue(value)
            if (System.getenv(key) != text) emitTestValue(MarkerKey.testEnvironment, "environment variable", key, text)
        }
        reportTestJvmArgs(task)
        // AbstractTestTask.getFilter(): TestFilter.getIncludePatterns() / getExcludePatterns() (@since 5.0): test
        // names (`shop.*Test`, `shop.CartTest.oneItem`); Test.getIncludes()/getExcludes(): class-file patterns.
        (task.filter.includePatterns + task.includes).forEach { emit(MarkerKey.testInclude, it) }
        (task.filter.excludePatterns + task.excludes).forEach { emit(MarkerKey.testExclude, it) }
        // Test.getOptions(): the framework's options, whose type says which framework runs the tests.
        when (val options = task.options) {
            is JUnitPlatformOptions -> {
                options.includeTags.forEach { emit(MarkerKey.testIncludeTag, it) }
                options.excludeTags.forEach { emit(MarkerKey.testExcludeTag, it) }
                if (options.includeEngines.isNotEmpty()) notApplied("every JUnit Platform engine runs, not only includeEngines ${options.includeEngines.joinToString()}")
                if (options.excludeEngines.isNotEmpty()) notApplied("the engines ${options.excludeEngines.joinToString()} (excludeEngines) are not left out")
            }
            is TestNGOptions -> notApplied(
                "${task.path} runs TestNG (useTestNG()); the session runs tests on the JUnit Platform, which runs TestNG tests only with a TestNG engine on the test runtime classpath"
            )
            is JUnitOptions -> {
                notApplied(
                    "${task.path} runs JUnit 4 itself (useJUnit(), Gradle's default), not the JUnit Platform; the session runs tests on the JUnit Platform, " +
                        "so JUnit 4 tests need junit-vintage-engine on the test runtime classpath"
                )
                // JUnitOptions.getIncludeCategories()/getExcludeCategories(): the vintage engine reports a category as a tag named by the class.
                options.includeCategories.forEach { emit(MarkerKey.testIncludeTag, it) }
                options.excludeCategories.forEach { emit(MarkerKey.testExcludeTag, it) }
            }
            else -> notApplied("${task.path} runs its tests with ${options.javaClass.name}, which gradle-repl does not read")
        }
        // ProcessForkOptions.getWorkingDir(): the session runs in the project's directory.
        if (task.workingDir.absoluteFile != project.projectDir.absoluteFile) notApplied("tests run in ${project.projectDir}, not in the test task's workingDir ${task.workingDir}")
    }

    /** The flags the build gave the test JVM: JavaForkOptions' jvmArgs, heap sizes and assertions, not Gradle's defaults. */
    private fun reportTestJvmArgs(task: Test) {
        if (task.enableAssertions) emit(MarkerKey.testJvmArg, "-ea")
        task.minHeapSize?.let { emit(MarkerKey.testJvmArg, "-Xms$it") }
        task.maxHeapSize?.let { emit(MarkerKey.testJvmArg, "-Xmx$it") }
        // getJvmArgs() is @Nullable in 7.6, not in 8.x: orEmpty() compiles warning-free against both.
        task.jvmArgs.orEmpty().forEach { emit(MarkerKey.testJvmArg, it) }
        // JavaForkOptions.getJvmArgumentProviders(): computed when the test JVM starts (JaCoCo's agent, for one).
        for (provider in task.jvmArgumentProviders) {
            val arguments = runCatching { provider.asArguments().joinToString(" ") }.getOrElse { "unreadable: ${it.message}" }
            notApplied("the test task's JVM argument provider ${provider.javaClass.name} ($arguments) is not applied: the session's JVM starts without it")
        }
    }

    private fun plainValue(value: Any?): String? = (if (value is org.gradle.api.provider.Provider<*>) value.orNull else value)?.toString()

    /** One `key=value` marker, or a sentence when the value can't travel on one line. */
    private fun emitTestValue(marker: MarkerKey, what: String, key: String, value: String?) {
        if (value != null && value.contains('\n')) notApplied("the $what $key spans several lines and is not carried")
        else emit(marker, "$key=${value ?: ""}")
    }

    private fun notApplied(sentence: String) = emit(MarkerKey.testNotApplied, sentence.replace('\n', ' '))

    private fun providerValue(owner: Any, getter: String): Any? = Reflection.providerValue(owner, getter)

    private fun call(owner: Any, method: String): Any? = Reflection.call(owner, method)
}

/**
 * The JVM compilation a REPL runs against, found by the name gradle-repl was given (its `sourceSet`): a java source
 * set of a JVM project (`main`, `test`, custom ones), or a compilation of a Kotlin Multiplatform JVM target, named
 * by its KMP source set (`jvmMain`, `desktopTest`), by `main`/`test` when the project has exactly one JVM target, or
 * by a shared source set (`commonMain`) that exactly one JVM compilation compiles.
 */
class ReplCompilation(
    /** How a message names it: "source set 'main'", "compilation 'main' of JVM target 'desktop'". */
    val description: String,
    /** The runtime classpath in order: its own outputs first, then its dependencies. */
    private val classpath: FileCollection,
    /** Task names and file collections to build before reporting, so every directory and jar named exists. */
    val buildFirst: List<Any>,
    private val sourceDirs: () -> List<File>,
    val kotlinCompileTaskName: String?,
    /** The directories its classes are compiled into (what a Test task running them scans). */
    private val classesDirCollection: () -> FileCollection,
    /** Its own Kotlin and Java source directories (not its resources, not the main sources a test compilation sees). */
    private val editRootDirs: () -> List<File>,
    /** The configuration javac takes annotation processors from, where a java source set compiles its Java sources. */
    val annotationProcessorConfiguration: String?,
) {
    fun classesDirs(): List<File> = classesDirCollection().files.toList()

    fun editRoots(): List<File> = editRootDirs().distinct()

    fun runtimeClasspath(): List<File> = classpath.files.toList()

    /** Every source and resource directory the compilation reads (for KMP: each source set it compiles). */
    fun inputDirs(): List<File> = sourceDirs().distinct()

    companion object {
        private const val MULTIPLATFORM = "org.jetbrains.kotlin.multiplatform"
        private val ANDROID = listOf("com.android.application", "com.android.library", "com.android.base")

        fun find(project: Project, name: String): ReplCompilation {
            // PluginManager.hasPlugin(String) (org.gradle.api.plugins.PluginManager, @since 2.3).
            if (project.pluginManager.hasPlugin(MULTIPLATFORM)) return multiplatform(project, name)
            if (ANDROID.any { project.pluginManager.hasPlugin(it) }) {
                throw GradleException("gradle-repl: Android projects are not supported yet (project ${project.path}); use a JVM module or a Kotlin Multiplatform jvm() target")
            }
            return javaSourceSet(project, name)
        }

        private fun javaSourceSet(project: Project, name: String): ReplCompilation {
            // SourceSetContainer is the "sourceSets" extension of the java plugin (JavaPluginExtension.getSourceSets).
            val sourceSets = project.extensions.findByType(SourceSetContainer::class.java)
                ?: throw GradleException("gradle-repl: project ${project.path} has no JVM source sets; apply the 'java' or kotlin(\"jvm\") plugin")
            val sourceSet = sourceSets.findByName(name) ?: throw GradleException(
                "gradle-repl: project ${project.path} has no source set '$name'; available: ${sourceSets.names.joinToString()}"
            )
            return ReplCompilation(
                "source set '$name'",
                // SourceSet.getRuntimeClasspath(): the output dirs, then the runtimeClasspath configuration, in order.
                sourceSet.runtimeClasspath,
                // SourceSet.getClassesTaskName(): compiles the source set so its output dirs exist.
                listOf(sourceSet.classesTaskName, sourceSet.runtimeClasspath),
                // SourceSet.getAllSource(): every source directory of the set (KGP adds its kotlin dirs to it).
                { (sourceSet.allSource.srcDirs + sourceSet.resources.srcDirs).toList() },
                // SourceSet.getCompileTaskName("kotlin") → compileKotlin / compileTestKotlin, KGP's task names.
                sourceSet.getCompileTaskName("kotlin"),
                // SourceSet.getOutput().getClassesDirs() (@since 4.0): java's, kotlin's, … classes directories.
                { sourceSet.output.classesDirs },
                // SourceSet.getAllJava(): the source set's Java and jointly compiled sources; KGP adds its kotlin dirs
                // (KotlinSourceSetProcessor: `sourceSet.allJava.source(kotlinSourceSet.kotlin)`), resources stay out.
                { sourceSet.allJava.srcDirs.toList() },
                // SourceSet.getAnnotationProcessorConfigurationName() (@since 4.6).
                sourceSet.annotationProcessorConfigurationName,
            )
        }

        private fun multiplatform(project: Project, name: String): ReplCompilation {
            val kotlin = project.extensions.getByName("kotlin")
            // KotlinMultiplatformExtension.getTargets(): NamedDomainObjectCollection<KotlinTarget>;
            // KotlinTarget.getPlatformType(): KotlinPlatformType (common, jvm, js, androidJvm, native, wasm);
            // KotlinTarget.getCompilations(): NamedDomainObjectContainer<KotlinCompilation> (kotlin-gradle-plugin-api).
            val targets = (Reflection.call(kotlin, "getTargets") as Iterable<*>).filterNotNull()
            val jvmTargets = targets.filter { Reflection.call(it, "getPlatformType").toString() == "jvm" }
            if (jvmTargets.isEmpty()) {
                val listed = targets.map { "${Reflection.call(it, "getName")} (${Reflection.call(it, "getPlatformType")})" }
                    .filter { !it.startsWith("metadata ") }
                throw GradleException(
                    "gradle-repl: Kotlin Multiplatform project ${project.path} has no JVM target (targets: ${listed.joinToString()}); " +
                        "add jvm() to run snippets against its common code — Android, JS, Wasm and native targets are not supported"
                )
            }
            val compilations = jvmTargets.flatMap { target -> (Reflection.call(target, "getCompilations") as Iterable<*>).filterNotNull() }
            // KotlinCompilation.getDefaultSourceSet().getName(): jvmMain, jvmTest, desktopMain …
            val byDefaultSourceSet = compilations.associateBy { sourceSetName(Reflection.call(it, "getDefaultSourceSet")!!) }
            val choices = byDefaultSourceSet.keys.joinToString()
            val chosen = byDefaultSourceSet[name]
                ?: byCompilationName(project, jvmTargets, name, choices)
                ?: bySharedSourceSet(project, compilations, name, choices)
                ?: throw GradleException(
                    "gradle-repl: Kotlin Multiplatform project ${project.path} has no JVM compilation '$name'; available: $choices" +
                        if (jvmTargets.size == 1) ", main, test" else ""
                )
            return fromKotlinCompilation(project, chosen)
        }

        /** `main`/`test`: unambiguous only with one JVM target. */
        private fun byCompilationName(project: Project, jvmTargets: List<Any>, name: String, choices: String): Any? {
            val named = jvmTargets.mapNotNull { target -> (Reflection.call(target, "getCompilations") as Iterable<*>).firstOrNull { Reflection.call(it!!, "getName") == name } }
            if (named.size > 1) {
                val targetNames = jvmTargets.joinToString { Reflection.call(it, "getName").toString() }
                throw GradleException(
                    "gradle-repl: Kotlin Multiplatform project ${project.path} has several JVM targets ($targetNames); " +
                        "name the compilation by its source set: $choices"
                )
            }
            return named.singleOrNull()
        }

        /** A shared source set (commonMain, jvmAndAndroidMain) names the one JVM compilation that compiles it, if only one does. */
        private fun bySharedSourceSet(project: Project, compilations: List<Any>, name: String, choices: String): Any? {
            val including = compilations.filter { compilation -> kotlinSourceSets(compilation).any { sourceSetName(it) == name } }
            if (including.size > 1) {
                val names = including.joinToString { sourceSetName(Reflection.call(it, "getDefaultSourceSet")!!) }
                throw GradleException(
                    "gradle-repl: source set '$name' of ${project.path} is compiled by several JVM compilations ($names); name one of them (available: $choices)"
                )
            }
            return including.singleOrNull()
        }

        private fun fromKotlinCompilation(project: Project, compilation: Any): ReplCompilation {
            val target = Reflection.call(compilation, "getTarget")!!
            // KotlinCompilation.getOutput(): KotlinCompilationOutput; getAllOutputs(): classes and resources dirs.
            val outputs = Reflection.call(Reflection.call(compilation, "getOutput")!!, "getAllOutputs") as FileCollection
            // KotlinCompilation.getRuntimeDependencyFiles(): FileCollection? — the JVM runtime classpath; for `test`
            // it includes the outputs of the compilations it is associated with (main).
            val dependencies = Reflection.call(compilation, "getRuntimeDependencyFiles") as FileCollection? ?: project.files()
            val defaultSourceSet = sourceSetName(Reflection.call(compilation, "getDefaultSourceSet")!!)
            return ReplCompilation(
                "compilation '${Reflection.call(compilation, "getName")}' of JVM target '${Reflection.call(target, "getName")}'",
                // Project.files(Object...): flattens in order.
                project.files(outputs, dependencies),
                // KotlinCompilation.getCompileAllTaskName(): the compilation's "classes" task (compile + resources).
                listOf(Reflection.call(compilation, "getCompileAllTaskName").toString(), dependencies),
                {
                    val sourceSets = (listOf(compilation) + associated(compilation)).flatMap { kotlinSourceSets(it) }
                    // KotlinSourceSet.getKotlin() / getResources(): SourceDirectorySet.
                    val kotlinDirs = sourceSets.flatMap { set ->
                        listOf("getKotlin", "getResources").flatMap { (Reflection.call(set, it) as org.gradle.api.file.SourceDirectorySet).srcDirs }
                    }
                    val javaDirs = javaSourceSet(project, compilation, defaultSourceSet)?.let { it.allSource.srcDirs + it.resources.srcDirs }.orEmpty()
                    kotlinDirs + javaDirs
                },
                // KotlinCompilation.getCompileKotlinTaskName(): compileKotlinJvm, compileTestKotlinDesktop …
                Reflection.call(compilation, "getCompileKotlinTaskName").toString(),
                // KotlinCompilationOutput.getClassesDirs(): ConfigurableFileCollection (kotlin-gradle-plugin-api).
                { Reflection.call(Reflection.call(compilation, "getOutput")!!, "getClassesDirs") as FileCollection },
                {
                    // Its own source sets only (jvmMain and what it dependsOn: commonMain …; jvmTest and commonTest): the
                    // associated main compilation's sources are not this compilation's to compile.
                    val kotlinDirs = kotlinSourceSets(compilation).flatMap { (Reflection.call(it, "getKotlin") as org.gradle.api.file.SourceDirectorySet).srcDirs }
                    kotlinDirs + javaSourceSet(project, compilation, defaultSourceSet)?.java?.srcDirs.orEmpty()
                },
                javaSourceSet(project, compilation, defaultSourceSet)?.annotationProcessorConfigurationName,
            )
        }

        /**
         * The java source set compiling a KMP JVM compilation's Java sources (jvm { withJava() }, and KGP 2.1+ by default),
         * or null. Its name changed across KGP versions (the compilation's, `main`, in older ones; the default source
         * set's, `jvmMain`, in newer), so it is found by the compilation's Java compile task:
         * KotlinJvmCompilation.getCompileJavaTaskProvider(): TaskProvider<out JavaCompile>? (kotlin-gradle-plugin)
         * against SourceSet.getCompileJavaTaskName(); by the default source set's name where that is not readable.
         */
        private fun javaSourceSet(project: Project, compilation: Any, defaultSourceSet: String): org.gradle.api.tasks.SourceSet? {
            val sourceSets = project.extensions.findByType(SourceSetContainer::class.java) ?: return null
            val javaTask = runCatching { (Reflection.call(compilation, "getCompileJavaTaskProvider") as? org.gradle.api.tasks.TaskProvider<*>)?.name }.getOrNull()
            return sourceSets.firstOrNull { javaTask != null && it.compileJavaTaskName == javaTask } ?: sourceSets.findByName(defaultSourceSet)
        }

        /** KotlinCompilation.getAllKotlinSourceSets(): the default source set and everything it dependsOn (commonMain …). */
        private fun kotlinSourceSets(compilation: Any): List<Any> =
            (Reflection.call(compilation, "getAllKotlinSourceSets") as Iterable<*>).filterNotNull()

        /** The compilations a test compilation sees the code of: getAllAssociatedCompilations (KGP 1.9.20+, transitive),
         *  else getAssociatedCompilations (1.9.20+), else getAssociateWith (older). */
        private fun associated(compilation: Any): List<Any> {
            for (getter in listOf("getAllAssociatedCompilations", "getAssociatedCompilations", "getAssociateWith")) {
                val found = runCatching { Reflection.call(compilation, getter) }.getOrNull() as? Iterable<*> ?: continue
                return found.filterNotNull()
            }
            return emptyList()
        }

        private fun sourceSetName(sourceSet: Any): String = Reflection.call(sourceSet, "getName").toString()
    }
}

/**
 * How a Kotlin version compares with gradle-repl's minimum, by the rule toolchain.py's kotlin_version_tuple follows:
 * major.minor.patch split at '.' and '-' (a qualifier such as -RC or -Beta1 ignored), a part counting when it is one
 * to nine ASCII digits, else as 0. The minimum itself comes from toolchain.py; tests/jvm/test_init_script_api.py runs one
 * table of versions through both.
 */
object KotlinVersions {
    /** gradle-repl.minimumKotlinVersion ("2.2.0") as its parts. */
    fun minimum(property: String): List<Int> = property.split('.').map { it.toInt() }

    fun atLeast(version: String, minimum: List<Int>): Boolean {
        val parts = version.split('.', '-').take(3).map { if (it.length in 1..9 && it.all { c -> c in '0'..'9' }) it.toInt() else 0 }
        for (i in minimum.indices) {
            val part = parts.getOrElse(i) { 0 }
            if (part != minimum[i]) return part > minimum[i]
        }
        return true
    }
}

/** KGP is not on an init script's compile classpath: its API is called by name (checked against its sources). */
object Reflection {
    fun call(owner: Any, method: String): Any? =
        owner.javaClass.methods.firstOrNull { it.name == method && it.parameterCount == 0 }?.invoke(owner)

    fun providerValue(owner: Any, getter: String): Any? =
        (call(owner, getter) as? org.gradle.api.provider.Provider<*>)?.orNull
}

// The marker and its keys (`enum class MarkerKey`, `MarkerKey.MARKER`): gradle-repl writes them in place of the
// next line, from environment.py's table, when it hands this script to Gradle (resources.init_script_path).
// gradle-repl: the marker's keys
