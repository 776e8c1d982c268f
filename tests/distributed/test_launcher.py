"""python -m minigenesis.distributed.run: torchrun's variables in every process, the script's
arguments passed through, its exit status returned."""

from __future__ import annotations

import pickle
import sys
import tempfile
from pathlib import Path

import pytest

from minigenesis.distributed import run as launcher
from tests.distributed.launch import HERE, RESULTS_ENV, mpiexec, rank_env, run_command

pytest.importorskip("mpi4py")
pytestmark = pytest.mark.distributed
if mpiexec() is None:
    pytest.skip("no mpiexec (pip install mpich)", allow_module_level=True)


def _launch(*args: str) -> tuple[int, list, str]:
    with tempfile.TemporaryDirectory() as results:
        env = rank_env({RESULTS_ENV: results})
        env.pop("OMP_NUM_THREADS")  # the launcher sets it
        cmd = [sys.executable, "-m", "minigenesis.distributed.run", *args]
        done = run_command(cmd, env, timeout=120)
        values = [pickle.loads(p.read_bytes()) for p in sorted(Path(results).glob("rank*.pkl"))]
        return done.returncode, values, done.stdout + done.stderr


@pytest.mark.parametrize("as_module", [False, True], ids=["script", "module"])
def test_every_process_gets_torchruns_variables_and_its_arguments(as_module):
    target = ["-m", "tests.distributed.ranks_env"] if as_module else [str(HERE / "ranks_env.py")]
    rc, ranks, output = _launch("--nproc-per-node", "2", "--master-port", "29511", *target,
                                "--lr", "0.1")  # fmt: skip
    assert rc == 0, output
    assert [v["rank"] for v in ranks] == [0, 1] and {v["world"] for v in ranks} == {2}
    for r, v in enumerate(ranks):
        assert v["env"] == {"RANK": str(r), "LOCAL_RANK": str(r), "WORLD_SIZE": "2",
                            "LOCAL_WORLD_SIZE": "2", "GROUP_RANK": "0",
                            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29511",
                            "OMP_NUM_THREADS": "1"}  # fmt: skip
        assert v["argv"] == ["--lr", "0.1"] and v["main"] == "__main__"


def test_a_module_that_is_not_there_is_one_line_not_a_traceback():
    rc, _, output = _launch("--nproc-per-node", "1", "-m", "no_such_package.train")
    assert rc != 0
    assert "error: cannot run -m no_such_package.train: No module named 'no_such_package'" in output
    assert "Traceback" not in output


def test_a_failing_script_fails_the_launch(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text("import sys\nsys.exit(3)\n")
    rc, _, _ = _launch("--nproc-per-node", "2", str(script))
    assert rc != 0


@pytest.mark.parametrize("args, message", [
    (["--nproc-per-node", "0", "x.py"], "--nproc-per-node must be at least 1"),
    (["--nnodes", "2", "x.py"], "--nnodes 2 needs --hosts with 2 host names"),
    (["--nproc-per-node", "100000", "x.py"], "--nproc-per-node 100000 is more processes than"),
    (["--nproc-per-node", "2", "no_such_script.py"], "the script no_such_script.py does not exist"),
    (["--nproc-per-node", "2", "."], "the script . is a directory without a __main__.py"),
    (["--no-python", "/no/such/program"], "--no-python: no program '/no/such/program'"),
    (["--master-port", "70000", "x.py"], "--master-port must lie in [0, 65535], got 70000"),
])  # fmt: skip
def test_bad_options_exit_with_status_2(args, message, capsys):
    assert launcher.main(args) == 2
    assert message in capsys.readouterr().err


def test_several_machines_go_to_mpiexec_as_hosts_and_processes_per_host():
    opts = launcher._parser().parse_args(
        ["--nnodes", "2", "--hosts", "a,b", "--nproc_per_node", "4", "t.py", "--x", "1"]
    )
    cmd, env = launcher.build_command(opts)
    assert cmd[1:7] == ["-n", "8", "-hosts", "a,b", "-ppn", "4"]
    assert cmd[-4:] == ["--nproc-per-node", "4", "t.py", "--x", "1"][-4:]
    assert env["WORLD_SIZE"] == "8" and env["LOCAL_WORLD_SIZE"] == "4"


def test_worker_derives_torchruns_variables_from_mpiexecs():
    from minigenesis.distributed._worker import torchrun_env

    env = torchrun_env({"PMI_RANK": "5", "PMI_SIZE": "8", "MPI_LOCALRANKID": "1"}, 4)
    assert env["RANK"] == "5" and env["LOCAL_RANK"] == "1" and env["GROUP_RANK"] == "1"
    assert env["WORLD_SIZE"] == "8" and env["LOCAL_WORLD_SIZE"] == "4"
