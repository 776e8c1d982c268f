"""grad_fn nodes carry PyTorch's names (``MulBackward0`` ...) and list the inputs PyTorch lists in
``next_functions``, for the common ops (``minigenesis/autograd/node_names.py``)."""

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")


def _inputs(lib):
    rng = np.random.default_rng(0)
    a = lib.tensor(np.abs(rng.standard_normal((3, 3))).astype(np.float32) + 0.1)
    a.requires_grad_(True)
    b = lib.tensor(np.abs(rng.standard_normal(3)).astype(np.float32) + 0.1)  # no grad
    w = lib.tensor(rng.standard_normal((3, 3)).astype(np.float32), requires_grad=True)
    v = lib.tensor(rng.standard_normal(3).astype(np.float32), requires_grad=True)
    return a, b, w, v


OPS = {
    "mul": lambda L, a, b, w, v: a * b,
    "mul_scalar": lambda L, a, b, w, v: a * 2,
    "add": lambda L, a, b, w, v: a + b,
    "sub": lambda L, a, b, w, v: a - w,
    "div": lambda L, a, b, w, v: a / b,
    "neg": lambda L, a, b, w, v: -a,
    "pow": lambda L, a, b, w, v: a**2,
    "exp": lambda L, a, b, w, v: a.exp(),
    "log": lambda L, a, b, w, v: a.log(),
    "sqrt": lambda L, a, b, w, v: a.sqrt(),
    "sin": lambda L, a, b, w, v: a.sin(),
    "tanh": lambda L, a, b, w, v: a.tanh(),
    "sigmoid": lambda L, a, b, w, v: a.sigmoid(),
    "relu": lambda L, a, b, w, v: a.relu(),
    "gelu": lambda L, a, b, w, v: L.nn.functional.gelu(a),
    "silu": lambda L, a, b, w, v: L.nn.functional.silu(a),
    "softmax": lambda L, a, b, w, v: a.softmax(-1),
    "log_softmax": lambda L, a, b, w, v: a.log_softmax(-1),
    "sum": lambda L, a, b, w, v: a.sum(),
    "mean": lambda L, a, b, w, v: a.mean(),
    "var": lambda L, a, b, w, v: a.var(),
    "max": lambda L, a, b, w, v: a.max(),
    "amax": lambda L, a, b, w, v: a.amax(1),
    "logsumexp": lambda L, a, b, w, v: a.logsumexp(1),
    "cumsum": lambda L, a, b, w, v: a.cumsum(1),
    "mm": lambda L, a, b, w, v: a @ w,
    "view": lambda L, a, b, w, v: a.view(9),
    "reshape": lambda L, a, b, w, v: a.reshape(9),
    "permute": lambda L, a, b, w, v: a.permute(1, 0),
    "expand": lambda L, a, b, w, v: v.expand(2, 3),
    "slice": lambda L, a, b, w, v: a[1:],
    "cat": lambda L, a, b, w, v: L.cat([a, w]),
    "clone": lambda L, a, b, w, v: a.clone(),
    "where": lambda L, a, b, w, v: L.where(a > 1, a, w),
    "clamp": lambda L, a, b, w, v: a.clamp(0, 1),
    "maximum": lambda L, a, b, w, v: L.maximum(a, w),
    "to_double": lambda L, a, b, w, v: a.double(),
    "linear": lambda L, a, b, w, v: L.nn.functional.linear(a, w, v),
    "cross_entropy": lambda L, a, b, w, v: L.nn.functional.cross_entropy(a, L.tensor([0, 1, 2])),
    "layer_norm": lambda L, a, b, w, v: L.nn.functional.layer_norm(a, (3,), v, v),
    "embedding": lambda L, a, b, w, v: L.nn.functional.embedding(L.tensor([0, 2]), a),
    "masked_fill": lambda L, a, b, w, v: a.masked_fill(w > 0, 0.0),
    "gather": lambda L, a, b, w, v: a.gather(1, L.tensor([[0], [1], [2]])),
    "flip": lambda L, a, b, w, v: a.flip(0),
    "tril": lambda L, a, b, w, v: a.tril(),
}


def _describe(fn):
    """A node as its type name and, per listed input, the type name of what feeds it."""
    if fn is None:
        return None
    return (type(fn).__name__, [type(f).__name__ if f else None for f, _ in fn.next_functions])


