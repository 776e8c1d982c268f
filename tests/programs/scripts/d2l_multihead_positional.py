"""d2l.ai's attention mechanisms chapter with plain torch: sequence_mask and masked_softmax
(X[~mask] = -1e6 on a flattened view, valid_lens by repeat_interleave), additive and scaled
dot-product attention over torch.bmm, multi-head attention with transpose_qkv/transpose_output,
the sinusoidal PositionalEncoding kept in self.P, and the position-wise FFN and AddNorm of the
transformer encoder block; the multi-head module checked against nn.MultiheadAttention with the
same weights and key_padding_mask, and the encoding against its formula in NumPy."""
import math

import numpy as np
import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)


def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


X = torch.tensor([[1, 2, 3], [4, 5, 6]])
assert sequence_mask(X, torch.tensor([1, 2])).tolist() == [[1, 0, 0], [4, 5, 0]]


def masked_softmax(X, valid_lens):
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    shape = X.shape
    if valid_lens.dim() == 1:
        valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
    return nn.functional.softmax(X.reshape(shape), dim=-1)


out = masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3]))
assert torch.all(out[0, :, 2:] == 0) and torch.all(out[1, :, 3:] == 0)
out = masked_softmax(torch.rand(2, 2, 4), torch.tensor([[1, 3], [2, 4]]))
assert torch.allclose(out[0, 0], torch.tensor([1.0, 0, 0, 0]))
assert torch.all(out[1, 1] > 0)


class AdditiveAttention(nn.Module):
    def __init__(self, num_hiddens, dropout, **kwargs):
        super(AdditiveAttention, self).__init__(**kwargs)
        self.W_k = nn.LazyLinear(num_hiddens, bias=False)
        self.W_q = nn.LazyLinear(num_hiddens, bias=False)
        self.w_v = nn.LazyLinear(1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        features = queries.unsqueeze(2) + keys.unsqueeze(1)
        features = torch.tanh(features)
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


queries = torch.normal(0, 1, (2, 1, 20))
keys = torch.normal(0, 1, (2, 10, 2))
values = torch.normal(0, 1, (2, 10, 4))
valid_lens = torch.tensor([2, 6])
attention = AdditiveAttention(num_hiddens=8, dropout=0.1)
attention.eval()
out = attention(queries, keys, values, valid_lens)
assert out.shape == (2, 1, 4)
w = attention.attention_weights
assert torch.allclose(out, torch.bmm(w, values))
# the additive score by hand for one query/key pair
s = attention.w_v.weight @ torch.tanh(attention.W_q.weight @ queries[1, 0] + attention.W_k.weight @ keys[1, 3])
e = torch.exp(torch.stack([attention.w_v.weight @ torch.tanh(attention.W_q.weight @ queries[1, 0] + attention.W_k.weight @ keys[1, j]) for j in range(6)]).squeeze())
assert torch.allclose(w[1, 0, 3], (torch.exp(s) / e.sum()).squeeze(), rtol=1e-4, atol=1e-5)


class DotProductAttention(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


def transpose_qkv(X, num_heads):
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
    X = X.permute(0, 2, 1, 3)
    return X.reshape(-1, X.shape[2], X.shape[3])


def transpose_output(X, num_heads):
    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])
    X = X.permute(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


class MultiHeadAttention(nn.Module):
    def __init__(self, num_hiddens, num_heads, dropout, bias=False, **kwargs):
        super().__init__()
        self.num_heads = num_heads
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_k = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_v = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_o = nn.LazyLinear(num_hiddens, bias=bias)

    def forward(self, queries, keys, values, valid_lens):
        queries = transpose_qkv(self.W_q(queries), self.num_heads)
        keys = transpose_qkv(self.W_k(keys), self.num_heads)
        values = transpose_qkv(self.W_v(values), self.num_heads)
        if valid_lens is not None:
            valid_lens = torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)
        output = self.attention(queries, keys, values, valid_lens)
        output_concat = transpose_output(output, self.num_heads)
        return self.W_o(output_concat)


num_hiddens, num_heads = 16, 4
attention = MultiHeadAttention(num_hiddens, num_heads, 0.0)
batch_size, num_queries, num_kvpairs = 2, 4, 6
valid_lens = torch.tensor([3, 2])
X = torch.ones((batch_size, num_queries, num_hiddens))
Y = torch.randn((batch_size, num_kvpairs, num_hiddens))
out = attention(X, Y, Y, valid_lens)
assert out.shape == (batch_size, num_queries, num_hiddens)

ref = nn.MultiheadAttention(num_hiddens, num_heads, bias=False, batch_first=True)
with torch.no_grad():
    ref.in_proj_weight.copy_(torch.cat([attention.W_q.weight, attention.W_k.weight, attention.W_v.weight]))
    ref.out_proj.weight.copy_(attention.W_o.weight)
