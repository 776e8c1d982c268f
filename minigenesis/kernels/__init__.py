"""The speed layer: every path that exists only to make an op, an optimizer or the loss scaler
faster. Nothing here defines what is computed; the plain code in ``ops/``, ``optim/`` and ``amp/``
does, and a learner reads that first.

What lives here:

- ``cpu_jit.py``: the CPU machinery, loops compiled by Numba where the ``fast`` extra is
  installed (each such path returns None without it, and the NumPy code runs);
- ``cuda.py``: the machinery (``ElementwiseKernel``, ``ReductionKernel``, ``kernel_fits``): CUDA
  written once, compiled exactly (no fused multiply-add), so a kernel gives its NumPy twin's bits;
- one module per family of ops (``activation``, ``gelu``, ``elementwise``, ``normalization``,
  ``pooling``, ``conv``, ``loss``, ``attention``), the optimizers' fused updates (``optim``) and
  GradScaler's (``amp``): GPU kernels, each the same arithmetic in the same order as the plain
  code it stands for, and a few CPU paths (bfloat16 arithmetic through float32, a select as bit
  arithmetic, max pooling in fewer passes, the exact GELU in float32 and GELU's tables for
  2-byte floats, LayerNorm's rows with BLAS outer products: ``layer_norm``);
- ``blas.py``: NumPy's own OpenBLAS through ctypes, where NumPy's matmul leaves work undone: a
  product added into an array (a layer's bias, a convolution's kernel offsets) and column sums;
- ``batch_norm_loops.py`` and ``batch_norm_rows.py``: BatchNorm's training step as compiled
  loops (Numba) where the ``fast`` extra is installed, beside ``batch_norm.py``'s NumPy passes;
- ``gelu_loop.py`` and ``layer_norm_loop.py``: the exact GELU of float32 and LayerNorm/RMSNorm
  over rows as compiled loops (Numba), beside ``gelu.py``'s and ``layer_norm.py``'s NumPy paths;
- ``sums.py``: NumPy's C einsum without its Python wrapper, for the per-column sums of products
  of BatchNorm on (N, C) input, and a convolution's bias gradient as BLAS row sums;
- ``casts.py``: float32 <-> bfloat16 / float16 conversions as compiled loops (autocast's casts);
- ``memory.py``: ``keep_freed_memory()``, the opt-in malloc setting a training loop calls so that
  freed arrays keep their pages for the next step.

How an op uses it: one line, ``if type(x) is not ndarray and (y := kernels.f(x)) is not None:
return y``. Each function here returns its result, or None where it does not apply. The type test
is written in the op, so the CPU path never enters this package unless it does real work here.
A CPU path that pays only from some size on is guarded the same way, by that size: a constant
read off its module (``blas.LINEAR_MIN_OUTPUT``, ``blas.COLUMN_SUM_MIN_ROWS``,
``elementwise.SELECT_BITS_MIN``), each a break-even measured and stated in that module's
docstring (``bench/bench_cpu_thresholds.py`` measures them again). A small model's step (a
4-16-3 MLP) takes NumPy's own product, sum and ``where``.
"""

from . import (  # noqa: F401  (the families, as kernels.activation.sigmoid ...)
    activation,
    amp,
    attention,
    batch_norm,
    batch_norm_loops,
    batch_norm_rows,
    blas,
    casts,
    conv,
    conv_phases,
    cpu_jit,
    cross_entropy_loop,
    cuda,
    elementwise,
    gelu,
    layer_norm,
    loss,
    memory,
    normalization,
    optim,
    pooling,
    sums,
)
