"""The ops whose backward computes on arrays where nothing records (a speed path kept beside the
Tensor form, which create_graph uses) are the ones ARCHITECTURE.md lists ("The speed layer"),
and the two forms give the same gradient."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
# a backward that asks whether anything records
RECORDING = re.compile(r"grad_enabled|is_grad_enabled\(\)|recording")


def _ops_with_an_array_backward() -> set[str]:
    found = set()
    for path in sorted((ROOT / "minigenesis" / "ops").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for cls in ast.parse(source).body:
            if not isinstance(cls, ast.ClassDef):
                continue
            for fn in cls.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == "backward":
                    if RECORDING.search(ast.get_source_segment(source, fn) or ""):
                        found.add(cls.name)
    return found


def test_the_ops_with_an_array_backward_are_the_ones_architecture_lists():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    paragraph = text.split("One kind of speed path stays in `ops/`", 1)[1].split("\n\n", 1)[0]
    listed = set(re.findall(r"`([A-Z]\w+)`", paragraph))
    found = _ops_with_an_array_backward()
    assert len(found) > 10, "the ops were not read"
    assert found == listed, (
        f"not listed: {sorted(found - listed)}; listed, no such backward: {sorted(listed - found)}"
    )


CASES = {
    "relu": lambda x: F.relu(x),
    "sigmoid": lambda x: mg.sigmoid(x),
    "tanh": lambda x: mg.tanh(x),
    "gelu": lambda x: F.gelu(x),
    "softmax": lambda x: F.softmax(x, dim=1),
    "sum": lambda x: x.sum(dim=0),
    "mean": lambda x: x.mean(dim=1),
    "logsumexp": lambda x: x.logsumexp(dim=1),
    "matmul": lambda x: x @ x.mT,
    "mul": lambda x: x * x,
    "reshape": lambda x: x.reshape(2, 15),
    "permute": lambda x: x.permute(1, 0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_array_backward_and_the_recorded_one_give_the_same_gradient(name):
    """backward() with nothing recording takes the array path; autograd.grad with create_graph
    takes the Tensor ops; in float64 they agree to rounding."""
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((5, 6)), dtype=mg.float64, requires_grad=True)
    shape = CASES[name](x.detach()).shape  # (weights that want a gradient: dL/dx depends on them)
    weights = mg.tensor(rng.standard_normal(shape), dtype=mg.float64, requires_grad=True)
    (CASES[name](x) * weights).sum().backward()
    (recorded,) = mg.autograd.grad((CASES[name](x) * weights).sum(), x, create_graph=True)
    assert recorded.grad_fn is not None, "the Tensor form was not taken"
    np.testing.assert_allclose(x.grad.numpy(), recorded.detach().numpy(), rtol=1e-12, atol=1e-14)
