"""nn.utils.convert_conv2d_weight_memory_format / convert_conv3d_weight_memory_format: every
(transposed) convolution's weight, however deep in the model, laid out in the memory format,
with the same values, the same Parameter object, and the same outputs."""

from __future__ import annotations

import numpy as np

import minigenesis as mg
from minigenesis import nn


def test_conv2d_weights_anywhere_in_the_model_become_channels_last() -> None:
    mg.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Sequential(nn.ConvTranspose2d(4, 2, 3)), nn.Flatten()
    )
    weights = [model[0].weight, model[2][0].weight]
    before = [w.detach().numpy().copy() for w in weights]
    x = mg.randn(2, 3, 6, 6)
    out_before = model(x).detach().numpy()
    assert nn.utils.convert_conv2d_weight_memory_format(model, mg.channels_last) is model
    for w, old in zip([model[0].weight, model[2][0].weight], before):
        assert w.is_contiguous(memory_format=mg.channels_last) and not w.is_contiguous()
        np.testing.assert_array_equal(w.detach().numpy(), old)
    assert model[0].weight is weights[0]  # the Parameter an optimizer holds is kept
    np.testing.assert_allclose(model(x).detach().numpy(), out_before, rtol=1e-6, atol=1e-6)


def test_conv3d_weights_become_channels_last_3d() -> None:
    model = nn.Sequential(nn.Conv3d(2, 3, 2), nn.Conv2d(3, 3, 1))
    nn.utils.convert_conv3d_weight_memory_format(model, mg.channels_last_3d)
    assert model[0].weight.is_contiguous(memory_format=mg.channels_last_3d)
    assert model[1].weight.is_contiguous()  # a Conv2d is left as it was
