"""torch.testing.assert_close as tests use it: default tolerances per dtype, rtol/atol given
together, check_dtype=False, equal_nan, containers of tensors, and the messages it raises (the
mismatch count and the greatest absolute and relative differences) that people read in CI logs."""
import math

import minigenesis as torch
from minigenesis.testing import assert_close

actual = torch.tensor([1.0, 2.0, 3.0, 4.0])
assert_close(actual, actual + 1e-7)
assert_close(actual, torch.tensor([1.0, 2.0, 3.0, 4.1]), rtol=0.05, atol=0.0)
assert_close(actual.double(), actual, check_dtype=False)
assert_close(torch.tensor([float("nan"), 1.0]), torch.tensor([float("nan"), 1.0]), equal_nan=True)
assert_close({"a": actual, "b": [actual, 1.0]}, {"a": actual.clone(), "b": [actual.clone(), 1.0]})
assert_close(2.0, 2.0 + 1e-9)

try:
    assert_close(actual, torch.tensor([1.0, 2.0, 3.0, 5.0]))
except AssertionError as e:
    msg = str(e)
else:
    raise RuntimeError("no mismatch found")
print(msg)
assert msg.startswith("Tensor-likes are not close!"), msg
assert "Mismatched elements: 1 / 4 (25.0%)" in msg, msg
assert "Greatest absolute difference: 1.0 at index (3,)" in msg, msg
assert "Greatest relative difference: 0.2" in msg and "at index (3,) (up to 1.3e-06 allowed)" in msg, msg

try:
    assert_close(actual, actual.double())
except AssertionError as e:
    dtype_msg = str(e)
assert "dtype" in dtype_msg and ".float32" in dtype_msg and ".float64" in dtype_msg, dtype_msg
print(dtype_msg)

try:
    assert_close(actual, actual[:3])
except AssertionError as e:
    shape_msg = str(e)
assert "shape" in shape_msg and "Size([4])" in shape_msg, shape_msg

try:
    assert_close(actual, actual, rtol=1e-3)
except ValueError as e:
    assert "atol" in str(e)
else:
    raise RuntimeError("rtol without atol accepted")

try:
    assert_close(torch.tensor([float("nan")]), torch.tensor([float("nan")]))
except AssertionError as e:
    assert "Mismatched elements: 1 / 1 (100.0%)" in str(e), str(e)

try:
    assert_close(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[1, 2], [3, 5]]))
except AssertionError as e:
    int_msg = str(e)
print(int_msg)
assert "Greatest absolute difference: 1 at index (1, 1)" in int_msg, int_msg

try:
    assert_close(actual, torch.tensor([1.0, 2.0, 3.0, 5.0]), msg="custom message")
except AssertionError as e:
    assert str(e) == "custom message"
print("tolerances for float32:", 1.3e-6, 1e-5, "pi", round(math.pi, 3))
