"""Checks for chapter 5. Oracles: minigenesis.nn.functional's losses (forward and gradients),
mg.optim.SGD, and the closed-form least-squares solution (np.linalg.lstsq)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg
from minigenesis import nn

F = nn.functional

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 5.1  return F.log_softmax(x, dim) / x.log_softmax(dim) (the oracle) -> by-hand watch
# 5.2  return F.cross_entropy(...) or F.nll_loss of a log-softmax  -> by-hand watch
# 5.3  return F.binary_cross_entropy_with_logits(...)             -> by-hand watch
# 5.4  no zero_grad: gradients add up over the steps              -> vs mg.optim.SGD
# 5.4  zero_grad after the update (the model's old gradients used) -> old gradients first
#      p.sub_(p.grad.mul_(lr)) (this step's gradients changed)     -> keeps its own
# 5.5  the plain mean of the batch means                          -> weighted by batch size
#      no model.train() / no shuffle / one shuffle for all epochs  -> training mode, shuffles


def _by_hand(call, oracles, what: str) -> None:
    """Run ``call()`` watching that none of the ``oracles`` (the checks' own references) ran."""
    with watch_calls() as seen:
        call()
    used = seen.ran_any(*oracles)
    assert not used, (
        f"{what} ran minigenesis's own {', '.join(used)}, what the checks compare it with: "
        "write it from Tensor ops (exp, log, max, sum, indexing)"
    )


def _t(a, requires_grad=False):
    return mg.tensor(np.asarray(a, dtype=np.float64), dtype=mg.float64, requires_grad=requires_grad)


@pytest.mark.exercise("5.1")
def test_log_softmax_matches_minigenesis(impl):
    data = np.random.default_rng(0).standard_normal((3, 4, 5)) * 3
    for dim in (-1, 0, 1):
        x1, x2 = _t(data, True), _t(data, True)
        got, want = impl.log_softmax(x1, dim=dim), mg.log_softmax(x2, dim=dim)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
        g = _t(np.cos(data))
        got.backward(g)
        want.backward(g)
        np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.exercise("5.1")
def test_log_softmax_is_written_by_hand(impl):
    x = mg.randn(3, 5, requires_grad=True)
    oracles = (F.log_softmax, mg.log_softmax, mg.Tensor.log_softmax, F.softmax)
    _by_hand(lambda: impl.log_softmax(x, dim=-1).sum().backward(), oracles, "log_softmax")


@pytest.mark.exercise("5.2")
def test_cross_entropy_is_written_by_hand(impl):
    logits, target = mg.randn(6, 4, requires_grad=True), mg.tensor([0, 3, 1, 1, 2, -100])
    _by_hand(
        lambda: impl.cross_entropy(logits, target, label_smoothing=0.1).backward(),
        (F.cross_entropy, F.nll_loss),
        "cross_entropy",
    )


@pytest.mark.exercise("5.3")
def test_bce_with_logits_is_written_by_hand(impl):
    logits, targets = mg.randn(8, requires_grad=True), (mg.randn(8) > 0).float()
    _by_hand(
        lambda: impl.bce_with_logits(logits, targets).backward(),
        (F.binary_cross_entropy_with_logits, F.binary_cross_entropy),
        "bce_with_logits",
    )


@pytest.mark.exercise("5.1")
def test_log_softmax_does_not_overflow(impl):
    x = mg.tensor([[1000.0, 1000.0, 0.0], [-1000.0, 0.0, 1000.0]])  # float32
    got = impl.log_softmax(x).numpy()
    assert np.isfinite(got).all(), (
        f"log_softmax of logits of 1000 gave {got.tolist()}: exp(1000) overflows, subtract the "
        "max along dim before exp"
    )
    np.testing.assert_allclose(got[0, :2], -np.log(2), rtol=1e-6)
    np.testing.assert_allclose(got[1, 2], 0.0, atol=1e-6)


@pytest.mark.exercise("5.2")
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
def test_cross_entropy_matches_minigenesis(impl, label_smoothing):
    rng = np.random.default_rng(1)
    data, target = rng.standard_normal((6, 4)) * 2, mg.tensor([0, 3, 1, -100, 2, 3])
    x1, x2 = _t(data, True), _t(data, True)
    got = impl.cross_entropy(x1, target, label_smoothing=label_smoothing)
    want = F.cross_entropy(x2, target, label_smoothing=label_smoothing)
    assert got.shape == ()
    how = "average over the examples whose target is not ignore_index (5 here, not 6)"
    if label_smoothing:
        how += "; smoothing adds s times the MEAN over the classes of -log p"
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12, err_msg=how)
    got.backward()
    want.backward()
    np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=1e-10, atol=1e-14)
    assert (x1.grad.numpy()[3] == 0).all()  # the ignored example gets no gradient


