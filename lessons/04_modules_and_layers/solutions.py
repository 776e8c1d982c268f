"""Chapter 4 solutions: modules and layers."""

from __future__ import annotations

import math

import minigenesis as mg
from minigenesis import nn


class MyLinear(nn.Module):
    """Exercise 4.1: y = x W^T + b, with PyTorch's default initialisation."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True) -> None:
        super().__init__()
        k = 1.0 / math.sqrt(in_features)
        self.weight = nn.Parameter(mg.rand(out_features, in_features) * (2 * k) - k)
        self.bias = nn.Parameter(mg.rand(out_features) * (2 * k) - k) if bias else None

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        """Exercise 4.1 (forward): x of shape (..., in_features) -> (..., out_features)."""
        y = x @ self.weight.T
        return y + self.bias if self.bias is not None else y


class MLP(nn.Module):
    """Exercise 4.2: a multi-layer perceptron, e.g. ``MLP([4, 16, 16, 3])``."""

    def __init__(self, sizes: list[int]) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.Linear(n_in, n_out) for n_in, n_out in zip(sizes[:-1], sizes[1:])]
        )

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        """Exercise 4.2 (forward)."""
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = x.relu()
        return x


def layer_norm(x: mg.Tensor, weight: mg.Tensor, bias: mg.Tensor, eps: float = 1e-5) -> mg.Tensor:
    """Exercise 4.3: layer normalisation over the last dimension, from Tensor ops."""
    mean = x.mean(dim=-1, keepdim=True)
    centered = x - mean
    var = (centered * centered).mean(dim=-1, keepdim=True)
    return centered / (var + eps).sqrt() * weight + bias


class MyDropout(nn.Module):
    """Exercise 4.4: inverted dropout."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        """Exercise 4.4 (forward)."""
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:
            return x * 0.0
        keep = (mg.rand_like(x) >= self.p).to(x.dtype)
        return x * keep * (1.0 / (1.0 - self.p))


class MyBatchNorm1d(nn.Module):
    """Exercise 4.5: batch normalisation for inputs of shape (N, C), PyTorch's semantics."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.weight = nn.Parameter(mg.ones(num_features))
        self.bias = nn.Parameter(mg.zeros(num_features))
        self.register_buffer("running_mean", mg.zeros(num_features))
        self.register_buffer("running_var", mg.ones(num_features))
        self.register_buffer("num_batches_tracked", mg.tensor(0))

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        """Exercise 4.5 (forward)."""
        if self.training:
            n = x.shape[0]
            mean = x.mean(dim=0)
            var = ((x - mean) * (x - mean)).mean(dim=0)
            with mg.no_grad():
                m = self.momentum
                self.running_mean.mul_(1 - m).add_(mean.detach() * m)
                self.running_var.mul_(1 - m).add_(var.detach() * (m * n / (n - 1)))
                self.num_batches_tracked.add_(1)
        else:
            mean, var = self.running_mean, self.running_var
        return (x - mean) / (var + self.eps).sqrt() * self.weight + self.bias


def quiz() -> dict[str, str]:
    """Exercise 4.6: the answers to the self-check questions, each with the reason."""
    return {
        # Module.__setattr__ registers Parameters and Modules; a list is neither, so its layers are
        # invisible to parameters(), state_dict() and .to().
        "q1": "c",
        # Keeping with probability 1 - p and scaling by 1/(1 - p) keeps E[output] = input; at eval
        # dropout is the identity.
        "q2": "a",
        # In train mode the output of a sample depends on the others in its batch; eval mode uses
        # the running mean and variance, the same for every batch size.
        "q3": "c",
        # Var(sum of n w_i x_i) = n Var(w) Var(x): with Var(w) ~ 1/n the activations keep their
        # scale from layer to layer instead of growing like sqrt(n) per layer.
        "q4": "d",
    }
