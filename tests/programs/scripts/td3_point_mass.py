"""TD3 (twin delayed DDPG) on a hand-written 1-d point-mass environment: a deterministic tanh
actor, twin critics with the clipped double-Q target, target policy smoothing with clamped
noise, delayed actor updates, Polyak averaging of the target networks by mul_/add_ under no_grad, and a replay buffer of tensors. The learned policy drives the
mass to the origin far better than doing nothing."""
import copy
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F


class PointMass:
    def reset(self):
        self.s = torch.tensor([torch.empty(()).uniform_(-1, 1).item(), 0.0])
        self.t = 0
        return self.s.clone()

    def step(self, a):
        pos, vel = self.s
        vel = vel + 0.1 * float(a)
        pos = pos + 0.1 * vel
        self.s = torch.tensor([pos, vel]).clamp(-2, 2)
        self.t += 1
        reward = -(pos ** 2) - 0.1 * vel ** 2 - 0.01 * float(a) ** 2
        return self.s.clone(), float(reward), self.t >= 40


def mlp(i, o, out_act=None):
    layers = [nn.Linear(i, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, o)]
    return nn.Sequential(*layers, *([out_act] if out_act else []))


torch.manual_seed(0)
env = PointMass()
actor = mlp(2, 1, nn.Tanh())
critics = nn.ModuleList([mlp(3, 1), mlp(3, 1)])
actor_t, critics_t = copy.deepcopy(actor), copy.deepcopy(critics)
for p in [*actor_t.parameters(), *critics_t.parameters()]:
    p.requires_grad_(False)
a_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
c_opt = torch.optim.Adam(critics.parameters(), lr=1e-3)
buf = {k: torch.zeros(5000, n) for k, n in [("s", 2), ("a", 1), ("r", 1), ("s2", 2), ("d", 1)]}
size, gamma, tau = 0, 0.95, 0.01


def soft_update(net, target):
    with torch.no_grad():
        for p, tp in zip(net.parameters(), target.parameters()):
            tp.mul_(1 - tau).add_(p, alpha=tau)


def evaluate(policy, episodes=5):
    total = 0.0
    gen_state = torch.get_rng_state()
    torch.manual_seed(123)
    for _ in range(episodes):
        s, done = env.reset(), False
        while not done:
            with torch.no_grad():
                s, r, done = env.step(policy(s))
            total += r
    torch.set_rng_state(gen_state)
    return total / episodes


baseline = evaluate(lambda s: torch.zeros(1))
step = 0
for episode in range(30):
    s, done = env.reset(), False
    while not done:
        with torch.no_grad():
            a = (actor(s) + 0.2 * torch.randn(1)).clamp(-1, 1) if episode > 3 else torch.empty(1).uniform_(-1, 1)
        s2, r, done = env.step(a)
        i = size % 5000
        for k, v in zip(("s", "a", "r", "s2", "d"), (s, a, torch.tensor([r]), s2, torch.tensor([float(done)]))):
            buf[k][i] = v
        size += 1
        s = s2
        step += 1
        if size < 256:
            continue
        idx = torch.randint(0, min(size, 5000), (128,))
        bs, ba, br, bs2, bd = (buf[k][idx] for k in ("s", "a", "r", "s2", "d"))
        with torch.no_grad():
            noise = (torch.randn_like(ba) * 0.2).clamp(-0.5, 0.5)
            a2 = (actor_t(bs2) + noise).clamp(-1, 1)
            sa2 = torch.cat([bs2, a2], 1)
            q_t = torch.min(critics_t[0](sa2), critics_t[1](sa2))
            y = br + gamma * (1 - bd) * q_t
        sa = torch.cat([bs, ba], 1)
        c_loss = sum(F.mse_loss(q(sa), y) for q in critics)
        c_opt.zero_grad()
        c_loss.backward()
        c_opt.step()
        if step % 2 == 0:
            a_loss = -critics[0](torch.cat([bs, actor(bs)], 1)).mean()
            a_opt.zero_grad()
            a_loss.backward()
            a_opt.step()
            soft_update(actor, actor_t)
            soft_update(critics, critics_t)
learned = evaluate(actor)
print(f"return: do nothing {baseline:.2f}, TD3 policy {learned:.2f}")
assert learned > 0.5 * baseline  # returns are negative: closer to zero is better
