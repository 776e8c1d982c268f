"""Bad input for the nn differential test (``nn_diff``): a valid case of any family with its
first input's shape changed (one dim one larger, the leading dim dropped or made 0, or a dim of
2 added in front), or with its inputs in the other float dtype than the module's parameters.
Some changes stay valid (a longer sequence, a larger image, an empty batch) and are compared as
usual; the others must raise in minigenesis wherever PyTorch raises, not return garbage."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .nn_diff import Case, Packed, T
from .nn_diff_conv import GENERATORS as CONV
from .nn_diff_layers import GENERATORS as LAYERS
from .nn_diff_loss import GENERATORS as LOSS


def _reshaped(t: T, rng: np.random.Generator) -> T:
    shape = list(t.data.shape)
    how = rng.integers(0, 4) if shape else 2
    if how == 3:  # an empty batch (or an empty leading dim): PyTorch accepts it in most layers
        shape[0] = 0
    elif how == 0:
        d = int(rng.integers(0, len(shape)))
        shape[d] += 1
    elif how == 1:
        shape = shape[1:]
    else:
        shape = [2, *shape]
    if t.kind == "float":
        data = rng.standard_normal(shape)
    else:  # keep the values of an index/bool input in the range of the original ones
        flat = t.data.reshape(-1)
        data = rng.choice(flat, shape) if flat.size else np.zeros(shape, t.data.dtype)
    return T(data, t.kind, t.grad)


# PyTorch 2.13 dies (segmentation fault) on an unbatched input to a cell given a batched state
CRASHES_PYTORCH = ("nn.LSTMCell", "nn.GRUCell", "nn.RNNCell")


def mutated(gen: Callable) -> Callable:
    """``gen`` whose cases get their first tensor input reshaped (see the module docstring)."""

    def draw(rng: np.random.Generator) -> Case:
        case = gen(rng)
        if rng.random() < 0.25 and case.target.startswith("nn."):
            # the module in one float dtype, its inputs in the other
            case.input_dtype = "float64" if case.dtype == "float32" else "float32"
            return case
        if case.target in CRASHES_PYTORCH and len(case.inputs) > 1:
            return case
        for i, v in enumerate(case.inputs):
            if isinstance(v, T):
                case.inputs[i] = _reshaped(v, rng)
                break
            if isinstance(v, Packed):
                return case  # a packed sequence is rebuilt from its lengths: left alone
        return case

    return draw


# the slow families (Transformer stacks) are left out: their errors are MultiheadAttention's
GENERATORS = {
    f"bad_{name}": mutated(gen)
    for family in (CONV, LAYERS, LOSS)
    for name, gen in family.items()
    if name not in ("transformer", "transformer_layer")
}
