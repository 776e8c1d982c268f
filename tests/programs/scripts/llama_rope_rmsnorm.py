"""The pieces of a Llama-style decoder as the Hugging Face port writes them: RMSNorm computed in
float32 with torch.rsqrt and cast back, rotary position embeddings by rotate_half (cos/sin tables
from inv_freq = 1 / base^(2i/d) and torch.outer, registered as non-persistent buffers), a
SwiGLU MLP (F.silu(gate) * up), grouped-query attention with repeat_interleave of the key/value
heads, F.scaled_dot_product_attention(is_causal=True); rotary attention scores depend only on
relative positions, and generation with a KV cache (torch.cat along the sequence) equals
running the full prefix every step."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class RotaryEmbedding(nn.Module):
    def __init__(self, dim, max_position_embeddings=64, base=10000):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        t = torch.arange(max_position_embeddings, dtype=torch.float32)
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(self, position_ids):
        return self.cos_cached[position_ids], self.sin_cached[position_ids]


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


class Attention(nn.Module):
    def __init__(self, hidden=32, heads=4, kv_heads=2):
        super().__init__()
        self.h, self.kv, self.d = heads, kv_heads, hidden // heads
        self.q_proj = nn.Linear(hidden, heads * self.d, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * self.d, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * self.d, bias=False)
        self.o_proj = nn.Linear(heads * self.d, hidden, bias=False)
        self.rotary = RotaryEmbedding(self.d)

    def forward(self, x, position_ids, cache=None):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, self.h, self.d).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.kv, self.d).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.kv, self.d).transpose(1, 2)
        cos, sin = self.rotary(position_ids)
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        if cache is not None:
            k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
        new_cache = (k, v)
        k = k.repeat_interleave(self.h // self.kv, dim=1)
        v = v.repeat_interleave(self.h // self.kv, dim=1)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=cache is None)
        return self.o_proj(out.transpose(1, 2).reshape(b, t, -1)), new_cache


class MLP(nn.Module):
    def __init__(self, hidden=32, inter=64):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, inter, bias=False)
        self.up_proj = nn.Linear(hidden, inter, bias=False)
        self.down_proj = nn.Linear(inter, hidden, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Decoder(nn.Module):
    def __init__(self, vocab=20, hidden=32):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.input_layernorm = RMSNorm(hidden)
        self.self_attn = Attention(hidden)
        self.post_attention_layernorm = RMSNorm(hidden)
        self.mlp = MLP(hidden)
        self.norm = RMSNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, ids, position_ids, cache=None):
        h = self.embed_tokens(ids)
        a, cache = self.self_attn(self.input_layernorm(h), position_ids, cache)
        h = h + a
        h = h + self.mlp(self.post_attention_layernorm(h))
        return self.lm_head(self.norm(h)), cache


x = torch.randn(2, 5, 32, dtype=torch.float64)
norm = RMSNorm(32)
ref = x / torch.sqrt((x ** 2).mean(-1, keepdim=True) + 1e-6)
assert norm(x).dtype == torch.float64 and torch.allclose(norm(x), ref.float().double(), atol=1e-6)

rot = RotaryEmbedding(8)
q, k = torch.randn(1, 1, 1, 8), torch.randn(1, 1, 1, 8)
scores = []
for m, n in ((3, 1), (7, 5), (12, 10)):
    qm, _ = apply_rotary_pos_emb(q, q, *rot(torch.tensor([[m]])))
    _, kn = apply_rotary_pos_emb(k, k, *rot(torch.tensor([[n]])))
    scores.append((qm * kn).sum().item())
print("scores at relative distance 2:", [round(s, 5) for s in scores])
assert max(scores) - min(scores) < 1e-5
assert "rotary.cos_cached" not in Attention().state_dict()

model = Decoder()
seq = torch.tensor([[1, 5, 7, 3, 2, 9, 4, 4, 8, 0] * 2])
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
pos = torch.arange(seq.size(1) - 1).unsqueeze(0)
for step in range(60):
    logits, _ = model(seq[:, :-1], pos)
    loss = F.cross_entropy(logits[0], seq[0, 1:])
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"training loss {loss.item():.4f}")
model.eval()
with torch.no_grad():
    full = seq[:, :3]
    for _ in range(8):
        logits, _ = model(full, torch.arange(full.size(1)).unsqueeze(0))
        full = torch.cat([full, logits[:, -1:].argmax(-1)], dim=1)
    logits, cache = model(seq[:, :3], torch.arange(3).unsqueeze(0))
    cached = seq[:, :3]
    for step in range(8):
        nxt = logits[:, -1:].argmax(-1)
        cached = torch.cat([cached, nxt], dim=1)
        logits, cache = model(nxt, torch.tensor([[cached.size(1) - 1]]), cache)
print("generated", full[0].tolist())
assert torch.equal(full, cached)
assert full[0, 3:].tolist() == seq[0, 3:11].tolist()
