package gradlerepl.probes

import org.jetbrains.org.objectweb.asm.AnnotationVisitor
import org.jetbrains.org.objectweb.asm.ClassReader
import org.jetbrains.org.objectweb.asm.ClassVisitor
import org.jetbrains.org.objectweb.asm.FieldVisitor
import org.jetbrains.org.objectweb.asm.Handle
import org.jetbrains.org.objectweb.asm.MethodVisitor
import org.jetbrains.org.objectweb.asm.Opcodes
import org.jetbrains.org.objectweb.asm.Type
import java.io.File
import java.lang.reflect.Modifier
import java.security.CodeSigner
import java.security.CodeSource
import java.security.ProtectionDomain

/**
 * A failed test's own classes loaded afresh for its explained rerun (run_project_tests' explainFailures): the probes
 * at its frames go in as those classes load (ProbeCall's transformer), so setting them retransforms nothing — a
 * retransform holds a session's JVM at a safepoint for tens of ms, several times what the rerun itself takes. Everything
 * else (the main classes, libraries, the test's other classes) is the session's loader's, so the rerun shares the
 * session's state as before; the fresh classes' statics start over, as a test JVM's would.
 *
 * Only classes of the test outputs, and only where that changes nothing the test can tell: a class in another loader
 * is in another runtime package, so code that reaches a non-public class or member of its package (a Java test calling
 * a package-private method, or inheriting one) would fail there; and a test framework that keeps state by the test's
 * own classes (a Spring context cached by its nested configuration, a Testcontainers container in a static field)
 * would start it again. Such a test is run again in the session's loader, its probes retransformed in.
 */
