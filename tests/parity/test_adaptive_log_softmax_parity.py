"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch with the same weights: forward's output and
loss, log_prob, predict (rows whose head prefers the shortlist, a cluster, and a mix) and the
gradients of the loss to the input and every parameter, in float64."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigenesis as mg  # noqa: E402


def _pair(in_features, n_classes, cutoffs, **kw):
    torch.manual_seed(0)
    with warnings.catch_warnings():  # PyTorch warns that initialising a 0-wide layer is a no-op
        warnings.simplefilter("ignore")
        theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, **kw)
    theirs = theirs.double()
    ours = mg.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, **kw).double()
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    ours.load_state_dict({k: mg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize(
    "in_features,n_classes,cutoffs,kw",
    [(8, 10, [3, 6], {"div_value": 2.0}), (6, 20, [5], {"head_bias": True}), (3, 7, [1, 2, 4], {})],
)
def test_adaptive_log_softmax_matches_pytorch(in_features, n_classes, cutoffs, kw):
    ours, theirs = _pair(in_features, n_classes, cutoffs, **kw)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((9, in_features)) * 3
    target = rng.integers(0, n_classes, 9)
    xt, xm = torch.tensor(x, requires_grad=True), mg.tensor(x, requires_grad=True)
    a, b = theirs(xt, torch.tensor(target)), ours(xm, mg.tensor(target))
    np.testing.assert_allclose(b.output.detach().numpy(), a.output.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.loss.item(), a.loss.item(), rtol=1e-12)
    a.loss.backward()
    b.loss.backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), atol=1e-12)
    grads = dict(ours.named_parameters())
    for name, p in theirs.named_parameters():  # a cluster no target falls in: None in both
        assert (grads[name].grad is None) == (p.grad is None), name
        if p.grad is not None:
            np.testing.assert_allclose(grads[name].grad.numpy(), p.grad.numpy(), atol=1e-12)
    with torch.no_grad():
        lp = theirs.log_prob(torch.tensor(x)).numpy()
        pred = theirs.predict(torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours.log_prob(mg.tensor(x)).detach().numpy(), lp, rtol=1e-12)
    np.testing.assert_array_equal(ours.predict(mg.tensor(x)).numpy(), pred)
    np.testing.assert_array_equal(pred, lp.argmax(1))
