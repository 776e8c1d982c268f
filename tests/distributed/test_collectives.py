"""Every collective on 1, 2 and 3 real processes (mpiexec), against NumPy.

Each rank's input is a known function of its rank (cases.py), so the expected result of every
case is computed here from all the inputs; three ranks on two cores also checks that odd world
sizes and oversubscription work.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.distributed.cases import CASES, expected
from tests.distributed.launch import mpiexec, run_on_ranks

pytest.importorskip("mpi4py")
pytestmark = pytest.mark.distributed
if mpiexec() is None:
    pytest.skip("no mpiexec (pip install mpich)", allow_module_level=True)


@pytest.fixture(scope="module", params=[1, 2, 3], ids=lambda n: f"{n}ranks")
def world(request):
    n = request.param
    return n, run_on_ranks("ranks_collectives.py", n)


def _same(got, want, what):
    if isinstance(want, list):
        assert len(got) == len(want), what
        for g, w in zip(got, want):
            _same(g, w, what)
        return
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    np.testing.assert_array_equal(got.astype(np.float64) if got.dtype.kind == "V" else got,
                                  want.astype(np.float64) if want.dtype.kind == "V" else want,
                                  err_msg=what)  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_collective_gives_the_numpy_result_on_every_rank(world, case):
    n, ranks = world
    for r, value in enumerate(ranks):
        _same(value["results"][case.name], expected(case, n, r), f"{case.name} rank {r} of {n}")


def test_objects_barrier_and_group_state(world):
    n, ranks = world
    for r, value in enumerate(ranks):
        assert value["objects"] == [{"rank": k} for k in range(n)]
        assert value["sent"] == ["from 0", 0]
        assert value["info"] == {"rank": r, "world": n, "backend": "mpi", "initialized": True,
                                 "after_destroy": False}  # fmt: skip


def test_bad_arguments_raise_clear_errors_before_communicating(world):
    n, ranks = world
    errors = ranks[0]["errors"]
    assert None not in errors, errors
    assert "tensor_list must hold world size" in errors[0]
    assert "output_tensor must have shape" in errors[1]
    assert f"src must be a rank in [0, {n})" in errors[2]
    assert errors[3].startswith("TypeError: op must be a ReduceOp")
    assert "needs an integer or bool tensor" in errors[4]
    assert "read-only (expanded) view" in errors[5]
