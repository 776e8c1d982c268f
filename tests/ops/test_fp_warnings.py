"""No op lets NumPy's floating-point RuntimeWarnings out ("overflow encountered in multiply",
"divide by zero encountered in log"): PyTorch computes the same inf and NaN silently. Every entry
of the op database runs forward and backward with warnings turned into errors, on its samples and
on the samples with extreme values put in (+-3e38, +-1e308, +-inf, NaN, subnormals, 7e4 for
float16, exp's and log's edges), those also in bfloat16 and float16.

An op is silenced by wrapping its array code in ``backend.quiet_fp``. The entries listed in
``LEAKS`` (empty now) would still warn on some of those inputs; an entry that warns and is not
listed fails, and so does a listed one that no longer warns, so the list only shrinks."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

import minigenesis as mg

from .core import MG, OpEntry, Sample, T, map_specs, outputs
from .database import ENTRIES

EXTREMES = np.array(
    [3e38, -3e38, 1e308, -1e308, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 65504.0, 7e4,
     1e30, -1e30, 88.8, 710.0, -745.0, 1e-45, 2.0, -1.0]
)  # fmt: skip

# entries that still warn on some extreme input (none: the backward engine's sums are silenced
# too, since an output used twice gets inf + -inf there)
LEAKS: set[str] = set()


def _extreme(t):
    if not isinstance(t, T) or not t.is_float:
        return t
    return dataclasses.replace(t, values=np.resize(EXTREMES, t.values.size).reshape(t.values.shape))


def _with_extremes(s: Sample, dtype: str | None = None) -> Sample:
    """The sample with extreme values in its float tensors (made ``dtype`` where given)."""

    def change(t):
        t = _extreme(t)
        return (
            dataclasses.replace(t, dtype=dtype) if dtype and isinstance(t, T) and t.is_float else t
        )

    return dataclasses.replace(
        s,
        args=tuple(map_specs(a, change) for a in s.args),
        kwargs={k: map_specs(v, change) for k, v in s.kwargs.items()},
    )


def _fp_warnings(entry: OpEntry) -> list[str]:
    """The NumPy floating-point warnings the entry's forward and backward let out."""
    found = []

    for s in entry.samples():
        # bfloat16's comparisons (ml_dtypes') warn on NaN where NumPy's float16 ones do not
        variants = (
            s,
            _with_extremes(s),
            _with_extremes(s, "bfloat16"),
            _with_extremes(s, "float16"),
        )
        for sample in variants:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # building the inputs is the test's own work
                made = {}

                def build(t: T, made=made):
                    base = MG._base(MG.base_values(t), t.dtype)
                    if entry.differentiable and t.is_float and t.grad:
                        base.requires_grad_(True)
                    made[id(t)] = MG.view(t, base)
                    return made[id(t)]

                args = tuple(map_specs(a, build) for a in sample.args)
                kwargs = {k: map_specs(v, build) for k, v in sample.kwargs.items()}
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    outs = outputs(MG.call(entry, args, kwargs))
                    diff = [o for o in outs if isinstance(o, mg.Tensor) and o.requires_grad]
                    for o in diff:
                        o.backward(mg.ones_like(o), retain_graph=True)
                except Exception:  # noqa: BLE001, S112 - the battery checks what raises
                    pass
            found += [
                f"{sample}: {w.message}"
                for w in caught
                if issubclass(w.category, RuntimeWarning) and "encountered" in str(w.message)
            ]
    return found


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_no_numpy_floating_point_warning_leaks(entry: OpEntry) -> None:
    found = _fp_warnings(entry)
    if entry.id in LEAKS:
        assert found, f"{entry.id} no longer warns: remove it from LEAKS"
    else:
        assert not found, f"{entry.id} lets NumPy warnings out:\n" + "\n".join(found[:8])


@pytest.mark.parametrize(
    "compute",
    [
        lambda: mg.tensor([3e38]) * 10,
        lambda: mg.tensor([3e38]) + mg.tensor([3e38]),
        lambda: mg.tensor([-3e38]) - mg.tensor([3e38]),
        lambda: mg.tensor([6e4], dtype=mg.float16) * 2,
        lambda: mg.tensor([1e5]).half(),
        lambda: mg.tensor([1e30]).pow(2),
        lambda: mg.tensor([100.0]).exp(),
        lambda: mg.tensor([1.0, 0.0, -1.0]) / 0,
        lambda: mg.tensor([3e38, 3e38]).sum(),
        lambda: mg.tensor([3e38, 3e38]).mean(),
        lambda: mg.tensor([[3e38]]) @ mg.tensor([[10.0]]),
        lambda: mg.tensor(np.array([1e5]), dtype=mg.float16),
        lambda: mg.tensor([1e300], dtype=mg.float32),
    ],
)
def test_overflow_and_division_by_zero_give_inf_silently(compute) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = compute()
    assert not bool(mg.isfinite(got).all())


@pytest.mark.parametrize("dtype", [mg.bfloat16, mg.float16])
def test_two_byte_comparisons_with_nan_and_huge_numbers_are_silent(dtype) -> None:
    x = mg.tensor([1.0, float("nan")], dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (x < x).tolist() == [False, False]
        assert (x < 1e6).tolist() == [True, False]  # 1e6 is inf in float16: 1 < inf
        assert x.clamp(0, 2).isnan().tolist() == [False, True]
