"""``nn.utils.convert_conv2d_weight_memory_format`` / ``convert_conv3d_weight_memory_format``:
lay out the weights of every (transposed) convolution in a model in a memory format
(``mg.channels_last``: the channels last in memory, with the same shape and values), so that
a channels-last input meets weights laid out the same way."""

from __future__ import annotations

from typing import Any

from ..conv import Conv2d
from ..conv3d import Conv3d, ConvTranspose3d
from ..conv_variants import ConvTranspose2d
from ..module import Module


def _convert(module: Module, memory_format: Any, kinds: tuple) -> Module:
    """Every module of ``kinds`` in ``module``'s tree gets its weight's elements copied into
    ``memory_format``'s layout (``weight.data`` is replaced: the Parameter stays the same one,
    so optimizers holding it keep working). Returns ``module``."""
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone().contiguous(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module: Module, memory_format: Any) -> Module:
    """The weights of the Conv2d / ConvTranspose2d layers in ``module`` in ``memory_format``."""
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: Module, memory_format: Any) -> Module:
    """The weights of the Conv3d / ConvTranspose3d layers in ``module`` in ``memory_format``."""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
