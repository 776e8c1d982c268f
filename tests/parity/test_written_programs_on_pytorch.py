"""The programs of ``tests/programs/scripts`` and ``tests/programs/recipes`` are PyTorch
programs: each runs on PyTorch too, with ``minigenesis`` spelled ``torch`` again, and passes its
own checks there (the same thresholds minigenesis must meet, on PyTorch's random streams).
PyTorch's SummaryWriter needs the ``tensorboard`` package: those programs skip without it."""

from __future__ import annotations

import importlib.util
import re
import runpy
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

PROGRAMS = Path(__file__).parents[1] / "programs"
SCRIPTS = sorted((PROGRAMS / "scripts").glob("*.py")) + sorted((PROGRAMS / "recipes").glob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_program_runs_on_pytorch(script: Path, tmp_path: Path, capsys) -> None:
    source = script.read_text().replace("minigenesis", "torch")
    if "tensorboard" in source and importlib.util.find_spec("tensorboard") is None:
        pytest.skip("torch.utils.tensorboard needs the tensorboard package")
    as_torch = tmp_path / script.name
    as_torch.write_text(source)
    torch.manual_seed(0)
    dtype = torch.get_default_dtype()
    try:
        runpy.run_path(str(as_torch), run_name="__main__")  # its asserts check its results
    finally:
        torch.set_default_dtype(dtype)
        torch.use_deterministic_algorithms(False)
        torch.set_printoptions(profile="default")
    assert capsys.readouterr().out


# Programs whose data and starting point come from NumPy or constants, not from a random stream
# (minigenesis' generator is its own): both runs must print the same numbers, to this rtol.
# Rosenbrock's 500 steps amplify one-ulp differences of float32 rounding order (NAdam's by
# 4e-4); the focal-loss fit converges to the same point.
SAME_NUMBERS = {
    "focal_loss_csv_auc": 1e-4,
    "optimizers_rosenbrock": 2e-3,
    "legacy_variable_style": 1e-5,
    "hopfield_retrieval": 1e-5,
    "model_surgery": 1e-5,
    "jit_script_trace_export": 1e-5,
}


def _printed_numbers(text: str) -> np.ndarray:
    return np.array(re.findall(r"-?\d+\.\d+(?:e[-+]?\d+)?", text), dtype=float)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SAME_NUMBERS))
def test_program_prints_pytorchs_numbers(name: str, tmp_path: Path, capsys) -> None:
    import minigenesis as mg

    source = (Path(__file__).parents[1] / "programs" / "scripts" / f"{name}.py").read_text()
    printed = []
    for text, seed in (
        (source, mg.manual_seed),
        (source.replace("minigenesis", "torch"), torch.manual_seed),
    ):
        path = tmp_path / f"{len(printed)}_{name}.py"
        path.write_text(text)
        seed(0)
        runpy.run_path(str(path), run_name="__main__")
        printed.append(_printed_numbers(capsys.readouterr().out))
    ours, theirs = printed
    assert ours.size >= 4 and ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=SAME_NUMBERS[name], atol=1e-6)
