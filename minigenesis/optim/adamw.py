"""``torch.optim.adamw``: AdamW, Adam with decoupled weight decay (defined in ``adam.py``, next
to Adam, whose update it shares)."""

from .adam import AdamW

__all__ = ["AdamW"]
