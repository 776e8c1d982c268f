"""Plots: learning-rate schedules, LR range test, training curves (matplotlib)."""
