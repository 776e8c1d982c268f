"""Two PyTorch-style programs on torch.distributions, written with PyTorch's names only and run
with PyTorch too when it is installed:

1. REINFORCE on a 4-armed bandit: a softmax policy (Categorical over logits) learns to pull the
   best arm from the score-function gradient  -log pi(a) * (reward - baseline).
2. A variational auto-encoder's loss on a toy data set: the encoder gives Normal(mu, sigma),
   rsample draws z with the reparameterisation trick, the loss is the reconstruction error plus
   kl_divergence(q(z|x), N(0, I)) summed over the latent dimensions (Independent).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as torch


def bandit(torch, steps: int = 300) -> tuple[list, list]:
    """The program; ``torch`` is minigenesis (or PyTorch, for the comparison)."""
    from_numpy = torch.from_numpy
    Categorical = torch.distributions.Categorical

    arm_means = torch.tensor([0.1, 0.5, 0.9, 0.3])
    logits = torch.zeros(4, requires_grad=True)
    optimizer = torch.optim.Adam([logits], lr=0.05)
    noise = np.random.default_rng(0)  # the reward noise, shared by both libraries' runs
    baseline = 0.0
    rewards, best_arm_probs = [], []
    for _ in range(steps):
        policy = Categorical(logits=logits)
        actions = policy.sample((16,))  # a batch of 16 pulls
        reward = arm_means[actions] + from_numpy(noise.normal(0, 0.1, 16).astype(np.float32))
        advantage = reward - baseline
        loss = -(policy.log_prob(actions) * advantage).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        baseline = 0.9 * baseline + 0.1 * reward.mean().item()
        rewards.append(reward.mean().item())
        best_arm_probs.append(policy.probs[2].item())
    return rewards, best_arm_probs


def test_reinforce_learns_the_best_arm():
    torch.manual_seed(0)
    rewards, best = bandit(torch)
    assert best[0] == pytest.approx(0.25)
    assert best[-1] > 0.9  # the policy concentrates on arm 2 (mean reward 0.9)
    assert np.mean(rewards[-50:]) > 0.8 > np.mean(rewards[:20])


def vae_losses(torch, steps: int = 150) -> list:
    nn, F = torch.nn, torch.nn.functional
    Normal, Independent = torch.distributions.Normal, torch.distributions.Independent
    kl_divergence = torch.distributions.kl_divergence

    torch.manual_seed(0)
    data = torch.randn(256, 2) @ torch.tensor([[2.0, 0.0], [1.5, 0.5]])  # a stretched cloud

    class VAE(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 4))
            self.decoder = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 2))

        def forward(self, x):
            mu, log_sigma = self.encoder(x).chunk(2, dim=-1)
            q = Independent(Normal(mu, log_sigma.exp()), 1)
            z = q.rsample()
            prior = Independent(Normal(torch.zeros_like(mu), torch.ones_like(mu)), 1)
            reconstruction = F.mse_loss(self.decoder(z), x, reduction="none").sum(-1)
            return (reconstruction + kl_divergence(q, prior)).mean()

    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        loss = model(data)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def test_vae_loss_decreases():
    losses = vae_losses(torch)
    assert np.isfinite(losses).all()
    assert np.mean(losses[-20:]) < 0.6 * np.mean(losses[:5])


def test_programs_behave_like_pytorch():
    real_torch = pytest.importorskip("torch")
    # PyTorch's own speed on these tiny tensors: one thread (no contention with the test run)
    # and no argument validation (its simplex check dominates the bandit's steps); restored after
    threads = real_torch.get_num_threads()
    validate = real_torch.distributions.Distribution._validate_args
    real_torch.set_num_threads(1)
    real_torch.distributions.Distribution.set_default_validate_args(False)
    try:
        real_torch.manual_seed(0)
        _, theirs = bandit(real_torch, steps=150)
        theirs_vae = vae_losses(real_torch, steps=100)
    finally:
        real_torch.set_num_threads(threads)
        real_torch.distributions.Distribution.set_default_validate_args(validate)
    # the random streams differ between the libraries: compare what was learned, not draws
    torch.manual_seed(0)
    _, ours = bandit(torch, steps=150)
    assert ours[-1] > 0.8 and theirs[-1] > 0.8
    ours_vae = vae_losses(torch, steps=100)
    assert ours_vae[0] == pytest.approx(theirs_vae[0], rel=0.2)  # same data law, same init law
    assert np.mean(ours_vae[-10:]) == pytest.approx(np.mean(theirs_vae[-10:]), rel=0.3)
