"""TransformerEncoder's inference path for padded batches (PyTorch's nested tensors): in eval
mode with no gradient to record, a batch_first src, a key padding mask that pads only the ends
of the rows and no attention mask, each sequence is run at its own length, so the kept
positions hold the masked computation's values and the padded positions come out 0 (then
``norm``, if given, is applied to those zeros). Anywhere else the ordinary masked computation
is returned at every position."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn

PAD = np.array([[False, False, True, True], [False, False, False, True]])


def _encoder(norm: bool = False, heads: int = 2, batch_first: bool = True) -> nn.Module:
    mg.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's warning where the layer rules nesting out
        layer = nn.TransformerEncoderLayer(8, heads, 16, dropout=0.0, batch_first=batch_first)
        enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8) if norm else None)
    rng = np.random.default_rng(1)
    state = {
        k: mg.tensor(rng.standard_normal(tuple(v.shape)) * 0.3) for k, v in enc.state_dict().items()
    }
    enc.load_state_dict(state)
    return enc.double().eval()


def _src() -> mg.Tensor:
    return mg.tensor(np.random.default_rng(0).standard_normal((2, 4, 8)))


def _masked_path(enc: nn.Module, pad: np.ndarray) -> np.ndarray:
    """The ordinary computation: gradients recorded, so PyTorch takes no nested path."""
    return enc(_src().requires_grad_(), src_key_padding_mask=mg.tensor(pad)).detach().numpy()


@pytest.mark.parametrize("float_mask", [False, True])
def test_inference_zeroes_the_padded_positions_and_keeps_the_others(float_mask: bool) -> None:
    enc = _encoder()
    reference = _masked_path(enc, PAD)
    mask = mg.tensor(np.where(PAD, -np.inf, 0.0)) if float_mask else mg.tensor(PAD)
    with mg.no_grad():
        out = enc(_src(), src_key_padding_mask=mask).numpy()
    np.testing.assert_array_equal(out[PAD], 0.0)
    np.testing.assert_allclose(out[~PAD], reference[~PAD], rtol=1e-12, atol=1e-12)
    assert np.abs(reference[PAD]).min() > 0  # the ordinary path computes values there


def test_inference_applies_the_final_norm_to_the_zeroed_positions() -> None:
    enc = _encoder(norm=True)
    with mg.no_grad():
        out = enc(_src(), src_key_padding_mask=mg.tensor(PAD)).numpy()
    # LayerNorm of a zero row is its bias
    np.testing.assert_allclose(out[PAD], np.broadcast_to(enc.norm.bias.detach().numpy(), (3, 8)))


def test_a_fully_padded_row_comes_out_zero_in_inference() -> None:
    pad = np.array([[False, False, True, True], [True, True, True, True]])
    with mg.no_grad():
        out = _encoder()(_src(), src_key_padding_mask=mg.tensor(pad)).numpy()
    np.testing.assert_array_equal(out[1], 0.0)
    assert np.isfinite(out).all()


@pytest.mark.parametrize("case", ["grad", "train", "odd heads", "not left-aligned", "src mask"])
def test_outside_inference_of_a_nestable_layer_every_position_is_computed(case: str) -> None:
    enc = _encoder(heads=1 if case == "odd heads" else 2)
    pad = np.array([[False, True, False, True], [False, False, False, True]])
    pad = pad if case == "not left-aligned" else PAD
    reference = _masked_path(enc, pad)
    kwargs = {"src_key_padding_mask": mg.tensor(pad)}
    if case == "src mask":
        kwargs["mask"] = mg.zeros(4, 4, dtype=mg.float64)
    if case == "train":
        enc.train()
    with mg.set_grad_enabled(case == "grad"):
        out = enc(_src().requires_grad_(case == "grad"), **kwargs).detach().numpy()
    np.testing.assert_allclose(out, reference, rtol=1e-12, atol=1e-12)
