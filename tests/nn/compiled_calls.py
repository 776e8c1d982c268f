"""Which compiled loops of a kernels module ran: for the tests of the Numba loops."""

from __future__ import annotations

from types import ModuleType

import pytest


def record_calls(monkeypatch: pytest.MonkeyPatch, module: ModuleType, names: tuple) -> list[str]:
    """Switch the compiled loops on (whatever the environment says) and wrap ``module``'s
    kernels ``names`` so that each call appends its name to the list returned."""
    monkeypatch.setenv("MINIGENESIS_NUMBA", "1")
    called: list[str] = []
    for name in names:
        kernel = getattr(module, name)

        def recorded(*args, _kernel=kernel, _name=name):
            called.append(_name)
            return _kernel(*args)

        monkeypatch.setattr(module, name, recorded)
    return called
