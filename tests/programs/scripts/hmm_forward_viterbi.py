"""A hidden Markov model in log space: the forward algorithm with logsumexp, checked against
brute-force enumeration of every state path (itertools.product); Viterbi decoding with max and
argmax back-pointers; and maximum-likelihood fitting of the parameters by gradient ascent on
the forward log-likelihood (unconstrained logits through log_softmax)."""
import itertools
import minigenesis as torch
import minigenesis.nn.functional as F


def forward_logprob(log_pi, log_A, log_B, obs):
    alpha = log_pi + log_B[:, obs[0]]
    for t in range(1, len(obs)):
        alpha = torch.logsumexp(alpha.unsqueeze(1) + log_A, dim=0) + log_B[:, obs[t]]
    return torch.logsumexp(alpha, dim=0)


def brute_force(log_pi, log_A, log_B, obs):
    k = log_pi.shape[0]
    total = []
    for path in itertools.product(range(k), repeat=len(obs)):
        lp = log_pi[path[0]] + log_B[path[0], obs[0]]
        for t in range(1, len(obs)):
            lp = lp + log_A[path[t - 1], path[t]] + log_B[path[t], obs[t]]
        total.append(lp)
    return torch.logsumexp(torch.stack(total), 0)


def viterbi(log_pi, log_A, log_B, obs):
    delta = log_pi + log_B[:, obs[0]]
    back = []
    for t in range(1, len(obs)):
        scores = delta.unsqueeze(1) + log_A
        delta, arg = scores.max(dim=0)
        delta = delta + log_B[:, obs[t]]
        back.append(arg)
    best = [int(delta.argmax())]
    for arg in reversed(back):
        best.append(int(arg[best[-1]]))
    return best[::-1], delta.max()


def sample(pi, A, B, T, gen):
    s = torch.multinomial(pi, 1, generator=gen).item()
    states, obs = [], []
    for _ in range(T):
        states.append(s)
        obs.append(torch.multinomial(B[s], 1, generator=gen).item())
        s = torch.multinomial(A[s], 1, generator=gen).item()
    return states, obs


torch.manual_seed(0)
pi = torch.tensor([0.6, 0.3, 0.1], dtype=torch.float64)
A = torch.tensor([[0.8, 0.15, 0.05], [0.1, 0.8, 0.1], [0.05, 0.15, 0.8]], dtype=torch.float64)
B = torch.tensor([[0.7, 0.2, 0.1, 0.0], [0.1, 0.6, 0.2, 0.1], [0.0, 0.1, 0.3, 0.6]], dtype=torch.float64) + 1e-3
B = B / B.sum(1, keepdim=True)
obs = [0, 0, 1, 2, 3, 3]
lp = forward_logprob(pi.log(), A.log(), B.log(), obs)
bf = brute_force(pi.log(), A.log(), B.log(), obs)
print(f"forward {lp.item():.10f} brute force {bf.item():.10f}")
assert torch.allclose(lp, bf)
path, best = viterbi(pi.log(), A.log(), B.log(), obs)
# Viterbi's path is the argmax over all paths
scores = {p: 0 for p in itertools.product(range(3), repeat=len(obs))}
for p in scores:
    s = pi[p[0]].log() + B[p[0], obs[0]].log()
    for t in range(1, len(obs)):
        s = s + A[p[t - 1], p[t]].log() + B[p[t], obs[t]].log()
    scores[p] = s.item()
assert tuple(path) == max(scores, key=scores.get) and abs(best.item() - max(scores.values())) < 1e-9
print("viterbi path", path)

gen = torch.Generator().manual_seed(1)
seqs = torch.tensor([sample(pi, A, B, 40, gen)[1] for _ in range(30)])
params = {
    "pi": torch.zeros(3, dtype=torch.float64, requires_grad=True),
    "A": (torch.eye(3, dtype=torch.float64) * 1.0).requires_grad_(),
    "B": (0.1 * torch.randn(3, 4, dtype=torch.float64)).requires_grad_(),
}
opt = torch.optim.Adam(params.values(), lr=0.05)


def batched_forward(log_pi, log_A, log_B, obs):
    """All sequences at once: alpha is (batch, states); emissions gathered by log_B[:, obs[:, t]]."""
    alpha = log_pi + log_B[:, obs[:, 0]].T
    for t in range(1, obs.shape[1]):
        alpha = torch.logsumexp(alpha.unsqueeze(2) + log_A, dim=1) + log_B[:, obs[:, t]].T
    return torch.logsumexp(alpha, dim=1)


assert torch.allclose(batched_forward(pi.log(), A.log(), B.log(), seqs[:3]), torch.stack([forward_logprob(pi.log(), A.log(), B.log(), s) for s in seqs[:3]]))


def total_ll():
    lpi = F.log_softmax(params["pi"], 0)
    lA = F.log_softmax(params["A"], 1)
    lB = F.log_softmax(params["B"], 1)
    return batched_forward(lpi, lA, lB, seqs).sum()


start = total_ll().item()
for step in range(80):
    loss = -total_ll()
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    true_ll = batched_forward(pi.log(), A.log(), B.log(), seqs).sum().item()
    fitted = total_ll().item()
print(f"log-likelihood: start {start:.1f}, fitted {fitted:.1f}, true parameters {true_ll:.1f}")
assert fitted > start + 50 and fitted > true_ll - 10
