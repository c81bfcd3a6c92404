package greet

import org.junit.jupiter.api.Assertions.fail
import org.junit.jupiter.api.Tag
import org.junit.jupiter.api.Test

class TaggedTest {
    @Tag("fast")
    @Test
    fun aFastTestRuns() {
    }

    @Tag("slow")
    @Tag("fast")
    @Test
    fun aSlowTestIsLeftOutByExcludedGroups() {
        fail<Unit>("excludedGroups=slow leaves this out")
    }

    @Test
    fun anUntaggedTestIsLeftOutByGroups() {
        fail<Unit>("groups=fast leaves this out")
    }
}
