plugins { kotlin("jvm") }

repositories { mavenCentral() }

kotlin {
    sourceSets["main"].kotlin.srcDir("../../maven-multi/app/src/main/kotlin")
    sourceSets["test"].kotlin.srcDir("../../maven-multi/app/src/test/kotlin")
}

dependencies {
    implementation(project(":core"))
}
