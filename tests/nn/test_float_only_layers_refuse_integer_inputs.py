"""The smooth and sloped activations, the normalizations and the adaptive means are computed in
floating point only: an integer or bool input raises NotImplementedError, as PyTorch's kernels
do, instead of a result truncated to ints (gelu([-2, -1, 0, 1, 2]) came out [0, 0, 0, 0, 1],
elu(-2) as 0). Float inputs still give the formula's values (NumPy oracle)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

CALLS = {
    "leaky_relu": lambda x: F.leaky_relu(x),
    "gelu": lambda x: F.gelu(x),
    "softplus": lambda x: F.softplus(x),
    "elu": lambda x: F.elu(x),
    "selu": lambda x: F.selu(x),
    "celu": lambda x: F.celu(x),
    "prelu": lambda x: F.prelu(x, mg.ones(1, dtype=x.dtype)),
    "mish": lambda x: F.mish(x),
    "logsigmoid": lambda x: F.logsigmoid(x),
    "hardswish": lambda x: F.hardswish(x),
    "glu": lambda x: F.glu(x),
    "softshrink": lambda x: F.softshrink(x),
    "hardshrink": lambda x: F.hardshrink(x),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_activation_of_an_integer_input_raises_not_implemented(name, dtype):
    x = mg.ones(2, 4, dtype=getattr(mg, dtype))
    with pytest.raises(NotImplementedError, match="not implemented for"):
        CALLS[name](x)


def test_modules_refuse_integer_inputs_too():
    with pytest.raises(NotImplementedError):
        mg.nn.GELU()(mg.tensor([-2, -1, 0, 1, 2]))
    with pytest.raises(NotImplementedError):
        mg.nn.ELU()(mg.tensor([-2, -1, 0, 1, 2]))


def test_float_inputs_keep_the_formulas():
    v = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    x = mg.tensor(v)
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(F.gelu(x).numpy(), v * 0.5 * (1 + erf(v / math.sqrt(2))), 1e-12)
    np.testing.assert_allclose(F.elu(x).numpy(), np.where(v > 0, v, np.expm1(v)), rtol=1e-12)
    np.testing.assert_allclose(F.leaky_relu(x).numpy(), np.where(v > 0, v, 0.01 * v), 1e-12)


NORMS_AND_MEANS = {
    "batch_norm": lambda x: F.batch_norm(x, None, None, training=True),
    "instance_norm": lambda x: F.instance_norm(x),
    "group_norm": lambda x: F.group_norm(x, 1),
    "layer_norm": lambda x: F.layer_norm(x, (4,)),
    "adaptive_avg_pool1d": lambda x: F.adaptive_avg_pool1d(x, 2),
    "adaptive_avg_pool2d": lambda x: F.adaptive_avg_pool2d(x.unsqueeze(0), 2),
}


@pytest.mark.parametrize("name", sorted(NORMS_AND_MEANS))
@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool"])
def test_normalizations_and_adaptive_means_refuse_integer_inputs(name, dtype):
    # (batch_norm of integers came out all 0, adaptive_avg_pool1d's means truncated to 0)
    x = mg.ones(2, 3, 4, dtype=getattr(mg, dtype))
    with pytest.raises(NotImplementedError, match="not implemented for"):
        NORMS_AND_MEANS[name](x)


DROPOUTS = ["dropout", "dropout1d", "dropout2d", "alpha_dropout", "feature_alpha_dropout"]


@pytest.mark.parametrize("name", DROPOUTS)
def test_dropout_in_training_refuses_to_scale_an_integer_tensor(name):
    # the kept elements, 5 / 0.7, would be truncated (dropout returned 5 for them)
    x = mg.full((2, 3, 8), 5, dtype=mg.int64)
    with pytest.raises(RuntimeError, match="can't be cast"):
        getattr(F, name)(x, 0.3, training=True)


@pytest.mark.parametrize("name", DROPOUTS)
def test_dropout_of_an_integer_tensor_is_the_identity_in_eval_and_zero_at_p_one(name):
    x = mg.full((2, 3, 8), 5, dtype=mg.int64)
    np.testing.assert_array_equal(getattr(F, name)(x, 0.3, training=False).numpy(), x.numpy())
    if name in ("dropout", "dropout1d", "dropout2d"):
        np.testing.assert_array_equal(getattr(F, name)(x, 1.0, training=True).numpy(), 0)
