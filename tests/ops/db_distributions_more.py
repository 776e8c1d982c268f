"""mg.distributions, continued: the distributions built on transforms (LogNormal, HalfNormal,
HalfCauchy, Gumbel, a logit-normal TransformedDistribution), the heavy-tailed ones (Cauchy,
StudentT), Chi2, and the counting ones (Poisson, Geometric). Entries as in
``db_distributions.py`` (same builders, same tolerances), against the float64 closed forms of
``references_distributions_more.py``."""

from __future__ import annotations

import dataclasses

import numpy as np

from . import db_distributions as DB
from . import references_distributions_more as RM
from .core import OpEntry
from .db_distributions import Family, _loc_scale_params, _pos, _real
from .public_api import distribution_names
from .simple import Maker, T


@dataclasses.dataclass
class MoreFamily(Family):
    @property
    def refs(self) -> dict:
        return RM.FAMILIES[self.cls]


def _positive_value(m, shape):
    return m(*shape, lo=0.1, hi=3)


def _scale_params(m):
    return [
        ({"scale": _pos(m, 3)}, "batch (3,)", (3,)),
        ({"scale": _pos(m)}, "0-d", ()),
        ({"scale": _pos(m, 2, 3, layout="strided")}, "strided", (2, 3)),
    ]


def _counts(m, shape):
    return T(m.rng.integers(0, 6, shape).astype(np.float64), grad=False)


def _student(m):
    return [
        ({"df": _pos(m, 3, lo=2.5, hi=6), "loc": m(3), "scale": _pos(m, 3)}, "batch (3,)", (3,)),
        ({"df": _pos(m, 2, 3, lo=2.5, hi=6), "loc": m(2, 3)}, "scale 1 by default", (2, 3)),
        ({"df": _pos(m, lo=3, hi=5), "loc": m(2, 3), "scale": _pos(m)}, "broadcast", (2, 3)),
    ]


def _n(*shape):
    """Binomial's total_count: 5 trials (a constant, so a KL pair has equal counts)."""
    return T(np.full(shape, 5.0), grad=False)


def _relaxed(m):
    return [
        ({"temperature": _pos(m, 3, lo=0.3, hi=2), "logits": m(3)}, "logits", (3,)),
        ({"temperature": _pos(m, lo=0.3, hi=2), "probs": m(2, 3, lo=0.1, hi=0.9)}, "probs", (2, 3)),
    ]


def _geometric(m):
    return [
        ({"probs": m(3, lo=0.1, hi=0.9)}, "probs", (3,)),
        ({"logits": m(2, 3)}, "logits", (2, 3)),
    ]


_HALF_OUTSIDE = lambda m: ({"scale": _pos(m, 2)}, T(np.array([1.0, -0.5])))  # noqa: E731
_BAD_SCALE = lambda m: [{"scale": T(np.array([1.0, -1.0]))}]  # noqa: E731
_BAD_LOC_SCALE = lambda m: [{"loc": m(2), "scale": T(np.array([1.0, 0.0]))}]  # noqa: E731

