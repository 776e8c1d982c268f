"""Recurrent layers: a training step of a word-level LSTM language model, against PyTorch.

    python bench/bench_rnn.py            (--vocab, --hidden, --steps, --batch, --rounds, --threads)

The model is the one of PyTorch's word_language_model example: Embedding(vocab, 200), a 2-layer
LSTM of 200 units, Linear(200, vocab), cross entropy over 35 steps x 20 sequences, gradient
clipping at 0.25 and an SGD step; the hidden state is carried from batch to batch, detached. Both
libraries get the same weights and one BLAS thread each. Rounds alternate the two (one step each),
so a change in the machine's load hits both; the figure is the median of the per-round ratios, with
their spread. A second line times the LSTM alone (forward + backward of a sum of its output), the
part the fused cell op speeds up.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--vocab", type=int, default=10000)
parser.add_argument("--hidden", type=int, default=200)
parser.add_argument("--layers", type=int, default=2)
parser.add_argument("--steps", type=int, default=35)
parser.add_argument("--batch", type=int, default=20)
parser.add_argument("--rounds", type=int, default=15)
args = parser.parse_args()
os.environ.setdefault("OPENBLAS_NUM_THREADS", str(args.threads))  # before NumPy loads BLAS
os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
os.environ.setdefault("MKL_NUM_THREADS", str(args.threads))

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import minigenesis as mg  # noqa: E402
from minigenesis.kernels.memory import keep_freed_memory  # noqa: E402

try:
    import torch

    torch.set_num_threads(args.threads)
except ImportError:
    torch = None


def language_model(lib, vocab: int, hidden: int, layers: int):
    """The same model in either library (``lib`` is torch or minigenesis)."""

    class RNNModel(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = lib.nn.Embedding(vocab, hidden)
            self.rnn = lib.nn.LSTM(hidden, hidden, layers)
            self.decoder = lib.nn.Linear(hidden, vocab)

        def forward(self, x, state):
            out, state = self.rnn(self.encoder(x), state)
            return self.decoder(out).reshape(-1, vocab), state

    return RNNModel()


def trainer(lib, model, data, targets):
    """One training step as in the example, carrying the detached state across calls."""
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = lib.nn.CrossEntropyLoss()
    holder = {"state": None}

    def step():
        state = holder["state"]
        if state is not None:
            state = tuple(s.detach() for s in state)
        opt.zero_grad()
        logits, state = model(data, state)
        loss = loss_fn(logits, targets)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        opt.step()
        holder["state"] = state

    return step


def lstm_only(lib, lstm, x):
    def step():
        lstm.zero_grad()
        out, _ = lstm(x)
        out.sum().backward()

    return step


def interleave(ours, theirs, rounds: int):
    """Median and range of ours/theirs over alternating rounds, and our median time."""
    ours()
    theirs()  # warm up
    ratios, times = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        ours()
        t1 = time.perf_counter()
        theirs()
        t2 = time.perf_counter()
        ratios.append((t1 - t0) / (t2 - t1))
        times.append(t1 - t0)
    return float(np.median(ratios)), min(ratios), max(ratios), float(np.median(times))


def main() -> None:
    keep_freed_memory()  # as a training loop does (minigenesis/kernels/memory.py)
    v, h, layers, steps, batch = args.vocab, args.hidden, args.layers, args.steps, args.batch
    rng = np.random.default_rng(0)
    data = rng.integers(0, v, (steps, batch))
    targets = rng.integers(0, v, steps * batch)
    print(
        f"threads: {args.threads}; word LM: vocab {v}, embedding/hidden {h}, {layers}-layer LSTM, "
        f"{steps} steps x batch {batch}; {args.rounds} interleaved rounds"
    )
    mg.manual_seed(0)
    model = language_model(mg, v, h, layers)
    ours = trainer(mg, model, mg.tensor(data), mg.tensor(targets))
    x = mg.tensor(rng.standard_normal((steps, batch, h)).astype(np.float32))
    lstm_ours = lstm_only(mg, model.rnn, x)
    if torch is None:
        for name, fn in (("word LM step", ours), ("LSTM fwd+bwd", lstm_ours)):
            fn()
            t = time.perf_counter()
            fn()
            print(f"{name:14} {1e3 * (time.perf_counter() - t):8.1f} ms (torch not installed)")
        return
    ref = language_model(torch, v, h, layers)
    ref.load_state_dict({k: torch.tensor(p.numpy()) for k, p in model.state_dict().items()})
    theirs = trainer(torch, ref, torch.tensor(data), torch.tensor(targets))
    lstm_theirs = lstm_only(torch, ref.rnn, torch.tensor(x.numpy()))
    for name, a, b in (
        ("word LM step", ours, theirs),
        ("LSTM fwd+bwd", lstm_ours, lstm_theirs),
    ):
        med, lo, hi, t = interleave(a, b, args.rounds)
        print(f"{name:14} {1e3 * t:8.1f} ms   {med:5.2f}x PyTorch's time (range {lo:.2f}-{hi:.2f})")


if __name__ == "__main__":
    main()
