"""PyTorch parity: nn layers in train and eval mode, with the torch module's weights copied into
the minigenesis module; outputs, input and parameter gradients, buffers (BatchNorm's running
statistics), state_dict keys; plus matmul/linear shapes and dtypes.
"""

from __future__ import annotations

import numpy as np
import pytest
from parity_helpers import RTOL_ACC, assert_grads, assert_same, data, pair

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn

torch = pytest.importorskip("torch")
tnn = torch.nn
TF = torch.nn.functional


def _copy_state(m_module, t_module):
    """Load the torch module's state_dict into the minigenesis module (same keys)."""
    t_state = t_module.state_dict()
    assert sorted(m_module.state_dict()) == sorted(t_state)
    state = {}
    for k, v in t_state.items():
        arr = v.detach().double().numpy() if v.is_floating_point() else v.numpy()
        dtype = str(v.dtype).replace("torch.", "")
        state[k] = mg.tensor(arr, dtype=getattr(mg, dtype))
    m_module.load_state_dict(state)


def _run(m_module, t_module, x, dtype="float32", rtol=None, atol=1e-6, seed=41):
    """Forward + backward of sum(out * w) in both; compare out, input grad and param grads."""
    mx, tx = pair(torch, x, dtype, requires_grad=True)
    m_out, t_out = m_module(mx), t_module(tx)
    if isinstance(t_out, tuple):
        m_out, t_out = m_out[0], t_out[0]
    rtol = RTOL_ACC[dtype] if rtol is None else rtol
    assert_same(m_out, t_out, rtol=rtol, atol=atol, what="output")
    w = data(tuple(t_out.shape), "float64", seed)
    (m_out * mg.tensor(w, dtype=m_out.dtype)).sum().backward()
    (t_out * torch.tensor(w, dtype=t_out.dtype)).sum().backward()
    assert_grads([mx], [tx], rtol=rtol, atol=atol)
    m_params = dict(m_module.named_parameters())
    for name, tp in t_module.named_parameters():
        mp = m_params[name]
        assert_grads([mp], [tp], rtol=rtol, atol=atol)
    return m_out, t_out


