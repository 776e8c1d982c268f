"""Every public submodule path PyTorch has under ``torch.utils.data``, ``torch.nn.modules``,
``torch.optim``, ``torch.nn.utils`` and ``torch.profiler`` imports from minigenesis as a real
module (``from minigenesis.utils.data.sampler import RandomSampler``), with every name PyTorch's
module lists there, except the reviewed skip lists below; and each name is the object the parent
package exports (``mg.nn.modules.linear.Linear is mg.nn.Linear``).
``tests/parity/test_pytorch_submodule_paths.py`` checks these tables against the installed
PyTorch."""

from __future__ import annotations

import importlib

import pytest

# PyTorch's path -> the public names its module lists (its __all__; a few unlisted ones that
# programs import anyway, such as NonDynamicallyQuantizableLinear, added)
MODULE_PATHS = {
    "torch.utils.data.dataloader": ["DataLoader", "default_collate", "default_convert",
                                    "get_worker_info"],
    "torch.utils.data.dataset": ["ChainDataset", "ConcatDataset", "Dataset", "IterableDataset",
                                 "StackDataset", "Subset", "TensorDataset", "random_split"],
    "torch.utils.data.distributed": ["DistributedSampler"],
    "torch.utils.data.sampler": ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
                                 "SubsetRandomSampler", "WeightedRandomSampler"],
    "torch.nn.modules.activation": [
        "CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
        "LeakyReLU", "LogSigmoid", "LogSoftmax", "Mish", "MultiheadAttention", "PReLU", "RReLU",
        "ReLU", "ReLU6", "SELU", "SiLU", "Sigmoid", "Softmax", "Softmax2d", "Softmin", "Softplus",
        "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold",
    ],
    "torch.nn.modules.batchnorm": ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d",
                                   "LazyBatchNorm2d", "LazyBatchNorm3d", "SyncBatchNorm"],
    "torch.nn.modules.adaptive": ["AdaptiveLogSoftmaxWithLoss"],
    "torch.nn.modules.channelshuffle": ["ChannelShuffle"],
    "torch.nn.modules.container": ["Container", "ModuleDict", "ModuleList", "ParameterDict",
                                   "ParameterList", "Sequential"],
    "torch.nn.modules.conv": [
        "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
        "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
        "LazyConvTranspose3d",
    ],
    "torch.nn.modules.distance": ["CosineSimilarity", "PairwiseDistance"],
    "torch.nn.modules.dropout": ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
                                 "FeatureAlphaDropout"],
    "torch.nn.modules.flatten": ["Flatten", "Unflatten"],
    "torch.nn.modules.fold": ["Fold", "Unfold"],
    "torch.nn.modules.instancenorm": ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
                                      "LazyInstanceNorm1d", "LazyInstanceNorm2d",
                                      "LazyInstanceNorm3d"],
    "torch.nn.modules.lazy": ["LazyModuleMixin"],
    "torch.nn.modules.linear": ["Bilinear", "Identity", "LazyLinear", "Linear",
                                "NonDynamicallyQuantizableLinear"],
    "torch.nn.modules.loss": [
        "BCELoss", "BCEWithLogitsLoss", "CTCLoss", "CosineEmbeddingLoss", "CrossEntropyLoss",
        "GaussianNLLLoss", "HingeEmbeddingLoss", "HuberLoss", "KLDivLoss", "L1Loss",
        "LinearCrossEntropyLoss", "MSELoss", "MarginRankingLoss", "MultiLabelMarginLoss",
        "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss", "NLLLoss2d", "PoissonNLLLoss",
        "SmoothL1Loss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
    ],
    "torch.nn.modules.module": [
        "Module", "register_module_backward_hook", "register_module_buffer_registration_hook",
        "register_module_forward_hook", "register_module_forward_pre_hook",
        "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
        "register_module_module_registration_hook",
        "register_module_parameter_registration_hook",
    ],
    "torch.nn.modules.normalization": ["CrossMapLRN2d", "GroupNorm", "LayerNorm",
                                       "LocalResponseNorm", "RMSNorm"],
    "torch.nn.modules.padding": [
        "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
        "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
        "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
        "ZeroPad3d",
    ],
    "torch.nn.modules.pixelshuffle": ["PixelShuffle", "PixelUnshuffle"],
    "torch.nn.modules.pooling": [
        "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
        "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
        "FractionalMaxPool2d", "FractionalMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d",
        "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
    ],
    "torch.nn.modules.rnn": ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell",
                             "RNNCellBase"],
    "torch.nn.modules.sparse": ["Embedding", "EmbeddingBag"],
    "torch.nn.modules.transformer": ["Transformer", "TransformerDecoder",
                                     "TransformerDecoderLayer", "TransformerEncoder",
                                     "TransformerEncoderLayer"],
    "torch.nn.modules.upsampling": ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"],
    "torch.nn.modules.utils": ["consume_prefix_in_state_dict_if_present"],
    "torch.optim.adadelta": ["Adadelta", "adadelta"],
    "torch.optim.adagrad": ["Adagrad", "adagrad"],
    "torch.optim.adam": ["Adam", "adam"],
    "torch.optim.adamax": ["Adamax", "adamax"],
    "torch.optim.adamw": ["AdamW", "adamw"],
    "torch.optim.lbfgs": ["LBFGS"],
    "torch.optim.lr_scheduler": [
        "ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts",
        "CyclicLR", "ExponentialLR", "LRScheduler", "LambdaLR", "LinearLR", "MultiStepLR",
        "MultiplicativeLR", "OneCycleLR", "PolynomialLR", "ReduceLROnPlateau", "SequentialLR",
        "StepLR",
    ],
    "torch.optim.nadam": ["NAdam", "nadam"],
    "torch.optim.optimizer": ["Optimizer", "register_optimizer_step_post_hook",
                              "register_optimizer_step_pre_hook"],
    "torch.optim.radam": ["RAdam", "radam"],
    "torch.optim.rprop": ["Rprop", "rprop"],
    "torch.optim.asgd": ["ASGD", "asgd"],
    "torch.optim.rmsprop": ["RMSprop", "rmsprop"],
    "torch.optim.sgd": ["SGD", "sgd"],
    "torch.optim.sparse_adam": ["SparseAdam"],
    "torch.nn.utils.clip_grad": ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"],
    "torch.nn.utils.convert_parameters": ["parameters_to_vector", "vector_to_parameters"],
    "torch.nn.utils.fusion": ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
                              "fuse_linear_bn_weights"],
    "torch.nn.utils.parametrizations": ["orthogonal", "spectral_norm", "weight_norm"],
    "torch.nn.utils.parametrize": ["ParametrizationList", "cached", "is_parametrized",
                                   "register_parametrization", "remove_parametrizations",
                                   "transfer_parametrizations_and_params",
                                   "type_before_parametrizations"],
    "torch.nn.utils.weight_norm": ["WeightNorm", "remove_weight_norm", "weight_norm"],
    "torch.nn.utils.stateless": ["functional_call"],
    "torch.nn.utils.prune": ["BasePruningMethod", "CustomFromMask", "Identity", "L1Unstructured",
                             "LnStructured", "PruningContainer", "RandomStructured",
                             "RandomUnstructured", "custom_from_mask", "global_unstructured",
                             "identity", "is_pruned", "l1_unstructured", "ln_structured",
                             "random_structured", "random_unstructured", "remove"],
    "torch.nn.utils.spectral_norm": ["SpectralNorm", "SpectralNormLoadStateDictPreHook",
                                     "SpectralNormStateDictHook", "remove_spectral_norm",
                                     "spectral_norm"],
    "torch.optim.swa_utils": ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn",
                              "get_swa_avg_fn", "get_swa_multi_avg_fn", "update_bn"],
    "torch.profiler.profiler": ["ExecutionTraceObserver", "ProfilerAction", "profile", "schedule",
                                "supported_activities", "tensorboard_trace_handler"],
    "torch.nn.utils.init": ["skip_init"],
    "torch.nn.utils.memory_format": [
        "convert_conv2d_weight_memory_format",
        "convert_conv3d_weight_memory_format",
    ],
    "torch.nn.utils.rnn": ["PackedSequence", "invert_permutation", "pack_padded_sequence",
                           "pack_sequence", "pad_packed_sequence", "pad_sequence",
                           "unpack_sequence", "unpad_sequence"],
}  # fmt: skip

