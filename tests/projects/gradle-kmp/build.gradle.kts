// A Kotlin Multiplatform library shaped like a KMP + Compose app's shared module: common code with expect/actual,
// one JVM target, kotlinx-serialization and the Compose compiler plugin with Compose runtime in commonMain.
plugins {
    kotlin("multiplatform") version "2.2.21"
    kotlin("plugin.serialization") version "2.2.21"
    kotlin("plugin.compose") version "2.2.21"
}

repositories { mavenCentral() }

kotlin {
    jvmToolchain(17)
    jvm()
    sourceSets {
        commonMain.dependencies {
            implementation("org.jetbrains.compose.runtime:runtime:1.7.3")
            implementation("org.jetbrains.kotlinx:kotlinx-serialization-json:1.9.0")
        }
        commonTest.dependencies { implementation(kotlin("test")) }
    }
}
