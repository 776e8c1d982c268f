"""Float64 closed forms for the distributions built on transforms and the heavier-tailed and
counting families (LogNormal, HalfNormal, Cauchy, HalfCauchy, Gumbel, Chi2, StudentT, Poisson,
Geometric, and a logit-normal TransformedDistribution), written from the textbook densities,
for ``db_distributions_more.py``. Conventions as in ``references_distributions.py``."""

from __future__ import annotations

import math

import numpy as np

from .references import digamma, erfinv, lgamma
from .references_distributions import (
    GAMMA,
    HALF_LOG_2PI,
    NORMAL,
    ONE_HOT_CATEGORICAL,
    _f,
    categorical_logits,
    categorical_p,
    full,
    kl_gamma,
)

EULER = 0.57721566490153286060
_erf = np.vectorize(math.erf, otypes=[np.float64])


def _phi(z):
    return 0.5 * (1 + _erf(_f(z) / math.sqrt(2)))


def _nan(*params, **named):
    params = (*params, *named.values())
    return np.full(np.broadcast_shapes(*(np.shape(p) for p in params)), np.nan)


def _inf(*params, **named):
    params = (*params, *named.values())
    return np.full(np.broadcast_shapes(*(np.shape(p) for p in params)), np.inf)


def _zeros(*params, **named):
    params = (*params, *named.values())
    return np.zeros(np.broadcast_shapes(*(np.shape(p) for p in params)))


LOG_NORMAL = {
    "log_prob": lambda x, loc, scale: NORMAL["log_prob"](np.log(x), loc, scale) - np.log(x),
    "entropy": lambda loc, scale: NORMAL["entropy"](loc, scale) + loc,
    "mean": lambda loc, scale: np.exp(loc + _f(scale) ** 2 / 2),
    "mode": lambda loc, scale: np.exp(loc - _f(scale) ** 2),
    "variance": lambda loc, scale: np.expm1(_f(scale) ** 2) * np.exp(2 * _f(loc) + scale**2),
    "stddev": lambda loc, scale: np.sqrt(np.expm1(_f(scale) ** 2) * np.exp(2 * _f(loc) + scale**2)),
    "cdf": lambda x, loc, scale: _phi((np.log(x) - loc) / scale),
    "icdf": lambda p, loc, scale: np.exp(loc + scale * math.sqrt(2) * erfinv(2 * _f(p) - 1)),
}

HALF_NORMAL = {
    "log_prob": lambda x, scale: (
        math.log(2) - _f(x) ** 2 / (2 * _f(scale) ** 2) - np.log(scale) - HALF_LOG_2PI
    ),
    "entropy": lambda scale: 0.5 * np.log(math.pi * _f(scale) ** 2 / 2) + 0.5,
    "mean": lambda scale: _f(scale) * math.sqrt(2 / math.pi),
    "mode": _zeros,
    "variance": lambda scale: _f(scale) ** 2 * (1 - 2 / math.pi),
    "stddev": lambda scale: _f(scale) * math.sqrt(1 - 2 / math.pi),
    "cdf": lambda x, scale: _erf(_f(x) / (_f(scale) * math.sqrt(2))),
    "icdf": lambda p, scale: scale * math.sqrt(2) * erfinv(_f(p)),
}

CAUCHY = {
    "log_prob": lambda x, loc, scale: (
        -np.log(math.pi * _f(scale)) - np.log1p(((x - _f(loc)) / scale) ** 2)
    ),
    "entropy": lambda loc, scale: full(np.log(4 * math.pi * _f(scale)), loc),
    "mean": _nan,
    "mode": lambda loc, scale: full(loc, scale),
    "variance": _inf,
    "stddev": _inf,
    "cdf": lambda x, loc, scale: 0.5 + np.arctan((x - _f(loc)) / scale) / math.pi,
    "icdf": lambda p, loc, scale: loc + scale * np.tan(math.pi * (_f(p) - 0.5)),
}

HALF_CAUCHY = {
    "log_prob": lambda x, scale: (
        math.log(2) - np.log(math.pi * _f(scale)) - np.log1p((_f(x) / scale) ** 2)
    ),
    "entropy": lambda scale: np.log(2 * math.pi * _f(scale)),
    "mean": _inf,
    "mode": _zeros,
    "variance": _inf,
    "stddev": _inf,
    "cdf": lambda x, scale: 2 / math.pi * np.arctan(_f(x) / scale),
    "icdf": lambda p, scale: scale * np.tan(math.pi * _f(p) / 2),
}


