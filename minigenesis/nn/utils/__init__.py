"""nn.utils: gradient clipping, flattening parameters into one vector, (``nn.utils.rnn``)
padding and packing sequences of different lengths, and reparametrising a layer's tensors
(``parametrize``, ``parametrizations.weight_norm`` and the older hook-based ``weight_norm``
and ``spectral_norm``),
and folding an eval-mode BatchNorm into the layer before it (``fusion``), convolution weights
laid out channels-last (``memory_format``); ``stateless`` runs a
module with other tensors in place of its parameters and buffers (``torch.func.functional_call``'s
mechanism).

``import minigenesis.nn.utils as nn_utils`` and ``mg.nn.utils.clip_grad_norm_`` both work.
"""

from .clip_grad import (  # noqa: F401
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from . import rnn  # noqa: F401,E402  (nn.utils.rnn, as in PyTorch)
from . import fusion, parametrizations, parametrize, prune, stateless  # noqa: F401,E402
from .fusion import (  # noqa: F401,E402
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .memory_format import (  # noqa: F401,E402
    convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format,
)
from .init import skip_init  # noqa: F401,E402
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401,E402
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401,E402


__all__ = [
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "convert_conv2d_weight_memory_format",
    "convert_conv3d_weight_memory_format",
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
    "get_total_norm",
    "parameters_to_vector",
    "remove_spectral_norm",
    "remove_weight_norm",
    "skip_init",
    "spectral_norm",
    "vector_to_parameters",
    "weight_norm",
]
