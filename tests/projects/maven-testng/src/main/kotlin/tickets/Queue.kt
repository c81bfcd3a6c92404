package tickets

class TicketQueue {
    private val waiting = ArrayDeque<String>()

    fun join(name: String): Int {
        waiting.addLast(name)
        return waiting.size
    }

    fun next(): String? = waiting.removeFirstOrNull()
}
