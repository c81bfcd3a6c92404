package gradlerepl.probes

import java.util.concurrent.ConcurrentHashMap

/**
 * A local's declared JVM type (its descriptor, or its generic signature where the compiler wrote one) as Kotlin
 * source: `java/util/List<Lshop/Line;>` is `kotlin.collections.List<shop.Line>`, `I` is `kotlin.Int`. With a class
 * loader, a raw generic type gets its star projections (`Map<*, *>`) and a nested class its Kotlin name; a class
 * that can't be named in source (a lambda's, an anonymous one's) is `kotlin.Any`.
 */
object ProbeTypes {
    // The Java classes Kotlin reads as its own types (Kotlin's JavaToKotlinClassMap, the read-only side).
    private val MAPPED = mapOf(
        "java/lang/Object" to "kotlin.Any",
        "java/lang/String" to "kotlin.String",
        "java/lang/CharSequence" to "kotlin.CharSequence",
        "java/lang/Throwable" to "kotlin.Throwable",
        "java/lang/Cloneable" to "kotlin.Cloneable",
        "java/lang/Number" to "kotlin.Number",
        "java/lang/Comparable" to "kotlin.Comparable",
        "java/lang/Enum" to "kotlin.Enum",
        "java/lang/annotation/Annotation" to "kotlin.Annotation",
        "java/lang/Iterable" to "kotlin.collections.Iterable",
        "java/util/Iterator" to "kotlin.collections.Iterator",
        "java/util/Collection" to "kotlin.collections.Collection",
        "java/util/List" to "kotlin.collections.List",
        "java/util/Set" to "kotlin.collections.Set",
        "java/util/ListIterator" to "kotlin.collections.ListIterator",
        "java/util/Map" to "kotlin.collections.Map",
        "java/util/Map\$Entry" to "kotlin.collections.Map.Entry",
        "java/lang/Integer" to "kotlin.Int",
        "java/lang/Long" to "kotlin.Long",
        "java/lang/Short" to "kotlin.Short",
        "java/lang/Byte" to "kotlin.Byte",
        "java/lang/Character" to "kotlin.Char",
        "java/lang/Boolean" to "kotlin.Boolean",
        "java/lang/Float" to "kotlin.Float",
        "java/lang/Double" to "kotlin.Double",
    )
    private val PRIMITIVES = mapOf(
        'Z' to "kotlin.Boolean", 'B' to "kotlin.Byte", 'C' to "kotlin.Char", 'S' to "kotlin.Short",
        'I' to "kotlin.Int", 'J' to "kotlin.Long", 'F' to "kotlin.Float", 'D' to "kotlin.Double",
    )
    private val shown = ConcurrentHashMap<String, String>()

    /** The local's type as Kotlin source the probe's code declares it with, resolved through [loader]. */
    @JvmStatic
    fun sourceType(local: ProbeLocal, loader: ClassLoader?): String =
        Reader(local.signature ?: local.descriptor, loader, typeVariable = "kotlin.Any?").type()

    /** `this`'s type as Kotlin source, or null when the class can't be named there (then `this` is `kotlin.Any`). */
    @JvmStatic
    fun ownerType(binaryName: String, loader: ClassLoader?): String? {
        val type = try { Class.forName(binaryName, false, loader) } catch (e: Throwable) { return null }
        val name = type.canonicalName ?: return null
        val parameters = type.typeParameters.size
        return if (parameters == 0) name else name + List(parameters) { "*" }.joinToString(", ", "<", ">")
    }

    /** The local's declared type as a hit shows it. */
    fun shownType(local: ProbeLocal): String {
        val key = local.signature ?: local.descriptor
        return shown.computeIfAbsent(key) { Reader(it, null, typeVariable = null).type() }
    }

    /** Reads one JVM type signature (JVMS 4.7.9.1) into Kotlin source. */
    private class Reader(private val text: String, private val loader: ClassLoader?, private val typeVariable: String?) {
        private var at = 0

        fun type(): String {
            val c = text[at++]
            PRIMITIVES[c]?.let { return it }
            return when (c) {
                '[' -> array()
                'T' -> {
                    val name = text.substring(at, text.indexOf(';', at))
                    at += name.length + 1
                    typeVariable ?: name
                }
                'L' -> classType()
                else -> "kotlin.Any"
            }
        }

        private fun array(): String {
            val element = text[at]
            if (element in PRIMITIVES) {
                at++
                return PRIMITIVES.getValue(element).removePrefix("kotlin.") .let { "kotlin.${it}Array" }
            }
            return "kotlin.Array<${type()}>"
        }

        private fun classType(): String {
            val name = StringBuilder()
            var arguments: List<String>? = null
            while (true) {
                val c = text[at++]
                when (c) {
                    ';' -> break
                    '<' -> arguments = typeArguments()
                    '.' -> { name.append('$'); arguments = null }
                    else -> name.append(c)
                }
            }
            val internal = name.toString()
            MAPPED[internal]?.let { return it + argumentsText(internal, arguments) }
            val kotlin = kotlinName(internal) ?: return "kotlin.Any"
            return kotlin + argumentsText(internal, arguments)
        }

        private fun typeArguments(): List<String> {
            val arguments = ArrayList<String>()
            while (text[at] != '>') {
                arguments.add(
                    when (text[at]) {
                        '*' -> { at++; "*" }
                        '+' -> { at++; "out " + argument() }
                        '-' -> { at++; "in " + argument() }
                        else -> argument()
                    },
                )
            }
            at++
            return arguments
        }

        /** A type argument: a type variable there has no name the probe's code could use, so it is `*`. */
        private fun argument(): String {
            if (text[at] == 'T') {
                at = text.indexOf(';', at) + 1
                return "*"
            }
            return type()
        }

        private fun argumentsText(internal: String, arguments: List<String>?): String {
            if (arguments != null) {
                val cleaned = arguments.map { if (it == "out *" || it == "in *") "*" else it }
                return cleaned.joinToString(", ", "<", ">")
            }
            val parameters = loaded(internal)?.typeParameters?.size ?: 0
            return if (parameters == 0) "" else List(parameters) { "*" }.joinToString(", ", "<", ">")
        }

        private fun kotlinName(internal: String): String? {
            if (loader == null) return internal.replace('/', '.').replace('$', '.')
            return loaded(internal)?.canonicalName
        }

        private fun loaded(internal: String): Class<*>? =
            if (loader == null) null else try { Class.forName(internal.replace('/', '.'), false, loader) } catch (e: Throwable) { null }
    }
}
