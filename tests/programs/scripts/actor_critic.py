"""Advantage actor-critic (A2C) on a small corridor world written in Python: a shared body with
policy and value heads, Categorical sampling, discounted returns computed backwards, advantages
detached from the critic, an entropy bonus, smooth_l1_loss for the value, gradient clipping."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.distributions import Categorical


class Corridor:
    """Positions 0..n-1, start in the middle; reward +1 at the right end, -1 at the left end,
    -0.01 per step; actions 0 = left, 1 = right."""

    def __init__(self, n=9):
        self.n = n

    def reset(self):
        self.pos = self.n // 2
        return self.obs()

    def obs(self):
        return torch.nn.functional.one_hot(torch.tensor(self.pos), self.n).float()

    def step(self, action):
        self.pos += 1 if action == 1 else -1
        if self.pos == self.n - 1:
            return self.obs(), 1.0, True
        if self.pos == 0:
            return self.obs(), -1.0, True
        return self.obs(), -0.01, False


class ActorCritic(nn.Module):
    def __init__(self, n_obs, n_actions, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_obs, hidden), nn.Tanh())
        self.policy = nn.Linear(hidden, n_actions)
        self.value = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return Categorical(logits=self.policy(h)), self.value(h).squeeze(-1)


def discounted_returns(rewards, gamma):
    returns, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        returns.insert(0, running)
    return torch.tensor(returns)


torch.manual_seed(0)
env = Corridor()
model = ActorCritic(env.n, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
gamma, lengths = 0.95, []
for episode in range(150):
    obs, log_probs, values, entropies, rewards, done = env.reset(), [], [], [], [], False
    while not done and len(rewards) < 50:
        dist, value = model(obs)
        action = dist.sample()
        obs, reward, done = env.step(action.item())
        log_probs.append(dist.log_prob(action))
        entropies.append(dist.entropy())
        values.append(value)
        rewards.append(reward)
    returns = discounted_returns(rewards, gamma)
    values = torch.stack(values)
    advantages = returns - values.detach()
    policy_loss = -(torch.stack(log_probs) * advantages).mean()
    value_loss = F.smooth_l1_loss(values, returns)
    loss = policy_loss + 0.5 * value_loss - 0.01 * torch.stack(entropies).mean()
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()
    lengths.append(len(rewards))
    if episode % 50 == 0:
        print(f"episode {episode} length {len(rewards)} return {returns[0].item():.3f}")

assert torch.allclose(discounted_returns([1.0, 0.0, 2.0], 0.5), torch.tensor([1.5, 1.0, 2.0]))
with torch.no_grad():
    probs_right = torch.stack([model(F.one_hot(torch.tensor(p), env.n).float())[0].probs[1] for p in range(1, env.n - 1)])
    values = torch.stack([model(F.one_hot(torch.tensor(p), env.n).float())[1] for p in range(1, env.n - 1)])
print(f"P(right) by position {[round(p, 2) for p in probs_right.tolist()]}, last lengths {lengths[-5:]}")
assert (probs_right > 0.7).all()  # the policy heads for the reward
assert values[-1] > values[0]  # states nearer the goal are worth more
assert sum(lengths[-10:]) / 10 < 6  # the shortest path is 4 steps
