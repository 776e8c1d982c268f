"""Optimizers and learning-rate schedulers (issue 4)."""
