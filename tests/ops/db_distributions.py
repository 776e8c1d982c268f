"""mg.distributions: for every distribution, its log_prob, cdf, icdf, entropy, perplexity,
moments (mean, mode, variance, stddev), derived parameters (probs / logits, the MVN's matrices),
rsample, and kl_divergence for each registered pair.

An entry is named ``distributions.<Class>.<method>`` (``distributions.kl_divergence`` with the
pair as its variant); its samples carry the constructor's parameters as keywords and the value
(log_prob's, cdf's) as the one positional argument, and ``call`` builds the distribution in
either library. The parameters are drawn inside their constraints, the values inside the
support, so the battery's central differences are valid; the edges of the support (0 and 1 of a
Beta, a Bernoulli's p = 0 or 1, x = 0 of an Exponential) are compared with PyTorch only.
With ``validate_args=True`` a value outside the support and a parameter outside its constraint
raise ValueError, as PyTorch's do (the entries' error samples); with ``validate_args=False`` a
value outside the support is computed by the formula.

rsample runs under a fixed seed (restored afterwards), so the draws are a deterministic function
of the parameters and the battery checks their pathwise gradients by central differences;
``test_rsample_pathwise.py`` checks them against closed forms.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable

import numpy as np

import minigenesis as mg

from . import references_distributions as R
from .core import OpEntry, Sample, T
from .public_api import distribution_names
from .simple import Maker, S

# Gamma's log-density, Beta's: lgamma / digamma in the float64 reference, to ~1e-13
TOL = {"float64": (1e-9, 1e-11), "float32": (5e-5, 5e-6)}
SEED = 20260


# ----------------------------------------------------------------------------- building calls
def build(lib, cls: str, kw: dict):
    """The distribution ``cls`` of either library from the sample's keywords. The MVN's
    matrices are made valid from any square input (the lower triangle of scale_tril, the
    symmetric part of a covariance or precision), so central differences stay in the domain."""
    kw = dict(kw)
    D = lib.L.distributions
    if cls == "Independent":
        n = kw.pop("reinterpreted_batch_ndims", 1)
        validate = kw.pop("validate_args", None)
        return D.Independent(D.Normal(**kw, validate_args=validate), n, validate_args=validate)
    if cls == "TransformedDistribution":  # a logit-normal: a Normal through a sigmoid
        return D.TransformedDistribution(D.Normal(**kw), [D.SigmoidTransform()])
    if cls == "MixtureSameFamily":  # Normal components, weighted by a Categorical
        mix = D.Categorical(logits=kw.pop("logits"))
        return D.MixtureSameFamily(mix, D.Normal(**kw))
    if cls == "MultivariateNormal":
        if "scale_tril" in kw:
            kw["scale_tril"] = kw["scale_tril"].tril()
        for name in ("covariance_matrix", "precision_matrix"):
            if name in kw:
                kw[name] = (kw[name] + kw[name].mT) / 2
    return getattr(D, cls)(**kw)


def _method(cls: str, attr: str, is_property: bool) -> Callable:
    def call(lib, *args, **kw):
        d = build(lib, cls, kw)
        return getattr(d, attr) if is_property else getattr(d, attr)(*args)

    return call


def _rsample(cls: str) -> Callable:
    """Four draws per batch element under a fixed seed, the generator's state restored."""

    def call(lib, **kw):
        state = lib.L.get_rng_state()
        lib.L.manual_seed(SEED)
        try:
            return build(lib, cls, kw).rsample((4,))
        finally:
            lib.L.set_rng_state(state)

    return call


def _param_dtype(sample: Sample) -> str:
    return next(t.dtype for t in sample.kwargs.values() if isinstance(t, T) and t.is_float)


def _as(dtype: str, kw: dict) -> dict:
    return {
        k: dataclasses.replace(v, dtype=dtype) if isinstance(v, T) and v.is_float else v
        for k, v in kw.items()
    }


