"""REINFORCE on a 3-armed bandit with Categorical, log_prob and entropy."""
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.distributions import Categorical

torch.manual_seed(0)
# a 3-armed bandit: arm 2 pays best
payout = torch.tensor([0.1, 0.3, 0.8])
policy = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 3))
opt = torch.optim.Adam(policy.parameters(), lr=0.05)
baseline = 0.0
for episode in range(300):
    logits = policy(torch.ones(1, 1))
    dist = Categorical(logits=logits)
    action = dist.sample()
    reward = torch.bernoulli(payout[action]).item()
    baseline = 0.9 * baseline + 0.1 * reward
    loss = -(dist.log_prob(action) * (reward - baseline)).sum() - 0.01 * dist.entropy().sum()
    opt.zero_grad(); loss.backward(); opt.step()
probs = torch.softmax(policy(torch.ones(1, 1)), -1).squeeze()
print(probs.detach().numpy().round(3))
assert probs.argmax().item() == 2
