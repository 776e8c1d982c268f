"""The collective cases run on every rank (ranks_collectives.py) and checked by the test
(test_collectives.py): each rank's input is a known function of its rank, so the test computes
the expected result with NumPy from all the ranks' inputs.

Inputs are small integers or halves, so that sums and products are exact in every dtype
(float16 and bfloat16 included) and the expected values leave no room for rounding argument.
"""

from __future__ import annotations

from typing import NamedTuple

import ml_dtypes
import numpy as np


class Case(NamedTuple):
    name: str
    kind: str  # all_reduce, all_reduce_async, broadcast, all_gather, ...
    dtype: str
    shape: tuple
    op: str = "SUM"
    strided: bool = False  # hand over a transposed (non-contiguous) view


DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
          "bfloat16": ml_dtypes.bfloat16, "int64": np.int64, "int32": np.int32,
          "uint8": np.uint8, "bool": np.bool_}  # fmt: skip

CASES = [
    Case("sum_f32_strided", "all_reduce", "float32", (7, 3), "SUM", strided=True),
    Case("sum_f64", "all_reduce", "float64", (5,)),
    Case("sum_f16", "all_reduce", "float16", (3, 5)),
    Case("sum_bf16_strided", "all_reduce", "bfloat16", (4, 3), strided=True),
    Case("sum_i64", "all_reduce", "int64", (9,)),
    Case("sum_scalar", "all_reduce", "float32", ()),
    Case("avg_f32", "all_reduce", "float32", (2, 5), "AVG"),
    Case("avg_i64", "all_reduce", "int64", (7,), "AVG"),
    Case("avg_bf16", "all_reduce", "bfloat16", (6,), "AVG"),
    Case("max_f16", "all_reduce", "float16", (5,), "MAX"),
    Case("min_i32_strided", "all_reduce", "int32", (3, 4), "MIN", strided=True),
    Case("prod_f32", "all_reduce", "float32", (5,), "PRODUCT"),
    Case("max_u8", "all_reduce", "uint8", (5,), "MAX"),
    Case("sum_bool", "all_reduce", "bool", (6,), "SUM"),
    Case("bxor_i64", "all_reduce", "int64", (4,), "BXOR"),
    Case("async_sum_f32", "all_reduce_async", "float32", (1000,)),
    Case("async_avg_strided", "all_reduce_async", "float32", (5, 4), "AVG", strided=True),
    Case("bcast_f32_strided", "broadcast", "float32", (3, 4), strided=True),
    Case("bcast_bf16", "broadcast", "bfloat16", (5,)),
    Case("bcast_async_i64", "broadcast_async", "int64", (6,)),
    Case("gather_f32", "all_gather", "float32", (2, 3)),
    Case("gather_bf16_strided", "all_gather", "bfloat16", (3, 2), strided=True),
    Case("gather_async_i32", "all_gather_async", "int32", (4,)),
    Case("gather_tensor_cat", "all_gather_into_tensor", "float32", (2, 3)),
    Case("gather_tensor_stack", "all_gather_into_tensor_stack", "float16", (2, 3)),
    Case("rs_list_sum", "reduce_scatter", "float32", (3, 2)),
    Case("rs_list_max_i64", "reduce_scatter", "int64", (5,), "MAX"),
    Case("rs_tensor_sum", "reduce_scatter_tensor", "float32", (2, 3)),
    Case("rs_tensor_avg_bf16", "reduce_scatter_tensor", "bfloat16", (4,), "AVG"),
    Case("rs_tensor_async", "reduce_scatter_tensor_async", "float64", (3,)),
]


def rank_input(case: Case, rank: int, block: int = 0) -> np.ndarray:
    """Rank ``rank``'s input for ``case`` (block ``b`` of a reduce_scatter input)."""
    size = int(np.prod(case.shape)) if case.shape else 1
    i = np.arange(size)
    if case.dtype == "bool":
        values = (i + rank) % 3 == 0
    elif case.op == "PRODUCT":
        values = 1 + ((i + rank) % 3) * 0.5
    elif case.dtype in ("uint8",):
        values = (i * 3 + rank * 5 + block) % 17
    elif case.dtype.startswith("int"):
        values = (i * 7 + 3 * rank + 5 * block) % 11 - 5
    else:
        values = ((i * 5 + 3 * rank + 2 * block) % 13 - 6) * 0.5
    return np.asarray(values).astype(DTYPES[case.dtype]).reshape(case.shape)


def reduce(values: list[np.ndarray], op: str, n: int) -> np.ndarray:
    """The expected reduction over the ranks' values (exact: computed in float64 / int64)."""
    dtype = values[0].dtype
    if dtype == np.bool_:
        stack = np.stack(values)
        return stack.all(0) if op in ("PRODUCT", "MIN") else stack.any(0)
    wide = np.stack([v.astype(np.float64 if dtype.kind in "fV" else np.int64) for v in values])
    if op == "SUM":
        out = wide.sum(0)
    elif op == "AVG":
        s = wide.sum(0)
        out = s / n if dtype.kind in "fV" else np.sign(s) * (np.abs(s) // n)
    elif op == "MAX":
        out = wide.max(0)
    elif op == "MIN":
        out = wide.min(0)
    elif op == "PRODUCT":
        out = wide.prod(0)
    elif op == "BXOR":
        out = np.bitwise_xor.reduce(wide, axis=0)
    else:
        raise ValueError(op)
    return out.astype(dtype)


def expected(case: Case, n: int, rank: int) -> object:
    """What rank ``rank`` must hold after ``case`` on ``n`` ranks."""
    kind = case.kind.removesuffix("_async")
    if kind == "all_reduce":
        return reduce([rank_input(case, r) for r in range(n)], case.op, n)
    if kind == "broadcast":
        return rank_input(case, n - 1)  # the cases broadcast from the last rank
    if kind == "all_gather":
        return [rank_input(case, r) for r in range(n)]
    if kind == "all_gather_into_tensor":
        return np.concatenate([rank_input(case, r) for r in range(n)])
    if kind == "all_gather_into_tensor_stack":
        return np.stack([rank_input(case, r) for r in range(n)])
    if kind in ("reduce_scatter", "reduce_scatter_tensor"):
        return reduce([rank_input(case, r, block=rank) for r in range(n)], case.op, n)
    raise ValueError(kind)
