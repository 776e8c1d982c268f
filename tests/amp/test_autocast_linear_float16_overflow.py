"""Under float16 autocast on the CPU, linear's weight and bias gradients pass through float16 (as
PyTorch computes them there): values past float16's range (65504) become inf, so that GradScaler
finds the overflow and skips the step. NumPy's float16 rounding is the oracle."""

import numpy as np

import minigenesis as mg


def _linear_grads(low, x, w, b, g):
    wt = mg.tensor(w, dtype=mg.float32, requires_grad=True)
    bt = mg.tensor(b, dtype=mg.float32, requires_grad=True)
    with mg.autocast("cpu", dtype=low):
        y = mg.nn.functional.linear(mg.tensor(x, dtype=mg.float32), wt, bt)
    y.backward(mg.tensor(g, dtype=low))
    return wt.grad.numpy(), bt.grad.numpy()


def _oracle(x, w, g):
    """dL/dW = g^T round16(x), dL/db = column sums of g, each rounded to float16 once."""
    x16 = x.astype(np.float16).astype(np.float32)
    g32 = g.astype(np.float16).astype(np.float32)
    with np.errstate(over="ignore"):
        gw = (g32.T @ x16).astype(np.float16).astype(np.float32)
        gb = g32.sum(0).astype(np.float16).astype(np.float32)
    return gw, gb


def test_float16_autocast_linear_grads_overflow_to_inf_past_float16_range():
    x = np.full((6, 4), 2.0)
    w, b = np.ones((3, 4)), np.zeros(3)
    g = np.full((6, 3), 11000.0)  # 6 rows of 11000: 66000 > 65504
    gw, gb = _linear_grads(mg.float16, x, w, b, g)
    ow, ob = _oracle(x, w, g)
    assert np.isinf(ob).all() and np.isinf(ow).all()
    np.testing.assert_array_equal(gb, ob)
    np.testing.assert_array_equal(gw, ow)


def test_float16_autocast_linear_grads_in_range_are_float16_rounded():
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((5, 7)), rng.standard_normal((3, 7)), rng.standard_normal(3)
    g = rng.standard_normal((5, 3)) * 100
    gw, gb = _linear_grads(mg.float16, x, w, b, g)
    ow, ob = _oracle(x, w, g)
    np.testing.assert_allclose(gw, ow, rtol=1e-3)  # float32 products summed in another order
    np.testing.assert_allclose(gb, ob, rtol=1e-3)
    assert np.array_equal(gb.astype(np.float16).astype(np.float32), gb)  # float16 values


def test_bfloat16_autocast_linear_grads_stay_finite_at_the_same_values():
    x = np.full((6, 4), 2.0)
    gw, gb = _linear_grads(mg.bfloat16, x, np.ones((3, 4)), np.zeros(3), np.full((6, 3), 11000.0))
    np.testing.assert_allclose(gb, np.full(3, 66000.0), rtol=1e-2)
    np.testing.assert_allclose(gw, np.full((3, 4), 132000.0), rtol=1e-2)


def test_grad_scaler_skips_the_step_and_backs_off_when_a_float16_linear_grad_overflows():
    lin = mg.nn.Linear(4, 3)
    with mg.no_grad():
        lin.weight.fill_(0.01)
        lin.bias.zero_()
    before = [p.detach().clone().numpy() for p in lin.parameters()]
    opt = mg.optim.SGD(lin.parameters(), lr=0.1)
    scaler = mg.amp.GradScaler("cpu", init_scale=2.0**14)
    x = mg.ones(6, 4)
    with mg.autocast("cpu", dtype=mg.float16):
        # dL/dy = 2**14 fits float16; dL/db = 6 * 2**14 = 98304 does not (65504)
        loss = lin(x).float().sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 2.0**13  # backoff_factor 0.5
    for p, p0 in zip(lin.parameters(), before):
        np.testing.assert_array_equal(p.detach().numpy(), p0)  # the step was skipped