# --------------------------------------------------------------------------------- families
@dataclasses.dataclass
class Family:
    """One distribution: its parameter sets, values in its support and at its edges, and the
    invalid inputs that must raise."""

    cls: str
    params: Callable  # Maker -> [(kwargs, desc, the shape of a value for one draw)]
    value: Callable  # (Maker, shape) -> T inside the support
    edges: Callable = lambda m: []  # Maker -> [(kwargs, value T or None, desc)]: PyTorch only
    outside: Callable | None = None  # Maker -> (kwargs, value outside the support)
    bad_params: Callable | None = None  # Maker -> [kwargs violating a constraint]
    icdf_domain: bool = False  # icdf is defined on (0, 1)

    @property
    def refs(self) -> dict:
        return R.FAMILIES[self.cls]


def _pos(m, *shape, lo=0.5, hi=2.0, **k):
    return m(*shape, lo=lo, hi=hi, **k)


def _loc_scale_params(m):
    return [
        ({"loc": m(3), "scale": _pos(m, 3)}, "batch (3,)", (3,)),
        ({"loc": m(), "scale": _pos(m)}, "0-d", ()),
        (
            {"loc": m(2, 3, layout="transposed"), "scale": _pos(m, 3)},
            "broadcast, transposed",
            (2, 3),
        ),
        ({"loc": m(0), "scale": _pos(m, 0)}, "size-0 batch", (0,)),
    ]


def _real(m, shape):
    return m(*shape, lo=-3, hi=3)


def _rate(m):
    return [
        ({"rate": _pos(m, 3)}, "batch (3,)", (3,)),
        ({"rate": _pos(m)}, "0-d", ()),
        ({"rate": _pos(m, 2, 3, layout="strided")}, "strided", (2, 3)),
    ]


def _conc_rate(m):
    return [
        ({"concentration": _pos(m, 3, lo=0.5, hi=3), "rate": _pos(m, 3)}, "batch (3,)", (3,)),
        ({"concentration": _pos(m, 2, 3, lo=1.5, hi=3), "rate": _pos(m)}, "broadcast", (2, 3)),
    ]


def _beta(m):
    c1, c0 = "concentration1", "concentration0"
    return [
        ({c1: _pos(m, 3, lo=0.5, hi=3), c0: _pos(m, 3, lo=0.5, hi=3)}, "batch (3,)", (3,)),
        ({c1: _pos(m, 2, 3, lo=1.5, hi=3), c0: _pos(m, lo=1.5, hi=3)}, "broadcast", (2, 3)),
    ]


def _uniform(m):
    return [
        ({"low": m(3, lo=-2, hi=-0.5), "high": _pos(m, 3)}, "batch (3,)", (3,)),
        ({"low": m(lo=-2, hi=-0.5), "high": _pos(m, 2, 3)}, "broadcast", (2, 3)),
    ]


def _binary(m):
    return [
        ({"probs": m(3, lo=0.1, hi=0.9)}, "probs", (3,)),
        ({"logits": m(2, 3)}, "logits", (2, 3)),
        ({"logits": T(np.zeros(3))}, "logits 0", (3,)),
    ]


def _categorical(m):
    return [
        ({"probs": m(3, 4, lo=0.1, hi=1)}, "probs", (3,)),
        ({"logits": m(2, 4)}, "logits", (2,)),
        ({"logits": m(4, layout="strided")}, "logits, no batch", ()),
    ]


def _mvn(m):
    def tri(*shape):
        low = np.tril(m.rng.uniform(-0.5, 0.5, shape))
        idx = np.arange(shape[-1])
        low[..., idx, idx] = m.rng.uniform(0.7, 1.5, shape[:-1])
        return low

    def spd(*shape):
        low = tri(*shape)
        return low @ np.swapaxes(low, -1, -2)

    return [
        ({"loc": m(3), "scale_tril": T(tri(3, 3))}, "scale_tril", (3,)),
        ({"loc": m(2, 3), "covariance_matrix": T(spd(3, 3))}, "covariance, batch", (2, 3)),
        ({"loc": m(2), "precision_matrix": T(spd(2, 2))}, "precision", (2,)),
        ({"loc": m(2), "scale_tril": T(tri(2, 2, 2))}, "batched scale_tril", (2, 2)),
    ]


def _bernoulli_edges(m):
    x = T(np.array([0.0, 1.0, 0.0, 1.0, 1.0, 0.0]), grad=False)
    return [({"probs": T(np.array([0.0, 0.0, 1.0, 1.0, 0.5, 0.5]))}, x, "p at 0, 1/2, 1")]


