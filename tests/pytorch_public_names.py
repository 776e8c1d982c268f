"""PyTorch's public names in four areas, as tables: the attributes of ``torch.Tensor``, the
callables of ``torch``, of ``torch.nn.functional`` and of ``torch.nn`` (PyTorch 2.13, from
``dir()``, leaving out private names and submodules). Each ``*_NAMES`` table lists the names
minigenesis must have; each ``*_SKIPS`` maps a reviewed reason to the names it leaves out
(space-separated). Together they are every public name PyTorch has there, which
``tests/parity/test_pytorch_public_names.py`` checks against the installed PyTorch; a test that
minigenesis has every listed name is ``tests/test_pytorch_public_names.py``."""

from __future__ import annotations


def _names(block: str) -> frozenset[str]:
    return frozenset(block.split())


def skipped(skips: dict[str, str]) -> frozenset[str]:
    """Every name a skip table leaves out."""
    return frozenset(n for names in skips.values() for n in names.split())


_QUANT = "quantized tensors are out of scope"
_CSR = "sparse compressed layouts (CSR, CSC, BSR, BSC) are out of scope; COO is implemented"
_COMPLEX = "complex dtypes are out of scope"
_REMOVED = "removed from PyTorch 2 (calling it raises there): linalg has the replacements"
_LAPACK = "raw LAPACK Householder pieces; linalg.qr is implemented"
_SIGNAL = "short-time Fourier transforms return complex tensors (complex dtypes are out of scope)"
_DEVICES = "devices this engine does not have (XPU, IPU, MTIA, XLA, Vulkan)"

TENSOR_SKIPS = {
    _QUANT: "dequantize int_repr q_per_channel_axis q_per_channel_scales "
    "q_per_channel_zero_points q_scale q_zero_point qscheme",
    _CSR: "ccol_indices col_indices crow_indices row_indices to_sparse_bsc to_sparse_bsr "
    "to_sparse_csc to_sparse_csr",
    "methods of sparse tensors only: a sparse COO tensor is its own class here "
    "(SparseCOOTensor has indices, values, coalesce ...), a dense tensor has none of them":
    "coalesce indices values is_coalesced resize_as_sparse_ sparse_resize_ "
    "sparse_resize_and_clear_ smm sspaddmm",
    _COMPLEX: "cdouble cfloat chalf",
    _REMOVED: "eig lstsq solve symeig",
    "removed with Variable in PyTorch 0.4": "reinforce volatile",
    "deprecated legacy forms (resize_ and resize_as_ are implemented)": "resize resize_as",
    _DEVICES: "ipu mtia xpu",
    _LAPACK: "geqrf orgqr ormqr",
    _SIGNAL: "stft istft",
    "storage surgery in place (set_); the engine's views are fixed when made": "set_",
    "CUDA streams": "record_stream",
    "named tensors, nested tensors and MKL-DNN layouts are out of scope":
    "name to_padded_tensor to_mkldnn",
    "one Tensor class: no subclass views": "as_subclass",
    "internals of PyTorch's dispatcher, distributed autograd and serialization":
    "grad_dtype hash_tensor index is_distributed map2_ module_load slice_inverse storage_type",
}  # fmt: skip

