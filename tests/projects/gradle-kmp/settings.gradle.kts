rootProject.name = "gradle-kmp"