def _one_hot(m, shape):
    k = shape[-1]
    return T(np.eye(k)[m.rng.integers(0, k, shape[:-1])], grad=False)


FAMILIES = [
    Family(
        "Normal",
        _loc_scale_params,
        _real,
        outside=None,
        bad_params=lambda m: [{"loc": m(3), "scale": m(3, lo=-2, hi=-0.5)}],
        icdf_domain=True,
    ),
    Family(
        "Laplace",
        _loc_scale_params,
        _real,
        bad_params=lambda m: [{"loc": m(3), "scale": T(np.array([1.0, 0.0, 2.0]))}],
        icdf_domain=True,
    ),
    Family(
        "Exponential",
        _rate,
        lambda m, shape: m(*shape, lo=0.1, hi=3),
        edges=lambda m: [({"rate": _pos(m, 3)}, T(np.zeros(3)), "x = 0")],
        outside=lambda m: ({"rate": _pos(m, 3)}, T(np.array([1.0, -0.5, 2.0]))),
        bad_params=lambda m: [{"rate": T(np.array([1.0, -1.0]))}],
        icdf_domain=True,
    ),
    Family(
        "Gamma",
        _conc_rate,
        lambda m, shape: m(*shape, lo=0.1, hi=3),
        edges=lambda m: [
            (
                {"concentration": T(np.array([1.0, 2.0, 0.5])), "rate": _pos(m, 3)},
                T(np.zeros(3)),
                "x = 0",
            )
        ],
        outside=lambda m: ({"concentration": _pos(m, 3), "rate": _pos(m, 3)}, T(-np.ones(3))),
        bad_params=lambda m: [{"concentration": T(np.array([0.0, 1.0])), "rate": _pos(m, 2)}],
    ),
    Family(
        "Beta",
        _beta,
        lambda m, shape: m(*shape, lo=0.1, hi=0.9),
        edges=lambda m: [
            (
                {
                    "concentration1": T(np.array([1.0, 1.0, 2.0, 0.5])),
                    "concentration0": T(np.array([1.0, 2.0, 1.0, 3.0])),
                },
                T(np.array([0.0, 1.0, 0.0, 0.25])),
                "x at 0 and 1",
            ),
            (
                {
                    "concentration1": T(np.array([0.5, 2.0, 0.7, 0.5])),
                    "concentration0": T(np.array([2.0, 0.5, 0.7, 0.5])),
                },
                None,
                "a or b below 1 (the mode at an end)",
            ),
        ],
        outside=lambda m: (
            {"concentration1": _pos(m, 2), "concentration0": _pos(m, 2)},
            T(np.array([0.5, 1.5])),
        ),
        bad_params=lambda m: [
            {"concentration1": T(np.array([-1.0])), "concentration0": T(np.ones(1))}
        ],
    ),
    Family(
        "Uniform",
        _uniform,
        lambda m, shape: m(*shape, lo=-0.4, hi=0.4),
        edges=lambda m: [
            (
                {"low": T(np.array([-1.0, -1.0])), "high": T(np.array([1.0, 1.0]))},
                T(np.array([-1.0, 1.0])),
                "x at low, high",
            )
        ],
        outside=lambda m: ({"low": T(-np.ones(2)), "high": T(np.ones(2))}, T(np.array([0.0, 1.5]))),
        bad_params=lambda m: [{"low": T(np.array([0.0, 1.0])), "high": T(np.array([1.0, 1.0]))}],
        icdf_domain=True,
    ),
    Family(
        "Bernoulli",
        _binary,
        lambda m, shape: T((m.rng.random(shape) < 0.5).astype(np.float64), grad=False),
        edges=_bernoulli_edges,
        outside=lambda m: ({"probs": m(2, lo=0.1, hi=0.9)}, T(np.array([0.0, 0.5]), grad=False)),
        bad_params=lambda m: [{"probs": T(np.array([0.5, 1.5]))}],
    ),
    Family(
        "Categorical",
        _categorical,
        lambda m, shape: m.ints(0, 4, *shape),
        edges=lambda m: [
            (
                {"probs": T(np.array([[0.5, 0.0, 0.5, 0.0], [0.0, 0.0, 1.0, 0.0]]))},
                T(np.array([0, 2]), "int64", grad=False),
                "zero probabilities",
            )
        ],
        outside=lambda m: ({"logits": m(2, 4)}, T(np.array([1, 4]), "int64", grad=False)),
        bad_params=lambda m: [{"probs": T(np.array([0.5, -0.1, 0.6]))}],
    ),
    Family(
        "OneHotCategorical",
        lambda m: [(kw, d, (*shape, 4)) for kw, d, shape in _categorical(m)],
        _one_hot,
        outside=lambda m: (
            {"logits": m(2, 4)},
            T(np.array([[1.0, 0, 0, 0], [0, 1.0, 1.0, 0]]), grad=False),
        ),
        bad_params=lambda m: [{"probs": T(np.array([0.5, -0.1, 0.6]))}],
    ),
    Family(
        "MultivariateNormal",
        _mvn,
        _real,
        bad_params=lambda m: [
            {"loc": m(2), "scale_tril": T(np.array([[1.0, 0.0], [0.5, -1.0]]))},
            {"loc": m(2), "covariance_matrix": T(np.array([[1.0, 2.0], [2.0, 1.0]]))},
        ],
    ),
    Family(
        "MixtureSameFamily",
        lambda m: [
            ({"logits": m(3), "loc": m(3), "scale": _pos(m, 3)}, "3 components", ()),
            ({"logits": m(2, 3), "loc": m(2, 3), "scale": _pos(m, 2, 3)}, "batch (2,)", (2,)),
        ],
        _real,
    ),
    Family(
        "Independent",
        lambda m: [(kw, d, shape) for kw, d, shape in _loc_scale_params(m) if shape],
        _real,
        bad_params=lambda m: [{"loc": m(3), "scale": T(np.array([1.0, -1.0, 1.0]))}],
    ),
]

