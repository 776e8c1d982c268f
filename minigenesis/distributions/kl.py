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
from ..autograd import grad as _grad
from ..autograd.grad_mode import enable_grad
from ..ops.round_once import same_two_byte_float, widen
from .bernoulli import Bernoulli
from .beta import Beta, log_beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import _EULER, Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import (
    LowRankMultivariateNormal,
    _batch_lowrank_logdet,
    _batch_lowrank_mahalanobis,
)
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
            f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
            f"{type(q).__name__}"
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


def _float32_params(p: Distribution, q: Distribution, names: tuple[str, ...]) -> dict | None:
    """Where all of p's and q's parameters ``names`` are float16 (or all bfloat16): each
    distribution's parameters as float32 (differentiable casts), else None. The closed forms
    below subtract nearly equal terms (a psi against a psi, a log against a ratio), zero at
    p = q: in the 2-byte dtype each term is rounded first and the difference is an ulp of the
    terms, not of the result; PyTorch's kernels compute each term in float32 and round once."""
    params = [getattr(d, n) for d in (p, q) for n in names]
    if not same_two_byte_float(*params):
        return None
    wide = [widen(t) for t in params]
    k = len(names)
    return {"p": dict(zip(names, wide[:k])), "q": dict(zip(names, wide[k:]))}


def _rounded_once(fn: Callable, cls: type, p: Distribution, q: Distribution, names: tuple):
    """fn(p, q) computed on float32 copies of 2-byte parameters, rounded once at the output."""
    wide = _float32_params(p, q, names)
    if wide is None:
        return None
    low = getattr(p, names[0]).dtype
    pw, qw = (cls(**wide[k], validate_args=False) for k in ("p", "q"))
    return fn(pw, qw).to(low)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    """a_q log(b_p / b_q) + lgamma(a_q) - lgamma(a_p) + (a_p - a_q) psi(a_p)
    + (b_q - b_p) a_p / b_p."""
    low = _rounded_once(_kl_gamma_gamma, Gamma, p, q, ("concentration", "rate"))
    if low is not None:
        return low
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    """log B(a_q, b_q) - log B(a_p, b_p) + (a_p - a_q) psi(a_p) + (b_p - b_q) psi(b_p)
    + (a_q - a_p + b_q - b_p) psi(a_p + b_p)."""
    low = _rounded_once(_kl_beta_beta, Beta, p, q, ("concentration1", "concentration0"))
    if low is not None:
        return low
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
    low = _rounded_once(_kl_geometric_geometric, Geometric, p, q, ("probs",))
    if low is not None:
        return low
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


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    """log(((g_p + g_q)^2 + (m_p - m_q)^2) / (4 g_p g_q)) (Chyzak and Nielsen, 2019)."""
    t1 = ((p.scale + q.scale) ** 2 + (p.loc - q.loc) ** 2).log()
    t2 = (4 * p.scale * q.scale).log()
    return t1 - t2


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(
    p: ContinuousBernoulli, q: ContinuousBernoulli
) -> Tensor:
    """E_p[x] (t_p - t_q) + log C_p + log(1 - l_p) - log C_q - log(1 - l_q) (t: logits)."""
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + (-p.probs).log1p()
    t3 = -q._cont_bern_log_norm() - (-q.probs).log1p()
    return t1 + t2 + t3


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    """The Bregman divergence of the log-normaliser A (grad A by autograd):
    A(theta_q) - A(theta_p) - <theta_q - theta_p, grad A(theta_p)>; one family only."""
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot be "
            "computed using Bregman divergences"
        )
    with enable_grad():
        p_nparams = [t.detach().requires_grad_() for t in p._natural_params]
        lg_normal = p._log_normalizer(*p_nparams)
        gradients = _grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q._natural_params) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q._natural_params, gradients):
        result = result - sum_rightmost((qnp - pnp) * g, len(q.event_shape))
    return result


def _trace_xxt(x: Tensor) -> Tensor:
    """tr(X X^T) = sum of the squares of X's entries, per batch element."""
    return (x**2).sum(-1).sum(-1)


