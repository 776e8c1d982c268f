"""Mixed-precision training steps side by side with torch.autocast("cpu", bfloat16): an MLP with
AdamW, and an in-place edit of a weight under no_grad between steps.

Our loop runs inside ONE autocast region, so the cached low-precision copies of the weights must
follow every optimizer step and the edit (they are keyed by the parameter's version). PyTorch's
cache is keyed by the tensor alone and would keep the stale copies inside one region, so its side
opens a region per step, as its documentation recommends: the values that must agree."""

from __future__ import annotations

import numpy as np
import pytest
from parity_helpers import RTOL_ACC, assert_same, data

import minigenesis as mg

torch = pytest.importorskip("torch")


def _mlp(lib, sizes):
    layers = []
    for a, b in zip(sizes[:-2], sizes[1:-1]):
        layers += [lib.nn.Linear(a, b), lib.nn.ReLU()]
    layers.append(lib.nn.Linear(sizes[-2], sizes[-1]))
    return lib.nn.Sequential(*layers)


def _same_weights(m_model, t_model):
    for i, (p, q) in enumerate(zip(m_model.parameters(), t_model.parameters())):
        arr = data(tuple(q.shape), "float64", seed=100 + i) * 0.3
        with torch.no_grad():
            q.copy_(torch.tensor(arr, dtype=torch.float32))
        with mg.no_grad():
            p.copy_(mg.tensor(arr, dtype=mg.float32))


def test_bfloat16_mlp_training_steps_follow_torch_autocast():
    sizes = [20, 32, 32, 5]
    m_model, t_model = _mlp(mg, sizes), _mlp(torch, sizes)
    _same_weights(m_model, t_model)
    m_opt = mg.optim.AdamW(m_model.parameters(), lr=1e-2)
    t_opt = torch.optim.AdamW(t_model.parameters(), lr=1e-2)
    x = data((16, 20), "float64", seed=7).astype(np.float32)
    y = np.arange(16) % 5
    mx, tx = mg.tensor(x), torch.tensor(x)
    my, ty = mg.tensor(y), torch.tensor(y)
    tol = RTOL_ACC["bfloat16"]
    with mg.autocast("cpu", dtype=mg.bfloat16):
        for step in range(4):
            m_out = m_model(mx)
            m_loss = mg.nn.functional.cross_entropy(m_out, my)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                t_out = t_model(tx)
                t_loss = torch.nn.functional.cross_entropy(t_out, ty)
            assert_same(m_out, t_out, rtol=tol, atol=tol, what=f"logits, step {step}")
            assert_same(m_loss, t_loss, rtol=tol, what=f"loss, step {step}")
            m_opt.zero_grad()
            t_opt.zero_grad()
            m_loss.backward()
            t_loss.backward()
            for p, q in zip(m_model.parameters(), t_model.parameters()):
                assert p.grad.dtype is mg.float32
                scale = float(q.grad.abs().max())
                np.testing.assert_allclose(
                    p.grad.numpy(), q.grad.numpy(), rtol=2 * tol, atol=tol * scale
                )
            m_opt.step()
            t_opt.step()
            if step == 1:  # an edit of a weight outside autograd, inside the region
                with mg.no_grad():
                    m_model[0].weight.mul_(0.5)
                with torch.no_grad():
                    t_model[0].weight.mul_(0.5)
            for p, q in zip(m_model.parameters(), t_model.parameters()):
                np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), atol=2e-3)


def _char_gpt(lib, vocab=11, width=16, heads=2, layers=2, block=8):
    """A small char GPT as bench_models' (pre-LayerNorm blocks, causal SDPA, exact GELU)."""
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q, k, v = (t.reshape(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(B, T, C))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(block, width)
            self.blocks = nn.Sequential(*[Block() for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(width), nn.Linear(width, vocab)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(lib.arange(idx.shape[1]))
            return self.head(self.ln(self.blocks(x)))

    return GPT()


def test_bfloat16_gpt_training_steps_follow_torch_autocast():
    """Attention and GELU take bfloat16 from the Linears and compute in float32 inside: the
    logits, loss and float32 parameter gradients of a GPT under autocast agree with PyTorch's."""
    m_model, t_model = _char_gpt(mg), _char_gpt(torch)
    _same_weights(m_model, t_model)
    m_opt = mg.optim.AdamW(m_model.parameters(), lr=1e-2)
    t_opt = torch.optim.AdamW(t_model.parameters(), lr=1e-2)
    rng = np.random.default_rng(11)
    x, y = rng.integers(0, 11, (4, 8)), rng.integers(0, 11, (4, 8))
    mx, tx, my, ty = mg.tensor(x), torch.tensor(x), mg.tensor(y), torch.tensor(y)
    tol = RTOL_ACC["bfloat16"]
    for step in range(3):
        with mg.autocast("cpu", dtype=mg.bfloat16):
            m_out = m_model(mx)
            m_loss = mg.nn.functional.cross_entropy(m_out.reshape(-1, 11), my.reshape(-1))
        with torch.autocast("cpu", dtype=torch.bfloat16):
            t_out = t_model(tx)
            t_loss = torch.nn.functional.cross_entropy(t_out.reshape(-1, 11), ty.reshape(-1))
        scale = float(t_out.detach().abs().max())
        assert_same(m_out, t_out, rtol=tol, atol=tol * scale, what=f"logits, step {step}")
        assert_same(m_loss, t_loss, rtol=tol, what=f"loss, step {step}")
        m_opt.zero_grad()
        t_opt.zero_grad()
        m_loss.backward()
        t_loss.backward()
        for p, q in zip(m_model.parameters(), t_model.parameters()):
            assert p.grad.dtype is mg.float32
            scale = float(q.grad.abs().max())
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=0, atol=tol * scale)
        m_opt.step()
        t_opt.step()