VALUE_METHODS = ("log_prob", "cdf", "icdf")
NOT_DIFFERENTIABLE = {
    # draws of a discrete choice, constants, or a tensor made fresh: no graph, as PyTorch's
    ("Bernoulli", "mode"),
    ("Categorical", "mode"),
    ("Categorical", "mean"),
    ("Categorical", "variance"),
    ("Categorical", "stddev"),
    ("OneHotCategorical", "mode"),
    ("Exponential", "mode"),
    ("Uniform", "mode"),
    ("Bernoulli", "enumerate_support"),
    ("Categorical", "enumerate_support"),
    ("OneHotCategorical", "enumerate_support"),
}


INT_VALUED = ("mode", "enumerate_support")  # a Categorical's categories: int64


def _samples(fam: Family, attr: str, m: Maker) -> list[Sample]:
    out = []
    params = fam.params(m)
    for kw, desc, shape in params:
        if attr in VALUE_METHODS:
            value = m(*shape, lo=0.05, hi=0.95) if attr == "icdf" else fam.value(m, shape)
            out.append(S(value, desc=desc, **kw))
            if shape and 0 not in shape:
                wider = (
                    m(2, *shape, lo=0.05, hi=0.95) if attr == "icdf" else fam.value(m, (2, *shape))
                )
                out.append(S(wider, desc=f"{desc}, a sample dim", **kw))
        else:
            out.append(S(desc=desc, **kw))
    kw, desc, shape = params[0]
    if attr in VALUE_METHODS:
        value = m(*shape, lo=0.05, hi=0.95) if attr == "icdf" else fam.value(m, shape)
        f32 = dataclasses.replace(value, dtype="float32") if value.is_float else value
        out.append(S(f32, desc="float32", **_as("float32", kw)))
    else:
        out.append(S(desc="float32", **_as("float32", kw)))
    for kw, value, desc in fam.edges(m):
        if (value is None) == (attr in VALUE_METHODS) or attr == "icdf":
            continue
        args = (value,) if value is not None else ()
        out.append(
            S(
                *args,
                desc=desc,
                grad=False,
                gradgrad=False,
                ref=attr != "log_prob" or fam.cls != "Bernoulli",
                **kw,
            )
        )
    if attr == "log_prob" and fam.outside:
        kw, value = fam.outside(m)
        if fam.cls in ("Exponential", "Uniform"):  # the formula, unvalidated, is defined there
            out.append(S(value, validate_args=False, desc="outside, unvalidated", grad=False, **kw))
    return out


