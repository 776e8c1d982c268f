"""autocast and GradScaler on CuPy arrays (skipped without CuPy and a CUDA device)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.amp import GradScaler

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)


def test_autocast_defaults_to_float16_on_cuda_and_keeps_cpu_ops_apart():
    x, w = mg.randn(8, 16, device="cuda"), mg.randn(16, 4, device="cuda", requires_grad=True)
    with mg.autocast():
        y = x @ w
        assert y.dtype is mg.float16
        assert y.softmax(-1).dtype is mg.float32
        assert (mg.randn(2, 3) @ mg.randn(3, 2)).dtype is mg.bfloat16  # a CPU op: bf16
    with mg.autocast("cpu"):
        assert (x @ w).dtype is mg.float32  # autocast("cpu") leaves CUDA ops alone
    with mg.autocast():
        loss = (x @ w).float().sum()
    loss.backward()
    assert w.grad.dtype is mg.float32 and w.grad.is_cuda
    ref = x.cpu().numpy().sum(0)[:, None] * np.ones((1, 4), np.float32)
    np.testing.assert_allclose(w.grad.cpu().numpy(), ref, rtol=2e-2, atol=2e-2)


def test_grad_scaler_on_cuda_follows_the_cpu_trajectory():
    def run(device):
        w = mg.zeros(3, device=device, requires_grad=True)
        opt = mg.optim.SGD([w], lr=0.1)
        scaler = GradScaler(init_scale=8.0, growth_interval=2)
        scales = []
        for i in range(8):
            opt.zero_grad()
            d = np.array([1.0, -2.0, 0.5], np.float32)
            if i in (2, 5):
                d[1] = np.inf
            scaler.scale((w * mg.tensor(d, device=device)).sum()).backward()
            scaler.step(opt)
            scaler.update()
            scales.append(scaler.get_scale())
        return scales, w.detach().cpu().numpy()

    cpu_scales, cpu_w = run("cpu")
    gpu_scales, gpu_w = run("cuda")
    assert gpu_scales == cpu_scales == [8, 16, 8, 8, 16, 8, 8, 16]
    np.testing.assert_allclose(gpu_w, cpu_w, rtol=1e-6)


def _scaler_steps(device, kernel_names=None):
    """Three GradScaler steps over float32 and float64 parameters in two groups (an inf and a NaN
    in the second step's gradients): the gradients after unscale_, scales, growth trackers and
    parameters; and the inf flags."""
    from minigenesis.backend import cupy_module

    rng = np.random.default_rng(0)
    specs = [((4, 3), np.float32), ((3,), np.float32), ((2, 2), np.float64), ((), np.float32)]
    params = [
        mg.tensor(rng.standard_normal(s).astype(t), device=device, requires_grad=True)
        for s, t in specs
    ]
    opt = mg.optim.SGD([{"params": params[:2]}, {"params": params[2:], "lr": 0.5}], lr=0.1)
    scaler = GradScaler(init_scale=2.0**10, growth_interval=1)
    scaler.scale(mg.ones((), device=device))  # the scale is made where the (first) loss is
    out, flags = [], []
    for step in range(3):
        for p, (shape, dtype) in zip(params, specs):
            g = rng.standard_normal(shape).astype(dtype) * dtype(3e3)
            if step == 1:
                g.reshape(-1)[-1] = np.inf if shape else np.nan
            p.grad = mg.tensor(g, device=device)
        scaler.unscale_(opt)
        out += [p.grad.cpu().numpy().copy() for p in params]  # (a CPU view would change)
        found = scaler._per_optimizer_states[id(opt)]["found_inf_per_device"]
        flags.append([float(v) for v in found.values()])
        if device == "cuda" and hasattr(cupy_module(), "counting_host_reads"):
            kernel_names.clear()
            with cupy_module().counting_host_reads():
                scaler.step(opt)
                scaler.update()
            reads = cupy_module().counting_host_reads.last
            assert reads.count == 1  # the found-inf flag, read once to decide on the step
            stepped = [] if step == 1 else ["sgd_l20"] * len(params)  # no step after an inf
            assert kernel_names == [*stepped, "update_scale"]
        else:
            scaler.step(opt)
            scaler.update()
        out += [scaler.get_scale(), scaler._get_growth_tracker()]
        out += [p.detach().cpu().numpy().copy() for p in params]
    return out, flags


def test_grad_scaler_kernels_give_the_cpus_numbers_in_one_launch_per_gradient(kernel_launches):
    names = kernel_launches
    want, want_flags = _scaler_steps("cpu")
    got, flags = _scaler_steps("cuda", names)
    assert flags == want_flags == [[0.0], [1.0], [0.0]]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    scaler = GradScaler()
    w = mg.ones(5, device="cuda", requires_grad=True)
    opt = mg.optim.SGD([w], lr=0.1)
    scaler.scale(w.sum()).backward()
    names.clear()  # (the backward may launch kernels of its own)
    scaler.unscale_(opt)
    scaler.update()
    assert names == ["inverse_scale", "unscale_and_check", "update_scale"]


def test_cuda_ops_follow_pytorchs_cuda_lists():
    """On CUDA, exp, softmax, sum, the norms ... run in float32 (PyTorch's CUDA float32 list)
    where CPU autocast leaves them in the input's dtype; mean, batch_norm and the linear algebra
    are on no CUDA list and run as they come."""
    F = mg.nn.functional
    h = mg.randn(4, 6, device="cuda").half()
    w, b = mg.ones(6, device="cuda"), mg.zeros(6, device="cuda")
    with mg.autocast("cuda", dtype=mg.float16):
        float32 = {
            "softmax": h.softmax(-1),
            "log_softmax": h.log_softmax(-1),
            "exp": h.exp(),
            "log": h.abs().log(),
            "pow": h**2.0,
            "sum": h.sum(),
            "logsumexp": h.logsumexp(-1),
            "layer_norm": F.layer_norm(h, (6,), w, b),
            "group_norm": F.group_norm(h, 2),
            "softplus": F.softplus(h),
            "cosine_similarity": F.cosine_similarity(h, h),
            "prod": h.prod(-1),
            "cumsum": h.cumsum(0),
            "expm1": h.expm1(),
            "interpolate": F.interpolate(h[None], scale_factor=2.0),
            "mse_loss": F.mse_loss(h, h),
        }
        as_it_comes = {
            "mean": h.mean(),
            "var": h.var(),
            "batch_norm": F.batch_norm(h, None, None, w, b, training=True),
            "logsigmoid": F.logsigmoid(h),
        }
        with pytest.raises(NotImplementedError, match="Low precision"):
            mg.linalg.inv(mg.eye(3, device="cuda").half())  # LAPACK's ops: float32 on CPU only
    assert {k: v.dtype for k, v in float32.items()} == dict.fromkeys(float32, mg.float32)
    assert {k: v.dtype for k, v in as_it_comes.items()} == dict.fromkeys(as_it_comes, mg.float16)
    x = mg.randn(4, 6).half()
    with mg.autocast("cpu", dtype=mg.float16):  # the same ops on the CPU: as they come
        assert x.softmax(-1).dtype is mg.float16 and x.sum().dtype is mg.float16
        assert mg.linalg.inv(mg.eye(3).half()).dtype is mg.float32


def test_binary_cross_entropy_is_refused_under_cuda_autocast():
    """As PyTorch: under CUDA autocast F.binary_cross_entropy raises and points to the logits
    form; under CPU autocast it runs in float32."""
    F = mg.nn.functional
    p = mg.rand(4, device="cuda") * 0.8 + 0.1
    with mg.autocast("cuda", dtype=mg.float16):
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            F.binary_cross_entropy(p, p)
        with pytest.raises(RuntimeError, match="with_logits"):
            mg.nn.BCELoss()(p, p)
        assert F.binary_cross_entropy_with_logits(p, p).dtype is mg.float32
        q = p.cpu().half()
        assert F.binary_cross_entropy(q, q).dtype is mg.float16  # CPU: autocast is off there
    with mg.autocast("cpu", dtype=mg.float16):
        assert F.binary_cross_entropy(q, q).dtype is mg.float32
    assert F.binary_cross_entropy(p, p).dtype is mg.float32  # autocast off: as it comes
