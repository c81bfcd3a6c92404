plugins {
    // Kept equal to gradle_repl.project.toolchain.PINNED_KOTLIN_VERSION (a test checks).
    kotlin("jvm") version "2.3.21"
    kotlin("plugin.serialization") version "2.3.21"
}

repositories {
    mavenCentral()
}

kotlin {
    jvmToolchain(17)
    compilerOptions {
        optIn.add("kotlin.ExperimentalStdlibApi")
    }
}

dependencies {
    implementation("org.jetbrains.kotlinx:kotlinx-serialization-json:1.9.0")
    implementation("org.jetbrains.kotlinx:kotlinx-coroutines-core-jvm:1.10.2")
    implementation("org.apache.commons:commons-text:1.13.0")
}
