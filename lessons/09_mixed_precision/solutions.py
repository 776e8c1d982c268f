"""Chapter 9 solutions: rounding in 16 bits, the autocast policy, GradScaler by hand, underflow."""

from __future__ import annotations

import math

import minigenesis as mg


def accumulate(start: float, update: float, steps: int, dtype: mg.DType) -> float:
    """Exercise 9.1: why the master weights stay float32.

    Make a one-element tensor holding ``start`` in ``dtype``, add ``update`` to it in place
    (``w.add_(update)``) ``steps`` times, and return the final value as a Python float. Each
    addition rounds to ``dtype``: an update smaller than half the gap between ``w`` and its next
    representable neighbour is rounded away every single time.
    """
    w = mg.tensor([start], dtype=dtype)
    for _ in range(steps):
        w.add_(update)
    return w.item()


def autocast_predictions() -> dict[str, tuple[mg.DType, str]]:
    """Exercise 9.2: predict the dtype of each expression of the lesson's autocast quiz.

    Inside ``mg.autocast("cpu", dtype=mg.bfloat16)``, with float32 tensors ``x`` (8, 4), ``w``
    (4, 3) and an int64 tensor ``labels`` (8,), the expressions are:

    - "matmul":   ``h = x @ w``
    - "relu":     ``h.relu()``
    - "add":      ``h + x[:, :3]``
    - "softmax":  ``h.softmax(dim=-1)``
    - "sum":      ``h.sum()``
    - "loss":     ``mg.nn.functional.cross_entropy(h, labels)``

    Return a dict from those names to ``(dtype, rule)``: the DType each produces (e.g.
    ``mg.float32``) and the rule of the CPU's policy that decides it, one of ``"lower"`` (the
    low-precision list), ``"float32"`` (the float32 list), ``"promote"`` (mixed inputs become the
    widest) or ``"none"`` (no rule on the CPU: the op keeps its input's dtype). A prediction from
    the rules, not a measurement: the check fails an answer that runs minigenesis to find out.
    """
    return {
        "matmul": (mg.bfloat16, "lower"),  # low-precision list: runs in bfloat16
        "relu": (mg.bfloat16, "none"),  # not on any list: runs in its input's dtype
        "add": (mg.float32, "promote"),  # mixed inputs promote to the widest type
        # softmax and sum are float32 on CUDA only (float16 overflows); on the CPU they keep their
        # bfloat16 input's dtype (float32's range; the kernel accumulates in float32)
        "softmax": (mg.bfloat16, "none"),
        "sum": (mg.bfloat16, "none"),
        "loss": (mg.float32, "float32"),  # every loss runs in float32, on both devices
    }


def fp16_weight_grad(x_value: float, upstream: float, loss_scale: float) -> float:
    """Exercise 9.3: the underflow demonstration.

    A float32 master weight ``w`` = [1.0] is cast to float16 and multiplied by a float16 input
    ``x`` = [x_value]: ``h = w.half() * x`` is a float16 activation. The loss is computed in
    float32, as autocast does: ``loss = (h.float() * upstream).sum()``. Back-propagate
    ``loss * loss_scale``, then return ``w.grad`` divided by ``loss_scale`` (unscaled in float32)
    as a Python float. The true gradient is ``x_value * upstream``.
    """
    w = mg.tensor([1.0], requires_grad=True)  # float32 master weight
    x = mg.tensor([x_value], dtype=mg.float16)
    h = w.half() * x  # float16: the gradient reaching w passes through float16 here
    loss = (h.float() * upstream).sum()
    (loss * loss_scale).backward()
    return w.grad.item() / loss_scale


FP16_SMALLEST_NORMAL = 2.0**-14
FP16_MAX = 65504.0


