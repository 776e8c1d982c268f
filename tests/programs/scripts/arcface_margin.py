"""Face-recognition style metric learning with ArcFace's additive angular margin: embeddings and
class weights are L2-normalised by F.normalize, cos(theta) by a matmul, the target logit becomes
cos(theta + m) (through acos of the clamped cosine), every logit is scaled by s, and
cross-entropy follows. Verification at the end: cosine similarity between embeddings of unseen
identities, with the best threshold and its accuracy on same/different pairs."""
import math

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F


class ArcMarginProduct(nn.Module):
    def __init__(self, in_features, out_features, s=16.0, m=0.3):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        nn.init.xavier_uniform_(self.weight)
        self.s, self.m = s, m

    def forward(self, embeddings, labels):
        cosine = F.linear(F.normalize(embeddings), F.normalize(self.weight))
        theta = torch.acos(cosine.clamp(-1 + 1e-7, 1 - 1e-7))
        target = torch.cos(theta + self.m)
        one_hot = torch.zeros_like(cosine).scatter_(1, labels.view(-1, 1), 1.0)
        return self.s * (one_hot * target + (1.0 - one_hot) * cosine)


torch.manual_seed(0)
n_ids, dim = 30, 24
identity = torch.randn(n_ids, dim)
def faces(ids, noise=0.6):
    return identity[ids] + noise * torch.randn(len(ids), dim)

backbone = nn.Sequential(nn.Linear(dim, 64), nn.BatchNorm1d(64), nn.PReLU(), nn.Linear(64, 16))
head = ArcMarginProduct(16, 20)  # identities 0..19 for training, 20..29 unseen
opt = torch.optim.SGD([{"params": backbone.parameters()}, {"params": head.parameters(), "weight_decay": 5e-4}], lr=0.1, momentum=0.9)
for step in range(150):
    ids = torch.randint(0, 20, (64,))
    loss = F.cross_entropy(head(backbone(faces(ids)), ids), ids)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print("step %3d loss %.4f" % (step, loss.item()))

backbone.eval()
with torch.no_grad():
    a_ids = torch.randint(20, 30, (400,))
    same = torch.rand(400) < 0.5
    b_ids = torch.where(same, a_ids, 20 + (a_ids - 20 + torch.randint(1, 10, (400,))) % 10)
    sims = F.cosine_similarity(backbone(faces(a_ids)), backbone(faces(b_ids)))
thresholds = torch.linspace(-1, 1, 201)
accs = ((sims[None, :] > thresholds[:, None]) == same[None, :]).float().mean(1)
best = accs.argmax()
angle = math.degrees(head.m)
print("margin %.1f degrees; verification accuracy %.3f at threshold %.2f" % (angle, accs[best].item(), thresholds[best].item()))
assert accs[best].item() > 0.85
