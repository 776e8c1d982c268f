"""Object collectives with an object pickle refuses on one rank: that rank raises pickle's
error, the others a DistError naming it, all at once (they used to wait for bytes that never
came, until the timeout broke the group); the group stays usable afterwards."""

from __future__ import annotations

import pytest

from tests.distributed.launch import mpiexec, run_on_ranks

pytestmark = pytest.mark.distributed
pytest.importorskip("mpi4py")
if mpiexec() is None:
    pytest.skip("no mpiexec (pip install mpich)", allow_module_level=True)

TIMEOUT_S = 3.0  # a regression waits this long, then the group is broken


@pytest.mark.parametrize("scenario, failing, says", [
    ("broadcast", 0, "[rank 1] broadcast_object_list #2 (from rank 0): rank 0 could not pickle "
                     "the object it broadcasts"),
    ("gather", 1, "[rank 0] all_gather_object #2: rank 1 could not pickle its object"),
])  # fmt: skip
def test_an_unpicklable_object_fails_on_every_rank_at_once_and_the_group_goes_on(
    scenario, failing, says
):
    reports = run_on_ranks("ranks_objects.py", 2, scenario, str(TIMEOUT_S), timeout=90)
    other = 1 - failing
    mine, theirs = reports[failing], reports[other]
    assert mine["error"] in ("PicklingError", "AttributeError"), mine  # pickle's own error
    assert "lambda" in mine["message"]
    assert theirs["error"] == "DistError" and theirs["message"].startswith(says), theirs
    assert max(mine["waited"], theirs["waited"]) < TIMEOUT_S / 2
    assert mine["after"] == theirs["after"] == [2.0, 2.0]  # the next collective works
