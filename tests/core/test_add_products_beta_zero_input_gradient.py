"""addmm / baddbmm / addmv / addbmm / addr with beta = 0: the output is alpha * product and the
input x is never read (a NaN in x does not leak through 0 * NaN), yet x is still an input of the
graph: its gradient is beta * dL/dout = a zero tensor of x's shape and dtype, not None, as in
PyTorch (an optimizer with weight decay or momentum steps a parameter whose grad is zeros)."""

import numpy as np
import pytest

import minigenesis as mg

CASES = {
    "addmm": ((2, 3), lambda x, a, b: mg.addmm(x, a, b.T, beta=0, alpha=2), (2, 4), (3, 4)),
    "baddbmm": ((3,), lambda x, a, b: mg.baddbmm(x, a[None], b.T[None], beta=0), (2, 4), (3, 4)),
    "addmv": ((2,), lambda x, a, b: mg.addmv(x, a, b[0], beta=0, alpha=0.5), (2, 4), (3, 4)),
    "addbmm": ((1, 3), lambda x, a, b: mg.addbmm(x, a[None], b.T[None], beta=0), (2, 4), (3, 4)),
    "addr": ((3,), lambda x, a, b: mg.addr(x, a[:, 0], b[:, 0], beta=0), (2, 4), (3, 4)),
}


@pytest.mark.parametrize("dtype", [mg.float32, mg.float16, mg.bfloat16, mg.float64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_beta_zero_input_gets_a_zero_gradient_and_is_not_read(name, dtype):
    xshape, fn, ashape, bshape = CASES[name]
    rng = np.random.default_rng(0)
    a64, b64 = rng.uniform(-1, 1, ashape), rng.uniform(-1, 1, bshape)
    x = mg.full(xshape, float("nan"), dtype=dtype, requires_grad=True)
    a = mg.tensor(a64, dtype=dtype, requires_grad=True)
    b = mg.tensor(b64, dtype=dtype)
    out = fn(x, a, b)
    # the float64 truth of the product part (x contributes 0 and is not read)
    truth = fn(mg.zeros(xshape, dtype=mg.float64), mg.tensor(a64).to(dtype).double(),
               mg.tensor(b64).to(dtype).double())  # fmt: skip
    assert out.dtype == dtype
    assert not np.isnan(out.detach().double().numpy()).any()
    np.testing.assert_allclose(out.detach().double().numpy(), truth.numpy(), rtol=1e-2, atol=1e-2)
    out.sum().backward()
    assert x.grad is not None
    assert x.grad.dtype == dtype and tuple(x.grad.shape) == xshape
    assert (x.grad.double().numpy() == 0).all()
    assert a.grad is not None  # the product's operands are unaffected


def test_beta_zero_without_grad_still_skips_input():
    x = mg.full((2, 2), float("inf"))
    out = mg.addmm(x, mg.ones(2, 3), mg.ones(3, 2), beta=0)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 2), 3.0))
