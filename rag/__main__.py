import sys

from rag.app.cli import main

sys.exit(main())
