"""Checks for chapter 16. Oracles: np.array_split's cut, the sum of the ranks' arrays (on threads
and, when mpi4py is installed, on real MPI processes), the closed form of the ring's cost,
hand-worked bucket lists, and the gradient of one process on the whole batch."""

from __future__ import annotations

import ast
import copy
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _quiz import answers_of, check_answer

import minigenesis as mg
from minigenesis import nn

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


# ----------------------------------------------------------------------------- 16.1
@pytest.mark.exercise("16.1")
@pytest.mark.parametrize("n, world", [(10, 3), (3, 5), (0, 2), (7, 1), (12, 4), (1000, 7)])
def test_16_1_chunks_cut_as_array_split(impl, n, world) -> None:
    sizes = [len(part) for part in np.array_split(np.arange(n), world)]
    starts = np.cumsum([0, *sizes[:-1]]).tolist()
    got = impl.chunks(n, world)
    assert got == [(s, s + k) for s, k in zip(starts, sizes)], (
        f"chunks({n}, {world}) = {got}: {world} consecutive chunks of {n} // {world} elements, "
        f"the FIRST {n} % {world} of them one longer"
    )


# ----------------------------------------------------------------------------- 16.2
@pytest.mark.exercise("16.2")
@pytest.mark.parametrize("world, n", [(1, 5), (2, 9), (3, 10), (4, 4), (5, 23), (3, 2)])
def test_16_2_ring_all_reduce_sums_on_every_rank(impl, world, n) -> None:
    rng = np.random.default_rng(world * 100 + n)
    xs = [rng.standard_normal(n) for _ in range(world)]
    kept = [x.copy() for x in xs]

    def rank(comm):
        return impl.ring_all_reduce(comm, xs[comm.Get_rank()]), comm.sent

    results = impl.run_ranks(rank, world)
    for r, (x, k) in enumerate(zip(xs, kept)):  # first: a changed input also spoils the sums
        assert np.array_equal(x, k), (
            f"rank {r}'s x was changed by ring_all_reduce: add into a copy "
            "(np.array(x, copy=True)), never into the caller's array"
        )
    want = np.sum(kept, axis=0)
    for r, (got, _) in enumerate(results):
        np.testing.assert_allclose(
            got,
            want,
            rtol=1e-12,
            atol=1e-12,
            err_msg=f"rank {r}: the sum of every rank's x. The reduce-scatter adds what it "
            "receives; the all-gather receives complete chunks and keeps them (=, no +=)",
        )
    # each rank sent 2(N-1) chunks: 2(N-1)/N of the array, give or take the uneven chunks
    sent = sum(s for _, s in results)
    assert sent == 2 * (world - 1) * n, (
        f"the {world} ranks sent {sent} array elements with comm.sendrecv; a ring sends "
        f"2(N-1) chunks per rank, {2 * (world - 1) * n} elements in all: pass one chunk per "
        "step to the right neighbour with comm.sendrecv (comm.allreduce is the oracle, and "
        "passing the whole array sends N times too much)"
    )


