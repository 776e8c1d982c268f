"""PoissonNLLLoss, GaussianNLLLoss and CTCLoss: the options of ``F.poisson_nll_loss``,
``F.gaussian_nll_loss`` (``functional/likelihood_losses.py``) and ``F.ctc_loss``
(``functional/ctc.py``)."""

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


class CTCLoss(_Loss):
    """Connectionist Temporal Classification: -log p(target | log_probs) over every alignment
    of the target to the (longer) input; see ``F.ctc_loss``."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)  # fmt: skip