class RerunLoader private constructor(
    private val outers: Set<String>,
    private val directories: List<File>,
    parent: ClassLoader,
) : ClassLoader(parent) {
    /** Whether [binaryName] is loaded here: one of the fresh classes, or a class nested in one. */
    fun loadsAfresh(binaryName: String): Boolean =
        binaryName in outers || outers.any { binaryName.startsWith("$it$") }

    override fun loadClass(name: String, resolve: Boolean): Class<*> {
        if (!loadsAfresh(name)) return super.loadClass(name, resolve)
        synchronized(getClassLoadingLock(name)) {
            findLoadedClass(name)?.let { return it }
            val directory = directoryOf(directories, name) ?: return super.loadClass(name, resolve)
            val bytes = File(directory, classFile(name)).readBytes()
            return defineClass(name, bytes, 0, bytes.size, domain(directory))
        }
    }

    // Each class directory's protection domain, with its location as the session's loader gives it (a test that finds
    // its files from its class's code source finds them in the rerun too).
    private val domains = HashMap<File, ProtectionDomain>()

    private fun domain(directory: File): ProtectionDomain = synchronized(domains) {
        domains.getOrPut(directory) {
            ProtectionDomain(CodeSource(directory.toURI().toURL(), null as Array<CodeSigner>?), null, this, null)
        }
    }

    companion object {
        /**
         * A loader of [outers] (binary names, the test class first) from [testDirectories] for [parent]'s rerun, or
         * null where the rerun should run in [parent] itself: the test class isn't among the test outputs, or the
         * fresh classes reach a non-public part of their package.
         */
        @JvmStatic
        fun of(outers: Array<String>, testDirectories: Array<String>, parent: ClassLoader): RerunLoader? {
            val directories = testDirectories.map { File(it) }
            val fresh = outers.filter { directoryOf(directories, it) != null }.toSet()
            if (outers.isEmpty() || outers[0] !in fresh) return null
            val loader = RerunLoader(fresh, directories, parent)
            val reaches = try {
                loader.reachesPackagePrivate()
            } catch (e: Throwable) {
                true // a class it names that can't be read: the session's loader, as before
            }
            return if (reaches) null else loader
        }

        /**
         * Annotations by which a test class's own members become part of a test framework's state kept across runs,
         * by package: a Spring test context's cache key holds a test's nested configuration classes and its
         * `@DynamicPropertySource` methods, and a Testcontainers container lives in a test class's static field. With
         * another Class for the test, the rerun would start a second context or container beside the first.
         */
        private val SHARED_BY_CLASS = listOf(
            "org/springframework/test/context/DynamicPropertySource",
            "org/springframework/context/annotation/",
            "org/springframework/boot/test/context/TestConfiguration",
            "org/springframework/test/context/ContextConfiguration",
            "org/springframework/test/context/ContextHierarchy",
            "org/testcontainers/",
        )

        /** The first of [directories] that holds the class file of [binaryName]. */
        private fun directoryOf(directories: List<File>, binaryName: String): File? =
            directories.firstOrNull { File(it, classFile(binaryName)).isFile }

        private fun classFile(binaryName: String): String = binaryName.replace('.', '/') + ".class"
    }

    /** Whether a fresh class (or one nested in it) reaches a non-public class or member of its package's others. */
    private fun reachesPackagePrivate(): Boolean {
        for (outer in outers) {
            val packagePath = outer.substringBeforeLast('.', "").replace('.', '/')
            val simple = outer.substringAfterLast('.')
            for (directory in directories) {
                val files = File(directory, packagePath).listFiles { file ->
                    file.name == "$simple.class" || (file.name.startsWith("$simple$") && file.name.endsWith(".class"))
                } ?: continue
                for (file in files) {
                    if (reachesPackagePrivate(file.readBytes(), packagePath)) return true
                }
            }
        }
        return false
    }

    private fun reachesPackagePrivate(bytes: ByteArray, packagePath: String): Boolean {
        var reaches = false
        fun reached(owner: String, member: String?, field: Boolean) {
            if (reaches || owner.startsWith("[") || owner.substringBeforeLast('/', "") != packagePath) return
            val name = owner.replace('/', '.')
            reaches = if (loadsAfresh(name)) false else !publicIn(name, member, field)
        }
        ClassReader(bytes).accept(object : ClassVisitor(Opcodes.ASM9) {
            override fun visit(version: Int, access: Int, name: String, signature: String?, superName: String?, interfaces: Array<String>?) {
                superName?.let { reached(it, null, false) }
                interfaces?.forEach { reached(it, null, false) }
                // What it inherits from its package's classes the session loads (`helper()` called on itself, a
                // method it overrides there): javac names the class itself, so look where it comes from.
                if (superName != null && inheritsPackagePrivate(superName, packagePath)) reaches = true
            }

            override fun visitAnnotation(descriptor: String, visible: Boolean) = annotated(descriptor)

            override fun visitField(access: Int, name: String, descriptor: String, signature: String?, value: Any?): FieldVisitor =
                object : FieldVisitor(Opcodes.ASM9) {
                    override fun visitAnnotation(descriptor: String, visible: Boolean) = annotated(descriptor)
                }

            private fun annotated(descriptor: String): AnnotationVisitor? {
                if (SHARED_BY_CLASS.any { descriptor.startsWith("L$it") }) reaches = true
                return null
            }

            override fun visitMethod(access: Int, name: String, descriptor: String, signature: String?, exceptions: Array<String>?): MethodVisitor =
                object : MethodVisitor(Opcodes.ASM9) {
                    override fun visitAnnotation(descriptor: String, visible: Boolean) = annotated(descriptor)
                    override fun visitFieldInsn(opcode: Int, owner: String, name: String, descriptor: String) = reached(owner, name, true)
                    override fun visitMethodInsn(opcode: Int, owner: String, name: String, descriptor: String, isInterface: Boolean) =
                        reached(owner, name, false)
                    override fun visitTypeInsn(opcode: Int, type: String) = reached(type, null, false)
                    override fun visitMultiANewArrayInsn(descriptor: String, numDimensions: Int) = reachedType(Type.getType(descriptor))
                    override fun visitLdcInsn(value: Any?) = constant(value)
                    override fun visitInvokeDynamicInsn(name: String, descriptor: String, bootstrap: Handle, vararg arguments: Any?) =
                        arguments.forEach { constant(it) }

                    private fun constant(value: Any?) {
                        when (value) {
                            is Type -> reachedType(value)
                            is Handle -> reached(value.owner, value.name, value.tag <= Opcodes.H_PUTSTATIC)
                        }
                    }

                    private fun reachedType(type: Type) {
                        val element = if (type.sort == Type.ARRAY) type.elementType else type
                        if (element.sort == Type.OBJECT) reached(element.internalName, null, false)
                    }
                }
        }, ClassReader.SKIP_DEBUG or ClassReader.SKIP_FRAMES)
        return reaches
    }

    /** Whether a superclass in [packagePath] that the session loads declares a member neither public nor private. */
    private fun inheritsPackagePrivate(superName: String, packagePath: String): Boolean {
        var type: Class<*>? = try {
            Class.forName(superName.replace('/', '.'), false, parent)
        } catch (e: Throwable) {
            return superName.substringBeforeLast('/', "") == packagePath
        }
        while (type != null && type.packageName.replace('.', '/') == packagePath && !loadsAfresh(type.name)) {
            val members = type.declaredMethods.map { it.modifiers } + type.declaredFields.map { it.modifiers }
            if (members.any { !Modifier.isPublic(it) && !Modifier.isPrivate(it) }) return true
            type = type.superclass
        }
        return false
    }

    /** Whether the class, and the member of that name where one is named (any of them, up its superclasses), is public. */
    private fun publicIn(binaryName: String, member: String?, field: Boolean): Boolean {
        val type = try {
            Class.forName(binaryName, false, parent)
        } catch (e: Throwable) {
            return false
        }
        if (!Modifier.isPublic(type.modifiers)) return false
        if (member == null) return true
        return generateSequence(type) { it.superclass }.all { declaring ->
            val modifiers = when {
                field -> declaring.declaredFields.filter { it.name == member }.map { it.modifiers }
                member == "<init>" -> if (declaring == type) declaring.declaredConstructors.map { it.modifiers } else emptyList()
                else -> declaring.declaredMethods.filter { it.name == member }.map { it.modifiers }
            }
            modifiers.all { Modifier.isPublic(it) || Modifier.isPrivate(it) }
        }
    }
}
