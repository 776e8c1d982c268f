"""Neural-network building blocks: Module, layers, losses, init and utilities."""

import importlib

# Module, containers, layers, init, utils
from . import functional, init, utils  # noqa: E402,F401
from . import parallel  # noqa: E402,F401  (DistributedDataParallel)
from . import functional as F  # noqa: E402,F401
from .activation import (  # noqa: E402,F401
    ELU,
    GELU,
    Hardtanh,
    LeakyReLU,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .activation import (  # noqa: E402,F401
    CELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    LogSigmoid,
    ReLU6,
    RReLU,
    Softmax2d,
    Softmin,
    Softshrink,
    Softsign,
    Tanhshrink,
    Threshold,
)
from .containers import (  # noqa: E402,F401
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from .dropout import Dropout, Dropout2d  # noqa: E402,F401
from .dropout import AlphaDropout, Dropout1d, Dropout3d, FeatureAlphaDropout  # noqa: E402,F401
from .embedding import Embedding, EmbeddingBag  # noqa: E402,F401
from .flatten import Flatten, Unflatten  # noqa: E402,F401
from .linear import Identity, Linear  # noqa: E402,F401
from .linear import Bilinear  # noqa: E402,F401
from .distance import CosineSimilarity, PairwiseDistance  # noqa: E402,F401
from .padding import (  # noqa: E402,F401
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from .pixelshuffle import ChannelShuffle, PixelShuffle, PixelUnshuffle  # noqa: E402,F401
from .fold import Fold, Unfold  # noqa: E402,F401
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402,F401
from .lp_pool import LPPool1d, LPPool2d, LPPool3d  # noqa: E402,F401
from .module import Module  # noqa: E402,F401
from .normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm, RMSNorm  # noqa: E402,F401
from .normalization import BatchNorm3d  # noqa: E402,F401
from .normalization import LocalResponseNorm  # noqa: E402,F401
from .sync_batchnorm import SyncBatchNorm  # noqa: E402,F401
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d  # noqa: E402,F401
from .parameter import Parameter  # noqa: E402,F401

# Convolution, pooling, attention, losses
from .attention import MultiheadAttention  # noqa: E402,F401
from .conv import Conv1d, Conv2d  # noqa: E402,F401
from .conv_variants import ConvTranspose1d, ConvTranspose2d  # noqa: E402,F401
from .conv3d import Conv3d, ConvTranspose3d  # noqa: E402,F401
from .lazy import (  # noqa: E402,F401
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
    LazyInstanceNorm1d,
    LazyInstanceNorm2d,
    LazyInstanceNorm3d,
    LazyLinear,
    UninitializedBuffer,
    UninitializedParameter,
)
from .parameter import Buffer  # noqa: E402,F401
from .deprecated_layers import Container, NLLLoss2d  # noqa: E402,F401
from .pooling3d import AdaptiveAvgPool3d, AdaptiveMaxPool3d  # noqa: E402,F401
from .fractional_pool import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402,F401
from .pooling3d import AvgPool3d, MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d  # noqa: E402,F401
from .loss import (  # noqa: E402,F401
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .margin_losses import (  # noqa: E402,F401
    CosineEmbeddingLoss,
    HingeEmbeddingLoss,
    MarginRankingLoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .likelihood_losses import CTCLoss, GaussianNLLLoss, PoissonNLLLoss  # noqa: E402,F401
from .pooling import (  # noqa: E402,F401
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: E402,F401
from .transformer import (  # noqa: E402,F401
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

# Recurrent layers
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: E402,F401


def __getattr__(name: str):
    # nn.modules (PyTorch's module paths, nn.modules.linear.Linear ...) is built on first use,
    # when every layer above has been imported.
    if name == "modules":
        return importlib.import_module(".modules", __name__)
    raise AttributeError(f"module 'minigenesis.nn' has no attribute {name!r}")
