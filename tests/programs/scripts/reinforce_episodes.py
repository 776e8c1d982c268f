"""REINFORCE in the style of pytorch/examples' reinforce.py, on a hand-written environment (a
1-d chain: start in the middle, reward +1 at the right end, -1 at the left, a small cost per
step): a Policy module keeping saved_log_probs and rewards lists, Categorical(probs) sampling,
discounted returns built backwards with insert(0, R) per episode, normalized over a batch of
episodes (within one episode alone the sign of its outcome would be lost) with
(returns - mean) / (std + eps) where eps = np.finfo(np.float32).eps.item(), an entropy bonus,
torch.cat of the per-step losses, and a running reward."""
import numpy as np
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.optim as optim
from minigenesis.distributions import Categorical


class ChainEnv:
    """Positions 0..4; action 0 moves left, 1 moves right; episodes end at either end or after 20 steps."""

    def __init__(self, n=5, seed=0):
        self.n = n
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.pos = self.n // 2
        self.t = 0
        return self._obs()

    def _obs(self):
        obs = np.zeros(self.n, dtype=np.float32)
        obs[self.pos] = 1.0
        return obs

    def step(self, action):
        if self.rng.random() < 0.1:  # a slippery chain: one move in ten goes the other way
            action = 1 - action
        self.pos += 1 if action == 1 else -1
        self.t += 1
        if self.pos == self.n - 1:
            return self._obs(), 1.0, True
        if self.pos == 0:
            return self._obs(), -1.0, True
        return self._obs(), -0.01, self.t >= 20


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(5, 32)
        self.dropout = nn.Dropout(p=0.1)
        self.affine2 = nn.Linear(32, 2)
        self.saved_log_probs = []
        self.entropies = []
        self.rewards = []
        self.returns = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


torch.manual_seed(543)
env = ChainEnv()
policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()
gamma = 0.99


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    policy.entropies.append(m.entropy())
    return action.item()


def finish_episode():
    R = 0
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    policy.returns.extend(returns)
    del policy.rewards[:]


def finish_batch():
    policy_loss = []
    returns = torch.tensor(policy.returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum() - 0.01 * torch.cat(policy.entropies).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.returns[:]
    del policy.saved_log_probs[:]
    del policy.entropies[:]


# the return arithmetic against a closed form: rewards [0, 0, 1] -> [gamma^2, gamma, 1]
policy.rewards, R, rets = [0.0, 0.0, 1.0], 0, []
for r in policy.rewards[::-1]:
    R = r + gamma * R
    rets.insert(0, R)
assert np.allclose(rets, [gamma ** 2, gamma, 1.0])
policy.rewards = []

running_reward = -1.0
first_rewards = []
for i_episode in range(1, 101):
    state, ep_reward = env.reset(), 0
    for t in range(1, 50):
        action = select_action(state)
        state, reward, done = env.step(action)
        policy.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    if i_episode <= 20:
        first_rewards.append(ep_reward)
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    finish_episode()
    if i_episode % 4 == 0:
        finish_batch()
    if i_episode % 25 == 0:
        print(f"Episode {i_episode}\tLast reward: {ep_reward:.2f}\tAverage reward: {running_reward:.2f}")

policy.eval()
with torch.no_grad():
    probs_right = [policy(torch.eye(5)[p].unsqueeze(0))[0, 1].item() for p in range(1, 4)]
print("P(right) at positions 1..3:", [round(p, 3) for p in probs_right])
assert running_reward > np.mean(first_rewards) and running_reward > 0.4
assert min(probs_right) > 0.7