# Reviewed: PyTorch paths minigenesis does not have, and why
MISSING_PATHS = {
    "torch.utils.data.backward_compatibility": "a deprecated no-op worker_init_fn for DataPipe "
    "sharding",
    "torch.utils.data.datapipes": "DataPipes (deprecated in PyTorch) are out of scope",
    "torch.utils.data.graph": "DataPipe graphs are out of scope",
    "torch.utils.data.graph_settings": "DataPipe graphs are out of scope",
    "torch.nn.modules.linear_cross_entropy": "a fused loss PyTorch keeps internal",
    "torch.nn.modules.linear_cross_entropy_options": "a fused loss PyTorch keeps internal",
    "torch.profiler.itt": "Intel VTune's ITT ranges: no VTune here",
    "torch.profiler.python_tracer": "Kineto's Python call-stack tracer (with_stack) is not "
    "modelled",
}

# Reviewed: names of a present path that minigenesis does not have
_FUNCTIONAL_OPTIM = "the functional optimizer forms (torch.optim.adam.adam ...) are not public API"
MISSING_NAMES = {
    ("torch.nn.modules.loss", "LinearCrossEntropyLoss"): "this loss is not implemented",
    ("torch.nn.modules.normalization", "CrossMapLRN2d"): "a legacy Lua-Torch layer",
    ("torch.profiler.profiler", "ExecutionTraceObserver"): "PyTorch's execution-graph traces "
    "(Chakra) are not modelled",
    **{(f"torch.optim.{n}", n): _FUNCTIONAL_OPTIM for n in (
        "adadelta", "adagrad", "adam", "adamax", "adamw", "nadam", "radam", "rmsprop", "sgd",
        "rprop", "asgd")},
}  # fmt: skip

