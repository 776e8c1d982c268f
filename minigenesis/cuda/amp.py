"""``minigenesis.cuda.amp``: the spelling of older PyTorch code (``from torch.cuda.amp import
autocast, GradScaler``). ``autocast`` is ``minigenesis.amp.autocast``; ``GradScaler`` takes
``torch.cuda.amp.GradScaler``'s arguments, which have no ``device`` in front."""

from __future__ import annotations

from ..amp import GradScaler as _AmpGradScaler
from ..amp import autocast

__all__ = ["autocast", "GradScaler"]


class GradScaler(_AmpGradScaler):
    """``minigenesis.amp.GradScaler("cuda", ...)`` under its older name and signature: without
    a usable GPU it disables itself with PyTorch's warning, as ``torch.cuda.amp.GradScaler``."""

    _cuda_name = "minigenesis.cuda.amp.GradScaler"
    _cuda_stacklevel = 1

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        super().__init__(
            "cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled
        )
