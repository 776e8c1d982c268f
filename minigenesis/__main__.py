"""``python -m minigenesis``: the command line (train, plot-lr, lessons)."""

from __future__ import annotations

import sys

from .app.cli import main as cli_main


def main(argv: list[str] | None = None) -> int:
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
