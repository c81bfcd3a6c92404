package pantry

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class PantryTest {
    private val pantry = Pantry(listOf(Shelf("rice", 3), Shelf("tea", 1)))

    @Test
    fun takingLowersTheCount() {
        assertTrue(pantry.take("rice", 2))
        assertEquals(1, pantry.count("rice"))
    }

    @Test
    fun takingMoreThanIsLeftIsRefused() {
        assertFalse(pantry.take("tea", 2))
        assertEquals(1, pantry.count("tea"))
    }

    @Test
    fun restockingAddsToWhatIsLeft() {
        pantry.restock("rice", 5)
        assertEquals(8, pantry.count("rice"))
    }

    @Test
    fun theShoppingListNamesWhatRunsLow() {
        assertEquals(listOf("tea"), pantry.shoppingList(minimum = 2))
    }
}
