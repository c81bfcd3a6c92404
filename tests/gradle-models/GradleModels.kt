// Builds real Gradle project models with ProjectBuilder (Gradle's own plugin-test fixture), applies the
// real Kotlin Gradle plugin and its compiler-plugin Gradle plugins, runs the shipped init script's body on
// them and executes its resolveReplEnvironment task's actions. The markers it prints go to stdout; each
// project's block is framed by "=== <name>" lines. Compiled together with the init script by
// tests/support/gradlemodels.py; arguments: <work dir> <gradle user home> <serialization runtime version> <multiplatform: true|false>
// <compose: true|false> (the Compose compiler's Gradle plugin exists from KGP 2.0).

import org.gradle.api.Project
import org.gradle.api.internal.GradleInternal
import org.gradle.api.internal.project.ProjectInternal
import org.gradle.api.plugins.JavaPluginExtension
import org.gradle.api.tasks.SourceSetContainer
import org.gradle.api.tasks.testing.Test
import org.gradle.jvm.toolchain.JavaLanguageVersion
import org.gradle.testfixtures.ProjectBuilder
import java.io.File

fun main(args: Array<String>) {
    val work = File(args[0])
    val userHome = File(args[1])
    val serializationVersion = args[2]
    val withMultiplatform = args[3].toBoolean()
    val withCompose = args[4].toBoolean()
    var failed = false
    try {
        // The task reads its source set when it runs: one project model answers for several (blocks "<model>:<name>").
        val single = singleModule(File(work, "single"), userHome, serializationVersion)
        for (sourceSet in listOf("main", "integration", "test")) report("single:$sourceSet", single, ":", sourceSet)
        val root = twoModules(File(work, "multi"), userHome)
        report("multi:app", root, ":app", "main")
        val generating = generatingModules(File(work, "gen"), userHome)
        for (model in listOf("kapt", "processors")) report("gen:$model", generating, ":$model", "main")
        if (withMultiplatform) {
            val kmp = multiplatformModels(File(work, "kmp"), userHome, serializationVersion, withCompose)
            for ((model, names) in MULTIPLATFORM_MODELS) for (name in names) report("kmp:$model:$name", kmp, ":$model", name)
        }
    } catch (e: Throwable) {
        e.printStackTrace()
        failed = true
    }
    System.out.flush()
    // Gradle leaves non-daemon threads running.
    System.exit(if (failed) 1 else 0)
}

private fun builder(dir: File, userHome: File, name: String): ProjectBuilder =
    ProjectBuilder.builder().withProjectDir(dir.apply { mkdirs() }).withGradleUserHomeDir(userHome).withName(name)

/** kotlin("jvm") with serialization and all-open (with an annotation), a Java toolchain, free args, a custom source set. */
private fun singleModule(dir: File, userHome: File, serializationVersion: String): Project {
    val project = builder(dir, userHome, "single").build()
    project.pluginManager.apply("org.jetbrains.kotlin.jvm")
    project.pluginManager.apply("org.jetbrains.kotlin.plugin.serialization")
    project.pluginManager.apply("org.jetbrains.kotlin.plugin.allopen")
    project.repositories.mavenCentral()
    project.dependencies.add("implementation", "org.apache.commons:commons-text:1.13.0")
    project.dependencies.add("implementation", "org.jetbrains.kotlinx:kotlinx-serialization-json:$serializationVersion")
    // allOpen { annotation("sample.Open") }: AllOpenExtension.annotation(String), read by reflection so the
    // harness compiles against every KGP of the matrix alike.
    val allOpen = project.extensions.getByName("allOpen")
    allOpen.javaClass.getMethod("annotation", String::class.java).invoke(allOpen, "sample.Open")
    project.extensions.getByType(JavaPluginExtension::class.java).toolchain.languageVersion.set(JavaLanguageVersion.of(17))
    project.extensions.getByType(SourceSetContainer::class.java).create("integration")
    project.tasks.named("compileKotlin").configure {
        val options = javaClass.getMethod("getCompilerOptions").invoke(this)
        @Suppress("UNCHECKED_CAST")
        val free = options.javaClass.getMethod("getFreeCompilerArgs").invoke(options) as org.gradle.api.provider.ListProperty<String>
        free.add("-Xjsr305=strict")
    }
    // The test task's settings, as a build script writes them: test { systemProperty(…); environment(…);
    // useJUnitPlatform { includeTags(…) }; jvmArgs(…) }, and a filter.
    project.dependencies.add("testImplementation", "org.junit.jupiter:junit-jupiter:5.14.1")
    project.tasks.named("test", Test::class.java).configure {
        systemProperty("a", "b")
        environment("X", "y")
        useJUnitPlatform { includeTags("fast") }
        jvmArgs("-Dq=1", "--add-opens", "java.base/java.lang=ALL-UNNAMED")
        maxHeapSize = "1g"
        filter.excludeTestsMatching("*IT")
    }
    return project
}

