"""A Python list or tuple is not an operand of tensor arithmetic, as in PyTorch 2.13: the
operators return NotImplemented (so Python raises its own TypeError, compares by identity for
== / !=, and repeats the list for an integer scalar tensor times a list), and the methods,
in-place forms and mg.* functions raise TypeError naming the argument. NumPy arrays are still
operands. (The torch-parity file beside this one checks the same table against PyTorch.)"""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

A = mg.tensor([1.0, 2.0])
L = [1.0, 2.0]

OPERATOR_ERRORS = {
    "a + L": (lambda a: a + L, "unsupported operand type(s) for +: 'Tensor' and 'list'"),
    "L + a": (lambda a: L + a, 'can only concatenate list (not "Tensor") to list'),
    "a - L": (lambda a: a - L, "unsupported operand type(s) for -: 'Tensor' and 'list'"),
    "L - a": (lambda a: L - a, "unsupported operand type(s) for -: 'list' and 'Tensor'"),
    "a / L": (lambda a: a / L, "unsupported operand type(s) for /: 'Tensor' and 'list'"),
    "L / a": (lambda a: L / a, "unsupported operand type(s) for /: 'list' and 'Tensor'"),
    "a // L": (lambda a: a // L, "unsupported operand type(s) for //: 'Tensor' and 'list'"),
    "a % L": (lambda a: a % L, "unsupported operand type(s) for %: 'Tensor' and 'list'"),
    "a ** L": (lambda a: a**L, "unsupported operand type(s) for ** or pow(): 'Tensor' and 'list'"),
    "L ** a": (lambda a: L**a, "unsupported operand type(s) for ** or pow(): 'list' and 'Tensor'"),
    "a @ L": (lambda a: a @ L, "unsupported operand type(s) for @: 'Tensor' and 'list'"),
    "L @ a": (lambda a: L @ a, "unsupported operand type(s) for @: 'list' and 'Tensor'"),
    "a < L": (lambda a: a < L, "'<' not supported between instances of 'Tensor' and 'list'"),
    "a >= L": (lambda a: a >= L, "'>=' not supported between instances of 'Tensor' and 'list'"),
    "a * L": (
        lambda a: a * L,
        "only integer tensors of a single element can be converted to an index",
    ),
    "a * tuple": (
        lambda a: a * (1, 2),
        "only integer tensors of a single element can be converted to an index",
    ),
    "a + tuple": (
        lambda a: a + (1.0, 2.0),
        "unsupported operand type(s) for +: 'Tensor' and 'tuple'",
    ),
    "i & L": (
        lambda a: mg.tensor([1, 2]) & [1, 2],
        "unsupported operand type(s) for &: 'Tensor' and 'list'",
    ),
    "L | i": (
        lambda a: [1, 2] | mg.tensor([1, 2]),
        "unsupported operand type(s) for |: 'list' and 'Tensor'",
    ),
    "i << L": (
        lambda a: mg.tensor([1, 2]) << [1, 2],
        "unsupported operand type(s) for <<: 'Tensor' and 'list'",
    ),
}


@pytest.mark.parametrize("label", sorted(OPERATOR_ERRORS))
def test_operators_with_a_list_raise_pythons_type_error(label):
    fn, message = OPERATOR_ERRORS[label]
    with pytest.raises(TypeError) as err:
        fn(A)
    assert str(err.value) == message


def test_operators_return_not_implemented_so_equality_is_identity():
    for name in ("__add__", "__radd__", "__mul__", "__matmul__", "__eq__", "__lt__", "__iadd__"):
        assert getattr(A.clone(), name)(L) is NotImplemented, name
    assert (A == L) is False and (A != L) is True
    assert (A == (1.0, 2.0)) is False


def test_an_integer_scalar_tensor_times_a_list_repeats_the_list():
    assert mg.tensor(2) * [1, 2] == [1, 2, 1, 2]
    assert [1, 2] * mg.tensor(2) == [1, 2, 1, 2]


def test_augmented_assignment_with_a_list_raises_and_leaves_the_tensor():
    b = A.clone()
    with pytest.raises(
        TypeError, match=r"unsupported operand type\(s\) for \+=: 'Tensor' and 'list'"
    ):
        b += L
    with pytest.raises(TypeError, match=r"for \*=: 'Tensor' and 'list'"):
        b *= [1.0]
    np.testing.assert_array_equal(b.numpy(), A.numpy())


METHODS = [
    ("add", lambda a: a.add(L), "add(): argument 'other' (position 1) must be Tensor, not list"),
    ("sub", lambda a: a.sub(L), "sub(): argument 'other' (position 1) must be Tensor, not list"),
    ("mul", lambda a: a.mul(L), "mul(): argument 'other' (position 1) must be Tensor, not list"),
    ("div", lambda a: a.div(L), "div(): argument 'other' (position 1) must be Tensor, not list"),
    ("true_divide", lambda a: a.true_divide(L), "true_divide()"),
    ("remainder", lambda a: a.remainder(L), "remainder()"),
    ("fmod", lambda a: a.fmod(L), "fmod()"),
    ("pow", lambda a: a.pow(L), "pow()"),
    ("eq", lambda a: a.eq(L), "eq()"),
    ("lt", lambda a: a.lt(L), "lt()"),
    ("matmul", lambda a: a.matmul(L), "matmul()"),
    ("add_", lambda a: a.add_(L), "add_(): argument 'other' (position 1) must be Tensor, not list"),
    ("sub_", lambda a: a.sub_(L), "sub_()"),
    ("mul_", lambda a: a.mul_(L), "mul_(): argument 'other' (position 1) must be Tensor, not list"),
    ("div_", lambda a: a.div_(L), "div_()"),
    ("pow_", lambda a: a.pow_(L), "pow_()"),
    ("eq_", lambda a: a.eq_(L), "eq_()"),
    (
        "mg.add",
        lambda a: mg.add(a, L),
        "add(): argument 'other' (position 2) must be Tensor, not list",
    ),
    ("mg.add-input", lambda a: mg.add(L, a), "add(): argument 'input' (position 1) must be Tensor"),
    ("mg.mul", lambda a: mg.mul(mg.tensor(2), [1, 2]), "mul(): argument 'other' (position 2)"),
    ("mg.remainder", lambda a: mg.remainder(a, L), "remainder()"),
    ("mg.fmod", lambda a: mg.fmod(L, a), "fmod()"),
    ("mg.pow", lambda a: mg.pow(a, L), "pow()"),
    ("mg.maximum", lambda a: mg.maximum(L, a), "maximum(): argument 'input' (position 1)"),
    ("mg.atan2", lambda a: mg.atan2(L, a), "atan2(): argument 'input' (position 1)"),
    ("mg.rsub", lambda a: mg.rsub(a, L), "rsub()"),
    ("mg.eq", lambda a: mg.eq(a, L), "eq()"),
]


@pytest.mark.parametrize(("label", "fn", "start"), METHODS, ids=[m[0] for m in METHODS])
def test_methods_and_functions_with_a_list_raise_type_error(label, fn, start):
    a = A.clone()
    with pytest.raises(TypeError) as err:
        fn(a)
    assert str(err.value).startswith(start)
    np.testing.assert_array_equal(a.numpy(), A.numpy())  # the in-place forms wrote nothing


def test_numpy_arrays_and_numbers_are_still_operands():
    np.testing.assert_array_equal((A + np.array([1.0, 2.0])).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal((A * 2).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(A.add(np.array([1.0, 1.0])).numpy(), [2.0, 3.0])
    np.testing.assert_array_equal((A == np.array([1.0, 0.0])).numpy(), [True, False])


@pytest.mark.parametrize("op", ["&", "|", "^"])
def test_bitwise_operators_refuse_a_list_before_a_float_tensors_dtype(op):
    # the list is refused first (Python's TypeError), as PyTorch does, not the float dtype
    fn = {"&": lambda a: a & L, "|": lambda a: a | L, "^": lambda a: a ^ L}[op]
    with pytest.raises(TypeError, match=f"unsupported operand type\\(s\\) for \\{op}"):
        fn(A)
    name = {"&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor"}[op]
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        getattr(A, name)(L)


SEQUENCE_REFUSING = {
    "fmax": lambda o: A.fmax(o),
    "fmin": lambda o: mg.fmin(A, o),
    "ldexp": lambda o: A.ldexp(o),
    "logical_and": lambda o: A.logical_and(o),
    "logical_or": lambda o: mg.logical_or(A, o),
    "logical_xor": lambda o: A.logical_xor(o),
    "nextafter": lambda o: mg.nextafter(A, o),
    "isclose": lambda o: A.isclose(o),
    "allclose": lambda o: mg.allclose(A, o),
    "clamp": lambda o: A.clamp(o),
    "clamp_max": lambda o: A.clamp_max(o),
}


@pytest.mark.parametrize("name", sorted(SEQUENCE_REFUSING))
@pytest.mark.parametrize("sequence", [L, tuple(L)])
def test_binary_functions_refuse_a_list_or_tuple_operand(name, sequence):
    # PyTorch takes a tensor or a number here; the list was read as a tensor before
    with pytest.raises(TypeError, match=f"must be Tensor, not {type(sequence).__name__}"):
        SEQUENCE_REFUSING[name](sequence)
