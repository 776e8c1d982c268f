"""Checks for chapter 14. Oracles: minigenesis's nn.RNNCell, nn.LSTMCell and nn.LSTM with the
same weights (values and gradients), the closed form 1 W^steps of the linear RNN's gradient, and
generation recomputed from the whole text at every step."""

from __future__ import annotations

import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg
from minigenesis import nn

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 14.1  return nn.RNNCell's result with the weights copied in     -> by-hand watch (no nn.RNNCell)
#       tanh(x W_ih + h W_hh) (weights not transposed)             -> vs nn.RNNCell (non-square)
# 14.2  np.linalg.matrix_power on w_hh.numpy(), no autograd        -> w_hh.grad closed form
#       mg.linalg.matrix_power with no backward                    -> w_hh.grad closed form
#       h @ w_hh, not h @ w_hh.mT (same norm for an orthogonal W)   -> W transposed
# 14.3  return nn.LSTMCell's result with the weights copied in    -> by-hand watch
#       gate order i, g, f, o (not PyTorch's i, f, g, o)           -> vs nn.LSTMCell
# 14.4  an nn.RNN in place of the LSTM                             -> layers and shapes
#       forward ignores the state it is given                      -> carries the state
# 14.5  re-read the whole text at every step (the docstring says not to) -> greedy generation
#       sample instead of argmax                                   -> greedy generation
#       no model.eval() / no mg.no_grad()                           -> eval mode, no graph
#       model.train() at the end, whatever mode it was in          -> eval mode, no graph


def _leaf(shape, k, scale=0.5):
    rng = np.random.default_rng(k)
    return mg.tensor(rng.standard_normal(shape) * scale, dtype=mg.float64, requires_grad=True)


def _cell_case(cell_cls, gates, k=0):
    """A float64 cell of minigenesis and the same weights as leaves for the learner's function."""
    cell = cell_cls(3, 4).to(mg.float64)
    x, h = _leaf((2, 3), k), _leaf((2, 4), k + 1)
    weights = [p.detach().clone().requires_grad_() for p in cell.parameters()]
    g = gates * 4  # hidden size 4
    assert [tuple(w.shape) for w in weights] == [(g, 3), (g, 4), (g,), (g,)]
    return cell, x, h, weights


def _assert_close(a, b, what):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12,
                               err_msg=what)  # fmt: skip


# ----------------------------------------------------------------------------- 14.1
@pytest.mark.exercise("14.1")
def test_14_1_rnn_cell_matches_nn_rnncell_values_and_gradients(impl) -> None:
    cell, x, h, (w_ih, w_hh, b_ih, b_hh) = _cell_case(nn.RNNCell, 1)
    x2, h2 = x.detach().clone().requires_grad_(), h.detach().clone().requires_grad_()
    ours = impl.rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh)
    ref = cell(x2, h2)
    _assert_close(ours, ref, "h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh), both biases")
    weight = _leaf(tuple(ref.shape), 9).detach()
    (ours * weight).sum().backward()
    (ref * weight).sum().backward()
    _assert_close(x.grad, x2.grad, "dL/dx")
    _assert_close(h.grad, h2.grad, "dL/dh")
    for mine, p in zip((w_ih, w_hh, b_ih, b_hh), cell.parameters()):
        _assert_close(mine.grad, p.grad, "a weight's gradient")


@pytest.mark.exercise("14.1")
def test_14_1_unrolled_rnn_cell_is_nn_rnn(impl) -> None:
    mg.manual_seed(1)
    rnn = nn.RNN(3, 4).to(mg.float64)
    xs = _leaf((6, 2, 3), 2).detach()
    h = mg.zeros(2, 4, dtype=mg.float64)
    outs = []
    for t in range(6):
        h = impl.rnn_cell(xs[t], h, *rnn.parameters())
        outs.append(h)
    ref, h_n = rnn(xs)
    _assert_close(mg.stack(outs), ref, "outputs: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)")
    _assert_close(h, h_n[0], "final state")


