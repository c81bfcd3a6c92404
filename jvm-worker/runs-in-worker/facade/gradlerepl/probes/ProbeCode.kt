package gradlerepl.probes

import org.jetbrains.org.objectweb.asm.ClassWriter
import org.jetbrains.org.objectweb.asm.Opcodes
import java.lang.invoke.MethodHandles

/**
 * A probe's `when` and `capture` at one site, compiled by the session's compiler into a class of the probed class's
 * package (worker/probes/expressions.py writes its source). Its methods get `this` and the site's locals in the order
 * [ProbeSite.locals] lists them.
 */
interface ProbeCode {
    fun holds(self: Any?, locals: Array<Any?>): Boolean

    fun capture(index: Int, self: Any?, locals: Array<Any?>): Any?

    companion object {
        /**
         * A reference local as its declared type, unchecked: a null goes through as it is (no null check where it is
         * declared) and fails only where the probe's code uses it, as a debugger's evaluate would.
         */
        @JvmStatic
        @Suppress("UNCHECKED_CAST")
        fun <T> local(locals: Array<Any?>, index: Int): T = locals[index] as T
    }
}

/**
 * Defines a site's compiled code as a hidden class in the probed class's nest, so it reads private members as code at
 * that line does (a debugger's evaluate has the same reach): it was compiled against the class with every member
 * public (ProbeClassFiles.compileView), so its accesses are direct, which the JVM allows a nestmate.
 */
object ProbeCodeDefinition {
    private const val DOOR = "GradleReplProbeDoor"

    @JvmStatic
    fun define(owner: Class<*>, bytes: ByteArray): ProbeCode {
        val defined = defineHidden(fullLookup(owner), bytes)
        return defined.getDeclaredConstructor().newInstance() as ProbeCode
    }

    /**
     * A lookup on [owner] with full privilege, which defining a nestmate takes. This facade's class is in another
     * module than the project's (each class loader has its own unnamed module), so its private lookup lacks the
     * module bit; a small class defined in [owner]'s package (its "door", one per package and loader) is in the
     * same module, and a private lookup from there has it.
     */
    private fun fullLookup(owner: Class<*>): MethodHandles.Lookup {
        val packageName = owner.packageName
        val doorName = if (packageName.isEmpty()) DOOR else "$packageName.$DOOR"
        val door = try {
            Class.forName(doorName, true, owner.classLoader)
        } catch (e: ClassNotFoundException) {
            try {
                MethodHandles.privateLookupIn(owner, MethodHandles.lookup()).defineClass(doorBytes(doorName))
            } catch (raced: LinkageError) {
                Class.forName(doorName, true, owner.classLoader) // another thread defined it first
            }
        }
        val doorLookup = door.getMethod("lookup").invoke(null) as MethodHandles.Lookup
        return MethodHandles.privateLookupIn(owner, doorLookup)
    }

    /** `public final class <door> { public static Lookup lookup() { return MethodHandles.lookup(); } }` */
    private fun doorBytes(binaryName: String): ByteArray {
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

    /** Lookup.defineHiddenClass(bytes, true, NESTMATE), read reflectively: the facade compiles on JDK 11 too. */
    private fun defineHidden(lookup: MethodHandles.Lookup, bytes: ByteArray): Class<*> {
        val options = Class.forName("java.lang.invoke.MethodHandles\$Lookup\$ClassOption")
        val nestmate = options.enumConstants.first { (it as Enum<*>).name == "NESTMATE" }
        val array = java.lang.reflect.Array.newInstance(options, 1)
        java.lang.reflect.Array.set(array, 0, nestmate)
        val method = MethodHandles.Lookup::class.java.getMethod(
            "defineHiddenClass", ByteArray::class.java, Boolean::class.javaPrimitiveType, array.javaClass,
        )
        val hidden = method.invoke(lookup, bytes, true, array) as MethodHandles.Lookup
        return hidden.lookupClass()
    }
}