LAYERS = {
    "linear": (lambda L: L.Linear(5, 3), (4, 5)),
    "linear_3d_no_bias": (lambda L: L.Linear(5, 3, bias=False), (2, 4, 5)),
    "linear_1d": (lambda L: L.Linear(5, 3), (5,)),
    "layernorm": (lambda L: L.LayerNorm(6), (3, 6)),
    "layernorm_2d_shape": (lambda L: L.LayerNorm((4, 6), eps=1e-3), (2, 4, 6)),
    "layernorm_no_affine": (lambda L: L.LayerNorm(6, elementwise_affine=False), (3, 6)),
    "layernorm_no_bias": (lambda L: L.LayerNorm(6, bias=False), (3, 6)),
    "rmsnorm": (lambda L: L.RMSNorm(6), (3, 6)),
    "rmsnorm_eps": (lambda L: L.RMSNorm([2, 6], eps=1e-4), (3, 2, 6)),
    "batchnorm1d": (lambda L: L.BatchNorm1d(4), (6, 4)),
    "batchnorm1d_3d": (lambda L: L.BatchNorm1d(4, momentum=0.3), (5, 4, 3)),
    "batchnorm2d": (lambda L: L.BatchNorm2d(3), (4, 3, 5, 5)),
    "batchnorm2d_no_affine": (lambda L: L.BatchNorm2d(3, affine=False), (4, 3, 2, 2)),
    "batchnorm2d_cumulative": (lambda L: L.BatchNorm2d(3, momentum=None), (4, 3, 2, 2)),
    "batchnorm2d_untracked": (lambda L: L.BatchNorm2d(3, track_running_stats=False), (4, 3, 2, 2)),
    "conv2d": (lambda L: L.Conv2d(3, 4, 3), (2, 3, 7, 7)),
    "conv2d_stride_pad": (lambda L: L.Conv2d(3, 4, 3, stride=2, padding=1), (2, 3, 8, 8)),
    "conv2d_rect_dilation": (
        lambda L: L.Conv2d(2, 3, (3, 2), dilation=2, bias=False),
        (1, 2, 9, 8),
    ),
    "conv2d_groups": (lambda L: L.Conv2d(4, 6, 3, groups=2, padding="same"), (2, 4, 6, 6)),
    "conv2d_unbatched": (lambda L: L.Conv2d(3, 2, 3, padding=1), (3, 5, 5)),
    "maxpool2d": (lambda L: L.MaxPool2d(2), (2, 3, 6, 6)),
    "maxpool2d_stride_pad": (lambda L: L.MaxPool2d(3, stride=2, padding=1), (2, 3, 7, 7)),
    "maxpool2d_ceil": (lambda L: L.MaxPool2d(2, ceil_mode=True), (1, 2, 5, 5)),
    "avgpool2d": (lambda L: L.AvgPool2d(2), (2, 3, 6, 6)),
    "avgpool2d_pad": (lambda L: L.AvgPool2d(3, stride=2, padding=1), (2, 3, 7, 7)),
    "avgpool2d_pad_exclude": (
        lambda L: L.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
        (2, 3, 7, 7),
    ),
    "flatten": (lambda L: L.Flatten(), (2, 3, 4)),
    "flatten_dims": (lambda L: L.Flatten(0, 1), (2, 3, 4)),
    "identity": (lambda L: L.Identity(), (2, 3)),
    "relu": (lambda L: L.ReLU(), (3, 4)),
    "gelu": (lambda L: L.GELU(), (3, 4)),
    "gelu_tanh": (lambda L: L.GELU(approximate="tanh"), (3, 4)),
    "silu": (lambda L: L.SiLU(), (3, 4)),
    "tanh": (lambda L: L.Tanh(), (3, 4)),
    "sigmoid": (lambda L: L.Sigmoid(), (3, 4)),
    "softmax": (lambda L: L.Softmax(dim=1), (3, 4)),
    "log_softmax": (lambda L: L.LogSoftmax(dim=-1), (3, 4)),
    "dropout_eval_is_identity": (lambda L: L.Dropout(0.5), (3, 4)),
    "sequential": (
        lambda L: L.Sequential(L.Linear(4, 8), L.ReLU(), L.LayerNorm(8), L.Linear(8, 2)),
        (5, 4),
    ),
}
TRAIN_SAME = {"dropout_eval_is_identity"}  # dropout: compared in eval mode only


@pytest.mark.parametrize("mode", ["train", "eval"])
@pytest.mark.parametrize("layer", list(LAYERS))
def test_layer_parity(layer, mode):
    make, shape = LAYERS[layer]
    if mode == "train" and layer in TRAIN_SAME:
        pytest.skip("random in training mode: covered by test_dropout_train_statistics")
    torch.manual_seed(0)
    t_module = make(tnn).double().float()
    m_module = make(nn)
    _copy_state(m_module, t_module)
    getattr(t_module, mode)()
    getattr(m_module, mode)()
    x = data(shape, "float64", 40)
    for step in range(2):  # twice: BatchNorm's running statistics move in training
        _run(m_module, t_module, x * (1 + step), atol=1e-5)
        for name, tb in t_module.named_buffers():
            mb = dict(m_module.named_buffers())[name]
            assert_same(mb, tb, rtol=1e-5, atol=1e-7, what=name)
        m_module.zero_grad()
        t_module.zero_grad()


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
@pytest.mark.parametrize("layer", ["linear", "layernorm", "rmsnorm", "batchnorm2d", "conv2d"])
def test_layer_parity_other_dtypes(layer, dtype):
    make, shape = LAYERS[layer]
    torch.manual_seed(0)
    t_module = make(tnn).to(getattr(torch, dtype))
    m_module = make(nn).to(getattr(mg, dtype))
    _copy_state(m_module, t_module)
    x = data(shape, "float64", 40)
    # float16/bfloat16: PyTorch's CPU kernels accumulate in float32 like ours, but round
    # intermediate results at other points (e.g. the normalised value before the affine map)
    _run(m_module, t_module, x, dtype, atol={"float64": 0}.get(dtype, 2 * RTOL_ACC[dtype]))