key_padding_mask = torch.arange(num_kvpairs)[None, :] >= valid_lens[:, None]
X = torch.randn((batch_size, num_queries, num_hiddens))
ref_out, ref_w = ref(X, Y, Y, key_padding_mask=key_padding_mask)
out = attention(X, Y, Y, valid_lens)
assert torch.allclose(out, ref_out, atol=1e-5)
mine_w = attention.attention.attention_weights.reshape(batch_size, num_heads, num_queries, num_kvpairs).mean(1)
assert torch.allclose(mine_w, ref_w, atol=1e-5)


class PositionalEncoding(nn.Module):
    def __init__(self, num_hiddens, dropout, max_len=1000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.P = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens)
        self.P[:, :, 0::2] = torch.sin(X)
        self.P[:, :, 1::2] = torch.cos(X)

    def forward(self, X):
        X = X + self.P[:, :X.shape[1], :].to(X.device)
        return self.dropout(X)


encoding_dim, num_steps = 32, 60
pos_encoding = PositionalEncoding(encoding_dim, 0)
X = pos_encoding(torch.zeros((1, num_steps, encoding_dim)))
P = pos_encoding.P[:, :X.shape[1], :]
pos = np.arange(num_steps)[:, None]
i = np.arange(0, encoding_dim, 2)[None, :]
angle = pos / np.power(10000.0, i / encoding_dim)
assert np.allclose(P[0, :, 0::2].numpy(), np.sin(angle), atol=1e-5)
assert np.allclose(P[0, :, 1::2].numpy(), np.cos(angle), atol=1e-5)


class PositionWiseFFN(nn.Module):
    def __init__(self, ffn_num_hiddens, ffn_num_outputs):
        super().__init__()
        self.dense1 = nn.LazyLinear(ffn_num_hiddens)
        self.relu = nn.ReLU()
        self.dense2 = nn.LazyLinear(ffn_num_outputs)

    def forward(self, X):
        return self.dense2(self.relu(self.dense1(X)))


class AddNorm(nn.Module):
    def __init__(self, norm_shape, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.ln = nn.LayerNorm(norm_shape)

    def forward(self, X, Y):
        return self.ln(self.dropout(Y) + X)


class TransformerEncoderBlock(nn.Module):
    def __init__(self, num_hiddens, ffn_num_hiddens, num_heads, dropout, use_bias=False):
        super().__init__()
        self.attention = MultiHeadAttention(num_hiddens, num_heads, dropout, use_bias)
        self.addnorm1 = AddNorm(num_hiddens, dropout)
        self.ffn = PositionWiseFFN(ffn_num_hiddens, num_hiddens)
        self.addnorm2 = AddNorm(num_hiddens, dropout)

    def forward(self, X, valid_lens):
        Y = self.addnorm1(X, self.attention(X, X, X, valid_lens))
        return self.addnorm2(Y, self.ffn(Y))


# a task the block must use attention for: copy the value at the position marked by a flag
vocab, L, H = 10, 8, 32
emb = nn.Embedding(vocab + 1, H)
block = TransformerEncoderBlock(H, 64, 4, 0.0)
pe = PositionalEncoding(H, 0.0)
head = nn.Linear(H, vocab)


def batch(n):
    tokens = torch.randint(0, vocab, (n, L))
    where = torch.randint(0, L, (n,))
    x = tokens.clone()
    x[:, 0] = vocab  # a query slot
    x[torch.arange(n), where.clamp(min=1)] = tokens[torch.arange(n), where.clamp(min=1)]
    target = tokens[torch.arange(n), where.clamp(min=1)]
    flags = torch.zeros(n, L, 1)
    flags[torch.arange(n), where.clamp(min=1)] = 1.0
    return x, flags, target


net_params = list(emb.parameters()) + list(block.parameters()) + list(head.parameters())
x, flags, target = batch(4)
block(pe(emb(x) + flags), None)  # materialize the lazy layers
net_params = list(emb.parameters()) + list(block.parameters()) + list(head.parameters())
opt = torch.optim.Adam(net_params, lr=5e-3)
for step in range(200):
    x, flags, target = batch(64)
    h = block(pe(emb(x) * math.sqrt(H)) + flags * 3, None)
    loss = nn.functional.cross_entropy(head(h[:, 0]), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(step, loss.item())
block.eval()
with torch.no_grad():
    x, flags, target = batch(500)
    acc = (head(block(pe(emb(x) * math.sqrt(H)) + flags * 3, None)[:, 0]).argmax(1) == target).float().mean().item()
print("retrieval accuracy", acc)
assert acc > 0.85, acc  # chance is 0.1
