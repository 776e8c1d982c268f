"""PyTorch parity of the composed methods (tensor_composites.py): values, dtypes and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1)
A, B, V = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4)), RNG.standard_normal(4)

CASES = {
    "asinh": lambda L, a, b, v: a.asinh(),
    "atanh": lambda L, a, b, v: (a / 10).atanh(),
    "addr": lambda L, a, b, v: a.addr(b[:, 0], v, beta=0.5, alpha=2),
    "addmv": lambda L, a, b, v: b[:, 0].addmv(a, v),
    "addcmul": lambda L, a, b, v: a.addcmul(b, b, value=-0.5),
    "addcdiv": lambda L, a, b, v: a.addcdiv(b, b * b + 1, value=3),
    "inner": lambda L, a, b, v: L.inner(a, b),
    "take": lambda L, a, b, v: a.take(L.tensor([[0, 11], [3, 3]])),
    "put_accumulate": lambda L, a, b, v: a.put(L.tensor([0, 0, 5]), v[:3], accumulate=True),
    "index_put_accumulate": lambda L, a, b, v: a.index_put(
        (L.tensor([0, 0, 2]), L.tensor([1, 1, 3])), v[:3], accumulate=True
    ),
    "masked_scatter": lambda L, a, b, v: a.masked_scatter(a > 0, b),
    "sigmoid_": lambda L, a, b, v: (a * 1).sigmoid_(),
    "nextafter": lambda L, a, b, v: L.nextafter(a, b),
    "aminmax": lambda L, a, b, v: L.aminmax(a * b, dim=1).max,
}


@pytest.mark.parametrize("name", CASES)
def test_composed_method_matches_pytorch(name: str) -> None:
    results = []
    for L in (mg, torch):
        a, b, v = (L.tensor(x, requires_grad=True) for x in (A, B, V))
        out = CASES[name](L, a, b, v)
        out.backward(L.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape))))
        grads = [t.grad.numpy() if t.grad is not None else None for t in (a, b, v)]
        results.append((out.detach().numpy(), grads))
    (ours, our_grads), (theirs, their_grads) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)
    for g, h in zip(our_grads, their_grads, strict=True):  # no gradient: zeros
        g, h = (np.zeros(1) if x is None else x for x in (g, h))
        np.testing.assert_allclose(*np.broadcast_arrays(g, h), rtol=1e-12, atol=1e-14)


def test_shifts_and_reflected_bitwise_match_pytorch() -> None:
    for dtype in ("int64", "int32", "int8", "uint8"):
        values = [1, 5, 100] if dtype == "uint8" else [-8, 1, 5]
        for s in (-1, 0, 3, 7, 8, 31, 32, 63, 64, 70):
            ours = mg.tensor(values, dtype=getattr(mg, dtype))
            theirs = torch.tensor(values, dtype=getattr(torch, dtype))
            assert (ours << s).tolist() == (theirs << s).tolist(), (dtype, s)
            assert (ours >> s).tolist() == (theirs >> s).tolist(), (dtype, s)
    t, u = mg.tensor([1, 2, 6]), torch.tensor([1, 2, 6])
    for op in (
        lambda x: 3 & x,
        lambda x: 3 | x,
        lambda x: 5 ^ x,
        lambda x: 1 << x,
        lambda x: 64 >> x,
    ):
        assert op(t).tolist() == op(u).tolist()


def test_unique_consecutive_matches_pytorch() -> None:
    data = [3, 3, 1, 1, 1, 3, 2, 2]
    ours = mg.unique_consecutive(mg.tensor(data), return_inverse=True, return_counts=True)
    theirs = torch.unique_consecutive(torch.tensor(data), return_inverse=True, return_counts=True)
    for a, b in zip(ours, theirs, strict=True):
        assert a.tolist() == b.tolist()
