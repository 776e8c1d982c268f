"""PyTorch as a second oracle for memory formats (strides and aliasing of to / contiguous /
clone / *_like), data_ptr offsets and storages, apply_/map_, to_empty, and the transformer
warnings."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigenesis as mg  # noqa: E402
from minigenesis import nn  # noqa: E402

FORMATS = ["contiguous_format", "channels_last", "preserve_format"]


def _inputs():
    """(name, make(lib)): the same layouts built in either library."""
    return {
        "contiguous": lambda lib: lib.ones(2, 3, 4, 5),
        "channels_last": lambda lib: lib.ones(2, 4, 5, 3).permute(0, 3, 1, 2),
        "transposed": lambda lib: lib.ones(2, 3, 5, 4).transpose(2, 3),
        "one_channel": lambda lib: lib.ones(2, 1, 4, 5),
        "gaps": lambda lib: lib.ones(2, 3, 4, 5)[:, :, ::2],
        "channels_last_gaps": lambda lib: lib.ones(2, 4, 5, 3).permute(0, 3, 1, 2)[:, :, ::2],
        "one_pixel": lambda lib: lib.ones(2, 3, 1, 1),
    }.items()


@pytest.mark.parametrize(("name", "make"), _inputs())
@pytest.mark.parametrize("fmt", FORMATS)
def test_to_clone_and_like_strides_and_aliasing_match_pytorch(name, make, fmt):
    t, m = make(torch), make(mg)
    tf, mf = getattr(torch, fmt), getattr(mg, fmt)
    assert m.stride() == t.stride()
    assert (m.to(memory_format=mf) is m) == (t.to(memory_format=tf) is t)
    assert m.to(memory_format=mf).stride() == t.to(memory_format=tf).stride()
    assert m.clone(memory_format=mf).stride() == t.clone(memory_format=tf).stride()
    for like in ("empty_like", "zeros_like", "ones_like", "randn_like"):
        got = getattr(mg, like)(m, memory_format=mf).stride()
        assert got == getattr(torch, like)(t, memory_format=tf).stride(), like
    for f in ("contiguous_format", "channels_last"):
        tf2, mf2 = getattr(torch, f), getattr(mg, f)
        assert m.is_contiguous(memory_format=mf2) == t.is_contiguous(memory_format=tf2)
        assert (m.contiguous(memory_format=mf2) is m) == (t.contiguous(memory_format=tf2) is t)
        assert m.contiguous(memory_format=mf2).stride() == t.contiguous(memory_format=tf2).stride()


@pytest.mark.parametrize(("name", "make"), _inputs())
def test_elementwise_results_keep_the_layout_pytorch_keeps(name, make):
    t, m = make(torch), make(mg)
    if name in ("gaps", "channels_last_gaps"):
        pytest.skip("TensorIterator's layout for gapped inputs is not modelled")
    for op in (lambda a: a + 1, lambda a: a * a, lambda a: a.exp(), lambda a: a.to(float)):
        assert op(m).stride() == op(t).stride()


def test_channels_last_3d_matches_pytorch():
    t, m = torch.ones(2, 3, 4, 5, 6), mg.ones(2, 3, 4, 5, 6)
    tc = t.to(memory_format=torch.channels_last_3d)
    mc = m.to(memory_format=mg.channels_last_3d)
    assert mc.stride() == tc.stride() and mc.clone().stride() == tc.clone().stride()


def test_conv_on_channels_last_matches_pytorch_values():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 3, 7, 7)), rng.standard_normal((4, 3, 3, 3))
    tx = torch.tensor(x).to(memory_format=torch.channels_last)
    mx = mg.tensor(x).to(memory_format=mg.channels_last)
    want = torch.nn.functional.conv2d(tx, torch.tensor(w), padding=1).numpy()
    got = mg.nn.functional.conv2d(mx, mg.tensor(w), padding=1).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_data_ptr_offsets_and_storage_sizes_match_pytorch():
    t, m = torch.zeros(4, 6, dtype=torch.float64), mg.zeros(4, 6, dtype=mg.float64)
    for index in (1, (slice(1, None), 2), (slice(None), slice(3, None)), (2, slice(1, 4))):
        assert m[index].data_ptr() - m.data_ptr() == t[index].data_ptr() - t.data_ptr()
        assert m[index].storage_offset() == t[index].storage_offset()
        ts, ms = t[index].untyped_storage(), m[index].untyped_storage()
        assert ms.nbytes() == ts.nbytes() and ms.size() == ts.size()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert m.storage().size() == t.storage().size() == 24


def test_apply_and_map_match_pytorch():
    t, m = torch.arange(6.0).reshape(2, 3).t(), mg.arange(6.0).reshape(2, 3).t()
    fn = lambda v: v * v - 1  # noqa: E731
    np.testing.assert_array_equal(m.apply_(fn).numpy(), t.apply_(fn).numpy())
    other_t, other_m = torch.tensor([1.0, 2.0]), mg.tensor([1.0, 2.0])
    both = lambda a, b: a / b  # noqa: E731
    np.testing.assert_array_equal(m.map_(other_m, both).numpy(), t.map_(other_t, both).numpy())


def test_to_empty_keeps_the_same_tensors_pytorch_keeps():
    for lib in (torch, mg):
        model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        weight, running = model[0].weight, model[1].running_mean
        model[0].weight.grad = lib.ones(3, 2)
        assert model.to_empty(device="cpu") is model
        assert model[0].weight is weight and model[0].weight.grad is not None
        assert model[1].running_mean.shape == running.shape


def _warned(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught if w.category is UserWarning]


@pytest.mark.parametrize(
    "kw",
    [{}, {"batch_first": True}, {"batch_first": True, "norm_first": True},
     {"batch_first": True, "nhead": 1}, {"batch_first": True, "bias": False}],
)  # fmt: skip
def test_encoder_nested_tensor_warnings_match_pytorch(kw):
    args = {"d_model": 4, "nhead": 2, "dim_feedforward": 8} | kw
    t_layer, m_layer = torch.nn.TransformerEncoderLayer(**args), nn.TransformerEncoderLayer(**args)
    t_msgs = _warned(lambda: torch.nn.TransformerEncoder(t_layer, 2))
    assert _warned(lambda: nn.TransformerEncoder(m_layer, 2)) == t_msgs


def _mask_warnings(lib, x, pad):
    """The warnings of MultiheadAttention, an encoder layer, an encoder and a Transformer given
    a float causal mask beside a bool key padding mask."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layer = lib.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True)
        enc = lib.nn.TransformerEncoder(layer, 2)
        full = lib.nn.Transformer(4, 2, 1, 2, 8, batch_first=True)
    xs, mask = lib.tensor(x), lib.nn.Transformer.generate_square_subsequent_mask(5)
    kpm = lib.tensor(pad)
    both = {"src_key_padding_mask": kpm, "tgt_key_padding_mask": kpm}
    return [
        _warned(lambda: layer.self_attn(xs, xs, xs, attn_mask=mask, key_padding_mask=kpm)),
        _warned(lambda: layer(xs, src_mask=mask, src_key_padding_mask=kpm)),
        _warned(lambda: enc(xs, mask=mask, src_key_padding_mask=kpm)),
        _warned(lambda: full(xs, xs, src_mask=mask, tgt_mask=mask, **both)),
    ]


