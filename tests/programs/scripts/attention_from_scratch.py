"""Causal multi-head attention by einsum and masked_fill, checked against F.scaled_dot_product_attention."""
import minigenesis as torch
import minigenesis.nn.functional as F

torch.manual_seed(0)
B, T, C, H = 2, 6, 16, 4
x = torch.randn(B, T, C)
Wq, Wk, Wv = (torch.randn(C, C, requires_grad=True) for _ in range(3))
q = (x @ Wq).view(B, T, H, C // H).transpose(1, 2)
k = (x @ Wk).view(B, T, H, C // H).transpose(1, 2)
v = (x @ Wv).view(B, T, H, C // H).transpose(1, 2)
att = torch.einsum("bhqd,bhkd->bhqk", q, k) / (C // H) ** 0.5
mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
att = att.masked_fill(mask, float("-inf"))
att = F.softmax(att, dim=-1)
y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
ref = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C)
print((y - ref).abs().max().item())
assert torch.allclose(y, ref, atol=1e-5)
y.pow(2).mean().backward()
print(Wq.grad.norm().item() > 0)
