"""minigenesis: an educational deep-learning engine on NumPy (CPU) and CuPy (GPU), with PyTorch's
API and PyTorch's numbers.

    import minigenesis as mg
    x = mg.randn(3, requires_grad=True)
    (x * x).sum().backward()      # x.grad == 2 * x
"""

from __future__ import annotations

import importlib

from . import autograd, backend, cuda, dtypes, random
from .autograd import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .backend import device, get_array_module, get_default_device, set_default_device
from .creation import (
    empty_like,
    from_numpy,
    full_like,
    ones_like,
    poisson,
    rand_like,
    randint_like,
    randn_like,
    tensor,
    zeros_like,
)
from .legacy_types import (
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from .dtypes import (
    DType,
    bfloat16,
    float16,
    float32,
    finfo,
    float64,
    get_default_dtype,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)
from .dtypes import bool_ as bool  # noqa: A001  (mg.bool, as torch.bool)
from .functions import (
    abs,
    as_tensor,
    bmm,
    clone,
    div,
    divide,
    dot,
    mm,
    mul,
    multiply,
    mv,
    narrow,
    neg,
    negative,
    square,
    subtract,
    true_divide,
    acos,
    add,
    allclose,
    arccos,
    arcsin,
    arctan,
    arctan2,
    argmax,
    argmin,
    argsort,
    asin,
    atan,
    atan2,
    cat,
    cdist,
    chunk,
    clamp,
    clamp_max,
    clamp_min,
    clip,
    concat,
    cos,
    cosh,
    cumsum,
    equal,
    erf,
    erfinv,
    exp,
    expm1,
    flatten,
    flip,
    fliplr,
    flipud,
    gather,
    fmod,
    index_add,
    is_tensor,
    isfinite,
    isinf,
    isnan,
    log,
    log10,
    log1p,
    log2,
    log_softmax,
    logsumexp,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    multinomial,
    norm,
    numel,
    permute,
    pow,
    prod,
    ravel,
    reciprocal,
    relu,
    remainder,
    reshape,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sort,
    softmax,
    split,
    sqrt,
    squeeze,
    stack,
    std,
    sub,
    sum,
    tan,
    tanh,
    topk,
    transpose,
    tril,
    triu,
    unbind,
    unsqueeze,
    var,
    where,
)
from .random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    set_rng_state,
)
from .size import Size
from ._tensor import Tensor
from ._tensor_str import get_printoptions, printoptions, set_printoptions  # noqa: E402
from .functions import digamma, lgamma, polygamma  # the gamma family (ops/special.py)
from .functions import (  # noqa: E402  (shape and index names: roll, scatter, diag ...)
    addmm,
    baddbmm,
    broadcast_to,
    column_stack,
    diag,
    ger,
    hstack,
    index_copy,
    index_fill,
    index_reduce,
    index_select,
    meshgrid,
    moveaxis,
    movedim,
    outer,
    repeat_interleave,
    roll,
    row_stack,
    scatter,
    scatter_add,
    scatter_reduce,
    select,
    swapaxes,
    swapdims,
    t,
    take_along_dim,
    tile,
    trace,
    vstack,
)

half, float, double, long = float16, float32, float64, int64  # noqa: A001

# The constants PyTorch re-exports from math (torch.pi, torch.e, torch.inf, torch.nan).
from math import e, inf, nan, pi  # noqa: E402

from . import version  # noqa: E402  (torch.version)
from . import return_types  # noqa: E402  (torch.return_types)
from .version import __version__  # noqa: E402  (2.13.0+minigenesis.0.1.0: the API it follows)

# The layers above the Tensor.
from . import distributed  # noqa: E402  (mpi4py loads only when a process group starts)
from . import linalg, nn, optim, utils  # noqa: E402
from . import serialization  # noqa: E402
from .serialization import (  # noqa: E402
    CheckpointError,
    load,
    load_checkpoint,
    save,
    save_checkpoint,
)
from .functions import (  # noqa: E402  (rounding, comparison, selection, counting)
    amax,
    amin,
    bincount,
    ceil,
    cummax,
    cummin,
    cumprod,
    fix,
    floor,
    frac,
    histc,
    isclose,
    lerp,
    masked_fill,
    masked_select,
    nan_to_num,
    nonzero,
    round,  # noqa: A004
    trunc,
    unique,
)
from .functions import (  # noqa: E402  (linear algebra: mg.einsum, mg.det, mg.svd ...)
    cholesky,
    cholesky_inverse,
    cholesky_solve,
    cross,
    det,
    diagonal,
    einsum,
    inverse,
    kron,
    logdet,
    matrix_exp,
    matrix_power,
    pinverse,
    qr,
    slogdet,
    svd,
)