# ----------------------------------------------------------------------------- 14.2
def _gradient_through_time(impl, w_hh, steps: int) -> float:
    try:
        return impl.gradient_through_time(w_hh, steps)
    except RuntimeError as e:
        if "dtype" not in str(e):
            raise
        pytest.fail(
            f"gradient_through_time raised RuntimeError: {e}. The check's w_hh is float64: make "
            "h_0 in its dtype, mg.ones(1, hidden, dtype=w_hh.dtype, requires_grad=True)"
        )
    except (TypeError, AttributeError) as e:
        if "NoneType" not in str(e):
            raise
        pytest.fail(
            f"gradient_through_time raised {type(e).__name__}: {e}. Is h_0.grad None? Only a "
            "tensor that requires grad gets a .grad: mg.ones(1, hidden, requires_grad=True)"
        )


@pytest.mark.exercise("14.2")
@pytest.mark.parametrize("scale,steps", [(0.5, 10), (1.0, 25), (1.5, 20), (1.2, 1)])
def test_14_2_gradient_through_time_is_one_times_w_to_the_power_steps(impl, scale, steps) -> None:
    rng = np.random.default_rng(int(scale * 10) + steps)
    q, _ = np.linalg.qr(rng.standard_normal((5, 5)))  # orthogonal: every |eigenvalue| is 1
    w = scale * q
    w_hh = mg.tensor(w, dtype=mg.float64, requires_grad=True)
    got = _gradient_through_time(impl, w_hh, steps)
    assert isinstance(got, float), "return a Python float"
    expected = np.linalg.norm(np.ones(5) @ np.linalg.matrix_power(w, steps))
    assert got == pytest.approx(expected, rel=1e-9)
    assert got == pytest.approx(np.sqrt(5) * scale**steps, rel=1e-9)  # |1| scale^steps
    # The graph went through w_hh: dL/dW = sum over t of (dL/dh_t)^T h_{t-1}, with
    # h_t = 1 (W^T)^t and dL/dh_t = 1 W^(steps - t), in closed form with NumPy.
    assert w_hh.grad is not None, "backward through w_hh as given (its .grad is None)"
    ones = np.ones((1, 5))
    want = sum(
        (ones @ np.linalg.matrix_power(w, steps - t)).T
        @ (ones @ np.linalg.matrix_power(w.T, t - 1))
        for t in range(1, steps + 1)
    )
    np.testing.assert_allclose(w_hh.grad.numpy(), want, rtol=1e-9, atol=1e-12)


@pytest.mark.exercise("14.2")
def test_14_2_multiplies_by_w_transposed(impl) -> None:
    # not orthogonal, not symmetric: 1 W^s and 1 (W^T)^s have different norms here (an
    # orthogonal W gives the same norm either way, and the same w_hh.grad)
    w = np.array([[0.5, 2.0, 0.0], [0.0, 0.3, 0.0], [0.1, 0.0, 0.9]])
    got = _gradient_through_time(impl, mg.tensor(w, dtype=mg.float64, requires_grad=True), 4)
    expected = np.linalg.norm(np.ones(3) @ np.linalg.matrix_power(w, 4))
    transposed = np.linalg.norm(np.ones(3) @ np.linalg.matrix_power(w.T, 4))
    assert got == pytest.approx(expected, rel=1e-9), f"got {got:.6g}, expected {expected:.6g}" + (
        ": that is the norm for h_t = h_{t-1} W; the RNN multiplies by W^T "
        "(h @ w_hh.mT, as nn.RNNCell)"
        if got == pytest.approx(transposed, rel=1e-9)
        else ""
    )


# ----------------------------------------------------------------------------- 14.3
@pytest.mark.exercise("14.3")
def test_14_3_lstm_cell_matches_nn_lstmcell_values_and_gradients(impl) -> None:
    cell, x, h, (w_ih, w_hh, b_ih, b_hh) = _cell_case(nn.LSTMCell, 4, k=3)
    c = _leaf((2, 4), 5)
    x2, h2, c2 = (t.detach().clone().requires_grad_() for t in (x, h, c))
    ours = impl.lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh)
    assert isinstance(ours, tuple) and len(ours) == 2, "return (h', c')"
    ref = cell(x2, (h2, c2))
    order = "the blocks in PyTorch's order i, f, g, o (g the tanh candidate, third)"
    _assert_close(ours[1], ref[1], f"c' = f * c + i * g, {order}")
    _assert_close(ours[0], ref[0], f"h' = o * tanh(c'), {order}")
    wh, wc = _leaf((2, 4), 6).detach(), _leaf((2, 4), 7).detach()
    ((ours[0] * wh).sum() + (ours[1] * wc).sum()).backward()
    ((ref[0] * wh).sum() + (ref[1] * wc).sum()).backward()
    for a, b, what in ((x, x2, "dL/dx"), (h, h2, "dL/dh"), (c, c2, "dL/dc")):
        _assert_close(a.grad, b.grad, what)
    for mine, p in zip((w_ih, w_hh, b_ih, b_hh), cell.parameters()):
        _assert_close(mine.grad, p.grad, "a weight's gradient")


