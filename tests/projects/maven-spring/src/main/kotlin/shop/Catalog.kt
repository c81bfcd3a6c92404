package shop

import org.springframework.stereotype.Service

/** Marks entity-like classes; the no-arg plugin gives them the constructor frameworks call. */
annotation class Entity

@Entity
data class Product(val sku: String, val cents: Long)

@Service
class Catalog {
    private val products = listOf(Product("tea", 450), Product("cake", 325))

    fun find(sku: String): Product? = products.firstOrNull { it.sku == sku }
}

/** For the sam-with-receiver plugin: a lambda for a SAM interface marked with it takes its argument as `this`. */
annotation class Dsl

@Dsl
fun interface ProductRule {
    fun check(product: Product): Boolean
}
