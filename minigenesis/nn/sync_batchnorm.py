"""``nn.SyncBatchNorm``: BatchNorm whose batch statistics belong to the whole distributed batch.

Training scripts convert their model with ``nn.SyncBatchNorm.convert_sync_batchnorm(model)``
whether or not they end up running on several processes. In one process (no process group
initialised, or a group of one, or in eval mode) the layer is exactly BatchNorm over input of any
rank from 2 up, as PyTorch's is there. Gathering the per-channel sums of several processes inside
the forward and backward (what makes it "sync") is not implemented: training with a group of more
than one process raises ``NotImplementedError`` rather than silently normalising each process's
shard by its own statistics.
"""

from __future__ import annotations

from typing import Any

from .. import distributed as dist
from .module import Module
from .normalization import _BatchNorm


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over (N, C, *) input, statistics per channel C (see the module docstring)."""

    _expected_dims = tuple(range(2, 65))

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        process_group: Any = None,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def forward(self, input):  # noqa: A002  (PyTorch's name)
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")
        if self.training and dist.is_initialized():
            if dist.get_world_size(self.process_group) > 1:
                raise NotImplementedError(
                    "SyncBatchNorm: synchronising batch statistics across processes is not "
                    "implemented; use BatchNorm (statistics per process) or one process"
                )
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with every BatchNorm*d replaced by a SyncBatchNorm that shares its
        parameters and running statistics (the same tensors) and its train/eval mode."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = cls(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
            )
            if module.affine:
                out.weight, out.bias = module.weight, module.bias
            out.running_mean, out.running_var = module.running_mean, module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