@pytest.mark.exercise("14.3")
def test_14_3_forget_gate_open_and_input_gate_shut_keep_the_cell_state(impl) -> None:
    """With f = sigmoid(+30) ~ 1 and i = sigmoid(-30) ~ 0, c' = c: the memory is carried."""
    hidden = 3
    w_ih, w_hh = mg.zeros(4 * hidden, 2), mg.zeros(4 * hidden, hidden)
    b = mg.tensor([-30.0] * hidden + [30.0] * hidden + [0.0] * 2 * hidden)
    c = mg.tensor([[0.5, -2.0, 1.5]])
    h_new, c_new = impl.lstm_cell(mg.randn(1, 2), mg.randn(1, hidden), c, w_ih, w_hh, b, b * 0)
    np.testing.assert_allclose(c_new.numpy(), c.numpy(), rtol=1e-6)
    np.testing.assert_allclose(h_new.numpy(), 0.5 * np.tanh(c.numpy()), rtol=1e-6)


# ----------------------------------------------------------------------------- 14.4
@pytest.mark.exercise("14.4")
def test_14_4_char_lstm_layers_shapes_and_state(impl) -> None:
    mg.manual_seed(0)
    model = impl.CharLSTM(11, embed_dim=5, hidden_size=7, num_layers=2)
    assert isinstance(model.embed, nn.Embedding) and isinstance(model.lstm, nn.LSTM)
    assert isinstance(model.head, nn.Linear)
    assert model.lstm.batch_first, "x is (batch, seq_len): nn.LSTM(..., batch_first=True)"
    assert tuple(model.embed.weight.shape) == (11, 5) and model.lstm.num_layers == 2
    x = mg.randint(0, 11, (3, 8))
    logits, (h, c) = model(x)
    assert tuple(logits.shape) == (3, 8, 11)
    assert tuple(h.shape) == (2, 3, 7) and tuple(c.shape) == (2, 3, 7)
    ref, _ = model.lstm(model.embed(x))
    _assert_close(logits, model.head(ref), "logits")


@pytest.mark.exercise("14.4")
def test_14_4_char_lstm_carries_the_state_it_is_given(impl) -> None:
    mg.manual_seed(1)
    model = impl.CharLSTM(9, embed_dim=4, hidden_size=6)
    x = mg.randint(0, 9, (2, 10))
    whole, _ = model(x)
    first, state = model(x[:, :4])
    second, _ = model(x[:, 4:], state)
    np.testing.assert_allclose(mg.cat([first, second], dim=1).detach().numpy(),
                               whole.detach().numpy(), rtol=1e-5, atol=1e-6)  # fmt: skip


# ----------------------------------------------------------------------------- 14.5
class _Reference(nn.Module):
    """A fixed small model (the reference CharLSTM's layers) for the generation checks."""

    def __init__(self, vocab: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, 6)
        self.lstm = nn.LSTM(6, 12, batch_first=True)
        self.head = nn.Linear(12, vocab)
        self.calls: list[int] = []

    def forward(self, x, state=None):
        self.calls.append(x.shape[1])
        out, state = self.lstm(self.embed(x), state)
        return self.head(out) * 5, state  # sharp logits: no near-ties in the argmax


