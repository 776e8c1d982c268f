"""GradScaler with sparse gradients (``Embedding(sparse=True)``): ``unscale_`` divides the
stored values by the scale and checks them for inf/NaN, as PyTorch does. Oracle: the closed
form of one SGD step on sum(embedding(ids)) (each looked-up row's gradient is its count)."""

from __future__ import annotations

import numpy as np

import minigenesis as mg


def _setup(scale: float = 1024.0):
    mg.manual_seed(0)
    emb = mg.nn.Embedding(5, 2, sparse=True)
    opt = mg.optim.SGD(emb.parameters(), lr=0.1)
    return emb, opt, mg.amp.GradScaler("cpu", init_scale=scale)


def test_unscale_divides_the_values_of_a_sparse_gradient():
    emb, opt, scaler = _setup()
    scaler.scale(emb(mg.tensor([1, 1, 3])).sum()).backward()
    scaler.unscale_(opt)
    want = np.zeros((5, 2))
    want[1], want[3] = 2.0, 1.0
    np.testing.assert_array_equal(emb.weight.grad.to_dense().numpy(), want)


def test_a_step_with_sparse_gradients_takes_the_unscaled_sgd_step():
    emb, opt, scaler = _setup()
    w0 = emb.weight.detach().numpy().copy()
    scaler.scale(emb(mg.tensor([1, 1, 3])).sum()).backward()
    scaler.step(opt)
    scaler.update()
    want = w0.copy()
    want[1] -= 0.1 * 2.0
    want[3] -= 0.1 * 1.0
    np.testing.assert_allclose(emb.weight.detach().numpy(), want, rtol=1e-6)
    assert scaler.get_scale() == 1024.0


def test_an_inf_in_a_sparse_gradient_skips_the_step_and_backs_off():
    emb, opt, scaler = _setup(scale=1e38)  # each row's gradient 4 * 1e38 overflows float32
    w0 = emb.weight.detach().numpy().copy()
    scaler.scale((emb(mg.tensor([1, 3])) * 4.0).sum()).backward()
    scaler.step(opt)
    scaler.update()
    np.testing.assert_array_equal(emb.weight.detach().numpy(), w0)
    assert scaler.get_scale() == float(np.float32(1e38) * np.float32(0.5))
