"""Expectation-maximisation for a Gaussian mixture written with tensors: responsibilities from
MultivariateNormal(...).log_prob and torch.logsumexp, the M-step's weighted means and
covariances with einsum, a log-likelihood that never decreases, agreement with
MixtureSameFamily(Categorical, MultivariateNormal).log_prob, and the true means recovered."""
import minigenesis as torch
from minigenesis.distributions import Categorical, MixtureSameFamily, MultivariateNormal

torch.set_default_dtype(torch.float64)
g = torch.Generator().manual_seed(0)
true_means = torch.tensor([[0.0, 0.0], [4.0, 4.0], [-4.0, 3.0]])
chol = torch.tensor([[[1.0, 0.0], [0.5, 0.6]], [[0.7, 0.0], [-0.3, 0.9]], [[0.5, 0.0], [0.0, 1.2]]])
counts = [150, 100, 80]
X = torch.cat([true_means[k] + torch.randn(c, 2, generator=g) @ chol[k].T for k, c in enumerate(counts)])
N, D, K = X.shape[0], 2, 3

pi = torch.full((K,), 1.0 / K)
mu = X[torch.tensor([0, 200, 300])].clone()
cov = torch.eye(D).repeat(K, 1, 1)
history = []
for it in range(40):
    comp = MultivariateNormal(mu, covariance_matrix=cov)
    log_p = comp.log_prob(X[:, None, :]) + pi.log()  # N x K
    ll = torch.logsumexp(log_p, dim=1)
    history.append(ll.sum().item())
    resp = (log_p - ll[:, None]).exp()
    Nk = resp.sum(0)
    pi = Nk / N
    mu = (resp.T @ X) / Nk[:, None]
    diff = X[:, None, :] - mu[None]
    cov = torch.einsum("nk,nki,nkj->kij", resp, diff, diff) / Nk[:, None, None] + 1e-6 * torch.eye(D)

gmm = MixtureSameFamily(Categorical(probs=pi), MultivariateNormal(mu, covariance_matrix=cov))
comp = MultivariateNormal(mu, covariance_matrix=cov)
by_hand = torch.logsumexp(comp.log_prob(X[:, None, :]) + pi.log(), dim=1)
assert torch.allclose(gmm.log_prob(X), by_hand)
assert all(b >= a - 1e-8 for a, b in zip(history, history[1:]))
order = torch.argsort(mu[:, 0])
print(f"log-likelihood {history[0]:.2f} -> {history[-1]:.2f}; weights {pi[order].numpy().round(3)}")
print("means", mu[order].numpy().round(2).tolist())
assert torch.allclose(mu[order], true_means[torch.argsort(true_means[:, 0])], atol=0.35)
assert torch.allclose(pi.sum(), torch.tensor(1.0))
samples = gmm.sample((2000,))
assert samples.shape == (2000, 2) and samples.dtype == torch.float64
torch.set_default_dtype(torch.float32)