def _gumbel_z(x, loc, scale):
    return (_f(x) - loc) / scale


GUMBEL = {
    "log_prob": lambda x, loc, scale: (
        -_gumbel_z(x, loc, scale) - np.exp(-_gumbel_z(x, loc, scale)) - np.log(scale)
    ),
    "entropy": lambda loc, scale: full(np.log(scale) + 1 + EULER, loc),
    "mean": lambda loc, scale: loc + _f(scale) * EULER,
    "mode": lambda loc, scale: full(loc, scale),
    "variance": lambda loc, scale: full((math.pi * _f(scale)) ** 2 / 6, loc),
    "stddev": lambda loc, scale: full(math.pi * _f(scale) / math.sqrt(6), loc),
    "cdf": lambda x, loc, scale: np.exp(-np.exp(-_gumbel_z(x, loc, scale))),
    "icdf": lambda p, loc, scale: loc - scale * np.log(-np.log(_f(p))),
}

CHI2 = {
    "log_prob": lambda x, df: GAMMA["log_prob"](x, _f(df) / 2, 0.5),
    "entropy": lambda df: GAMMA["entropy"](_f(df) / 2, full(0.5, df)),
    "mean": lambda df: _f(df),
    "mode": lambda df: np.maximum(_f(df) - 2, 0),
    "variance": lambda df: 2 * _f(df),
    "stddev": lambda df: np.sqrt(2 * _f(df)),
    "df": lambda df: _f(df),
}


def _student_log_prob(x, df, loc=0.0, scale=1.0):
    v, z = _f(df), (_f(x) - loc) / scale
    return (
        lgamma((v + 1) / 2)
        - lgamma(v / 2)
        - 0.5 * np.log(v * math.pi)
        - np.log(scale)
        - (v + 1) / 2 * np.log1p(z**2 / v)
    )


def _student_entropy(df, loc=0.0, scale=1.0):
    v = np.broadcast_to(_f(df), np.broadcast_shapes(*(np.shape(p) for p in (df, loc, scale))))
    log_b = lgamma(v / 2) + math.lgamma(0.5) - lgamma((v + 1) / 2)
    return (
        np.log(scale) + (v + 1) / 2 * (digamma((v + 1) / 2) - digamma(v / 2)) + 0.5 * np.log(v)
    ) + log_b


def _student_variance(df, loc=0.0, scale=1.0):
    v = np.broadcast_to(_f(df), np.broadcast_shapes(*(np.shape(p) for p in (df, loc, scale))))
    with np.errstate(all="ignore"):
        var = _f(scale) ** 2 * v / (v - 2)
    return np.where(v > 2, var, np.where(v > 1, np.inf, np.nan))


STUDENT_T = {
    "log_prob": _student_log_prob,
    "entropy": _student_entropy,
    "mean": lambda df, loc=0.0, scale=1.0: np.where(_f(df) > 1, full(loc, df, scale), np.nan),
    "mode": lambda df, loc=0.0, scale=1.0: full(loc, df, scale),
    "variance": _student_variance,
    "stddev": lambda df, loc=0.0, scale=1.0: np.sqrt(_student_variance(df, loc, scale)),
}

POISSON = {
    "log_prob": lambda x, rate: _f(x) * np.log(rate) - rate - lgamma(_f(x) + 1),
    "mean": lambda rate: _f(rate),
    "mode": lambda rate: np.floor(rate),
    "variance": lambda rate: _f(rate),
    "stddev": lambda rate: np.sqrt(rate),
}


def geometric_p(probs=None, logits=None):
    return _f(probs) if probs is not None else 1 / (1 + np.exp(-_f(logits)))


def _geometric_logits(probs=None, logits=None):
    if logits is not None:
        return _f(logits)
    eps = float(np.finfo(np.float64).eps)
    p = np.clip(_f(probs), eps, 1 - eps)
    return np.log(p) - np.log1p(-p)


def _geometric_entropy(**k):
    p = geometric_p(**k)
    return -(p * np.log(p) + (1 - p) * np.log1p(-p)) / p


