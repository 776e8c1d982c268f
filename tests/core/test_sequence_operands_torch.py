"""PyTorch parity for list and tuple operands of tensor arithmetic: the same exception type
(and, for the operators, whose TypeError is Python's, the same message), or the same value."""

from __future__ import annotations

import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

L = [1.0, 2.0]
CASES = {
    "a + L": lambda T, a: a + L,
    "L + a": lambda T, a: L + a,
    "a * L": lambda T, a: a * L,
    "L * a": lambda T, a: L * a,
    "a - L": lambda T, a: a - L,
    "L / a": lambda T, a: L / a,
    "a ** L": lambda T, a: a**L,
    "a @ L": lambda T, a: a @ L,
    "a // L": lambda T, a: a // L,
    "L % a": lambda T, a: L % a,
    "a == L": lambda T, a: a == L,
    "a != L": lambda T, a: a != L,
    "a <= L": lambda T, a: a <= L,
    "a + tuple": lambda T, a: a + (1.0, 2.0),
    "a * tuple": lambda T, a: a * (1, 2),
    "int * L": lambda T, a: T.tensor(3) * [1, 2],
    "L * int": lambda T, a: [1, 2] * T.tensor(3),
    "i & L": lambda T, a: T.tensor([1, 2]) & [1, 2],
    "L ^ i": lambda T, a: [1, 2] ^ T.tensor([1, 2]),
    "i >> L": lambda T, a: T.tensor([1, 2]) >> [1, 2],
    "a.__add__": lambda T, a: a.__add__(L),
    "a.__rmul__": lambda T, a: a.__rmul__(L),
    "a.__itruediv__": lambda T, a: a.__itruediv__(L),
    "a += L": lambda T, a: a.__class__.__iadd__(a, L),
    "a.add": lambda T, a: a.add(L),
    "a.mul": lambda T, a: a.mul(L),
    "a.div": lambda T, a: a.div(L, rounding_mode="floor"),
    "a.remainder": lambda T, a: a.remainder(L),
    "a.eq": lambda T, a: a.eq(L),
    "a.ge": lambda T, a: a.ge(L),
    "a.pow": lambda T, a: a.pow(L),
    "a.matmul": lambda T, a: a.matmul(L),
    "a.add_": lambda T, a: a.add_(L),
    "a.mul_": lambda T, a: a.mul_(L),
    "a.lt_": lambda T, a: a.lt_(L),
    "T.add": lambda T, a: T.add(a, L),
    "T.sub first": lambda T, a: T.sub(L, a),
    "T.mul": lambda T, a: T.mul(T.tensor(2), [1, 2]),
    "T.div": lambda T, a: T.div(a, L),
    "T.remainder": lambda T, a: T.remainder(a, L),
    "T.fmod": lambda T, a: T.fmod(a, L),
    "T.pow": lambda T, a: T.pow(L, a),
    "T.maximum": lambda T, a: T.maximum(a, L),
    "T.eq": lambda T, a: T.eq(a, L),
}


def _outcome(lib, fn):
    try:
        out = fn(lib, lib.tensor([1.0, 2.0]))
    except Exception as err:  # noqa: BLE001  (the exception is what is compared)
        return type(err), str(err)
    return "value", out.tolist() if hasattr(out, "tolist") else out


@pytest.mark.parametrize("label", sorted(CASES))
def test_list_operands_behave_as_in_pytorch(label):
    expected = _outcome(torch, CASES[label])
    got = _outcome(mg, CASES[label])
    assert got[0] is expected[0]
    if expected[0] == "value" or label.startswith(("a ", "L ", "i ", "int", "a.__")):
        assert got[1] == expected[1]