FAMILIES = [
    MoreFamily(
        "LogNormal",
        _loc_scale_params,
        _positive_value,
        outside=lambda m: ({"loc": m(2), "scale": _pos(m, 2)}, T(np.array([1.0, -0.5]))),
        bad_params=_BAD_LOC_SCALE,
        icdf_domain=True,
    ),
    MoreFamily(
        "HalfNormal",
        _scale_params,
        _positive_value,
        edges=lambda m: [({"scale": _pos(m, 3)}, T(np.zeros(3)), "x = 0")],
        outside=_HALF_OUTSIDE,
        bad_params=_BAD_SCALE,
        icdf_domain=True,
    ),
    MoreFamily(
        "HalfCauchy",
        _scale_params,
        _positive_value,
        edges=lambda m: [({"scale": _pos(m, 3)}, T(np.zeros(3)), "x = 0")],
        outside=_HALF_OUTSIDE,
        bad_params=_BAD_SCALE,
        icdf_domain=True,
    ),
    MoreFamily("Cauchy", _loc_scale_params, _real, bad_params=_BAD_LOC_SCALE, icdf_domain=True),
    MoreFamily("Gumbel", _loc_scale_params, _real, bad_params=_BAD_LOC_SCALE, icdf_domain=True),
    MoreFamily(
        "Chi2",
        lambda m: [
            ({"df": _pos(m, 3, lo=0.5, hi=6)}, "batch (3,)", (3,)),
            ({"df": _pos(m, 2, 3, lo=2.5, hi=6, layout="strided")}, "strided", (2, 3)),
        ],
        _positive_value,
        outside=lambda m: ({"df": _pos(m, 2)}, T(np.array([1.0, -0.5]))),
        bad_params=lambda m: [{"df": T(np.array([1.0, 0.0]))}],
    ),
    MoreFamily(
        "StudentT",
        _student,
        _real,
        edges=lambda m: [
            (
                {"df": T(np.array([0.5, 1.0, 1.5, 2.0, 3.0])), "loc": m(5)},
                None,
                "df at and below 1 and 2",
            )
        ],
        bad_params=lambda m: [{"df": T(np.array([1.0, -1.0]))}],
    ),
    MoreFamily(
        "Poisson",
        lambda m: [
            ({"rate": _pos(m, 3, lo=0.5, hi=4)}, "batch (3,)", (3,)),
            ({"rate": _pos(m, 2, 3, lo=0.5, hi=4, layout="strided")}, "strided", (2, 3)),
        ],
        _counts,
        outside=lambda m: ({"rate": _pos(m, 2)}, T(np.array([1.0, 0.5]), grad=False)),
        bad_params=lambda m: [{"rate": T(np.array([1.0, -1.0]))}],
    ),
    MoreFamily(
        "Geometric",
        _geometric,
        _counts,
        outside=lambda m: ({"probs": m(2, lo=0.1, hi=0.9)}, T(np.array([1.0, -1.0]), grad=False)),
        bad_params=lambda m: [{"probs": T(np.array([0.5, 1.5]))}],
    ),
    MoreFamily(
        "Weibull",
        lambda m: [
            ({"scale": _pos(m, 3), "concentration": _pos(m, 3, lo=1.2, hi=3)}, "batch (3,)", (3,)),
            ({"scale": _pos(m), "concentration": _pos(m, 2, 3, lo=1.2, hi=3)}, "broadcast", (2, 3)),
        ],
        _positive_value,
        outside=lambda m: (
            {"scale": _pos(m, 2), "concentration": _pos(m, 2)},
            T(np.array([1.0, -0.5])),
        ),
        bad_params=lambda m: [{"scale": T(np.array([1.0, -1.0])), "concentration": _pos(m, 2)}],
        icdf_domain=True,
    ),
    MoreFamily(
        "Pareto",
        lambda m: [
            (
                {"scale": _pos(m, 3, lo=0.2, hi=0.9), "alpha": _pos(m, 3, lo=2.5, hi=4)},
                "batch",
                (3,),
            ),
            (
                {"scale": _pos(m, lo=0.2, hi=0.9), "alpha": _pos(m, 2, 3, lo=2.5, hi=4)},
                "bcast",
                (2, 3),
            ),
        ],
        lambda m, shape: m(*shape, lo=1.0, hi=3.0),
        # (alpha <= 1, 2: infinite mean / variance, compared with PyTorch in tests/distributions)
        outside=lambda m: (
            {"scale": T(np.array([1.0, 1.0])), "alpha": _pos(m, 2)},
            T(np.array([1.5, 0.5])),
        ),
        bad_params=lambda m: [{"scale": _pos(m, 2), "alpha": T(np.array([1.0, 0.0]))}],
        icdf_domain=True,
    ),
    MoreFamily(
        "InverseGamma",
        lambda m: [
            ({"concentration": _pos(m, 3, lo=2.5, hi=4), "rate": _pos(m, 3)}, "batch (3,)", (3,)),
            ({"concentration": _pos(m, 2, 3, lo=2.5, hi=4), "rate": _pos(m)}, "broadcast", (2, 3)),
        ],
        _positive_value,
        edges=lambda m: [
            (
                {"concentration": T(np.array([0.5, 1.5, 3.0])), "rate": _pos(m, 3)},
                None,
                "concentration at and below 1 and 2",
            )
        ],
        outside=lambda m: (
            {"concentration": _pos(m, 2), "rate": _pos(m, 2)},
            T(np.array([1.0, -0.5])),
        ),
        bad_params=lambda m: [{"concentration": T(np.array([1.0, -1.0])), "rate": _pos(m, 2)}],
    ),
    MoreFamily(
        "Dirichlet",
        lambda m: [
            ({"concentration": _pos(m, 3, lo=1.2, hi=3)}, "one simplex", (3,)),
            ({"concentration": _pos(m, 2, 3, lo=1.2, hi=3)}, "batch (2,)", (2, 3)),
        ],
        lambda m, shape: T(m.rng.dirichlet(np.ones(shape[-1]), shape[:-1]), grad=False),
        outside=lambda m: (
            {"concentration": _pos(m, 3)},
            T(np.array([0.5, 0.5, 0.5]), grad=False),
        ),
        bad_params=lambda m: [{"concentration": T(np.array([1.0, -1.0, 2.0]))}],
    ),
    MoreFamily(
        "Binomial",
        lambda m: [
            ({"total_count": _n(3), "probs": m(3, lo=0.1, hi=0.9)}, "probs", (3,)),
            ({"total_count": _n(2, 3), "logits": m(2, 3)}, "logits", (2, 3)),
            ({"total_count": _n(), "logits": m(3)}, "n broadcast", (3,)),
        ],
        lambda m, shape: T(m.rng.integers(0, 6, shape).astype(np.float64), grad=False),
        outside=lambda m: (
            {"total_count": _n(2), "probs": m(2, lo=0.1, hi=0.9)},
            T(np.array([1.0, 6.0]), grad=False),
        ),
        bad_params=lambda m: [{"total_count": _n(2), "probs": T(np.array([0.5, 1.5]))}],
    ),
    MoreFamily(
        "NegativeBinomial",
        lambda m: [
            (
                {"total_count": _pos(m, 3, lo=0.5, hi=4), "probs": m(3, lo=0.1, hi=0.9)},
                "probs",
                (3,),
            ),
            ({"total_count": _pos(m, lo=1.5, hi=4), "logits": m(2, 3)}, "logits", (2, 3)),
        ],
        _counts,
        outside=lambda m: (
            {"total_count": _pos(m, 2), "probs": m(2, lo=0.1, hi=0.9)},
            T(np.array([1.0, 0.5]), grad=False),
        ),
        bad_params=lambda m: [{"total_count": _pos(m, 2), "probs": T(np.array([0.5, 1.0]))}],
    ),
    MoreFamily(
        "OneHotCategoricalStraightThrough",
        lambda m: [(kw, d, (*shape, 4)) for kw, d, shape in DB._categorical(m)],
        DB._one_hot,
        bad_params=lambda m: [{"probs": T(np.array([0.5, -0.1, 0.6]))}],
    ),
    MoreFamily(
        "RelaxedBernoulli",
        _relaxed,
        lambda m, shape: m(*shape, lo=0.05, hi=0.95),
        outside=lambda m: (
            {"temperature": _pos(m), "logits": m(2)},
            T(np.array([0.5, 1.5])),
        ),
        bad_params=lambda m: [{"temperature": _pos(m), "probs": T(np.array([0.5, 1.5]))}],
    ),
    MoreFamily(
        "FisherSnedecor",
        lambda m: [
            ({"df1": _pos(m, 3, lo=2.5, hi=8), "df2": _pos(m, 3, lo=4.5, hi=9)}, "batch", (3,)),
            ({"df1": _pos(m, lo=2.5, hi=8), "df2": _pos(m, 2, 3, lo=4.5, hi=9)}, "bcast", (2, 3)),
        ],
        _positive_value,
        edges=lambda m: [
            (
                {"df1": T(np.array([1.0, 3.0, 5.0])), "df2": T(np.array([1.5, 3.0, 6.0]))},
                None,
                "df1 <= 2, df2 <= 2 and <= 4",
            )
        ],
        outside=lambda m: ({"df1": _pos(m, 2), "df2": _pos(m, 2)}, T(np.array([1.0, -0.5]))),
        bad_params=lambda m: [{"df1": T(np.array([1.0, 0.0])), "df2": _pos(m, 2)}],
    ),
    MoreFamily(
        "Multinomial",
        lambda m: [
            (dict(kw, total_count=6), d, (*shape, 4)) for kw, d, shape in DB._categorical(m)
        ],
        lambda m, shape: T(
            m.rng.multinomial(6, np.full(shape[-1], 1 / shape[-1]), shape[:-1]).astype(np.float64),
            grad=False,
        ),
        outside=lambda m: (
            {"total_count": 6, "logits": m(2, 4)},
            T(np.array([[6.0, 0, 0, 0], [3.0, 3.5, 0, 0]]), grad=False),
        ),
        bad_params=lambda m: [{"total_count": 6, "probs": T(np.array([0.5, -0.1, 0.6]))}],
    ),
    MoreFamily(
        "TransformedDistribution",
        lambda m: [
            ({"loc": m(3), "scale": _pos(m, 3)}, "batch (3,)", (3,)),
            ({"loc": m(2, 3), "scale": _pos(m)}, "broadcast", (2, 3)),
        ],
        lambda m, shape: m(*shape, lo=0.05, hi=0.95),
        outside=lambda m: ({"loc": m(2), "scale": _pos(m, 2)}, T(np.array([0.5, 1.5]))),
        icdf_domain=True,
    ),
]

