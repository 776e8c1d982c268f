"""``mg.nn.modules``: PyTorch's module paths for the layers (``nn.modules.linear.Linear``).

minigenesis keeps its layers in its own files (``nn/linear.py``, ``nn/normalization.py`` ...).
Code written for PyTorch names them by PyTorch's paths (``from torch.nn.modules.loss import
_Loss``, ``isinstance(m, nn.modules.batchnorm._BatchNorm)``), so this package provides each of
PyTorch's submodules as an alias module holding the same classes: ``mg.nn.modules.linear.Linear
is mg.nn.Linear``. A class minigenesis does not have is simply absent from its submodule.
"""

from __future__ import annotations

import sys
import types

from .. import __name__ as _nn_name

# PyTorch's submodule -> the classes it defines (as torch.nn.modules spells them)
_TABLE = {
    "module": ["Module"],
    "linear": ["Linear", "Identity", "Bilinear", "LazyLinear"],
    "conv": [
        "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "_ConvNd",
        "_ConvTransposeNd",
    ],
    "activation": [
        "ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softplus", "Softmax",
        "LogSoftmax", "ELU", "SELU", "CELU", "Hardtanh", "Hardswish", "Hardsigmoid", "PReLU",
        "Mish", "GLU", "Softsign", "Threshold", "MultiheadAttention",
        "LogSigmoid", "Softmin", "Tanhshrink", "RReLU", "Softshrink", "Hardshrink", "Softmax2d",
    ],
    "container": ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"],
    "dropout": [
        "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
        "FeatureAlphaDropout", "_DropoutNd",
    ],
    "sparse": ["Embedding", "EmbeddingBag"],
    "flatten": ["Flatten", "Unflatten"],
    "normalization": ["LayerNorm", "RMSNorm", "GroupNorm", "LocalResponseNorm"],
    "batchnorm": ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "_BatchNorm", "_NormBase"],
    "instancenorm": ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "_InstanceNorm"],
    "pooling": [
        "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d",
        "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "_MaxPoolNd", "_AvgPoolNd",
        "_AdaptiveAvgPoolNd", "_AdaptiveMaxPoolNd",
    ],
    "loss": [
        "_Loss", "_WeightedLoss", "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "BCELoss",
        "BCEWithLogitsLoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss",
    ],
    "rnn": [
        "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
    ],
    "transformer": [
        "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
        "TransformerDecoderLayer",
    ],
    "padding": [
        "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad2d", "ReplicationPad2d",
        "ZeroPad1d", "ZeroPad3d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad3d",
        "ReplicationPad1d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
    ],
    "distance": ["PairwiseDistance", "CosineSimilarity"],
    "channelshuffle": ["ChannelShuffle"],
    "upsampling": ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"],
    "pixelshuffle": ["PixelShuffle", "PixelUnshuffle"],
}  # fmt: skip


def _classes() -> dict[str, type]:
    """Every class defined in minigenesis.nn's own modules, by name (private bases included)."""
    found: dict[str, type] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(_nn_name + ".") or ".modules" in name:
            continue
        for attr, value in vars(module).items():
            if isinstance(value, type) and value.__module__ == name:
                found.setdefault(attr, value)
    return found


def _build() -> list[str]:
    classes = _classes()
    this = sys.modules[__name__]
    for sub, names in _TABLE.items():
        alias = types.ModuleType(f"{__name__}.{sub}", f"PyTorch's torch.nn.modules.{sub}.")
        alias.__all__ = [n for n in names if n in classes]
        for n in alias.__all__:
            setattr(alias, n, classes[n])
        sys.modules[alias.__name__] = alias  # so `import ...modules.linear` finds it
        setattr(this, sub, alias)
        for n in alias.__all__:  # torch.nn.modules.Linear, as in PyTorch
            if not n.startswith("_"):
                setattr(this, n, classes[n])
    return list(_TABLE)


__all__ = _build()
