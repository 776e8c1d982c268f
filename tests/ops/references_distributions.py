"""Float64 closed forms of the distributions' densities, moments, entropies and KL divergences,
written from the textbook formulas (not from minigenesis' code), for the op database's
distribution entries (``db_distributions.py``).

Each function takes the parameters as the constructor's keywords (NumPy arrays) and returns an
array broadcast to the batch shape; ``value`` is the first positional argument where there is one.
"""

from __future__ import annotations

import math

import numpy as np

from .references import digamma, erfinv, lgamma

HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_erf = np.vectorize(math.erf, otypes=[np.float64])


def _f(x) -> np.ndarray:
    return np.asarray(x, np.float64)


def batch(*params) -> tuple:
    return np.broadcast_shapes(*(np.shape(p) for p in params))


def full(x, *params) -> np.ndarray:
    """``x`` broadcast to the parameters' batch shape (a copy, so it can be written)."""
    return np.array(np.broadcast_to(_f(x), batch(x, *params)))


def log_beta(a, b) -> np.ndarray:
    return lgamma(a) + lgamma(b) - lgamma(_f(a) + b)


def _eps(dtype_like=np.float64) -> float:
    return float(np.finfo(dtype_like).eps)


# ------------------------------------------------------------------------------ location-scale
NORMAL = {
    "log_prob": lambda x, loc, scale: (
        -((x - loc) ** 2) / (2 * scale**2) - np.log(scale) - HALF_LOG_2PI
    ),
    "entropy": lambda loc, scale: full(0.5 + HALF_LOG_2PI + np.log(scale), loc),
    "mean": lambda loc, scale: full(loc, scale),
    "mode": lambda loc, scale: full(loc, scale),
    "variance": lambda loc, scale: full(scale**2, loc),
    "stddev": lambda loc, scale: full(scale, loc),
    "cdf": lambda x, loc, scale: 0.5 * (1 + _erf((x - loc) / (scale * math.sqrt(2)))),
    "icdf": lambda p, loc, scale: loc + scale * math.sqrt(2) * erfinv(2 * _f(p) - 1),
}

LAPLACE = {
    "log_prob": lambda x, loc, scale: -np.log(2 * scale) - np.abs(x - loc) / scale,
    "entropy": lambda loc, scale: full(1 + np.log(2 * scale), loc),
    "mean": lambda loc, scale: full(loc, scale),
    "mode": lambda loc, scale: full(loc, scale),
    "variance": lambda loc, scale: full(2 * scale**2, loc),
    "stddev": lambda loc, scale: full(math.sqrt(2) * scale, loc),
    # F(x) = e^z / 2 below the location, 1 - e^-z / 2 above (z = (x - loc) / scale)
    "cdf": lambda x, loc, scale: np.where(
        x < loc, 0.5 * np.exp((x - loc) / scale), 1 - 0.5 * np.exp(-(x - loc) / scale)
    ),
    "icdf": lambda p, loc, scale: np.where(
        p < 0.5, loc + scale * np.log(2 * p), loc - scale * np.log(2 - 2 * _f(p))
    ),
}

# ---------------------------------------------------------------------------------- positive
EXPONENTIAL = {
    "log_prob": lambda x, rate: np.log(rate) - rate * x,
    "entropy": lambda rate: 1 - np.log(rate),
    "mean": lambda rate: 1 / _f(rate),
    "mode": lambda rate: np.zeros_like(_f(rate)),
    "variance": lambda rate: 1 / _f(rate) ** 2,
    "stddev": lambda rate: 1 / _f(rate),
    "cdf": lambda x, rate: 1 - np.exp(-rate * _f(x)),
    "icdf": lambda p, rate: -np.log(1 - _f(p)) / rate,
}


def _gamma_log_prob(x, concentration, rate):
    a, b, x = _f(concentration), _f(rate), _f(x)
    with np.errstate(all="ignore"):  # (a - 1) log x with 0 log 0 = 0 at a = 1, x = 0
        xlog = np.where(a == 1, 0.0, (a - 1) * np.log(x))
    return a * np.log(b) + xlog - b * x - lgamma(a)


