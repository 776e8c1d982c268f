"""Utilities: gradient checkpointing (``checkpoint``) and data loading (``data``)."""

from . import data  # noqa: E402,F401  (mg.utils.data: Dataset, DataLoader ...)
from . import hooks  # noqa: E402,F401  (mg.utils.hooks.RemovableHandle ...)

# mg.utils.checkpoint is the FUNCTION (see _compat.function_as_module); the module stays
# importable as minigenesis.utils.checkpoint.
from .checkpoint import checkpoint, checkpoint_sequential  # noqa: E402,F401
