"""`python -m jaxlint`."""

import sys

from jaxlint.cli import main

if __name__ == "__main__":
    sys.exit(main())
