"""The programs of ``tests/programs/recipes`` are PyTorch programs: each runs on PyTorch too, with
``minigenesis`` spelled ``torch`` again, and passes its own checks there. (PyTorch's
SummaryWriter needs the ``tensorboard`` package: those programs skip without it.)"""

from __future__ import annotations

import importlib.util
import runpy
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

RECIPES = sorted((Path(__file__).parents[1] / "programs" / "recipes").glob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("script", RECIPES, ids=lambda p: p.stem)
def test_recipe_program_runs_on_pytorch(script: Path, tmp_path: Path, capsys) -> None:
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
    assert capsys.readouterr().out
