package gradlerepl.probes

import org.jetbrains.org.objectweb.asm.ClassReader
import org.jetbrains.org.objectweb.asm.ClassWriter
import org.jetbrains.org.objectweb.asm.Opcodes
import org.jetbrains.org.objectweb.asm.commons.ClassRemapper
import org.jetbrains.org.objectweb.asm.commons.Remapper

/**
 * The classes a probe's code needs besides its own, made here with the compiler's ASM (what runs the code,
 * gradlerepl.both.ProbeCodes, has no ASM: it runs in attached apps too).
 */
object ProbeClassBytes {
    /** `public final class <door> { public static Lookup lookup() { return MethodHandles.lookup(); } }` (ProbeCodes.DOOR). */
    @JvmStatic
    fun door(binaryName: String): ByteArray {
        val writer = ClassWriter(ClassWriter.COMPUTE_MAXS)
        val internal = binaryName.replace('.', '/')
        writer.visit(Opcodes.V11, Opcodes.ACC_PUBLIC or Opcodes.ACC_FINAL or Opcodes.ACC_SYNTHETIC, internal, null, "java/lang/Object", null)
        val lookup = "java/lang/invoke/MethodHandles\$Lookup"
        val method = writer.visitMethod(Opcodes.ACC_PUBLIC or Opcodes.ACC_STATIC, "lookup", "()L$lookup;", null, null)
        method.visitCode()
        method.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/invoke/MethodHandles", "lookup", "()L$lookup;", false)
        method.visitInsn(Opcodes.ARETURN)
        method.visitMaxs(0, 0)
        method.visitEnd()
        writer.visitEnd()
        return writer.toByteArray()
    }

    /**
     * [bytes] with every name in the package [from] (internal form, `gradlerepl/both/`) renamed into [to]: a probe's
     * code compiled here against gradlerepl.both.ProbeCode, for an attached app, where the agent's build has its own
     * package for it.
     */
    @JvmStatic
    fun renamed(bytes: ByteArray, from: String, to: String): ByteArray {
        val writer = ClassWriter(0)
        ClassReader(bytes).accept(
            ClassRemapper(writer, object : Remapper() {
                override fun map(internalName: String): String =
                    if (internalName.startsWith(from)) to + internalName.substring(from.length) else internalName
            }),
            0,
        )
        return writer.toByteArray()
    }
}
