"""Utilities: gradient checkpointing (``checkpoint``) and data loading (``data``)."""

from . import data  # noqa: E402,F401  (mg.utils.data: Dataset, DataLoader ...)

# mg.utils.checkpoint is the FUNCTION (code calls it directly); the module stays importable as
# minigenesis.utils.checkpoint, and the function carries .checkpoint/.checkpoint_sequential too.
from .checkpoint import checkpoint, checkpoint_sequential  # noqa: E402,F401