def test_dropout_train_statistics():
    m = nn.Dropout(0.25)
    x = mg.ones(200, 100)
    y = m(x).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.75) < 0.01
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)  # inverted dropout, as torch
    assert m.eval()(x) is x or np.array_equal(m(x).numpy(), x.numpy())
    t = tnn.Dropout(0.25)(torch.ones(200, 100))
    np.testing.assert_allclose(t[t != 0].numpy(), 1 / 0.75, rtol=1e-6)


@pytest.mark.parametrize("padding_idx", [None, 1])
def test_embedding_parity(padding_idx):
    torch.manual_seed(0)
    t_module = tnn.Embedding(6, 4, padding_idx=padding_idx)
    m_module = nn.Embedding(6, 4, padding_idx=padding_idx)
    _copy_state(m_module, t_module)
    idx = np.array([[1, 2, 1], [5, 0, 1]])
    m_out, t_out = m_module(mg.tensor(idx)), t_module(torch.tensor(idx))
    assert_same(m_out, t_out)
    w = data(tuple(t_out.shape), "float64", 42)
    (m_out * mg.tensor(w, dtype=mg.float32)).sum().backward()
    (t_out * torch.tensor(w, dtype=torch.float32)).sum().backward()
    assert_grads([m_module.weight], [t_module.weight], rtol=1e-6)
    assert_same(F.one_hot(mg.tensor(idx), 6), TF.one_hot(torch.tensor(idx), 6))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("masks", ["none", "causal", "padding"])
def test_multihead_attention_parity(batch_first, masks):
    torch.manual_seed(0)
    t_module = tnn.MultiheadAttention(8, 2, batch_first=batch_first)
    m_module = nn.MultiheadAttention(8, 2, batch_first=batch_first)
    _copy_state(m_module, t_module)
    t_module.eval()
    m_module.eval()
    shape = (2, 5, 8) if batch_first else (5, 2, 8)
    mq, tq = pair(torch, data(shape, "float64", 43), "float32", requires_grad=True)
    kwargs_t, kwargs_m = {}, {}
    if masks == "causal":
        causal = np.triu(np.ones((5, 5), dtype=bool), 1)
        kwargs_t["attn_mask"], kwargs_m["attn_mask"] = torch.tensor(causal), mg.tensor(causal)
    elif masks == "padding":
        pad = np.array([[False] * 5, [False, False, False, True, True]])
        kwargs_t["key_padding_mask"] = torch.tensor(pad)
        kwargs_m["key_padding_mask"] = mg.tensor(pad)
    t_out, t_w = t_module(tq, tq, tq, **kwargs_t)
    m_out, m_w = m_module(mq, mq, mq, **kwargs_m)
    assert_same(m_out, t_out, rtol=1e-5, atol=1e-6)
    assert_same(m_w, t_w, rtol=1e-5, atol=1e-6)
    w = data(tuple(t_out.shape), "float64", 44)
    (m_out * mg.tensor(w, dtype=mg.float32)).sum().backward()
    (t_out * torch.tensor(w, dtype=torch.float32)).sum().backward()
    assert_grads([mq], [tq], rtol=1e-5, atol=1e-6)
    m_params = dict(m_module.named_parameters())
    for name, tp in t_module.named_parameters():
        # projection weight gradients sum 10 products of terms ~1 into values ~1e-2
        assert_grads([m_params[name]], [tp], rtol=1e-5, atol=1e-5)


