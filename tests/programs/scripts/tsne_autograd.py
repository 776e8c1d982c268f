"""t-SNE written with autograd: perplexity-calibrated affinities by bisection on each point's
precision (vectorised), symmetrised P, Student-t Q from torch.cdist, KL(P||Q) minimised by
SGD with momentum and early exaggeration; the gradient equals the paper's closed form, and the
embedding keeps clusters apart (a 1-nearest-neighbour accuracy in 2-d)."""
import minigenesis as torch

torch.manual_seed(0)
k, per, dim = 4, 40, 10
centers = torch.randn(k, dim) * 4
labels = torch.arange(k).repeat_interleave(per)
X = (centers[labels] + torch.randn(k * per, dim)).double()
N = X.shape[0]


def affinities(X, perplexity=20.0, iters=50):
    d2 = torch.cdist(X, X) ** 2
    lo = torch.full((N, 1), 1e-10, dtype=X.dtype)
    hi = torch.full((N, 1), 1e4, dtype=X.dtype)
    target = torch.log(torch.tensor(perplexity, dtype=X.dtype))
    eye = torch.eye(N, dtype=torch.bool)
    for _ in range(iters):
        beta = (lo + hi) / 2
        logits = (-d2 * beta).masked_fill(eye, float("-inf"))
        P = torch.softmax(logits, dim=1)
        H = -(P * torch.log(P.clamp_min(1e-30))).sum(1, keepdim=True)
        too_flat = H > target  # entropy too high: raise the precision
        lo = torch.where(too_flat, beta, lo)
        hi = torch.where(too_flat, hi, beta)
    return P, H


P_cond, H = affinities(X)
assert torch.allclose(H.exp(), torch.full_like(H, 20.0), rtol=1e-3)
P = (P_cond + P_cond.T) / (2 * N)


def q_matrix(Y):
    num = 1 / (1 + torch.cdist(Y, Y) ** 2)
    num = num.masked_fill(torch.eye(N, dtype=torch.bool), 0)
    return num / num.sum(), num


def kl(P, Y):
    Q, _ = q_matrix(Y)
    mask = P > 0
    return (P[mask] * (P[mask].log() - Q[mask].clamp_min(1e-30).log())).sum()


Y = (1e-2 * torch.randn(N, 2, dtype=torch.float64)).requires_grad_()
# autograd's gradient against the closed form 4 sum_j (p_ij - q_ij)(y_i - y_j)(1 + |y_i - y_j|^2)^-1
loss = kl(P, Y)
(g,) = torch.autograd.grad(loss, Y)
with torch.no_grad():
    Q, num = q_matrix(Y)
    diff = Y.unsqueeze(1) - Y.unsqueeze(0)
    closed = 4 * (((P - Q) * num).unsqueeze(-1) * diff).sum(1)
assert torch.allclose(g, closed, atol=1e-10)

opt = torch.optim.SGD([Y], lr=100.0, momentum=0.8)
for it in range(300):
    exaggeration = 4.0 if it < 50 else 1.0
    loss = kl(P * exaggeration, Y) if it < 50 else kl(P, Y)
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    D = torch.cdist(Y, Y) + torch.eye(N, dtype=torch.float64) * 1e9
    nn_acc = (labels[D.argmin(1)] == labels).float().mean().item()
print(f"KL {loss.item():.3f}, 1-NN accuracy in the embedding {nn_acc:.2f}")
assert nn_acc > 0.95 and loss.item() < 1.0
