"""kl_divergence between distributions of different families, PyTorch's registered pairs.

Two kinds: where p puts mass where q has none (a Normal's whole line against an Exponential's
half-line, a Gamma against a Beta's (0, 1)), KL(p || q) is infinite, one value per element of
p's batch (PyTorch's ``_infinite_like``). Otherwise it is the closed form of

    KL(p || q) = -H(p) - E_p[log q(x)],

with E_p[log q] written out from q's log-density and p's moments (E_p[x], E_p[x^2], E_p[log x]
...). Each formula's docstring names the moments it uses.
"""

from __future__ import annotations

import math

from .._tensor import Tensor
from ..creation import full_like
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import _EULER, Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform

__all__: list[str] = []

_LOG_2PI = math.log(2 * math.pi)


def _infinite_like(t: Tensor) -> Tensor:
    return full_like(t, math.inf)


def _x_log_x(t: Tensor) -> Tensor:
    """x log x with 0 log 0 = 0."""
    return t.xlogy(t)


# ------------------------------------------------------------------ supports that q misses
@register_kl(Beta, Pareto)
def _kl_beta_infinity(p: Beta, q: Pareto) -> Tensor:
    return _infinite_like(p.concentration1)


@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_infinity(p: ContinuousBernoulli, q: Pareto) -> Tensor:
    return _infinite_like(p.probs)


@register_kl(Exponential, Beta)
@register_kl(Exponential, ContinuousBernoulli)
@register_kl(Exponential, Pareto)
@register_kl(Exponential, Uniform)
def _kl_exponential_infinity(p: Exponential, q: object) -> Tensor:
    return _infinite_like(p.rate)


@register_kl(Gamma, Beta)
@register_kl(Gamma, ContinuousBernoulli)
@register_kl(Gamma, Pareto)
@register_kl(Gamma, Uniform)
def _kl_gamma_infinity(p: Gamma, q: object) -> Tensor:
    return _infinite_like(p.concentration)


@register_kl(Gumbel, Beta)
@register_kl(Gumbel, ContinuousBernoulli)
@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Gamma)
@register_kl(Gumbel, Pareto)
@register_kl(Gumbel, Uniform)
@register_kl(Laplace, Beta)
@register_kl(Laplace, ContinuousBernoulli)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Pareto)
@register_kl(Laplace, Uniform)
@register_kl(Normal, Beta)
@register_kl(Normal, ContinuousBernoulli)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
@register_kl(Normal, Pareto)
@register_kl(Normal, Uniform)
def _kl_real_line_infinity(p: Gumbel | Laplace | Normal, q: object) -> Tensor:
    return _infinite_like(p.loc)


@register_kl(Pareto, Beta)
@register_kl(Pareto, ContinuousBernoulli)
@register_kl(Pareto, Uniform)
def _kl_pareto_infinity(p: Pareto, q: object) -> Tensor:
    return _infinite_like(p.scale)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p: Poisson, q: object) -> Tensor:
    return _infinite_like(p.rate)


# ------------------------------------------------------------------ p discrete
@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    """-H(p) - E_p[x log l - l - log x!] = -H(p) - (p log l - l)  (log x! = 0 on {0, 1})."""
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


# ------------------------------------------------------------------ p a Beta
@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p: Beta, q: ContinuousBernoulli) -> Tensor:
    """log q(x) = x t + log(1 - l) + log C (t = logits): -H(p) - E[x] t - log(1 - l) - log C."""
    return -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Beta, q: Exponential) -> Tensor:
    """-H(p) - log r + r E[x], E[x] = a / (a + b)."""
    a, b = p.concentration1, p.concentration0
    return -p.entropy() - q.rate.log() + q.rate * (a / (a + b))


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Beta, q: Gamma) -> Tensor:
    """-H(p) + lgamma(k) - k log r - (k - 1) E[log x] + r E[x],
    E[log x] = psi(a) - psi(a + b)."""
    a, b = p.concentration1, p.concentration0
    t1 = -p.entropy()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (a.digamma() - (a + b).digamma())
    t4 = q.rate * a / (a + b)
    return t1 + t2 - t3 + t4


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Beta, q: Normal) -> Tensor:
    """-H(p) + log(2 pi s^2) / 2 + (E[x^2] / 2 - mu E[x] + mu^2 / 2) / s^2,
    E[x^2] = Var + E[x]^2 = E (1 - E) / (a + b + 1) + E^2."""
    a, b = p.concentration1, p.concentration0
    e_beta = a / (a + b)
    var_normal = q.scale**2
    t1 = -p.entropy()
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (e_beta * (1 - e_beta) / (a + b + 1) + e_beta**2) * 0.5
    t4 = q.loc * e_beta
    t5 = q.loc**2 * 0.5
    return t1 + t2 + (t3 - t4 + t5) / var_normal


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Tensor:
    """-H(p) + log(high - low) where [low, high] covers [0, 1], else infinite."""
    result = -p.entropy() + (q.high - q.low).log()
    return result.masked_fill((q.low > 0) | (q.high < 1), math.inf)


