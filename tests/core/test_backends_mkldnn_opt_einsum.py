"""``mg.backends.mkldnn`` and ``mg.backends.opt_einsum``: PyTorch's switches, accepted and
recorded (minigenesis has no oneDNN and picks its own einsum order), with PyTorch's defaults
where the library is absent, ``mkldnn.flags`` restoring the old values, and einsum's result
the same sum of products whatever the switches say."""

from __future__ import annotations

import importlib.util

import numpy as np

import minigenesis as mg


def test_mkldnn_flags_block_restores() -> None:
    assert mg.backends.mkldnn.is_available() is False and mg.backends.mkldnn.enabled is True
    with mg.backends.mkldnn.flags(enabled=False, deterministic=True):
        assert mg.backends.mkldnn.enabled is False and mg.backends.mkldnn.deterministic is True
    assert mg.backends.mkldnn.enabled is True and mg.backends.mkldnn.deterministic is False


def test_opt_einsum_defaults_follow_the_package() -> None:
    here = importlib.util.find_spec("opt_einsum") is not None
    assert mg.backends.opt_einsum.is_available() is here
    assert mg.backends.opt_einsum.enabled is here
    assert mg.backends.opt_einsum.strategy == ("auto" if here else None)
    assert (mg.backends.opt_einsum.get_opt_einsum() is None) is not here


def test_einsum_result_does_not_depend_on_the_switch() -> None:
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(s) for s in ((3, 4), (4, 5), (5, 2)))
    saved = mg.backends.opt_einsum.enabled
    try:
        for enabled in (True, False):
            mg.backends.opt_einsum.enabled = enabled
            out = mg.einsum("ij,jk,kl->il", *(mg.tensor(m) for m in (a, b, c)))
            np.testing.assert_allclose(out.numpy(), a @ b @ c, rtol=1e-12)
    finally:
        mg.backends.opt_einsum.enabled = saved
