"""``python -m minigenesis``: the command line (train, plot-lr, lessons)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from .app.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
