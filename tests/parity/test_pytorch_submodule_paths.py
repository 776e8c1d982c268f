"""The tables of tests/test_pytorch_submodule_paths.py against the installed PyTorch: every
public submodule of the five areas is listed (as present or as a reviewed skip), and every name
PyTorch's module lists is in its entry."""

from __future__ import annotations

import importlib
import pkgutil
from collections import Counter

import pytest
from test_pytorch_submodule_paths import MISSING_PATHS, MODULE_PATHS, PARENTS

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


def test_random_sampler_counts_and_errors_match_pytorch() -> None:
    from torch.utils.data import RandomSampler as TorchSampler

    from minigenesis.utils.data import RandomSampler

    # without replacement: how often each index comes is fixed (whole passes, then a part)
    for kwargs in ({}, {"num_samples": 12}, {"num_samples": 3}):
        ours = sorted(Counter(RandomSampler(range(5), **kwargs)).values())
        theirs = sorted(Counter(TorchSampler(range(5), **kwargs)).values())
        assert ours == theirs
    ours = RandomSampler(range(5), replacement=True, num_samples=7)
    assert len(list(ours)) == len(ours) == len(TorchSampler(range(5), True, 7)) == 7
    for bad in ({"num_samples": 0}, {"replacement": 1}):
        with pytest.raises(Exception) as theirs:
            TorchSampler(range(5), **bad)
        with pytest.raises(theirs.type):
            RandomSampler(range(5), **bad)
