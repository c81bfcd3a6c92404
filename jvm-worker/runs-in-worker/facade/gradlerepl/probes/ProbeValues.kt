package gradlerepl.probes

import gradlerepl.both.ValueText
import java.lang.reflect.Modifier

/** A value's text at a hit: its first characters, how long it was, or the error reading it gave. */
class ProbeText(@JvmField val text: String, @JvmField val length: Int, @JvmField val error: String?) {
    companion object {
        fun error(message: String) = ProbeText("", 0, message)
    }
}

/**
 * A probed value's text, read when the probe fires (what the value was then, not what it became): as a result's
 * ([ValueText]), except an object whose class has no toString of its own, shown by its fields one level deep
 * (`Cart(lines=[Line(name=a, price=10, qty=3)], discounted=false)`), as a debugger's variables view would.
 */
object ProbeValues {
    fun text(value: Any?, limit: Int): ProbeText =
        try {
            val full = if (value != null && !ownToString(value.javaClass)) fields(value) else ValueText.of(value)
            ProbeText(if (full.length > limit) full.substring(0, limit) else full, full.length, null)
        } catch (thrown: Throwable) {
            ProbeText.error(thrown(thrown))
        }

    fun typeOf(value: Any?): String? = value?.javaClass?.let { ProbeTypes.kotlinName(it) }

    fun thrown(thrown: Throwable): String {
        // A reflective call's own wrapper says nothing: what it wraps does.
        val cause = if (thrown is java.lang.reflect.InvocationTargetException && thrown.cause != null) thrown.cause!! else thrown
        return cause.javaClass.name + (cause.message?.let { ": $it" } ?: "")
    }

    private fun ownToString(type: Class<*>): Boolean {
        if (type.isArray || type.isEnum || type.name.startsWith("java.") || type.name.startsWith("kotlin.")) return true
        var current: Class<*>? = type
        while (current != null && current != Any::class.java) {
            if (current.declaredMethods.any { it.name == "toString" && it.parameterCount == 0 }) return true
            current = current.superclass
        }
        return false
    }

    private fun fields(value: Any): String {
        val shown = ArrayList<String>()
        var current: Class<*>? = value.javaClass
        while (current != null && current != Any::class.java) {
            for (field in current.declaredFields) {
                if (Modifier.isStatic(field.modifiers) || field.isSynthetic) continue
                val text = if (field.trySetAccessible()) ValueText.of(field.get(value)) else "<not readable>"
                shown.add("${field.name}=$text")
            }
            current = current.superclass
        }
        val name = value.javaClass.simpleName.ifEmpty { value.javaClass.name.substringAfterLast('.') }
        return "$name(${shown.joinToString(", ")})"
    }
}
