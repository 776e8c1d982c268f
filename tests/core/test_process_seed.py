"""Each process starts its default generator from a fresh seed, as PyTorch's: a program that does
not call manual_seed draws different numbers on every run (initial_seed() says which seed), a new
Generator() starts from PyTorch's fixed seed, and manual_seed makes runs repeat."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import minigenesis as mg

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = "import minigenesis as mg; print(mg.initial_seed(), mg.rand(3).tolist())"


def _run(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=60, check=True)  # fmt: skip
    return out.stdout.strip()


def test_each_process_starts_from_a_different_seed() -> None:
    first, second = _run(PROGRAM), _run(PROGRAM)
    assert first != second
    seed = int(first.split()[0])
    assert 0 <= seed < 2**63 and seed != 0


def test_initial_seed_names_the_stream_a_process_draws_from() -> None:
    seed, draws = _run(PROGRAM).split(" ", 1)
    mg.manual_seed(int(seed))
    assert str(mg.rand(3).tolist()) == draws


def test_manual_seed_makes_two_processes_draw_the_same() -> None:
    code = "import minigenesis as mg; mg.manual_seed(3); print(mg.randn(4).tolist())"
    assert _run(code) == _run(code)


def test_a_new_generator_starts_from_pytorchs_fixed_seed() -> None:
    a, b = mg.Generator(), mg.Generator()
    assert a.initial_seed() == b.initial_seed() == 67280421310721
    assert mg.rand(4, generator=a).tolist() == mg.rand(4, generator=b).tolist()