GEOMETRIC = {
    "log_prob": lambda x, **k: _f(x) * np.log1p(-geometric_p(**k)) + np.log(geometric_p(**k)),
    "entropy": _geometric_entropy,
    "mean": lambda **k: 1 / geometric_p(**k) - 1,
    "mode": lambda **k: np.zeros_like(geometric_p(**k)),
    "variance": lambda **k: (1 - geometric_p(**k)) / geometric_p(**k) ** 2,
    "stddev": lambda **k: np.sqrt(1 - geometric_p(**k)) / geometric_p(**k),
    "probs": geometric_p,
    "logits": _geometric_logits,
}


def _logit(y):
    return np.log(y) - np.log1p(-_f(y))


# TransformedDistribution(Normal(loc, scale), [SigmoidTransform()]): the logit-normal on (0, 1),
# p(y) = N(logit y; loc, scale) / (y (1 - y))
LOGIT_NORMAL = {
    "log_prob": lambda y, loc, scale: (
        NORMAL["log_prob"](_logit(y), loc, scale) - np.log(y) - np.log1p(-_f(y))
    ),
    "cdf": lambda y, loc, scale: _phi((_logit(y) - loc) / scale),
    "icdf": lambda p, loc, scale: 1 / (1 + np.exp(-NORMAL["icdf"](p, loc, scale))),
}

FAMILIES = {
    "LogNormal": LOG_NORMAL,
    "HalfNormal": HALF_NORMAL,
    "Cauchy": CAUCHY,
    "HalfCauchy": HALF_CAUCHY,
    "Gumbel": GUMBEL,
    "Chi2": CHI2,
    "StudentT": STUDENT_T,
    "Poisson": POISSON,
    "Geometric": GEOMETRIC,
    "TransformedDistribution": LOGIT_NORMAL,
}


# ------------------------------------------------------------------------------------- KL
def _kl_normal0(sp, sq):
    r = (_f(sp) / sq) ** 2
    return 0.5 * (r - 1 - np.log(r))


def _kl_gumbel(p, q):
    bp, bq, mp, mq = _f(p["scale"]), _f(q["scale"]), _f(p["loc"]), _f(q["loc"])
    return (
        np.log(bq / bp)
        + (mp - mq) / bq
        + EULER * bp / bq
        + np.exp((mq - mp) / bq + lgamma(1 + bp / bq))
        - 1
        - EULER
    )


def _kl_geometric(p, q):
    a, b = geometric_p(**p), geometric_p(**q)
    # E_p[k] = (1 - a) / a failures, each costing log((1 - a) / (1 - b)), one success log(a / b)
    return np.log(a / b) + (1 - a) / a * (np.log1p(-a) - np.log1p(-b))


def _kl_lognormal(p, q):
    """The Normals' KL: exp applied to both keeps it."""
    r = (_f(p["scale"]) / q["scale"]) ** 2
    return 0.5 * (r + ((_f(p["loc"]) - q["loc"]) / q["scale"]) ** 2 - 1 - np.log(r))


def _kl_chi2(p, q):
    def gamma(d):
        return {"concentration": _f(d["df"]) / 2, "rate": 0.5}

    return kl_gamma(gamma(p), gamma(q))


def _kl_poisson(p, q):
    a, b = _f(p["rate"]), _f(q["rate"])
    return a * np.log(a / b) - a + b


def _kl_dirichlet(p, q):
    a, b = np.broadcast_arrays(_f(p["concentration"]), _f(q["concentration"]))
    a0, b0 = a.sum(-1), b.sum(-1)
    return (
        lgamma(a0)
        - lgamma(b0)
        - (lgamma(a) - lgamma(b)).sum(-1)
        + ((a - b) * (digamma(a) - digamma(a0)[..., None])).sum(-1)
    )


# (Pareto's KL is infinite where p's scale is below q's: central differences across that edge
# are NaN, so it is checked in tests/distributions against Monte Carlo and PyTorch instead)
def _kl_binomial(p, q):
    a, b = (
        geometric_p(**{k: v for k, v in p.items() if k != "total_count"}),
        geometric_p(**{k: v for k, v in q.items() if k != "total_count"}),
    )
    return _f(p["total_count"]) * (a * np.log(a / b) + (1 - a) * np.log((1 - a) / (1 - b)))


