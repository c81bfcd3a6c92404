package gradlerepl.repl

import java.io.File
import java.net.URL
import java.net.URLClassLoader
import java.util.Collections
import java.util.Enumeration

/**
 * Snippets must see the project's library versions, not the copies the compiler carries (it ships
 * its own kotlinx-coroutines, for one). So the loader snippets run in sees the JDK, the Kotlin
 * stdlib and scripting runtime (the host resolves them at the project's Kotlin version) and the
 * display API from the host, and everything else only from the project classpath.
 */
object SnippetClassLoaders {
    // gradlerepl.both: the rules both JVM sides share (a value's text), which the worker's describe runs beside snippets,
    // and what a probed project class calls where a probe's line starts (ProbeHook, ProbeCode).
    private val SHARED_PREFIXES = listOf("kotlin.", "gradlerepl.runtime.", "gradlerepl.both.")
    private val SHARED_RESOURCE_PREFIXES = listOf("kotlin/", "gradlerepl/runtime/", "META-INF/")
    // The REPL's state object (ReplDriver): the facade's one instance for every snippet, never a copy from elsewhere.
    private val SHARED_CLASSES = setOf(SnippetInstances::class.java.name)

    @JvmStatic
    fun create(projectClasspath: Array<String>, host: ClassLoader): ClassLoader =
        URLClassLoader(
            projectClasspath.map { File(it).toURI().toURL() }.toTypedArray(),
            HostApiOnly(host),
        )

    private fun isShared(name: String) =
        name in SHARED_CLASSES || SHARED_PREFIXES.any { name.startsWith(it) } && !name.startsWith("kotlinx.")

    /** Parent of the project loader: the platform (JDK) classes, plus the shared host packages. */
    private class HostApiOnly(private val host: ClassLoader) : ClassLoader(getPlatformClassLoader()) {
        override fun findClass(name: String): Class<*> =
            if (isShared(name)) host.loadClass(name) else throw ClassNotFoundException(name)

        override fun findResource(name: String): URL? =
            if (SHARED_RESOURCE_PREFIXES.any { name.startsWith(it) } && !name.startsWith("META-INF/services/")) {
                host.getResource(name)
            } else {
                null
            }

        override fun findResources(name: String): Enumeration<URL> =
            findResource(name)?.let { Collections.enumeration(listOf(it)) } ?: Collections.emptyEnumeration()
    }
}
