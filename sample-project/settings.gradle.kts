rootProject.name = "sample-project"
