package shop

import kotlinx.serialization.Serializable

expect fun platformName(): String

@Serializable
data class Item(val name: String, val cents: Long)

fun describe(item: Item): String = "${item.name} at ${item.cents / 100.0} on ${platformName()}"
