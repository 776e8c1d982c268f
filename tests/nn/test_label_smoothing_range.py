"""cross_entropy's label_smoothing outside [0, 1], as PyTorch: one that is not positive means no
smoothing (PyTorch smooths only when it is > 0), one above 1 is its RuntimeError, at the call
(CrossEntropyLoss is constructed). NumPy references."""

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
