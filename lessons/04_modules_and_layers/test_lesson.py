"""Checks for chapter 4. Oracles: minigenesis's nn layers (same weights, same inputs), NumPy
forward passes, and the closed-form statistics of the initialisation and of dropout."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg
from minigenesis import nn

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 4.1  bias left at zeros, or drawn from U(0, k)                  -> initialisation statistics
# 4.3  return F.layer_norm(...) (the oracle)                      -> by-hand watch
# 4.4  return F.dropout(x, p, training)                           -> by-hand watch
# 4.5  running_var updated with the biased variance               -> running_var is unbiased
#      F.batch_norm on the module's buffers (the oracle)          -> by-hand watch


def _t(a, requires_grad=False):
    return mg.tensor(np.asarray(a, dtype=np.float64), dtype=mg.float64, requires_grad=requires_grad)


@pytest.mark.exercise("4.1")
def test_my_linear_registers_its_parameters(impl):
    m = impl.MyLinear(5, 3)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == [
        ("weight", (3, 5)),
        ("bias", (3,)),
    ]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in m.parameters())
    no_bias = impl.MyLinear(5, 3, bias=False)
    assert [n for n, _ in no_bias.named_parameters()] == ["weight"] and no_bias.bias is None


@pytest.mark.exercise("4.1")
def test_my_linear_initialisation_is_pytorchs(impl):
    mg.manual_seed(0)
    m = impl.MyLinear(400, 300)
    k = 1 / math.sqrt(400)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= k and np.abs(b).max() <= k
    # U(-k, k) has mean 0 and standard deviation k / sqrt(3)
    assert abs(w.mean()) < 0.02 * k
    assert abs(w.std() / (k / math.sqrt(3)) - 1) < 0.02
    assert np.abs(w).max() > 0.99 * k  # the whole interval is used, not a narrower one
    # the bias too: 300 draws of U(-k, k) have a mean within 0.2 k of 0 and a standard deviation
    # within 20% of k / sqrt(3) (both more than 5 standard errors), which zeros or U(0, k) miss
    assert abs(b.mean()) < 0.2 * k, f"bias mean {b.mean():.4f}: draw it from U(-k, k), k = {k}"
    assert abs(b.std() / (k / math.sqrt(3)) - 1) < 0.2, (
        f"bias standard deviation {b.std():.4f}, U(-k, k) has {k / math.sqrt(3):.4f}: draw the "
        "bias from U(-k, k) like the weight"
    )


@pytest.mark.exercise("4.1")
def test_my_linear_matches_nn_linear(impl):
    mg.manual_seed(1)
    ref = nn.Linear(4, 3).double()
    mine = impl.MyLinear(4, 3).double()
    mine.load_state_dict(ref.state_dict())
    x_data = np.random.default_rng(0).standard_normal((2, 5, 4))
    x1, x2 = _t(x_data, True), _t(x_data, True)
    y_ref, y_mine = ref(x1), mine(x2)
    assert y_mine.shape == (2, 5, 3)
    np.testing.assert_allclose(
        y_mine.detach().numpy(), y_ref.detach().numpy(), rtol=1e-12, err_msg="y = x @ W.T + b"
    )
    (y_ref * y_ref).sum().backward()
    (y_mine * y_mine).sum().backward()
    np.testing.assert_allclose(mine.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(x2.grad.numpy(), x1.grad.numpy(), rtol=1e-12)


@pytest.mark.exercise("4.2")
def test_mlp_structure(impl):
    m = impl.MLP([4, 16, 8, 3])
    names = [n for n, _ in m.named_parameters()]
    assert names == [f"layers.{i}.{p}" for i in range(3) for p in ("weight", "bias")]
    assert sum(p.numel() for p in m.parameters()) == (4 * 16 + 16) + (16 * 8 + 8) + (8 * 3 + 3)
    assert isinstance(m.layers, nn.ModuleList)


@pytest.mark.exercise("4.2")
def test_mlp_forward_matches_numpy(impl):
    mg.manual_seed(2)
    m = impl.MLP([3, 10, 10, 2])
    x = np.random.default_rng(1).standard_normal((7, 3)).astype(np.float32)
    h = x
    layers = list(m.layers)
    for i, layer in enumerate(layers):
        h = h @ layer.weight.detach().numpy().T + layer.bias.detach().numpy()
        if i < len(layers) - 1:
            h = np.maximum(h, 0)
    got = m(mg.tensor(x)).detach().numpy()
    if (got >= 0).all() and (h < 0).any():
        pytest.fail("MLP's output is never negative: apply no ReLU after the last layer")
    np.testing.assert_allclose(got, h, rtol=1e-5, atol=1e-6, err_msg="Linear, ReLU, ..., Linear")


@pytest.mark.exercise("4.3")
def test_layer_norm_matches_nn_layernorm(impl):
    rng = np.random.default_rng(3)
    x_data, w_data, b_data = rng.standard_normal((4, 3, 6)), rng.random(6) + 0.5, rng.random(6)
    ref = nn.LayerNorm(6).double()
    ref.load_state_dict({"weight": _t(w_data), "bias": _t(b_data)})
    x1 = _t(x_data, True)
    y_ref = ref(x1)
    x2, w, b = _t(x_data, True), _t(w_data, True), _t(b_data, True)
    y = impl.layer_norm(x2, w, b)
    np.testing.assert_allclose(y.detach().numpy(), y_ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = _t(rng.standard_normal((4, 3, 6)))
    y_ref.backward(g)
    y.backward(g)
    np.testing.assert_allclose(x2.grad.numpy(), x1.grad.numpy(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(w.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(b.grad.numpy(), ref.bias.grad.numpy(), rtol=1e-10)


def _by_hand(call, oracles, what: str, how: str) -> None:
    """Run ``call()`` watching that none of the ``oracles`` (the checks' references) ran."""
    with watch_calls() as seen:
        call()
    used = seen.ran_any(*oracles)
    assert not used, (
        f"{what} ran minigenesis's own {', '.join(used)}, what the checks compare it with: {how}"
    )


@pytest.mark.exercise("4.3")
def test_layer_norm_is_written_by_hand(impl):
    x = mg.randn(2, 6, requires_grad=True)
    w, b = mg.ones(6, requires_grad=True), mg.zeros(6, requires_grad=True)
    _by_hand(
        lambda: impl.layer_norm(x, w, b).sum().backward(),
        (nn.functional.layer_norm, nn.LayerNorm.forward),
        "layer_norm",
        "write it from Tensor ops (mean, subtraction, sqrt, division)",
    )


@pytest.mark.exercise("4.4")
def test_dropout_is_written_by_hand(impl):
    x = mg.ones(4, 8, requires_grad=True)
    _by_hand(
        lambda: impl.MyDropout(0.3).train()(x).sum().backward(),
        (nn.functional.dropout, nn.Dropout.forward),
        "MyDropout",
        "draw the mask with mg.rand_like and rescale the survivors",
    )


@pytest.mark.exercise("4.5")
def test_batchnorm_is_written_by_hand(impl):
    x = mg.randn(6, 3, requires_grad=True)

    def train_then_eval():
        bn = impl.MyBatchNorm1d(3)
        bn(x).sum().backward()
        bn.eval()(x)

    _by_hand(
        train_then_eval,
        (nn.functional.batch_norm, nn.BatchNorm1d.forward),
        "MyBatchNorm1d",
        "normalise with the batch's (or the running) statistics from Tensor ops",
    )


@pytest.mark.exercise("4.3")
def test_layer_norm_uses_the_biased_variance(impl):
    x = _t([[1.0, 2.0, 3.0, 6.0]])
    y = impl.layer_norm(x, _t(np.ones(4)), _t(np.zeros(4)), eps=0.0).numpy()
    v = np.array([1.0, 2.0, 3.0, 6.0])
    np.testing.assert_allclose(  # np.std: ddof=0
        y[0],
        (v - v.mean()) / v.std(),
        rtol=1e-12,
        err_msg="divide the variance by n (the biased variance), not by n - 1",
    )


@pytest.mark.exercise("4.4")
def test_dropout_statistics_in_training(impl):
    mg.manual_seed(3)
    d = impl.MyDropout(0.3)
    x = mg.ones(200, 100, requires_grad=True)
    y = d(x)
    out = y.detach().numpy()
    dropped = (out == 0).mean()
    assert abs(dropped - 0.3) < 0.02, (  # 20,000 Bernoulli draws: std 0.003
        f"MyDropout(0.3) zeroed {dropped:.1%} of the elements: zero each with probability p "
        "(keep those where rand >= p)"
    )
    np.testing.assert_allclose(
        out[out != 0],
        1 / 0.7,
        rtol=1e-6,
        err_msg="scale the elements kept by 1 / (1 - p), here 1 / 0.7, so the mean stays the same",
    )
    y.sum().backward()  # the gradient is the same mask and scale
    np.testing.assert_allclose(x.grad.numpy(), out, rtol=1e-6)


@pytest.mark.exercise("4.4")
def test_dropout_eval_and_edge_cases(impl):
    x = mg.randn(50, 4)
    d = impl.MyDropout(0.5)
    d.eval()
    np.testing.assert_array_equal(d(x).numpy(), x.numpy())
    d.train()
    assert (d(x).numpy() == 0).any()
    np.testing.assert_array_equal(impl.MyDropout(0.0)(x).numpy(), x.numpy())
    assert (impl.MyDropout(1.0)(x).numpy() == 0).all()
    with pytest.raises(ValueError):
        impl.MyDropout(1.5)


def _batches(seed=4, n=3):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((8, 5)) * 3 + 1 for _ in range(n)]


