"""A differentiable Kalman filter for a constant-velocity model: the filter's innovation
log-likelihood (MultivariateNormal.log_prob) is maximised over log noise variances by LBFGS,
recovering the simulator's noise levels; the filtered track beats the raw measurements."""
import minigenesis as torch
from minigenesis.distributions import MultivariateNormal

torch.manual_seed(0)
dt = 0.1
F_ = torch.tensor([[1.0, dt], [0.0, 1.0]], dtype=torch.float64)
H = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
true_q, true_r = 0.5, 0.3
T, N = 60, 16  # N independent tracks, filtered as one batch
x = torch.zeros(N, 2, dtype=torch.float64)
states, meas = [], []
G = torch.tensor([[0.5 * dt ** 2], [dt]], dtype=torch.float64)
for t in range(T):
    x = x @ F_.T + true_q * torch.randn(N, 1, dtype=torch.float64) @ G.T
    states.append(x)
    meas.append(x @ H.T + true_r * torch.randn(N, 1, dtype=torch.float64))
states, meas = torch.stack(states), torch.stack(meas)  # (T, N, 2), (T, N, 1)


def kalman(log_q, log_r, zs):
    Q = G @ G.T * torch.exp(2 * log_q)
    R = torch.exp(2 * log_r).reshape(1, 1)
    m = torch.zeros(zs.shape[1], 2, 1, dtype=torch.float64)
    P = torch.eye(2, dtype=torch.float64).expand(zs.shape[1], 2, 2) * 10
    ll, means = 0.0, []
    for z in zs:
        m = F_ @ m
        P = F_ @ P @ F_.T + Q
        S = H @ P @ H.T + R
        ll = ll + MultivariateNormal((H @ m).squeeze(-1), covariance_matrix=S).log_prob(z).sum()
        K = P @ H.T @ torch.linalg.inv(S)
        m = m + K @ (z.unsqueeze(-1) - H @ m)
        P = (torch.eye(2, dtype=torch.float64) - K @ H) @ P
        m_out = m.squeeze(-1)
        means.append(m_out)
    return ll, torch.stack(means)


log_q = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
log_r = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
opt = torch.optim.LBFGS([log_q, log_r], max_iter=15, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    nll = -kalman(log_q, log_r, meas)[0]
    nll.backward()
    return nll


ll = -opt.step(closure)
q_hat, r_hat = log_q.exp().item(), log_r.exp().item()
print(f"q {q_hat:.3f} (true {true_q}), r {r_hat:.3f} (true {true_r})")
with torch.no_grad():
    ll_fit, means = kalman(log_q, log_r, meas)
    ll_true, _ = kalman(torch.tensor(true_q).log(), torch.tensor(true_r).log(), meas)
print(f"log-likelihood at the fit {ll_fit.item():.2f}, at the true noise levels {ll_true.item():.2f}")
assert ll_fit >= ll_true - 0.5  # a maximum-likelihood fit
assert abs(r_hat - true_r) < 0.1 and 0.5 * true_q < q_hat < 2 * true_q
rmse_filter = (means[..., 0] - states[..., 0]).pow(2).mean().sqrt().item()
rmse_raw = (meas[..., 0] - states[..., 0]).pow(2).mean().sqrt().item()
print(f"position RMSE: filtered {rmse_filter:.3f}, raw {rmse_raw:.3f}")
assert rmse_filter < 0.8 * rmse_raw
