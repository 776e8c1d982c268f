"""Functional forms of the layers and losses (``import minigenesis.nn.functional as F``)."""

# Linear, dropout, normalisation, embedding, activations.
# Each function lives next to its layer (nn/linear.py holds ``linear`` and ``Linear``).
from .activation import (  # noqa: E402,F401
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    sigmoid,
    silu,
    softmax,
    softplus,
    tanh,
)
from .dropout import dropout  # noqa: E402,F401
from .embedding import embedding, one_hot  # noqa: E402,F401
from .linear import linear  # noqa: E402,F401
from .normalization import batch_norm, layer_norm, rms_norm  # noqa: E402,F401

# Convolution, pooling, attention, losses.
# isort: split
# Convolution and pooling check their arguments in nn/conv.py and nn/pooling.py; the arithmetic,
# losses, padding and attention live in ops/ (conv, loss, pad, attention).
from ..ops.attention import scaled_dot_product_attention  # noqa: E402,F401
from ..ops.loss import (  # noqa: E402,F401
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)
from ..ops.pad import pad  # noqa: E402,F401
from .conv import conv2d  # noqa: E402,F401
from .pooling import avg_pool2d, max_pool2d  # noqa: E402,F401