@pytest.mark.exercise("5.2")
def test_cross_entropy_closed_form(impl):
    """Equal logits: every class has probability 1/C, so the loss is log C."""
    loss = impl.cross_entropy(mg.zeros(5, 7), mg.tensor([0, 1, 2, 3, 6]))
    assert loss.item() == pytest.approx(np.log(7), rel=1e-6)
    custom = impl.cross_entropy(mg.zeros(2, 3), mg.tensor([1, 9]), ignore_index=9)
    assert custom.item() == pytest.approx(np.log(3), rel=1e-6), (
        f"loss {custom.item():.4f} with one of the 2 examples ignored, log 3 = {np.log(3):.4f}: "
        "divide by the number of examples kept, not by N"
    )


@pytest.mark.exercise("5.3")
def test_bce_with_logits_matches_minigenesis(impl):
    rng = np.random.default_rng(2)
    data, y = rng.standard_normal((5, 3)) * 4, _t(rng.random((5, 3)) > 0.5)
    x1, x2 = _t(data, True), _t(data, True)
    got, want = impl.bce_with_logits(x1, y), F.binary_cross_entropy_with_logits(x2, y)
    np.testing.assert_allclose(
        got.item(),
        want.item(),
        rtol=1e-12,
        err_msg="the MEAN over all elements of max(x, 0) - x * y + log(1 + exp(-|x|))",
    )
    got.backward()
    want.backward()
    np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=1e-10, atol=1e-15)


@pytest.mark.exercise("5.3")
def test_bce_with_logits_is_stable(impl):
    x = mg.tensor([100.0, -100.0, 100.0, -100.0])  # float32: sigmoid saturates to exactly 0 / 1
    y = mg.tensor([1.0, 0.0, 0.0, 1.0])
    loss = impl.bce_with_logits(x, y).item()
    assert np.isfinite(loss), (
        f"loss {loss} for logits of +-100: sigmoid rounds to exactly 0 or 1 and its log is "
        "-inf; use the form max(x, 0) - x * y + log(1 + exp(-|x|))"
    )
    assert loss == pytest.approx((0 + 0 + 100 + 100) / 4, rel=1e-6), (
        f"loss {loss}, the mean of the per-element losses 0, 0, 100, 100 is 50"
    )


def _regression(seed=3, n=64):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    w_true, b_true = np.array([[1.5, -2.0, 0.5]]), 0.3
    y = (x @ w_true.T + b_true + 0.1 * rng.standard_normal((n, 1))).astype(np.float32)
    return x, y


@pytest.mark.exercise("5.4")
def test_train_step_matches_optim_sgd(impl):
    mg.manual_seed(4)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    twin = copy.deepcopy(model)
    x, y = (mg.tensor(a) for a in _regression())
    opt = mg.optim.SGD(twin.parameters(), lr=0.05)
    for step in range(3):
        got = impl.train_step(model, F.mse_loss, x, y, lr=0.05)
        opt.zero_grad()
        loss = F.mse_loss(twin(x), y)
        loss.backward()
        opt.step()
        assert isinstance(got, float), f"train_step returned {type(got).__name__}: loss.item()"
        assert got == pytest.approx(loss.item(), rel=1e-6), (
            f"step {step + 1}: loss {got:.6f}, mg.optim.SGD's twin {loss.item():.6f}"
            + (": the update before it differs from p -= lr * p.grad" if step else "")
        )
    for (name, p), q in zip(model.named_parameters(), twin.parameters()):
        np.testing.assert_allclose(
            p.detach().numpy(),
            q.detach().numpy(),
            rtol=1e-6,
            atol=1e-7,
            err_msg=f"{name}: the update is p -= lr * p.grad",
        )
        assert not p.requires_grad or p.grad_fn is None  # still leaves: updated without a graph


@pytest.mark.exercise("5.4")
def test_train_step_clears_old_gradients_first_and_keeps_its_own(impl):
    mg.manual_seed(4)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    twin = copy.deepcopy(model)
    x, y = (mg.tensor(a) for a in _regression())
    start = copy.deepcopy(model)
    stale = copy.deepcopy(model)  # what a step that keeps the leftover gradients would give
    F.mse_loss(model(x * 3), y).backward()  # gradients left over from something else
    F.mse_loss(stale(x * 3), y).backward()
    impl.train_step(model, F.mse_loss, x, y, lr=0.05)
    opt = mg.optim.SGD(twin.parameters(), lr=0.05)
    F.mse_loss(twin(x), y).backward()
    opt.step()
    F.mse_loss(stale(x), y).backward()
    mg.optim.SGD(stale.parameters(), lr=0.05).step()
    params = zip(
        model.named_parameters(), twin.parameters(), stale.parameters(), start.parameters()
    )
    for (name, p), q, r, s0 in params:
        if np.allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6, atol=1e-7):
            continue
        assert not np.array_equal(p.detach().numpy(), s0.detach().numpy()), (
            f"{name} did not change: `p = p - lr * p.grad` only rebinds the loop's name; change "
            "the parameter itself, in place (p -= lr * p.grad, or p.sub_(...))"
        )
        assert not np.allclose(p.detach().numpy(), r.detach().numpy(), rtol=1e-6, atol=1e-7), (
            f"{name}: the model came with gradients from an earlier backward, and the step used "
            "them too: call model.zero_grad() BEFORE the forward and backward of this step"
        )
        pytest.fail(f"{name}: the update differs from mg.optim.SGD's p -= lr * p.grad")
        assert np.allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=1e-7), (
            f"{name}.grad after the step is not this step's gradient: leave p.grad as backward "
            "made it (`p.sub_(lr * p.grad)`, not `p.grad.mul_(lr)`), and do not clear it after"
        )


