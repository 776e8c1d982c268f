"""PyTorch parity: optim.swa_utils' SWALR learning rates, AveragedModel (SWA and EMA) and
update_bn, from the same weights and data."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.optim import swa_utils

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("strategy,epochs", [("cos", 5), ("linear", 3), ("cos", 0)])
def test_swalr_learning_rates_match_pytorch(strategy, epochs):
    ours = mg.optim.SGD([mg.nn.Parameter(mg.zeros(1))], lr=0.5)
    theirs = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.5)
    s1 = swa_utils.SWALR(ours, 0.05, anneal_epochs=epochs, anneal_strategy=strategy)
    s2 = torch.optim.swa_utils.SWALR(theirs, 0.05, anneal_epochs=epochs, anneal_strategy=strategy)
    for _ in range(8):
        assert ours.param_groups[0]["lr"] == pytest.approx(theirs.param_groups[0]["lr"], 1e-14)
        ours.step(), theirs.step(), s1.step(), s2.step()


@pytest.mark.parametrize("ema", [False, True])
def test_averaged_model_and_update_bn_match_pytorch(ema):
    torch.manual_seed(0)
    t_model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4)).double()
    m_model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.BatchNorm1d(4)).double()
    kw_t = {"multi_avg_fn": torch.optim.swa_utils.get_ema_multi_avg_fn(0.8)} if ema else {}
    kw_m = {"multi_avg_fn": swa_utils.get_ema_multi_avg_fn(0.8)} if ema else {}
    t_avg = torch.optim.swa_utils.AveragedModel(t_model, **kw_t)
    m_avg = swa_utils.AveragedModel(m_model, **kw_m)
    rng = np.random.default_rng(0)
    for _ in range(4):
        state = {k: rng.standard_normal(tuple(v.shape)) for k, v in t_model.state_dict().items()
                 if v.dtype == torch.float64}  # fmt: skip
        t_model.load_state_dict({k: torch.tensor(v) for k, v in state.items()}, strict=False)
        m_model.load_state_dict({k: mg.tensor(v) for k, v in state.items()}, strict=False)
        t_avg.update_parameters(t_model)
        m_avg.update_parameters(m_model)
    data = [rng.standard_normal((6, 3)) for _ in range(3)]
    torch.optim.swa_utils.update_bn([torch.tensor(x) for x in data], t_avg)
    swa_utils.update_bn([mg.tensor(x) for x in data], m_avg)
    t_state, m_state = t_avg.state_dict(), m_avg.state_dict()
    assert list(m_state) == list(t_state)
    for k in t_state:
        np.testing.assert_allclose(m_state[k].numpy(), t_state[k].numpy(), rtol=1e-12, err_msg=k)
