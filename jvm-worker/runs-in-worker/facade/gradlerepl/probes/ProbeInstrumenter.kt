package gradlerepl.probes

import gradlerepl.both.ProbeHook
import org.jetbrains.org.objectweb.asm.ClassReader
import org.jetbrains.org.objectweb.asm.ClassWriter
import org.jetbrains.org.objectweb.asm.Handle
import org.jetbrains.org.objectweb.asm.Opcodes
import org.jetbrains.org.objectweb.asm.Type
import org.jetbrains.org.objectweb.asm.tree.AbstractInsnNode
import org.jetbrains.org.objectweb.asm.tree.ClassNode
import org.jetbrains.org.objectweb.asm.tree.InsnList
import org.jetbrains.org.objectweb.asm.tree.InsnNode
import org.jetbrains.org.objectweb.asm.tree.InvokeDynamicInsnNode
import org.jetbrains.org.objectweb.asm.tree.LdcInsnNode
import org.jetbrains.org.objectweb.asm.tree.MethodInsnNode
import org.jetbrains.org.objectweb.asm.tree.MethodNode
import org.jetbrains.org.objectweb.asm.tree.TypeInsnNode
import org.jetbrains.org.objectweb.asm.tree.VarInsnNode

/**
 * Puts one call to the hook (gradlerepl.both.ProbeHook, in an attached app the agent's build of it) where each site's
 * line starts: an `invokedynamic` the hook links (ProbeHook.site, the site's id its constant) with `this` (or null) and
 * the live locals as their slots hold them — nothing boxed or allocated on a pass whose `when` doesn't hold. A class
 * file older than Java 7 can't hold one, nor a method type more than 255 slots: there the call is ProbeHook.hit with
 * the site's id, the class, `this` and the locals boxed in an array. Either call leaves the operand stack and the locals as it found them and has no branch,
 * so the method's stack map frames stay valid as they are: nothing is computed that would need a class loaded.
 */
object ProbeInstrumenter {
    /** This JVM's hook, as an internal name. */
    @JvmField val HOOK: String = Type.getInternalName(ProbeHook::class.java)
    private const val HIT = "(ILjava/lang/Class;Ljava/lang/Object;[Ljava/lang/Object;)V"

    /**
     * The class's bytes with a call to [hook] at each of [sites] (keyed by site id), or null when none is in it.
     */
    @JvmStatic
    fun instrument(bytes: ByteArray, sites: Map<Int, ProbeSite>, hook: String): ByteArray? {
        val node = ClassNode()
        ClassReader(bytes).accept(node, 0)
        var changed = false
        // Each method's instructions as read, before any call is inserted: the sites' ordinals count those, and a node
        // stays where it was in the list when calls go in before other nodes.
        val read = HashMap<MethodNode, Array<AbstractInsnNode>>()
        for ((id, site) in sites) {
            val method = node.methods.firstOrNull { it.name == site.methodName && it.desc == site.methodDescriptor } ?: continue
            val instructions = read.getOrPut(method) { method.instructions.toArray() }
            if (site.ordinal >= instructions.size) continue
            val linkable = (node.version and 0xFFFF) >= Opcodes.V1_7 && slots(site) <= MAX_LINKED_SLOTS
            val call = if (linkable) linkedCall(id, site, hook) else hookCall(id, node.name, site, hook)
            method.instructions.insertBefore(instructions[site.ordinal], call)
            changed = true
        }
        if (!changed) return null
        // COMPUTE_MAXS only: the frames ClassReader kept are still right, and computing frames would load classes.
        val writer = ClassWriter(ClassWriter.COMPUTE_MAXS)
        node.accept(writer)
        return writer.toByteArray()
    }

    /** [instrument] for a caller with arrays (the worker's Python): site [ids] and [sites] in step. */
    @JvmStatic
    fun instrumentAt(bytes: ByteArray, ids: IntArray, sites: Array<ProbeSite>, hook: String): ByteArray? =
        instrument(bytes, ids.indices.associate { ids[it] to sites[it] }, hook)

    /**
     * `this` and the locals, each as its slot holds it: a primitive as itself, a reference as Object (its declared type
     * would have the verifier check what the slot holds against it, which the frames may say otherwise).
     */
    private fun linkedCall(id: Int, site: ProbeSite, hook: String): InsnList {
        val code = InsnList()
        code.add(if (site.hasThis) VarInsnNode(Opcodes.ALOAD, 0) else InsnNode(Opcodes.ACONST_NULL))
        val passed = StringBuilder("(Ljava/lang/Object;")
        for (local in site.locals) {
            val type = Type.getType(local.descriptor)
            code.add(VarInsnNode(type.getOpcode(Opcodes.ILOAD), local.slot))
            passed.append(if (type.sort == Type.OBJECT || type.sort == Type.ARRAY) "Ljava/lang/Object;" else type.descriptor)
        }
        val bootstrap = Handle(Opcodes.H_INVOKESTATIC, hook, ProbeHook.SITE, ProbeHook.SITE_DESCRIPTOR, false)
        code.add(InvokeDynamicInsnNode("probe", passed.append(")V").toString(), bootstrap, id))
        return code
    }

    // A method type takes at most 255 argument slots, a linked call's handle (bound, collecting) a few less.
    private const val MAX_LINKED_SLOTS = 240

    /** The argument slots a linked call at [site] takes: `this`, then each local (a long or a double takes two). */
    private fun slots(site: ProbeSite): Int = 1 + site.locals.sumOf { Type.getType(it.descriptor).size }

    private fun hookCall(id: Int, owner: String, site: ProbeSite, hook: String): InsnList {
        val code = InsnList()
        code.add(LdcInsnNode(id))
        code.add(LdcInsnNode(Type.getObjectType(owner)))
        code.add(if (site.hasThis) VarInsnNode(Opcodes.ALOAD, 0) else InsnNode(Opcodes.ACONST_NULL))
        code.add(LdcInsnNode(site.locals.size))
        code.add(TypeInsnNode(Opcodes.ANEWARRAY, "java/lang/Object"))
        for ((index, local) in site.locals.withIndex()) {
            val type = Type.getType(local.descriptor)
            code.add(InsnNode(Opcodes.DUP))
            code.add(LdcInsnNode(index))
            code.add(VarInsnNode(type.getOpcode(Opcodes.ILOAD), local.slot))
            boxing(type)?.let { code.add(it) }
            code.add(InsnNode(Opcodes.AASTORE))
        }
        code.add(MethodInsnNode(Opcodes.INVOKESTATIC, hook, "hit", HIT, false))
        return code
    }

    private fun boxing(type: Type): MethodInsnNode? {
        val box = when (type.sort) {
            Type.BOOLEAN -> "java/lang/Boolean"
            Type.CHAR -> "java/lang/Character"
            Type.BYTE -> "java/lang/Byte"
            Type.SHORT -> "java/lang/Short"
            Type.INT -> "java/lang/Integer"
            Type.LONG -> "java/lang/Long"
            Type.FLOAT -> "java/lang/Float"
            Type.DOUBLE -> "java/lang/Double"
            else -> return null
        }
        return MethodInsnNode(Opcodes.INVOKESTATIC, box, "valueOf", "(${type.descriptor})L$box;", false)
    }
}