@pytest.mark.exercise("5.5")
def test_fit_starts_training_mode_and_shuffles_every_epoch(impl):
    mg.manual_seed(11)
    x, y = _regression(seed=12, n=10)
    model = nn.Linear(3, 1)
    model.eval()
    orders = []
    model.register_forward_hook(lambda m, inp, out: orders.append(inp[0].detach().numpy()))
    impl.fit(model, mg.tensor(x), mg.tensor(y), epochs=3, batch_size=10, lr=0.0)
    assert model.training, "fit trains: call model.train() first (the model came in eval mode)"
    rows = [[int(np.flatnonzero((x == row).all(axis=1))[0]) for row in o] for o in orders]
    assert rows[0] != list(range(10)), "epoch 1 saw the examples in order: shuffle with randperm"
    assert rows[0] != rows[1] != rows[2], (
        f"the epochs saw the examples in the orders {rows}: draw a new perm = "
        "mg.randperm(len(x)) at the start of EVERY epoch"
    )


@pytest.mark.exercise("5.5")
def test_fit_reaches_the_least_squares_solution(impl):
    mg.manual_seed(5)
    x, y = _regression(seed=6, n=96)
    model = nn.Linear(3, 1)
    history = impl.fit(model, mg.tensor(x), mg.tensor(y), epochs=40, batch_size=16, lr=0.05)
    assert len(history) == 40 and all(isinstance(h, float) for h in history)
    assert history[-1] < 0.1 * history[0]
    design = np.hstack([x, np.ones((len(x), 1))]).astype(np.float64)
    coef, *_ = np.linalg.lstsq(design, y.astype(np.float64), rcond=None)
    np.testing.assert_allclose(model.weight.detach().numpy().ravel(), coef[:3, 0], atol=0.02)
    np.testing.assert_allclose(model.bias.item(), coef[3, 0], atol=0.02)
    assert model.training


@pytest.mark.exercise("5.5")
def test_fit_uses_partial_last_batches(impl):
    """10 examples in batches of 4: 4 + 4 + 2, the epoch loss is their size-weighted mean."""
    mg.manual_seed(7)
    x, y = _regression(seed=8, n=10)
    model = nn.Linear(3, 1)
    seen = []
    model.register_forward_hook(lambda m, inp, out: seen.append(inp[0].shape[0]))
    impl.fit(model, mg.tensor(x), mg.tensor(y), epochs=1, batch_size=4, lr=0.01)
    assert seen == [4, 4, 2], (
        f"batch sizes {seen}: 10 examples in batches of 4 are 4 + 4 + 2, keep the last, "
        "smaller batch"
    )


@pytest.mark.exercise("5.5")
def test_fit_weights_the_epoch_loss_by_batch_size(impl):
    """With lr = 0 the model never changes, so the size-weighted mean of the batch losses is the
    loss over all 10 examples, whatever the shuffle; the plain mean of the three batch means
    counts the 2 examples of the last batch twice as much as the others."""
    mg.manual_seed(9)
    x, y = (mg.tensor(a) for a in _regression(seed=10, n=10))
    model = nn.Linear(3, 1)
    with mg.no_grad():
        whole = F.mse_loss(model(x), y).item()
    (got,) = impl.fit(model, x, y, epochs=1, batch_size=4, lr=0.0)
    assert got == pytest.approx(whole, rel=1e-5), (
        f"epoch loss {got:.6f}, the loss over all examples is {whole:.6f}: weight each batch's "
        "loss by its size (the last batch holds 2 examples, not 4)"
    )


# ----------------------------------------------------------------------------- 5.6
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("91b20307c97d63c2", "c1855357e4ec50f4a881c50abff6823628f1498128973569b980b2b9768ad1e4"),
    "q2": ("cd17d2b4a55f194d", "6b84fae1f5828601823fc4b7cb0f9bd0c4b476a220d1401794bcd4e9ec7c925e"),
    "q3": ("250026a9897b58be", "1e4bd6997fb574f0fc5378e9d2a279a9e65bb0af039a1c6580694fa89e289971"),
    "q4": ("660aeeaff30e40d7", "ec62b0c454edb3c5b85d07cc48a98b23fd35e070894257e99b7946c66dce527c"),
}
QUIZ_HINTS = {
    "q1": ("Re-read 'Log-softmax, computed safely': what does exp(1000) give in float32?"),
    "q2": (
        "Write the loss as -z_y + log(sum_j exp(z_j)) and differentiate each term "
        "('Cross-entropy and the gradient it sends back')."
    ),
    "q3": (
        "Re-read 'The training loop': what does backward() do to a .grad that already holds a "
        "value?"
    ),
    "q4": ("Re-read 'Binary cross-entropy: keep the logits': what is sigmoid(30) in float32?"),
}


@pytest.mark.exercise("5.6")
@pytest.mark.parametrize("question", list(QUIZ))
def test_5_6_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
