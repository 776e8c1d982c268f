"""``minigenesis.cuda.amp``: the spelling of older PyTorch code (``from torch.cuda.amp import
autocast, GradScaler``). The same objects as ``minigenesis.amp``."""

from __future__ import annotations

from ..amp import GradScaler, autocast

__all__ = ["autocast", "GradScaler"]
