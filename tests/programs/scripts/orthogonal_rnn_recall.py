"""An RNN whose recurrent matrix is kept orthogonal with
torch.nn.utils.parametrizations.orthogonal (as in the parametrizations tutorial and
expRNN-style papers), on a memory task: recalling the first number of a sequence of 10
after reading them all. The hidden-to-hidden weight stays orthogonal through training, the registration keeps
its original under parametrizations.weight.original, and parametrize.cached() reuses the weight
across the time steps."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
import minigenesis.nn.utils.parametrize as parametrize
from minigenesis.nn.utils.parametrizations import orthogonal

torch.manual_seed(0)
T, H = 10, 32


def recall_batch(n):
    values = torch.rand(n, T) * 2 - 1
    marks = torch.zeros(n, T)
    marks[:, 0] = 1.0
    return torch.stack([values, marks], dim=2), values[:, :1]


class OrthoRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(2, H)
        self.rec = nn.Linear(H, H, bias=False)
        orthogonal(self.rec)
        self.out = nn.Linear(H, 1)

    def forward(self, x):
        h = x.new_zeros(x.size(0), H)
        with parametrize.cached():
            for t in range(x.size(1)):
                h = torch.tanh(self.inp(x[:, t]) + self.rec(h))
        return self.out(h)


model = OrthoRNN()
assert parametrize.is_parametrized(model.rec, "weight")
W = model.rec.weight
assert torch.allclose(W @ W.T, torch.eye(H), atol=1e-5)
assert "rec.parametrizations.weight.original" in dict(model.named_parameters())
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for step in range(200):
    x, y = recall_batch(64)
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
W = model.rec.weight.detach()
err = (W @ W.T - torch.eye(H)).abs().max().item()
with torch.no_grad():
    x, y = recall_batch(500)
    mse = F.mse_loss(model(x), y).item()
baseline = y.var().item()  # always predicting the mean (0)
print(f"recall mse {mse:.4f} vs {baseline:.4f} for the mean; |W W^T - I| {err:.1e}")
assert err < 1e-4
assert mse < 0.1 * baseline