# Logical/bitwise and further pointwise names, splits and diagonals, statistics, searching,
# the special functions (mg.special) and a few creation names.
from .functions import (  # noqa: E402
    all,  # noqa: A004
    any,  # noqa: A004
    atleast_1d,
    atleast_2d,
    atleast_3d,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    block_diag,
    cartesian_prod,
    combinations,
    concatenate,
    copysign,
    deg2rad,
    diag_embed,
    diagflat,
    dsplit,
    dstack,
    erfc,
    exp2,
    float_power,
    fmax,
    fmin,
    frexp,
    heaviside,
    hsplit,
    hypot,
    i0,
    is_complex,
    is_floating_point,
    ldexp,
    logaddexp,
    logaddexp2,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    logit,
    rad2deg,
    rot90,
    sgn,
    signbit,
    sinc,
    tensor_split,
    tensordot,
    unflatten,
    vander,
    vsplit,
    xlogy,
)
from .statistics import (  # noqa: E402
    corrcoef,
    count_nonzero,
    cov,
    diff,
    gradient,
    histogram,
    kthvalue,
    logcumsumexp,
    median,
    mode,
    nanmean,
    nanmedian,
    nanquantile,
    nansum,
    quantile,
    std_mean,
    var_mean,
)
from .searching import bucketize, isin, searchsorted  # noqa: E402
from .functions.integration import cumulative_trapezoid, trapezoid, trapz  # noqa: E402
from .functions.ranges import (  # noqa: E402  (the making functions with out=)
    arange,
    bernoulli,
    empty,
    eye,
    full,
    linspace,
    logspace,
    normal,
    ones,
    rand,
    randint,
    randn,
    randperm,
    zeros,
)
from . import special  # noqa: E402
from . import sparse  # noqa: E402  (torch.sparse: sparse.mm ...)
from .composite_functions import (  # noqa: E402  (mg.take, mg.addr, mg.inner, mg.asinh ...)
    absolute,
    acosh,
    acosh_,
    addbmm,
    addcdiv,
    addcmul,
    addmv,
    addr,
    aminmax,
    angle,
    arccosh,
    as_strided,
    arcsinh,
    arctanh,
    argwhere,
    asinh,
    asinh_,
    atanh,
    atanh_,
    bitwise_left_shift,
    bitwise_right_shift,
    broadcast_tensors,
    erf_,
    fill_diagonal_,
    floor_divide,
    index_put,
    index_put_,
    inner,
    isneginf,
    isposinf,
    isreal,
    masked_scatter,
    msort,
    mvlgamma,
    neg_,
    negative_,
    nextafter,
    positive,
    put,
    relu_,
    renorm,
    sigmoid_,
    take,
    tanh_,
    unique_consecutive,
)
from .functions.common_names import (  # noqa: E402  (mg.eq, mg.greater, mg.rsub, mg.gcd ...)
    broadcast_shapes,
    detach,
    dist,
    eq,
    gcd,
    ge,
    greater,
    greater_equal,
    gt,
    lcm,
    le,
    less,
    less_equal,
    lt,
    ne,
    not_equal,
    result_type,
    rsub,
)
from .sparse_coo import sparse_coo, sparse_coo_tensor, strided  # noqa: E402
from .sparse_coo_math import spmm  # noqa: E402
from .memory_format import (  # noqa: E402
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
    preserve_format,
)
from .tensor_memory import TypedStorage, UntypedStorage  # noqa: E402
from .creation import empty_strided  # noqa: E402
from .functions.triangle_indices import tril_indices, triu_indices  # noqa: E402
from .random import seed  # noqa: E402
from .foreach import *  # noqa: E402,F403  (torch._foreach_add_, _foreach_lerp_, ...)

short = int16
int = int32  # noqa: A001  (torch.int; the builtin int is not used below this line)

