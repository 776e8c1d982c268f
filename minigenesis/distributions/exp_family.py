"""ExponentialFamily: densities p(x) = h(x) exp(<theta, t(x)> - A(theta)).

A subclass names its natural parameters theta (``_natural_params``), the log-normaliser A
(``_log_normalizer``) and the carrier measure's E[log h(x)] (``_mean_carrier_measure``). The
entropy then follows without a closed form of its own, because grad A(theta) = E[t(x)]:

    H = A(theta) - <theta, grad A(theta)> - E[log h(x)].

KL between two members of one family is the Bregman divergence of A:
    KL(p || q) = A(theta_q) - A(theta_p) - <theta_q - theta_p, grad A(theta_p)>.
"""

from __future__ import annotations

from .._tensor import Tensor
from ..autograd import grad as _grad
from ..autograd.grad_mode import enable_grad
from .distribution import Distribution
from .utils import sum_rightmost

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """The base of exponential-family distributions (Normal-like closed forms are overridden
    by the subclasses; this entropy is the generic route through autograd)."""

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float | Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """A(theta) - <theta, grad A(theta)> - E[log h(x)], grad A by autograd."""
        result = -self._mean_carrier_measure
        with enable_grad():
            nparams = [p.detach().requires_grad_() for p in self._natural_params]
            lg_normal = self._log_normalizer(*nparams)
            gradients = _grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for theta, g in zip(nparams, gradients):
            result = result - sum_rightmost(theta * g, len(self._event_shape))
        return result