def _errors(fam: Family, attr: str, m: Maker):
    """log_prob (and cdf) of a value outside the support; any distribution built from a
    parameter outside its constraint (on the entropy entry: construction is what raises)."""
    if attr in ("log_prob", "cdf") and fam.outside:
        kw, value = fam.outside(m)
        if attr == "log_prob" or fam.cls in ("Exponential", "Uniform"):
            yield S(value, validate_args=True, desc="value outside the support", **kw), ValueError
    if attr == "entropy" and fam.bad_params:
        for kw in fam.bad_params(m):
            yield S(validate_args=True, desc="parameter outside its constraint", **kw), ValueError


def _is_property(cls: str, attr: str) -> bool:
    return not inspect.isfunction(getattr(getattr(mg.distributions, cls), attr))


def _ref(fn: Callable | None) -> Callable | None:
    """The reference, called without the sample's ``validate_args``."""
    if fn is None:
        return None
    return lambda *a, validate_args=None, **k: fn(*a, **k)


def _entry(fam: Family, attr: str) -> OpEntry:
    errors = list(_errors(fam, attr, Maker(1)))
    entry = OpEntry(
        name=f"distributions.{fam.cls}.{attr}",
        samples=lambda: _samples(fam, attr, Maker(entry.rng().integers(1 << 30))),
        ref=_ref(fam.refs.get(attr)),
        call=_method(fam.cls, attr, _is_property(fam.cls, attr)),
        dtype="int64" if fam.cls == "Categorical" and attr in INT_VALUED else _param_dtype,
        differentiable=(fam.cls, attr) not in NOT_DIFFERENTIABLE,
        errors=(lambda: errors) if errors else None,
        tol=TOL,
    )
    return entry


def _rsample_samples(fam: Family, m: Maker) -> list[Sample]:
    params = fam.params(m)
    out = [S(desc=desc, **kw) for kw, desc, _ in params]
    return [*out, S(desc="float32", **_as("float32", params[0][0]))]


# Families whose draws are differentiated implicitly (through the CDF, gamma_grad.py):
# not the derivative of the sampler at a fixed seed, so no rsample entry for
# the battery's finite differences; tests/distributions/test_gamma_rsample.py checks the
# gradient against the CDF's, tests/distributions/test_rsample_from_gamma.py the families
# built on Gamma draws against closed-form gradients of their expectations
IMPLICIT_GRADIENT = {
    "Gamma",
    "Chi2",
    "InverseGamma",
    "Beta",
    "Dirichlet",
    "StudentT",
    "FisherSnedecor",
}


def _rsample_entry(fam: Family) -> OpEntry:
    entry = OpEntry(
        name=f"distributions.{fam.cls}.rsample",
        samples=lambda: _rsample_samples(fam, Maker(entry.rng().integers(1 << 30))),
        ref=None,  # the draws themselves: test_rsample_pathwise.py checks their law
        call=_rsample(fam.cls),
        dtype=_param_dtype,
        torch=False,  # PyTorch's generator draws other numbers
    )
    return entry


# ------------------------------------------------------------------------------ KL divergence
def _kl_call(lib, p: str, q: str, **kw):
    def part(prefix: str) -> dict:
        return {k[2:]: v for k, v in kw.items() if k.startswith(prefix)}

    return lib.L.distributions.kl_divergence(build(lib, p, part("p_")), build(lib, q, part("q_")))


def _kl_ref(fam: Family) -> Callable:
    def ref(p: str, q: str, **kw):
        split = [{k[2:]: v for k, v in kw.items() if k.startswith(x)} for x in ("p_", "q_")]
        return R.KL[fam.cls](*split)

    return ref


def _pair(p: dict, q: dict) -> dict:
    return {**{f"p_{k}": v for k, v in p.items()}, **{f"q_{k}": v for k, v in q.items()}}


def _covering(m: Maker, p: dict) -> dict:
    """A Uniform whose interval holds p's (else the KL is infinite)."""
    low, high = p["low"].values, p["high"].values
    return {
        "low": T(low - m.rng.uniform(0.1, 1, low.shape)),
        "high": T(high + m.rng.uniform(0.1, 1, high.shape)),
    }


