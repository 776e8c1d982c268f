"""``mg.nn.modules``: PyTorch's module paths for the layers (``nn.modules.linear.Linear``).

minigenesis keeps its layers in its own files (``nn/linear.py``, ``nn/normalization.py`` ...).
Code written for PyTorch names them by PyTorch's paths (``from torch.nn.modules.loss import
_Loss``, ``isinstance(m, nn.modules.batchnorm._BatchNorm)``), so this package has each of
PyTorch's submodules as a file of its own that imports the same classes:
``mg.nn.modules.linear.Linear is mg.nn.Linear``. A class minigenesis does not have is simply
absent from its submodule.
"""

from . import (  # noqa: F401
    activation,
    adaptive,
    batchnorm,
    channelshuffle,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    linear,
    loss,
    module,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
    utils,
)
from .module import Module  # noqa: F401
from .linear import Linear, Identity, Bilinear  # noqa: F401
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d  # noqa: F401
from .activation import (
    ReLU,
    ReLU6,
    LeakyReLU,
    GELU,
    SiLU,
    Tanh,
    Sigmoid,
    Softplus,
    Softmax,
    LogSoftmax,
    ELU,
    SELU,
    CELU,
    Hardtanh,
    Hardswish,
    Hardsigmoid,
    PReLU,
    Mish,
    GLU,
    Softsign,
    Threshold,
    MultiheadAttention,
    LogSigmoid,
    Softmin,
    Tanhshrink,
    RReLU,
    Softshrink,
    Hardshrink,
    Softmax2d,
)  # noqa: F401
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout  # noqa: F401
from .sparse import Embedding  # noqa: F401
from .flatten import Flatten, Unflatten  # noqa: F401
from .normalization import LayerNorm, RMSNorm, GroupNorm, LocalResponseNorm  # noqa: F401
from .batchnorm import BatchNorm1d, BatchNorm2d  # noqa: F401
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d  # noqa: F401
from .pooling import (
    MaxPool1d,
    MaxPool2d,
    AvgPool1d,
    AvgPool2d,
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
)  # noqa: F401
from .loss import (
    CrossEntropyLoss,
    NLLLoss,
    MSELoss,
    L1Loss,
    BCELoss,
    BCEWithLogitsLoss,
    SmoothL1Loss,
    HuberLoss,
    KLDivLoss,
)  # noqa: F401
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell  # noqa: F401
from .transformer import (
    Transformer,
    TransformerEncoder,
    TransformerDecoder,
    TransformerEncoderLayer,
    TransformerDecoderLayer,
)  # noqa: F401
from .padding import (
    ZeroPad2d,
    ConstantPad1d,
    ConstantPad2d,
    ReflectionPad2d,
    ReplicationPad2d,
    ZeroPad1d,
    ZeroPad3d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad3d,
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
)  # noqa: F401
from .distance import PairwiseDistance, CosineSimilarity  # noqa: F401
from .channelshuffle import ChannelShuffle  # noqa: F401
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d  # noqa: F401
from .pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: F401
from .fold import Fold, Unfold  # noqa: F401
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401
from .pooling import LPPool1d, LPPool2d, LPPool3d  # noqa: F401

__all__ = [
    "module",
    "linear",
    "conv",
    "activation",
    "container",
    "dropout",
    "sparse",
    "flatten",
    "fold",
    "normalization",
    "batchnorm",
    "instancenorm",
    "pooling",
    "loss",
    "rnn",
    "transformer",
    "padding",
    "distance",
    "channelshuffle",
    "upsampling",
    "pixelshuffle",
    "utils",
    "adaptive",
]