@pytest.mark.parametrize("op", OPS)
def test_grad_fn_name_and_next_functions_as_in_torch(op):
    ours = OPS[op](mg, *_inputs(mg)).grad_fn
    theirs = OPS[op](torch, *_inputs(torch)).grad_fn
    name, inputs = _describe(ours)
    assert name == type(theirs).__name__
    assert repr(ours).startswith(f"<{name} object at 0x")
    if op == "linear":  # PyTorch lists addmm's arguments: (bias, input, weight.t())
        assert len(inputs) == len(theirs.next_functions)
    elif op == "cross_entropy":  # one fused op here, log_softmax then nll_loss in PyTorch
        assert len(inputs) == len(theirs.next_functions)
    else:
        assert _describe(ours) == _describe(theirs)


def test_a_computed_tensor_prints_its_grad_fn_as_torch():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    assert repr(a * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert repr((a * 2).sum()) == "tensor(6., grad_fn=<SumBackward0>)"
    m = mg.tensor([[1.0, 2.0]], requires_grad=True)
    assert repr(m @ m.T) == "tensor([[5.]], grad_fn=<MmBackward0>)"
    assert type((a + 1).grad_fn).__name__ == "AddBackward0"


def test_grad_fn_is_an_instance_of_its_op_and_keeps_our_op_name():
    from minigenesis.ops.elementwise import Mul

    fn = (mg.ones(2, requires_grad=True) * 3).grad_fn
    assert isinstance(fn, Mul) and type(fn).__name__ == "MulBackward0"
    assert fn.name == "Mul"  # our op's name, as the graph drawings show it


def test_a_custom_function_node_is_named_as_in_torch():
    def make(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g

        return Square

    ours = make(mg).apply(mg.ones(2, requires_grad=True))
    theirs = make(torch).apply(torch.ones(2, requires_grad=True))
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ == "SquareBackward"
    assert repr(ours).replace("minigenesis", "torch") == repr(theirs)


def test_next_functions_skip_arguments_that_are_not_inputs():
    a = mg.ones(2, 3, requires_grad=True)
    (node,) = [f for f, _ in a.sum(dim=1).grad_fn.next_functions]  # dim is not listed
    assert node.variable is a
    fns = (a * 2).grad_fn.next_functions  # a scalar operand is, as (None, 0)
    assert fns[0][0].variable is a and fns[1] == (None, 0)


def _nodes_down(fn, depth):
    """The names of ``fn`` and of the first input's node below it, ``depth`` levels down."""
    names = []
    for _ in range(depth):
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0]
    return names


@pytest.mark.parametrize(
    "mode,dims",
    [("nearest", 1), ("nearest", 2), ("nearest", 3), ("nearest-exact", 1)]
    + [("nearest-exact", 2), ("nearest-exact", 3), ("linear", 1), ("bilinear", 2)]
    + [("trilinear", 3)],
)
@pytest.mark.parametrize("scale", [2.0, 1.0])  # 1.0: nearest copies, and still records the node
def test_interpolate_records_pytorchs_upsample_node_per_mode_and_dims(mode, dims, scale):
    shape = (1, 2) + (3,) * dims
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    ours = mg.nn.functional.interpolate(
        mg.tensor(x, requires_grad=True), scale_factor=scale, mode=mode
    )
    theirs = torch.nn.functional.interpolate(
        torch.tensor(x, requires_grad=True), scale_factor=scale, mode=mode
    )
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-6)


@pytest.mark.parametrize("rows", [30, 4])  # 4: the matmul form only when asked for
def test_cdist_matmul_form_records_euclidean_dist_under_a_view(rows):
    x1, x2 = np.random.default_rng(2).standard_normal((2, rows, 3))
    mode = "use_mm_for_euclid_dist"
    ours = mg.cdist(mg.tensor(x1, requires_grad=True), mg.tensor(x2), compute_mode=mode)
    theirs = torch.cdist(torch.tensor(x1, requires_grad=True), torch.tensor(x2), compute_mode=mode)
    assert _nodes_down(ours.grad_fn, 2) == _nodes_down(theirs.grad_fn, 2)
    assert _nodes_down(ours.grad_fn, 2)[1] == "EuclideanDistBackward0"


def test_embedding_double_backward_node_is_pytorchs():
    def grad_of_embedding(lib):
        w = lib.tensor(np.arange(15.0).reshape(5, 3), requires_grad=True)
        y = lib.nn.functional.embedding(lib.tensor([1, 2, 1]), w)
        (g,) = lib.autograd.grad((y**2).sum(), w, create_graph=True)
        return g.grad_fn

    ours, theirs = grad_of_embedding(mg), grad_of_embedding(torch)
    assert type(ours).__name__ == type(theirs).__name__ == "EmbeddingDenseBackwardBackward0"
    assert len(ours.next_functions) == len(theirs.next_functions) == 1
