"""RandomSampler asked for far more samples than a pass needs (iteration-based training: one
pass of num_samples = steps x batch): the indices are drawn as the pass goes, as PyTorch's are,
instead of all of them (and as many Python ints) before the first batch; the stream is the one
an eager draw gives."""

from __future__ import annotations

import itertools
import tracemalloc

import pytest

import minigenesis as mg
from minigenesis.utils.data import RandomSampler, TensorDataset
from minigenesis.utils.data import sampler as sampler_module

DATA = TensorDataset(mg.arange(1000.0))


@pytest.mark.parametrize("replacement", [True, False], ids=["replacement", "passes"])
def test_the_first_indices_of_a_long_pass_cost_no_memory_for_the_rest(replacement):
    wanted = 4 * sampler_module._EAGER  # 4M indices: ~150 MB as a list of Python ints
    tracemalloc.start()
    try:
        first = list(itertools.islice(RandomSampler(DATA, replacement, wanted), 10))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(first) == 10 and all(0 <= i < 1000 for i in first)
    assert peak < 20 * 2**20, f"{peak / 2**20:.0f} MiB to start a pass of {wanted} indices"


@pytest.mark.parametrize("replacement", [True, False], ids=["replacement", "passes"])
@pytest.mark.parametrize("extra", [0, 7, 2**20 + 3])
def test_a_long_pass_draws_the_indices_an_eager_draw_gives(monkeypatch, replacement, extra):
    wanted = sampler_module._EAGER + extra
    lazy = list(RandomSampler(DATA, replacement, wanted, generator=mg.Generator().manual_seed(3)))
    monkeypatch.setattr(sampler_module, "_EAGER", 10**9)  # the whole pass drawn at once
    eager = list(RandomSampler(DATA, replacement, wanted, generator=mg.Generator().manual_seed(3)))
    assert lazy == eager and len(lazy) == wanted
    if not replacement:  # every index once per whole pass
        assert sorted(lazy[:1000]) == list(range(1000))
