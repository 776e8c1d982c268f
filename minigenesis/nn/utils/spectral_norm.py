"""nn.utils.spectral_norm: the older, hook-based spectral normalisation (PyTorch recommends
``nn.utils.parametrizations.spectral_norm``; this one is still common in GAN programs).

``spectral_norm(layer)`` renames the Parameter ``weight`` to ``weight_orig`` and adds two buffers,
``weight_u`` and ``weight_v``, the power iteration's unit vectors (``_spectral_norm_math.py``). A
forward pre-hook sets ``layer.weight = weight_orig / sigma`` before every call, with
sigma = u . (W v) the estimate of W's largest singular value (W: ``weight_orig`` as a matrix whose
rows are dim ``dim``); in training mode it first runs ``n_power_iterations`` more iterations.
``remove_spectral_norm`` makes ``weight`` a Parameter again, holding the current W / sigma.
Two state-dict hooks, as PyTorch's: saving records the format's version in the metadata, and
loading an old-format state (``weight`` saved, no ``weight_v``) solves for the v that gives the
saved sigma.
"""

from __future__ import annotations

from typing import Any

from ...autograd.grad_mode import no_grad
from ...functions import mv
from ...linalg import multi_dot
from ..conv_variants import _ConvTransposeNd
from ..functional import normalize
from ..module import Module
from ..parameter import Parameter
from ._spectral_norm_math import power_iteration_, sigma, weight_to_matrix
from .weight_norm import remove_reparametrization_hook

__all__ = [
    "SpectralNorm",
    "SpectralNormLoadStateDictPreHook",
    "SpectralNormStateDictHook",
    "remove_spectral_norm",
    "spectral_norm",
]


class SpectralNorm:
    """The forward pre-hook: recomputes ``module.<name>`` from ``<name>_orig``, ``<name>_u`` and
    ``<name>_v``."""

    _version: int = 1

    def __init__(
        self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.name, self.dim = name, dim
        self.n_power_iterations, self.eps = n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight: Any) -> Any:
        return weight_to_matrix(weight, self.dim)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Any:
        """W / (u . W v); with ``do_power_iteration`` the buffers first move on (in place), and
        the sigma of this call uses copies (a later call's iteration must not change a saved u)."""
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            power_iteration_(weight_mat, u, v, self.n_power_iterations, self.eps)
            u, v = u.clone(), v.clone()
        return weight / sigma(weight_mat, u, v)

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))

    def _solve_v_and_rescale(self, weight_mat: Any, u: Any, target_sigma: Any) -> Any:
        """A v with u . (W v) = target_sigma: the least-squares v of W v = u, rescaled."""
        v = multi_dot([weight_mat.t().mm(weight_mat).pinverse(), weight_mat.t(), u.unsqueeze(1)])
        v = v.squeeze(1)
        return v * (target_sigma / (u * mv(weight_mat, v)).sum())

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        if name not in module._parameters:
            raise KeyError(name)  # (as PyTorch: not a parameter of this module)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():  # random unit vectors: the first calls' iterations refine them
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())  # a plain attribute until the first call
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormStateDictHook:
    """Saving: records ``<name>.version`` in the module's metadata under "spectral_norm"."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module: Module, state_dict: Any, prefix: str, local_metadata: dict):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


class SpectralNormLoadStateDictPreHook:
    """Loading a state saved before version 1 (``weight`` and ``weight_orig``, ``weight_u``, no
    ``weight_v``): sigma = mean(weight_orig / weight), and v solved so that u . (W v) = sigma."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        key = prefix + fn.name
        if (
            version is None
            and key not in state_dict
            and all(key + s in state_dict for s in ("_orig", "_u", "_v"))
        ):
            return  # the current format, saved without metadata
        absent = [key + s for s in ("_orig", "", "_u") if key + s not in state_dict]
        if absent:
            if strict:
                missing.extend(absent)
            return
        with no_grad():
            weight_orig = state_dict[key + "_orig"]
            weight = state_dict.pop(key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[key + "_u"]
            state_dict[key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """W_SN = W / sigma(W) through a forward pre-hook (see the module docstring); returns the
    module. ``dim`` (the output dim) defaults to 1 for transposed convolutions, 0 otherwise."""
    if dim is None:
        dim = 1 if isinstance(module, _ConvTransposeNd) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo spectral_norm: ``<name>`` is one Parameter again, holding W / sigma (no iteration)."""
    remove_reparametrization_hook(module, SpectralNorm, name, "spectral_norm")
    for registry, kind in (
        ("_state_dict_hooks", SpectralNormStateDictHook),
        ("_load_state_dict_pre_hooks", SpectralNormLoadStateDictPreHook),
    ):
        hooks = module.__dict__.get(registry, {})
        for key, hook in list(hooks.items()):
            if isinstance(hook, kind) and hook.fn.name == name:
                del hooks[key]
                break
    return module
