"""PyTorch's ``torch.nn.modules.channelshuffle``: the same classes as ``mg.nn``'s own files."""

from ..pixelshuffle import (
    ChannelShuffle,
)  # noqa: F401

__all__ = ["ChannelShuffle"]
