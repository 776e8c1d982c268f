"""The core on CuPy: the same ops give the same numbers on the GPU (skipped without CUDA)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)


def test_tensor_moves_between_devices() -> None:
    a = mg.randn(3, 4)
    g = a.cuda()
    assert g.device == mg.device("cuda") and g.is_cuda
    np.testing.assert_array_equal(g.cpu().numpy(), a.numpy())
    assert mg.zeros(2, device="cuda").device.type == "cuda"


def test_ops_forward_and_backward_match_cpu() -> None:
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((8, 16)).astype(np.float32)
    w0 = rng.standard_normal((16, 4)).astype(np.float32)
    results = {}
    for dev in ("cpu", "cuda"):
        x = mg.tensor(x0, device=dev, requires_grad=True)
        w = mg.tensor(w0, device=dev, requires_grad=True)
        y = ((x @ w).tanh().softmax(-1) * mg.tensor([1.0, 2.0, 3.0, 4.0], device=dev)).sum()
        y.backward()
        results[dev] = (y.item(), x.grad.cpu().numpy(), w.grad.cpu().numpy())
    assert results["cpu"][0] == pytest.approx(results["cuda"][0], rel=1e-5)
    np.testing.assert_allclose(results["cpu"][1], results["cuda"][1], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(results["cpu"][2], results["cuda"][2], rtol=1e-4, atol=1e-6)


def test_gradient_copies_back_across_devices() -> None:
    a = mg.ones(3, requires_grad=True)
    (a.cuda() * 2).sum().backward()
    assert a.grad.device.type == "cpu"
    np.testing.assert_array_equal(a.grad.numpy(), np.full(3, 2.0))


def test_low_precision_and_indexing_on_gpu() -> None:
    a = mg.randn(4, 8, device="cuda", dtype=mg.bfloat16)
    b = mg.randn(8, 2, device="cuda", dtype=mg.bfloat16)
    assert (a @ b).dtype is mg.bfloat16
    x = mg.randn(5, 3, device="cuda", requires_grad=True)
    x[mg.tensor([0, 0, 2], device="cuda")].sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy()[:, 0], [2, 0, 1, 0, 0])


def test_memory_counters() -> None:
    before = mg.cuda.memory_allocated()
    t = mg.zeros(1024, 1024, device="cuda")
    assert mg.cuda.memory_allocated() >= before + t.numel() * 4
    assert mg.cuda.max_memory_allocated() >= mg.cuda.memory_allocated()
    del t
    mg.cuda.synchronize()
    mg.cuda.empty_cache()


def test_random_draws_on_cuda_stay_on_the_device() -> None:
    p = mg.randperm(10, device="cuda")
    assert p.device.type == "cuda" and p.dtype is mg.int64
    np.testing.assert_array_equal(np.sort(p.cpu().numpy()), np.arange(10))
    assert mg.randint(0, 5, (4,), device="cuda").device.type == "cuda"
    assert mg.rand(3, device="cuda").device.type == "cuda"


def test_a_cpu_scalar_tensor_joins_a_cuda_operand_and_other_mixes_are_refused() -> None:
    a = mg.ones(2, device="cuda", requires_grad=True)
    s = mg.tensor(3.0, requires_grad=True)  # 0-d, on the CPU: PyTorch treats it as a scalar
    y = (a * s - mg.tensor(1.0)).sum()
    assert y.device.type == "cuda" and y.item() == pytest.approx(4.0)
    y.backward()
    np.testing.assert_array_equal(a.grad.cpu().numpy(), [3.0, 3.0])
    assert s.grad.device.type == "cpu" and s.grad.item() == pytest.approx(2.0)
    with pytest.raises(RuntimeError, match="same device, but found at least two devices"):
        a + mg.ones(2)


def test_device_facts_read_as_in_pytorch() -> None:
    props = mg.cuda.get_device_properties(0)
    assert mg.cuda.get_device_name() == mg.cuda.get_device_name("cuda:0") == props.name
    assert isinstance(props.name, str) and props.name
    assert mg.cuda.get_device_capability(mg.device("cuda")) == (props.major, props.minor)
    assert props.total_memory > 0 and props.multi_processor_count > 0
    assert mg.cuda.is_bf16_supported() == (props.major >= 8)
    mg.cuda.set_device(0)
    assert mg.cuda.current_device() == 0
    x = mg.ones(1024, device="cuda")
    assert mg.cuda.memory_reserved() >= mg.cuda.memory_allocated() >= x.numel() * 4