/** A root with :core and :app, where :app depends on project(":core"). */
private fun twoModules(dir: File, userHome: File): Project {
    val root = builder(dir, userHome, "multi").build()
    val core = builder(File(dir, "core"), userHome, "core").withParent(root).build()
    val app = builder(File(dir, "app"), userHome, "app").withParent(root).build()
    for (module in listOf(core, app)) {
        module.pluginManager.apply("org.jetbrains.kotlin.jvm")
        module.repositories.mavenCentral()
    }
    core.dependencies.add("implementation", "org.apache.commons:commons-lang3:3.17.0")
    app.dependencies.add("implementation", app.dependencies.project(mapOf("path" to ":core")))
    return root
}

/**
 * Builds whose sources are partly generated, so an edit goes to Gradle: :kapt applies KGP's kapt plugin, :processors
 * declares a Java annotation processor (auto-value, never resolved: the report reads the declaration).
 */
private fun generatingModules(dir: File, userHome: File): Project {
    val root = builder(dir, userHome, "gen").build()
    for (name in listOf("kapt", "processors")) {
        val module = builder(File(dir, name), userHome, name).withParent(root).build()
        module.pluginManager.apply("org.jetbrains.kotlin.jvm")
        module.repositories.mavenCentral()
        if (name == "kapt") module.pluginManager.apply("org.jetbrains.kotlin.kapt")
        else module.dependencies.add("annotationProcessor", "com.google.auto.value:auto-value:1.11.0")
    }
    return root
}

/** Each multiplatform model project and the source set names asked of it. */
private val MULTIPLATFORM_MODELS = mapOf(
    "one" to listOf("main", "jvmMain", "commonMain", "jvmTest", "iosMain"),
    "two" to listOf("desktopMain", "main"),
    "js-only" to listOf("main"),
)

/**
 * kotlin("multiplatform") projects, as a KMP + Compose app declares them: "one" has a single jvm() target, an
 * intermediate source set (jvmSharedMain: commonMain ← jvmSharedMain ← jvmMain), serialization and the Compose
 * compiler plugin (where the KGP has it), with Compose runtime and kotlinx-serialization in commonMain; "two" has jvm()
 * and jvm("desktop"); "js-only" has a single js() target. KGP's DSL is called by reflection, as in singleModule.
 */
