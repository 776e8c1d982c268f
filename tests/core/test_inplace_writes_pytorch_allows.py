"""Writes in place that PyTorch allows between forward and backward, because the op saved no
tensor it would read: the gradient stays the closed form of the values at forward time."""

import math

import numpy as np
import pytest

import minigenesis as mg

A = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]])


def test_erfinv_output_written_in_place():
    x = mg.tensor(A, requires_grad=True)
    y = x.erfinv()
    want = math.sqrt(math.pi) / 2 * np.exp(y.detach().numpy() ** 2)
    y.add_(1)  # erfinv saves its input, not its output
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)


def test_erfinv_second_derivative_through_the_recomputed_output():
    x = mg.tensor([0.3, -0.5], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(x.erfinv().sum(), x, create_graph=True)
    (g2,) = mg.autograd.grad(g.sum(), x)
    y = x.detach().erfinv().numpy()
    d1 = math.sqrt(math.pi) / 2 * np.exp(y**2)
    np.testing.assert_allclose(g2.numpy(), d1 * 2 * y * d1, rtol=1e-10)  # d/dx e^(y^2) = 2y y'


def test_linear_input_written_in_place_when_the_weight_is_frozen():
    x = mg.tensor(A, requires_grad=True)
    h = x * 1
    w = mg.ones(4, 3, dtype=mg.float64)  # no gradient wanted: h need not be kept
    out = mg.nn.functional.linear(h, w)
    h.mul_(2)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(A.shape, 4.0))


def test_einsum_operand_written_in_place_when_no_other_operand_needs_it():
    x = mg.tensor(A, requires_grad=True)
    h = x * 1
    out = mg.einsum("ij,ij->i", h, mg.full(A.shape, 3.0, dtype=mg.float64))
    h.mul_(2)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(A.shape, 3.0))


def test_writing_into_a_norm_that_backward_reads_is_refused_not_read():
    # the norm's backward reads the output: a write into it must raise (as PyTorch), where the
    # keepdims array under the output used to be read silently, with the written values
    for keepdim in (False, True):
        x = mg.tensor(A, requires_grad=True)
        n = x.norm(dim=1, keepdim=keepdim)
        n.add_(0.5)
        with pytest.raises(RuntimeError, match="modified by an in-place operation"):
            n.sum().backward()
    x = mg.tensor(A, requires_grad=True)
    n = x.norm(dim=1)
    n.sum().backward()  # untouched: x / ||x|| per row
    np.testing.assert_allclose(x.grad.numpy(), A / np.linalg.norm(A, axis=1, keepdims=True))
