"""fuse_linear_bn_eval without a linear bias or without BatchNorm's affine, against NumPy."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.nn.utils import fusion


def _eval_pair(out_features: int, bn_features: int, bias: bool, affine: bool):
    rng = np.random.default_rng(0)
    lin = nn.Linear(4, out_features, bias=bias).double().eval()
    bn = nn.BatchNorm1d(bn_features, affine=affine).double().eval()
    with mg.no_grad():
        bn.running_mean.copy_(mg.tensor(rng.standard_normal(bn_features)))
        bn.running_var.copy_(mg.tensor(rng.random(bn_features) + 0.5))
        if affine:
            bn.weight.copy_(mg.tensor(rng.standard_normal(bn_features)))
            bn.bias.copy_(mg.tensor(rng.standard_normal(bn_features)))
    return lin, bn, rng.standard_normal((3, 4))


def _numpy_bn_of_linear(lin, bn, x: np.ndarray) -> np.ndarray:
    z = x @ lin.weight.detach().numpy().T
    if lin.bias is not None:
        z = z + lin.bias.detach().numpy()
    mean, var = bn.running_mean.numpy(), bn.running_var.numpy()
    y = (z - mean) / np.sqrt(var + bn.eps)
    if bn.weight is not None:
        y = y * bn.weight.detach().numpy() + bn.bias.detach().numpy()
    return y


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("bn_features", [6, 1])
def test_fused_linear_computes_batchnorm_of_linear(bias, affine, bn_features):
    lin, bn, x = _eval_pair(6, bn_features, bias, affine)
    fused = fusion.fuse_linear_bn_eval(lin, bn)
    got = fused(mg.tensor(x)).detach().numpy()
    np.testing.assert_allclose(got, _numpy_bn_of_linear(lin, bn, x), rtol=1e-12, atol=1e-12)
