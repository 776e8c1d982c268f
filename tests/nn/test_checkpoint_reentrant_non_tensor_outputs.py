"""A reentrant checkpoint (``use_reentrant=True``) whose function returns a tuple with items that
are not Tensors (numbers, None, a list): as in PyTorch those items come back as they are, in
their places, and the Tensor items carry gradients. The grads here are closed forms."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.utils.checkpoint import checkpoint


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_passes_non_tensor_items_of_a_tuple_through(reentrant):
    x = mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, requires_grad=True)

    def f(x, scale):
        return x.sin() * scale, 3, None, "tag", x.exp()

    a, three, none, tag, b = checkpoint(f, x, 2.0, use_reentrant=reentrant)
    assert (three, none, tag) == (3, None, "tag")
    assert a.requires_grad and b.requires_grad
    (a.sum() + 3 * b.sum()).backward()
    xs = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(xs) + 3 * np.exp(xs), rtol=1e-12)


def test_reentrant_checkpoint_with_an_unused_tensor_output_and_a_module_input():
    lin = mg.nn.Linear(3, 2).double()
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)

    def f(x):
        return lin(x), 7, (x * 2).sum()

    y, seven, unused = checkpoint(f, x, use_reentrant=True)
    assert seven == 7
    y.sum().backward()  # the third output takes no part: its gradient is None
    w = lin.weight.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.tile(w.sum(0), (2, 1)), rtol=1e-12)
    np.testing.assert_allclose(
        lin.weight.grad.numpy(), np.tile(np.arange(6.0).reshape(2, 3).sum(0), (2, 1))
    )