TORCH_SKIPS = {
    "TorchScript, the JIT's IR and its types":
    "AliasDb AnyType Argument ArgumentSpec AwaitType Block BoolType BufferDict CallStack Capsule "
    "ClassType Code CompilationUnit CompleteArgumentSpec ComplexType ConcreteModuleType "
    "ConcreteModuleTypeBuilder DeepCopyMemoTable DeviceObjType DictType EnumType ErrorReport "
    "ExecutionPlan FileCheck FloatType FunctionSchema Future FutureType Gradient Graph "
    "GraphExecutorState IODescriptor InferredType IntType InterfaceType JITException ListType "
    "LiteScriptModule ModuleDict Node NoneType NumberType OperatorInfo OptionalType "
    "ParameterDict PyObjectType RRefType ScriptClass ScriptClassFunction ScriptDict "
    "ScriptDictIterator ScriptDictKeyIterator ScriptFunction ScriptList ScriptListIterator "
    "ScriptMethod ScriptModule ScriptModuleSerializer ScriptObject ScriptObjectProperty "
    "StaticModule StreamObjType StringType SymBoolType SymIntType TensorType TracingState "
    "TupleType Type UnionType Use Value fork wait import_ir_module import_ir_module_from_buffer "
    "merge_type_from_type_comment parse_ir parse_schema parse_type_comment unify_type_list "
    "AggregationType LockingLogger LoggerBase NoopLogger",
    "legacy typed storage classes (TypedStorage and UntypedStorage are implemented)":
    "BFloat16Storage BoolStorage ByteStorage CharStorage ComplexDoubleStorage "
    "ComplexFloatStorage DoubleStorage FloatStorage HalfStorage IntStorage LongStorage "
    "QInt32Storage QInt8Storage QUInt2x4Storage QUInt4x2Storage QUInt8Storage ShortStorage "
    "Storage StorageBase from_file",
    _QUANT: "choose_qparams_optimized dequantize empty_quantized fake_quantize_per_channel_affine "
    "fake_quantize_per_tensor_affine fused_moving_avg_obs_fake_quant int_repr "
    "q_per_channel_axis q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point "
    "qscheme quantize_per_channel quantize_per_tensor quantize_per_tensor_dynamic "
    "quantized_batch_norm quantized_gru quantized_gru_cell quantized_lstm quantized_lstm_cell "
    "quantized_max_pool1d quantized_max_pool2d quantized_max_pool3d quantized_rnn_relu_cell "
    "quantized_rnn_tanh_cell",
    "vendor kernels (cuDNN, MIOpen, MKL-DNN, FBGEMM)":
    "cudnn_affine_grid_generator cudnn_batch_norm cudnn_convolution cudnn_convolution_add_relu "
    "cudnn_convolution_relu cudnn_convolution_transpose cudnn_grid_sampler cudnn_is_acceptable "
    "miopen_batch_norm miopen_convolution miopen_convolution_add_relu miopen_convolution_relu "
    "miopen_convolution_transpose miopen_ctc_loss miopen_depthwise_convolution miopen_rnn "
    "mkldnn_adaptive_avg_pool2d mkldnn_convolution mkldnn_linear_backward_weights "
    "mkldnn_max_pool2d mkldnn_max_pool3d mkldnn_rnn_layer fbgemm_linear_fp16_weight "
    "fbgemm_linear_fp16_weight_fp32_activation fbgemm_linear_int8_weight "
    "fbgemm_linear_int8_weight_fp32_activation fbgemm_linear_quantize_weight "
    "fbgemm_pack_gemm_matrix_fp16 fbgemm_pack_quantized_matrix",
    "aten pieces behind layers that are implemented (nn.LSTM, F.grid_sample, F.batch_norm, "
    "nn.EmbeddingBag ...); their internal signatures and outputs are not modelled":
    "affine_grid_generator batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt "
    "batch_norm_gather_stats batch_norm_gather_stats_with_counts batch_norm_stats "
    "batch_norm_update_stats native_batch_norm native_channel_shuffle native_dropout "
    "native_group_norm native_layer_norm native_norm grid_sampler grid_sampler_2d "
    "grid_sampler_3d gru lstm rnn_relu rnn_tanh "
    "conv_tbc embedding_bag embedding_renorm_ norm_except_dim segment_reduce",
    _CSR + "; and aten's sparse internals": "sparse_bsc_tensor sparse_bsr_tensor "
    "sparse_compressed_tensor sparse_csc_tensor sparse_csr_tensor ccol_indices_copy "
    "col_indices_copy crow_indices_copy row_indices_copy indices_copy values_copy dsmm hsmm "
    "hspmm saddmm smm sspaddmm resize_as_sparse_",
    _COMPLEX: "complex polar view_as_complex view_as_complex_copy view_as_real view_as_real_copy",
    "symbolic shapes and control flow of torch.compile": "SymBool SymFloat SymInt "
    "sym_constrain_range sym_constrain_range_for_size sym_float sym_fresh_size sym_int sym_ite "
    "sym_max sym_min sym_not sym_sqrt sym_sum cond while_loop",
    _REMOVED: "eig lstsq solve symeig matrix_rank",
    _LAPACK: "geqrf orgqr ormqr",
    "the iterative eigen solver (LOBPCG) is not implemented": "lobpcg",
    _SIGNAL: "stft istft",
    _DEVICES + "; streams, events and accelerator errors": "Event Stream AcceleratorError "
    "OutOfMemoryError get_device_module is_vulkan_available get_autocast_ipu_dtype "
    "get_autocast_xla_dtype is_autocast_ipu_enabled is_autocast_xla_enabled "
    "set_autocast_ipu_dtype set_autocast_ipu_enabled set_autocast_xla_dtype "
    "set_autocast_xla_enabled",
    "autocast's thread state, which torch.autocast (implemented) sets and clears":
    "autocast_decrement_nesting autocast_increment_nesting clear_autocast_cache "
    "is_autocast_cache_enabled set_autocast_cache_enabled set_autocast_cpu_dtype "
    "set_autocast_cpu_enabled set_autocast_dtype set_autocast_enabled set_autocast_gpu_dtype",
    "PyTorch's build, dispatcher, profiler and process internals": "BenchmarkConfig "
    "BenchmarkExecutionStats ThroughputBenchmark DeserializationStorageContext "
    "SerializationStorageContext PyTorchFileReader PyTorchFileWriter Tag DispatchKey "
    "DispatchKeySet DisableTorchFunction DisableTorchFunctionSubclass ExcludeDispatchKeyGuard "
    "FatalError classproperty compiled_with_cxx11_abi get_file_path init_num_threads "
    "prepare_multiprocessing_environment profiler_allow_cudagraph_cupti_lazy_reinit_cuda12 "
    "thread_safe_generator is_anomaly_check_nan_enabled is_distributed hash_tensor "
    "slice_inverse",
}  # fmt: skip

