"""nn.utils.fusion: an eval-mode BatchNorm folded into the convolution or linear layer before it
computes what the two layers compute (NumPy's float64 closed form of conv -> bn), with PyTorch's
fused tensors for the same inputs."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.nn.utils import fusion

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)


def _bn(num_features, cls=mg.nn.BatchNorm2d, affine=True):
    bn = cls(num_features, eps=1e-3, affine=affine).double()
    bn.running_mean.copy_(mg.tensor(RNG.standard_normal(num_features)))
    bn.running_var.copy_(mg.tensor(RNG.uniform(0.5, 2.0, num_features)))
    if affine:
        bn.weight.data.copy_(mg.tensor(RNG.standard_normal(num_features)))
        bn.bias.data.copy_(mg.tensor(RNG.standard_normal(num_features)))
    return bn.eval()


def _bn_closed_form(z, bn, channel_axis=1):
    shape = [1] * z.ndim
    shape[channel_axis] = -1
    mean, var = bn.running_mean.numpy().reshape(shape), bn.running_var.numpy().reshape(shape)
    gamma = bn.weight.detach().numpy().reshape(shape) if bn.affine else 1.0
    beta = bn.bias.detach().numpy().reshape(shape) if bn.affine else 0.0
    return (z - mean) / np.sqrt(var + bn.eps) * gamma + beta


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_fused_conv_output_equals_conv_then_batchnorm(bias, affine):
    conv = mg.nn.Conv2d(3, 4, 3, padding=1, bias=bias).double().eval()
    bn = _bn(4, affine=affine)
    x = mg.tensor(RNG.standard_normal((2, 3, 5, 5)))
    z = conv(x).detach().numpy()  # (the unfused conv's output; bn's closed form on top)
    fused = fusion.fuse_conv_bn_eval(conv, bn)
    np.testing.assert_allclose(fused(x).detach().numpy(), _bn_closed_form(z, bn), atol=1e-12)
    assert fused is not conv and fused.bias is not None and fused.bias.shape == (4,)
    assert fused.weight.requires_grad and fused.bias.requires_grad == bias
    np.testing.assert_allclose(conv(x).detach().numpy(), z)  # conv itself untouched


def test_fused_transposed_conv_scales_the_output_channels_of_dim_one():
    conv = mg.nn.ConvTranspose2d(3, 4, 3, stride=2).double().eval()
    bn = _bn(4)
    x = mg.tensor(RNG.standard_normal((2, 3, 4, 4)))
    z = conv(x).detach().numpy()
    fused = fusion.fuse_conv_bn_eval(conv, bn, transpose=True)
    np.testing.assert_allclose(fused(x).detach().numpy(), _bn_closed_form(z, bn), atol=1e-12)


@pytest.mark.parametrize("num_features", [5, 1])
def test_fused_linear_output_equals_linear_then_batchnorm(num_features):
    linear = mg.nn.Linear(3, 5).double().eval()
    bn = _bn(num_features, cls=mg.nn.BatchNorm1d)
    x = mg.tensor(RNG.standard_normal((6, 3)))
    z = linear(x).detach().numpy()
    fused = fusion.fuse_linear_bn_eval(linear, bn)
    expected = _bn_closed_form(z, bn, channel_axis=1) if num_features == 5 else None
    if num_features == 1:  # one shared channel: the same affine map on every output
        expected = _bn_closed_form(z.reshape(-1, 1), bn).reshape(z.shape)
    np.testing.assert_allclose(fused(x).detach().numpy(), expected, atol=1e-12)
    assert fused.weight.shape == (5, 3) and fused.bias.shape == (5,)


def test_fusion_refuses_training_mode_and_mismatched_features():
    conv, bn = mg.nn.Conv2d(3, 4, 1), mg.nn.BatchNorm2d(4)
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        fusion.fuse_conv_bn_eval(conv, bn.eval())
    with pytest.raises(AssertionError, match="out_features == bn.num_features"):
        fusion.fuse_linear_bn_eval(mg.nn.Linear(3, 5).eval(), mg.nn.BatchNorm1d(4).eval())
    bn = mg.nn.BatchNorm2d(4, track_running_stats=False).eval()
    with pytest.raises(AssertionError, match="running_mean"):
        fusion.fuse_conv_bn_eval(conv.eval(), bn)


def test_fused_weights_match_pytorch_and_keep_dtypes():
    b = RNG.standard_normal(4)
    rm, rv = RNG.standard_normal(4), RNG.uniform(0.5, 2, 4)
    gamma, beta = RNG.standard_normal(4), RNG.standard_normal(4)
    for transpose in (False, True):
        w = RNG.standard_normal((3, 4, 2, 2) if transpose else (4, 3, 2, 2))
        ours = mg.nn.utils.fuse_conv_bn_weights(
            *(mg.tensor(a) for a in (w, b, rm, rv)), 1e-5, mg.tensor(gamma), mg.tensor(beta),
            transpose,
        )  # fmt: skip
        theirs = torch.nn.utils.fusion.fuse_conv_bn_weights(
            *(torch.tensor(a) for a in (w, b, rm, rv)), 1e-5, torch.tensor(gamma),
            torch.tensor(beta), transpose,
        )  # fmt: skip
        for o, t in zip(ours, theirs):
            assert isinstance(o, mg.nn.Parameter)
            np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-12)
    lw = mg.tensor(RNG.standard_normal((4, 3)), dtype=mg.float32)
    fw, fb = mg.nn.utils.fuse_linear_bn_weights(
        lw, None, mg.tensor(rm), mg.tensor(rv), 1e-5, mg.tensor(gamma), mg.tensor(beta)
    )
    assert fw.dtype == mg.float32 and fb.dtype == mg.float32 and not fb.requires_grad
    tw, tb = torch.nn.utils.fusion.fuse_linear_bn_weights(
        torch.tensor(lw.numpy()), None, *(torch.tensor(a) for a in (rm, rv)), 1e-5,
        torch.tensor(gamma), torch.tensor(beta),
    )  # fmt: skip
    np.testing.assert_allclose(fw.detach().numpy(), tw.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(fb.detach().numpy(), tb.detach().numpy(), rtol=1e-6)