def _kl_samples(fam: Family, m: Maker) -> list[Sample]:
    c = fam.cls
    ps, qs = fam.params(m), fam.params(m)
    out = []
    for (p, desc, _), (q, _, _) in zip(ps, qs):
        q = _covering(m, p) if c == "Uniform" else q
        out.append(S(c, c, desc=desc, **_pair(p, q)))
    p = ps[0][0]
    out.append(S(c, c, desc="p = q", **_pair(p, p)))
    q = _covering(m, p) if c == "Uniform" else qs[0][0]
    out.append(S(c, c, desc="float32", **_as("float32", _pair(p, q))))
    if c == "MultivariateNormal":  # scale_tril against a batch of covariances
        out.append(S(c, c, desc="mixed forms", **_pair(ps[0][0], qs[1][0])))
    # (not Bernoulli: PyTorch's KL raises IndexError for two batch shapes, its masked writes
    # don't broadcast; ours broadcasts, checked against the reference by "p = q" below)
    if len(ps) > 1 and c not in (
        "MultivariateNormal",
        "Categorical",
        "OneHotCategorical",
        "Bernoulli",
    ):
        out.append(
            S(
                c,
                c,
                desc="batch against broadcast",
                **_pair(ps[0][0], qs[1][0] if c != "Uniform" else _covering(m, ps[0][0])),
            )
        )
    for kw, desc in _kl_edges(c):
        out.append(S(c, c, desc=desc, grad=False, gradgrad=False, **kw))
    return out


def _kl_edges(c: str) -> list:
    if c == "Uniform":
        p = {"low": T(np.array([-1.0, 0.0])), "high": T(np.array([1.0, 2.0]))}
        q = {"low": T(np.array([-0.5, 0.0])), "high": T(np.array([1.0, 2.0]))}
        return [(_pair(p, q), "q not covering p; equal intervals")]
    if c == "Bernoulli":
        p = {"probs": T(np.array([0.0, 1.0, 0.5, 0.0, 1.0]))}
        q = {"probs": T(np.array([0.5, 0.5, 0.0, 0.0, 1.0]))}
        return [(_pair(p, q), "p or q at 0 or 1")]
    if c in ("Categorical", "OneHotCategorical"):
        p = {"probs": T(np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]))}
        q = {"probs": T(np.array([[0.2, 0.4, 0.4], [0.5, 0.5, 0.0]]))}
        return [(_pair(p, q), "zero probabilities in p, in q")]
    return []


def _kl_errors(fam: Family):
    c = fam.cls
    m = Maker(2)
    p = fam.params(m)[0][0]
    # a pair neither library registers (PyTorch has the continuous cross pairs, we don't)
    other = "Bernoulli" if c != "Bernoulli" else "Normal"
    q = _binary(m)[0][0] if other == "Bernoulli" else _loc_scale_params(m)[0][0]
    yield S(c, other, desc="an unregistered pair", **_pair(p, q)), NotImplementedError
    if c == "MultivariateNormal":
        q = fam.params(m)[2][0]
        yield S(c, c, desc="different event sizes", **_pair(p, q)), ValueError


def _kl_entry(fam: Family) -> OpEntry:
    entry = OpEntry(
        name="distributions.kl_divergence",
        variant=f"{fam.cls},{fam.cls}",
        samples=lambda: _kl_samples(fam, Maker(entry.rng().integers(1 << 30))),
        ref=_kl_ref(fam),
        call=_kl_call,
        dtype=_param_dtype,
        errors=lambda: list(_kl_errors(fam)),
        tol=TOL,
    )
    return entry


def _attrs(fam: Family) -> list[str]:
    cls = getattr(mg.distributions, fam.cls)
    return [a for a in fam.refs if hasattr(cls, a) and f"distributions.{fam.cls}.{a}" in PUBLIC]


PUBLIC = distribution_names()
ENTRIES = [
    *(_entry(fam, attr) for fam in FAMILIES for attr in _attrs(fam)),
    *(
        _rsample_entry(fam)
        for fam in FAMILIES
        if f"distributions.{fam.cls}.rsample" in PUBLIC and fam.cls not in IMPLICIT_GRADIENT
    ),
    *(_kl_entry(fam) for fam in FAMILIES if fam.cls in R.KL),
]
