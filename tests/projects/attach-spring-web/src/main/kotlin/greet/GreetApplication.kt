package greet

import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.runApplication
import org.springframework.stereotype.Service
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.RestController
import java.util.concurrent.atomic.AtomicInteger

@SpringBootApplication
class GreetApplication

/** The app's state: its greeting, and how many requests it answered. */
@Service
class Greeter {
    @Volatile var greeting: String = "Hello"
    val visits = AtomicInteger()

    fun greet(): String = "$greeting #${visits.incrementAndGet()}"
}

@RestController
class GreetController(private val greeter: Greeter) {
    @GetMapping("/greeting")
    fun greeting(): String = greeter.greet()
}

fun main(args: Array<String>) {
    runApplication<GreetApplication>(*args)
}
