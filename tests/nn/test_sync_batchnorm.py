"""nn.SyncBatchNorm in one process is BatchNorm over any input of rank 2 and up, and
convert_sync_batchnorm swaps it in for every BatchNorm*d sharing their tensors, as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn as nn
from minigenesis.nn import sync_batchnorm


def batch_norm_reference(x: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    axes = (0,) + tuple(range(2, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 5), (2, 3, 2, 3, 4)])
def test_sync_batchnorm_in_one_process_normalises_per_channel_and_tracks_statistics(shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float64) * 3 + 1
    layer = nn.SyncBatchNorm(3, momentum=0.5).double()
    out = layer(mg.tensor(x))
    np.testing.assert_allclose(out.detach().numpy(), batch_norm_reference(x), atol=1e-10)
    axes = (0,) + tuple(range(2, x.ndim))
    n = x.size // 3
    np.testing.assert_allclose(layer.running_mean.numpy(), 0.5 * x.mean(axis=axes), rtol=1e-12)
    unbiased = x.var(axis=axes) * n / (n - 1)
    np.testing.assert_allclose(layer.running_var.numpy(), 0.5 + 0.5 * unbiased, rtol=1e-12)
    assert layer.num_batches_tracked.item() == 1


def test_sync_batchnorm_refuses_input_of_one_dim():
    with pytest.raises(ValueError, match="at least 2D"):
        nn.SyncBatchNorm(3)(mg.ones(3))


def test_convert_sync_batchnorm_shares_tensors_keeps_modes_and_outputs():
    mg.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 4, 3),
        nn.BatchNorm2d(4),
        nn.Sequential(nn.Flatten(), nn.BatchNorm1d(36).eval()),
    )
    x = mg.randn(5, 3, 5, 5)
    bn2d, bn1d = model[1], model[2][1]
    with mg.no_grad():
        bn1d.running_mean.uniform_()
    expected = model(x)
    bn2d.num_batches_tracked.zero_()  # (the call above counted one batch)
    bn2d.running_mean.zero_()
    bn2d.running_var.fill_(1.0)

    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert isinstance(converted[1], nn.SyncBatchNorm)
    assert isinstance(converted[2][1], nn.SyncBatchNorm)
    assert not any(type(m) in (nn.BatchNorm1d, nn.BatchNorm2d) for m in converted.modules())
    assert converted[1].weight is bn2d.weight and converted[2][1].running_mean is bn1d.running_mean
    assert converted[1].training and not converted[2][1].training
    np.testing.assert_allclose(converted(x).detach().numpy(), expected.detach().numpy(), atol=1e-6)
    assert converted[1].num_batches_tracked is bn2d.num_batches_tracked
    assert bn2d.num_batches_tracked.item() == 1


def test_sync_batchnorm_training_across_processes_is_refused(monkeypatch):
    monkeypatch.setattr(sync_batchnorm.dist, "is_initialized", lambda: True)
    monkeypatch.setattr(sync_batchnorm.dist, "get_world_size", lambda group=None: 2)
    layer = nn.SyncBatchNorm(3)
    with pytest.raises(NotImplementedError, match="across processes"):
        layer(mg.ones(4, 3))
    layer.eval()  # eval mode uses the running statistics: nothing to synchronise
    np.testing.assert_allclose(layer(mg.ones(4, 3)).detach().numpy(), 1 / np.sqrt(1 + 1e-5))
