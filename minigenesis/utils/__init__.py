"""Utilities: gradient checkpointing (``checkpoint``) and data loading (``data``)."""

from . import data  # noqa: E402,F401  (mg.utils.data: Dataset, DataLoader ...)
