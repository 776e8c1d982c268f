"""Differentiable ops, one file per family; each op is a Function (forward on arrays, backward on Tensors)."""
