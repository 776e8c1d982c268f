"""Chapter 4 exercises: modules and layers.

You write layers as ``mg.nn.Module`` subclasses, using Tensor ops only: autograd then gives you
their backward for free. The checks compare them with minigenesis's own layers.

    python -m pytest lessons/04_modules_and_layers
"""

from __future__ import annotations

import math  # noqa: F401  (math.sqrt, for exercise 4.1)

import minigenesis as mg
from minigenesis import nn


class MyLinear(nn.Module):
    """Exercise 4.1: y = x W^T + b, with PyTorch's default initialisation.

    - ``self.weight``: an ``nn.Parameter`` of shape (out_features, in_features);
    - ``self.bias``: an ``nn.Parameter`` of shape (out_features,), or ``None`` when
      ``bias=False`` (set the attribute to None so ``self.bias`` still exists);
    - both drawn from U(-k, k) with k = 1 / sqrt(in_features): ``mg.rand(...) * 2k - k``.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True) -> None:
        super().__init__()
        raise NotImplementedError("Exercise 4.1: create weight and bias Parameters, U(-k, k)")

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        """Exercise 4.1 (forward): x of shape (..., in_features) -> (..., out_features)."""
        raise NotImplementedError("Exercise 4.1: return x @ W.T (+ b)")


class MLP(nn.Module):
    """Exercise 4.2: a multi-layer perceptron, e.g. ``MLP([4, 16, 16, 3])``.

    Hold the layers in ``self.layers = nn.ModuleList([...])`` of ``nn.Linear(sizes[i],
    sizes[i+1])`` (minigenesis's Linear), so their parameters are registered as
    ``layers.0.weight``, ``layers.0.bias``, ... In ``forward`` apply them in order with a ReLU
    (``x.relu()``) between consecutive layers and none after the last one.
    """

    def __init__(self, sizes: list[int]) -> None:
        super().__init__()
        raise NotImplementedError("Exercise 4.2: build a ModuleList of Linear layers")

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        """Exercise 4.2 (forward)."""
        raise NotImplementedError("Exercise 4.2: Linear, ReLU, Linear, ReLU, ..., Linear")


def layer_norm(x: mg.Tensor, weight: mg.Tensor, bias: mg.Tensor, eps: float = 1e-5) -> mg.Tensor:
    """Exercise 4.3: layer normalisation over the last dimension, from Tensor ops.

    y = (x - mean) / sqrt(var + eps) * weight + bias, where mean and var are taken over the last
    dim (keepdim=True) and var is the BIASED variance (divide by n, not n - 1), as PyTorch's
    LayerNorm does. weight and bias have shape (x.shape[-1],).
    """
    raise NotImplementedError("Exercise 4.3: normalise over the last dim, then scale and shift")


class MyDropout(nn.Module):
    """Exercise 4.4: inverted dropout.

    In training mode (``self.training``, which ``.train()`` / ``.eval()`` switch) zero each
    element with probability ``p`` and multiply the survivors by 1 / (1 - p), so the expected value
    is unchanged. Draw the mask with ``mg.rand_like(x) >= p`` (seeded by ``mg.manual_seed``). In
    eval mode, or when p == 0, return x unchanged. p == 1 zeroes everything.
    """

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        raise NotImplementedError("Exercise 4.4: check 0 <= p <= 1 (ValueError) and store it")

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        """Exercise 4.4 (forward)."""
        raise NotImplementedError("Exercise 4.4: mask and rescale in training, identity in eval")


class MyBatchNorm1d(nn.Module):
    """Exercise 4.5: batch normalisation for inputs of shape (N, C), PyTorch's semantics.

    - Parameters ``weight`` (ones) and ``bias`` (zeros), shape (C,).
    - Buffers (``self.register_buffer``): ``running_mean`` (zeros), ``running_var`` (ones) and
      ``num_batches_tracked`` (``mg.tensor(0)``).
    - Training: normalise with the batch mean and BIASED batch variance; then, without recording a
      graph (``with mg.no_grad():``), update
      ``running = (1 - momentum) * running + momentum * batch_stat`` using the UNBIASED variance
      (n / (n - 1) times the biased one) for ``running_var``, and add 1 to num_batches_tracked.
    - Eval: normalise with running_mean and running_var.
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        raise NotImplementedError("Exercise 4.5: parameters weight, bias; three buffers")

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        """Exercise 4.5 (forward)."""
        raise NotImplementedError("Exercise 4.5: batch stats + running update, or running stats")


def quiz() -> dict[str, str]:
    """Exercise 4.6: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 4 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 4.6: return {'q1': letter, ...}, your answers to the self-check questions"
    )
