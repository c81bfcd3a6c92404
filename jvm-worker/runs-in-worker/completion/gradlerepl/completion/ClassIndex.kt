package gradlerepl.completion

import java.io.File
import java.lang.module.ModuleFinder
import java.util.zip.ZipFile

/**
 * The classes a snippet could import, by simple name, and the packages they live in: every top-level class file of
 * the snippets' classpath (jars and class directories) and of the JDK's exported packages (the running JVM is the
 * session's JDK). Read from entry names only, no class is loaded: a few hundred milliseconds once per session, on a
 * thread of its own from the add-on's start. Whether a name is really importable (public, resolvable) is the
 * compiler's to say when it is offered.
 */
class ClassIndex private constructor(private val classes: List<IndexedClass>, private val children: Map<String, Set<String>>) {
    /** Top-level classes whose simple name starts with [prefix] in any case. */
    fun classesStartingWith(prefix: String): List<IndexedClass> {
        val key = prefix.lowercase()
        var low = 0
        var high = classes.size
        while (low < high) {
            val middle = (low + high) ushr 1
            if (classes[middle].lowerName < key) low = middle + 1 else high = middle
        }
        val found = ArrayList<IndexedClass>()
        var at = low
        while (at < classes.size && classes[at].lowerName.startsWith(key)) found.add(classes[at++])
        return found
    }

    /** The packages directly inside [pkg] (the root's are `java`, `kotlin`, …) that hold a class somewhere below. */
    fun subPackages(pkg: String): Set<String> = children[pkg].orEmpty()

    val size: Int get() = classes.size

    companion object {
        fun build(classpath: List<String>): ClassIndex {
            val found = HashMap<String, IndexedClass>()
            fun add(entry: String, origin: Origin) {
                val path = entry.removeSuffix(".class")
                if (path.length == entry.length || path.startsWith("META-INF/")) return
                val simple = path.substringAfterLast('/')
                // Nested and synthetic classes ($), Kotlin's file facades (…Kt), module and package descriptors.
                if ('$' in simple || simple.endsWith("Kt") || simple == "module-info" || simple == "package-info") return
                if (simple.isEmpty() || !simple[0].isJavaIdentifierStart()) return
                val pkg = path.substringBeforeLast('/', "").replace('/', '.')
                val fqName = if (pkg.isEmpty()) simple else "$pkg.$simple"
                // The first on the classpath wins, as the class loader's lookup does.
                found.putIfAbsent(fqName, IndexedClass(simple, pkg, origin))
            }
            for (element in classpath) {
                val file = File(element)
                try {
                    when {
                        file.isDirectory -> file.walkTopDown().filter { it.isFile }.forEach {
                            add(it.relativeTo(file).invariantSeparatorsPath, Origin.PROJECT)
                        }
                        file.isFile -> ZipFile(file).use { zip ->
                            for (entry in zip.entries()) add(entry.name, Origin.LIBRARY)
                        }
                    }
                } catch (e: java.io.IOException) {
                    // An unreadable classpath element offers nothing, as the compiler would find nothing in it.
                }
            }
            for (module in ModuleFinder.ofSystem().findAll()) {
                val exported = module.descriptor().exports().filter { !it.isQualified }.map { it.source().replace('.', '/') }.toSet()
                if (exported.isEmpty()) continue
                try {
                    module.open().use { reader ->
                        reader.list().forEach { entry ->
                            if (entry.substringBeforeLast('/', "") in exported) add(entry, Origin.JDK)
                        }
                    }
                } catch (e: java.io.IOException) {
                    // A module the JDK can't list is left out.
                }
            }
            val children = HashMap<String, MutableSet<String>>()
            for (indexed in found.values) {
                var pkg = indexed.packageName
                while (pkg.isNotEmpty()) {
                    val parent = pkg.substringBeforeLast('.', "")
                    if (!children.getOrPut(parent) { HashSet() }.add(pkg.substringAfterLast('.'))) break
                    pkg = parent
                }
            }
            return ClassIndex(found.values.sortedBy { it.lowerName }, children)
        }
    }
}

/** Where a class comes from: the project's own output first, then libraries, then the JDK (IntelliJ's order too). */
enum class Origin { PROJECT, LIBRARY, JDK }

class IndexedClass(val simpleName: String, val packageName: String, val origin: Origin) {
    val lowerName: String = simpleName.lowercase()
    val fqName: String get() = if (packageName.isEmpty()) simpleName else "$packageName.$simpleName"
}
