"""`python -m torchedge.cli ...`, the same as the `torchedge` script."""

import sys

from torchedge.cli import main

sys.exit(main())
