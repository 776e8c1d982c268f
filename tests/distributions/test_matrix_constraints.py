"""The matrix constraints ``square``, ``symmetric``, ``positive_semidefinite`` and
``lower_triangular``: one boolean per matrix of a batch, decided by their definitions (shape,
transpose within 1e-6, eigenvalues >= 0 from NumPy, zeros above the diagonal)."""

from __future__ import annotations

import numpy as np

import minigenesis as mg
from minigenesis.distributions import constraints as C


def _batch():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    psd_singular = np.diag([2.0, 0.0, 1.0])  # eigenvalues exactly 2, 0, 1
    indefinite = np.diag([1.0, -1.0, 2.0])
    return np.stack([psd_singular, indefinite, a, np.tril(a)])


def test_square_is_one_answer_per_matrix_from_the_shape():
    assert C.square.check(mg.zeros(2, 3, 3)).tolist() == [True, True]
    assert C.square.check(mg.zeros(2, 3, 4)).tolist() == [False, False]
    assert C.square.event_dim == 2


def test_symmetric_and_positive_semidefinite_follow_their_definitions():
    m = _batch()
    x = mg.tensor(m, dtype=mg.float64)
    want_sym = [np.allclose(k, k.T, atol=1e-6) for k in m]
    assert C.symmetric.check(x).tolist() == want_sym == [True, True, False, False]
    psd = C.positive_semidefinite.check(x[:2])
    assert psd.tolist() == [bool(np.linalg.eigvalsh(k).min() >= 0) for k in m[:2]]
    assert psd.tolist() == [True, False]
    assert not C.positive_definite.check(x[:1]).item()  # singular: semidefinite only
    # a batch that is not symmetric answers with the symmetry check
    assert C.positive_semidefinite.check(x).tolist() == want_sym


def test_lower_triangular_needs_zeros_above_the_diagonal_only():
    m = _batch()
    got = C.lower_triangular.check(mg.tensor(m)).tolist()
    assert got == [bool((np.triu(k, 1) == 0).all()) for k in m] == [True, True, False, True]