# constants made fresh (an infinite variance, a zero mode) and floors: no graph, as PyTorch's
NOT_DIFFERENTIABLE = {
    ("Cauchy", "mean"),
    ("Cauchy", "variance"),
    ("Cauchy", "stddev"),
    ("HalfCauchy", "mean"),
    ("HalfCauchy", "mode"),
    ("HalfCauchy", "variance"),
    ("HalfCauchy", "stddev"),
    ("HalfNormal", "mode"),
    ("Poisson", "mode"),
    ("Geometric", "mode"),
    ("Binomial", "mode"),
    ("NegativeBinomial", "mode"),
    ("OneHotCategoricalStraightThrough", "mode"),
    ("OneHotCategoricalStraightThrough", "enumerate_support"),
    ("Binomial", "enumerate_support"),
}


def _kl_entry(fam: Family) -> OpEntry:
    def ref(p: str, q: str, **kw):
        split = [{k[2:]: v for k, v in kw.items() if k.startswith(x)} for x in ("p_", "q_")]
        return RM.KL[fam.cls](*split)

    entry = OpEntry(
        name="distributions.kl_divergence",
        variant=f"{fam.cls},{fam.cls}",
        samples=lambda: DB._kl_samples(fam, Maker(entry.rng().integers(1 << 30))),
        ref=ref,
        call=DB._kl_call,
        dtype=DB._param_dtype,
        tol=DB.TOL,
    )
    return entry


