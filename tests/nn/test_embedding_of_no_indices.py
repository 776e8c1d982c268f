"""An embedding lookup of no indices is an empty tensor whose backward gives the table a zero
gradient (the row count of the gradient's reshape was inferred from 0 elements and raised)."""

import numpy as np

import minigenesis as mg
import minigenesis.nn.functional as F


def test_backward_through_an_empty_embedding_lookup_gives_a_zero_table_gradient():
    w = mg.randn(5, 4, dtype=mg.float64, requires_grad=True)
    y = F.embedding(mg.zeros(0, 3, dtype=mg.int64), w)
    assert y.shape == (0, 3, 4)
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((5, 4)))
