"""The GPU side of minigenesis.distributed, on CuPy arrays, without NCCL or a second GPU.

A *mirror* backend stands in for NCCL: a world of two ranks where the other rank holds exactly
what this one holds, so every collective has a closed form (a SUM doubles, an all-gather repeats,
an AVG is the identity). It runs the device code paths of collectives.py, DistributedDataParallel
and the GradScaler's agreement across ranks on CuPy arrays (on every test run: the strict CuPy
stand-in, tests/core/test_cuda_standin.py). NCCL itself needs GPUs: test_nccl.py.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.distributed as dist
from minigenesis import nn
from minigenesis.distributed import process_group

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)


class Mirror:
    """Backend 'nccl' of a two-rank world whose other rank mirrors this one (rank 0)."""

    name, rank, size = "nccl", 0, 2

    def supports(self, dtype_name: str) -> bool:
        return dtype_name != "bfloat16"  # as an NCCL build without bfloat16: widened to float32

    def all_reduce(self, buf, op, async_op, check=True):
        if op == "sum":
            buf *= 2
        elif op == "product":
            buf *= buf
        return "request" if async_op else None

    def broadcast(self, buf, src, async_op):
        return "request" if async_op else None

    def all_gather(self, send, recv, async_op):
        recv[: send.size] = send
        recv[send.size :] = send
        return "request" if async_op else None

    def reduce_scatter(self, send, recv, op, async_op):
        recv[...] = send[: recv.size] * (2 if op == "sum" else 1)
        return "request" if async_op else None

    def barrier(self, async_op):
        return None

    def bcast_object(self, obj, src, name=""):
        return obj

    def allgather_object(self, obj, name="", count=True):
        return [obj] * self.size  # the other rank mirrors this one: the same model everywhere

    def wait(self, request):
        assert request == "request"

    def test(self, request):
        return True

    def poke(self):
        pass

    def close(self):
        pass


@pytest.fixture
def mirror(monkeypatch):
    monkeypatch.setattr(process_group._world, "backend", Mirror())
    yield
    monkeypatch.setattr(process_group._world, "backend", None)


def _host(t):
    return t.float().cpu().numpy() if t.dtype == mg.bfloat16 else t.cpu().numpy()


@pytest.mark.parametrize("dtype", [mg.float32, mg.float16, mg.bfloat16, mg.int64])
@pytest.mark.parametrize("async_op", [False, True])
def test_all_reduce_on_device_tensors_strided_and_16_bit(mirror, dtype, async_op):
    base = mg.arange(12, device="cuda").reshape(3, 4).to(dtype)
    t = base.t()  # a strided view: reduced through a contiguous copy, written back
    work = dist.all_reduce(t, async_op=async_op)
    if async_op:
        assert work.wait() and work.is_completed()
    np.testing.assert_array_equal(_host(base), np.arange(12).reshape(3, 4) * 2)
    avg = mg.arange(5, device="cuda").to(dtype)
    dist.all_reduce(avg, op=dist.ReduceOp.AVG)
    np.testing.assert_array_equal(_host(avg), np.arange(5))
    assert avg.device.type == "cuda" and avg.dtype == dtype


def test_gather_scatter_and_broadcast_on_device(mirror):
    x = mg.tensor([1.0, 2.0, 3.0], device="cuda")
    outs = [mg.zeros(3, device="cuda") for _ in range(2)]
    dist.all_gather(outs, x)
    whole = mg.zeros(6, device="cuda")
    dist.all_gather_into_tensor(whole, x)
    part = mg.zeros(3, device="cuda")
    dist.reduce_scatter_tensor(part, mg.arange(6, device="cuda").float())
    dist.broadcast(x, src=1)
    assert [o.tolist() for o in outs] == [[1.0, 2.0, 3.0]] * 2
    assert whole.tolist() == [1.0, 2.0, 3.0] * 2
    assert part.tolist() == [0.0, 2.0, 4.0]
    assert x.tolist() == [1.0, 2.0, 3.0]


def test_nccl_refuses_cpu_tensors(mirror):
    with pytest.raises(RuntimeError, match="backend 'nccl' reduces CUDA tensors"):
        dist.all_reduce(mg.ones(2))


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
        self.extra = nn.Linear(3, 3)  # never used: with find_unused_parameters its grad stays None

    def forward(self, x):
        return self.body(x)


def test_ddp_on_device_averages_to_the_single_process_gradient(mirror):
    mg.manual_seed(0)
    net = Net().to("cuda")
    ref = copy.deepcopy(net)
    ddp = nn.parallel.DistributedDataParallel(net, device_ids=[0], bucket_cap_mb=0.0001,
                                              find_unused_parameters=True)  # fmt: skip
    assert len(ddp.reducer.buckets) > 1
    x, y = mg.randn(6, 4, device="cuda"), mg.randint(0, 3, (6,), device="cuda")
    scaler, ref_scaler = mg.amp.GradScaler(), mg.amp.GradScaler()
    with mg.autocast("cuda", dtype=mg.float16):
        loss = nn.functional.cross_entropy(ddp(x), y)
        ref_loss = nn.functional.cross_entropy(ref(x), y)
    scaler.scale(loss).backward()
    ref_scaler.scale(ref_loss).backward()
    for p, q in zip(net.body.parameters(), ref.body.parameters()):
        assert p.grad.device.type == "cuda"
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.cpu().numpy(), rtol=1e-6)
    assert net.extra.weight.grad is None and net.extra.bias.grad is None
    opt = mg.optim.SGD(net.parameters(), lr=0.1)
    scaler.step(opt)  # its inf flag goes through an all-reduce on the device (world size 2)
    scaler.update()
    assert scaler.get_scale() == 65536.0
