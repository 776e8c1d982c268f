"""Differential tests of mixed precision against PyTorch: GradScaler's scale, growth tracker,
skipped steps, unscaled gradients and state_dict over a schedule of finite and inf/NaN gradients,
and the dtype each common op gives under CPU bfloat16 autocast.

The parameters are float64 here: PyTorch's SGD adds ``-lr * grad`` with a fused multiply-add on
this CPU (one rounding), ours in two, which shows in the last float32 bit of a parameter; in
float64 the updates agree to 1e-16, so what is compared is the scaler's bookkeeping.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")
SCHEDULE = (
    [[1, 2, 3, 4, 5]] * 3
    + [[INF, 1, 1, 1, 1]]
    + [[1, 1, 1, 1, 1]] * 4
    + [[NAN, 0, 0, 0, 0], [1e308, 1e308, 0, 0, 0], [0, 0, 0, 0, -INF]]
    + [[0.5, 0.25, 0.1, 1, 2]] * 6
)


def _scaler(lib: Any, options: dict) -> Any:
    return torch.amp.GradScaler("cpu", **options) if lib is torch else mg.amp.GradScaler(**options)


def _run(lib: Any, options: dict, unscale_every: int, reload_at: int | None) -> list:
    p = lib.tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
    q = lib.tensor(np.array([0.5, 0.25]), requires_grad=True)
    opt = lib.optim.SGD([p, q], lr=0.01)
    scaler = _scaler(lib, options)
    out: list = []
    for i, g in enumerate(SCHEDULE):
        opt.zero_grad()
        loss = (p * lib.tensor(g[:3])).sum() + (q * lib.tensor(g[3:])).sum()
        scaler.scale(loss).backward()
        if i % unscale_every == 0:
            scaler.unscale_(opt)
            out.append(("unscaled", p.grad.tolist(), q.grad.tolist()))
        scaler.step(opt)
        scaler.update()
        out.append(("scale", scaler.get_scale(), scaler._get_growth_tracker()))
        out.append(("params", p.detach().numpy().copy(), q.detach().numpy().copy()))
        if i == reload_at:
            saved = scaler.state_dict()
            out.append(("state_dict", sorted((k, float(v)) for k, v in saved.items())))
            scaler = _scaler(lib, options)
            scaler.load_state_dict(saved)
    return out


OPTIONS = [
    dict(),
    dict(init_scale=4.0, growth_factor=3.0, backoff_factor=0.25, growth_interval=2),
    dict(init_scale=2.0**10, growth_interval=1),
    dict(enabled=False),
]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("unscale_every", [1, 3, 100])
@pytest.mark.parametrize("reload_at", [None, 5])
def test_grad_scaler_follows_pytorch(options: dict, unscale_every: int, reload_at) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = _run(mg, options, unscale_every, reload_at)
        theirs = _run(torch, options, unscale_every, reload_at)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert o[0] == t[0]
        if o[0] == "params":
            for a, b in zip(o[1:], t[1:]):
                np.testing.assert_allclose(a, b, rtol=1e-15, atol=1e-16)
        else:
            assert repr(o) == repr(t), (o, t)


def _autocast_cases(L: Any) -> dict:
    F = L.nn.functional
    rng = np.random.default_rng(0)
    x = L.tensor(rng.standard_normal((4, 8)), dtype=L.float32)
    w = L.tensor(rng.standard_normal((6, 8)), dtype=L.float32)
    b = L.tensor(rng.standard_normal(6), dtype=L.float32)
    img = L.tensor(rng.standard_normal((2, 3, 5, 5)), dtype=L.float32)
    ker = L.tensor(rng.standard_normal((4, 3, 3, 3)), dtype=L.float32)
    xb, xd, target = x.to(L.bfloat16), x.to(L.float64), L.tensor([0, 1, 2, 3])
    return {
        "matmul": lambda: x @ w.t(),
        "mm": lambda: L.mm(x, w.t()),
        "bmm": lambda: L.bmm(x[None], w.t()[None]),
        "addmm": lambda: L.addmm(b, x, w.t()),
        "baddbmm": lambda: L.baddbmm(b[None, None], x[None], w.t()[None]),
        "linear": lambda: F.linear(x, w, b),
        "linear_bf16_input": lambda: F.linear(xb, w, b),
        "conv2d": lambda: F.conv2d(img, ker),
        "conv_transpose2d": lambda: F.conv_transpose2d(img, ker.transpose(0, 1)),
        "einsum": lambda: L.einsum("ij,kj->ik", x, w),
        "sdpa": lambda: F.scaled_dot_product_attention(x[None], x[None], x[None]),
        "matmul_float64": lambda: xd @ xd.t(),
        "matmul_int64": lambda: L.ones(2, 2, dtype=L.int64) @ L.ones(2, 2, dtype=L.int64),
        "relu": lambda: F.relu(xb),
        "gelu": lambda: F.gelu(xb),
        "silu": lambda: F.silu(xb),
        "sigmoid": lambda: L.sigmoid(xb),
        "tanh": lambda: xb.tanh(),
        "sqrt": lambda: xb.abs().sqrt(),
        "softplus": lambda: F.softplus(xb),
        "add_mixed": lambda: xb + x,
        "mul_mixed_float64": lambda: xb * xd,
        "where_mixed": lambda: L.where(x > 0, xb, x),
        "cat_mixed": lambda: L.cat([xb, x]),
        "stack_mixed": lambda: L.stack([xb, x]),
        "addcmul_mixed": lambda: L.addcmul(x, xb, xb),
        "cumsum": lambda: xb.cumsum(0),
        "prod": lambda: xb.prod(),
        "norm": lambda: xb.norm(),
        "topk": lambda: xb.topk(2).values,
        "max_pool2d": lambda: F.max_pool2d(img.to(L.bfloat16), 2),
        "avg_pool2d": lambda: F.avg_pool2d(img, 2),
        "interpolate": lambda: F.interpolate(img, scale_factor=2),
        "interpolate_area": lambda: F.interpolate(img, size=(3, 4), mode="area"),
        "interpolate_bicubic": lambda: F.interpolate(img, scale_factor=2, mode="bicubic"),
        "antialias": lambda: F.interpolate(img, size=3, mode="bilinear", antialias=True),
        "adaptive_avg_pool1d": lambda: F.adaptive_avg_pool1d(img[0], 2),
        "adaptive_avg_pool2d": lambda: F.adaptive_avg_pool2d(img, 2),
        "adaptive_avg_pool3d": lambda: F.adaptive_avg_pool3d(img[None], 2),
        "embedding": lambda: F.embedding(target, w),
        "cosine_similarity": lambda: F.cosine_similarity(x, x),
        "cdist": lambda: L.cdist(x, x),
        "mse_loss": lambda: F.mse_loss(xb, xb * 0.5),
        "l1_loss": lambda: F.l1_loss(xb, xb * 0.5),
        "cross_entropy": lambda: F.cross_entropy(xb, target),
        "nll_loss": lambda: F.nll_loss(xb, target),
        "bce_with_logits": lambda: F.binary_cross_entropy_with_logits(xb, (xb > 0).to(L.bfloat16)),
    }


def test_ops_under_cpu_bfloat16_autocast_give_pytorchs_dtypes_and_values() -> None:
    got, values = {}, {}
    for lib in (mg, torch):
        with lib.autocast("cpu", dtype=lib.bfloat16), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = {k: f() for k, f in _autocast_cases(lib).items()}
        got[lib] = {k: str(v.dtype).split(".")[-1] for k, v in outs.items()}
        values[lib] = {k: v.detach().double().numpy() for k, v in outs.items()}
    assert got[mg] == got[torch]
    for k in values[mg]:  # a bfloat16 result may differ by its rounding
        np.testing.assert_allclose(values[mg][k], values[torch][k], rtol=2e-2, atol=2e-2, err_msg=k)


def test_ops_on_cudas_float32_list_only_keep_a_bfloat16_input_under_cpu_autocast() -> None:
    """PyTorch keeps one autocast list per device type: softmax, exp, sum ... run in float32
    under CUDA autocast but stay in the input's dtype under CPU autocast, and so they do here."""
    got = {}
    for lib in (mg, torch):
        F = lib.nn.functional
        with lib.autocast("cpu", dtype=lib.bfloat16):
            xb = lib.ones(2, 3, dtype=lib.bfloat16)
            dtypes = {
                "softmax": xb.softmax(-1).dtype,
                "log_softmax": xb.log_softmax(-1).dtype,
                "exp": xb.exp().dtype,
                "log": xb.log().dtype,
                "pow": (xb**2.0).dtype,
                "sum": xb.sum().dtype,
                "mean": xb.mean().dtype,
                "var": xb.var().dtype,
                "logsumexp": xb.logsumexp(-1).dtype,
                "layer_norm": F.layer_norm(xb, (3,), lib.ones(3), lib.zeros(3)).dtype,
                "logsigmoid": F.logsigmoid(xb).dtype,
                "cdist": lib.cdist(xb, xb).dtype,  # on both float32 lists
                "inverse": lib.linalg.inv(lib.eye(3, dtype=lib.bfloat16)).dtype,  # CPU's only
            }
        got[lib] = {k: str(d).split(".")[-1] for k, d in dtypes.items()}
    assert got[mg] == got[torch]
    assert got[mg]["softmax"] == "bfloat16" and got[mg]["inverse"] == "float32"


def test_scale_and_skipped_steps_match_pytorch() -> None:
    def run(lib: Any) -> list:
        scaler = _scaler(lib, dict(init_scale=8.0, growth_interval=2))
        outs = [
            lib.tensor([3, -1]),
            lib.tensor([0.5, 0.25], dtype=lib.float16),
            lib.tensor(0.5, dtype=lib.float16),
            lib.tensor([0.3], dtype=lib.bfloat16),
            lib.tensor(1.5, dtype=lib.float64),
        ]
        scaled = scaler.scale([outs[0], (outs[1], outs[2]), outs[3], outs[4]])
        flat = [scaled[0], scaled[1][0], scaled[1][1], scaled[2], scaled[3]]
        p = lib.tensor(np.array([1.0, 2.0]), requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        scaler.scale(p.sum() * float("inf")).backward()
        returned = scaler.step(opt)  # skipped: returns None, p unchanged
        scaler.update()
        info = [type(scaled).__name__, type(scaled[1]).__name__, returned, scaler.get_scale()]
        return info + [(str(t.dtype).split(".")[-1], t.tolist()) for t in flat] + [p.tolist()]

    assert run(mg) == run(torch)
