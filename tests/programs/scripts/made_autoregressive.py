"""MADE, the masked autoencoder for distribution estimation: nn.Linear subclassed with a
register_buffer'd mask applied in forward through F.linear, masks built from the degrees of
each unit, the autoregressive property checked by the Jacobian (output d depends only on inputs
before d), exact log-likelihood of binary vectors, and ancestral sampling with torch.bernoulli."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.autograd.functional import jacobian

torch.manual_seed(0)
D, H = 6, 32


class MaskedLinear(nn.Linear):
    def __init__(self, in_features, out_features):
        super().__init__(in_features, out_features)
        self.register_buffer("mask", torch.ones(out_features, in_features))

    def set_mask(self, mask):
        self.mask.data.copy_(mask.to(self.mask.dtype))

    def forward(self, x):
        return F.linear(x, self.mask * self.weight, self.bias)


class MADE(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(MaskedLinear(D, H), nn.ReLU(), MaskedLinear(H, H), nn.ReLU(), MaskedLinear(H, D))
        m_in = torch.arange(1, D + 1)
        g = torch.Generator().manual_seed(1)
        m1 = torch.randint(1, D, (H,), generator=g)
        m2 = torch.randint(int(m1.min()), D, (H,), generator=g)
        masks = [m1[:, None] >= m_in[None, :], m2[:, None] >= m1[None, :], m_in[:, None] > m2[None, :]]
        for layer, mask in zip([l for l in self.net if isinstance(l, MaskedLinear)], masks):
            layer.set_mask(mask)

    def forward(self, x):
        return self.net(x)  # logits of p(x_d = 1 | x_<d)

    def log_prob(self, x):
        return -F.binary_cross_entropy_with_logits(self(x), x, reduction="none").sum(-1)

    @torch.no_grad()
    def sample(self, n):
        x = torch.zeros(n, D)
        for d in range(D):
            x[:, d] = torch.bernoulli(torch.sigmoid(self(x)[:, d]))
        return x


model = MADE()
assert set(model.state_dict()) >= {"net.0.mask", "net.2.mask", "net.4.mask"}
J = jacobian(model, torch.rand(D))
assert torch.all(torch.triu(J) == 0), "output d must not see inputs d, d+1, ..."


def data(n):  # a Markov chain of bits: each copies the previous with probability 0.9
    x = torch.zeros(n, D)
    x[:, 0] = torch.bernoulli(torch.full((n,), 0.5))
    for d in range(1, D):
        flip = torch.bernoulli(torch.full((n,), 0.1))
        x[:, d] = (x[:, d - 1] + flip) % 2
    return x


opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(300):
    loss = -model.log_prob(data(128)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

grid = torch.tensor([[(i >> k) & 1 for k in range(D)] for i in range(2**D)], dtype=torch.float32)
with torch.no_grad():
    total = model.log_prob(grid).exp().sum().item()
    nll = -model.log_prob(data(2000)).mean().item()
entropy = -(0.5 * torch.log(torch.tensor(0.5)) * 2 + (D - 1) * (0.9 * torch.log(torch.tensor(0.9)) + 0.1 * torch.log(torch.tensor(0.1)))).item()
samples = model.sample(2000)
same_as_prev = (samples[:, 1:] == samples[:, :-1]).float().mean().item()
print(f"nll {nll:.3f} nats (entropy {entropy:.3f}), total probability {total:.5f}, copy rate {same_as_prev:.3f}")
assert abs(total - 1.0) < 1e-4
assert nll < entropy + 0.1
assert abs(same_as_prev - 0.9) < 0.03