@pytest.mark.exercise("14.5")
def test_14_5_greedy_generation_equals_rereading_the_whole_text(impl) -> None:
    mg.manual_seed(2)
    model = _Reference(10)
    model.train()
    prompt = [3, 1, 4, 1, 5]
    got = impl.generate(model, prompt, 12)
    assert got[:5] == prompt and len(got) == 17
    assert model.training, "put the model back in the mode it was in"
    assert model.calls == [5] + [1] * 11, "the prompt once, then one character per step"
    text = list(prompt)
    with mg.no_grad():
        for _ in range(12):
            logits, _ = model(mg.tensor([text]))
            text.append(int(logits[0, -1].argmax()))
    first = next((i for i, (a, b) in enumerate(zip(got, text)) if a != b), None)
    assert got == text, (
        f"character {first} differs from re-reading the whole text: feed each new character "
        "with the state the previous call returned"
    )


@pytest.mark.exercise("14.5")
def test_14_5_generates_in_eval_mode_without_a_graph(impl) -> None:
    mg.manual_seed(2)
    model = _Reference(10)
    model.train()
    seen = []  # (training?, logits require grad?) at each call of the model
    model.register_forward_hook(lambda m, i, out: seen.append((m.training, out[0].requires_grad)))
    impl.generate(model, [3, 1, 4], 4)
    assert seen and not any(training for training, _ in seen), (
        "generate ran the model in training mode (dropout would change the text): call "
        "model.eval() first, and model.train(was_training) at the end"
    )
    assert not any(graph for _, graph in seen), (
        "generate ran the model with gradients on, so every step kept its graph: run it under "
        "`with mg.no_grad():`"
    )
    model.eval()
    impl.generate(model, [3, 1, 4], 2)
    assert not model.training, (
        "the model was in eval mode before generate and in training mode after: put it back in "
        "the mode it was in (model.train(was_training)), not always in training mode"
    )


# ----------------------------------------------------------------------------- by hand
def _without(call, names: tuple[str, ...], what: str):
    """Run ``call()`` and fail if a function whose qualified name starts with one of ``names``
    ran in it: the layer the exercise rebuilds is the checks' oracle, not part of the answer."""
    with watch_calls() as seen:
        result = call()
    used = [q for name in names for q in seen.ran(name)]
    assert not used, f"{what} ran {', '.join(used[:3])}: write it with Tensor ops"
    return result


@pytest.mark.exercise("14.1")
def test_14_1_rnn_cell_is_written_with_tensor_ops(impl) -> None:
    _, x, h, weights = _cell_case(nn.RNNCell, 1, k=4)
    _without(lambda: impl.rnn_cell(x, h, *weights), ("RNNCell", "RNNBase", "RNN."), "rnn_cell")


@pytest.mark.exercise("14.3")
def test_14_3_lstm_cell_is_written_with_tensor_ops(impl) -> None:
    _, x, h, weights = _cell_case(nn.LSTMCell, 4, k=5)
    c = _leaf((2, 4), 6)
    _without(
        lambda: impl.lstm_cell(x, h, c, *weights), ("LSTMCell", "RNNCell", "LSTM."), "lstm_cell"
    )


# ----------------------------------------------------------------------------- 14.6
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("3ac749efe62cf86e", "245d3fe65903ba1545a1fc0c1baa76f38725b2669925fa7a53cc6daf73760af8"),
    "q2": ("484e2063ddc304d1", "827bd41fde3bb8dcfd68b80490b263dfed8942c87b516890b3b1cddd553aefdc"),
    "q3": ("32ea8f2efd61ead9", "889366985e7960c5b6e2edf1cbf7c0835cc780d647f4bee4bef170ae53ba070f"),
    "q4": ("cb5a26e05c09a34c", "14222cc43e303c3c08a2b0aa9798ce67985ac1b13e56d52e61782e5e3ab1d2b9"),
}
QUIZ_HINTS = {
    "q1": (
        "Each step back through time multiplies by W^T ('Gradients through time: vanishing and "
        "exploding')."
    ),
    "q2": (
        "Differentiate c_t with respect to c_{t-1} and compare with dh_t/dh_{t-1} of the RNN "
        "('The LSTM: a memory with gates')."
    ),
    "q3": (
        "Re-read 'Why gradient clipping': what does clip_grad_norm_ keep, and what does it bound?"
    ),
    "q4": (
        "What does the model know at each step when the state starts from zeros every time "
        "('Letting it write')?"
    ),
}


@pytest.mark.exercise("14.6")
@pytest.mark.parametrize("question", list(QUIZ))
def test_14_6_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
