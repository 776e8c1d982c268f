"""The names PyTorch gives the graph nodes of our ops: ``grad_fn=<MulBackward0>``.

Our ops are named for what they compute (``Mul``, ``MatMul``, ``Reshape``); a PyTorch user knows
the node a product leaves behind as ``MulBackward0`` (``type(y.grad_fn).__name__``, and what the
tensor's repr shows). Each op class gets a node class of that name (``Function.__init_subclass__``
makes it), and ``apply`` records calls with it, so ``isinstance(y.grad_fn, Mul)`` still holds.

The table says, per op class: PyTorch's node name, and which forward arguments PyTorch's node
lists in ``next_functions`` (the tensor arguments with a derivative formula: ``x.sum(dim=1)``
lists ``x`` only, ``a * 2`` lists both, the 2 as ``(None, 0)``). An argument that carries a
gradient is always listed, so walking ``next_functions`` reaches every leaf.

Where PyTorch has several nodes for what is one op here (``sum()`` is ``SumBackward0``,
``sum(dim)`` ``SumBackward1``; ``view``/``unsqueeze``/``flatten`` are all our ``Reshape``), the
table names the most common one. An op missing from the table is ``<Op>Backward0``; a user's
own ``Function`` subclass ``MyFn`` is ``MyFnBackward``, as in PyTorch.
"""

from __future__ import annotations

import types
from typing import Any

X = (0,)  # the node lists the first argument (the input) only
XY = (0, 1)  # the first two (a binary op's operands)
XYZ = (0, 1, 2)

# op class name -> (PyTorch's node name, positions of the forward arguments it lists)
NODE_NAMES: dict[str, tuple[str, tuple[int, ...]]] = {
    # arithmetic (elementwise.py)
    "Add": ("AddBackward0", XY),
    "Sub": ("SubBackward0", XY),
    "Mul": ("MulBackward0", XY),
    "Div": ("DivBackward0", XY),
    "Neg": ("NegBackward0", X),
    "Pow": ("PowBackward0", X),  # a tensor exponent (PowBackward1) is listed: it has a gradient
    "Exp": ("ExpBackward0", X),
    "Log": ("LogBackward0", X),
    "Sqrt": ("SqrtBackward0", X),
    "Abs": ("AbsBackward0", X),
    "Sign": ("SignBackward0", X),
    "Maximum": ("MaximumBackward0", XY),
    "Minimum": ("MinimumBackward0", XY),
    "Where": ("WhereBackward0", (1, 2)),  # the condition has no gradient: not listed
    "Clamp": ("ClampBackward1", X),
    "Cast": ("ToCopyBackward0", X),
    "ToDevice": ("ToCopyBackward0", X),
    # math_functions.py
    "Sin": ("SinBackward0", X),
    "Cos": ("CosBackward0", X),
    "Tan": ("TanBackward0", X),
    "Asin": ("AsinBackward0", X),
    "Acos": ("AcosBackward0", X),
    "Atan": ("AtanBackward0", X),
    "Atan2": ("Atan2Backward0", XY),
    "Sinh": ("SinhBackward0", X),
    "Cosh": ("CoshBackward0", X),
    "Expm1": ("Expm1Backward0", X),
    "Log1p": ("Log1PBackward0", X),
    "Log2": ("Log2Backward0", X),
    "Log10": ("Log10Backward0", X),
    "Reciprocal": ("ReciprocalBackward0", X),
    "Erf": ("ErfBackward0", X),
    "Erfinv": ("ErfinvBackward0", X),
    # activation.py
    "ReLU": ("ReluBackward0", X),
    "LeakyReLU": ("LeakyReluBackward0", X),
    "ELU": ("EluBackward0", X),  # elu, selu and celu alike
    "Sigmoid": ("SigmoidBackward0", X),
    "Tanh": ("TanhBackward0", X),
    "GELU": ("GeluBackward0", X),
    "SiLU": ("SiluBackward0", X),
    "Softplus": ("SoftplusBackward0", X),
    "Softmax": ("SoftmaxBackward0", X),
    "LogSoftmax": ("LogSoftmaxBackward0", X),
    # reduce.py
    "Sum": ("SumBackward0", X),
    "Mean": ("MeanBackward0", X),
    "Var": ("VarBackward0", X),
    "StdSqrt": ("StdBackward0", X),
    "PNorm": ("LinalgVectorNormBackward0", X),
    "MaxAll": ("MaxBackward1", X),
    "MinAll": ("MinBackward1", X),
    "MaxDim": ("MaxBackward0", X),
    "MinDim": ("MinBackward0", X),
    "AMax": ("AmaxBackward0", X),
    "AMin": ("AminBackward0", X),
    "LogSumExp": ("LogsumexpBackward0", X),
    "CumSum": ("CumsumBackward0", X),
    "Prod": ("ProdBackward0", X),
    # matmul.py, linear.py, conv.py, pooling.py
    "MatMul": ("MmBackward0", XY),
    "Linear": ("AddmmBackward0", XYZ),
    "MaxPool": ("MaxPool2DWithIndicesBackward0", X),
    # shape.py, indexing.py, sorting.py, pad.py
    "Reshape": ("ViewBackward0", X),
    "Permute": ("PermuteBackward0", X),
    "Expand": ("ExpandBackward0", X),
    "Contiguous": ("CloneBackward0", X),
    "Clone": ("CloneBackward0", X),
    "Flip": ("FlipBackward0", X),
    "Repeat": ("RepeatBackward0", X),
    "Split": ("SplitBackward0", X),
    "Cat": ("CatBackward0", ()),  # cat(dim, *tensors): each tensor is listed (it has an edge)
    "Stack": ("StackBackward0", ()),  # stack(dim, *tensors), as Cat
    "Unstack": ("UnbindBackward0", X),
    "GetItem": ("SliceBackward0", X),
    "MaskedFill": ("MaskedFillBackward0", X),
    "GatherAlongDim": ("GatherBackward0", X),
    "Triangle": ("TrilBackward0", X),
    "Pad": ("ConstantPadNdBackward0", X),
    # losses, normalization, embedding, dropout, attention
    "CrossEntropyIndices": ("NllLossBackward0", X),
    "BinaryCrossEntropy": ("BinaryCrossEntropyBackward0", XY),
    "Normalize": ("NativeLayerNormBackward0", XYZ),
    "BatchNormRows": ("NativeBatchNormBackward0", XYZ),
    "EmbeddingLookup": ("EmbeddingBackward0", X),
    "EmbeddingGrad": ("EmbeddingDenseBackwardBackward0", X),  # embedding's double backward
    "EuclideanDistMM": ("EuclideanDistBackward0", XY),  # cdist's matmul form, under its view
    "Dropout": ("MulBackward0", XY),  # PyTorch's dropout is a product with a mask
    # linear algebra (ops/linalg.py; einsum keeps its own name: PyTorch's is that of its last view)
    "Det": ("LinalgDetBackward0", X),
    "SlogDet": ("LinalgSlogdetBackward0", X),
    "Inverse": ("LinalgInvExBackward0", X),
    "Solve": ("LinalgSolveExBackward0", XY),
    "SolveTriangular": ("LinalgSolveTriangularBackward0", XY),
    "Cholesky": ("LinalgCholeskyExBackward0", X),
    "QR": ("LinalgQrBackward0", X),
    "Eigh": ("LinalgEighBackward0", X),
    "SVD": ("LinalgSvdBackward0", X),
    "Pinv": ("LinalgPinvBackward0", X),
    "MatrixExp": ("LinalgMatrixExpBackward0", X),
}