def test_functional_forms_match():
    mx, tx = pair(torch, data((2, 3, 6, 6), "float64", 45), "float32")
    mw, tw = pair(torch, data((4, 3, 3, 3), "float64", 46), "float32")
    assert_same(F.conv2d(mx, mw, padding=1), TF.conv2d(tx, tw, padding=1), rtol=1e-5, atol=1e-6)
    assert_same(F.max_pool2d(mx, 2), TF.max_pool2d(tx, 2))
    assert_same(F.avg_pool2d(mx, 3, 1), TF.avg_pool2d(tx, 3, 1), rtol=1e-6)
    assert_same(F.pad(mx, (1, 2)), TF.pad(tx, (1, 2)))
    assert_same(F.pad(mx, (1, 0, 2, 1), value=0.5), TF.pad(tx, (1, 0, 2, 1), value=0.5))
    assert_same(F.layer_norm(mx, (6,)), TF.layer_norm(tx, (6,)), rtol=1e-5, atol=1e-6)
    assert_same(F.softmax(mx, dim=1), TF.softmax(tx, dim=1), rtol=2e-6)
    assert_same(F.log_softmax(mx, 1, dtype=mg.float64), TF.log_softmax(tx, 1, dtype=torch.float64))
    assert_same(
        F.linear(mx[0, 0, :, :3], mw[0, 0]), TF.linear(tx[0, 0, :, :3], tw[0, 0]), rtol=1e-6
    )
    assert_same(
        F.linear(mx[0, 0, :, :3], mw[0, :, 0].T, mw[0, 0, 0]),
        TF.linear(tx[0, 0, :, :3], tw[0, :, 0].T, tw[0, 0, 0]),
        rtol=1e-6,
    )


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3,)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),
    ((3,), (5, 3, 4)),
    ((5, 2, 3), (3,)),
    ((2, 1, 2, 3), (5, 3, 4)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES)
def test_matmul_shapes_values_gradients(sa, sb, dtype):
    ma, ta = pair(torch, data(sa, "float64", 47), dtype, requires_grad=True)
    mb, tb = pair(torch, data(sb, "float64", 48), dtype, requires_grad=True)
    m_out, t_out = ma @ mb, ta @ tb
    rtol = RTOL_ACC[dtype]
    assert_same(m_out, t_out, rtol=rtol, atol=1e-6)
    g = data(tuple(t_out.shape), "float64", 49)
    m_out.backward(mg.tensor(g, dtype=m_out.dtype))
    t_out.backward(torch.tensor(g, dtype=t_out.dtype))
    # Batch-broadcast gradients sum up to 10 products. PyTorch folds the batch into one
    # float32-accumulated product; minigenesis rounds each batch's product to float16/bfloat16
    # before the sum, so with cancellation the error is relative to the terms' magnitude.
    scale = max(float(ta.grad.abs().max()), float(tb.grad.abs().max()))
    atol = 1e-5 if dtype in ("float32", "float64") else rtol * scale
    assert_grads([ma, mb], [ta, tb], rtol=2 * rtol, atol=atol)
    assert_same(mg.matmul(ma, mb), torch.matmul(ta, tb), rtol=rtol, atol=1e-6)


def test_matmul_errors_and_mixed_dtypes_refused_as_torch():
    for sa, sb in [((2, 3), (4, 5)), ((3,), (4,)), ((), (3,)), ((2, 2, 3), (3, 3, 4))]:
        ma, ta = pair(torch, np.ones(sa), "float32")
        mb, tb = pair(torch, np.ones(sb), "float32")
        with pytest.raises(RuntimeError):
            ta @ tb
        with pytest.raises(RuntimeError, match="matmul"):  # PyTorch's type, naming the shapes
            ma @ mb
    # float32 @ float64: both refuse (matmul computes in one dtype)
    ma, ta = pair(torch, np.ones((2, 3)), "float32")
    mb, tb = pair(torch, np.ones((3, 2)), "float64")
    with pytest.raises(RuntimeError, match="same dtype, but got: float != double"):
        ta @ tb
    with pytest.raises(RuntimeError, match="same dtype, but got: float != double"):
        ma @ mb


