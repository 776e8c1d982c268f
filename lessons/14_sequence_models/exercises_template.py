"""Chapter 14 exercises: sequence models. An RNN step and an LSTM step by hand, gradients
through time, a character-level LSTM and text generation.

You write the cells with Tensor ops only; the checks compare them with minigenesis's nn.RNNCell,
nn.LSTMCell and nn.LSTM (PyTorch's gate order and parameter layout) and with closed forms.

    python -m pytest lessons/14_sequence_models
"""

from __future__ import annotations

import minigenesis as mg
from minigenesis import nn

TEXT = (
    "the quick brown fox jumps over the lazy dog. the lazy dog sleeps in the sun. "
    "the quick fox runs to the river and the dog runs after the fox. "
    "a fox is quick and a dog is lazy, but the dog is kind and the fox is not. "
) * 3


def encode(text: str) -> tuple[list[str], mg.Tensor]:
    """Ready-made (not an exercise): the sorted characters of ``text`` (the vocabulary) and the
    text as an int64 tensor of their indices."""
    vocab = sorted(set(text))
    index = {ch: i for i, ch in enumerate(vocab)}
    return vocab, mg.tensor([index[ch] for ch in text], dtype=mg.int64)


def windows(ids: mg.Tensor, seq_len: int, batch_size: int) -> tuple[mg.Tensor, mg.Tensor]:
    """Ready-made (not an exercise): ``batch_size`` random windows of ``seq_len`` characters and,
    for each, the same window shifted by one (the next character to predict at each position).
    Both int64 of shape (batch_size, seq_len)."""
    starts = mg.randint(0, ids.shape[0] - seq_len - 1, (batch_size,)).tolist()
    x = mg.stack([ids[s : s + seq_len] for s in starts])
    y = mg.stack([ids[s + 1 : s + seq_len + 1] for s in starts])
    return x, y


def rnn_cell(
    x: mg.Tensor,
    h: mg.Tensor,
    w_ih: mg.Tensor,
    w_hh: mg.Tensor,
    b_ih: mg.Tensor,
    b_hh: mg.Tensor,
) -> mg.Tensor:
    """Exercise 14.1: one step of a plain (Elman) RNN, as ``nn.RNNCell`` computes it:

        h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)

    x: (batch, input_size), h: (batch, hidden), w_ih: (hidden, input_size), w_hh: (hidden,
    hidden), biases (hidden,). Returns h' of shape (batch, hidden). Tensor ops only (``@``,
    ``.mT``, ``+``, ``.tanh()``), so that autograd gives the gradient.
    """
    raise NotImplementedError("Exercise 14.1: tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)")


def gradient_through_time(w_hh: mg.Tensor, steps: int) -> float:
    """Exercise 14.2: how big is the gradient after ``steps`` steps back through time?

    Run a *linear* RNN without input, ``h_t = h_{t-1} W^T`` (``W = w_hh``, hidden x hidden), for
    ``steps`` steps from ``h_0 = ones(1, hidden)`` in ``w_hh``'s dtype (matmul wants both the
    same) and requiring grad. Back-propagate
    ``L = h_steps.sum()`` and return the norm of dL/dh_0 as a Python float.

    Let autograd do it, through ``w_hh`` as given (no ``.detach()``, no NumPy copy): the check
    passes a ``w_hh`` that requires grad and reads the ``w_hh.grad`` your backward leaves.

    (dL/dh_0 = 1 W^steps: its size grows or shrinks like the largest |eigenvalue| of W to the
    power ``steps``.)
    """
    raise NotImplementedError("Exercise 14.2: h = h @ W.mT, steps times; backward; |h0.grad|")


def lstm_cell(
    x: mg.Tensor,
    h: mg.Tensor,
    c: mg.Tensor,
    w_ih: mg.Tensor,
    w_hh: mg.Tensor,
    b_ih: mg.Tensor,
    b_hh: mg.Tensor,
) -> tuple[mg.Tensor, mg.Tensor]:
    """Exercise 14.3: one LSTM step, as ``nn.LSTMCell`` computes it. The pre-activations
    ``x W_ih^T + b_ih + h W_hh^T + b_hh`` have 4 * hidden columns: four blocks of ``hidden``, in
    PyTorch's order i (input gate), f (forget gate), g (candidate), o (output gate).

        i, f, o = sigmoid of their blocks,   g = tanh of its block
        c' = f * c + i * g
        h' = o * tanh(c')

    Returns (h', c'), each (batch, hidden). (``t.chunk(4, dim=1)`` cuts the four blocks.)
    """
    raise NotImplementedError("Exercise 14.3: four gate blocks; c' = f c + i g; h' = o tanh(c')")


class CharLSTM(nn.Module):
    """Exercise 14.4: a character-level language model.

    - ``self.embed = nn.Embedding(vocab_size, embed_dim)``;
    - ``self.lstm = nn.LSTM(embed_dim, hidden_size, num_layers, batch_first=True)``;
    - ``self.head = nn.Linear(hidden_size, vocab_size)``.

    ``forward(x, state=None)``: x int64 (batch, seq_len) -> (logits (batch, seq_len, vocab_size),
    the LSTM's final state ``(h_n, c_n)``), passing ``state`` to the LSTM as its initial state.
    """

    def __init__(
        self, vocab_size: int, embed_dim: int = 16, hidden_size: int = 64, num_layers: int = 1
    ) -> None:
        super().__init__()
        raise NotImplementedError("Exercise 14.4: an Embedding, an LSTM (batch_first), a Linear")

    def forward(self, x: mg.Tensor, state: tuple | None = None) -> tuple:
        """Exercise 14.4 (forward): embed, run the LSTM from ``state``, map to the vocabulary."""
        raise NotImplementedError("Exercise 14.4: embed -> lstm(., state) -> head; (logits, state)")


def generate(model: nn.Module, prompt: list[int], n: int) -> list[int]:
    """Exercise 14.5: greedy generation: the prompt followed by ``n`` new character indices.

    In eval mode and under ``mg.no_grad()``: run the model once on the whole prompt (a batch of
    one, shape (1, len(prompt))), keep the state it returns, and take the argmax of the last
    position's logits as the next character. Then, ``n - 1`` more times, feed only that one
    character (shape (1, 1)) with the carried state and take the argmax again. Do not re-read
    the whole text at each step: the state carries it. Put the model back in the mode it was in.
    """
    raise NotImplementedError("Exercise 14.5: prompt once, then one character at a time")


def quiz() -> dict[str, str]:
    """Exercise 14.6: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 4 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 14.6: return {'q1': letter, ...}, your answers to the self-check questions"
    )
