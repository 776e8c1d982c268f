"""float64 -> float16 conversions round through float32, as PyTorch's do (c10::Half is built from
a float), on every path: tensor(), .to()/.half()/.type(), copy_, fill_, full, new_full, item
assignment, masked_fill and a float16 tensor with a Python number.

The values are halfway cases of float16 that float32 rounding creates: 1760.5000001 is 1760.5 in
float32, which ties to even (1760); one rounding from float64 gives 1761. 1761.4999999 goes the
other way (float32 1761.5 ties up to 1762; one rounding gives 1761). 65519.99999 is 65520 in
float32, which overflows float16 to inf; rounded once it is float16's largest value, 65504."""

import numpy as np
import pytest

import minigenesis as mg

# (float64 value, float16 through float32: PyTorch's, float16 rounded once: NumPy's)
CASES = [
    (1760.5000001, 1760.0, 1761.0),
    (1761.4999999, 1762.0, 1761.0),
    (-1760.5000001, -1760.0, -1761.0),
    (65519.99999, np.inf, 65504.0),
]
VALUES = np.array([c[0] for c in CASES])
EXPECTED = [c[1] for c in CASES]


def test_the_cases_distinguish_one_rounding_from_two():
    with np.errstate(over="ignore"):  # 65520 and past: inf in float16
        twice = VALUES.astype(np.float32).astype(np.float16)
        once = VALUES.astype(np.float16)
    assert twice.tolist() == EXPECTED
    assert once.tolist() == [c[2] for c in CASES]


def _f64():
    return mg.tensor(VALUES, dtype=mg.float64)


CONVERSIONS = {
    "tensor_from_numpy": lambda: mg.tensor(VALUES, dtype=mg.float16),
    "tensor_from_python_floats": lambda: mg.tensor(VALUES.tolist(), dtype=mg.float16),
    "as_tensor": lambda: mg.as_tensor(VALUES, dtype=mg.float16),
    "from_numpy_half": lambda: mg.from_numpy(VALUES).half(),
    "to_float16": lambda: _f64().to(mg.float16),
    "half": lambda: _f64().half(),
    "type_HalfTensor": lambda: _f64().type(mg.HalfTensor),
    "float64_result_half": lambda: (_f64() * 1.0).half(),
    "copy_": lambda: mg.zeros(len(CASES), dtype=mg.float16).copy_(_f64()),
    "setitem_tensor": lambda: _setitem(mg.zeros(len(CASES), dtype=mg.float16), _f64()),
    "new_tensor": lambda: mg.zeros(1, dtype=mg.float16).new_tensor(VALUES),
}


def _setitem(t, v):
    t[:] = v
    return t


@pytest.mark.parametrize("path", sorted(CONVERSIONS))
def test_float64_array_to_float16_rounds_through_float32(path):
    assert CONVERSIONS[path]().tolist() == EXPECTED


SCALAR_WRITES = {
    "tensor_0d": lambda v: mg.tensor(v, dtype=mg.float16),
    "full": lambda v: mg.full((2,), v, dtype=mg.float16),
    "new_full": lambda v: mg.zeros(1, dtype=mg.float16).new_full((2,), v),
    "fill_": lambda v: mg.zeros(2, dtype=mg.float16).fill_(v),
    "fill_0d_float64_tensor": lambda v: mg.zeros(2, dtype=mg.float16).fill_(mg.tensor(v)),
    "setitem": lambda v: _setitem(mg.zeros(2, dtype=mg.float16), v),
    "masked_fill": lambda v: mg.zeros(2, dtype=mg.float16).masked_fill(mg.ones(2, dtype=bool), v),
    "add_number": lambda v: mg.zeros(2, dtype=mg.float16) + v,
}


# (not the overflow case: PyTorch's fill of several float16 elements refuses 65519.99999)
@pytest.mark.parametrize("path", sorted(SCALAR_WRITES))
@pytest.mark.parametrize(("value", "expected", "_once"), CASES[:3])
def test_python_float_into_float16_rounds_through_float32(path, value, expected, _once):
    out = SCALAR_WRITES[path](value)
    assert out.dtype == mg.float16
    assert np.all(out.numpy() == np.float16(expected))


def test_linspace_endpoints_into_float16_round_through_float32():
    # the endpoints 1760.5 and 1761.5 (in float32) tie to 1760 and 1762
    out = mg.linspace(1760.5000001, 1761.4999999, 2, dtype=mg.float16)
    assert out.tolist() == [1760.0, 1762.0]


def test_bfloat16_from_float64_also_rounds_through_float32():
    # 128.5000001 -> 128.5 in float32 -> ties to even 128; 129.4999999 -> 129.5 -> 130
    values = [128.5000001, 129.4999999]
    assert mg.tensor(values, dtype=mg.float64).bfloat16().float().tolist() == [128.0, 130.0]
    assert mg.tensor(values, dtype=mg.bfloat16).float().tolist() == [128.0, 130.0]


def test_float32_to_float16_and_float64_to_float32_are_unchanged():
    x = np.array([1760.5, 1761.5, 0.1], dtype=np.float32)
    assert mg.tensor(x).half().numpy().tolist() == x.astype(np.float16).tolist()
    y = np.array([0.1, 1e-40, 3.4e38, 1e300])
    with np.errstate(over="ignore"):
        assert mg.tensor(y).float().numpy().tolist() == y.astype(np.float32).tolist()


def test_gradient_of_a_float64_to_float16_cast_is_float64():
    x = mg.tensor(VALUES[:3], dtype=mg.float64, requires_grad=True)
    y = x.half()
    assert y.tolist() == EXPECTED[:3]
    y.float().sum().backward()
    assert x.grad.dtype == mg.float64 and x.grad.tolist() == [1.0, 1.0, 1.0]
