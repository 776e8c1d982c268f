"""kl_divergence(p, q) = E_p[log p(x) - log q(x)], in closed form for registered pairs of types.

``register_kl(P, Q)`` is a decorator that files a function for the pair; ``kl_divergence``
picks the most specific registered pair for the arguments' types (subclasses inherit their
parents' formulas) and raises NotImplementedError when there is none.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import linalg
from .._tensor import Tensor
from .bernoulli import Bernoulli
from .beta import Beta, log_beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import _EULER, Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal, _half_log_det, _solve_lower
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import softplus, sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict[tuple[type, type], Callable] = {}


def register_kl(type_p: type, type_q: type) -> Callable:
    """Decorator: ``@register_kl(Normal, Normal) def kl(p, q): ...``."""
    for t in (type_p, type_q):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"register_kl: expected a subclass of Distribution, got {t!r}")

    def decorator(fn: Callable) -> Callable:
        _KL_REGISTRY[type_p, type_q] = fn
        return fn

    return decorator


def _lookup(type_p: type, type_q: type) -> Callable | None:
    """The registered pair nearest to (type_p, type_q) along both classes' MROs."""
    best, best_rank = None, None
    for (p, q), fn in _KL_REGISTRY.items():
        if issubclass(type_p, p) and issubclass(type_q, q):
            rank = (type_p.__mro__.index(p), type_q.__mro__.index(q))
            if best_rank is None or rank < best_rank:
                best, best_rank = fn, rank
    return best


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q), one value per batch element."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p = {type(p).__name__}, q = {type(q).__name__}"
        )
    return fn(p, q)


def _infinite_where(value: Tensor, mask: Tensor) -> Tensor:
    return value.masked_fill(mask, float("inf"))


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    """(r + ((mu_p - mu_q) / s_q)^2 - 1 - log r) / 2, r = (s_p / s_q)^2."""
    var_ratio = (p.scale / q.scale) ** 2
    t1 = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    """p log(p/q) + (1-p) log((1-p)/(1-q)), with log p = -softplus(-logit) (stable); infinite
    where q gives 0 to an outcome p does not (q = 0 < p or q = 1 > p), 0 log 0 = 0 (as PyTorch)."""
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = t1.masked_fill(q.probs == 0, float("inf")).masked_fill(p.probs == 0, 0.0)
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = t2.masked_fill(q.probs == 1, float("inf")).masked_fill(p.probs == 1, 0.0)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    """sum_k p_k (log p_k - log q_k): infinite where q_k = 0 < p_k, 0 log 0 = 0."""
    t = p.probs * (p.logits - q.logits)
    shape = np.broadcast_shapes(tuple(p.probs.shape), tuple(q.probs.shape))
    t = t.masked_fill((q.probs == 0).expand(*shape), float("inf"))
    t = t.masked_fill((p.probs == 0).expand(*shape), 0.0)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    """log((high_q - low_q) / (high_p - low_p)) when q's interval covers p's, else infinite."""
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _infinite_where(result, (q.low > p.low) | (q.high < p.high))


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    """r - 1 - log r, r = rate_q / rate_p."""
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    """log(b_q / b_p) + |mu_p - mu_q| / b_q + (b_p / b_q) e^(-|mu_p - mu_q| / b_p) - 1."""
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    return t1 + t2 + t3 - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    """a_q log(b_p / b_q) + lgamma(a_q) - lgamma(a_p) + (a_p - a_q) psi(a_p)
    + (b_q - b_p) a_p / b_p."""
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    """log B(a_q, b_q) - log B(a_p, b_p) + (a_p - a_q) psi(a_p) + (b_p - b_q) psi(b_p)
    + (a_q - a_p + b_q - b_p) psi(a_p + b_p)."""
    a_p, b_p, a_q, b_q = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    return (
        log_beta(a_q, b_q)
        - log_beta(a_p, b_p)
        + (a_p - a_q) * a_p.digamma()
        + (b_p - b_q) * b_p.digamma()
        + (a_q - a_p + b_q - b_p) * (a_p + b_p).digamma()
    )


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    """(tr(S_q^-1 S_p) + |L_q^-1 (mu_q - mu_p)|^2 - k) / 2 + log det L_q - log det L_p, with
    tr(S_q^-1 S_p) = |L_q^-1 L_p|_F^2."""
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes cannot "
            "be computed"
        )
    k = p.event_shape[0]
    lp, lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    shape = np.broadcast_shapes(tuple(lp.shape), tuple(lq.shape))
    lp, lq = lp.expand(*shape), lq.expand(*shape)
    trace = (linalg.solve_triangular(lq, lp, upper=False) ** 2).sum(-1).sum(-1)
    diff = q.loc - p.loc
    mahalanobis = (_solve_lower(lq, diff) ** 2).sum(-1)
    result = _half_log_det(lq) - _half_log_det(lp) + 0.5 * (trace + mahalanobis - k)
    batch = np.broadcast_shapes(tuple(p.batch_shape), tuple(q.batch_shape))
    return result.expand(*batch) if batch else result


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError(
            "KL between Independent distributions with different reinterpreted_batch_ndims"
        )
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    """KL is invariant under one bijection applied to both: KL(f(X) || f(Y)) = KL(X || Y)."""
    if p.transforms != q.transforms:
        raise NotImplementedError("KL between TransformedDistributions with other transforms")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("KL between TransformedDistributions with other event shapes")
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    """The Normals' KL at loc 0: folding both at 0 keeps the density ratio."""
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    """l_p log(l_p / l_q) - (l_p - l_q)."""
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    """-H(p) - E_p[k] log(1 - q) - log q, with E_p[k] + 1 = 1 / p_p (logits_q = log q/(1-q))."""
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    """-log(b_p / b_q) + (mu_p - mu_q) / b_q + gamma_E b_p / b_q
    + exp((mu_q - mu_p) / b_q + lgamma(1 + b_p / b_q)) - (1 + gamma_E)."""
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * _EULER
    t3 = (ct2 + (1 + ct1).lgamma() - ct3).exp()
    return t1 + t2 + t3 - (1 + _EULER)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    """a_q log(m_p / m_q) - log(a_q / a_p) + a_q / a_p - 1 (m: scale, a: alpha); infinite where
    q's support [m_q, inf) misses p's lower part (m_p < m_q)."""
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    return _infinite_where(result, p.scale < q.scale)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    """lgamma(a0_p) - lgamma(a0_q) - sum (lgamma(a_p) - lgamma(a_q))
    + sum (a_p - a_q)(psi(a_p) - psi(a0_p))."""
    a, b = p.concentration, q.concentration
    a0, b0 = a.sum(-1), b.sum(-1)
    t1 = a0.lgamma() - b0.lgamma()
    t2 = (a.lgamma() - b.lgamma()).sum(-1)
    t4 = a.digamma() - a0.digamma().unsqueeze(-1)
    return t1 - t2 + ((a - b) * t4).sum(-1)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    """n (p log(p/q) + (1-p) log((1-p)/(1-q))) for equal n; infinite where p's n exceeds q's
    (p puts mass where q has none); not implemented for a smaller n (as PyTorch)."""
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return _infinite_where(kl, p.total_count > q.total_count)