def loss_scale_range(grad_min: float, grad_max: float) -> tuple[int, int]:
    """Exercise 9.4: the static loss scales 2^k that fit a run's gradients into float16.

    Return ``(k_low, k_high)``: ``k_low`` is the smallest integer k with
    ``grad_min * 2^k >= FP16_SMALLEST_NORMAL`` (the smallest gradient keeps float16's full
    precision), ``k_high`` the largest k with ``grad_max * 2^k <= FP16_MAX`` (the largest one
    does not overflow). Both gradients are positive magnitudes. Raise ``ValueError`` when
    ``k_low > k_high``: then no single scale fits, the gradients span more than float16's range.
    """
    if not 0 < grad_min <= grad_max:
        raise ValueError(f"need 0 < grad_min <= grad_max, got {grad_min} and {grad_max}")
    k_low = math.ceil(math.log2(FP16_SMALLEST_NORMAL / grad_min))
    while grad_min * 2.0**k_low < FP16_SMALLEST_NORMAL:  # log2 may round the wrong way
        k_low += 1
    while grad_min * 2.0 ** (k_low - 1) >= FP16_SMALLEST_NORMAL:
        k_low -= 1
    k_high = math.floor(math.log2(FP16_MAX / grad_max))
    while grad_max * 2.0**k_high > FP16_MAX:
        k_high -= 1
    while grad_max * 2.0 ** (k_high + 1) <= FP16_MAX:
        k_high += 1
    if k_low > k_high:
        raise ValueError(
            f"no power-of-two scale fits gradients from {grad_min:g} to {grad_max:g} into float16 "
            f"(need k >= {k_low} and k <= {k_high})"
        )
    return k_low, k_high


class ManualGradScaler:
    """Exercise 9.5: dynamic loss scaling by hand, with GradScaler's rules.

    - ``scale(loss)`` returns ``loss * S`` (S = the current scale, starting at ``init_scale``);
    - ``unscale_(optimizer)`` multiplies every gradient by 1/S and records whether any gradient
      holds inf or NaN (an error if called twice for one optimizer before ``update``);
    - ``step(optimizer)`` unscales first if needed, then calls ``optimizer.step()`` only when no
      gradient was inf/NaN; it returns True when the step ran;
    - ``update()``: after an inf/NaN, S *= backoff_factor and the count of good steps restarts
      at 0; otherwise the count grows, and when it reaches ``growth_interval`` S *= growth_factor
      and the count restarts. Then forget which optimizers were unscaled.
    """

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
    ) -> None:
        self.scale_value = float(init_scale)
        self.growth_factor = growth_factor
        self.backoff_factor = backoff_factor
        self.growth_interval = growth_interval
        self.good_steps = 0
        self.found_inf: dict[int, bool] = {}  # id(optimizer) -> inf/NaN seen when unscaling

    def scale(self, loss: mg.Tensor) -> mg.Tensor:
        return loss * self.scale_value

    def unscale_(self, optimizer) -> None:
        if id(optimizer) in self.found_inf:
            raise RuntimeError("unscale_() was already called on this optimizer since update()")
        inv_scale = 1.0 / self.scale_value
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.grad.mul_(inv_scale)
                found = found or not bool(mg.isfinite(p.grad).all())
        self.found_inf[id(optimizer)] = found

    def step(self, optimizer) -> bool:
        if id(optimizer) not in self.found_inf:
            self.unscale_(optimizer)
        if self.found_inf[id(optimizer)]:
            return False  # skip: these gradients would write inf/NaN into the weights
        optimizer.step()
        return True

    def update(self) -> None:
        if any(self.found_inf.values()):
            self.scale_value *= self.backoff_factor
            self.good_steps = 0
        else:
            self.good_steps += 1
            if self.good_steps == self.growth_interval:
                self.scale_value *= self.growth_factor
                self.good_steps = 0
        self.found_inf.clear()

    def get_scale(self) -> float:
        return self.scale_value


def quiz() -> dict[str, str]:
    """Exercise 9.6: the answers to the self-check questions, each with the reason."""
    return {
        # float16's largest value is 65504, so 70000 overflows to inf; bfloat16 has float32's range
        # but 8 bits of precision: at 2^16 its spacing is 512, and 70000 rounds to 137 * 512 =
        # 70144.
        "q1": "a",
        # The gradients hold loss_scale * g until unscale_; clipping them to norm 1 means a true
        # norm of 1/scale. Call scaler.unscale_(optimizer) before clipping (step then does not
        # unscale again).
        "q2": "c",
        # An overflow in the scaled backward destroys the information: there is no true gradient to
        # clip. Skipping costs one step; the smaller scale makes the next ones fit.
        "q3": "d",
        # Low precision pays where the FLOPs are (matmul, conv), whose products are accumulated in
        # float32; exp/log amplify relative errors and long reductions accumulate them, so they stay
        # float32.
        "q4": "b",
    }
