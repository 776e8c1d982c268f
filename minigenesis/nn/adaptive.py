"""``nn.AdaptiveLogSoftmaxWithLoss``: the efficient softmax of Grave et al. (2016) for many classes.

The classes 0 .. n_classes - 1 are split by the cutoffs c_1 < ... < c_k into a shortlist
[0, c_1) and k clusters [c_j, c_{j+1}) (c_{k+1} = n_classes). The head is a linear map to
c_1 + k logits: one per shortlist class and one per cluster. Cluster j has its own two-layer
projection (in_features -> in_features // div_value^j -> its cluster's size, no biases), so rare
classes get fewer parameters. The log-probability of a class y is

    shortlist y:        log p(y) = log_softmax(head(x))[y]
    y in cluster j:     log p(y) = log_softmax(head(x))[c_1 + j - 1]
                                   + log_softmax(tail_j(x))[y - c_j]

(the probability of its cluster times its probability within the cluster). ``forward(x,
target)`` returns the named tuple (output, loss): the log-probability of each target and the
mean of their negatives. ``log_prob`` gives all n_classes log-probabilities, ``predict`` the
most probable class.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from .._tensor import Tensor
from ..functions import argmax, cat
from . import functional as F
from .containers import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """A head over the shortlist and the clusters, and one projection per cluster (see the
    module docstring); ``cutoffs`` are the first classes of the clusters."""

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs: Any,
        div_value: float = 4.0,
        head_bias: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1"
            )
        factory = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **factory),
                    Linear(hidden, size, bias=False, **factory),
                )
            )

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        """(output, loss): log p(target) per row (see the module docstring), and the mean of
        -log p(target). input (N, in_features) with target (N,), or (in_features,) with a 0-d
        target."""
        if target_.ndim == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension."
                )
            if input_.ndim != 2:
                raise RuntimeError(
                    "1D target tensor expects 2D input tensors, but found inputs with size "
                    f"{input_.shape}"
                )
        elif target_.ndim == 0:
            if input_.ndim != 1:
                raise RuntimeError(
                    "0D target tensor expects 1D input tensors, but found inputs with size "
                    f"{input_.shape}"
                )
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.ndim > 0
        x = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        batch = target.shape[0]
        # which head logit each row reads: its class (shortlist) or its cluster's logit
        head_index = target.clone()
        output = x.new_zeros(batch)
        used = int(((target >= 0) & (target < self.shortlist_size)).sum())
        for j in range(self.n_clusters):
            low, high = self.cutoffs[j], self.cutoffs[j + 1]
            rows = ((target >= low) & (target < high)).nonzero()[:, 0]
            if rows.numel() == 0:
                continue
            cluster_logprob = F.log_softmax(self.tail[j](x.index_select(0, rows)), dim=1)
            within = (target.index_select(0, rows) - low).unsqueeze(1)
            output = output.index_add(0, rows, cluster_logprob.gather(1, within)[:, 0])
            head_index = head_index.index_fill(0, rows, self.shortlist_size + j)
            used += rows.numel()
        if used != batch:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        head_logprob = F.log_softmax(self.head(x), dim=1)
        output = output + head_logprob.gather(1, head_index.unsqueeze(1))[:, 0]
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, x: Tensor, head_output: Tensor) -> Tensor:
        """All n_classes log-probabilities: the shortlist's from the head, each cluster's as
        its head log-probability plus the log_softmax of its projection."""
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, : self.shortlist_size]]
        for j in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[j](x), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + j].unsqueeze(1))
        return cat(parts, dim=1)

    def log_prob(self, input: Tensor) -> Tensor:  # noqa: A002
        """log p(c) for every class c: (N, in_features) -> (N, n_classes)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:  # noqa: A002
        """The most probable class of each row, ``log_prob(input).argmax(1)``; rows whose head
        prefers a shortlist class need no cluster (its logit beats every cluster's total)."""
        head_output = self.head(input)
        output = argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not bool(not_in_shortlist.any()):
            return output
        if bool(not_in_shortlist.all()):
            return argmax(self._full_log_prob(input, head_output), dim=1)
        log_prob = self._full_log_prob(input[not_in_shortlist], head_output[not_in_shortlist])
        output[not_in_shortlist] = argmax(log_prob, dim=1)
        return output