# digamma and lgamma cancel in InverseGamma's entropy near 0: a wider absolute tolerance
TOL = {"InverseGamma": {"float64": (1e-9, 1e-10), "float32": (5e-5, 5e-6)}}


def _value_entry(fam: Family, attr: str) -> OpEntry:
    entry = DB._entry(fam, attr)
    if (fam.cls, attr) in NOT_DIFFERENTIABLE:
        entry = dataclasses.replace(entry, differentiable=False)
    if fam.cls in TOL:
        entry = dataclasses.replace(entry, tol=TOL[fam.cls])
    return entry


def _attrs(fam: Family) -> list[str]:
    public = distribution_names()
    return [a for a in fam.refs if f"distributions.{fam.cls}.{a}" in public]


def _has(fam: Family, attr: str) -> bool:
    return f"distributions.{fam.cls}.{attr}" in distribution_names()


ENTRIES = [
    *(_value_entry(fam, attr) for fam in FAMILIES for attr in _attrs(fam)),
    # (InverseGamma's draws are its Gamma base's, whose gradient is implicit: see
    # IMPLICIT_GRADIENT; the straight-through gradient is not the draws' derivative by design)
    *(
        DB._rsample_entry(fam)
        for fam in FAMILIES
        if _has(fam, "rsample")
        and fam.cls not in (*DB.IMPLICIT_GRADIENT, "OneHotCategoricalStraightThrough")
    ),
    *(_kl_entry(fam) for fam in FAMILIES if fam.cls in RM.KL),
]