def _check_event_shapes(p: Distribution, q: Distribution, what: str) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(
            f"KL-divergence between two {what} with different event shapes cannot be computed"
        )


def _lowrank_precision_root(q: LowRankMultivariateNormal) -> Tensor:
    """A = L_C^-1 W^T D^-1, so that Sigma_q^-1 = D^-1 - A^T A (Woodbury)."""
    wt_dinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return linalg.solve_triangular(q._capacitance_tril, wt_dinv, upper=False)


def _lowrank_logdet(d: LowRankMultivariateNormal) -> Tensor:
    return _batch_lowrank_logdet(
        d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag, d._capacitance_tril
    )


def _lowrank_mahalanobis(q: LowRankMultivariateNormal, x: Tensor) -> Tensor:
    return _batch_lowrank_mahalanobis(
        q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, x, q._capacitance_tril
    )


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p: LowRankMultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    """(log det S_q - log det S_p + tr(S_q^-1 S_p) + |mu_q - mu_p|^2_{S_q^-1} - k) / 2, with
    tr(S_q^-1 S_p) = tr((D_q^-1 - A^T A)(D_p + W_p W_p^T)) expanded into four traces."""
    _check_event_shapes(p, q, "Low Rank Multivariate Normals")
    term1 = _lowrank_logdet(q) - _lowrank_logdet(p)
    term3 = _lowrank_mahalanobis(q, q.loc - p.loc)
    a = _lowrank_precision_root(q)
    p_w, p_d = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    q_d = q._unbroadcasted_cov_diag
    term21 = (p_d / q_d).sum(-1)
    term22 = _trace_xxt(p_w * q_d.rsqrt().unsqueeze(-1))
    term23 = _trace_xxt(a * p_d.sqrt().unsqueeze(-2))
    term24 = _trace_xxt(a @ p_w)
    return 0.5 * (term1 + term21 + term22 - term23 - term24 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p: MultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    """As above with S_p = L_p L_p^T: tr(S_q^-1 S_p) = |D_q^-1/2 L_p|_F^2 - |A L_p|_F^2."""
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    lp = p._unbroadcasted_scale_tril
    term1 = _lowrank_logdet(q) - 2 * _half_log_det(lp)
    term3 = _lowrank_mahalanobis(q, q.loc - p.loc)
    a = _lowrank_precision_root(q)
    term21 = _trace_xxt(lp * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term22 = _trace_xxt(a @ lp)
    return 0.5 * (term1 + term21 - term22 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p: LowRankMultivariateNormal, q: MultivariateNormal) -> Tensor:
    """As above with S_q = L_q L_q^T: tr(S_q^-1 S_p) = |L_q^-1 W_p|_F^2 + |L_q^-1 D_p^1/2|_F^2."""
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    lq = q._unbroadcasted_scale_tril
    term1 = 2 * _half_log_det(lq) - _lowrank_logdet(p)
    diff = q.loc - p.loc
    shape = np.broadcast_shapes(tuple(lq.shape[:-2]), tuple(diff.shape[:-1]))
    k = p.event_shape[0]
    term3 = (_solve_lower(lq.expand(*shape, k, k), diff.expand(*shape, k)) ** 2).sum(-1)
    batch = np.broadcast_shapes(tuple(lq.shape[:-2]), tuple(p._unbroadcasted_cov_factor.shape[:-2]))
    lq_b = lq.expand(*batch, k, k)
    w = p._unbroadcasted_cov_factor
    w = w.expand(*batch, k, w.shape[-1])
    d_sqrt = p._unbroadcasted_cov_diag.sqrt().diag_embed().expand(*batch, k, k)
    term21 = _trace_xxt(linalg.solve_triangular(lq_b, w, upper=False))
    term22 = _trace_xxt(linalg.solve_triangular(lq_b, d_sqrt, upper=False))
    return 0.5 * (term1 + term21 + term22 + term3 - k)
