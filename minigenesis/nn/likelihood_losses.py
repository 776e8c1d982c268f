"""PoissonNLLLoss and GaussianNLLLoss: the options of ``F.poisson_nll_loss`` and
``F.gaussian_nll_loss`` (``functional/likelihood_losses.py``)."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import functional as F
from .loss import _Loss


class PoissonNLLLoss(_Loss):
    """exp(x) - k x for log rates x (``log_input``) or x - k log(x + eps) for rates; see
    ``F.poisson_nll_loss``."""

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average: Any = None,
        eps: float = 1e-8,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(
            log_input, target, self.log_input, self.full, eps=self.eps, reduction=self.reduction
        )


class GaussianNLLLoss(_Loss):
    """(log var + (x - y)^2 / var) / 2 with a predicted variance; see ``F.gaussian_nll_loss``."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target: Tensor, var: Any) -> Tensor:  # noqa: A002
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)  # fmt: skip