@pytest.mark.exercise("4.5")
def test_batchnorm_state_matches_nn(impl):
    mine, ref = impl.MyBatchNorm1d(5), nn.BatchNorm1d(5)
    assert sorted(mine.state_dict()) == sorted(ref.state_dict())
    assert sorted(n for n, _ in mine.named_parameters()) == ["bias", "weight"]
    for batch in _batches():
        x = mg.tensor(batch.astype(np.float32))
        np.testing.assert_allclose(mine(x).detach().numpy(), ref(x).detach().numpy(), atol=1e-5)
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(
            getattr(mine, name).numpy(),
            getattr(ref, name).numpy(),
            rtol=1e-5,
            err_msg=f"{name}: running = (1 - momentum) * running + momentum * batch_stat, "
            "with the unbiased batch variance for running_var",
        )
    assert int(mine.num_batches_tracked.item()) == 3
    mine.eval()
    ref.eval()
    x = mg.tensor(_batches(seed=5, n=1)[0].astype(np.float32))
    np.testing.assert_allclose(
        mine(x).detach().numpy(),
        ref(x).detach().numpy(),
        atol=1e-5,
        err_msg="in eval mode, normalise with running_mean and running_var, not the batch's",
    )


@pytest.mark.exercise("4.5")
def test_batchnorm_running_var_is_unbiased(impl):
    bn = impl.MyBatchNorm1d(1, momentum=1.0)  # momentum 1: running = the last batch's statistic
    batch = np.array([[1.0], [2.0], [4.0]], dtype=np.float32)
    bn(mg.tensor(batch))
    assert bn.running_mean.item() == pytest.approx(batch.mean()), (
        "with momentum 1 running_mean must become the batch mean: "
        "running = (1 - momentum) * running + momentum * batch_stat"
    )
    assert bn.running_var.item() == pytest.approx(batch.var(ddof=1)), (
        f"running_var {bn.running_var.item():.4f}, the unbiased batch variance is "
        f"{batch.var(ddof=1):.4f}: update it with n / (n - 1) times the biased variance"
    )


