"""The weights_only loader's memory is bounded by its file: a payload of one-byte opcodes that
each make a Python container (a set is 216 bytes) is refused once its objects pass the budget,
and the load's peak (tracemalloc) stays within 20x the file; real data still loads."""

from __future__ import annotations

import os
import pickle
import tracemalloc

import pytest
from pickle_asm import wrap_pickle

import minigenesis as mg
from minigenesis.serialization import UnsafeCheckpointError
from minigenesis.serialization.memory_budget import MEMORY_FACTOR, MEMORY_SLACK, MemoryBudget

# Large enough that the slack for small files is a small part of the budget, small enough to
# be quick (~0.5 s): 400 KB of opcodes.
N_OPCODES = 400_000


def _peak_of_load(path) -> tuple[int, BaseException | None]:
    tracemalloc.start()
    try:
        mg.load(path)
        error = None
    except Exception as err:  # noqa: BLE001 (the caller checks which)
        error = err
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, error


@pytest.mark.parametrize("opcode", [pickle.EMPTY_SET, pickle.BININT1 + b"\x07" + pickle.MEMOIZE])
def test_a_file_of_tiny_containers_is_refused_within_20x_its_size(tmp_path, opcode):
    path = tmp_path / "tiny.pth"
    wrap_pickle(b"\x80\x04" + opcode * (N_OPCODES // len(opcode)) + pickle.STOP, path)
    size = os.path.getsize(path)
    peak, error = _peak_of_load(path)
    assert isinstance(error, UnsafeCheckpointError), error
    assert isinstance(error, pickle.UnpicklingError)
    assert "builds more Python objects than its size allows" in str(error)
    assert peak <= 20 * size, f"peak {peak / size:.1f}x the file"


def test_real_data_of_the_same_size_loads_within_20x(tmp_path):
    path = tmp_path / "history.pth"
    history = {"loss": [i / 7 for i in range(20_000)], "acc": [i / 9 for i in range(20_000)]}
    weights = {f"layer{i}.weight": mg.randn(32, 32) for i in range(20)}
    mg.save({"history": history, "model": weights}, path)
    peak, error = _peak_of_load(path)
    assert error is None
    assert peak <= 20 * os.path.getsize(path)
    loaded = mg.load(path)
    assert loaded["history"] == history
    assert all(mg.equal(loaded["model"][k], v) for k, v in weights.items())


def test_the_budget_counts_each_new_object_and_stops_past_its_allowance():
    budget = MemoryBudget(file_size=1000)
    assert budget.allowed == MEMORY_FACTOR * 1000 + MEMORY_SLACK
    stack = [set()]
    budget.after(stack, pickle.EMPTY_SET[0], 0)
    assert budget.allowed - budget.left == 216 + 8  # CPython's empty set, and its stack slot
    stack.append(7)
    budget.after(stack, pickle.BININT1[0], 1)  # (a cached small int: only the slot)
    assert budget.allowed - budget.left == 216 + 16
    stack.append(set())
    with pytest.raises(UnsafeCheckpointError, match="more Python objects"):
        for _ in range(budget.allowed // 216):
            budget.after(stack, pickle.EMPTY_SET[0], 2)
