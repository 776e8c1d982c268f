"""ctc_loss at its edges: every target empty (the only alignment is all blanks), and the
gradient of an impossible alignment (NaN on the steps it uses unless zero_infinity, as in
PyTorch; 0 for the other sequences)."""

from __future__ import annotations

import numpy as np

import minigenesis as mg
import minigenesis.nn.functional as F


def _log_softmax(x: np.ndarray) -> np.ndarray:
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def test_empty_targets_give_minus_the_log_probability_of_all_blanks() -> None:
    lp = _log_softmax(np.random.default_rng(0).standard_normal((3, 2, 4)))
    blank = 3
    loss = F.ctc_loss(mg.tensor(lp), mg.tensor([[1], [2]]), [3, 2], [0, 0], blank, "none")
    expected = [-lp[:3, 0, blank].sum(), -lp[:2, 1, blank].sum()]
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-12)


def test_empty_targets_of_a_single_step_input() -> None:
    lp = _log_softmax(np.random.default_rng(1).standard_normal((1, 1, 4)))
    loss = F.ctc_loss(mg.tensor(lp), mg.tensor([[2]]), [1], [0], blank=3, reduction="sum")
    np.testing.assert_allclose(loss.item(), -lp[0, 0, 3], rtol=1e-12)


def _impossible_case(zero_infinity: bool) -> tuple:
    lp = mg.tensor(_log_softmax(np.random.default_rng(2).standard_normal((4, 2, 3))),
                   requires_grad=True)  # fmt: skip
    # sequence 0: 4 repeated labels need 7 steps but has 3; sequence 1 is feasible
    loss = F.ctc_loss(lp, mg.tensor([[1, 1, 1, 1], [2, 2, 0, 0]]), [3, 4], [4, 2],
                      reduction="none", zero_infinity=zero_infinity)  # fmt: skip
    return lp, loss


def test_impossible_alignment_has_an_infinite_loss_and_a_nan_gradient_on_its_steps() -> None:
    lp, loss = _impossible_case(zero_infinity=False)
    assert np.isinf(loss[0].item()) and np.isfinite(loss[1].item())
    loss.sum().backward()
    g = lp.grad.numpy()
    assert np.isnan(g[:3, 0]).all()  # the steps within sequence 0's input length
    assert (g[3, 0] == 0).all()  # past its input length
    assert np.isfinite(g[:, 1]).all()  # the feasible sequence is untouched


def test_zero_infinity_zeroes_the_loss_and_gradient_of_an_impossible_alignment() -> None:
    lp, loss = _impossible_case(zero_infinity=True)
    assert loss[0].item() == 0.0
    loss.sum().backward()
    assert (lp.grad.numpy()[:, 0] == 0).all()
    assert np.isfinite(lp.grad.numpy()).all()
