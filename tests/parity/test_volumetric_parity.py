"""PyTorch parity: conv3d, conv_transpose3d, avg_pool3d, max_pool3d (values, indices) and
max_unpool1d/2d/3d, and their layers: values and gradients in float64."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _both(fn_mg, fn_torch, shapes, kwargs, seed=0, ints=False):
    """Run both on the same float64 inputs; compare the output and every input's gradient."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).round(1 if ints else 8) for s in shapes]
    m = [mg.tensor(a, requires_grad=True) for a in arrays]
    t = [torch.tensor(a, requires_grad=True) for a in arrays]
    ym, yt = fn_mg(*m, **kwargs), fn_torch(*t, **kwargs)
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = rng.standard_normal(tuple(yt.shape))
    (ym * mg.tensor(g)).sum().backward()
    (yt * torch.tensor(g)).sum().backward()
    for a, b in zip(m, t):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize(
    "shapes,kwargs",
    [
        (((2, 4, 5, 6, 7), (6, 2, 2, 3, 2), (6,)), dict(stride=(1, 2, 1), padding=(1, 0, 1),
                                                      dilation=(1, 1, 2), groups=2)),
        (((3, 5, 5, 5), (2, 3, 2, 3, 2), (2,)), dict(padding="same")),
        (((1, 2, 4, 4, 4), (3, 2, 1, 1, 1), (3,)), dict(padding="valid", stride=2)),
    ],
)  # fmt: skip
def test_conv3d_matches_pytorch(shapes, kwargs):
    _both(F.conv3d, TF.conv3d, shapes, kwargs)


@pytest.mark.parametrize(
    "shapes,kwargs",
    [
        (((2, 4, 3, 4, 2), (4, 3, 2, 3, 2), (6,)), dict(stride=(2, 1, 3), padding=(1, 0, 1),
                                                      output_padding=(1, 0, 2), dilation=(1, 2, 1),
                                                      groups=2)),
        (((2, 3, 3, 3), (2, 1, 3, 3, 3), (1,)), dict(stride=2, padding=1, output_padding=1)),
    ],
)  # fmt: skip
def test_conv_transpose3d_matches_pytorch(shapes, kwargs):
    _both(F.conv_transpose3d, TF.conv_transpose3d, shapes, kwargs)


@pytest.mark.parametrize(
    "shape,kwargs",
    [
        ((2, 3, 5, 6, 7), dict(kernel_size=2)),
        ((2, 3, 5, 6, 7), dict(kernel_size=(3, 2, 3), stride=(2, 1, 2), padding=(1, 0, 1),
                               ceil_mode=True)),
        ((3, 5, 5, 5), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False,
                            ceil_mode=True)),
        ((1, 2, 4, 5, 6), dict(kernel_size=3, stride=2, padding=1, divisor_override=5)),
    ],
)  # fmt: skip
def test_avg_pool3d_matches_pytorch(shape, kwargs):
    _both(F.avg_pool3d, TF.avg_pool3d, (shape,), kwargs)


