package gradlerepl.probes

import org.jetbrains.org.objectweb.asm.AnnotationVisitor
import org.jetbrains.org.objectweb.asm.ClassReader
import org.jetbrains.org.objectweb.asm.ClassVisitor
import org.jetbrains.org.objectweb.asm.ClassWriter
import org.jetbrains.org.objectweb.asm.FieldVisitor
import org.jetbrains.org.objectweb.asm.MethodVisitor
import org.jetbrains.org.objectweb.asm.Opcodes
import org.jetbrains.org.objectweb.asm.Type
import org.jetbrains.org.objectweb.asm.tree.AbstractInsnNode
import org.jetbrains.org.objectweb.asm.tree.ClassNode
import org.jetbrains.org.objectweb.asm.tree.LabelNode
import org.jetbrains.org.objectweb.asm.tree.LineNumberNode
import org.jetbrains.org.objectweb.asm.tree.MethodInsnNode
import org.jetbrains.org.objectweb.asm.tree.MethodNode
import org.jetbrains.org.objectweb.asm.tree.analysis.Analyzer
import org.jetbrains.org.objectweb.asm.tree.analysis.AnalyzerException
import org.jetbrains.org.objectweb.asm.tree.analysis.BasicInterpreter
import org.jetbrains.org.objectweb.asm.tree.analysis.BasicValue
import org.jetbrains.org.objectweb.asm.tree.analysis.Frame
import java.io.File

/** A local variable live where a probe fires: its name, its slot and its declared JVM type (and generic signature). */
class ProbeLocal(val name: String, val slot: Int, val descriptor: String, val signature: String?)

/**
 * Where a probe's line starts in one method: the instruction the probe's call goes before, and what is live there.
 * [ordinal] counts the method's instructions, so the same place is found again in the same bytes when they are
 * transformed.
 */
class ProbeSite(
    val className: String,
    val methodName: String,
    val methodDescriptor: String,
    val isStatic: Boolean,
    val hasThis: Boolean,
    val ordinal: Int,
    val locals: List<ProbeLocal>,
    /** An extension function's receiver (slot 0, named `$this$name` by Kotlin): `this` at that line; else null. */
    val receiver: ProbeLocal? = null,
) {
    /** The method as a stack frame names it, for messages: `shop.Cart.total`. */
    val method: String get() = "$className.$methodName"

    /**
     * Whether [other] (the line found again in a class's new bytes, after an edit) is this place as the probe's code
     * was compiled for it: the same method with the same locals live. Where the line starts may have moved.
     */
    fun sameAs(other: ProbeSite): Boolean =
        className == other.className && methodName == other.methodName &&
            methodDescriptor == other.methodDescriptor && hasThis == other.hasThis &&
            locals.map { it.name to it.descriptor } == other.locals.map { it.name to it.descriptor }
}

/**
 * The class files compiled from one source file, read with the compiler's ASM: which of the file's lines have code, and
 * where a line starts in each method that has it.
 *
 * A line's own code is found by its LineNumberTable entries, with two rules a debugger's line breakpoint follows:
 * lines past the file's end are inline functions' bodies copied in (Kotlin numbers them so, SMAP maps them back), and
 * the line met again after such a copy, or again inside a lambda on the same line, is the same line still running,
 * not a new start.
 */
class ProbeClassFiles private constructor(private val classes: List<ClassNode>) {

    /** Binary names of the classes read (`shop.Cart`, `shop.Cart$Line`). */
    fun classNames(): Array<String> = classes.map { it.name.replace('/', '.') }.toTypedArray()

    /**
     * These classes with [live] (an attached app's classes as it runs them, its agent read them) in place of those of
     * the same name, and added where none is: where a line starts is found in the bytes the app runs.
     */
    fun replacing(live: Array<ByteArray>): ProbeClassFiles {
        val nodes = live.map { node(it) }
        val names = nodes.map { it.name }.toSet()
        return ProbeClassFiles(classes.filter { it.name !in names } + nodes)
    }

