"""PyTorch parity: uint8 bilinear resizing equals PyTorch's byte kernel exactly."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(2, 3, 7, 9), (1, 1, 4, 4), (1, 2, 13, 5)])
def test_bilinear_bytes_match_pytorch_exactly(shape) -> None:
    img = np.random.default_rng(0).integers(0, 256, shape, dtype=np.uint8)
    for kwargs in [{"size": (3, 3)}, {"size": (14, 18)}, {"size": (26, 10)},
                   {"scale_factor": 0.5}, {"scale_factor": 1.7}]:  # fmt: skip
        for align_corners in (False, True):
            ours = mg.nn.functional.interpolate(
                mg.tensor(img), mode="bilinear", align_corners=align_corners, **kwargs
            )
            theirs = torch.nn.functional.interpolate(
                torch.tensor(img), mode="bilinear", align_corners=align_corners, **kwargs
            )
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_area_on_3d_input_matches_pytorch() -> None:
    x = np.random.default_rng(2).standard_normal((2, 3, 7))
    for size in (2, 5, 7, 11):
        ours = mg.nn.functional.interpolate(mg.tensor(x), size=size, mode="area")
        theirs = torch.nn.functional.interpolate(torch.tensor(x), size=size, mode="area")
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
