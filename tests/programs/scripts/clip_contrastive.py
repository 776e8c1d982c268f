"""CLIP's training objective on two toy modalities, written as in its paper's pseudocode and
open_clip: an image tower and a text tower projecting into a shared space, L2-normalised
features, a learnable temperature stored as logit_scale = log(1 / 0.07) and clamped at 100
after exp, the logits as scale * img @ txt.T, a symmetric cross-entropy against arange labels,
and zero-shot retrieval accuracy on held-out pairs."""
import numpy as np

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
N_CONCEPTS, D_IMG, D_TXT = 32, 20, 12
concept_img = torch.randn(N_CONCEPTS, D_IMG)
concept_txt = torch.randn(N_CONCEPTS, D_TXT)


def pairs(n):
    c = torch.randint(0, N_CONCEPTS, (n,))
    return concept_img[c] + 0.3 * torch.randn(n, D_IMG), concept_txt[c] + 0.3 * torch.randn(n, D_TXT), c


class CLIP(nn.Module):
    def __init__(self, embed_dim=16):
        super().__init__()
        self.visual = nn.Sequential(nn.Linear(D_IMG, 64), nn.GELU(), nn.Linear(64, embed_dim))
        self.text = nn.Sequential(nn.Linear(D_TXT, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, embed_dim))
        self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))

    def forward(self, image, text):
        image_features = F.normalize(self.visual(image), dim=-1)
        text_features = self.text(text)
        text_features = text_features / text_features.norm(dim=1, keepdim=True)
        logit_scale = self.logit_scale.exp().clamp(max=100)
        logits_per_image = logit_scale * image_features @ text_features.t()
        return logits_per_image, logits_per_image.t()


model = CLIP()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
for step in range(120):
    image, text, _ = pairs(64)
    logits_per_image, logits_per_text = model(image, text)
    labels = torch.arange(len(image), dtype=torch.long)
    loss = (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 40 == 0:
        print(f"step {step} loss {loss.item():.4f} temperature {1 / model.logit_scale.exp().item():.4f}")

model.eval()
with torch.no_grad():
    image, _, c = pairs(200)
    prompts = concept_txt  # one "caption" per concept, the classifier CLIP builds zero-shot
    logits, _ = model(image, prompts)
    probs = logits.softmax(dim=-1)
    acc = (probs.argmax(-1) == c).float().mean().item()
print(f"final loss {loss.item():.4f} zero-shot accuracy {acc:.3f}")
assert torch.allclose(probs.sum(-1), torch.ones(200), atol=1e-5)
assert acc > 0.8