KL = {
    "Binomial": _kl_binomial,
    "Dirichlet": _kl_dirichlet,
    "LogNormal": _kl_lognormal,
    "HalfNormal": lambda p, q: _kl_normal0(p["scale"], q["scale"]),
    "Gumbel": _kl_gumbel,
    "Chi2": _kl_chi2,
    "Poisson": _kl_poisson,
    "Geometric": _kl_geometric,
}


# ------------------------------------------------------------------ power laws and the simplex
def _weibull_z(x, scale):
    return _f(x) / scale


WEIBULL = {
    "log_prob": lambda x, scale, concentration: (
        np.log(_f(concentration) / scale)
        + (_f(concentration) - 1) * np.log(_weibull_z(x, scale))
        - _weibull_z(x, scale) ** concentration
    ),
    "cdf": lambda x, scale, concentration: -np.expm1(-(_weibull_z(x, scale) ** concentration)),
    "icdf": lambda p, scale, concentration: scale * (-np.log1p(-_f(p))) ** (1 / _f(concentration)),
    "entropy": lambda scale, concentration: (
        EULER * (1 - 1 / _f(concentration)) + np.log(_f(scale) / concentration) + 1
    ),
    "mean": lambda scale, concentration: scale * np.exp(lgamma(1 + 1 / _f(concentration))),
    "mode": lambda scale, concentration: (
        scale * ((_f(concentration) - 1) / concentration) ** (1 / _f(concentration))
    ),
    "variance": lambda scale, concentration: _weibull_var(scale, concentration),
    "stddev": lambda scale, concentration: np.sqrt(_weibull_var(scale, concentration)),
}


def _weibull_var(scale, k):
    g1, g2 = np.exp(lgamma(1 + 1 / _f(k))), np.exp(lgamma(1 + 2 / _f(k)))
    return _f(scale) ** 2 * (g2 - g1**2)


def _pareto_mean(scale, alpha):
    a = np.broadcast_to(_f(alpha), np.broadcast_shapes(np.shape(scale), np.shape(alpha)))
    with np.errstate(all="ignore"):
        return np.where(a > 1, a * _f(scale) / (a - 1), np.inf)


def _pareto_var(scale, alpha):
    a = np.broadcast_to(_f(alpha), np.broadcast_shapes(np.shape(scale), np.shape(alpha)))
    with np.errstate(all="ignore"):
        return np.where(a > 2, _f(scale) ** 2 * a / ((a - 1) ** 2 * (a - 2)), np.inf)


PARETO = {
    "log_prob": lambda x, scale, alpha: (
        np.log(alpha) + alpha * np.log(scale) - (_f(alpha) + 1) * np.log(x)
    ),
    "cdf": lambda x, scale, alpha: 1 - (_f(scale) / x) ** alpha,
    "icdf": lambda p, scale, alpha: scale * (1 - _f(p)) ** (-1 / _f(alpha)),
    "entropy": lambda scale, alpha: np.log(_f(scale) / alpha) + 1 / _f(alpha) + 1,
    "mean": _pareto_mean,
    "mode": lambda scale, alpha: full(scale, alpha),
    "variance": _pareto_var,
    "stddev": lambda scale, alpha: np.sqrt(_pareto_var(scale, alpha)),
}


def _inv_gamma_mean(concentration, rate):
    a = np.broadcast_to(
        _f(concentration), np.broadcast_shapes(np.shape(concentration), np.shape(rate))
    )
    with np.errstate(all="ignore"):
        return np.where(a > 1, rate / (a - 1), np.inf)


def _inv_gamma_var(concentration, rate):
    a = np.broadcast_to(
        _f(concentration), np.broadcast_shapes(np.shape(concentration), np.shape(rate))
    )
    with np.errstate(all="ignore"):
        return np.where(a > 2, _f(rate) ** 2 / ((a - 1) ** 2 * (a - 2)), np.inf)


