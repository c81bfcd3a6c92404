import sys

from gradle_repl.front.cli import main

sys.exit(main())
