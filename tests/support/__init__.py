"""What the suite's tests share: paths and run directories, real and fake workers, servers, projects and terminals. A
test imports from here (`from support.fakeworker import FakeLauncher`), never from another test module or conftest.py."""
