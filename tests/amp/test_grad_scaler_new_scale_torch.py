"""PyTorch parity for GradScaler.update(new_scale=...): the same scale after a float or a 0-d
tensor, and the same exception type for what PyTorch refuses."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

CASES = {
    "float": lambda T: 2.5,
    "float rounds": lambda T: 1.0000001,
    "numpy float64": lambda T: np.float64(6.0),
    "0-d float64 tensor": lambda T: T.tensor(7.0, dtype=T.float64),
    "0-d int tensor": lambda T: T.tensor(4),
    "2 elements": lambda T: T.ones(2),
    "0 elements": lambda T: T.ones(0),
    "requires_grad": lambda T: T.tensor(2.0, requires_grad=True),
    "shape (1,)": lambda T: T.tensor([4.0]),
    "beyond float32": lambda T: 1e39,
    "int": lambda T: 3,
    "bool": lambda T: False,
    "numpy float32": lambda T: np.float32(2.0),
    "list": lambda T: [2.0],
}


def _outcome(lib, make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scaler = lib.amp.GradScaler("cpu", init_scale=8.0)
    scaler.scale(lib.tensor(1.0))
    try:
        scaler.update(new_scale=make(lib))
    except Exception as err:  # noqa: BLE001  (the exception type is what is compared)
        return type(err), scaler.get_scale()
    return None, scaler.get_scale()


@pytest.mark.parametrize("label", sorted(CASES))
def test_update_new_scale_matches_pytorch(label):
    theirs = _outcome(torch, CASES[label])
    ours = _outcome(mg, CASES[label])
    if theirs[0] is None:
        assert ours == theirs
    else:
        assert ours[0] is not None and issubclass(ours[0], theirs[0])
        assert ours[1] == theirs[1] == 8.0


def test_update_before_scale_and_without_inf_checks_match_pytorch():
    for lib in (torch, mg):
        with pytest.raises(AssertionError):
            lib.amp.GradScaler("cpu").update(new_scale=2.0)
        scaler = lib.amp.GradScaler("cpu")
        scaler.scale(lib.tensor(1.0))
        with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
            scaler.update()


@pytest.mark.parametrize(
    "kwargs", [{"growth_factor": 1.0}, {"growth_factor": 0.5}, {"backoff_factor": 1.0}]
)
def test_constructor_factor_errors_are_pytorchs_assertion_error(kwargs):
    with pytest.raises(AssertionError):
        torch.amp.GradScaler("cpu", **kwargs)
    with pytest.raises(AssertionError, match="factor"):
        mg.amp.GradScaler("cpu", **kwargs)


def test_scale_of_a_number_is_pytorchs_value_error():
    with pytest.raises(ValueError):
        torch.amp.GradScaler("cpu").scale(3)
    with pytest.raises(ValueError, match="expects a Tensor"):
        mg.amp.GradScaler("cpu").scale(3)
