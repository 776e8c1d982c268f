"""Tensors print character for character as PyTorch prints them (``minigenesis/_tensor_str.py``).

A generated set of tensors (dtypes, shapes, magnitudes, NaN/inf/-0, summarized sizes) is printed
by both libraries under several print options. Our dtypes print as ``minigenesis.float16``, which
is longer than ``torch.float16`` and so may wrap a line elsewhere: for the comparison they are
made to print under torch's name (the ``torch_dtype_names`` fixture).
"""

import itertools
import zlib

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]
INT_DTYPES = ["int64", "int32", "int16", "int8", "uint8"]


def _values(kind: str, shape: tuple, rng: np.random.Generator) -> np.ndarray:
    """Values of one kind, as float64 (cast to the tensor's dtype by both libraries)."""
    n = int(np.prod(shape))
    if kind == "normal":
        v = rng.standard_normal(n)
    elif kind == "whole":
        v = rng.integers(-50, 50, n).astype(np.float64)
    elif kind == "wide":  # spans many decades: scientific mode
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 9, n)
    elif kind == "tiny":
        v = rng.standard_normal(n) * 1e-5
    elif kind == "large":
        v = rng.standard_normal(n) * 1e9
    elif kind == "large_whole":
        v = np.round(rng.standard_normal(n) * 1e9)
    elif kind == "special":  # nan, inf, -inf, -0.0 among ordinary numbers
        v = rng.standard_normal(n)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0])
        mask = rng.random(n) < 0.4
        v[mask] = rng.choice(specials, mask.sum())
    elif kind == "nonfinite_only":
        v = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0]), n)
    elif kind == "decades":  # max/min just around 1000
        v = rng.choice(np.array([0.001, 0.5, 1.0, 0.9999, 1.001]), n)
    else:
        raise ValueError(kind)
    return v.reshape(shape)


def _pair(values: np.ndarray, dtype: str, requires_grad: bool = False):
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    m = mg.tensor(values, dtype=getattr(mg, dtype))
    if requires_grad:
        t.requires_grad_(True)
        m.requires_grad_(True)
    return m, t


@pytest.fixture(autouse=True)
def torch_dtype_names(monkeypatch):
    monkeypatch.setattr(mg.dtypes.DType, "__repr__", lambda self: f"torch.{self.name}")


def _expected(t) -> str:
    return repr(t)


SHAPES = [(), (1,), (5,), (3, 4), (2, 3, 4), (2, 1, 2, 3), (30,), (7, 13), (1001,), (40, 30)]
KINDS = ["normal", "whole", "wide", "tiny", "large", "large_whole", "special", "nonfinite_only"]
KINDS += ["decades"]

CASES = [
    (shape, kind, dtype)
    for shape, kind, dtype in itertools.product(SHAPES, KINDS, FLOAT_DTYPES)
    if not (dtype == "float16" and kind in ("wide", "large", "large_whole"))  # past its max
]


@pytest.mark.parametrize("shape, kind, dtype", CASES)
def test_float_tensor_prints_as_torch(shape, kind, dtype):
    rng = np.random.default_rng(zlib.crc32(repr((shape, kind, dtype)).encode()))
    m, t = _pair(_values(kind, shape, rng), dtype)
    assert repr(m) == _expected(t)
    assert str(m) == str(t)


@pytest.mark.parametrize("dtype", INT_DTYPES + ["bool"])
@pytest.mark.parametrize("shape", [(), (6,), (4, 5), (3, 2, 2), (1200,), (50, 50)])
def test_int_and_bool_tensor_prints_as_torch(shape, dtype):
    rng = np.random.default_rng(7)
    if dtype == "bool":
        values = rng.random(shape) < 0.5
    else:
        high = 120 if dtype in ("int8", "uint8") else 100000
        low = 0 if dtype == "uint8" else -high
        values = rng.integers(low, high, shape)
    m = mg.tensor(values, dtype=getattr(mg, dtype))
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    assert repr(m) == _expected(t)


OPTIONS = [
    dict(precision=2),
    dict(precision=8),
    dict(precision=0),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(linewidth=40),
    dict(linewidth=200),
    dict(threshold=10),
    dict(threshold=10, edgeitems=1),
    dict(threshold=10, edgeitems=0),
    dict(profile="short"),
    dict(profile="full"),
    dict(profile="short", precision=6),
]


@pytest.fixture
def restore_printoptions():
    yield
    mg.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize(
    "shape, kind",
    [
        ((7,), "normal"),
        ((20, 9), "wide"),
        ((3, 4, 5), "whole"),
        ((1500,), "special"),
        ((60, 40), "tiny"),
        ((), "normal"),
    ],
)
def test_print_options_act_as_in_torch(options, shape, kind, restore_printoptions):
    rng = np.random.default_rng(3)
    values = _values(kind, shape, rng)
    mg.set_printoptions(**options)
    torch.set_printoptions(**options)
    assert mg.get_printoptions() == torch._tensor_str.get_printoptions()
    for dtype in ("float32", "float64"):
        m, t = _pair(values, dtype)
        assert repr(m) == _expected(t)
    m = mg.tensor(np.round(values * 100), dtype=mg.int64)
    assert repr(m) == repr(torch.tensor(np.round(values * 100), dtype=torch.int64))


@pytest.mark.parametrize("dtype", ["float32", "int64", "int32", "bool", "float16"])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0, 4)])
def test_empty_tensor_prints_as_torch(shape, dtype):
    m = mg.zeros(shape, dtype=getattr(mg, dtype))
    t = torch.zeros(shape, dtype=getattr(torch, dtype))
    assert repr(m) == _expected(t)


@pytest.mark.parametrize("shape", [(), (3,), (2, 5), (8, 12), (2000,)])
def test_grad_suffixes_print_as_torch(shape):
    rng = np.random.default_rng(5)
    values = rng.standard_normal(shape)
    for dtype in ("float32", "float16"):
        m, t = _pair(values, dtype, requires_grad=True)
        assert repr(m) == _expected(t)  # requires_grad=True
        assert repr(m * 2) == _expected(t * 2)  # grad_fn=<MulBackward0>


def test_long_suffixes_wrap_as_in_torch():
    values = np.linspace(-1, 1, 17).reshape(1, 17)
    for dtype in ("float32", "float16", "float64"):
        m, t = _pair(values, dtype, requires_grad=True)
        assert repr(m) == _expected(t)
        assert repr(m + 1) == _expected(t + 1)


def test_parameter_prints_as_torch():
    values = np.arange(6.0).reshape(2, 3) / 7
    m = mg.nn.Parameter(mg.tensor(values, dtype=mg.float32))
    t = torch.nn.Parameter(torch.tensor(values, dtype=torch.float32))
    assert repr(m) == repr(t)


def test_float64_default_dtype_drops_its_suffix_as_in_torch():
    mg.set_default_dtype(mg.float64)
    torch.set_default_dtype(torch.float64)
    try:
        for dtype in ("float32", "float64"):
            m, t = _pair(np.array([1.5, 2.25]), dtype)
            assert repr(m) == _expected(t)
        assert repr(mg.zeros(0, dtype=mg.int64)) == _expected(torch.zeros(0, dtype=torch.int64))
    finally:
        mg.set_default_dtype(mg.float32)
        torch.set_default_dtype(torch.float32)
