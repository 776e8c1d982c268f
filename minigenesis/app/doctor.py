"""``python -m minigenesis doctor``: what this machine runs minigenesis on, and whether the devices
agree.

It prints the versions (Python, NumPy, ml_dtypes, CuPy and CUDA), the GPU if one is usable, then
checks a matmul in float32, float16 and bfloat16 on each device against a float64 reference, and
one small training step (forward, backward, SGD update) on the CPU and on the GPU from the same
weights: the GPU's loss and updated weights must match the CPU's. Exit status 0 when every check
passes (or only the CPU is there), 1 when one fails.
"""

from __future__ import annotations

import platform
from collections.abc import Callable

import ml_dtypes
import numpy as np

import minigenesis as mg

from .. import nn
from ..backend import cupy_module

# Relative error allowed against the float64 product: float32 rounding over a 64-term sum, and
# the output's own rounding for the 2-byte formats (2^-11 for float16, 2^-8 for bfloat16).
MATMUL_TOLERANCE = {"float32": 1e-5, "float16": 2e-3, "bfloat16": 1.6e-2}
STEP_TOLERANCE = 1e-5  # float32 training step, CPU against GPU


def versions() -> list[tuple[str, str]]:
    """(name, version) for Python, NumPy, ml_dtypes, CuPy and the CUDA runtime and driver."""
    rows = [
        ("Python", platform.python_version()),
        ("NumPy", np.__version__),
        ("ml_dtypes", ml_dtypes.__version__),
    ]
    cp = cupy_module()
    if cp is None:
        return rows + [("CuPy", 'not installed (pip install -e ".[gpu]" in the repository)')]
    stand_in = "" if cp.__name__ == "cupy" else f" (the stand-in {cp.__name__})"
    rows.append(("CuPy", f"{cp.__version__}{stand_in}"))
    try:
        runtime = cp.cuda.runtime.runtimeGetVersion()
        driver = cp.cuda.runtime.driverGetVersion()
        rows.append(("CUDA", f"runtime {_cuda_version(runtime)}, driver {_cuda_version(driver)}"))
    except Exception as err:  # CuPy without its CUDA libraries or driver
        rows.append(("CUDA", f"unusable ({err})"))
    return rows


def _cuda_version(v: int) -> str:
    return f"{v // 1000}.{v % 1000 // 10}"


def device_line() -> str:
    """The GPU minigenesis would use for "cuda", or why there is none."""
    if not mg.cuda.is_available():
        return "cpu only (no usable GPU)"
    cp = cupy_module()
    count = mg.cuda.device_count()
    try:
        props = cp.cuda.runtime.getDeviceProperties(0)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    except Exception:  # an older CuPy, or a stand-in without properties
        name = "CUDA device"
    return f"cuda:0 {name} ({count} device{'s' if count != 1 else ''})"


def matmul_error(dtype: mg.dtype, device: str, seed: int = 0) -> float:
    """Max relative error of a 64x64 @ 64x32 matmul in ``dtype`` on ``device``, against float64
    over the same (already rounded) inputs."""
    rng = np.random.default_rng(seed)
    a = mg.tensor(rng.standard_normal((64, 64)), dtype=mg.float32).to(dtype)
    b = mg.tensor(rng.standard_normal((64, 32)), dtype=mg.float32).to(dtype)
    ref = a.double().numpy() @ b.double().numpy()
    got = (a.to(device) @ b.to(device)).double().cpu().numpy()
    return float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))


def training_step(device: str) -> tuple[float, list[np.ndarray]]:
    """Loss and updated weights after one SGD step of a small MLP from fixed weights."""
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))  # weights made on CPU
    model.to(device)
    rng = np.random.default_rng(1)
    x = mg.tensor(rng.standard_normal((32, 8)), dtype=mg.float32, device=device)
    y = mg.tensor(rng.integers(0, 3, 32), device=device)
    opt = mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.item(), [p.detach().cpu().numpy() for p in model.parameters()]


def checks() -> list[tuple[str, bool, str]]:
    """(what, passed, detail) for each check; the GPU ones only where a GPU is usable."""
    devices = ["cpu"] + (["cuda"] if mg.cuda.is_available() else [])
    out: list[tuple[str, bool, str]] = []
    for device in devices:
        for name, tol in MATMUL_TOLERANCE.items():
            err = matmul_error(getattr(mg, name), device)
            out.append((f"matmul {name:<8} on {device}", err <= tol, f"rel. error {err:.1e}"))
    cpu_loss, cpu_w = training_step("cpu")
    out.append(("training step on cpu", np.isfinite(cpu_loss), f"loss {cpu_loss:.6f}"))
    if "cuda" in devices:
        gpu_loss, gpu_w = training_step("cuda")
        diff = max(
            [abs(gpu_loss - cpu_loss)]
            + [float(np.max(np.abs(g - c))) for g, c in zip(gpu_w, cpu_w)]
        )
        out.append(
            ("training step cuda vs cpu", diff <= STEP_TOLERANCE, f"max difference {diff:.1e}")
        )
    return out


def run(echo: Callable[[str], None] = print) -> int:
    """Print the report; 0 when every check passed, 1 otherwise."""
    for name, version in versions():
        echo(f"{name:<10} {version}")
    echo(f"{'device':<10} {device_line()}")
    failed = 0
    for what, ok, detail in checks():
        failed += not ok
        echo(f"{'ok  ' if ok else 'FAIL'} {what:<28} {detail}")
    echo("all checks passed" if not failed else f"{failed} check(s) failed")
    return 0 if not failed else 1
