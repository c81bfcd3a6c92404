"""JVM flags for the suite's short-lived JVMs (Maven builds, kotlinc runs, the Gradle model harness): each
loads a compiler or Gradle into a fresh JVM, runs for seconds and exits, so C2's compile threads cost more CPU
than they give back. Measured on the Gradle model harness (KGP 2.2.21, 2 cores): 13.7 s of CPU with the JVM's
defaults against 7.2 s with these. What the JVM runs is unchanged — only how it is compiled."""

SHORT_LIVED_JVM_FLAGS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:CICompilerCount=1")
