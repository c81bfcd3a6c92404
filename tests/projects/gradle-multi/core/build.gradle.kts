plugins { kotlin("jvm") }

repositories { mavenCentral() }

// The sources are shared with the Maven twin under ../maven-multi.
kotlin { sourceSets["main"].kotlin.srcDir("../../maven-multi/core/src/main/kotlin") }