FUNCTIONAL_SKIPS = {
    "names PyTorch's module imports for itself (typing, torch-function protocol helpers), "
    "not its API": "Callable DType "
    "Optional Tensor assert_int_or_pair boolean_dispatch handle_torch_function "
    "has_torch_function has_torch_function_unary has_torch_function_variadic",
    "low-precision grouped and scaled GPU matmuls (and their enums)": "grouped_mm "
    "scaled_grouped_mm scaled_mm ScalingType SwizzleType",
    "fused kernels PyTorch keeps internal (ChannelShuffle, which calls one of them, is "
    "implemented)": "linear_cross_entropy native_channel_shuffle conv_tbc",
}  # fmt: skip

NN_SKIPS = {
    "a legacy Lua-Torch layer": "CrossMapLRN2d",
    "multi-GPU and cross-process layers": "DataParallel",
    "a fused loss PyTorch keeps internal": "LinearCrossEntropyLoss LinearCrossEntropyOptions",
    "a helper of PyTorch's layer constructors": "factory_kwargs",
}  # fmt: skip


TENSOR_NAMES = _names("""
H T abs abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv addcdiv_
addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax amin aminmax angle
any apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan arctan2 arctan2_
arctan_ arctanh arctanh_ argmax argmin argsort argwhere as_strided as_strided_ as_strided_scatter
asin asin_
asinh asinh_ atan atan2 atan2_ atan_ atanh atanh_ backward baddbmm baddbmm_ bernoulli bernoulli_
bfloat16 bincount bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_ bitwise_not
bitwise_not_ bitwise_or bitwise_or_ bitwise_right_shift bitwise_right_shift_ bitwise_xor
bitwise_xor_ bmm bool broadcast_to byte cauchy_ ceil ceil_ char cholesky cholesky_inverse
cholesky_solve chunk clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip clip_ clone conj
conj_physical conj_physical_ const_data_ptr contiguous copy_ copysign copysign_ corrcoef cos cos_
cosh cosh_ count_nonzero cov cpu cross cuda cummax cummin cumprod cumprod_ cumsum cumsum_ data
data_ptr deg2rad deg2rad_ dense_dim det detach detach_ device diag diag_embed diagflat diagonal
diagonal_scatter diff digamma digamma_ dim dim_order dist div div_ divide divide_ dot double dsplit
dtype element_size eq eq_ equal erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_ exp_ expand
expand_as expm1 expm1_ exponential_ fill_ fill_diagonal_ fix fix_ flatten flip fliplr flipud float
float_power float_power_ floor floor_ floor_divide floor_divide_ fmax fmin fmod fmod_ frac frac_
frexp gather gcd gcd_ ge ge_ geometric_ ger get_device grad grad_fn greater greater_ greater_equal
greater_equal_ gt gt_ half hardshrink heaviside heaviside_ histc histogram hsplit hypot hypot_ i0
i0_ igamma igamma_ igammac igammac_ imag index_add index_add_ index_copy index_copy_ index_fill
index_fill_ index_put index_put_ index_reduce index_reduce_ index_select inner int inverse
is_complex is_conj is_contiguous is_cpu is_cuda is_floating_point is_inference is_ipu is_leaf
is_maia is_meta is_mkldnn is_mps is_mtia is_neg is_nested is_nonzero is_pinned is_quantized
is_same_size is_set_to is_shared is_signed is_sparse is_sparse_csr is_vulkan is_xla is_xpu isclose
isfinite isinf isnan isneginf isposinf isreal item itemsize kron kthvalue layout lcm lcm_ ldexp
ldexp_ le le_ lerp lerp_ less less_ less_equal less_equal_ lgamma lgamma_ log log10 log10_ log1p
log1p_ log2 log2_ log_ log_normal_ log_softmax logaddexp logaddexp2 logcumsumexp logdet logical_and
logical_and_ logical_not logical_not_ logical_or logical_or_ logical_xor logical_xor_ logit logit_
logsumexp long lt lt_ lu lu_solve mH mT map_ masked_fill masked_fill_ masked_scatter
masked_scatter_ masked_select matmul matrix_exp matrix_power max maximum mean median min minimum mm
mode moveaxis movedim msort mul mul_ multinomial multiply multiply_ mv mvlgamma mvlgamma_
nan_to_num nan_to_num_ nanmean nanmedian nanquantile nansum narrow narrow_copy nbytes ndim
ndimension ne ne_ neg neg_ negative negative_ nelement new new_empty new_empty_strided new_full
new_ones new_tensor new_zeros nextafter nextafter_ nonzero nonzero_static norm normal_ not_equal
not_equal_ numel numpy outer output_nr permute pin_memory pinverse polygamma polygamma_ positive
pow pow_ prelu prod put put_ qr quantile rad2deg rad2deg_ random_ ravel real reciprocal reciprocal_
register_hook register_post_accumulate_grad_hook relu relu_ remainder remainder_ renorm renorm_
repeat repeat_interleave requires_grad requires_grad_ reshape reshape_as resize_ resize_as_
resolve_conj resolve_neg retain_grad retains_grad roll rot90 round round_ rsqrt rsqrt_ scatter
scatter_ scatter_add scatter_add_ scatter_reduce scatter_reduce_ select select_scatter sgn sgn_
shape share_memory_ short sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_ sinh sinh_ size
slice_scatter slogdet softmax sort sparse_dim sparse_mask split split_with_sizes sqrt sqrt_
square square_
squeeze squeeze_ std storage storage_offset stride sub sub_ subtract subtract_ sum sum_to_size svd
swapaxes swapaxes_ swapdims swapdims_ t t_ take take_along_dim tan tan_ tanh tanh_ tensor_split
tile to to_dense to_sparse to_sparse_coo tolist topk trace transpose transpose_ triangular_solve
tril tril_ triu triu_ true_divide true_divide_ trunc trunc_ type type_as unbind unflatten unfold
uniform_ unique unique_consecutive unsafe_chunk unsafe_split unsafe_split_with_sizes unsqueeze
unsqueeze_ untyped_storage var vdot view view_as vsplit where xlogy xlogy_ zero_
""")

