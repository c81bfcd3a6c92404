package tickets

import org.testng.Assert.assertEquals
import org.testng.Assert.assertNull
import org.testng.annotations.BeforeMethod
import org.testng.annotations.Test

class TicketQueueTest {
    private lateinit var queue: TicketQueue

    @BeforeMethod
    fun open() {
        queue = TicketQueue()
    }

    @Test
    fun firstComeFirstServed() {
        queue.join("ada")
        queue.join("bob")
        assertEquals(queue.next(), "ada")
    }

    @Test(groups = ["empty"])
    fun anEmptyQueueHasNoNext() {
        assertNull(queue.next())
    }
}