# ------------------------------------------------------------------ p a ContinuousBernoulli
@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p: ContinuousBernoulli, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p: ContinuousBernoulli, q: Normal) -> Tensor:
    """-H(p) + (log 2 pi + (mu / s)^2) / 2 + log s + (E[x^2] - 2 mu E[x]) / (2 s^2)."""
    t1 = -p.entropy()
    t2 = 0.5 * (_LOG_2PI + (q.loc / q.scale) ** 2) + q.scale.log()
    t3 = (p.variance + p.mean**2 - 2.0 * q.loc * p.mean) / (2.0 * q.scale**2)
    return t1 + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p: ContinuousBernoulli, q: Uniform) -> Tensor:
    """-H(p) + log(high - low); infinite where low >= 0 or high <= 1 (PyTorch's test: equal
    ends count as missing)."""
    result = -p.entropy() + (q.high - q.low).log()
    return result.masked_fill((q.low >= 0) | (q.high <= 1), math.inf)


# ------------------------------------------------------------------ p an Exponential
@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    """-k log(r_q / r_p) + r_q / r_p + lgamma(k) + k gamma_E - (1 + gamma_E)
    (E_p[log x] = -gamma_E - log r_p)."""
    ratio = q.rate / p.rate
    t1 = -q.concentration * ratio.log()
    return t1 + ratio + q.concentration.lgamma() + q.concentration * _EULER - (1 + _EULER)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Tensor:
    """log(r b) - 1 - mu / b + e^(mu / b) r b / (r b + 1) + 1 / (r b)
    (E_p[e^(-x / b)] = r b / (r b + 1))."""
    scale_rate_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = scale_rate_prod.log() - 1
    t2 = loc_scale_ratio.exp() * scale_rate_prod / (scale_rate_prod + 1)
    t3 = scale_rate_prod.reciprocal()
    return t1 - loc_scale_ratio + t2 + t3


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Tensor:
    """log(r^2 s^2 2 pi) / 2 - 1 + (1 / r^2 - mu / r + mu^2 / 2) / s^2
    (E[x] = 1 / r, E[x^2] = 2 / r^2)."""
    var_normal = q.scale**2
    rate_sqr = p.rate**2
    t1 = 0.5 * (rate_sqr * var_normal * 2 * math.pi).log()
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc**2 * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


# ------------------------------------------------------------------ p a Gamma
@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Gamma, q: Gumbel) -> Tensor:
    """With E_p[e^(-x / b)] = (1 + 1 / (r b))^(-k) (the Gamma's Laplace transform)."""
    k = p.concentration
    beta_scale_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = (k - 1) * k.digamma() - k.lgamma() - k
    t2 = beta_scale_prod.log() + k / beta_scale_prod
    t3 = loc_scale_ratio.exp() * (1 + beta_scale_prod.reciprocal()) ** (-k) - loc_scale_ratio
    return t1 + t2 + t3


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Gamma, q: Normal) -> Tensor:
    """E[x] = k / r, E[x^2] = (k^2 + k) / r^2."""
    k = p.concentration
    var_normal = q.scale**2
    beta_sqr = p.rate**2
    t1 = 0.5 * (beta_sqr * var_normal * 2 * math.pi).log() - k - k.lgamma()
    t2 = 0.5 * (k**2 + k) / beta_sqr
    t3 = q.loc * k / p.rate
    t4 = 0.5 * q.loc**2
    return t1 + (k - 1) * k.digamma() + (t2 - t3 + t4) / var_normal