private fun multiplatformModels(dir: File, userHome: File, serializationVersion: String, withCompose: Boolean): Project {
    val root = builder(dir, userHome, "kmp").build()
    for (model in MULTIPLATFORM_MODELS.keys) {
        val project = builder(File(dir, model), userHome, model).withParent(root).build()
        project.pluginManager.apply("org.jetbrains.kotlin.multiplatform")
        project.repositories.mavenCentral()
        val kotlin = project.extensions.getByName("kotlin")
        when {
            model.startsWith("js") -> kotlin.javaClass.getMethod("js").invoke(kotlin)
            else -> {
                project.pluginManager.apply("org.jetbrains.kotlin.plugin.serialization")
                if (withCompose) project.pluginManager.apply("org.jetbrains.kotlin.plugin.compose")
                // KotlinMultiplatformExtension.jvm() and jvm(name).
                kotlin.javaClass.getMethod("jvm").invoke(kotlin)
                if (model.startsWith("two")) kotlin.javaClass.getMethod("jvm", String::class.java).invoke(kotlin, "desktop")
                @Suppress("UNCHECKED_CAST")
                val sourceSets = kotlin.javaClass.getMethod("getSourceSets").invoke(kotlin) as org.gradle.api.NamedDomainObjectContainer<Any>
                val shared = sourceSets.create("jvmSharedMain")
                val dependsOn = shared.javaClass.methods.first { it.name == "dependsOn" && it.parameterCount == 1 && !it.parameterTypes[0].isAssignableFrom(Any::class.java) }
                dependsOn.invoke(shared, sourceSets.getByName("commonMain"))
                dependsOn.invoke(sourceSets.getByName("jvmMain"), shared)
                project.dependencies.add("commonMainImplementation", "org.jetbrains.compose.runtime:runtime:1.7.3")
                project.dependencies.add("commonMainImplementation", "org.jetbrains.kotlinx:kotlinx-serialization-json:$serializationVersion")
                project.dependencies.add("jvmMainImplementation", "org.apache.commons:commons-text:1.13.0")
                // jvmTest runs on the JUnit Platform, as KMP projects' jvm() tests do.
                project.dependencies.add("jvmTestImplementation", "org.junit.jupiter:junit-jupiter:5.14.1")
                project.tasks.withType(Test::class.java).configureEach {
                    if (name == "jvmTest") {
                        useJUnitPlatform { excludeTags("slow") }
                        systemProperty("kmp", "jvm")
                    }
                }
            }
        }
    }
    return root
}

private fun report(name: String, anyProject: Project, path: String, sourceSet: String) {
    val gradle = anyProject.gradle
    val target = anyProject.rootProject.project(path)
    target.extensions.extraProperties.set("gradle-repl.sourceSet", sourceSet)
    target.extensions.extraProperties.set("gradle-repl.nonce", "harness")
    // The rest of what gradle-repl passes as -P properties (its Kotlin version policy) arrives as system properties.
    for (name in System.getProperties().stringPropertyNames().filter { it.startsWith("gradle-repl.") }) {
        target.extensions.extraProperties.set(name, System.getProperty(name))
    }
    if (!registered.contains(gradle)) {
        gradle.initScript()
        // Gradle.allprojects actions run once the build's projects are loaded, which ProjectBuilder never announces.
        (gradle as GradleInternal).buildListenerBroadcaster.projectsLoaded(gradle)
        // KGP finishes its setup (compiler plugin artifacts, options) in afterEvaluate callbacks: evaluate
        // the projects as a build's configuration phase would (ProjectInternal.evaluate()).
        anyProject.rootProject.allprojects { (this as ProjectInternal).evaluate() }
        registered.add(gradle)
    }
    println("=== $name")
    // A refusal is a model's expected answer: printed as its block's error line, the other models still run.
    try {
        val task = target.tasks.getByName("resolveReplEnvironment")
        // What Gradle would run first (TaskDependency.getDependencies resolves the task's dependsOn, Callables and
        // file collections' builders included), printed for the tests to check.
        task.taskDependencies.getDependencies(task).map { it.path }.sorted().forEach { println("dependsOn=$it") }
        task.actions.forEach { it.execute(task) }
    } catch (e: Exception) {
        var cause: Throwable = e
        while (cause !is org.gradle.api.GradleException && cause.cause != null) cause = cause.cause!!
        println("error=${cause.message}")
    }
    println("=== end $name")
}

private val registered = mutableSetOf<Any>()
