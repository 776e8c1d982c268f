"""OpenAI-style evolution strategies on a cart-pole written by hand (the classic equations of
motion, Euler steps of 0.02 s, failure past 12 degrees or 2.4 m): the policy's parameters are
flattened with parameters_to_vector, perturbed by antithetic Gaussian noise, written back with
vector_to_parameters, scored by episode length under torch.no_grad, and moved along the
rank-normalised returns. No backward pass anywhere."""
import math

import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.nn.utils import parameters_to_vector, vector_to_parameters


class CartPole:
    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02

    def __init__(self, generator):
        self.g = generator

    def reset(self):
        self.state = (torch.rand(4, generator=self.g) - 0.5) * 0.1
        return self.state.clone()

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state.tolist()
        force = self.force_mag if action == 1 else -self.force_mag
        total = self.masscart + self.masspole
        pml = self.masspole * self.length
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + pml * theta_dot**2 * sin) / total
        theta_acc = (self.gravity * sin - cos * temp) / (self.length * (4.0 / 3.0 - self.masspole * cos**2 / total))
        x_acc = temp - pml * theta_acc * cos / total
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * x_acc
        theta, theta_dot = theta + self.tau * theta_dot, theta_dot + self.tau * theta_acc
        self.state = torch.tensor([x, x_dot, theta, theta_dot])
        done = abs(x) > 2.4 or abs(theta) > 12 * 2 * math.pi / 360
        return self.state.clone(), 1.0, done


def episode_return(policy, env, max_steps=200):
    obs, total = env.reset(), 0.0
    with torch.no_grad():
        for _ in range(max_steps):
            action = int(policy(obs).argmax().item())
            obs, reward, done = env.step(action)
            total += reward
            if done:
                break
    return total


def centered_ranks(x):
    ranks = torch.empty_like(x)
    ranks[x.argsort()] = torch.arange(len(x), dtype=x.dtype)
    return ranks / (len(x) - 1) - 0.5


torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 2))  # a linear policy balances a cart-pole
theta = parameters_to_vector(policy.parameters()).detach()
print("parameters:", theta.numel())
g = torch.Generator().manual_seed(1)
env = CartPole(g)
sigma, lr, pairs = 0.2, 0.3, 8
history = []
for generation in range(25):
    eps = torch.randn(pairs, theta.numel(), generator=g)
    eps = torch.cat([eps, -eps])  # antithetic
    returns = torch.empty(2 * pairs)
    for i in range(2 * pairs):
        vector_to_parameters(theta + sigma * eps[i], policy.parameters())
        returns[i] = episode_return(policy, env)
    weights = centered_ranks(returns)
    theta = theta + lr / (2 * pairs * sigma) * (weights @ eps)
    vector_to_parameters(theta, policy.parameters())
    history.append(sum(episode_return(policy, env) for _ in range(3)) / 3)
    if generation % 5 == 0:
        print("generation %2d mean perturbed return %6.1f, centre %6.1f" % (generation, returns.mean().item(), history[-1]))
print("final return %.1f (first %.1f)" % (history[-1], history[0]))
assert max(history) >= 100 and history[-1] > history[0] and torch.equal(parameters_to_vector(policy.parameters()), theta)
