"""``python -m samecode``: the same as the ``samecode`` command."""

import sys

from samecode.cli import main

__all__: list[str] = []

sys.exit(main())