    /** The lines of the file (up to [lastLine]) that have code in some method, ascending. */
    fun linesWithCode(lastLine: Int): IntArray =
        classes.flatMap { c -> c.methods.flatMap { m -> lineNodes(m).map { it.line } } }
            .filter { it in 1..lastLine }.toSortedSet().toIntArray()

    /**
     * The class [binaryName] as a probe's code compiles against it: every member and the class public, and read as a
     * Java class (its Kotlin metadata left out). Kotlin then compiles a use of a private member as the access itself
     * — legal to the probe's class, a nestmate (gradlerepl.both.ProbeCodes) — where it would call a synthetic accessor the
     * probed class doesn't have. As a Java class, its properties are read through their fields and getters, as in
     * Java; default arguments are not known.
     */
    fun compileView(binaryName: String): ByteArray? {
        val node = classes.firstOrNull { it.name == binaryName.replace('.', '/') } ?: return null
        val writer = ClassWriter(0)
        node.accept(object : ClassVisitor(Opcodes.ASM9, writer) {
            override fun visit(version: Int, access: Int, name: String, signature: String?, superName: String?, interfaces: Array<String>?) =
                super.visit(version, opened(access), name, signature, superName, interfaces)

            override fun visitAnnotation(descriptor: String, visible: Boolean): AnnotationVisitor? =
                if (descriptor == "Lkotlin/Metadata;") null else super.visitAnnotation(descriptor, visible)

            override fun visitInnerClass(name: String, outerName: String?, innerName: String?, access: Int) =
                super.visitInnerClass(name, outerName, innerName, opened(access))

            override fun visitField(access: Int, name: String, descriptor: String, signature: String?, value: Any?): FieldVisitor? =
                super.visitField(opened(access), name, descriptor, signature, value)

            override fun visitMethod(access: Int, name: String, descriptor: String, signature: String?, exceptions: Array<String>?): MethodVisitor? =
                super.visitMethod(opened(access), name, descriptor, signature, exceptions)
        })
        return writer.toByteArray()
    }

    /** The source file the classes were compiled from (their SourceFile attribute), or "" when none was read. */
    fun sourceFileName(): String = classes.firstNotNullOfOrNull { it.sourceFile } ?: ""

    /** Whether a method with code on [line] was compiled without local variable names (javac without -g). */
    fun lacksLocalNames(line: Int): Boolean =
        classes.any { c ->
            c.methods.any { m ->
                val locals = m.maxLocals - (if (m.access and Opcodes.ACC_STATIC != 0) 0 else 1)
                // A synthetic method (a default-arguments constructor, a bridge) has no names from any compiler.
                m.access and Opcodes.ACC_SYNTHETIC == 0 && m.localVariables.isNullOrEmpty() && locals > 0 &&
                    lineNodes(m).any { it.line == line }
            }
        }

    /** Where [line] starts in each method that has code on it. */
    fun sites(line: Int, lastLine: Int): List<ProbeSite> =
        classes.flatMap { c -> c.methods.mapNotNull { m -> siteIn(c, m, line, lastLine) } }