TORCH_NAMES = _names("""
BFloat16Tensor BoolTensor ByteTensor CharTensor DoubleTensor FloatTensor Generator GradScaler
HalfTensor IntTensor LongTensor ShortTensor Size Tensor TypedStorage UntypedStorage abs abs_
absolute acos acos_ acosh acosh_ adaptive_avg_pool1d adaptive_max_pool1d add addbmm addcdiv addcmul
addmm addmv addmv_ addr adjoint alias_copy all allclose alpha_dropout alpha_dropout_ amax amin
aminmax angle any arange arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan
arctan2 arctan_ arctanh arctanh_ are_deterministic_algorithms_enabled argmax argmin argsort
argwhere as_strided as_strided_ as_strided_copy as_strided_scatter as_tensor asarray
asin asin_ asinh asinh_
atan atan2 atan_ atanh atanh_ atleast_1d atleast_2d atleast_3d autocast avg_pool1d baddbmm
bartlett_window batch_norm bernoulli bilinear binary_cross_entropy_with_logits binomial bincount
bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor
blackman_window block_diag bmm broadcast_shapes broadcast_tensors broadcast_to bucketize
can_cast cartesian_prod
cat cdist ceil ceil_ celu celu_ chain_matmul channel_shuffle cholesky cholesky_inverse
cholesky_solve chunk clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip clip_ clone
column_stack combinations compile concat concatenate conj conj_physical conj_physical_
constant_pad_nd conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d convolution
copysign corrcoef cos cos_ cosh cosh_ cosine_embedding_loss cosine_similarity count_nonzero cov
cross ctc_loss cummax cummin cumprod cumsum cumulative_trapezoid deg2rad deg2rad_ det detach
detach_ detach_copy device diag diag_embed diagflat diagonal diagonal_copy diagonal_scatter diff
digamma dist div divide dot dropout dropout_ dsplit dstack dtype einsum embedding empty empty_like
empty_permuted empty_strided enable_grad eq equal erf erf_ erfc erfc_ erfinv exp exp2 exp2_ exp_
expand_copy expm1 expm1_ eye feature_alpha_dropout feature_alpha_dropout_ feature_dropout
feature_dropout_ fill fill_ finfo fix fix_ flatten flip fliplr flipud float_power floor floor_
floor_divide fmax fmin fmod frac frac_ frexp frobenius_norm from_dlpack from_numpy frombuffer full
full_like gather gcd gcd_ ge ger get_autocast_cpu_dtype get_autocast_dtype get_autocast_gpu_dtype
get_default_device get_default_dtype get_deterministic_debug_mode get_device
get_float32_matmul_precision get_num_interop_threads get_num_threads get_rng_state gradient greater
greater_equal group_norm gru_cell gt hamming_window hann_window hardshrink heaviside
hinge_embedding_loss
histc histogram histogramdd hsplit hstack hypot i0 i0_ igamma igammac iinfo imag index_add
index_copy index_fill index_put index_put_ index_reduce index_select inference_mode initial_seed
inner instance_norm inverse is_anomaly_enabled is_autocast_cpu_enabled is_autocast_enabled
is_complex is_conj is_deterministic_algorithms_warn_only_enabled is_floating_point is_grad_enabled
is_inference is_inference_mode_enabled is_neg is_nonzero is_same_size is_signed is_storage
is_tensor is_warn_always_enabled isclose isfinite isin isinf isnan isneginf isposinf isreal
kaiser_window kl_div kron kthvalue layer_norm layout lcm lcm_ ldexp ldexp_ le lerp less less_equal
lgamma linspace load log log10 log10_ log1p log1p_ log2 log2_ log_ log_softmax logaddexp logaddexp2
logcumsumexp logdet logical_and logical_not logical_or logical_xor logit logit_ logspace logsumexp
lstm_cell lt lu lu_solve lu_unpack manual_seed margin_ranking_loss masked_fill masked_scatter
masked_select matmul matrix_exp matrix_power max max_pool1d max_pool1d_with_indices max_pool2d
max_pool3d maximum mean median memory_format meshgrid min minimum mm mode moveaxis movedim msort mul
multinomial multiply mv mvlgamma nan_to_num nan_to_num_ nanmean nanmedian nanquantile nansum
narrow narrow_copy ne neg neg_ negative negative_ nextafter no_grad nonzero nonzero_static norm
normal not_equal
nuclear_norm numel ones ones_like outer pairwise_distance pca_lowrank pdist permute permute_copy
pinverse pixel_shuffle pixel_unshuffle poisson poisson_nll_loss polygamma positive pow prelu prod
promote_types put qr quantile rad2deg rad2deg_ rand rand_like randint randint_like randn randn_like
randperm range ravel real reciprocal reciprocal_ relu relu_ remainder renorm repeat_interleave
reshape resize_as_ resolve_conj resolve_neg result_type rms_norm rnn_relu_cell rnn_tanh_cell roll
rot90 round round_ row_stack
rrelu rrelu_ rsqrt rsqrt_ rsub save scalar_tensor scatter scatter_add scatter_reduce searchsorted
seed select select_copy select_scatter selu selu_ set_anomaly_enabled set_default_device
set_default_dtype set_default_tensor_type set_deterministic_debug_mode set_float32_matmul_precision
set_flush_denormal set_grad_enabled set_num_interop_threads set_num_threads set_printoptions
set_rng_state set_warn_always sgn sigmoid sigmoid_ sign signbit sin sin_ sinc sinc_ sinh sinh_
slice_copy slice_scatter slogdet softmax sort sparse_coo_tensor split split_copy split_with_sizes
split_with_sizes_copy spmm sqrt sqrt_ square square_ squeeze squeeze_copy stack std std_mean sub
subtract sum svd svd_lowrank swapaxes swapdims t t_copy take take_along_dim tan tan_ tanh tanh_
tensor tensor_split tensordot threshold threshold_ tile to_dlpack topk trace transpose
transpose_copy trapezoid trapz triangular_solve tril tril_indices triplet_margin_loss triu
triu_indices true_divide trunc trunc_ typename unbind unbind_copy unflatten unfold_copy unique
unique_consecutive unravel_index unsafe_chunk unsafe_split unsafe_split_with_sizes unsqueeze
unsqueeze_copy use_deterministic_algorithms vander var var_mean vdot view_copy vmap vsplit vstack
where xlogy xlogy_ zero_ zeros zeros_like
""")

