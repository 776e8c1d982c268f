"""Convolution speed: minigenesis's im2col + one matmul, side by side with two references.

    python bench/bench_conv.py          (add --threads N to change the BLAS thread count)

For each shape it prints the time of conv2d forward, and of forward + backward, as ratios:
- ``vs einsum``: the same convolution as a plain ``np.einsum`` over the as_strided window view (no
  im2col copy, but no BLAS either): what gathering the windows for one big matmul buys;
- ``vs torch``: PyTorch's CPU convolution (oneDNN), when torch is importable: how far a NumPy
  engine is from a production kernel.
And one training step of a small CNN (conv-relu-pool x2, linear, cross entropy, SGD) against the
same model in PyTorch. Both libraries get the same number of threads.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--repeat", type=int, default=7)
args = parser.parse_args()
os.environ.setdefault("OPENBLAS_NUM_THREADS", str(args.threads))  # before NumPy loads BLAS
os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import minigenesis as mg  # noqa: E402
import minigenesis.nn.functional as F  # noqa: E402
from minigenesis import nn  # noqa: E402
from minigenesis.kernels.memory import keep_freed_memory  # noqa: E402

keep_freed_memory()  # as a training loop does (minigenesis/kernels/memory.py)

try:
    import torch

    torch.set_num_threads(args.threads)
except ImportError:
    torch = None


def best(fn, repeat=args.repeat):
    fn()  # warm up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def einsum_conv(x, w, pad):
    """Reference: y[n,o,h,w] = sum_{c,i,j} w[o,c,i,j] window[n,c,h,w,i,j], no im2col copy."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    n, c, hp, wp = xp.shape
    s = xp.strides
    win = np.lib.stride_tricks.as_strided(xp, (n, c, hp - kh + 1, wp - kw + 1, kh, kw), s + s[2:])
    return np.einsum("nchwij,ocij->nohw", win, w)


SHAPES = [
    # (N, C_in, H, C_out, k, pad)
    (64, 1, 28, 8, 5, 2),
    (32, 16, 32, 32, 3, 1),
    (32, 64, 16, 64, 3, 1),
]

print(f"threads: {args.threads}; best of {args.repeat}; float32")
print(
    f"{'shape (N,C,H,O,k)':24} {'fwd ms':>8} {'vs einsum':>10} {'vs torch':>9} "
    f"{'fwd+bwd ms':>11} {'vs torch':>9}"
)


def bench_shape(n, c, h, o, k, p, rng):
    x = rng.standard_normal((n, c, h, h)).astype(np.float32)
    w = rng.standard_normal((o, c, k, k)).astype(np.float32)
    xm, wm = mg.tensor(x, requires_grad=True), mg.tensor(w, requires_grad=True)

    def ours_fwd():
        with mg.no_grad():
            F.conv2d(xm, wm, None, 1, p)

    def ours_both():
        xm.grad = wm.grad = None
        F.conv2d(xm, wm, None, 1, p).sum().backward()

    t_fwd, t_both = best(ours_fwd), best(ours_both)
    t_ein = best(lambda: einsum_conv(x, w, p), repeat=2)
    line = f"{str((n, c, h, o, k)):24} {t_fwd * 1e3:8.2f} {t_ein / t_fwd:9.1f}x "
    if torch is not None:
        xt = torch.tensor(x, requires_grad=True)
        wt = torch.tensor(w, requires_grad=True)

        def torch_fwd():
            with torch.no_grad():
                torch.nn.functional.conv2d(xt, wt, None, 1, p)

        def torch_both():
            xt.grad = wt.grad = None
            torch.nn.functional.conv2d(xt, wt, None, 1, p).sum().backward()

        line += f"{t_fwd / best(torch_fwd):8.1f}x {t_both * 1e3:11.2f} "
        line += f"{t_both / best(torch_both):8.1f}x"
    else:
        line += f"{'-':>9} {t_both * 1e3:11.2f} {'-':>9}"
    print(line)


rng = np.random.default_rng(0)
for shape in SHAPES:
    bench_shape(*shape, rng)


def cnn_ours():
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * 7 * 7, 10),
    )


xb = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
yb = rng.integers(0, 10, 64)
model = cnn_ours()
opt = mg.optim.SGD(model.parameters(), lr=0.01)
xm, ym = mg.tensor(xb), mg.tensor(yb)


def step_ours():
    loss = F.cross_entropy(model(xm), ym)
    opt.zero_grad()
    loss.backward()
    opt.step()


t_ours = best(step_ours)
line = f"\nCNN step (batch 64, 28x28, 2 conv + 2 maxpool + linear): {t_ours * 1e3:.1f} ms"
if torch is not None:
    tn = torch.nn
    tmodel = tn.Sequential(
        tn.Conv2d(1, 8, 3, padding=1),
        tn.ReLU(),
        tn.MaxPool2d(2),
        tn.Conv2d(8, 16, 3, padding=1),
        tn.ReLU(),
        tn.MaxPool2d(2),
        tn.Flatten(),
        tn.Linear(16 * 7 * 7, 10),
    )
    topt = torch.optim.SGD(tmodel.parameters(), lr=0.01)
    xt, yt = torch.tensor(xb), torch.tensor(yb)

    def step_torch():
        loss = tn.functional.cross_entropy(tmodel(xt), yt)
        topt.zero_grad()
        loss.backward()
        topt.step()

    line += f", {t_ours / best(step_torch):.1f}x PyTorch's"
print(line)
