"""``cat`` skips 1-D empty tensors in its shape check (PyTorch's legacy rule: ``cat([zeros(0),
x], dim=1)`` works for a 2-d x), but they stay inputs of the op: one that requires grad makes
the result require grad, and backward gives it a (0,)-shaped gradient, as PyTorch does. (They
used to be dropped before the op: the result of ``cat([empty_leaf, constant])`` did not require
grad, and ``pad_sequence`` of a batch holding an empty sequence left that sequence's grad None.)
"""

import numpy as np

import minigenesis as mg


def test_cat_result_requires_grad_through_a_skipped_empty_input():
    empty = mg.zeros(0, requires_grad=True)
    y = mg.cat([empty, mg.ones(2)])
    assert y.requires_grad
    (y * mg.tensor([2.0, 3.0])).sum().backward()
    assert empty.grad is not None and tuple(empty.grad.shape) == (0,)


def test_cat_gradients_with_empty_inputs_between_two_dimensional_ones():
    empty = mg.zeros(0, requires_grad=True)
    a = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    b = mg.tensor(np.ones((2, 1)), requires_grad=True)
    y = mg.cat([empty, a, empty, b], dim=1)
    assert tuple(y.shape) == (2, 4)
    w = np.arange(8.0).reshape(2, 4)
    (y * mg.tensor(w)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), w[:, :3])
    np.testing.assert_array_equal(b.grad.numpy(), w[:, 3:])
    assert tuple(empty.grad.shape) == (0,)


def test_cat_of_only_empty_inputs_stays_empty_and_differentiable():
    empty = mg.zeros(0, requires_grad=True)
    y = mg.cat([empty, empty])
    assert tuple(y.shape) == (0,) and y.requires_grad
    y.sum().backward()
    assert tuple(empty.grad.shape) == (0,)


def test_pad_sequence_gives_an_empty_sequence_a_gradient():
    seqs = [mg.zeros(0, requires_grad=True), mg.tensor([1.0, 2.0], requires_grad=True)]
    padded = mg.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=-1.0)
    np.testing.assert_array_equal(padded.detach().numpy(), [[-1.0, -1.0], [1.0, 2.0]])
    (padded * mg.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert tuple(seqs[0].grad.shape) == (0,)
    np.testing.assert_array_equal(seqs[1].grad.numpy(), [3.0, 4.0])
