"""DistributedSampler against PyTorch's index lists (its sizes, padding, drop_last, rank split).

Without shuffling the lists must be PyTorch's exactly. With shuffling the permutation comes from
minigenesis's generator, not PyTorch's, so the check is: our list is our permutation read at the
positions PyTorch's unshuffled list names (PyTorch pads and splits a shuffled list exactly as an
unshuffled one).
"""

from __future__ import annotations

import pytest

import minigenesis as mg
from minigenesis.utils.data import DataLoader, TensorDataset
from minigenesis.utils.data.distributed import DistributedSampler
from minigenesis.utils.data.sampler import _permutation

torch = pytest.importorskip("torch")
from torch.utils.data.distributed import DistributedSampler as TorchSampler  # noqa: E402

SIZES = [0, 1, 2, 5, 10, 11, 13]
WORLDS = [1, 2, 3, 4, 7, 16]


def _lists(cls, n, world, **kw):
    return [list(cls(range(n), num_replicas=world, rank=r, **kw)) for r in range(world)]


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("n", SIZES)
def test_unshuffled_lists_are_pytorchs(n, world, drop_last):
    ours = _lists(DistributedSampler, n, world, shuffle=False, drop_last=drop_last)
    theirs = _lists(TorchSampler, n, world, shuffle=False, drop_last=drop_last)
    assert ours == theirs
    assert [len(DistributedSampler(range(n), world, r, drop_last=drop_last))
            for r in range(world)] == [len(t) for t in theirs]  # fmt: skip


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("world", [2, 3, 16])
@pytest.mark.parametrize("n", [5, 11, 13])
def test_shuffled_lists_read_the_permutation_where_pytorch_does(n, world, drop_last):
    positions = _lists(TorchSampler, n, world, shuffle=False, drop_last=drop_last)
    for epoch in (0, 3):
        perm = _permutation(n, mg.Generator().manual_seed(17 + epoch))
        for r in range(world):
            s = DistributedSampler(range(n), world, r, shuffle=True, seed=17, drop_last=drop_last)
            s.set_epoch(epoch)
            assert list(s) == [perm[i] for i in positions[r]]


def test_epochs_differ_and_ranks_cover_the_data_once():
    n, world = 12, 3
    lists = {}
    for epoch in (0, 1):
        samplers = [DistributedSampler(range(n), world, r, seed=5) for r in range(world)]
        for s in samplers:
            s.set_epoch(epoch)
        lists[epoch] = [list(s) for s in samplers]
        assert sorted(i for part in lists[epoch] for i in part) == list(range(n))
    assert lists[0] != lists[1]


def test_in_a_data_loader_each_rank_gets_its_share_in_batches():
    data = TensorDataset(mg.arange(10).float())
    got = []
    for r in range(2):
        sampler = DistributedSampler(data, 2, r, shuffle=False)
        loader = DataLoader(data, batch_size=2, sampler=sampler)
        got.append([b[0].tolist() for b in loader])
    assert got == [[[0.0, 2.0], [4.0, 6.0], [8.0]], [[1.0, 3.0], [5.0, 7.0], [9.0]]]


@pytest.mark.parametrize("rank, world", [(2, 2), (-1, 2), (0, 0)])
def test_bad_rank_or_world_size_raise(rank, world):
    with pytest.raises(ValueError, match="rank|num_replicas"):
        DistributedSampler(range(4), num_replicas=world, rank=rank)


def test_without_a_process_group_the_defaults_say_to_init():
    pytest.importorskip("mpi4py")
    with pytest.raises(ValueError, match="init_process_group"):
        DistributedSampler(range(4))
