"""20 programs in the style of PyTorch's recipes and tutorials, kept in ``recipes/`` as written for
PyTorch with only ``import torch`` spelled ``import minigenesis as torch``: TensorBoard's
SummaryWriter (scalars, histograms, images, hparams, a graph and an embedding, the event file
read back), torch.utils.benchmark's Timer and Compare, default device and dtype, assert_close's
messages, gradcheck and gradgradcheck, torch.library custom operators, inference_mode, the
backends' flags and deterministic algorithms, autocast with GradScaler on the CPU, sdpa_kernel,
torch.compile's modes, warm-starting with strict=False, a general checkpoint resumed exactly,
state_dict and zero_grad, a DataLoader with collate_fn, pin_memory and worker sharding,
torch.func ensembling and Jacobians, forward-mode AD, parametrizations and pruning. Each checks
its own outcome and must run unchanged; all of them run on PyTorch 2.13 too
(``tests/parity/test_written_programs_on_pytorch.py``). Those that read TensorBoard's event files
back need the ``tensorboard`` package (skipped without it)."""

from __future__ import annotations

import importlib.util
import runpy
from pathlib import Path

import pytest

import minigenesis as mg

RECIPES = sorted((Path(__file__).parent / "recipes").glob("*.py"))
SLOW = {"benchmark_timer", "func_ensembling_jacobians", "tensorboard_graph_embedding"}


def needs_tensorboard(script: Path) -> bool:
    return "from tensorboard" in script.read_text()


def test_the_recipe_programs_are_there() -> None:
    assert len(RECIPES) == 20


def _param(p: Path):
    marks = [pytest.mark.slow] if p.stem in SLOW else []
    if needs_tensorboard(p) and importlib.util.find_spec("tensorboard") is None:
        marks.append(pytest.mark.skip(reason="reads the event file with the tensorboard package"))
    return pytest.param(p, marks=marks, id=p.stem)


@pytest.fixture
def defaults_kept():
    """Programs run in this process: the global switches they set are put back after each."""
    dtype, grad = mg.get_default_dtype(), mg.is_grad_enabled()
    deterministic = (
        mg.are_deterministic_algorithms_enabled(),
        mg.is_deterministic_algorithms_warn_only_enabled(),
    )
    cudnn = (mg.backends.cudnn.benchmark, mg.backends.cudnn.deterministic)
    yield
    mg.set_default_dtype(dtype)
    mg.set_grad_enabled(grad)
    mg.set_default_device(None)
    mg.use_deterministic_algorithms(deterministic[0], warn_only=deterministic[1])
    mg.backends.cudnn.benchmark, mg.backends.cudnn.deterministic = cudnn


@pytest.mark.parametrize("script", [_param(p) for p in RECIPES])
def test_recipe_program_runs_unchanged(
    script: Path, capsys: pytest.CaptureFixture, defaults_kept: None
) -> None:
    mg.manual_seed(0)
    runpy.run_path(str(script), run_name="__main__")  # its asserts check its results
    assert capsys.readouterr().out  # each program reports what it computed
