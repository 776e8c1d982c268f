"""Functional forms of the layers and losses (``import minigenesis.nn.functional as F``)."""

# --- section A: linear, dropout, normalisation, embedding, activations (nn core)

# --- section B: convolution, pooling, attention, losses