INVERSE_GAMMA = {
    "log_prob": lambda x, concentration, rate: (
        concentration * np.log(rate)
        - lgamma(full(concentration, rate))
        - (_f(concentration) + 1) * np.log(x)
        - rate / _f(x)
    ),
    "entropy": lambda concentration, rate: (
        concentration
        + np.log(rate)
        + lgamma(full(concentration, rate))
        - (1 + _f(concentration)) * digamma(full(concentration, rate))
    ),
    "mean": _inv_gamma_mean,
    "mode": lambda concentration, rate: rate / (_f(concentration) + 1),
    "variance": _inv_gamma_var,
    "stddev": lambda concentration, rate: np.sqrt(_inv_gamma_var(concentration, rate)),
}


def _dirichlet_var(concentration):
    a = _f(concentration)
    a0 = a.sum(-1, keepdims=True)
    return a * (a0 - a) / (a0**2 * (a0 + 1))


DIRICHLET = {
    "log_prob": lambda x, concentration: (
        ((_f(concentration) - 1) * np.log(x)).sum(-1)
        + lgamma(_f(concentration).sum(-1))
        - lgamma(concentration).sum(-1)
    ),
    "entropy": lambda concentration: (
        lgamma(concentration).sum(-1)
        - lgamma(_f(concentration).sum(-1))
        + (_f(concentration).sum(-1) - _f(concentration).shape[-1])
        * digamma(_f(concentration).sum(-1))
        - ((_f(concentration) - 1) * digamma(concentration)).sum(-1)
    ),
    "mean": lambda concentration: _f(concentration) / _f(concentration).sum(-1, keepdims=True),
    "mode": lambda concentration: (
        (_f(concentration) - 1)
        / (_f(concentration).sum(-1, keepdims=True) - np.shape(concentration)[-1])
    ),
    "variance": _dirichlet_var,
    "stddev": lambda concentration: np.sqrt(_dirichlet_var(concentration)),
}

FAMILIES.update(
    {"Weibull": WEIBULL, "Pareto": PARETO, "InverseGamma": INVERSE_GAMMA, "Dirichlet": DIRICHLET}
)


# ------------------------------------------------------------------------------- Binomial
def _binomial_log_prob(x, total_count, **k):
    n, x, p = _f(total_count), _f(x), geometric_p(**k)
    log_choose = lgamma(n + 1) - lgamma(x + 1) - lgamma(n - x + 1)
    return log_choose + x * np.log(p) + (n - x) * np.log1p(-p)


def _binomial_support(total_count, **k):
    n = int(np.max(total_count))
    shape = np.broadcast_shapes(np.shape(total_count), np.shape(geometric_p(**k)))
    return np.broadcast_to(np.arange(n + 1.0).reshape(-1, *(1,) * len(shape)), (n + 1, *shape))


def _binomial_entropy(total_count, **k):
    ks = _binomial_support(total_count, **k)
    logp = _binomial_log_prob(ks, total_count, **k)
    return -(np.exp(logp) * logp).sum(0)


BINOMIAL = {
    "log_prob": _binomial_log_prob,
    "entropy": _binomial_entropy,
    "mean": lambda total_count, **k: total_count * geometric_p(**k),
    "mode": lambda total_count, **k: np.minimum(
        np.floor((_f(total_count) + 1) * geometric_p(**k)), total_count
    ),
    "variance": lambda total_count, **k: total_count * geometric_p(**k) * (1 - geometric_p(**k)),
    "stddev": lambda total_count, **k: np.sqrt(
        total_count * geometric_p(**k) * (1 - geometric_p(**k))
    ),
    "probs": lambda total_count, **k: full(geometric_p(**k), total_count),
    "logits": lambda total_count, **k: full(_geometric_logits(**k), total_count),
    "enumerate_support": _binomial_support,
}
FAMILIES["Binomial"] = BINOMIAL


# ----------------------------------------------------------------------- NegativeBinomial
def _negbin_log_prob(x, total_count, **k):
    r, x, p = _f(total_count), _f(x), geometric_p(**k)
    return lgamma(x + r) - lgamma(x + 1) - lgamma(r) + x * np.log(p) + r * np.log1p(-p)


def _negbin_mean(total_count, **k):
    p = geometric_p(**k)
    return total_count * p / (1 - p)


