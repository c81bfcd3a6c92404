"""The project side: what a project's runtime is (build tools, their outputs, caches, toolchain, plugins).

Never imports host/, worker/ or the front ends."""
