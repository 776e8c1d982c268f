"""Scaled dot-product attention as the SDPA tutorial shows it: F.scaled_dot_product_attention
against the formula, is_causal and a boolean attn_mask, dropout_p=0 in eval, scale=, the
torch.nn.attention.sdpa_kernel context choosing SDPBackend.MATH (and a list of backends), a
causal self-attention module using it, and gradients equal to the explicit formula's."""
import math

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)
q, k, v = (torch.randn(2, 3, 8, 16, requires_grad=True) for _ in range(3))


def reference(q, k, v, mask=None, scale=None):
    s = q @ k.transpose(-2, -1) * (scale if scale is not None else 1 / math.sqrt(q.size(-1)))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, dim=-1) @ v


with sdpa_kernel(SDPBackend.MATH):
    out = F.scaled_dot_product_attention(q, k, v)
assert torch.allclose(out, reference(q, k, v), atol=1e-5)

causal = torch.ones(8, 8, dtype=torch.bool).tril()
with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
    out_c = F.scaled_dot_product_attention(q, k, v, is_causal=True)
assert torch.allclose(out_c, reference(q, k, v, causal), atol=1e-5)
out_m = F.scaled_dot_product_attention(q, k, v, attn_mask=causal)
assert torch.allclose(out_c, out_m, atol=1e-6)
out_s = F.scaled_dot_product_attention(q, k, v, scale=0.5)
assert torch.allclose(out_s, reference(q, k, v, scale=0.5), atol=1e-5)

g1 = torch.autograd.grad(out_c.sum(), (q, k, v))
g2 = torch.autograd.grad(reference(q, k, v, causal).sum(), (q, k, v))
for a, b in zip(g1, g2):
    assert torch.allclose(a, b, atol=1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, num_heads, embed_dimension, bias=False, dropout=0.0):
        super().__init__()
        self.c_attn = nn.Linear(embed_dimension, 3 * embed_dimension, bias=bias)
        self.c_proj = nn.Linear(embed_dimension, embed_dimension, bias=bias)
        self.dropout = dropout
        self.num_heads = num_heads
        self.embed_dimension = embed_dimension

    def forward(self, x):
        query_projected = self.c_attn(x)
        batch_size = query_projected.size(0)
        embed_dim = query_projected.size(2)
        head_dim = embed_dim // (self.num_heads * 3)
        query, key, value = query_projected.chunk(3, -1)
        query = query.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
        key = key.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
        value = value.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
        dropout = self.dropout if self.training else 0.0
        y = F.scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=dropout, is_causal=True)
        y = y.transpose(1, 2).reshape(batch_size, -1, self.num_heads * head_dim)
        return self.c_proj(y)


model = CausalSelfAttention(num_heads=4, embed_dimension=32, dropout=0.1).eval()
x = torch.randn(2, 10, 32)
with sdpa_kernel(backends=[SDPBackend.MATH]):
    y = model(x)
y2 = model(torch.cat([x[:, :5], torch.randn(2, 5, 32)], dim=1))
assert torch.allclose(y[:, :5], y2[:, :5], atol=1e-5)  # causal: the future does not leak
print("sdpa ok", tuple(y.shape), SDPBackend.MATH)