@pytest.mark.exercise("16.2")
def test_16_2_ring_all_reduce_on_three_mpi_processes(impl, tmp_path) -> None:
    impl.run_ranks(lambda comm: impl.ring_all_reduce(comm, np.ones(3)), 1)  # written yet?
    pytest.importorskip("mpi4py")
    mpiexec = Path(sys.executable).parent / "mpiexec"
    if not mpiexec.exists():
        pytest.skip("no mpiexec (pip install mpich)")
    module = Path(impl.ring_all_reduce.__code__.co_filename)
    folder = Path(__file__).resolve().parent
    # each process loads what `impl` holds: solutions.py, or the learner's 16.2 with the
    # reference answers for the chapter's other exercises (their chunks() may be a stub yet)
    load = (
        f"answers = _course.load_file({str(module)!r})"
        if module.name == "solutions.py"
        else f"answers = _course.hybrid(Path({str(folder)!r}), keep={{'16.2'}}, tag='mpi')"
    )
    script = tmp_path / "ring.py"
    script.write_text(
        "import sys\n"
        "from pathlib import Path\n"
        "import numpy as np\n"
        "from mpi4py import MPI\n"
        f"sys.path.insert(0, {str(folder.parent)!r})\n"
        "import _course\n"
        f"{load}\n"
        "comm = MPI.COMM_WORLD\n"
        "x = np.arange(11.0) * (comm.Get_rank() + 1)\n"
        "try:\n"
        "    got = answers.ring_all_reduce(comm, x)\n"
        "except BaseException:\n"  # end every rank now: the others would wait for its messages
        "    import traceback\n"
        "    traceback.print_exc()\n"
        "    sys.stderr.flush()\n"
        "    comm.Abort(1)\n"
        "rows = comm.gather(got.tolist(), root=0)\n"
        "print(rows if comm.Get_rank() == 0 else '', end='', flush=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1",
           "OMP_NUM_THREADS": "1"}  # fmt: skip
    done = subprocess.run([str(mpiexec), "-n", "3", sys.executable, str(script)], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, f"ring_all_reduce failed on 3 MPI processes:\n{done.stderr}"
    rows = ast.literal_eval(done.stdout)  # rank 0 prints what each rank got
    assert len(rows) == 3
    for values in rows:
        np.testing.assert_allclose(values, np.arange(11.0) * 6)


# ----------------------------------------------------------------------------- 16.3
@pytest.mark.exercise("16.3")
def test_16_3_ring_time_is_the_closed_form(impl) -> None:
    how = "2 (N - 1) steps (reduce-scatter, then all-gather), each one message of nbytes / N"
    got = impl.ring_time(1e6, 1, 1e9, 1e-5)
    assert got == 0, f"one rank: nothing to send, 0 s (got {got})"
    got = impl.ring_time(1e6, 2, 1e9, 0.0)
    assert got == pytest.approx(1e-3), f"1 MB over 2 ranks at 1 GB/s: 1 ms, got {got}: {how}"
    got = impl.ring_time(8e6, 8, 1e9, 1e-5)
    assert got == pytest.approx(14 * (1e-5 + 1e-3)), (
        f"8 MB over 8 ranks: 14 steps of (10 us + 1 ms), got {got}: {how}, each paying the "
        "latency once"
    )
    # the bytes term tends to 2 S / bandwidth however many ranks join
    assert impl.ring_time(1e9, 1000, 1e9, 0.0) == pytest.approx(2 * 999 / 1000), how


# ----------------------------------------------------------------------------- 16.4
@pytest.mark.exercise("16.4")
@pytest.mark.parametrize("sizes, cap, want", [
    ([4, 4, 4], 8, [[2, 1], [0]]),
    ([1, 1, 1, 1], 100, [[3, 2, 1, 0]]),
    ([10, 1, 1, 10], 5, [[3], [2, 1, 0]]),
    ([3], 1, [[0]]),
    ([], 8, []),
])  # fmt: skip
def test_16_4_buckets_in_reverse_order(impl, sizes, cap, want) -> None:
    got = impl.assign_buckets(sizes, cap)
    assert got == want, (
        f"assign_buckets({sizes}, {cap}) = {got}: walk the indices from the LAST one and close a "
        "bucket as soon as its bytes reach the cap (>=)"
    )


# ----------------------------------------------------------------------------- 16.5
@pytest.mark.exercise("16.5")
@pytest.mark.parametrize("world", [2, 4])
def test_16_5_averaged_shard_gradients_are_the_whole_batch_gradient(impl, world) -> None:
    mg.manual_seed(3)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
    unused = nn.Linear(2, 2)  # no gradient: left alone
    x, y = mg.randn(8, 3), mg.randn(8, 2)
    nn.functional.mse_loss(model(x), y).backward()
    want = [p.grad.numpy().copy() for p in model.parameters()]
    copies = [nn.ModuleList([copy.deepcopy(model), copy.deepcopy(unused)]) for _ in range(world)]
    for c in copies:
        c.zero_grad()
    per = 8 // world

    def rank(comm):
        r = comm.Get_rank()
        m = copies[r]
        part = slice(r * per, (r + 1) * per)
        nn.functional.mse_loss(m[0](x[part]), y[part]).backward()
        before = [p.grad for p in m.parameters()]
        impl.average_gradients(m, comm)
        return [p.grad for p in m.parameters()], before

    for grads, before in impl.run_ranks(rank, world):
        assert grads[-2:] == [None, None], "a parameter without .grad is left alone (no zeros)"
        assert all(g is b for g, b in zip(grads, before)), (
            "average_gradients replaced p.grad with a new tensor: write the average into the "
            "existing one in place, p.grad.copy_(...) (whoever holds a reference to p.grad, an "
            "optimizer's state or a gradient bucket, would otherwise miss the average)"
        )
        for g, w in zip(grads[:-2], want):
            np.testing.assert_allclose(
                g.numpy(),
                w,
                rtol=1e-5,
                atol=1e-7,
                err_msg="each rank's .grad becomes the AVERAGE over the ranks: allreduce's sum "
                "divided by comm.Get_size()",
            )


# ----------------------------------------------------------------------------- 16.6
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("515d5f7a2b6272de", "cd7e83b34cc4e3a597a6522e846e0cc22eb98cff8e0474a686fd29a3d04935ff"),
    "q2": ("58189f47bf3a06e4", "91a03f991916b4ddd3deaca3c6cf44600f8f64c74c387672166a1f4df414f3a8"),
    "q3": ("edb2833cfe9ab5ac", "dd576923a23b408f4226bf8fd83b8618926c683b54686889a56492f41f47392b"),
}
QUIZ_HINTS = {
    "q1": ("Re-read 'The ring all-reduce': how many steps, and how big is each chunk?"),
    "q2": (
        "Re-read 'Averaging gradients, by hand and with DistributedDataParallel': what loss "
        "does each process differentiate?"
    ),
    "q3": (
        "Re-read 'What it costs, and why gradients travel in buckets': what does each message "
        "cost besides its bytes?"
    ),
}


@pytest.mark.exercise("16.6")
@pytest.mark.parametrize("question", list(QUIZ))
def test_16_6_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