FUNCTIONAL_NAMES = _names("""
adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d
adaptive_max_pool1d_with_indices adaptive_max_pool2d adaptive_max_pool2d_with_indices
adaptive_max_pool3d adaptive_max_pool3d_with_indices affine_grid alpha_dropout avg_pool1d
avg_pool2d avg_pool3d batch_norm bilinear binary_cross_entropy binary_cross_entropy_with_logits
celu celu_ channel_shuffle conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d
cosine_embedding_loss cosine_similarity cross_entropy ctc_loss dropout dropout1d dropout2d
dropout3d elu elu_ embedding embedding_bag feature_alpha_dropout fold fractional_max_pool2d
fractional_max_pool2d_with_indices fractional_max_pool3d fractional_max_pool3d_with_indices
gaussian_nll_loss gelu glu grid_sample group_norm gumbel_softmax hardshrink hardsigmoid hardswish
hardtanh hardtanh_ hinge_embedding_loss huber_loss instance_norm interpolate kl_div l1_loss
layer_norm leaky_relu leaky_relu_ linear local_response_norm log_softmax logsigmoid lp_pool1d
lp_pool2d lp_pool3d margin_ranking_loss max_pool1d max_pool1d_with_indices max_pool2d
max_pool2d_with_indices max_pool3d max_pool3d_with_indices max_unpool1d max_unpool2d max_unpool3d
mish mse_loss multi_head_attention_forward multi_margin_loss multilabel_margin_loss
multilabel_soft_margin_loss nll_loss
normalize one_hot pad pairwise_distance pdist pixel_shuffle pixel_unshuffle poisson_nll_loss prelu
relu relu6 relu_ rms_norm rrelu rrelu_ scaled_dot_product_attention selu selu_ sigmoid silu
smooth_l1_loss soft_margin_loss softmax softmin softplus softshrink softsign tanh tanhshrink
threshold threshold_ triplet_margin_loss triplet_margin_with_distance_loss unfold upsample
upsample_bilinear upsample_nearest
""")

