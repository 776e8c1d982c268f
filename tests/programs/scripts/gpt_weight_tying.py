"""A nanoGPT-style character model: token and position embeddings, pre-norm blocks with
F.scaled_dot_product_attention(is_causal=True), the output head's weight tied to the token
embedding (lm_head.weight = wte.weight), configure_optimizers splitting decay / no-decay groups
by p.dim(), AdamW with betas (0.9, 0.95), and top-k sampling with torch.topk."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
text = "hello world. " * 40
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
V, block, C = len(chars), 16, 32


class Block(nn.Module):
    def __init__(self, n_head=2):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(C), nn.LayerNorm(C)
        self.c_attn = nn.Linear(C, 3 * C)
        self.c_proj = nn.Linear(C, C)
        self.mlp = nn.Sequential(nn.Linear(C, 4 * C), nn.GELU(approximate="tanh"), nn.Linear(4 * C, C))
        self.n_head = n_head

    def forward(self, x):
        B, T, _ = x.size()
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(V, C), wpe=nn.Embedding(block, C), h=nn.ModuleList([Block(), Block()]), ln_f=nn.LayerNorm(C)))
        self.lm_head = nn.Linear(C, V, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * 2))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        pos = torch.arange(0, idx.size(1), dtype=torch.long, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for blk in self.transformer.h:
            x = blk(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate):
        param_dict = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
        decay = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay = [p for n, p in param_dict.items() if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay}, {"params": nodecay, "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=learning_rate, betas=(0.9, 0.95), eps=1e-8)

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, top_k=None):
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -block:])
            logits = logits[:, -1, :]
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
        return idx


model = GPT()
assert model.transformer.wte.weight is model.lm_head.weight
n_params = sum(p.numel() for p in model.parameters())
assert n_params == sum(p.numel() for n, p in model.named_parameters())
assert "lm_head.weight" in model.state_dict() and "transformer.wte.weight" in model.state_dict()
opt = model.configure_optimizers(weight_decay=0.1, learning_rate=3e-3)
for it in range(120):
    ix = torch.randint(len(data) - block, (16,))
    x = torch.stack([data[i : i + block] for i in ix])
    y = torch.stack([data[i + 1 : i + 1 + block] for i in ix])
    _, loss = model(x, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
assert model.transformer.wte.weight is model.lm_head.weight
out = model.generate(torch.tensor([[stoi["h"]]]), 24, top_k=3)[0].tolist()
sample = "".join(chars[i] for i in out)
print(f"params {n_params} loss {loss.item():.3f} sample {sample!r}")
assert loss.item() < 0.5
assert "hello" in sample or "world" in sample