def _net(L):
    class Net(L.nn.Module if L is torch else nn.Module):
        def __init__(self):
            super().__init__()
            lib = tnn if L is torch else nn
            self.b = lib.BatchNorm1d(3)
            self.l = lib.Linear(3, 2)
            self.seq = lib.Sequential(lib.Linear(2, 2), lib.ReLU())
            self.register_buffer("buf", L.zeros(1))
            self.register_buffer("scratch", L.zeros(1), persistent=False)

    return Net()


def test_module_api_orders_and_state_dict():
    t, m = _net(torch), _net(mg)
    assert list(m.state_dict()) == list(t.state_dict())
    for attr in ("named_parameters", "named_buffers", "named_modules", "named_children"):
        assert [n for n, _ in getattr(m, attr)()] == [n for n, _ in getattr(t, attr)()], attr
    assert sum(p.numel() for p in m.parameters()) == sum(p.numel() for p in t.parameters())
    m.eval()
    t.eval()
    assert [x.training for x in m.modules()] == [x.training for x in t.modules()]
    partial_t = {k: v for k, v in t.state_dict().items() if k != "buf"}
    partial_m = {k: v for k, v in m.state_dict().items() if k != "buf"}
    with pytest.raises(RuntimeError):
        t.load_state_dict(partial_t)
    with pytest.raises(RuntimeError):
        m.load_state_dict(partial_m)
    rt, rm = t.load_state_dict(partial_t, strict=False), m.load_state_dict(partial_m, strict=False)
    assert (rm.missing_keys, rm.unexpected_keys) == (rt.missing_keys, rt.unexpected_keys)
    t.requires_grad_(False)
    m.requires_grad_(False)
    assert [p.requires_grad for p in m.parameters()] == [p.requires_grad for p in t.parameters()]


