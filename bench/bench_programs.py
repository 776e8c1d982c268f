"""Training loops written the way real PyTorch programs are, minigenesis against PyTorch on the CPU.

``bench_models.py`` times models built from library layers; this script times the loops people
write around them: hand-written ops on leaf tensors, Python loops over time steps, in-place
activations, residual adds, weight-decay groups, gradient clipping, LBFGS in float64. Every
program is written ONCE against the shared API (``lib`` is ``minigenesis`` or ``torch``), one BLAS
thread each side, rounds interleaved, and the ratio ours / PyTorch taken per round on CPU time
(wall time beside it), as in ``bench_models.py`` (whose timing loop this script shares).

Rows (each one training step, batch drawn at random each step as a loop does):
  makemore   character MLP (Karpathy's makemore): C[X] lookup, view, 3 x (x @ W, BatchNorm1d,
             tanh), logits, F.cross_entropy, grads set to None, p.data += -lr * p.grad;
             vocab 27, context 3, embedding 10, hidden 200, batch 32
  mingpt     minGPT's block stack: nn.Linear, nn.GELU, nn.LayerNorm, causal self-attention written
             by hand (q @ k^T, masked_fill with a tril buffer, softmax, dropout), AdamW with weight
             decay groups, clip_grad_norm_; 4 layers, 4 heads, width 128, block 64, batch 16
  resnet     CIFAR ResNet: conv3x3(bias=False)-BatchNorm2d-ReLU(inplace=True) basic blocks with
             residual adds (1x1 conv shortcut where the shape changes), 16/32/64 channels, one
             block per stage, global average pool, SGD momentum + weight decay; batch 32, 32x32
  charrnn    char-RNN: nn.Embedding, h = tanh(i2h(x_t) + h2h(h)), logits = h2o(h) stepped in a
             Python loop over 32 steps, cross_entropy over the stacked logits, Adam, clipping;
             vocab 65, hidden 128, batch 16
  lstm-lbfgs time-series regression (PyTorch's time_sequence_prediction example, smaller): two
             nn.LSTMCell(51) stepped over 40 time steps + nn.Linear, float64, MSELoss, LBFGS
             (lr 0.8, 4 iterations per step, tolerances 0 so both sides run all 4); batch 16

    python bench/bench_programs.py                  # all rows
    python bench/bench_programs.py resnet charrnn   # some rows
    python bench/bench_programs.py --rounds 15      # default rounds: 9
    python bench/bench_programs.py --profile resnet # cProfile of our step, top 30 by own time
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_models as bm  # noqa: E402  (sets one BLAS thread before NumPy loads)
import numpy as np  # noqa: E402

import minigenesis as mg  # noqa: E402
from minigenesis.kernels.memory import keep_freed_memory  # noqa: E402

torch = bm.torch


# ----------------------------------------------------------------------------------------------
# makemore: hand-written MLP with BatchNorm1d
# ----------------------------------------------------------------------------------------------
def makemore(lib, rng):
    vocab, block, n_embd, n_hidden, batch, layers = 27, 3, 10, 200, 32, 3
    g = lib.Generator().manual_seed(2147483647)
    X = lib.tensor(rng.integers(0, vocab, (4096, block)))
    Y = lib.tensor(rng.integers(0, vocab, 4096))
    C = lib.randn((vocab, n_embd), generator=g)
    Ws, bns = [], []
    fan_in = n_embd * block
    for _ in range(layers):
        Ws.append(lib.randn((fan_in, n_hidden), generator=g) * (5 / 3) / fan_in**0.5)
        bns.append(lib.nn.BatchNorm1d(n_hidden))
        fan_in = n_hidden
    W2 = lib.randn((n_hidden, vocab), generator=g) * 0.01
    b2 = lib.randn(vocab, generator=g) * 0
    parameters = [C, *Ws, W2, b2] + [p for bn in bns for p in bn.parameters()]
    for p in parameters:
        p.requires_grad = True
    F = lib.nn.functional

    def step():
        ix = lib.randint(0, X.shape[0], (batch,), generator=g)
        Xb, Yb = X[ix], Y[ix]
        emb = C[Xb]
        h = emb.view(emb.shape[0], -1)
        for W, bn in zip(Ws, bns):
            h = lib.tanh(bn(h @ W))
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Yb)
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = 0.1
        for p in parameters:
            p.data += -lr * p.grad
        return loss

    return step


# ----------------------------------------------------------------------------------------------
# minGPT: the block stack with attention by hand, AdamW with weight decay groups
# ----------------------------------------------------------------------------------------------
def mingpt(lib, rng, vocab=65, n_embd=128, n_head=4, n_layer=4, block=64, batch=16):
    nn, F = lib.nn, lib.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.attn_dropout, self.resid_dropout = nn.Dropout(0.1), nn.Dropout(0.1)
            mask = lib.tril(lib.ones(block, block)).view(1, 1, block, block)
            self.register_buffer("bias", mask)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
            q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = self.attn_dropout(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            return self.resid_dropout(self.c_proj(y))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention()
            self.mlp = nn.ModuleDict(
                dict(
                    c_fc=nn.Linear(n_embd, 4 * n_embd),
                    c_proj=nn.Linear(4 * n_embd, n_embd),
                    act=nn.GELU(),
                    dropout=nn.Dropout(0.1),
                )
            )

        def forward(self, x):
            m = self.mlp
            x = x + self.attn(self.ln_1(x))
            return x + m.dropout(m.c_proj(m.act(m.c_fc(self.ln_2(x)))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(block, n_embd)
            self.drop = nn.Dropout(0.1)
            self.h = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.lm_head = nn.Linear(n_embd, vocab, bias=False)

        def forward(self, idx, targets):
            b, t = idx.size()
            pos = lib.arange(0, t, dtype=lib.long).unsqueeze(0)
            x = self.drop(self.wte(idx) + self.wpe(pos))
            for blk in self.h:
                x = blk(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    model = GPT()
    # minGPT's configure_optimizers: decay the Linear weights, not biases/LayerNorm/Embedding
    decay, no_decay = set(), set()
    for mn, m in model.named_modules():
        for pn, _ in m.named_parameters(recurse=False):
            fpn = f"{mn}.{pn}" if mn else pn
            if pn.endswith("weight") and isinstance(m, nn.Linear):
                decay.add(fpn)
            else:
                no_decay.add(fpn)
    params = dict(model.named_parameters())
    groups = [
        {"params": [params[n] for n in sorted(decay)], "weight_decay": 0.1},
        {"params": [params[n] for n in sorted(no_decay)], "weight_decay": 0.0},
    ]
    opt = lib.optim.AdamW(groups, lr=3e-4, betas=(0.9, 0.95))
    data = rng.integers(0, vocab, 20_000)

    def step():
        ix = rng.integers(0, len(data) - block - 1, batch)
        x = lib.tensor(np.stack([data[i : i + block] for i in ix]))
        y = lib.tensor(np.stack([data[i + 1 : i + 1 + block] for i in ix]))
        loss = model(x, y)
        model.zero_grad(set_to_none=True)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss

    return step


# ----------------------------------------------------------------------------------------------
# CIFAR ResNet: conv-BN-ReLU(inplace) basic blocks with residual adds
# ----------------------------------------------------------------------------------------------
def resnet(lib, rng, widths=(16, 32, 64), batch=32):
    nn, F = lib.nn, lib.nn.functional

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.shortcut = nn.Sequential()
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(
                    nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)
                )

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += self.shortcut(x)
            return self.relu(out)

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(widths[0])
            stages, cin = [], widths[0]
            for i, w in enumerate(widths):
                stages.append(BasicBlock(cin, w, 1 if i == 0 else 2))
                cin = w
            self.layers = nn.Sequential(*stages)
            self.linear = nn.Linear(widths[-1], 10)

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.layers(out)
            out = F.adaptive_avg_pool2d(out, 1).view(out.size(0), -1)
            return self.linear(out)

    model = ResNet()
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    criterion = nn.CrossEntropyLoss()
    images = rng.standard_normal((256, 3, 32, 32), dtype=np.float32)
    labels = rng.integers(0, 10, 256)

    def step():
        ix = rng.integers(0, len(images), batch)
        x, y = lib.from_numpy(images[ix]), lib.from_numpy(labels[ix])
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


# ----------------------------------------------------------------------------------------------
# char-RNN: nn.Linear cells stepped in a Python loop
# ----------------------------------------------------------------------------------------------
def charrnn(lib, rng, vocab=65, n_embd=64, hidden=128, steps=32, batch=16):
    nn, F = lib.nn, lib.nn.functional

    class CharRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, n_embd)
            self.i2h = nn.Linear(n_embd, hidden)
            self.h2h = nn.Linear(hidden, hidden)
            self.h2o = nn.Linear(hidden, vocab)

        def forward(self, idx):
            h = lib.zeros(idx.size(0), hidden)
            x = self.emb(idx)
            outs = []
            for t in range(idx.size(1)):
                h = lib.tanh(self.i2h(x[:, t]) + self.h2h(h))
                outs.append(self.h2o(h))
            return lib.stack(outs, dim=1)

    model = CharRNN()
    opt = lib.optim.Adam(model.parameters(), lr=2e-3)
    data = rng.integers(0, vocab, 20_000)

    def step():
        ix = rng.integers(0, len(data) - steps - 1, batch)
        x = lib.tensor(np.stack([data[i : i + steps] for i in ix]))
        y = lib.tensor(np.stack([data[i + 1 : i + 1 + steps] for i in ix]))
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, vocab), y.view(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        return loss

    return step


# ----------------------------------------------------------------------------------------------
# LSTMCell time series with LBFGS in float64
# ----------------------------------------------------------------------------------------------
def lstm_lbfgs(lib, rng, hidden=51, steps=40, batch=16):
    nn = lib.nn

    class Sequence(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm1 = nn.LSTMCell(1, hidden)
            self.lstm2 = nn.LSTMCell(hidden, hidden)
            self.linear = nn.Linear(hidden, 1)

        def forward(self, inp):
            outputs = []
            n = inp.size(0)
            h_t = lib.zeros(n, hidden, dtype=lib.double)
            c_t = lib.zeros(n, hidden, dtype=lib.double)
            h_t2 = lib.zeros(n, hidden, dtype=lib.double)
            c_t2 = lib.zeros(n, hidden, dtype=lib.double)
            for input_t in inp.split(1, dim=1):
                h_t, c_t = self.lstm1(input_t, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                outputs += [self.linear(h_t2)]
            return lib.cat(outputs, dim=1)

    phase = rng.integers(-80, 80, (batch, 1))
    wave = np.sin((np.arange(steps + 1) + phase) / 20.0)
    inp, target = lib.from_numpy(wave[:, :-1].copy()), lib.from_numpy(wave[:, 1:].copy())
    seq = Sequence().double()
    criterion = nn.MSELoss()
    opt = lib.optim.LBFGS(
        seq.parameters(), lr=0.8, max_iter=4, tolerance_grad=0.0, tolerance_change=0.0
    )

    def closure():
        opt.zero_grad()
        loss = criterion(seq(inp), target)
        loss.backward()
        return loss

    def step():
        return opt.step(closure)

    return step


PROGRAMS = {
    "makemore": makemore,
    "mingpt": mingpt,
    "resnet": resnet,
    "charrnn": charrnn,
    "lstm-lbfgs": lstm_lbfgs,
}


def make_step(lib, row: str):
    lib.manual_seed(0)
    return PROGRAMS[row](lib, np.random.default_rng(0))


def bench_row(row: str, rounds: int, per_round: int) -> None:
    steps = {"mg": make_step(mg, row), "torch": make_step(torch, row)}
    r = bm.run_pair(steps, rounds, per_round)
    t, w, f = r["times"], r["walls"], r["faults"]
    med = bm.statistics.median
    ratios = [a / b for a, b in zip(t["mg"], t["torch"])]
    wall_ratio = med(a / b for a, b in zip(w["mg"], w["torch"]))
    print(
        f"{row:10s} CPU mg {med(t['mg']) * 1e3:7.2f} ms  torch {med(t['torch']) * 1e3:7.2f} ms"
        f"  ratio {bm.spread(ratios)}  (wall {med(w['mg']) * 1e3:.2f} /"
        f" {med(w['torch']) * 1e3:.2f} ms, {wall_ratio:.2f}x)"
        f"  faults/step {med(f['mg']):.0f} vs {med(f['torch']):.0f}",
        flush=True,
    )


def main() -> None:
    import argparse

    keep_freed_memory()  # as a training loop does (minigenesis/kernels/memory.py)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("rows", nargs="*", default=list(PROGRAMS))
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--steps", type=int, default=1, help="steps per library per round")
    p.add_argument("--profile", action="store_true")
    a = p.parse_args()
    if torch is None:
        raise SystemExit("bench_programs.py measures against PyTorch: install torch")
    if a.profile:
        bm.profile_steps(make_step, a.rows, top=30)
        return
    from threadpoolctl import threadpool_info, threadpool_limits

    threadpool_limits(1)
    pools = ", ".join(f"{p['internal_api']} {p['num_threads']}" for p in threadpool_info())
    print(f"minigenesis vs torch {torch.__version__} on {bm.cpu_model()}; threads: {pools}")
    print(f"load average {os.getloadavg()[0]:.1f}; {a.steps} step(s) per library per round")
    for row in a.rows:
        bench_row(row, a.rounds, a.steps)


if __name__ == "__main__":
    main()
