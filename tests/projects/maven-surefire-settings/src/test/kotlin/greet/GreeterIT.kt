package greet

import org.junit.jupiter.api.Assertions.fail
import org.junit.jupiter.api.Tag
import org.junit.jupiter.api.Test

/** An integration test, excluded from `mvn test` by the POM's excludes (failsafe would run it). */
@Tag("fast")
class GreeterIT {
    @Test
    fun isNotRunByTheTestPhase() {
        fail<Unit>("excludes **/*IT.java leaves this out")
    }
}
