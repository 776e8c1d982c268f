"""mg.multiprocessing: tensors in shared memory reach spawned processes as the same memory, so
Hogwild-style workers train one model; pickle and mg.save still write the values."""

from __future__ import annotations

import ast
import os
import pickle
import subprocess
import sys
import textwrap
from multiprocessing.reduction import ForkingPickler
from pathlib import Path

import numpy as np

import minigenesis as mg

ROOT = Path(__file__).resolve().parents[2]

HOGWILD = textwrap.dedent(
    """
    import minigenesis as torch
    import minigenesis.multiprocessing as mp
    import minigenesis.nn as nn

    def train(rank, model, steps):
        torch.manual_seed(rank)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        x = torch.randn(64, 3)
        y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
        for _ in range(steps):
            opt.zero_grad()
            ((model(x) - y) ** 2).mean().backward()
            opt.step()

    if __name__ == "__main__":
        mp.set_start_method("spawn")
        torch.manual_seed(0)
        model = nn.Linear(3, 1)
        model.share_memory()
        workers = [mp.Process(target=train, args=(i, model, 150)) for i in range(2)]
        for p in workers:
            p.start()
        for p in workers:
            p.join()
        print([p.exitcode for p in workers])
        print(model.weight.data.tolist())
        print(model.bias.data.tolist())
    """
)


def test_spawned_workers_train_one_shared_model(tmp_path: Path) -> None:
    script = tmp_path / "hogwild.py"
    script.write_text(HOGWILD)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # no leaked-memory warnings from the resource tracker
    codes, w, b = (ast.literal_eval(line) for line in out.stdout.strip().splitlines())
    assert codes == [0, 0]
    # the parent's model was trained by the workers: y = x @ [1, -2, 0.5] + 0.3, noise-free
    np.testing.assert_allclose(w, [[1.0, -2.0, 0.5]], atol=1e-3)
    np.testing.assert_allclose(b, [0.3], atol=1e-3)


def test_a_shared_tensor_crosses_multiprocessing_pickling_as_the_same_memory() -> None:
    x = mg.arange(4.0).share_memory_()
    assert x.is_shared() and not mg.arange(4.0).is_shared()
    y = pickle.loads(ForkingPickler.dumps(x))
    y.add_(1)  # in place through the received tensor
    assert x.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_plain_pickle_and_save_still_write_the_values(tmp_path: Path) -> None:
    x = mg.arange(3.0).share_memory_()
    y = pickle.loads(pickle.dumps(x))
    y.add_(1)
    assert x.tolist() == [0.0, 1.0, 2.0] and not y.is_shared()
    mg.save({"x": x}, tmp_path / "x.pt")
    assert mg.load(tmp_path / "x.pt")["x"].tolist() == [0.0, 1.0, 2.0]


def test_spawn_runs_one_function_per_rank_and_reports_failure(tmp_path: Path) -> None:
    script = tmp_path / "ranks.py"
    script.write_text(textwrap.dedent(
        """
        import sys
        import minigenesis.multiprocessing as mp

        def work(rank, fail):
            if fail and rank == 1:
                sys.exit(3)

        if __name__ == "__main__":
            mp.spawn(work, args=(False,), nprocs=2)
            try:
                mp.spawn(work, args=(True,), nprocs=2)
            except mp.ProcessExitedException as err:
                print(err)
        """
    ))  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "process 1 terminated with exit code 3" in out.stdout


def test_spawn_stops_the_others_when_one_process_fails(tmp_path: Path) -> None:
    """As PyTorch's spawn: rank 0 waits for ever (for a rank 1 that is gone), and the failure
    of rank 1 stops it and is raised with rank 1's traceback or exit status; spawn joined rank 0
    first and waited for ever."""
    script = tmp_path / "ranks.py"
    script.write_text(textwrap.dedent(
        """
        import os, signal, sys, time
        import minigenesis.multiprocessing as mp

        def work(rank, how):
            if rank == 0:
                time.sleep(1000)
            elif how == "raise":
                raise ValueError("rank 1 failed")
            else:
                os.kill(os.getpid(), signal.SIGKILL)

        if __name__ == "__main__":
            for how in ("raise", "kill"):
                try:
                    mp.spawn(work, args=(how,), nprocs=2)
                except mp.ProcessRaisedException as err:
                    print(type(err).__name__, str(err).strip().splitlines()[::-1][:1])
                    print(str(err).strip().splitlines()[0])
            print("children left:", len(mp.active_children()))
        """
    ))  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "ProcessRaisedException ['ValueError: rank 1 failed']",
        "-- Process 1 terminated with the following error:",
        "ProcessExitedException ['process 1 terminated with signal SIGKILL']",
        "process 1 terminated with signal SIGKILL",
        "children left: 0",
    ]
