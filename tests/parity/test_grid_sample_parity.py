"""F.grid_sample and F.affine_grid against PyTorch on the edge cases: points exactly on pixel
centres, on the borders and far outside, every mode, padding and align_corners, with the
gradients to the input and the grid (including PyTorch's zero grid gradient on a border and for
nearest) in float64."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigenesis as mg  # noqa: E402
import minigenesis.nn.functional as F  # noqa: E402

EDGES = np.array([-5.0, -1.25, -1.0, -0.75, -0.5, 0.0, 0.3, 0.5, 1.0, 1.2, 3.0])


def _both(x, g, w, **kw):
    """Outputs and gradients (input, grid) of both libraries."""
    res = []
    for lib, fn in ((torch, torch.nn.functional.grid_sample), (mg, F.grid_sample)):
        xt, gt = lib.tensor(x, requires_grad=True), lib.tensor(g, requires_grad=True)
        out = fn(xt, gt, **kw)
        (out * lib.tensor(w)).sum().backward()
        res.append([out.detach().numpy(), xt.grad.numpy(), gt.grad.numpy()])
    return res


@pytest.mark.parametrize(
    "mode,pm,ac",
    list(
        itertools.product(
            ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"), (False, True)
        )
    ),
)
def test_grid_sample_matches_pytorch_on_borders_and_far_points(mode, pm, ac):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 2, 3, 4))
    g = np.stack(np.meshgrid(EDGES, EDGES[::-1], indexing="xy"), -1)[None]
    w = rng.standard_normal((1, 2, *g.shape[1:3]))
    theirs, ours = _both(x, g, w, mode=mode, padding_mode=pm, align_corners=ac)
    for name, a, b in zip(("output", "input grad", "grid grad"), ours, theirs):
        np.testing.assert_allclose(a, b, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("pm", ["zeros", "border", "reflection"])
def test_grid_sample_5d_matches_pytorch(mode, pm):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 2, 3, 4, 2))
    g = rng.choice(EDGES, (2, 2, 3, 2, 3)) + rng.uniform(-0.1, 0.1, (2, 2, 3, 2, 3))
    w = rng.standard_normal((2, 2, 2, 3, 2))
    for ac in (False, True):
        theirs, ours = _both(x, g, w, mode=mode, padding_mode=pm, align_corners=ac)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 1, 1), (2, 1, 3, 1, 4)])
def test_affine_grid_matches_pytorch(size):
    rng = np.random.default_rng(2)
    d = len(size) - 2
    theta = rng.standard_normal((size[0], d, d + 1))
    for ac in (False, True):
        tt, mt = torch.tensor(theta, requires_grad=True), mg.tensor(theta, requires_grad=True)
        a = torch.nn.functional.affine_grid(tt, size, align_corners=ac)
        b = F.affine_grid(mt, size, align_corners=ac)
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), atol=1e-14)
        w = rng.standard_normal(a.shape)
        (a * torch.tensor(w)).sum().backward()
        (b * mg.tensor(w)).sum().backward()
        np.testing.assert_allclose(mt.grad.numpy(), tt.grad.numpy(), atol=1e-12)