def test_mismatched_mask_warnings_match_pytorch():
    x = np.random.default_rng(1).standard_normal((2, 5, 4)).astype(np.float32)
    pad = [[False] * 5, [False, False, False, True, True]]
    got = _mask_warnings(mg, x, pad)
    assert got == _mask_warnings(torch, x, pad)
    assert [len(w) for w in got] == [1, 1, 1, 3]  # Transformer: encoder, 2 decoder layers


VIEWS_FOR_AS_STRIDED = {
    "rows": lambda t: (t * 2)[1:],
    "transposed": lambda t: (t * 2).t(),
    "columns": lambda t: (t * 2)[:, 1:],
    "expanded": lambda t: t[1].expand(3, 5),
}


@pytest.mark.parametrize("view", sorted(VIEWS_FOR_AS_STRIDED))
@pytest.mark.parametrize("offset", [None, 0, 3])
def test_as_strided_of_views_matches_pytorch_values_offsets_and_gradients(view, offset):
    data = np.random.default_rng(3).normal(size=(4, 5))
    results = []
    for lib in (torch, mg):
        x = lib.tensor(data, requires_grad=True)
        y = VIEWS_FOR_AS_STRIDED[view](x).as_strided((3, 2), (2, 1), offset)
        (y * y).sum().backward()
        results.append((y.detach().numpy(), y.storage_offset(), x.grad.numpy()))
    (ty, t_off, tg), (my, m_off, mgrad) = results
    assert m_off == t_off
    np.testing.assert_allclose(my, ty, rtol=1e-15)
    np.testing.assert_allclose(mgrad, tg, rtol=1e-15)