NN_NAMES = _names("""
AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveLogSoftmaxWithLoss AdaptiveMaxPool1d
AdaptiveMaxPool2d AdaptiveMaxPool3d AlphaDropout AvgPool1d AvgPool2d AvgPool3d BCELoss
BCEWithLogitsLoss BatchNorm1d BatchNorm2d BatchNorm3d Bilinear Buffer CELU CTCLoss ChannelShuffle
CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d ConstantPad3d Container Conv1d
Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d CosineEmbeddingLoss CosineSimilarity
CrossEntropyLoss Dropout Dropout1d Dropout2d Dropout3d ELU Embedding EmbeddingBag
FeatureAlphaDropout Flatten Fold FractionalMaxPool2d FractionalMaxPool3d GELU GLU GRU GRUCell
GaussianNLLLoss GroupNorm Hardshrink Hardsigmoid Hardswish Hardtanh HingeEmbeddingLoss HuberLoss
Identity InstanceNorm1d InstanceNorm2d InstanceNorm3d KLDivLoss L1Loss LPPool1d LPPool2d LPPool3d
LSTM LSTMCell LayerNorm LazyBatchNorm1d LazyBatchNorm2d LazyBatchNorm3d LazyConv1d LazyConv2d
LazyConv3d LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d LazyInstanceNorm1d
LazyInstanceNorm2d LazyInstanceNorm3d LazyLinear LeakyReLU Linear LocalResponseNorm LogSigmoid
LogSoftmax MSELoss MarginRankingLoss MaxPool1d MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d
MaxUnpool3d Mish Module ModuleDict ModuleList MultiLabelMarginLoss MultiLabelSoftMarginLoss
MultiMarginLoss MultiheadAttention NLLLoss NLLLoss2d PReLU PairwiseDistance Parameter ParameterDict
ParameterList PixelShuffle PixelUnshuffle PoissonNLLLoss RMSNorm RNN RNNBase RNNCell RNNCellBase
RReLU ReLU ReLU6 ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d
ReplicationPad3d SELU Sequential SiLU Sigmoid SmoothL1Loss SoftMarginLoss Softmax Softmax2d Softmin
Softplus Softshrink Softsign SyncBatchNorm Tanh Tanhshrink Threshold Transformer TransformerDecoder
TransformerDecoderLayer TransformerEncoder TransformerEncoderLayer TripletMarginLoss
TripletMarginWithDistanceLoss Unflatten Unfold UninitializedBuffer UninitializedParameter Upsample
UpsamplingBilinear2d UpsamplingNearest2d ZeroPad1d ZeroPad2d ZeroPad3d
""")
