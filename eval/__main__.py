"""`python -m eval ARGS` is `paperchat eval ARGS`."""

import sys

from rag.app.cli import main

if __name__ == "__main__":
    sys.exit(main(["eval", *sys.argv[1:]]))
