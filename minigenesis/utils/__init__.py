"""Utilities: gradient checkpointing (``checkpoint``) and data loading (``data``)."""