GAMMA = {
    "log_prob": _gamma_log_prob,
    "entropy": lambda concentration, rate: (
        concentration
        - np.log(rate)
        + lgamma(full(concentration, rate))
        + (1 - concentration) * digamma(full(concentration, rate))
    ),
    "mean": lambda concentration, rate: concentration / _f(rate),
    "mode": lambda concentration, rate: np.maximum((concentration - 1) / _f(rate), 0),
    "variance": lambda concentration, rate: concentration / _f(rate) ** 2,
    "stddev": lambda concentration, rate: np.sqrt(concentration) / _f(rate),
}


def _beta_log_prob(x, concentration1, concentration0):
    a, b, x = _f(concentration1), _f(concentration0), _f(x)
    with np.errstate(all="ignore"):  # 0 log 0 = 0 at the ends when a or b is 1
        t1 = np.where(a == 1, 0.0, (a - 1) * np.log(x))
        t0 = np.where(b == 1, 0.0, (b - 1) * np.log1p(-x))
    return t1 + t0 - log_beta(a, b)


def _beta_mode(concentration1, concentration0):
    """The density's peak: (a - 1) / (a + b - 2) for a, b > 1; at the end x = 0 (x = 1) when
    only a (only b) is below 1; with both below 1 the end of the larger, x = 1 on a tie
    (PyTorch's Dirichlet rule); undefined (NaN) when the density is flat along a side
    (a = 1 with b <= 1, b = 1 with a <= 1)."""
    a, b = np.broadcast_arrays(_f(concentration1), _f(concentration0))
    a1, b1 = np.maximum(a - 1, 0), np.maximum(b - 1, 0)
    with np.errstate(all="ignore"):
        mode = a1 / (a1 + b1)
    return np.where((a < 1) & (b < 1), (a >= b).astype(np.float64), mode)


BETA = {
    "log_prob": _beta_log_prob,
    "entropy": lambda concentration1, concentration0: (
        log_beta(concentration1, concentration0)
        - (concentration1 - 1) * digamma(full(concentration1, concentration0))
        - (concentration0 - 1) * digamma(full(concentration0, concentration1))
        + (concentration1 + concentration0 - 2) * digamma(_f(concentration1) + concentration0)
    ),
    "mean": lambda concentration1, concentration0: (
        concentration1 / (_f(concentration1) + concentration0)
    ),
    "mode": _beta_mode,
    "variance": lambda concentration1, concentration0: (
        concentration1
        * concentration0
        / ((_f(concentration1) + concentration0) ** 2 * (concentration1 + concentration0 + 1))
    ),
    "stddev": lambda concentration1, concentration0: np.sqrt(
        concentration1
        * concentration0
        / ((_f(concentration1) + concentration0) ** 2 * (concentration1 + concentration0 + 1))
    ),
}

# --------------------------------------------------------------------------------- interval
UNIFORM = {
    "log_prob": lambda x, low, high: np.where(
        (low <= x) & (x < high), -np.log(_f(high) - low), -np.inf
    ),
    "entropy": lambda low, high: np.log(_f(high) - low),
    "mean": lambda low, high: (_f(low) + high) / 2,
    "mode": lambda low, high: np.full(batch(low, high), np.nan),
    "variance": lambda low, high: (_f(high) - low) ** 2 / 12,
    "stddev": lambda low, high: (_f(high) - low) / math.sqrt(12),
    "cdf": lambda x, low, high: np.clip((x - _f(low)) / (_f(high) - low), 0, 1),
    "icdf": lambda p, low, high: low + _f(p) * (_f(high) - low),
}


# --------------------------------------------------------------------------------- discrete
def bernoulli_p(probs=None, logits=None) -> np.ndarray:
    """The probability of 1, from either parametrisation (probs clamped into [eps, 1 - eps] as
    the distribution does before taking logits)."""
    if probs is not None:
        return _f(probs)
    return 1 / (1 + np.exp(-_f(logits)))


def bernoulli_logits(probs=None, logits=None) -> np.ndarray:
    if logits is not None:
        return _f(logits)
    p = np.clip(_f(probs), _eps(), 1 - _eps())
    return np.log(p) - np.log1p(-p)


def _bernoulli_entropy(**k):
    p = bernoulli_p(**k)
    with np.errstate(all="ignore"):
        return -np.nan_to_num(p * np.log(p)) - np.nan_to_num((1 - p) * np.log1p(-p))


def _bernoulli_mode(**k):
    p = bernoulli_p(**k)
    return np.where(p == 0.5, np.nan, (p > 0.5).astype(np.float64))