NEGATIVE_BINOMIAL = {
    "log_prob": _negbin_log_prob,
    "mean": _negbin_mean,
    "mode": lambda total_count, **k: np.maximum(
        np.floor((_f(total_count) - 1) * geometric_p(**k) / (1 - geometric_p(**k))), 0
    ),
    "variance": lambda total_count, **k: _negbin_mean(total_count, **k) / (1 - geometric_p(**k)),
    "stddev": lambda total_count, **k: np.sqrt(
        _negbin_mean(total_count, **k) / (1 - geometric_p(**k))
    ),
    "probs": lambda total_count, **k: full(geometric_p(**k), total_count),
    "logits": lambda total_count, **k: full(_geometric_logits(**k), total_count),
}
FAMILIES["NegativeBinomial"] = NEGATIVE_BINOMIAL
# the straight-through estimator changes rsample's gradient only: the rest is OneHotCategorical's
FAMILIES["OneHotCategoricalStraightThrough"] = ONE_HOT_CATEGORICAL


# --------------------------------------------------------------------- relaxed Bernoulli
def _logit_relaxed_log_prob(x, temperature, **k):
    d = _geometric_logits(**k) - _f(temperature) * x
    return np.log(temperature) + d - 2 * np.logaddexp(0, d)


RELAXED_BERNOULLI = {
    "log_prob": lambda y, temperature, **k: (
        _logit_relaxed_log_prob(_logit(y), temperature, **k) - np.log(y) - np.log1p(-_f(y))
    ),
    "probs": lambda temperature, **k: geometric_p(**k),
    "logits": lambda temperature, **k: _geometric_logits(**k),
}
FAMILIES["RelaxedBernoulli"] = RELAXED_BERNOULLI


# ------------------------------------------------------------------------ FisherSnedecor
def _f_log_prob(x, df1, df2):
    a, b, x = _f(df1) / 2, _f(df2) / 2, _f(x)
    return (
        lgamma(a + b)
        - lgamma(a)
        - lgamma(b)
        + a * np.log(_f(df1) / df2)
        + (a - 1) * np.log(x)
        - (a + b) * np.log1p(_f(df1) / df2 * x)
    )


def _f_variance(df1, df2):
    d1, d2 = np.broadcast_arrays(_f(df1), _f(df2))
    with np.errstate(all="ignore"):
        v = 2 * d2**2 * (d1 + d2 - 2) / (d1 * (d2 - 2) ** 2 * (d2 - 4))
    return np.where(d2 > 4, v, np.nan)


def _f_mean(df1, df2):
    d1, d2 = np.broadcast_arrays(_f(df1), _f(df2))
    with np.errstate(all="ignore"):
        return np.where(d2 > 2, d2 / (d2 - 2), np.nan)


def _f_mode(df1, df2):
    d1, d2 = np.broadcast_arrays(_f(df1), _f(df2))
    return np.where(d1 > 2, (d1 - 2) / d1 * d2 / (d2 + 2), np.nan)


FAMILIES["FisherSnedecor"] = {
    "log_prob": _f_log_prob,
    "mean": _f_mean,
    "mode": _f_mode,
    "variance": _f_variance,
    "stddev": lambda df1, df2: np.sqrt(_f_variance(df1, df2)),
}


# --------------------------------------------------------------------------- Multinomial
def _multinomial_log_prob(x, total_count, **k):
    p, x = categorical_p(**k), _f(x)
    with np.errstate(divide="ignore"):
        log_p = np.where(x == 0, 0.0, np.log(p))
    return math.lgamma(total_count + 1) - lgamma(x + 1).sum(-1) + (x * log_p).sum(-1)


FAMILIES["Multinomial"] = {
    "log_prob": _multinomial_log_prob,
    "mean": lambda total_count, **k: total_count * categorical_p(**k),
    "variance": lambda total_count, **k: (
        total_count * categorical_p(**k) * (1 - categorical_p(**k))
    ),
    "stddev": lambda total_count, **k: np.sqrt(
        total_count * categorical_p(**k) * (1 - categorical_p(**k))
    ),
    "probs": lambda total_count, **k: categorical_p(**k),
    "logits": lambda total_count, **k: categorical_logits(**k),
}


for _refs in FAMILIES.values():  # perplexity = exp(entropy), for every family with an entropy
    if "entropy" in _refs:
        _refs["perplexity"] = lambda *a, _h=_refs["entropy"], **k: np.exp(_h(*a, **k))
