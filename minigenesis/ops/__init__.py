"""Differentiable ops, one file per family.

Each op is a Function: forward on arrays, backward on Tensors."""