    companion object {
        /**
         * The classes of [packagePath] (`shop`) compiled from [sourceFile] (`Cart.kt`), read from the first entry
         * of [directories] that has each: gradle-repl's own output stands first, as on the session's class path. An
         * entry may be a jar too (an attached app's class path).
         */
        @JvmStatic
        fun ofSourceFile(directories: Array<String>, packagePath: String, sourceFile: String): ProbeClassFiles =
            ProbeClassFiles(read(directories, packagePath) { it.sourceFile == sourceFile })

        /** The class [binaryName] and the classes nested in it (its lambdas', too), from the same source file. */
        @JvmStatic
        fun ofClass(directories: Array<String>, binaryName: String): ProbeClassFiles {
            val internal = binaryName.replace('.', '/')
            val packagePath = internal.substringBeforeLast('/', "")
            val found = read(directories, packagePath) { it.name == internal || it.name.startsWith("$internal$") }
            val source = found.firstOrNull { it.name == internal }?.sourceFile ?: return ProbeClassFiles(emptyList())
            return ProbeClassFiles(found.filter { it.sourceFile == source })
        }

        /** The class's bytes with nothing but what [sites] need read again: used on the bytes the JVM transforms. */
        @JvmStatic
        fun ofBytes(bytes: ByteArray): ProbeClassFiles = ProbeClassFiles(listOf(node(bytes)))


        private fun read(directories: Array<String>, packagePath: String, wanted: (ClassNode) -> Boolean): List<ClassNode> {
            val seen = HashSet<String>()
            val found = ArrayList<ClassNode>()
            for (entry in directories) {
                for ((name, bytes) in classFiles(File(entry), packagePath)) {
                    if (!seen.add(name)) continue
                    val node = try { node(bytes()) } catch (e: Exception) { continue }
                    if (wanted(node)) found.add(node)
                }
            }
            return found
        }

        /** The class files directly in [packagePath] of a directory or a jar, by file name, each read when asked. */
        private fun classFiles(entry: File, packagePath: String): List<Pair<String, () -> ByteArray>> {
            if (entry.isDirectory) {
                val files = File(entry, packagePath).listFiles { f -> f.isFile && f.name.endsWith(".class") } ?: return emptyList()
                return files.sortedBy { it.name }.map { file -> file.name to { file.readBytes() } }
            }
            if (!entry.isFile || !entry.name.endsWith(".jar")) return emptyList()
            val prefix = if (packagePath.isEmpty()) "" else "$packagePath/"
            return try {
                java.util.zip.ZipFile(entry).use { zip ->
                    zip.entries().asSequence()
                        .filter { it.name.startsWith(prefix) && it.name.endsWith(".class") && '/' !in it.name.substring(prefix.length) }
                        .sortedBy { it.name }
                        .map { e -> val bytes = zip.getInputStream(e).use { it.readBytes() }; e.name.substringAfterLast('/') to { bytes } }
                        .toList()
                }
            } catch (e: java.io.IOException) {
                emptyList()
            }
        }

        private fun opened(access: Int): Int = (access and (Opcodes.ACC_PRIVATE or Opcodes.ACC_PROTECTED).inv()) or Opcodes.ACC_PUBLIC

        private fun node(bytes: ByteArray): ClassNode = ClassNode().also { ClassReader(bytes).accept(it, 0) }

        private fun lineNodes(method: MethodNode): List<LineNumberNode> =
            method.instructions.toArray().filterIsInstance<LineNumberNode>()

        private fun siteIn(owner: ClassNode, method: MethodNode, line: Int, lastLine: Int): ProbeSite? {
            if (method.instructions.size() == 0) return null
            val instructions = method.instructions.toArray()
            val starts = lineStarts(instructions, line, lastLine)
            if (starts.isEmpty()) return null
            val frames = frames(owner, method)
            // A statement starts with nothing on the operand stack; a line inside an expression (a chained call on
            // a line of its own) has no such start, and then its first start serves.
            val at = starts.firstOrNull { frames?.getOrNull(it)?.stackSize == 0 } ?: starts.first()
            val isStatic = method.access and Opcodes.ACC_STATIC != 0
            val receiver = if (isStatic) extensionReceiver(method, instructions, at) else null
            val hasThis = receiver != null || (!isStatic && !(method.name == "<init>" && beforeSuperCall(instructions, at)))
            return ProbeSite(
                owner.name.replace('/', '.'),
                method.name,
                method.desc,
                isStatic,
                hasThis,
                at,
                liveLocals(method, instructions, at, frames?.getOrNull(at)),
                receiver,
            )
        }

        /** The instruction indexes where [line] starts: the first real instruction after each of its entries that
         * follows another line of the file (or none). */
        private fun lineStarts(instructions: Array<AbstractInsnNode>, line: Int, lastLine: Int): List<Int> {
            val starts = ArrayList<Int>()
            var previous = -1
            for ((index, node) in instructions.withIndex()) {
                if (node !is LineNumberNode) continue
                val startsHere = node.line == line && (previous == -1 || (previous != line && previous <= lastLine))
                previous = node.line
                if (!startsHere) continue
                val first = (index + 1 until instructions.size).firstOrNull { instructions[it].opcode >= 0 } ?: continue
                starts.add(first)
            }
            return starts
        }

        private fun frames(owner: ClassNode, method: MethodNode): Array<Frame<BasicValue>?>? =
            try {
                Analyzer(BasicInterpreter()).analyze(owner.name, method)
            } catch (e: AnalyzerException) {
                null
            } catch (e: RuntimeException) {
                null
            }

        /** A top-level extension function's receiver: Kotlin names parameter 0 `$this$<function>`. */
        private fun extensionReceiver(method: MethodNode, instructions: Array<AbstractInsnNode>, at: Int): ProbeLocal? {
            val variable = method.localVariables?.firstOrNull {
                it.index == 0 && it.name.startsWith("\$this\$") && instructions.indexOf(it.start) <= at &&
                    at < instructions.indexOf(it.end) && Type.getType(it.desc).sort == Type.OBJECT
            } ?: return null
            return ProbeLocal("this", 0, variable.desc, variable.signature)
        }

        /**
         * Whether [at] comes before the constructor's own super() or this() call: `this` is not initialised there. An
         * object the constructor builds first (an argument, a default value) has a NEW before its <init>; the first
         * <init> with no NEW of its own is the constructor's call.
         */
        private fun beforeSuperCall(instructions: Array<AbstractInsnNode>, at: Int): Boolean {
            var built = 0
            for (index in 0 until at) {
                val node = instructions[index]
                if (node.opcode == Opcodes.NEW) built++
                if (node is MethodInsnNode && node.opcode == Opcodes.INVOKESPECIAL && node.name == "<init>") {
                    if (built == 0) return false
                    built--
                }
            }
            return true
        }

        /**
         * The named locals in scope at [at] whose slot holds a value of their declared kind there (the verifier's
         * view, so the probe's loads always verify); Kotlin's synthetic ones (`$i$a$...`, `$this$...`) left out.
         */
        private fun liveLocals(method: MethodNode, instructions: Array<AbstractInsnNode>, at: Int, frame: Frame<BasicValue>?): List<ProbeLocal> {
            val variables = method.localVariables ?: return emptyList()
            val position = { label: LabelNode -> instructions.indexOf(label) }
            return variables
                .filter { it.index != 0 || method.access and Opcodes.ACC_STATIC != 0 }
                .filter { !it.name.startsWith("$") && !it.name.startsWith("<") && it.name != "this" }
                .filter { position(it.start) <= at && at < position(it.end) }
                .filter { frame != null && it.index < frame.locals && kindMatches(frame.getLocal(it.index), it.desc) }
                .distinctBy { it.index }
                .sortedBy { it.index }
                .map { ProbeLocal(it.name, it.index, it.desc, it.signature) }
        }

        private fun kindMatches(value: BasicValue?, descriptor: String): Boolean {
            if (value == null || value == BasicValue.UNINITIALIZED_VALUE) return false
            return when (Type.getType(descriptor).sort) {
                Type.BOOLEAN, Type.CHAR, Type.BYTE, Type.SHORT, Type.INT -> value == BasicValue.INT_VALUE
                Type.LONG -> value == BasicValue.LONG_VALUE
                Type.FLOAT -> value == BasicValue.FLOAT_VALUE
                Type.DOUBLE -> value == BasicValue.DOUBLE_VALUE
                else -> value == BasicValue.REFERENCE_VALUE
            }
        }
    }
}
