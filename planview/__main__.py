import sys

from planview.cli import main

sys.exit(main())
