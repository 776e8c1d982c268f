"""optim.swa_utils: AveragedModel (SWA mean, EMA, custom avg_fn, buffers), update_bn and SWALR,
against the closed forms (the plain mean of the weights seen, the geometric EMA weights, the
BatchNorm statistics of the whole data, the annealing formula)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.optim.swa_utils import (
    SWALR,
    AveragedModel,
    get_ema_multi_avg_fn,
    get_swa_avg_fn,
    update_bn,
)


def _snapshots(model, k, seed=0):
    """k successive weight states of ``model`` (random steps), as NumPy copies."""
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(k):
        with mg.no_grad():
            for p in model.parameters():
                p.add_(mg.tensor(rng.standard_normal(tuple(p.shape)), dtype=p.dtype))
        states.append([p.detach().numpy().copy() for p in model.parameters()])
        yield states[-1]


def test_swa_average_is_the_plain_mean_of_every_model_seen():
    model = nn.Linear(3, 2)
    swa = AveragedModel(model)
    seen = []
    for state in _snapshots(model, 5):
        swa.update_parameters(model)
        seen.append(state)
    assert swa.n_averaged.item() == 5
    for i, p in enumerate(swa.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), np.mean([s[i] for s in seen], 0), rtol=1e-6)
    # the same with the one-tensor avg_fn
    swa2 = AveragedModel(nn.Linear(3, 2), avg_fn=get_swa_avg_fn())
    model2 = nn.Linear(3, 2)
    seen = [s for s in _snapshots(model2, 4) if swa2.update_parameters(model2) is None]
    for i, p in enumerate(swa2.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), np.mean([s[i] for s in seen], 0), rtol=1e-6)


def test_ema_weights_decay_geometrically_from_the_first_copy():
    decay = 0.9
    model = nn.Linear(2, 2).double()
    ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(decay))
    seen = []
    for state in _snapshots(model, 4):
        ema.update_parameters(model)
        seen.append(state)
    for i, p in enumerate(ema.parameters()):
        want = seen[0][i]
        for s in seen[1:]:
            want = decay * want + (1 - decay) * s[i]
        np.testing.assert_allclose(p.detach().numpy(), want, rtol=1e-12)
    with pytest.raises(ValueError, match="decay"):
        get_ema_multi_avg_fn(1.5)


def test_averaged_model_is_a_copy_that_runs_the_model_and_follows_its_buffers():
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    swa = AveragedModel(model)
    assert swa.module is not model and swa.module[0].weight is not model[0].weight
    model(mg.randn(8, 2))  # moves the BatchNorm's running statistics
    swa.update_parameters(model)
    np.testing.assert_array_equal(swa.module[1].running_mean.numpy(), model[1].running_mean.numpy())
    swa.eval(), model.eval()
    x = mg.randn(4, 2)
    np.testing.assert_allclose(swa(x).detach().numpy(), model(x).detach().numpy())
    assert "module.0.weight" in swa.state_dict() and "n_averaged" in swa.state_dict()


def test_update_bn_recomputes_the_statistics_of_the_whole_data_and_restores_momentum():
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2, momentum=0.3))
    model.eval()
    data = [mg.randn(5, 2) * 3 + 1 for _ in range(4)]
    update_bn([(x, 0) for x in data], model)  # (input, label) batches: the input is used
    assert model[1].momentum == 0.3 and not model.training
    with mg.no_grad():
        h = [model[0](x).numpy() for x in data]
    # a cumulative average of the per-batch statistics (momentum None)
    np.testing.assert_allclose(
        model[1].running_mean.numpy(), np.mean([b.mean(0) for b in h], 0), rtol=1e-5
    )
    np.testing.assert_allclose(
        model[1].running_var.numpy(), np.mean([b.var(0, ddof=1) for b in h], 0), rtol=1e-5
    )


@pytest.mark.parametrize("strategy", ["cos", "linear"])
def test_swalr_anneals_to_the_swa_lr_then_holds(strategy):
    p = nn.Parameter(mg.zeros(1))
    opt = mg.optim.SGD([p], lr=1.0)
    sched = SWALR(opt, swa_lr=0.1, anneal_epochs=4, anneal_strategy=strategy)
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(6):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])

    def alpha(t):
        return (1 - math.cos(math.pi * t)) / 2 if strategy == "cos" else t

    # the chained form reproduces lr(t) = swa_lr alpha(t) + lr_0 (1 - alpha(t)), t = step / 4
    want = [0.1 * alpha(min(s / 4, 1)) + 1.0 * (1 - alpha(min(s / 4, 1))) for s in range(7)]
    np.testing.assert_allclose(lrs, want, rtol=1e-12)
    with pytest.raises(ValueError, match="anneal_strategy"):
        SWALR(opt, 0.1, anneal_strategy="step")


def test_default_average_on_the_cpu_is_the_swa_formula_to_the_last_bit():
    # PyTorch's CPU path: W_avg + (W - W_avg) / (n + 1) per tensor, rounded at each operation
    # in float32 (a lerp rounds differently in about a third of the elements)
    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((1, 300)).astype(np.float32) for _ in range(6)]
    lin = mg.nn.Linear(300, 1, bias=False)
    avg = AveragedModel(lin)
    want = None
    for n, w in enumerate(ws):
        with mg.no_grad():
            lin.weight.copy_(mg.tensor(w))
        avg.update_parameters(lin)
        want = w.copy() if want is None else want + (w - want) / np.float32(n + 1)
    np.testing.assert_array_equal(avg.module.weight.detach().numpy(), want)


def test_averaging_buffers_truncates_an_integer_buffer_as_pytorch_does():
    # use_buffers=True averages BatchNorm's num_batches_tracked too: the float average is copied
    # into the int64 buffer, truncated (1 + (2 - 1) / 2 = 1.5 -> 1, and so on: it stays 1)
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.BatchNorm1d(4))
    avg = AveragedModel(model, use_buffers=True)
    tracked, means = [], []
    for _ in range(4):
        model(mg.randn(8, 3))
        avg.update_parameters(model)
        tracked.append(int(avg.module[1].num_batches_tracked))
        means.append(model[1].running_mean.numpy().copy())
    assert avg.module[1].num_batches_tracked.dtype == mg.int64
    assert tracked == [1, 1, 1, 1]
    # the float buffers are averaged as the parameters are: the mean of the ones seen
    np.testing.assert_allclose(avg.module[1].running_mean.numpy(), np.mean(means, 0), rtol=1e-6)
