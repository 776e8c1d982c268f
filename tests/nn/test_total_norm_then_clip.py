"""``get_total_norm`` and ``clip_grads_with_norm_``, the two halves of ``clip_grad_norm_``
(PyTorch 2.6+): the norm of all gradients taken as one vector, then every gradient scaled by
``min(1, max_norm / (norm + 1e-6))``. Oracle: NumPy's norm of the concatenated gradients."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.nn.utils import clip_grad_norm_, clip_grads_with_norm_, get_total_norm

RNG = np.random.default_rng(0)
ARRAYS = [RNG.standard_normal((3, 4)), RNG.standard_normal(5) * 3, RNG.standard_normal(())]


def _numpy_norm(arrays: list, p: float) -> float:
    flat = np.concatenate([a.ravel() for a in arrays])
    if p == 0:  # PyTorch's total 0-"norm": the number of tensors with a non-zero entry
        return float(sum(bool(np.any(a != 0)) for a in arrays))
    return float(np.linalg.norm(flat, ord=p))


@pytest.mark.parametrize("p", [2.0, 1.0, 3.5, math.inf, 0.5, 0.0])
def test_total_norm_is_the_norm_of_all_tensors_as_one_vector(p: float) -> None:
    total = get_total_norm([mg.tensor(a) for a in ARRAYS], norm_type=p)
    assert total.shape == () and total.dtype == mg.float64
    np.testing.assert_allclose(float(total), _numpy_norm(ARRAYS, p), rtol=1e-12)


def test_total_norm_of_one_tensor_or_none() -> None:
    np.testing.assert_allclose(
        float(get_total_norm(mg.tensor(ARRAYS[0]))), np.linalg.norm(ARRAYS[0])
    )
    assert float(get_total_norm([])) == 0.0


def test_total_norm_refuses_a_nonfinite_norm_when_asked() -> None:
    grads = [mg.tensor([1.0, math.inf])]
    assert math.isinf(float(get_total_norm(grads)))
    with pytest.raises(RuntimeError, match="non-finite"):
        get_total_norm(grads, error_if_nonfinite=True)


def test_clip_with_a_given_norm_scales_every_gradient_by_the_clipped_ratio() -> None:
    params = [mg.zeros(a.shape, dtype=mg.float64, requires_grad=True) for a in ARRAYS]
    for p, a in zip(params, ARRAYS):
        p.grad = mg.tensor(a)
    # a norm gathered elsewhere (here: twice the local one): the ratio uses it, not the local norm
    given = 2 * _numpy_norm(ARRAYS, 2.0)
    clip_grads_with_norm_(params, 1.0, mg.tensor(given, dtype=mg.float64))
    for p, a in zip(params, ARRAYS):
        np.testing.assert_allclose(p.grad.numpy(), a * (1.0 / (given + 1e-6)), rtol=1e-14)
    clip_grads_with_norm_(
        params, 1e9, mg.tensor(given, dtype=mg.float64)
    )  # the ratio is capped at 1
    for p, a in zip(params, ARRAYS):
        np.testing.assert_allclose(p.grad.numpy(), a * (1.0 / (given + 1e-6)), rtol=1e-14)


def test_the_two_halves_give_clip_grad_norm() -> None:
    def params() -> list:
        out = [mg.zeros(a.shape, dtype=mg.float64, requires_grad=True) for a in ARRAYS]
        for p, a in zip(out, ARRAYS):
            p.grad = mg.tensor(a)
        return out

    whole, halves = params(), params()
    norm = clip_grad_norm_(whole, 0.7, norm_type=3.0)
    total = get_total_norm([p.grad for p in halves], norm_type=3.0)
    clip_grads_with_norm_(halves, 0.7, total)
    assert float(norm) == float(total)
    for a, b in zip(whole, halves):
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


def test_get_total_norm_refuses_what_pytorch_refuses():
    ones = mg.ones(2)
    with pytest.raises(RuntimeError, match="None"):
        get_total_norm([ones, None])
    with pytest.raises(RuntimeError, match="floating point or complex"):
        get_total_norm([mg.arange(3)])
    for p in (-1.0, -0.5, float("inf"), float("-inf")):
        with pytest.raises(RuntimeError, match="empty tensor"):
            get_total_norm([mg.zeros(0), ones], p)
    # p = 0 and p > 0 have an identity: an empty tensor counts as 0
    assert get_total_norm([mg.zeros(0), ones], 0.5).item() == pytest.approx(4.0)