@pytest.mark.exercise("4.5")
def test_batchnorm_running_statistics_record_no_graph(impl):
    bn = impl.MyBatchNorm1d(3)
    x = mg.randn(6, 3, requires_grad=True)  # a layer's output: it requires grad
    bn(x).sum().backward()
    for name in ("running_mean", "running_var"):
        buf = getattr(bn, name)
        assert not buf.requires_grad and buf.grad_fn is None, (
            f"{name} recorded a graph (requires_grad={buf.requires_grad}): update the running "
            "statistics under `with mg.no_grad():`, in place, else each batch's graph stays "
            "alive through them"
        )


@pytest.mark.exercise("4.5")
def test_batchnorm_gradients_match_nn(impl):
    mine, ref = impl.MyBatchNorm1d(5).double(), nn.BatchNorm1d(5).double()
    data = _batches(seed=6, n=1)[0]
    x1, x2 = _t(data, True), _t(data, True)
    g = _t(np.random.default_rng(7).standard_normal((8, 5)))
    ref(x1).backward(g)
    mine(x2).backward(g)
    np.testing.assert_allclose(x2.grad.numpy(), x1.grad.numpy(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(mine.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-8)


# ----------------------------------------------------------------------------- 4.6
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("7ddbf293415aa800", "3f3c6af9d1ac1dd1b9415fd83173eeb0297eef09887b3dbfa4461be38ae387ea"),
    "q2": ("63046c1529134be1", "f90baeea834a903ac4c4dca357962a8dbd7b3e5275ebf79b5d90fa222fa52949"),
    "q3": ("31d2292cebf5475d", "8d5a77a6196907ddc1eb8f991418b6f7bb5b25d48118834c69c2c432fd693a1e"),
    "q4": ("1f53859104feb46a", "9541dbb048df428ac272a4030dcc4b1470239ced65d1e86142b8fbfb5547644d"),
}
QUIZ_HINTS = {
    "q1": ("Re-read 'How a module finds its parameters': what does __setattr__ look at?"),
    "q2": (
        "Write the expected value of one output element in training mode ('Train and eval modes')."
    ),
    "q3": (
        "Re-read 'Buffers, and BatchNorm's two behaviours': which statistics does each mode use?"
    ),
    "q4": (
        "Compute the variance of a sum of n products w_i x_i ('Why the scale of the "
        "initialisation matters')."
    ),
}


@pytest.mark.exercise("4.6")
@pytest.mark.parametrize("question", list(QUIZ))
def test_4_6_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