def test_init_gains_and_fans():
    for name, param in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None)]:
        assert nn.init.calculate_gain(name, param) == tnn.init.calculate_gain(name, param)
    for name, param in [("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)]:
        assert nn.init.calculate_gain(name, param) == pytest.approx(
            tnn.init.calculate_gain(name, param), rel=1e-15
        )
    # the scale of each initialiser: the standard deviations of the two libraries' draws agree
    # within 4 standard errors of their difference (about 1/sqrt(n) relative for n draws), at
    # least 3%; bounded draws must also reach the same bound
    torch.manual_seed(0)
    mg.manual_seed(0)
    for fn, shape, kw in [
        ("xavier_uniform_", (300, 200), {}),
        ("xavier_normal_", (300, 200), {"gain": 2.0}),
        ("kaiming_uniform_", (300, 200), {"a": 5**0.5}),
        ("kaiming_normal_", (300, 200), {"mode": "fan_out", "nonlinearity": "relu"}),
        ("kaiming_uniform_", (64, 16, 3, 3), {"nonlinearity": "leaky_relu", "a": 0.1}),
        ("trunc_normal_", (300, 200), {"std": 2.0, "a": -1.0, "b": 3.0}),
        ("xavier_uniform_", (8, 4, 5, 5), {}),
    ]:
        t, m = torch.empty(*shape), mg.empty(*shape)
        getattr(tnn.init, fn)(t, **kw)
        getattr(nn.init, fn)(m, **kw)
        rel = max(0.03, 4 / t.numel() ** 0.5)
        assert float(m.numpy().std()) == pytest.approx(float(t.std()), rel=rel), fn
        if "uniform" in fn or "trunc" in fn:  # bounded draws: the same bound
            assert float(np.abs(m.numpy()).max()) == pytest.approx(float(t.abs().max()), rel=0.01)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_autocast_matches_torch_cpu_where_the_op_lists_agree(dtype):
    mx, tx = pair(torch, data((4, 8), "float64", 81), "float32", requires_grad=True)
    mw, tw = pair(torch, data((5, 8), "float64", 82), "float32", requires_grad=True)
    mb, tb = pair(torch, data((5,), "float64", 83), "float32", requires_grad=True)
    target = [0, 1, 2, 3]
    with mg.autocast(device_type="cpu", dtype=getattr(mg, dtype)):
        m_h = F.linear(mx, mw, mb)  # lowered: float32 accumulation, one rounding
        m_loss = F.cross_entropy(m_h.relu(), mg.tensor(target))  # float32
        m_soft = F.softmax(mx, -1)
    with torch.autocast("cpu", dtype=getattr(torch, dtype)):
        t_h = TF.linear(tx, tw, tb)
        t_loss = TF.cross_entropy(t_h.relu(), torch.tensor(target))
        t_soft = TF.softmax(tx, -1)
    assert_same(m_h, t_h, rtol=RTOL_ACC[dtype], atol=RTOL_ACC[dtype])
    assert_same(m_loss, t_loss, rtol=RTOL_ACC[dtype])
    assert_same(m_soft, t_soft, rtol=1e-6)
    m_loss.backward()
    t_loss.backward()
    # gradients flow back through the low-precision linear into float32 leaves
    assert_grads([mx, mw, mb], [tx, tw, tb], rtol=2 * RTOL_ACC[dtype], atol=RTOL_ACC[dtype])


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_autocast_softmax_of_a_low_precision_input_matches_torch_cpu(dtype):
    """PyTorch's CPU autocast lists no softmax: a 2-byte input gives a 2-byte softmax (computed
    in float32 inside the op, rounded once), forward and backward."""
    m, t = pair(torch, data((2, 3), "float64", 84), dtype, requires_grad=True)
    with mg.autocast(device_type="cpu", dtype=getattr(mg, dtype)):
        m_y = F.softmax(m, -1)
    with torch.autocast("cpu", dtype=getattr(torch, dtype)):
        t_y = TF.softmax(t, -1)
    assert m_y.dtype is getattr(mg, dtype) and t_y.dtype is getattr(torch, dtype)
    assert_same(m_y, t_y, rtol=RTOL_ACC[dtype], atol=RTOL_ACC[dtype])
    m_w, t_w = pair(torch, data((2, 3), "float64", 85), dtype)
    (m_y * m_w).sum().backward()
    (t_y * t_w).sum().backward()
    assert_grads([m], [t], rtol=2 * RTOL_ACC[dtype], atol=RTOL_ACC[dtype])


def test_sequential_editing_gives_pytorchs_state_dict_keys() -> None:
    def edits(lib) -> list:
        n = lib.nn
        m = n.Sequential(n.Linear(2, 3), n.ReLU(), n.Linear(3, 4), n.Tanh(), n.Linear(4, 1))
        del m[1]
        m.pop(-1)
        both = m + n.Sequential(n.Linear(4, 2))
        both += n.Sequential(n.BatchNorm1d(2))
        return [list(m.state_dict()), list(both.state_dict()), len(both * 2), len(3 * m)]

    assert edits(mg) == edits(torch)


def test_batchnorm_loading_without_its_counter_follows_pytorch() -> None:
    outcome = []
    for lib in (mg, torch):
        plain = {"weight": lib.ones(2), "bias": lib.zeros(2)}
        plain.update(running_mean=lib.zeros(2), running_var=lib.ones(2))
        bn = lib.nn.BatchNorm1d(2)
        result = bn.load_state_dict(plain)
        outcome.append((list(result.missing_keys), int(bn.num_batches_tracked)))
    assert outcome[0] == outcome[1] == ([], 0)
