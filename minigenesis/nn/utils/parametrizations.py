"""nn.utils.parametrizations: ready-made parametrizations (``parametrize.py``).

``weight_norm(layer)``: ``layer.weight`` becomes g v / ||v|| computed from two learned tensors,
``parametrizations.weight.original0`` (g, the lengths) and ``original1`` (v, the directions), as
PyTorch stores them; the norm is over every dim but ``dim`` (see ``_weight_norm_math.py``).

``spectral_norm(layer)``: ``layer.weight`` becomes W / sigma(W), sigma the largest singular value
of W seen as a matrix (rows: dim ``dim``), estimated by power iteration with two buffers u, v that
persist across calls (Miyato et al., "Spectral Normalization for GANs").

``orthogonal(layer)``: ``layer.weight`` stays an orthogonal matrix (or has orthonormal rows if
wide), computed by the matrix exponential, the Cayley map or Householder reflectors from an
unconstrained tensor (see ``_orthogonal.py``).
"""

from __future__ import annotations

from ..._tensor import Tensor
from ..conv_variants import _ConvTransposeNd
from ..functional import normalize
from ..module import Module
from . import parametrize
from ._orthogonal import Orthogonal, check_orthogonal_map
from ._spectral_norm_math import power_iteration_, sigma, weight_to_matrix
from ._weight_norm_math import norm_except_dim
from ._weight_norm_math import weight_norm as _weight_norm

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    """(g, v) -> g v / ||v||; right_inverse(w) = (||w||, w), so registering keeps w's value."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Weight normalisation as a parametrization of ``module.<name>``; returns the module.

    A state dict saved with the older ``nn.utils.weight_norm`` (keys ``<name>_g``, ``<name>_v``)
    still loads, as in PyTorch: a load pre-hook renames those keys to ``original0``/``original1``.
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    module._register_load_state_dict_pre_hook(_OldWeightNormKeys(name))
    return module


class _OldWeightNormKeys:
    """Load pre-hook: rename ``<name>_g``/``<name>_v`` (the older weight_norm's keys) to the
    parametrization's ``original0``/``original1``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, state_dict: dict, prefix: str, *_rest) -> None:
        g_key, v_key = f"{prefix}{self.name}_g", f"{prefix}{self.name}_v"
        if g_key in state_dict and v_key in state_dict:
            new = f"{prefix}parametrizations.{self.name}.original"
            state_dict[new + "0"] = state_dict.pop(g_key)
            state_dict[new + "1"] = state_dict.pop(v_key)


class _SpectralNorm(Module):
    """W -> W / sigma with sigma = u . (W_mat v), u and v the power iteration's singular vectors
    (buffers ``_u``, ``_v``; one more iteration per call in training mode, none in eval). A 1-d
    weight is only normalised (its one singular value is its norm)."""

    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but "
                f"got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=eps))
            self._power_method(weight_mat, 15)  # start from good estimates, as PyTorch does

    def _reshape_weight_to_matrix(self, weight):
        return weight_to_matrix(weight, self.dim)

    def _power_method(self, weight_mat, n_power_iterations: int) -> None:
        """u <- W v / ||W v||, v <- W^T u / ||W^T u||: in place in the buffers, no graph."""
        power_iteration_(weight_mat, self._u, self._v, n_power_iterations, self.eps, u_first=True)

    def forward(self, weight):
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()  # (the next call writes into the buffers)
        return weight / sigma(weight_mat, u, v)

    def right_inverse(self, value):
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Spectral normalisation as a parametrization of ``module.<name>``; returns the module.
    ``dim`` (the output dim) defaults to 1 for transposed convolutions, 0 otherwise."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, _ConvTransposeNd) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module


def orthogonal(
    module: Module,
    name: str = "weight",
    orthogonal_map: str | None = None,
    *,
    use_trivialization: bool = True,
) -> Module:
    """``module.<name>`` parametrized as an orthogonal matrix (PyTorch's defaults: matrix_exp
    for a square weight, householder otherwise; with the trivialization the weight at
    registration, orthogonalised by QR, is the starting point). Returns the module."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    orthogonal_map = check_orthogonal_map(weight, orthogonal_map)
    orth = Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
