"""Host-device synchronisations per training step, counted on the CuPy stand-in.

Every read of device data by the host (``.item()``, ``float()``, ``bool()`` of a device array, a
copy to NumPy) makes a real GPU wait for its queue. PyTorch's budget for a mixed-precision step is
one: GradScaler.step reading "was any gradient inf/NaN?". The ops themselves read nothing.
Only the stand-in can count, so these tests run on it (``gpu``-marked, skipped on a real GPU).
"""

from __future__ import annotations

import pytest

import minigenesis as mg
from minigenesis import backend, nn
from minigenesis.amp import GradScaler
from minigenesis.backend import cupy_module

pytestmark = pytest.mark.gpu

if not hasattr(cupy_module(), "counting_host_reads"):
    pytest.skip("counting host reads needs the CuPy stand-in", allow_module_level=True)


def _reads(fn) -> dict:
    with cupy_module().counting_host_reads():
        fn()
    last = cupy_module().counting_host_reads.last
    return {"count": last.count, **last.by_kind}


def _setup(loss_fn):
    mg.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(8, 16), nn.GELU(), nn.LayerNorm(16), nn.Dropout(0.1), nn.Linear(16, 3)
    ).cuda()
    opt = mg.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler()
    x = mg.randn(32, 8, device="cuda")

    def step():
        opt.zero_grad()
        with mg.autocast("cuda", dtype=mg.float16):
            loss = loss_fn(model(x))
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()

    step()  # the first step creates the optimizer state
    return step


def test_ops_forward_and_backward_read_nothing_from_the_device():
    x = mg.randn(16, 8, device="cuda", requires_grad=True)
    w = mg.randn(8, 4, device="cuda", requires_grad=True)

    def run():
        y = (x @ w).tanh().softmax(-1).log()
        loss = (y * y).mean() + x.abs().max() + w.norm()
        loss.backward()

    assert _reads(run)["count"] == 0


def test_a_mixed_precision_step_reads_once_as_pytorch_does():
    target = mg.randn(32, 3, device="cuda")
    step = _setup(lambda out: nn.functional.mse_loss(out.float(), target))
    assert _reads(step) == {"count": 1, "float": 1}  # GradScaler.step's inf check


def test_cross_entropy_adds_no_read_for_its_target_range_check():
    # PyTorch checks class indices inside the kernel (an asynchronous device assert); here the
    # range check's verdict waits on the device for the next host read: the step still reads once
    target = mg.randint(0, 3, (32,), device="cuda")
    step = _setup(lambda out: nn.functional.cross_entropy(out.float(), target))
    assert _reads(step) == {"count": 1, "float": 1}
    assert backend._device_asserts  # queued, read with the next .item() or synchronize
    mg.cuda.synchronize()
    assert not backend._device_asserts


def test_maximum_minimum_and_logaddexp_read_nothing_from_the_device():
    x = mg.randn(16, 8, device="cuda", requires_grad=True)
    y = mg.randn(16, 8, device="cuda", requires_grad=True)

    def run():
        loss = mg.maximum(x, y).sum() + mg.minimum(x, y).sum() + mg.logaddexp(x, y).sum()
        loss = loss + mg.fmax(x, y).sum() + mg.logaddexp2(x, y).sum()
        loss.backward()

    assert _reads(run)["count"] == 0
