"""optim.swa_utils: stochastic weight averaging (SWA, Izmailov et al. 2018) and exponential
moving averages (EMA) of a model's weights.

    swa_model = AveragedModel(model)            # a copy whose parameters are running averages
    swa_sched = SWALR(optimizer, swa_lr=0.05)   # anneal the lr to a constant for the SWA phase
    ... each epoch of the SWA phase: train, swa_model.update_parameters(model), swa_sched.step()
    update_bn(loader, swa_model)                # BatchNorm statistics of the averaged weights

The averages, with n the number of models averaged so far:

    SWA:  W_avg <- W_avg + (W - W_avg) / (n + 1)        (the plain mean of every W seen)
    EMA:  W_avg <- decay W_avg + (1 - decay) W

(Like PyTorch's, this optimizer utility reads ``nn`` (Module, BatchNorm): the one import across
the ``nn | optim`` line, named in pyproject.toml's contract.)
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..creation import tensor
from ..nn.module import Module
from ..nn.normalization import _BatchNorm
from .lr_scheduler.base import LRScheduler, format_param
from .optimizer import Optimizer

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """avg_fn(W_avg, W, n) = decay W_avg + (1 - decay) W."""
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable:
    """avg_fn(W_avg, W, n) = W_avg + (W - W_avg) / (n + 1)."""

    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """The EMA update in place over lists of tensors: W_avg.lerp_(W, 1 - decay)."""
    _check_decay(decay)

    def ema_update(ema_params: list, current_params: list, num_averaged: Any) -> None:
        with no_grad():
            for p_ema, p in zip(ema_params, current_params):
                if p_ema.is_floating_point():
                    p_ema.lerp_(p, 1 - decay)
                else:
                    p_ema.copy_(p_ema * decay + p * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """The SWA update in place over lists of tensors: W_avg.lerp_(W, 1 / (n + 1))."""

    def swa_update(averaged_params: list, current_params: list, num_averaged: Any) -> None:
        weight = 1.0 / (float(num_averaged) + 1)
        with no_grad():
            for p_avg, p in zip(averaged_params, current_params):
                if p_avg.is_floating_point():
                    p_avg.lerp_(p, weight)
                else:
                    p_avg.add_((p - p_avg) * weight)

    return swa_update


class AveragedModel(Module):
    """A deep copy of ``model`` whose parameters (and, with ``use_buffers``, buffers) are the
    running average of the models passed to ``update_parameters``: SWA by default, or any
    ``avg_fn(W_avg, W, n)`` / in-place ``multi_avg_fn(avg_list, list, n)`` (EMA with
    ``get_ema_multi_avg_fn``). The first update copies the model. ``n_averaged`` counts them."""

    def __init__(
        self,
        model: Module,
        device: Any = None,
        avg_fn: Callable | None = None,
        multi_avg_fn: Callable | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, device=device))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def _tensors(self, model: Module) -> Iterable[Tensor]:
        if self.use_buffers:
            return itertools.chain(model.parameters(), model.buffers())
        return model.parameters()

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current weights into the average."""
        with no_grad():
            averaged = [p.detach() for p in self._tensors(self.module)]
            current = [p.detach().to(a.device) for p, a in zip(self._tensors(model), averaged)]
            n = int(self.n_averaged.item())
            if n == 0:
                for a, p in zip(averaged, current):
                    a.copy_(p)
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn(averaged, current, self.n_averaged)
            else:
                # PyTorch's default average: get_swa_avg_fn's formula per tensor on the CPU (an
                # integer buffer such as num_batches_tracked is averaged in float and truncated
                # by the copy), the in-place multi-tensor lerp on CUDA (its foreach devices)
                on_cpu = self.avg_fn is not None or not any(a.is_cuda for a in averaged)
                avg_fn = self.avg_fn or get_swa_avg_fn()
                if on_cpu:
                    for a, p in zip(averaged, current):
                        a.copy_(avg_fn(a, p, self.n_averaged))
                else:
                    get_swa_multi_avg_fn()(averaged, current, self.n_averaged)
            if not self.use_buffers:  # the buffers follow the model (update_bn recomputes BN's)
                for b_avg, b in zip(self.module.buffers(), model.buffers()):
                    b_avg.copy_(b.detach().to(b_avg.device))
            self.n_averaged.add_(1)


def update_bn(loader: Iterable, model: Module, device: Any = None) -> None:
    """Recompute every BatchNorm's running mean and variance with one pass over ``loader`` (a
    batch, or a list/tuple whose first item is the input), as a plain average over the batches
    (momentum None), in training mode; the momenta and the mode are restored after."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr to ``swa_lr`` over ``anneal_epochs`` steps ("cos": along half a
    cosine, "linear": a straight line), then keep it there. As PyTorch computes it, each step
    moves from the previous lr: lr_t = swa_lr alpha_t + lr_0(t) (1 - alpha_t), with alpha_t the
    annealing fraction and lr_0 recovered from the previous step's lr."""

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: Any,
        anneal_epochs: int = 10,
        anneal_strategy: str = "cos",
        last_epoch: int = -1,
    ) -> None:
        for lr, group in zip(format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self._anneal_strategy = anneal_strategy
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def anneal_func(self, t: float) -> float:
        if self._anneal_strategy == "cos":
            return (1 - math.cos(math.pi * t)) / 2
        return t

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        groups = self.optimizer.param_groups
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(groups, prev_lrs)]
