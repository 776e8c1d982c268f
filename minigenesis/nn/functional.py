"""Functional forms of the layers and losses (``import minigenesis.nn.functional as F``)."""

# --- section A: linear, dropout, normalisation, embedding, activations (nn core)
# Each function lives next to its layer (nn/linear.py holds ``linear`` and ``Linear``).
from .activation import (  # noqa: E402,F401
    gelu, leaky_relu, log_softmax, relu, sigmoid, silu, softmax, softplus, tanh,
)
from .dropout import dropout  # noqa: E402,F401
from .embedding import embedding, one_hot  # noqa: E402,F401
from .linear import linear  # noqa: E402,F401
from .normalization import batch_norm, layer_norm, rms_norm  # noqa: E402,F401

# --- section B: convolution, pooling, attention, losses
