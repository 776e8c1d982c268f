"""PyTorch parity for Tensor.view(dtype): for each layout and dtype pair, either the same
RuntimeError (type and message) or the same shape, strides, storage offset, bytes and
requires_grad as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64"]  # fmt: skip

LAYOUTS = {
    "contiguous": lambda L, d: L.zeros(4, 8, dtype=d),
    "0-d": lambda L, d: L.zeros((), dtype=d),
    "transposed": lambda L, d: L.zeros(8, 4, dtype=d).t(),
    "column slice": lambda L, d: L.zeros(4, 8, dtype=d)[:, 2:6],
    "odd offset": lambda L, d: L.zeros(4, 8, dtype=d)[1:, 1:5],
    "odd row stride": lambda L, d: L.zeros(4, 6, dtype=d)[:, :4],
    "odd last size": lambda L, d: L.zeros(3, 6, dtype=d)[:, :3],
    "expanded": lambda L, d: L.zeros(4, 1, dtype=d).expand(4, 4),
    "empty": lambda L, d: L.zeros(0, dtype=d),
}


def _outcome(L, layout: str, src: str, dst: str):
    x = LAYOUTS[layout](L, getattr(L, src))
    if src.startswith(("float", "bfloat")):
        x = x.detach().requires_grad_()
    try:
        y = x.view(getattr(L, dst))
    except RuntimeError as err:
        return ("RuntimeError", str(err))
    data = y.detach().cpu().contiguous().reshape(-1)
    raw = data.view(torch.uint8).numpy() if L is torch else np.ascontiguousarray(data.numpy())
    raw = raw.reshape(-1).view(np.uint8)
    return (tuple(y.shape), y.stride(), y.storage_offset(), y.requires_grad, raw.tolist())


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("src", ["int8", "int16", "float32", "float64", "bool", "bfloat16"])
def test_view_dtype_matches_pytorch_result_or_error(layout, src):
    for dst in NAMES:
        assert _outcome(mg, layout, src, dst) == _outcome(torch, layout, src, dst), (
            layout,
            src,
            dst,
        )


def test_view_dtype_bits_match_pytorch_on_random_values():
    a = np.random.default_rng(1).standard_normal((3, 8)).astype(np.float32)
    for dst in NAMES:
        got = mg.tensor(a).view(getattr(mg, dst)).view(mg.uint8).numpy()
        want = torch.tensor(a).view(getattr(torch, dst)).view(torch.uint8).numpy()
        np.testing.assert_array_equal(got, want)
