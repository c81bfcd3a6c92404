package shop.hazards

import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test

/** Tests that misbehave on purpose; they run only when the system property shop.hazards is "on". */
class HazardTest {
    @BeforeEach
    fun onlyWhenAsked() {
        assumeTrue(System.getProperty("shop.hazards") == "on", "shop.hazards is not on")
    }

    @Test
    fun spins() {
        var n = 0L
        while (true) n++ // ignores interruption: only Thread.stop ends it
    }

    @Test
    fun exits() {
        System.exit(3)
    }
}
