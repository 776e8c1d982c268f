"""Hyperparameters PyTorch accepts outside their usual range, with its results: a label_smoothing
that is not positive means no smoothing (PyTorch smooths only when it is > 0; above 1 is its
RuntimeError, at the call), and a BatchNorm momentum outside [0, 1] still updates the running
statistics as (1 - m) r + m x. NumPy references."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn

X = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]])
T = np.array([0, 2])


def _nll(x: np.ndarray, t: np.ndarray) -> np.ndarray:
    logp = x - x.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    return -logp[np.arange(len(t)), t]


@pytest.mark.parametrize("amount", [-0.1, -2.0, float("nan")])
def test_label_smoothing_that_is_not_positive_means_none(amount):
    x, t = mg.tensor(X), mg.tensor(T)
    got = F.cross_entropy(x, t, label_smoothing=amount, reduction="none")
    np.testing.assert_allclose(np.asarray(got.tolist()), _nll(X, T), rtol=1e-12)
    layer = nn.CrossEntropyLoss(label_smoothing=amount)  # constructed, as in PyTorch
    assert layer(x, t).item() == pytest.approx(_nll(X, T).mean(), rel=1e-12)


def test_label_smoothing_above_one_is_refused_at_the_call():
    layer = nn.CrossEntropyLoss(label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="label_smoothing"):
        layer(mg.tensor(X), mg.tensor(T))


@pytest.mark.parametrize("momentum", [-0.1, 1.5])
def test_batch_norm_momentum_outside_unit_interval_updates_running_stats(momentum):
    x = np.arange(12.0).reshape(4, 3) ** 1.5
    bn = nn.BatchNorm1d(3, momentum=momentum).double()
    bn(mg.tensor(x))
    mean = (1 - momentum) * 0.0 + momentum * x.mean(0)
    var = (1 - momentum) * 1.0 + momentum * x.var(0, ddof=1)
    np.testing.assert_allclose(np.asarray(bn.running_mean.tolist()), mean, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(bn.running_var.tolist()), var, rtol=1e-12)
