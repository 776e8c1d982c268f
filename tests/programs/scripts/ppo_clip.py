"""Proximal policy optimisation (PPO-clip) as CleanRL's single-file implementation structures it,
on a hand-written vectorised environment (a 1-d reach-the-target task for 8 copies at once):
an Agent with orthogonally initialised actor and critic (layer_init with std=sqrt(2) and
0.01), rollout buffers as preallocated tensors, generalised advantage estimation computed
backwards, minibatch epochs over a permutation, the ratio exp(newlogprob - logprob), the clipped
surrogate, a clipped value loss, an entropy bonus, approx_kl, clip_grad_norm_, and Adam with
eps=1e-5 and a linearly annealed learning rate."""
import numpy as np

import minigenesis as torch
from minigenesis import nn
from minigenesis.distributions.categorical import Categorical

torch.manual_seed(0)


class ReachEnv:
    """Position in 0..8, target 8: actions 0=left, 1=stay, 2=right; +1 on reaching it, -0.05 per step."""

    def __init__(self, n):
        self.n = n
        self.pos = torch.zeros(n, dtype=torch.long)
        self.t = torch.zeros(n, dtype=torch.long)

    def obs(self):
        return torch.stack([self.pos.float() / 8, self.t.float() / 20], dim=1)

    def reset(self):
        self.pos = torch.randint(0, 5, (self.n,))
        self.t.zero_()
        return self.obs()

    def step(self, action):
        self.pos = (self.pos + action - 1).clamp(0, 8)
        self.t += 1
        done = (self.pos == 8) | (self.t >= 20)
        reward = torch.where(self.pos == 8, torch.tensor(1.0), torch.tensor(-0.05))
        fresh = torch.randint(0, 5, (self.n,))
        self.pos = torch.where(done, fresh, self.pos)
        self.t = torch.where(done, torch.zeros_like(self.t), self.t)
        return self.obs(), reward, done.float()


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.critic = nn.Sequential(layer_init(nn.Linear(2, 32)), nn.Tanh(), layer_init(nn.Linear(32, 1), std=1.0))
        self.actor = nn.Sequential(layer_init(nn.Linear(2, 32)), nn.Tanh(), layer_init(nn.Linear(32, 3), std=0.01))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        probs = Categorical(logits=self.actor(x))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


num_envs, num_steps, num_updates = 8, 32, 25
gamma, gae_lambda, clip_coef, ent_coef, vf_coef, lr = 0.99, 0.95, 0.2, 0.01, 0.5, 2.5e-3
batch_size, minibatch_size, update_epochs = num_envs * num_steps, 64, 4
env = ReachEnv(num_envs)
agent = Agent()
optimizer = torch.optim.Adam(agent.parameters(), lr=lr, eps=1e-5)
obs = torch.zeros((num_steps, num_envs, 2))
actions = torch.zeros((num_steps, num_envs))
logprobs = torch.zeros((num_steps, num_envs))
rewards = torch.zeros((num_steps, num_envs))
dones = torch.zeros((num_steps, num_envs))
values = torch.zeros((num_steps, num_envs))
next_obs, next_done = env.reset(), torch.zeros(num_envs)
history = []
for update in range(1, num_updates + 1):
    optimizer.param_groups[0]["lr"] = (1.0 - (update - 1.0) / num_updates) * lr
    for step in range(num_steps):
        obs[step], dones[step] = next_obs, next_done
        with torch.no_grad():
            action, logprob, _, value = agent.get_action_and_value(next_obs)
            values[step] = value.flatten()
        actions[step], logprobs[step] = action, logprob
        next_obs, rewards[step], next_done = env.step(action)
    history.append(rewards.sum().item() / num_envs)
    with torch.no_grad():
        next_value = agent.get_value(next_obs).reshape(1, -1)
        advantages = torch.zeros_like(rewards)
        lastgaelam = 0
        for t in reversed(range(num_steps)):
            if t == num_steps - 1:
                nextnonterminal, nextvalues = 1.0 - next_done, next_value
            else:
                nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
            delta = rewards[t] + gamma * nextvalues * nextnonterminal - values[t]
            advantages[t] = lastgaelam = delta + gamma * gae_lambda * nextnonterminal * lastgaelam
        returns = advantages + values
    b_obs, b_logprobs, b_actions = obs.reshape((-1, 2)), logprobs.reshape(-1), actions.reshape(-1)
    b_advantages, b_returns, b_values = advantages.reshape(-1), returns.reshape(-1), values.reshape(-1)
    b_inds = np.arange(batch_size)
    for epoch in range(update_epochs):
        np.random.default_rng(update * 10 + epoch).shuffle(b_inds)
        for start in range(0, batch_size, minibatch_size):
            mb_inds = torch.from_numpy(b_inds[start:start + minibatch_size])
            _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds], b_actions.long()[mb_inds])
            logratio = newlogprob - b_logprobs[mb_inds]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
            mb_advantages = b_advantages[mb_inds]
            mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
            pg_loss1 = -mb_advantages * ratio
            pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef)
            pg_loss = torch.max(pg_loss1, pg_loss2).mean()
            newvalue = newvalue.view(-1)
            v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
            v_clipped = b_values[mb_inds] + torch.clamp(newvalue - b_values[mb_inds], -clip_coef, clip_coef)
            v_loss = 0.5 * torch.max(v_loss_unclipped, (v_clipped - b_returns[mb_inds]) ** 2).mean()
            loss = pg_loss - ent_coef * entropy.mean() + v_loss * vf_coef
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            optimizer.step()
    if update % 8 == 1:
        print(f"update {update} reward/env {history[-1]:.3f} approx_kl {approx_kl.item():.4f} lr {optimizer.param_groups[0]['lr']:.6f}")
print(f"reward per env: first {np.mean(history[:3]):.3f} last {np.mean(history[-3:]):.3f}")
assert np.mean(history[-3:]) > np.mean(history[:3]) + 0.3