# F.interpolate's kernels, per (mode, number of spatial dims), as PyTorch names them and their
# nodes (UpsampleBilinear2DBackward0). ops/interpolate.py makes an op class of each name: the
# one a call's last resampling records, so the output's grad_fn is named as PyTorch's.
UPSAMPLE_KERNELS = {
    ("nearest", 1): "UpsampleNearest1D",
    ("nearest", 2): "UpsampleNearest2D",
    ("nearest", 3): "UpsampleNearest3D",
    ("nearest-exact", 1): "UpsampleNearestExact1D",
    ("nearest-exact", 2): "UpsampleNearestExact2D",
    ("nearest-exact", 3): "UpsampleNearestExact3D",
    ("linear", 1): "UpsampleLinear1D",
    ("bilinear", 2): "UpsampleBilinear2D",
    ("trilinear", 3): "UpsampleTrilinear3D",
}
NODE_NAMES.update({kernel: (f"{kernel}Backward0", X) for kernel in UPSAMPLE_KERNELS.values()})


def node_variant(op: type, name: str) -> type:
    """``op`` recorded under another of PyTorch's node names, for a call PyTorch dispatches to
    another overload (``x.sum(dim=0)`` is ``SumBackward1``, ``x.sum()`` ``SumBackward0``): a
    subclass with the same name (the profiler shows ``Sum`` for both), so ``isinstance(y.grad_fn,
    Sum)`` still holds. Made once per (op, name)."""
    key = (op, name)
    if key not in _VARIANTS:
        _VARIANTS[key] = types.new_class(
            op.__name__,
            (op,),
            {},
            lambda ns: ns.update(
                __module__=op.__module__, __qualname__=f"{op.__qualname__}.{name}", _node_name=name
            ),
        )
    return _VARIANTS[key]


_VARIANTS: dict[tuple[type, str], type] = {}


def node_name(op: type, internal: bool) -> str:
    """The node class name for op class ``op`` (``internal``: one of ours, an ``Op``)."""
    if "_node_name" in op.__dict__:  # a node_variant
        return op.__dict__["_node_name"]
    if not internal:
        return f"{op.__name__}Backward"
    entry = NODE_NAMES.get(op.__name__)
    return f"{op.__name__}Backward0" if entry is None else entry[0]


def listed_arguments(op: type, internal: bool) -> tuple[int, ...] | None:
    """Positions of the forward arguments ``next_functions`` lists, or None: all of them."""
    entry = NODE_NAMES.get(op.__name__) if internal else None
    return None if entry is None else entry[1]


def listed_places(node: Any) -> tuple[int, ...] | None:
    """Positions of the forward arguments ``node.next_functions`` lists, or None: all of them.
    A user's Function lists its Tensor arguments only (not numbers or None), as PyTorch's."""
    if not node._array_forward:
        return node.__dict__.get("_tensor_places")
    return listed_arguments(node._op, internal=True)
