package greet

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Tag
import org.junit.jupiter.api.Test

/** Named *Spec: run only because the POM's includes add that pattern to surefire's *Test. */
@Tag("fast")
class GreeterSpec {
    @Test
    fun greets_formally_as_the_environment_asks() {
        assertEquals("Good day, Ada!", Greeter.greet("Ada"))
    }

    @Test
    fun reads_the_locale_from_a_system_property() {
        assertEquals("en-GB", Greeter.locale())
    }

    @Test
    fun runs_with_the_flags_of_argLine() {
        assertEquals("argLine", System.getProperty("greeting.source"))
        assertEquals("UTC", System.getProperty("user.timezone"))
    }
}
