"""The op database: every entry of every family, in one list (PyTorch's ``op_db``).

An entry (``core.OpEntry``) names a public op, its forms (function, method, in-place, ``out=``,
aliases), its sample generator and its float64 reference; ``test_battery.py`` runs every check
of ``checks.py`` over every entry, ``test_coverage.py`` fails when a public op has no entry, and
``test_fuzz.py`` draws random programs from the entries.
"""

from __future__ import annotations

from . import db_binary, db_reductions, db_unary
from .core import OpEntry

ENTRIES: list[OpEntry] = [*db_unary.ENTRIES, *db_binary.ENTRIES, *db_reductions.ENTRIES]

BY_ID = {entry.id: entry for entry in ENTRIES}
assert len(BY_ID) == len(ENTRIES), "two entries share an id"
