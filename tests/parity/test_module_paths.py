"""The tables of tests/test_module_paths.py against the installed PyTorch: every public submodule
of the four areas is listed (as present or as a reviewed skip), and every name PyTorch's module
lists is in its entry."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from test_module_paths import MISSING_PATHS, MODULE_PATHS, PARENTS

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("package", PARENTS)
def test_every_pytorch_submodule_is_listed(package: str) -> None:
    found = {
        f"{package}.{info.name}"
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__)
        if not info.name.startswith("_")
    }
    assert sorted(found - set(MODULE_PATHS) - set(MISSING_PATHS)) == []


@pytest.mark.parametrize("path", MODULE_PATHS)
def test_every_name_pytorch_lists_is_in_the_table(path: str) -> None:
    names = getattr(importlib.import_module(path), "__all__", [])
    assert sorted(set(names) - set(MODULE_PATHS[path])) == []
