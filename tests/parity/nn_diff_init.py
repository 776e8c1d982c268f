"""nn.init against PyTorch, statistically: each random initialiser configuration (shape, mode,
nonlinearity, a, gain, bounds) draws a large tensor in both libraries; the two samples must come
from the same distribution (two-sample Kolmogorov-Smirnov statistic below its 1e-4 critical
value), with the same support (bounds) and the same moments. The deterministic ones (gains, fans,
eye_, dirac_, constant_, orthogonal_'s W W^T, sparse_'s zero count) must agree exactly."""

from __future__ import annotations

import math

import numpy as np
import torch

import minigenesis as mg

# c(alpha) of the two-sample KS test at alpha = 1e-4: D > c sqrt((n + m) / (n m)) rejects
KS_C = math.sqrt(-0.5 * math.log(1e-4 / 2))


def ks_statistic(a: np.ndarray, b: np.ndarray) -> float:
    """max |F_a(x) - F_b(x)| of the two empirical distribution functions."""
    a, b = np.sort(a.ravel()), np.sort(b.ravel())
    grid = np.concatenate([a, b])
    fa = np.searchsorted(a, grid, side="right") / a.size
    fb = np.searchsorted(b, grid, side="right") / b.size
    return float(np.max(np.abs(fa - fb)))


def _shape(rng: np.random.Generator) -> tuple:
    """A weight shape of 2 to 4 dims with about 20,000 entries."""
    nd = int(rng.integers(2, 5))
    fan = [int(rng.integers(2, 40)) for _ in range(nd - 1)]
    return (max(20000 // math.prod(fan), 2), *fan)


def draw_config(rng: np.random.Generator) -> tuple:
    """(name, kwargs, shape) of one random initialiser call."""
    shape = _shape(rng)
    name = str(rng.choice(["uniform_", "normal_", "trunc_normal_", "xavier_uniform_",
                           "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]))  # fmt: skip
    kw: dict = {}
    if name == "uniform_":
        lo = float(rng.uniform(-2, 1))
        kw = {"a": lo, "b": lo + float(rng.uniform(0.1, 3))}
    elif name == "normal_":
        kw = {"mean": float(rng.uniform(-1, 1)), "std": float(rng.uniform(0.1, 2))}
    elif name == "trunc_normal_":
        mean, std = float(rng.uniform(-1, 1)), float(rng.uniform(0.2, 2))
        kw = {"mean": mean, "std": std, "a": mean - float(rng.uniform(0.1, 3)) * std,
              "b": mean + float(rng.uniform(0.1, 3)) * std}  # fmt: skip
    elif name.startswith("xavier"):
        kw = {"gain": float(rng.choice([1.0, 0.5, math.sqrt(2)]))}
    else:
        kw = {
            "a": float(rng.choice([0.0, 0.01, math.sqrt(5)])),
            "mode": str(rng.choice(["fan_in", "fan_out"])),
            "nonlinearity": str(rng.choice(["relu", "leaky_relu", "tanh", "linear", "selu"])),
        }
    return name, kw, shape


def compare_config(name: str, kw: dict, shape: tuple, seed: int) -> list:
    """Findings of one initialiser configuration (empty when the samples agree)."""
    torch.manual_seed(seed)
    mg.manual_seed(seed)
    t = torch.empty(shape, dtype=torch.float64)
    m = mg.empty(*shape, dtype=mg.float64)
    getattr(torch.nn.init, name)(t, **kw)
    getattr(mg.nn.init, name)(m, **kw)
    a, b = m.numpy(), t.numpy()
    found = []
    n = a.size
    d = ks_statistic(a, b)
    if d > KS_C * math.sqrt(2 / n):
        found.append(f"KS statistic {d:.4f} > {KS_C * math.sqrt(2 / n):.4f}")
    bounded = name in ("uniform_", "trunc_normal_", "xavier_uniform_", "kaiming_uniform_")
    margin = 0.01 * (b.max() - b.min())  # a sample's extremes come within 1% of the bounds
    if bounded and (a.min() < b.min() - margin or a.max() > b.max() + margin):
        found.append(f"support: ours [{a.min():.4g}, {a.max():.4g}], torch's "
                     f"[{b.min():.4g}, {b.max():.4g}]")  # fmt: skip
    if abs(a.std() / b.std() - 1) > 0.05:
        found.append(f"std: ours {a.std():.4g}, torch {b.std():.4g}")
    return found


def deterministic_findings() -> list:
    """Gains, fans and the deterministic initialisers, compared exactly."""
    found = []
    for nl in ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"]:  # fmt: skip
        for param in [None, 0.2, 0] if nl == "leaky_relu" else [None]:
            ours, theirs = (
                mg.nn.init.calculate_gain(nl, param),
                torch.nn.init.calculate_gain(nl, param),
            )
            if not math.isclose(ours, theirs, rel_tol=1e-12):
                found.append(f"calculate_gain({nl!r}, {param}): ours {ours}, torch {theirs}")
    for shape in [(3, 4), (5, 2, 3), (4, 6, 2, 2), (2, 3, 1, 2, 3)]:
        ours = mg.nn.init.calculate_fan_in_and_fan_out(mg.empty(*shape))
        theirs = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
        if tuple(ours) != tuple(theirs):
            found.append(f"fans of {shape}: ours {ours}, torch {theirs}")
    for shape, groups in [((4, 4, 3), 1), ((6, 2, 3, 3), 2), ((4, 2, 3, 3, 3), 2), ((2, 5, 3), 1)]:
        m, t = mg.empty(*shape), torch.empty(shape)
        mg.nn.init.dirac_(m, groups)
        torch.nn.init.dirac_(t, groups)
        if not np.array_equal(m.numpy(), t.numpy()):
            found.append(f"dirac_{shape}, groups={groups} differs")
    for shape in [(3, 5), (4, 2), (3, 3)]:
        m, t = mg.empty(*shape), torch.empty(shape)
        if not np.array_equal(mg.nn.init.eye_(m).numpy(), torch.nn.init.eye_(t).numpy()):
            found.append(f"eye_{shape} differs")
    for shape, gain in [((3, 7), 1.0), ((7, 3), 2.0), ((4, 2, 3), 0.5)]:
        w = mg.nn.init.orthogonal_(mg.empty(*shape, dtype=mg.float64), gain).numpy()
        w = w.reshape(shape[0], -1)
        small = w @ w.T if shape[0] <= w.shape[1] else w.T @ w
        if not np.allclose(small, gain**2 * np.eye(small.shape[0]), atol=1e-10):
            found.append(f"orthogonal_{shape} with gain {gain}: W W^T != gain^2 I")
    for shape, sparsity in [((10, 4), 0.3), ((7, 3), 0.5)]:
        w = mg.nn.init.sparse_(mg.empty(*shape), sparsity).numpy()
        zeros = (w == 0).sum(0)
        if not (zeros == math.ceil(sparsity * shape[0])).all():
            found.append(f"sparse_{shape}, {sparsity}: zeros per column {zeros}")
    return found
