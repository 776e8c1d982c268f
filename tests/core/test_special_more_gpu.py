"""The new mg.special functions and F.fractional_max_pool2d / F.pdist on a GPU tensor: the same
values as on the CPU (run on the CuPy stand-in by tests/core/test_cuda_standin.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
import minigenesis.special as S

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)

X = np.array([-30.0, -3.5, -0.2, 0.0, 1e-6, 0.7, 4.0, 26.0, 300.0])
POSITIVE = np.abs(X) + 0.1


@pytest.mark.parametrize(
    ("name", "values"),
    [("bessel_j0", X), ("bessel_y1", POSITIVE), ("modified_bessel_k1", POSITIVE),
     ("scaled_modified_bessel_k0", POSITIVE), ("airy_ai", X), ("spherical_bessel_j0", X),
     ("modified_bessel_i0", X)],
)  # fmt: skip
def test_bessel_functions_on_the_gpu_match_the_cpu(name: str, values: np.ndarray) -> None:
    cpu = getattr(S, name)(mg.tensor(values))
    gpu = getattr(S, name)(mg.tensor(values, device="cuda"))
    assert gpu.device.type == "cuda"
    assert np.allclose(gpu.cpu().numpy(), cpu.numpy(), rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize(
    "name", ["gammainc", "zeta", "chebyshev_polynomial_u", "laguerre_polynomial_l"]
)
def test_binary_special_functions_on_the_gpu_match_the_cpu(name: str) -> None:
    a, b = np.array([1.5, 2.0, 4.0]), np.array([0.5, 3.0, 7.0])
    cpu = getattr(S, name)(mg.tensor(a), mg.tensor(b))
    gpu = getattr(S, name)(mg.tensor(a, device="cuda"), mg.tensor(b, device="cuda"))
    assert np.allclose(gpu.cpu().numpy(), cpu.numpy(), rtol=1e-6)


def test_fractional_max_pool_and_pdist_on_the_gpu_match_the_cpu() -> None:
    x = np.random.default_rng(0).normal(size=(2, 3, 9, 9)).astype(np.float32)
    u = np.random.default_rng(1).random((2, 3, 2)).astype(np.float32)
    out = {}
    for dev in ("cpu", "cuda"):
        t = mg.tensor(x, device=dev, requires_grad=True)
        y, i = F.fractional_max_pool2d(t, 2, (4, 5), return_indices=True,
                                       _random_samples=mg.tensor(u, device=dev))  # fmt: skip
        (y * y).sum().backward()
        d = F.pdist(mg.tensor(x[0, 0], device=dev))
        out[dev] = (
            y.detach().cpu().numpy(),
            i.cpu().numpy(),
            t.grad.cpu().numpy(),
            d.cpu().numpy(),
        )
    for a, b in zip(out["cpu"], out["cuda"]):
        assert np.allclose(a, b, rtol=1e-6)


def test_gammainc_for_large_a_on_the_gpu_matches_the_cpu() -> None:
    """Temme's band and the large-a prefactor (erfcx, log1pmx) on device arrays, and d/dx."""
    a, x = np.array([30.0, 1e8, 1e12, 50.0]), np.array([28.0, 1e8, 1e12 + 3e6, 120.0])
    out = {}
    for dev in ("cpu", "cuda"):
        xt = mg.tensor(x, device=dev, requires_grad=True)
        y = S.gammaincc(mg.tensor(a, device=dev), xt)
        y.sum().backward()
        out[dev] = (y.detach().cpu().numpy(), xt.grad.cpu().numpy())
    np.testing.assert_allclose(out["cuda"][0], out["cpu"][0], rtol=1e-12)
    np.testing.assert_allclose(out["cuda"][1], out["cpu"][1], rtol=1e-12)
