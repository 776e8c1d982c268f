"""nn core on CuPy arrays: the same layers, clipping and checkpointing as on the CPU, compared with
the CPU results (skipped without CuPy and a CUDA device)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.utils as nn_utils
from minigenesis import nn
from minigenesis.utils.checkpoint import checkpoint_sequential

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)


def model_pair():
    mg.manual_seed(0)
    cpu = nn.Sequential(
        nn.Linear(8, 16),
        nn.LayerNorm(16),
        nn.GELU(),
        nn.Linear(16, 16),
        nn.BatchNorm1d(16),
        nn.Tanh(),
        nn.Linear(16, 3),
    )
    gpu = nn.Sequential(
        nn.Linear(8, 16),
        nn.LayerNorm(16),
        nn.GELU(),
        nn.Linear(16, 16),
        nn.BatchNorm1d(16),
        nn.Tanh(),
        nn.Linear(16, 3),
    )
    gpu.load_state_dict(cpu.state_dict())
    return cpu, gpu.cuda()


def test_module_cuda_moves_parameters_in_place_and_matches_the_cpu():
    cpu, gpu = model_pair()
    ids = [id(p) for p in gpu.parameters()]
    assert all(p.device.type == "cuda" for p in gpu.parameters())
    assert gpu[4].running_mean.device.type == "cuda"
    x = mg.randn(6, 8)
    ycpu, ygpu = cpu(x), gpu(x.cuda())
    np.testing.assert_allclose(ygpu.cpu().detach().numpy(), ycpu.detach().numpy(), atol=1e-5)
    ycpu.sum().backward()
    ygpu.sum().backward()
    for pc, pg in zip(cpu.parameters(), gpu.parameters()):
        np.testing.assert_allclose(pg.grad.cpu().numpy(), pc.grad.numpy(), atol=1e-4)
    gpu.cpu()
    assert [id(p) for p in gpu.parameters()] == ids and gpu[0].weight.device.type == "cpu"


def test_clip_grad_norm_on_cuda_returns_a_device_tensor():
    cpu, gpu = model_pair()
    x = mg.randn(6, 8)
    cpu(x).pow(2).sum().backward()
    gpu(x.cuda()).pow(2).sum().backward()
    for p in (2.0, float("inf"), 3.0):
        nc = nn_utils.clip_grad_norm_(cpu.parameters(), 0.5, norm_type=p)
        ng = nn_utils.clip_grad_norm_(gpu.parameters(), 0.5, norm_type=p)
        assert ng.device.type == "cuda"
        assert ng.item() == pytest.approx(nc.item(), rel=1e-4)


@pytest.mark.parametrize("reentrant", [False, True])
def test_dropout_and_checkpoint_replay_on_cuda(reentrant):
    mg.manual_seed(1)
    model = nn.Sequential(
        *[m for _ in range(4) for m in (nn.Linear(16, 16), nn.Tanh(), nn.Dropout(0.5))]
    ).cuda()
    x = mg.randn(8, 16, device="cuda")
    mg.manual_seed(7)
    model(x).sum().backward()
    plain = [p.grad.cpu().numpy().copy() for p in model.parameters()]
    model.zero_grad()
    mg.manual_seed(7)
    checkpoint_sequential(model, 3, x, use_reentrant=reentrant).sum().backward()
    for p, ref in zip(model.parameters(), plain):
        np.testing.assert_allclose(p.grad.cpu().numpy(), ref, rtol=1e-5, atol=1e-6)


def test_embedding_and_init_on_cuda():
    emb = nn.Embedding(10, 4, padding_idx=0, device="cuda")
    assert emb.weight.device.type == "cuda"
    out = emb(mg.tensor([[0, 3, 3]], device="cuda"))
    out.sum().backward()
    g = emb.weight.grad.cpu().numpy()
    assert np.all(g[0] == 0) and np.all(g[3] == 2)
    w = nn.init.kaiming_uniform_(mg.empty(64, 32, device="cuda"), nonlinearity="relu")
    assert float(w.abs().max()) <= np.sqrt(2) * np.sqrt(3 / 32) + 1e-6
    t = nn.init.trunc_normal_(mg.empty(1000, device="cuda"), std=1.0, a=-1.0, b=1.0)
    assert float(t.abs().max()) <= 1.0
