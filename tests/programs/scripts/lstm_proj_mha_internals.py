"""Reading the weights of built-in layers to re-derive them, as people do when porting models: a
2-layer bidirectional nn.LSTM with proj_size (weight_hr_l0, the hidden state projected, h_n of
size proj_size) recomputed step by step from its parameters; nn.MultiheadAttention with
different kdim/vdim (q_proj_weight, k_proj_weight, v_proj_weight), add_bias_kv, add_zero_attn,
a float attention mask and need_weights=True with average_attn_weights=False, recomputed by hand
from its parameters; both in float64 to 1e-10."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
T, B, I, H, P = 5, 3, 4, 6, 3
lstm = nn.LSTM(I, H, num_layers=2, bidirectional=True, proj_size=P)
x = torch.randn(T, B, I)
out, (h_n, c_n) = lstm(x)
print("output", tuple(out.shape), "h_n", tuple(h_n.shape), "c_n", tuple(c_n.shape))
assert out.shape == (T, B, 2 * P) and h_n.shape == (4, B, P) and c_n.shape == (4, B, H)


def run_direction(inp, layer, suffix, reverse):
    w_ih = getattr(lstm, f"weight_ih_l{layer}{suffix}")
    w_hh = getattr(lstm, f"weight_hh_l{layer}{suffix}")
    b = getattr(lstm, f"bias_ih_l{layer}{suffix}") + getattr(lstm, f"bias_hh_l{layer}{suffix}")
    w_hr = getattr(lstm, f"weight_hr_l{layer}{suffix}")
    h, c = torch.zeros(B, P), torch.zeros(B, H)
    outs = [None] * T
    steps = range(T - 1, -1, -1) if reverse else range(T)
    for t in steps:
        gates = inp[t] @ w_ih.T + h @ w_hh.T + b
        i, f, g, o = gates.chunk(4, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = (torch.sigmoid(o) * torch.tanh(c)) @ w_hr.T
        outs[t] = h
    return torch.stack(outs), h, c


inp, finals = x, []
for layer in range(2):
    fwd, hf, cf = run_direction(inp, layer, "", False)
    bwd, hb, cb = run_direction(inp, layer, "_reverse", True)
    inp = torch.cat([fwd, bwd], dim=2)
    finals += [(hf, cf), (hb, cb)]
assert torch.allclose(inp, out, atol=1e-10)
assert torch.allclose(torch.stack([h for h, _ in finals]), h_n, atol=1e-10)
assert torch.allclose(torch.stack([c for _, c in finals]), c_n, atol=1e-10)
print("LSTM with projections recomputed by hand")

E, heads, KD, VD, L, S = 8, 2, 5, 7, 4, 6
mha = nn.MultiheadAttention(E, heads, kdim=KD, vdim=VD, add_bias_kv=True, add_zero_attn=True, batch_first=True)
q, k, v = torch.randn(B, L, E), torch.randn(B, S, KD), torch.randn(B, S, VD)
mask = torch.randn(L, S) * 0.5  # padded with zeros for bias_k and the zero key
attn_out, attn_w = mha(q, k, v, attn_mask=mask, need_weights=True, average_attn_weights=False)
assert attn_w.shape == (B, heads, L, S + 2)

bq, bk, bv = mha.in_proj_bias.chunk(3)
Q = q @ mha.q_proj_weight.T + bq
K = torch.cat([k @ mha.k_proj_weight.T + bk, mha.bias_k.expand(B, 1, E)], dim=1)
V = torch.cat([v @ mha.v_proj_weight.T + bv, mha.bias_v.expand(B, 1, E)], dim=1)
K = torch.cat([K, torch.zeros(B, 1, E)], dim=1)
V = torch.cat([V, torch.zeros(B, 1, E)], dim=1)
hd = E // heads


def split(t):
    return t.view(B, -1, heads, hd).transpose(1, 2)


scores = split(Q) @ split(K).transpose(-2, -1) / math.sqrt(hd) + F.pad(mask, (0, 2))
weights = F.softmax(scores, dim=-1)
ctx = (weights @ split(V)).transpose(1, 2).reshape(B, L, E)
manual = mha.out_proj(ctx)
print(f"attention weights sum {attn_w.sum().item():.6f}, output norm {attn_out.norm().item():.6f}")
assert torch.allclose(attn_w, weights, atol=1e-10)
assert torch.allclose(attn_out, manual, atol=1e-10)
_, avg = mha(q, k, v, attn_mask=mask)
assert torch.allclose(avg, weights.mean(1), atol=1e-10)
