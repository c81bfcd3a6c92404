rootProject.name = "gradle-multi"
include("core", "app")
