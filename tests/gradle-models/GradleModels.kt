// Builds real Gradle project models with ProjectBuilder (Gradle's own plugin-test fixture), applies the
// real Kotlin Gradle plugin and its compiler-plugin Gradle plugins, runs the shipped init script's body on
// them and executes its resolveReplEnvironment task's actions. The markers it prints go to stdout; each
// project's block is framed by "=== <name>" lines. Compiled together with the init script by
// tests/gradlemodels.py; arguments: <work dir> <gradle user home> <serialization runtime version>.

import org.gradle.api.Project
import org.gradle.api.internal.GradleInternal
import org.gradle.api.internal.project.ProjectInternal
import org.gradle.api.plugins.JavaPluginExtension
import org.gradle.api.tasks.SourceSetContainer
import org.gradle.jvm.toolchain.JavaLanguageVersion
import org.gradle.testfixtures.ProjectBuilder
import java.io.File

fun main(args: Array<String>) {
    val work = File(args[0])
    val userHome = File(args[1])
    val serializationVersion = args[2]
    var failed = false
    try {
        // The task reads its source set when it is configured: one project model per source set.
        report("single:main", singleModule(File(work, "single-main"), userHome, serializationVersion), ":", "main")
        report("single:integration", singleModule(File(work, "single-integration"), userHome, serializationVersion), ":", "integration")
        val root = twoModules(File(work, "multi"), userHome)
        report("multi:app", root, ":app", "main")
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
    val task = target.tasks.getByName("resolveReplEnvironment")
    println("=== $name")
    task.actions.forEach { it.execute(task) }
    println("=== end $name")
}

private val registered = mutableSetOf<Any>()