BERNOULLI = {
    "log_prob": lambda x, **k: np.where(
        _f(x) == 1, np.log(bernoulli_p(**k)), np.log1p(-bernoulli_p(**k))
    ),
    "entropy": _bernoulli_entropy,
    "mean": bernoulli_p,
    "mode": _bernoulli_mode,
    "variance": lambda **k: bernoulli_p(**k) * (1 - bernoulli_p(**k)),
    "stddev": lambda **k: np.sqrt(bernoulli_p(**k) * (1 - bernoulli_p(**k))),
    "probs": bernoulli_p,
    "logits": bernoulli_logits,
}


def categorical_p(probs=None, logits=None) -> np.ndarray:
    if probs is not None:
        return _f(probs) / _f(probs).sum(-1, keepdims=True)
    e = np.exp(_f(logits) - _f(logits).max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def categorical_logits(probs=None, logits=None) -> np.ndarray:
    """The normalised log-probabilities (log p, clamped to [eps, 1 - eps] from probs)."""
    if logits is not None:
        z = _f(logits)
        m = z.max(-1, keepdims=True)
        return z - (m + np.log(np.exp(z - m).sum(-1, keepdims=True)))
    return np.log(np.clip(categorical_p(probs), _eps(), 1 - _eps()))


def _categorical_entropy(**k):
    p = categorical_p(**k)
    with np.errstate(all="ignore"):
        return -np.nan_to_num(p * np.log(p)).sum(-1)


def _categorical_log_prob(x, **k):
    logp = categorical_logits(**k)
    x = _f(x).astype(np.int64)
    logp = np.broadcast_to(logp, x.shape + logp.shape[-1:])
    return np.take_along_axis(logp, x[..., None], -1)[..., 0]


CATEGORICAL = {
    "log_prob": _categorical_log_prob,
    "entropy": _categorical_entropy,
    "mean": lambda **k: np.full(categorical_p(**k).shape[:-1], np.nan),
    "variance": lambda **k: np.full(categorical_p(**k).shape[:-1], np.nan),
    "stddev": lambda **k: np.full(categorical_p(**k).shape[:-1], np.nan),
    "mode": lambda **k: np.argmax(categorical_p(**k), -1),
    "probs": categorical_p,
    "logits": categorical_logits,
}

ONE_HOT_CATEGORICAL = {
    "log_prob": lambda x, **k: _categorical_log_prob(np.argmax(x, -1), **k),
    "entropy": _categorical_entropy,
    "mean": categorical_p,
    "variance": lambda **k: categorical_p(**k) * (1 - categorical_p(**k)),
    "stddev": lambda **k: np.sqrt(categorical_p(**k) * (1 - categorical_p(**k))),
    "mode": lambda **k: np.eye(categorical_p(**k).shape[-1])[np.argmax(categorical_p(**k), -1)],
    "probs": categorical_p,
    "logits": categorical_logits,
}


# ------------------------------------------------------------------------ multivariate normal
def _sym(a):
    return (a + np.swapaxes(a, -1, -2)) / 2


def mvn_cov(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None) -> np.ndarray:
    """Sigma from whichever matrix was given (the entries pass the symmetric part of a
    covariance or precision and the lower triangle of scale_tril), broadcast with loc."""
    if covariance_matrix is not None:
        cov = _sym(_f(covariance_matrix))
    elif precision_matrix is not None:
        cov = np.linalg.inv(_sym(_f(precision_matrix)))
    else:
        low = np.tril(_f(scale_tril))
        cov = low @ np.swapaxes(low, -1, -2)
    k = np.shape(loc)[-1]
    return np.broadcast_to(cov, batch(np.zeros(np.shape(loc)[:-1]), cov[..., 0, 0]) + (k, k))


def _mvn_log_prob(x, loc, **m):
    cov = mvn_cov(loc, **m)
    d = _f(x) - loc
    k = d.shape[-1]
    quad = np.einsum("...i,...i->...", d, np.linalg.solve(cov, d[..., None])[..., 0])
    return -0.5 * (k * math.log(2 * math.pi) + quad + np.linalg.slogdet(cov)[1])


def _mvn_entropy(loc, **m):
    cov = mvn_cov(loc, **m)
    k = cov.shape[-1]
    return 0.5 * k * (1 + math.log(2 * math.pi)) + 0.5 * np.linalg.slogdet(cov)[1]


def _mvn_batch(loc, **m):
    return mvn_cov(loc, **m).shape[:-1]


MULTIVARIATE_NORMAL = {
    "log_prob": _mvn_log_prob,
    "entropy": _mvn_entropy,
    "mean": lambda loc, **m: np.broadcast_to(_f(loc), _mvn_batch(loc, **m)),
    "mode": lambda loc, **m: np.broadcast_to(_f(loc), _mvn_batch(loc, **m)),
    "variance": lambda loc, **m: np.diagonal(mvn_cov(loc, **m), 0, -2, -1),
    "stddev": lambda loc, **m: np.sqrt(np.diagonal(mvn_cov(loc, **m), 0, -2, -1)),
    "covariance_matrix": mvn_cov,
    "precision_matrix": lambda loc, **m: np.linalg.inv(mvn_cov(loc, **m)),
    "scale_tril": lambda loc, **m: np.linalg.cholesky(mvn_cov(loc, **m)),
}

# Independent(Normal(loc, scale), 1): the base's log-density and entropy summed over the last dim
INDEPENDENT = {
    "log_prob": lambda x, loc, scale: NORMAL["log_prob"](x, loc, scale).sum(-1),
    "entropy": lambda loc, scale: NORMAL["entropy"](loc, scale).sum(-1),
    **{k: NORMAL[k] for k in ("mean", "mode", "variance", "stddev")},
}


# MixtureSameFamily(Categorical(logits), Normal(loc, scale)), the components along the last dim:
# p(x) = sum_k pi_k N(x; loc_k, scale_k), its moments by the laws of total expectation / variance
def _mixture_weights(logits) -> np.ndarray:
    e = np.exp(_f(logits) - _f(logits).max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _mixture_log_prob(x, logits, loc, scale):
    terms = np.log(_mixture_weights(logits)) + NORMAL["log_prob"](_f(x)[..., None], loc, scale)
    top = terms.max(-1, keepdims=True)
    return (top + np.log(np.exp(terms - top).sum(-1, keepdims=True)))[..., 0]


def _mixture_mean(logits, loc, scale):
    return (_mixture_weights(logits) * full(loc, scale)).sum(-1)


def _mixture_variance(logits, loc, scale):
    pi, loc = _mixture_weights(logits), full(loc, scale)
    return (pi * (_f(scale) ** 2 + loc**2)).sum(-1) - _mixture_mean(logits, loc, scale) ** 2


MIXTURE_SAME_FAMILY = {
    "log_prob": _mixture_log_prob,
    "cdf": lambda x, logits, loc, scale: (
        _mixture_weights(logits) * NORMAL["cdf"](_f(x)[..., None], loc, scale)
    ).sum(-1),
    "mean": _mixture_mean,
    "variance": _mixture_variance,
    "stddev": lambda *a, **k: np.sqrt(_mixture_variance(*a, **k)),
}


def _enumerate(k: int, batch_shape: tuple, one_hot: bool = False) -> np.ndarray:
    """The k outcomes along a new first dim, broadcast over the batch (as one-hot rows)."""
    values = np.eye(k) if one_hot else np.arange(k)
    values = values.reshape(k, *([1] * len(batch_shape)), *values.shape[1:])
    return np.broadcast_to(values, (k, *batch_shape, *values.shape[len(batch_shape) + 1 :]))


BERNOULLI["enumerate_support"] = lambda **k: _enumerate(2, bernoulli_p(**k).shape).astype(float)
CATEGORICAL["enumerate_support"] = lambda **k: _enumerate(
    categorical_p(**k).shape[-1], categorical_p(**k).shape[:-1]
)
ONE_HOT_CATEGORICAL["enumerate_support"] = lambda **k: _enumerate(
    categorical_p(**k).shape[-1], categorical_p(**k).shape[:-1], one_hot=True
)

FAMILIES = {
    "Normal": NORMAL,
    "Laplace": LAPLACE,
    "Exponential": EXPONENTIAL,
    "Gamma": GAMMA,
    "Beta": BETA,
    "Uniform": UNIFORM,
    "Bernoulli": BERNOULLI,
    "Categorical": CATEGORICAL,
    "OneHotCategorical": ONE_HOT_CATEGORICAL,
    "MultivariateNormal": MULTIVARIATE_NORMAL,
    "Independent": INDEPENDENT,
    "MixtureSameFamily": MIXTURE_SAME_FAMILY,
}
for _refs in FAMILIES.values():  # perplexity = exp(entropy), for every family with an entropy
    if "entropy" not in _refs:
        continue
    _refs["perplexity"] = lambda *a, _h=_refs["entropy"], **k: np.exp(_h(*a, **k))


# ------------------------------------------------------------------------------ KL divergences
def _xlogx_ratio(p, q):
    """p log(p / q) with 0 log(0 / q) = 0 and p log(p / 0) = inf for p > 0."""
    with np.errstate(all="ignore"):
        return np.where(p == 0, 0.0, np.where(q == 0, np.inf, p * (np.log(p) - np.log(q))))


def kl_normal(p, q):
    return (
        np.log(q["scale"] / p["scale"])
        + (p["scale"] ** 2 + (p["loc"] - q["loc"]) ** 2) / (2 * q["scale"] ** 2)
        - 0.5
    )


def kl_laplace(p, q):
    d = np.abs(p["loc"] - q["loc"])
    return (
        np.log(q["scale"] / p["scale"])
        + d / q["scale"]
        + p["scale"] / q["scale"] * np.exp(-d / p["scale"])
        - 1
    )


def kl_exponential(p, q):
    return np.log(p["rate"] / q["rate"]) + q["rate"] / p["rate"] - 1


def kl_gamma(p, q):
    ap, bp, aq, bq = p["concentration"], p["rate"], q["concentration"], q["rate"]
    shape = batch(ap, bp, aq, bq)
    ap_full = np.broadcast_to(ap, shape)
    return (
        (ap - aq) * digamma(ap_full)
        - lgamma(ap_full)
        + lgamma(np.broadcast_to(aq, shape))
        + aq * (np.log(bp) - np.log(bq))
        + ap * (bq - bp) / bp
    )


def kl_beta(p, q):
    ap, bp, aq, bq = (
        p["concentration1"],
        p["concentration0"],
        q["concentration1"],
        q["concentration0"],
    )
    shape = batch(ap, bp, aq, bq)
    ap, bp, aq, bq = (np.broadcast_to(_f(v), shape) for v in (ap, bp, aq, bq))
    return (
        log_beta(aq, bq)
        - log_beta(ap, bp)
        + (ap - aq) * digamma(ap)
        + (bp - bq) * digamma(bp)
        + (aq - ap + bq - bp) * digamma(ap + bp)
    )


def kl_uniform(p, q):
    covered = (q["low"] <= p["low"]) & (p["high"] <= q["high"])
    with np.errstate(all="ignore"):
        return np.where(
            covered, np.log((_f(q["high"]) - q["low"]) / (_f(p["high"]) - p["low"])), np.inf
        )


def kl_bernoulli(p, q):
    a, b = bernoulli_p(**p), bernoulli_p(**q)
    return _xlogx_ratio(a, b) + _xlogx_ratio(1 - a, 1 - b)


def kl_categorical(p, q):
    a, b = np.broadcast_arrays(categorical_p(**p), categorical_p(**q))
    return _xlogx_ratio(a, b).sum(-1)


def kl_mvn(p, q):
    sp, sq = mvn_cov(**p), mvn_cov(**q)
    shape = np.broadcast_shapes(sp.shape, sq.shape)
    sp, sq = np.broadcast_to(sp, shape), np.broadcast_to(sq, shape)
    d = np.broadcast_to(_f(q["loc"]) - p["loc"], shape[:-1])
    k = shape[-1]
    trace = np.trace(np.linalg.solve(sq, sp), axis1=-2, axis2=-1)
    quad = np.einsum("...i,...i->...", d, np.linalg.solve(sq, d[..., None])[..., 0])
    logdets = np.linalg.slogdet(sq)[1] - np.linalg.slogdet(sp)[1]
    return 0.5 * (trace + quad - k + logdets)


KL = {
    "Normal": kl_normal,
    "Laplace": kl_laplace,
    "Exponential": kl_exponential,
    "Gamma": kl_gamma,
    "Beta": kl_beta,
    "Uniform": kl_uniform,
    "Bernoulli": kl_bernoulli,
    "Categorical": kl_categorical,
    "OneHotCategorical": kl_categorical,
    "MultivariateNormal": kl_mvn,
    "Independent": lambda p, q: kl_normal(p, q).sum(-1),
}