from . import amp  # noqa: E402
from . import accelerator, backends, onnx  # noqa: E402
from . import compiler, jit, testing  # noqa: E402
from .compiler import compile  # noqa: E402,A004  (torch.compile: returns the model unchanged)
from .autograd import set_detect_anomaly  # noqa: E402
from .utils.threads import (  # noqa: E402
    get_num_interop_threads,
    get_num_threads,
    set_num_interop_threads,
    set_num_threads,
)
from .backends import get_float32_matmul_precision, set_float32_matmul_precision  # noqa: E402
from .backends.deterministic import (  # noqa: E402
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    use_deterministic_algorithms,
)
from .amp import autocast, get_autocast_dtype  # noqa: E402  (mg.autocast is mg.amp.autocast)


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """torch.is_autocast_enabled: is autocast on for ``device_type`` in this thread? Without an
    argument PyTorch asks about CUDA (the function's older meaning), so a CPU block reads False."""
    return amp.is_autocast_enabled("cuda" if device_type is None else device_type)


from .axis_alias import AXIS_NAMES as _AXIS_NAMES, accepts_axis as _accepts_axis  # noqa: E402

# mg.amax(x, axis=1), mg.cat(ts, axis=0) ...: NumPy's spellings, as PyTorch's parser takes them
for _name in _AXIS_NAMES:
    if _name in globals():
        globals()[_name] = _accepts_axis(globals()[_name])

import sys as _sys  # noqa: E402

# `mg.enable_autocast = True` switches autocast on for every thread (see _compat.PackageModule).
from ._compat import install_package_module_class  # noqa: E402

install_package_module_class(_sys.modules[__name__])

# Loaded on first use (PEP 562): they import matplotlib or read files, which `import minigenesis`
# should not pay for. `mg.viz.plot_lr_schedule(...)` works without an import line.
_LAZY = ("viz", "datasets", "diagnostics")
# mg.distributions (torch.distributions): fifteen modules most programs never touch
_LAZY += ("distributions",)
# mg.func (torch.func): grad, vmap, jacrev, functional_call ...
_LAZY += ("func",)
# mg.profiler (torch.profiler): times ops only while a profile records
_LAZY += ("profiler",)
# mg.library (torch.library): custom_op, register_fake, register_autograd, opcheck
_LAZY += ("library",)
# mg._dynamo (torch._dynamo): config.suppress_errors, disable, reset around mg.compile
_LAZY += ("_dynamo",)


def __getattr__(name: str):
    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    if name == "vmap":  # torch.vmap is torch.func.vmap (mg.func loads on first use)
        return importlib.import_module(".func", __name__).vmap
    raise AttributeError(f"module 'minigenesis' has no attribute {name!r}")


# torch.conv2d, torch.dropout, torch.abs_, torch.view_copy, torch.range, torch.hann_window ...
from .top_level import functional_aliases as _functional_aliases  # noqa: E402
from .top_level import method_forms as _method_forms  # noqa: E402
from .top_level import names as _names  # noqa: E402
from .top_level import rnn_cells as _rnn_cells  # noqa: E402
from .top_level.lowrank import pca_lowrank, svd_lowrank  # noqa: E402, F401

for _module in (_functional_aliases, _names, _rnn_cells):
    globals().update({_n: getattr(_module, _n) for _n in _module.__all__})
for _n, _fn in _method_forms.all_forms().items():
    globals().setdefault(_n, _fn)

from .input_keyword import accepts_input as _accepts_input  # noqa: E402
from .input_keyword import torch_first_name as _torch_first_name  # noqa: E402

# mg.add(input=x, other=y), mg.sum(input=x, dim=1) ...: PyTorch's name for the first argument
for _n, _fn in list(globals().items()):
    if not _n.startswith("_") and (_keyword := _torch_first_name(_n, _fn)) is not None:
        globals()[_n] = _accepts_input(_fn, _keyword)
from .dtypes import DType as dtype  # noqa: E402  (isinstance(x, torch.dtype))
from .sparse_coo import _Layout as layout  # noqa: E402  (isinstance(x, torch.layout))
from .amp import GradScaler  # noqa: E402  (torch.GradScaler is torch.amp.GradScaler)

# pickle finds every public function as mg.<name> (wrappers carry their inner function's names)
from ._compat import name_functions_where_published as _publish  # noqa: E402
from ._compat import name_methods_where_published as _publish_methods  # noqa: E402

_publish(globals(), __name__)
_publish_methods(Tensor)  # pickle.dumps(mg.Tensor.mul), as PyTorch's methods
