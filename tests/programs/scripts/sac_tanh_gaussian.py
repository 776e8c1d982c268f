"""Soft actor-critic's pieces as the popular single-file implementations write them, on a
one-step continuous bandit (reward -(a - a*(s))^2 with a state-dependent best action): a
Gaussian policy with a clamped log_std, rsample through Normal, tanh squashing with the
log-probability correction 2 (log 2 - u - softplus(-2u)) (checked against
TransformedDistribution(Normal, TanhTransform) and against log(1 - tanh(u)^2)), twin Q networks
with min, Polyak-averaged target networks updated in place under no_grad, automatic entropy
tuning of log_alpha towards a target entropy, and the learned mean action near the optimum."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.distributions import Normal, TransformedDistribution
from minigenesis.distributions.transforms import TanhTransform
from minigenesis.nn import functional as F

torch.manual_seed(0)
LOG_STD_MIN, LOG_STD_MAX = -5, 2


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(1, 64), nn.ReLU())
        self.fc_mean = nn.Linear(64, 1)
        self.fc_logstd = nn.Linear(64, 1)

    def forward(self, x):
        h = self.fc(x)
        log_std = torch.tanh(self.fc_logstd(h))
        log_std = LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (log_std + 1)
        return self.fc_mean(h), log_std

    def get_action(self, x):
        mean, log_std = self(x)
        normal = torch.distributions.Normal(mean, log_std.exp())
        x_t = normal.rsample()
        y_t = torch.tanh(x_t)
        log_prob = normal.log_prob(x_t)
        log_prob -= 2 * (torch.log(torch.tensor(2.0)) - x_t - F.softplus(-2 * x_t))
        return y_t, log_prob.sum(1, keepdim=True), torch.tanh(mean)


def q_net():
    return nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 1))


u = torch.linspace(-3, 3, 7).unsqueeze(1)
base = Normal(torch.zeros(1), torch.ones(1))
squashed = TransformedDistribution(base, [TanhTransform()])
manual = base.log_prob(u) - 2 * (torch.log(torch.tensor(2.0)) - u - F.softplus(-2 * u))
naive = base.log_prob(u) - torch.log(1 - torch.tanh(u) ** 2)
assert torch.allclose(squashed.log_prob(torch.tanh(u)[1:-1]), manual[1:-1], atol=1e-4)
assert torch.allclose(manual, naive, atol=1e-4)


def best_action(s):
    return 0.6 * torch.sin(2 * s)


actor, qf1, qf2 = Actor(), q_net(), q_net()
qf1_target, qf2_target = q_net(), q_net()
qf1_target.load_state_dict(qf1.state_dict())
qf2_target.load_state_dict(qf2.state_dict())
q_optimizer = torch.optim.Adam(list(qf1.parameters()) + list(qf2.parameters()), lr=3e-3)
actor_optimizer = torch.optim.Adam(actor.parameters(), lr=1e-3)
target_entropy = -1.0
log_alpha = torch.zeros(1, requires_grad=True)
alpha = log_alpha.exp().item()
a_optimizer = torch.optim.Adam([log_alpha], lr=3e-3)
tau = 0.05
for step in range(300):
    s = torch.rand(64, 1) * 2 - 1
    with torch.no_grad():
        a, _, _ = actor.get_action(s)
    r = -((a - best_action(s)) ** 2)
    qf_loss = F.mse_loss(qf1(torch.cat([s, a], 1)), r) + F.mse_loss(qf2(torch.cat([s, a], 1)), r)
    q_optimizer.zero_grad()
    qf_loss.backward()
    q_optimizer.step()

    pi, log_pi, _ = actor.get_action(s)
    min_qf_pi = torch.min(qf1(torch.cat([s, pi], 1)), qf2(torch.cat([s, pi], 1)))
    actor_loss = ((alpha * log_pi) - min_qf_pi).mean()
    actor_optimizer.zero_grad()
    actor_loss.backward()
    actor_optimizer.step()

    with torch.no_grad():
        _, log_pi, _ = actor.get_action(s)
    alpha_loss = (-log_alpha.exp() * (log_pi + target_entropy)).mean()
    a_optimizer.zero_grad()
    alpha_loss.backward()
    a_optimizer.step()
    alpha = log_alpha.exp().item()

    with torch.no_grad():
        for param, target_param in zip(qf1.parameters(), qf1_target.parameters()):
            target_param.data.copy_(tau * param.data + (1 - tau) * target_param.data)
        for param, target_param in zip(qf2.parameters(), qf2_target.parameters()):
            target_param.mul_(1 - tau).add_(param, alpha=tau)
    if step % 100 == 0:
        print(f"step {step} qf_loss {qf_loss.item():.5f} actor_loss {actor_loss.item():.4f} alpha {alpha:.4f}")

s = torch.linspace(-1, 1, 21).unsqueeze(1)
with torch.no_grad():
    _, _, mean_action = actor.get_action(s)
err = (mean_action - best_action(s)).abs().max().item()
drift = max((p - q).abs().max().item() for p, q in zip(qf1.parameters(), qf1_target.parameters()))
print(f"max |mean action - best| {err:.4f}, alpha {alpha:.4f}, target drift {drift:.4f}")
assert err < 0.25
assert alpha < 1.0