# Names that are a different object from the parent's name, in PyTorch too
# (nn.utils.weight_norm is the older hook form; parametrizations.weight_norm the new one)
NOT_THE_PARENTS = {  # one name, two functions in PyTorch too (the parametrization and the hook)
    ("torch.nn.utils.parametrizations", "weight_norm"),
    ("torch.nn.utils.parametrizations", "spectral_norm"),
}

PARENTS = {  # where PyTorch exports the same names one level up
    "torch.utils.data": "minigenesis.utils.data",
    "torch.nn.modules": "minigenesis.nn",
    "torch.optim": "minigenesis.optim",
    "torch.nn.utils": "minigenesis.nn.utils",
    "torch.profiler": "minigenesis.profiler",
}


def _ours(path: str) -> str:
    return "minigenesis" + path[len("torch") :]


@pytest.mark.parametrize("path", MODULE_PATHS)
def test_pytorch_submodule_path_imports_with_its_names(path: str) -> None:
    module = importlib.import_module(_ours(path))
    assert module.__name__ == _ours(path)  # a real module, found by the import system
    wanted = [n for n in MODULE_PATHS[path] if (path, n) not in MISSING_NAMES]
    assert [n for n in wanted if not hasattr(module, n)] == []
    parent = importlib.import_module(PARENTS[path.rsplit(".", 1)[0]])
    for name in wanted:
        if hasattr(parent, name) and (path, name) not in NOT_THE_PARENTS:
            assert getattr(module, name) is getattr(parent, name), name


@pytest.mark.parametrize("path", MISSING_PATHS)
def test_skipped_path_is_really_missing(path: str) -> None:
    # when it lands, move it from MISSING_PATHS to MODULE_PATHS
    with pytest.raises(ImportError):
        importlib.import_module(_ours(path))


@pytest.mark.parametrize("path_name", list(MISSING_NAMES), ids="{0[0]}.{0[1]}".format)
def test_skipped_name_is_really_missing(path_name: tuple[str, str]) -> None:
    path, name = path_name
    assert name in MODULE_PATHS[path]
    assert not hasattr(importlib.import_module(_ours(path)), name)


def test_the_skip_lists_and_the_paths_do_not_overlap() -> None:
    assert not set(MISSING_PATHS) & set(MODULE_PATHS)


def test_private_bases_import_by_pytorchs_path() -> None:
    import minigenesis as mg
    from minigenesis.nn.modules.batchnorm import _BatchNorm
    from minigenesis.nn.modules.conv import _ConvNd
    from minigenesis.nn.modules.loss import _Loss, _WeightedLoss
    from minigenesis.nn.modules.utils import _pair, _quadruple, _single, _triple

    assert isinstance(mg.nn.BatchNorm1d(3), _BatchNorm)
    assert isinstance(mg.nn.Conv2d(1, 1, 1), _ConvNd)
    assert issubclass(mg.nn.CrossEntropyLoss, _WeightedLoss) and issubclass(mg.nn.MSELoss, _Loss)
    assert (_single(2), _pair(3), _triple((1, 2, 3)), _quadruple(0)) == (
        (2,),
        (3, 3),
        (1, 2, 3),
        (0, 0, 0, 0),
    )


def test_consume_prefix_strips_a_data_parallel_prefix_in_place_keeping_the_order() -> None:
    from collections import OrderedDict

    from minigenesis.nn.modules.utils import consume_prefix_in_state_dict_if_present

    sd = OrderedDict([("module.a", 1), ("b", 2), ("module.c.d", 3)])
    sd._metadata = OrderedDict([("", {}), ("module", {"v": 1}), ("module.c", {"v": 2})])
    consume_prefix_in_state_dict_if_present(sd, "module.")
    assert list(sd.items()) == [("b", 2), ("a", 1), ("c.d", 3)]
    # "module" itself becomes "" (the DataParallel wrapper's own entry is replaced)
    assert list(sd._metadata.items()) == [("", {"v": 1}), ("c", {"v": 2})]
