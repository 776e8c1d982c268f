"""The programs of ``tests/programs/scripts`` are PyTorch programs: each runs on PyTorch too,
with ``minigenesis`` spelled ``torch`` again, and passes its own checks there (the same
thresholds minigenesis must meet, on PyTorch's random streams)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

SCRIPTS = sorted((Path(__file__).parents[1] / "programs" / "scripts").glob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_program_runs_on_pytorch(script: Path, tmp_path: Path, capsys) -> None:
    source = script.read_text().replace("minigenesis", "torch")
    as_torch = tmp_path / script.name
    as_torch.write_text(source)
    torch.manual_seed(0)
    dtype = torch.get_default_dtype()
    try:
        runpy.run_path(str(as_torch), run_name="__main__")  # its asserts check its results
    finally:
        torch.set_default_dtype(dtype)
    assert capsys.readouterr().out