@pytest.mark.parametrize(
    "shape,kwargs",
    [
        ((2, 3, 5, 6, 7), dict(kernel_size=2)),
        ((2, 3, 5, 6, 7), dict(kernel_size=(3, 2, 3), stride=(2, 1, 2), padding=(1, 0, 1),
                               ceil_mode=True, dilation=(1, 2, 1))),
        ((3, 5, 5, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ],
)  # fmt: skip
def test_max_pool3d_matches_pytorch_with_ties(shape, kwargs):
    # rounded inputs: many ties, so the pick among equal maxima is compared too
    _both(F.max_pool3d, TF.max_pool3d, (shape,), kwargs, ints=True)
    x = np.random.default_rng(1).standard_normal(shape).round(0)
    _, im = F.max_pool3d(mg.tensor(x), return_indices=True, **kwargs)
    _, it = TF.max_pool3d(torch.tensor(x), return_indices=True, **kwargs)
    np.testing.assert_array_equal(im.numpy(), it.numpy())


def test_integer_pooling_matches_pytorch():
    x = np.arange(2 * 4 * 4 * 4).reshape(1, 2, 4, 4, 4) - 50
    got = F.avg_pool3d(mg.tensor(x), 3, 2, 1)
    np.testing.assert_array_equal(got.numpy(), TF.avg_pool3d(torch.tensor(x), 3, 2, 1))
    for dtype in (np.int64, np.int32, np.int8, np.uint8):
        a = x.astype(dtype)
        got = F.max_pool3d(mg.tensor(a), 3, 2, 1)
        np.testing.assert_array_equal(got.numpy(), TF.max_pool3d(torch.tensor(a), 3, 2, 1))
        assert got.dtype.name == str(TF.max_pool3d(torch.tensor(a), 3, 2, 1).dtype)[6:]


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool_matches_pytorch(dims):
    shape = (2, 3) + (7, 5, 6)[:dims]
    pools = {1: (F.max_pool1d, TF.max_pool1d), 2: (F.max_pool2d, TF.max_pool2d),
             3: (F.max_pool3d, TF.max_pool3d)}  # fmt: skip
    unpools = {1: (F.max_unpool1d, TF.max_unpool1d), 2: (F.max_unpool2d, TF.max_unpool2d),
               3: (F.max_unpool3d, TF.max_unpool3d)}  # fmt: skip
    x = np.random.default_rng(dims).standard_normal(shape)
    vt, it = pools[dims][1](torch.tensor(x), 3, 2, 1, return_indices=True)
    v = vt.detach().numpy()
    size = shape[2:]
    mt = torch.tensor(v, requires_grad=True)
    mm = mg.tensor(v, requires_grad=True)
    yt = unpools[dims][1](mt, it, 3, 2, 1, output_size=size)
    ym = unpools[dims][0](mm, mg.tensor(it.numpy()), 3, 2, 1, output_size=size)
    np.testing.assert_array_equal(ym.detach().numpy(), yt.detach().numpy())
    g = np.random.default_rng(5).standard_normal(shape)
    (yt * torch.tensor(g)).sum().backward()
    (ym * mg.tensor(g)).sum().backward()
    np.testing.assert_array_equal(mm.grad.numpy(), mt.grad.numpy())


def test_3d_layers_with_pytorchs_weights_match_pytorch():
    torch.manual_seed(0)
    for t_mod, m_mod, shape in [
        (torch.nn.Conv3d(2, 4, 3, padding=1, stride=(1, 2, 1)),
         nn.Conv3d(2, 4, 3, padding=1, stride=(1, 2, 1)), (2, 2, 4, 5, 4)),
        (torch.nn.ConvTranspose3d(2, 3, 2, stride=2), nn.ConvTranspose3d(2, 3, 2, stride=2),
         (1, 2, 3, 2, 3)),
        (torch.nn.BatchNorm3d(2), nn.BatchNorm3d(2), (3, 2, 2, 3, 2)),
    ]:  # fmt: skip
        t_mod, m_mod = t_mod.double(), m_mod.double()
        m_mod.load_state_dict({k: mg.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
        assert repr(m_mod) == repr(t_mod).replace("bias=True, ", "") or "BatchNorm" in repr(t_mod)
        x = np.random.default_rng(0).standard_normal(shape)
        np.testing.assert_allclose(
            m_mod(mg.tensor(x)).detach().numpy(),
            t_mod(torch.tensor(x)).detach().numpy(),
            rtol=1e-11,
            atol=1e-12,
        )
    for t_mod, m_mod in [(torch.nn.MaxPool3d(2, 1), nn.MaxPool3d(2, 1)),
                         (torch.nn.AvgPool3d(2), nn.AvgPool3d(2)),
                         (torch.nn.MaxUnpool2d(2), nn.MaxUnpool2d(2)),
                         (torch.nn.MaxUnpool3d(2, 1, 1), nn.MaxUnpool3d(2, 1, 1))]:  # fmt: skip
        assert repr(m_mod) == repr(t_mod)


@pytest.mark.parametrize("out", [(2, 3, None), 2, (3, 2, 2)])
def test_adaptive_pool3d_matches_pytorch(out):
    _both(F.adaptive_avg_pool3d, TF.adaptive_avg_pool3d, ((2, 3, 5, 6, 7),), {"output_size": out})
    _both(F.adaptive_max_pool3d, TF.adaptive_max_pool3d, ((1, 2, 7, 5, 3),), {"output_size": out},
          ints=True)  # fmt: skip
    x = np.random.default_rng(2).standard_normal((3, 4, 5, 6)).round(0)
    _, im = F.adaptive_max_pool3d(mg.tensor(x), out, return_indices=True)
    _, it = TF.adaptive_max_pool3d(torch.tensor(x), out, return_indices=True)
    np.testing.assert_array_equal(im.numpy(), it.numpy())
    assert repr(nn.AdaptiveMaxPool3d(out)) == repr(torch.nn.AdaptiveMaxPool3d(out))
