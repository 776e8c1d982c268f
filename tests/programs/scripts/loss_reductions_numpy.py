"""Loss options people combine and then check by hand, as in forum answers about "why does my
weighted loss differ": CrossEntropyLoss with class weights and ignore_index (the weighted mean
divides by the sum of the kept weights), with label_smoothing together with weights, with
probability targets (soft labels) and 4-d segmentation logits; NLLLoss with weights;
KLDivLoss(reduction="batchmean", log_target=True); PoissonNLLLoss(full=True) with its Stirling
term; SmoothL1Loss(beta) and HuberLoss(delta); BCELoss with per-element weight; every value
against a NumPy float64 formula."""
import numpy as np

import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
N, C = 8, 4
logits = torch.randn(N, C)
target = torch.tensor([0, 1, 2, 3, 1, -100, 2, 0])
w = torch.tensor([1.0, 2.0, 0.5, 3.0])
L, T, W = logits.numpy(), target.numpy(), w.numpy()
logp = L - np.log(np.exp(L).sum(1, keepdims=True))
keep = T != -100
nll = -logp[keep, T[keep]]

ce = nn.CrossEntropyLoss(weight=w, ignore_index=-100)(logits, target).item()
ref = (W[T[keep]] * nll).sum() / W[T[keep]].sum()
print(f"weighted CE {ce:.8f} numpy {ref:.8f}")
assert np.isclose(ce, ref, rtol=1e-12)
assert np.isclose(nn.NLLLoss(weight=w)(torch.tensor(logp[keep]), target[torch.tensor(keep)]).item(), ref)

eps = 0.1
ce_ls = nn.CrossEntropyLoss(weight=w, ignore_index=-100, label_smoothing=eps)(logits, target).item()
smooth = -(logp[keep] * W).sum(1) / C  # the uniform part, weighted per class
ref_ls = ((1 - eps) * (W[T[keep]] * nll).sum() + eps * smooth.sum()) / W[T[keep]].sum()
print(f"weighted, smoothed CE {ce_ls:.8f} numpy {ref_ls:.8f}")
assert np.isclose(ce_ls, ref_ls, rtol=1e-12)

soft = torch.softmax(torch.randn(N, C), dim=1)
ce_soft = nn.CrossEntropyLoss(weight=w, label_smoothing=eps)(logits, soft).item()
S = soft.numpy() * (1 - eps) + eps / C
ref_soft = -(logp * S * W).sum(1).mean()
print(f"soft-label CE {ce_soft:.8f} numpy {ref_soft:.8f}")
assert np.isclose(ce_soft, ref_soft, rtol=1e-12)

seg = torch.randn(2, C, 3, 5)
seg_t = torch.randint(0, C, (2, 3, 5))
seg_t[0, 0, :2] = 255
ce_seg = nn.CrossEntropyLoss(weight=w, ignore_index=255, reduction="sum")(seg, seg_t).item()
lp = seg.numpy() - np.log(np.exp(seg.numpy()).sum(1, keepdims=True))
st = seg_t.numpy()
m = st != 255
picked = np.take_along_axis(lp, np.where(m, st, 0)[:, None], axis=1)[:, 0]
ref_seg = -(picked * W[np.where(m, st, 0)] * m).sum()
assert np.isclose(ce_seg, ref_seg, rtol=1e-12)

p_log, q_log = torch.log_softmax(torch.randn(N, C), 1), torch.log_softmax(torch.randn(N, C), 1)
kl = nn.KLDivLoss(reduction="batchmean", log_target=True)(p_log, q_log).item()
ref_kl = (np.exp(q_log.numpy()) * (q_log.numpy() - p_log.numpy())).sum() / N
assert np.isclose(kl, ref_kl, rtol=1e-12)

rate_log, counts = torch.randn(N), torch.tensor([0.0, 1, 2, 5, 0, 3, 1, 8])
pn = nn.PoissonNLLLoss(log_input=True, full=True)(rate_log, counts).item()
y = counts.numpy()
stirling = np.where(y > 1, y * np.log(np.where(y > 1, y, 1)) - y + 0.5 * np.log(2 * np.pi * np.where(y > 1, y, 1)), 0)
ref_pn = (np.exp(rate_log.numpy()) - y * rate_log.numpy() + stirling).mean()
print(f"Poisson NLL (full) {pn:.8f} numpy {ref_pn:.8f}")
assert np.isclose(pn, ref_pn, rtol=1e-12)

a, b = torch.randn(20) * 2, torch.randn(20)
d = np.abs(a.numpy() - b.numpy())
for beta in (0.5, 2.0):
    sl = nn.SmoothL1Loss(beta=beta)(a, b).item()
    assert np.isclose(sl, np.where(d < beta, 0.5 * d ** 2 / beta, d - 0.5 * beta).mean())
    hl = nn.HuberLoss(delta=beta)(a, b).item()
    assert np.isclose(hl, np.where(d < beta, 0.5 * d ** 2, beta * (d - 0.5 * beta)).mean())
probs, labels, ew = torch.rand(N, C), (torch.rand(N, C) > 0.5).double(), torch.rand(N, C)
bce = nn.BCELoss(weight=ew)(probs, labels).item()
P, Y = probs.numpy(), labels.numpy()
ref_bce = (-ew.numpy() * (Y * np.maximum(np.log(P), -100) + (1 - Y) * np.maximum(np.log(1 - P), -100))).mean()
assert np.isclose(bce, ref_bce, rtol=1e-12)
print(f"segmentation CE {ce_seg:.6f} KL {kl:.6f} BCE {bce:.6f}")
