"""Sizes and dims given as NumPy integers (a shape read off an array, an index from np.argmax)
are ints, as PyTorch reads them through __index__: each call below equals its Python-int form."""

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

X = mg.tensor(np.random.default_rng(0).standard_normal((1, 4, 6, 6)))
W = mg.tensor(np.random.default_rng(1).standard_normal((4, 2, 2, 2)))
CALLS = {
    "max_pool2d": lambda k, two: F.max_pool2d(X, (two, k), stride=two),
    "avg_pool2d": lambda k, two: F.avg_pool2d(X, k, stride=(k, two)),
    "max_pool1d": lambda k, two: F.max_pool1d(X[0], k, stride=two, padding=1),
    "avg_pool3d": lambda k, two: F.avg_pool3d(X[None], (1, k, two), stride=(1, two, two)),
    "max_unpool2d": lambda k, two: F.max_unpool2d(*F.max_pool2d(X, two, return_indices=True), two),
    "lp_pool2d": lambda k, two: F.lp_pool2d(X, 2, (two, k)),
    "unfold": lambda k, two: F.unfold(X, k, dilation=two),
    "fold": lambda k, two: F.fold(F.unfold(X, 2), (6, k + 3), (two, 2)),
    "adaptive_avg_pool2d": lambda k, two: F.adaptive_avg_pool2d(X, (k, two)),
    "adaptive_max_pool2d": lambda k, two: F.adaptive_max_pool2d(X, (k, two)),
    "adaptive_max_pool3d": lambda k, two: F.adaptive_max_pool3d(X, (two, k, two)),
    "conv2d": lambda k, two: F.conv2d(X, W, stride=(two, k), padding=k, groups=two),
    "conv_transpose2d": lambda k, two: F.conv_transpose2d(X, W, stride=two, groups=two),
    "conv3d": lambda k, two: F.conv3d(X[:, :, None], W[:, :, None], stride=two, groups=two),
    "pixel_shuffle": lambda k, two: F.pixel_shuffle(X, two),
    "channel_shuffle": lambda k, two: F.channel_shuffle(X, two),
    "pad": lambda k, two: F.pad(X, (two, k)),
    "one_hot": lambda k, two: F.one_hot(mg.tensor([0, 2]), k + 1),
    "softmax": lambda k, two: F.softmax(X, two),
    "glu": lambda k, two: F.glu(X, two - 1),
    "sum": lambda k, two: X.sum((two, k)),
}


@pytest.mark.parametrize("name", CALLS)
def test_numpy_integer_sizes_and_dims_act_as_ints(name):
    want = CALLS[name](3, 2)
    got = CALLS[name](np.int64(3), np.int32(2))
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())


MODULES = {
    "LayerNorm": (lambda n: mg.nn.LayerNorm(n), (2, 3)),
    "RMSNorm": (lambda n: mg.nn.RMSNorm(n), (2, 3)),
    "PReLU": (lambda n: mg.nn.PReLU(n), (2, 3)),
    "ZeroPad2d": (lambda n: mg.nn.ZeroPad2d(n), (1, 1, 2, 2)),
    "ConstantPad1d": (lambda n: mg.nn.ConstantPad1d((n, 1), 0.5), (1, 1, 2)),
    "ReflectionPad2d": (lambda n: mg.nn.ReflectionPad2d((1, n, n, 0)), (1, 1, 4, 4)),
    "GRUCell": (lambda n: mg.nn.GRUCell(n, n), (2, 3)),
    "FractionalMaxPool2d": (lambda n: mg.nn.FractionalMaxPool2d(n - 1, n - 1), (1, 1, 5, 5)),
    "MultiheadAttention": (lambda n: mg.nn.MultiheadAttention(n + 1, n - 1), (3, 4)),
    "TransformerEncoderLayer": (lambda n: mg.nn.TransformerEncoderLayer(n + 1, 2, 8), (3, 2, 4)),
}


@pytest.mark.parametrize("name", MODULES)
def test_layers_built_with_numpy_integers_match_their_int_built_twins(name):
    make, shape = MODULES[name]
    x = mg.tensor(np.random.default_rng(2).standard_normal(shape))
    outs = []
    for n in (3, np.int64(3)):
        mg.manual_seed(0)  # (the same initial weights and random windows)
        layer = make(n).double()
        args = (x, x, x) if name == "MultiheadAttention" else (x,)
        with mg.no_grad():
            y = layer(*args)
        outs.append((y[0] if isinstance(y, tuple) else y).numpy())
    assert outs[0].shape == outs[1].shape
    np.testing.assert_array_equal(outs[0], outs[1])
