"""Differentiable ops, one file per family.

Each op is a Function: forward on arrays, backward on Tensors."""


def __getattr__(name: str):  # noqa: ANN202  (mg.ops.<namespace> of users' custom operators)
    from .custom_namespace import lookup

    namespace = lookup(name)
    if namespace is None:
        raise AttributeError(f"module 'minigenesis.ops' has no attribute {name!r}")
    return namespace
