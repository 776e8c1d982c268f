"""Checkpoints: safe, atomic, checksummed pickle-based save/load (issue 6)."""