# ------------------------------------------------------------------ p on the real line
@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p: Gumbel, q: Normal) -> Tensor:
    """E[x] = mu + b gamma_E, Var[x] = (pi b)^2 / 6."""
    param_ratio = p.scale / q.scale
    t1 = (param_ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * param_ratio * 0.5) ** 2 / 3
    t3 = ((p.loc + p.scale * _EULER - q.loc) / q.scale) ** 2 * 0.5
    return -t1 + t2 + t3 - (_EULER + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Tensor:
    """E[x] = mu_p, Var[x] = 2 b^2."""
    var_normal = q.scale**2
    scale_sqr_var_ratio = p.scale**2 / var_normal
    t1 = 0.5 * (2 * scale_sqr_var_ratio / math.pi).log()
    t2 = 0.5 * p.loc**2
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc**2
    return -t1 + scale_sqr_var_ratio + (t2 - t3 + t4) / var_normal - 1


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Tensor:
    """With E_p[e^(-x / b)] = exp(-mu / b + s^2 / (2 b^2)) (the Normal's moment generator)."""
    mean_scale_ratio = p.loc / q.scale
    var_scale_sqr_ratio = (p.scale / q.scale) ** 2
    loc_scale_ratio = q.loc / q.scale
    t1 = var_scale_sqr_ratio.log() * 0.5
    t2 = mean_scale_ratio - loc_scale_ratio
    t3 = (-mean_scale_ratio + 0.5 * var_scale_sqr_ratio + loc_scale_ratio).exp()
    return -t1 + t2 + t3 - (0.5 * (1 + _LOG_2PI))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    """With E_p|x - m| = s sqrt(2 / pi) e^(-d^2 / (2 s^2)) + d erf(d / (s sqrt 2)), d = mu - m
    (the folded normal's mean)."""
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    loc_diff_scale_ratio = loc_diff / p.scale
    t1 = scale_ratio.log()
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * loc_diff_scale_ratio**2).exp()
    t3 = loc_diff * (math.sqrt(0.5) * loc_diff_scale_ratio).erf()
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


# ------------------------------------------------------------------ p a Pareto
@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Tensor:
    """Infinite where p's mean is (alpha <= 1)."""
    scale_rate_prod = p.scale * q.rate
    t1 = (p.alpha / scale_rate_prod).log()
    t2 = p.alpha.reciprocal()
    t3 = p.alpha * scale_rate_prod / (p.alpha - 1)
    return (t1 - t2 + t3 - 1).masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Pareto, q: Gamma) -> Tensor:
    """E_p[log x] = log m + 1 / alpha; infinite where p's mean is (alpha <= 1)."""
    common_term = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common_term
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common_term
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    return (t1 + t2 + t3 + t4 - 1).masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Pareto, q: Normal) -> Tensor:
    """Infinite where p's variance is (alpha <= 2)."""
    var_normal = 2 * q.scale**2
    common_term = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t2 = p.alpha.reciprocal()
    t3 = p.alpha * common_term**2 / (p.alpha - 2)
    t4 = (p.alpha * common_term - q.loc) ** 2
    return (t1 - t2 + (t3 + t4) / var_normal - 1).masked_fill(p.alpha <= 2, math.inf)


# ------------------------------------------------------------------ p a Uniform
@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Tensor:
    """E_p[log x] = (h log h - l log l - (h - l)) / (h - l) (and its mirror for log(1 - x));
    infinite where [l, h] leaves [0, 1]."""
    common_term = p.high - p.low
    t1 = common_term.log()
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - common_term) / common_term
    t3 = (
        (q.concentration0 - 1)
        * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + common_term)
        / common_term
    )
    t4 = (
        q.concentration1.lgamma()
        + q.concentration0.lgamma()
        - (q.concentration1 + q.concentration0).lgamma()
    )
    return (t3 + t4 - t1 - t2).masked_fill((p.high > 1) | (p.low < 0), math.inf)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p: Uniform, q: ContinuousBernoulli) -> Tensor:
    """Infinite where high >= 1 or low <= 0 (PyTorch's test: equal ends count as leaving)."""
    result = -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()
    return result.masked_fill((p.high >= 1) | (p.low <= 0), math.inf)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Uniform, q: Exponential) -> Tensor:
    """r (h + l) / 2 - log((h - l) r); infinite where low < 0."""
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return result.masked_fill(p.low < 0, math.inf)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Tensor:
    """Infinite where low < 0."""
    common_term = p.high - p.low
    t1 = common_term.log()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - common_term) / common_term
    t4 = q.rate * (p.high + p.low) / 2
    return (-t1 + t2 + t3 + t4).masked_fill(p.low < 0, math.inf)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Tensor:
    common_term = q.scale / (p.high - p.low)
    high_loc_diff = (p.high - q.loc) / q.scale
    low_loc_diff = (p.low - q.loc) / q.scale
    t1 = common_term.log() + 0.5 * (high_loc_diff + low_loc_diff)
    t2 = common_term * ((-high_loc_diff).exp() - (-low_loc_diff).exp())
    return t1 - t2


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    """log(sqrt(2 pi) s / (h - l)) + ((h - l)^2 / 12 + ((h + l) / 2 - mu)^2) / (2 s^2)."""
    common_term = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common_term).log()
    t2 = common_term**2 / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2) ** 2
    return t1 + 0.5 * (t2 + t3) / q.scale**2


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Uniform, q: Pareto) -> Tensor:
    """Infinite where low < q's scale (below q's support)."""
    support_uniform = p.high - p.low
    t1 = (q.alpha * q.scale**q.alpha * support_uniform).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - support_uniform) / support_uniform
    return (t2 * (q.alpha + 1) - t1).masked_fill(p.low < q.scale, math.inf)
