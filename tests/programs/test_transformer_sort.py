"""A PyTorch-style program: a small encoder-decoder Transformer learns to sort digit sequences,
written with PyTorch's names only, then decodes with top-k sampling (topk + multinomial)."""

from __future__ import annotations

import math

import minigenesis as torch
import minigenesis.nn.functional as F
from minigenesis import nn, optim

VOCAB, BOS, LENGTH = 10, 10, 6


class Sorter(nn.Module):
    def __init__(self, d_model: int = 32, nhead: int = 4) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB + 1, d_model)
        self.pos = nn.Parameter(torch.randn(LENGTH + 1, d_model) * 0.1)
        self.transformer = nn.Transformer(
            d_model,
            nhead,
            num_encoder_layers=1,
            num_decoder_layers=1,
            dim_feedforward=64,
            dropout=0.0,
            batch_first=True,
        )
        self.head = nn.Linear(d_model, VOCAB)
        self.scale = math.sqrt(d_model)

    def forward(self, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        s = self.embed(src) * self.scale + self.pos[: src.shape[1]]
        t = self.embed(tgt) * self.scale + self.pos[: tgt.shape[1]]
        mask = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
        return self.head(self.transformer(s, t, tgt_mask=mask, tgt_is_causal=True))


def batch(n: int) -> tuple:
    src = torch.randint(0, VOCAB, (n, LENGTH))
    target = torch.sort(src, dim=1).values
    tgt_in = torch.cat([torch.full((n, 1), BOS, dtype=torch.long), target[:, :-1]], dim=1)
    return src, tgt_in, target


@torch.no_grad()
def sample(model: Sorter, src: torch.Tensor, k: int = 3) -> torch.Tensor:
    """Decode one token at a time, drawing each from the k most likely next tokens."""
    out = torch.full((src.shape[0], 1), BOS, dtype=torch.long)
    for _ in range(LENGTH):
        logits = model(src, out)[:, -1]
        top = torch.topk(logits, k, dim=-1)
        probs = F.softmax(top.values, dim=-1)
        pick = torch.multinomial(probs, 1)  # (N, 1): which of the k
        token = torch.gather(top.indices, -1, pick)  # (N, 1): the token it stands for
        out = torch.cat([out, token], dim=1)
    return out[:, 1:]


def test_transformer_learns_to_sort_and_samples_with_topk():
    torch.manual_seed(0)
    model = Sorter()
    optimizer = optim.Adam(model.parameters(), lr=3e-3)
    losses = []
    for _ in range(60):
        src, tgt_in, target = batch(32)
        logits = model(src, tgt_in)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), target.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    first, last = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    assert last < 0.6 * first, (first, last)

    model.eval()
    src, _, target = batch(16)
    decoded = sample(model, src)
    assert decoded.shape == (16, LENGTH) and decoded.dtype == torch.long
    assert int(decoded.min()) >= 0 and int(decoded.max()) < VOCAB
    # sampled from the top 3 only, the outputs still mostly agree with the sorted input
    assert (decoded == target).float().mean().item() > 0.5
