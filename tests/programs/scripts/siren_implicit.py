"""SIREN, as in the authors' explore_siren notebook: a coordinate MLP with sine activations and
their initialisation (uniform in +-1/in for the first layer, +-sqrt(6/in)/omega_0 after), fitted
to a 2-d image given on a mesh grid from torch.meshgrid; the image's gradient and Laplacian come
out of the network by autograd.grad with create_graph=True and match central differences of the
network itself."""
import math

import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)


def get_mgrid(sidelen, dim=2):
    tensors = tuple(dim * [torch.linspace(-1, 1, steps=sidelen)])
    mgrid = torch.stack(torch.meshgrid(*tensors, indexing="ij"), dim=-1)
    return mgrid.reshape(-1, dim)


class SineLayer(nn.Module):
    def __init__(self, in_features, out_features, bias=True, is_first=False, omega_0=30):
        super().__init__()
        self.omega_0 = omega_0
        self.is_first = is_first
        self.in_features = in_features
        self.linear = nn.Linear(in_features, out_features, bias=bias)
        self.init_weights()

    def init_weights(self):
        with torch.no_grad():
            if self.is_first:
                self.linear.weight.uniform_(-1 / self.in_features, 1 / self.in_features)
            else:
                bound = math.sqrt(6 / self.in_features) / self.omega_0
                self.linear.weight.uniform_(-bound, bound)

    def forward(self, input):
        return torch.sin(self.omega_0 * self.linear(input))


class Siren(nn.Module):
    def __init__(self, in_features, hidden_features, hidden_layers, out_features,
                 first_omega_0=30, hidden_omega_0=30.0):
        super().__init__()
        self.net = [SineLayer(in_features, hidden_features, is_first=True, omega_0=first_omega_0)]
        for _ in range(hidden_layers):
            self.net.append(SineLayer(hidden_features, hidden_features, omega_0=hidden_omega_0))
        final_linear = nn.Linear(hidden_features, out_features)
        with torch.no_grad():
            bound = math.sqrt(6 / hidden_features) / hidden_omega_0
            final_linear.weight.uniform_(-bound, bound)
        self.net.append(final_linear)
        self.net = nn.Sequential(*self.net)

    def forward(self, coords):
        coords = coords.clone().detach().requires_grad_(True)  # allows to take derivative w.r.t. input
        output = self.net(coords)
        return output, coords


def gradient(y, x, grad_outputs=None):
    if grad_outputs is None:
        grad_outputs = torch.ones_like(y)
    return torch.autograd.grad(y, [x], grad_outputs=grad_outputs, create_graph=True)[0]


def divergence(y, x):
    div = 0.0
    for i in range(y.shape[-1]):
        div += torch.autograd.grad(y[..., i], x, torch.ones_like(y[..., i]), create_graph=True)[0][..., i:i + 1]
    return div


def laplace(y, x):
    return divergence(gradient(y, x), x)


sidelen = 32
coords = get_mgrid(sidelen)
r = coords.norm(dim=-1, keepdim=True)
pixels = torch.cos(12 * r) * torch.exp(-2 * r ** 2) + 0.3 * torch.sign(coords[:, :1])  # rings + an edge

img_siren = Siren(in_features=2, out_features=1, hidden_features=48, hidden_layers=2)
optim = torch.optim.Adam(lr=1e-3, params=img_siren.parameters())
for step in range(101):
    model_output, _ = img_siren(coords)
    loss = ((model_output - pixels) ** 2).mean()
    if step % 50 == 0:
        print(f"Step {step}, Total loss {loss.item():0.6f}")
    optim.zero_grad()
    loss.backward()
    optim.step()

psnr = 10 * torch.log10(4 / loss.detach()).item()  # pixel range is [-1.3, 1.3]
print(f"PSNR {psnr:.1f} dB")
assert psnr > 25

# derivatives of the fitted network
probe = torch.tensor([[0.13, -0.41], [0.5, 0.25], [-0.7, 0.05]])
out, xs = img_siren(probe)
grad = gradient(out, xs)
lap = laplace(out, xs)
h = 1e-3
with torch.no_grad():
    for i in range(2):
        e = torch.zeros(2)
        e[i] = h
        fp, fm, f0 = img_siren.net(probe + e), img_siren.net(probe - e), img_siren.net(probe)
        fd = (fp - fm) / (2 * h)
        assert torch.allclose(grad[:, i:i + 1], fd, rtol=2e-2, atol=2e-2), (grad[:, i], fd)
print("gradient", [round(v, 3) for v in grad.flatten().tolist()])
print("laplacian", [round(v, 1) for v in lap.flatten().tolist()])
# the Laplacian is a second derivative: check it against differences of the autograd gradient
lap_fd = 0
for i in range(2):
    e = torch.zeros(2)
    e[i] = h
    gp = gradient(*img_siren(probe + e))[:, i]
    gm = gradient(*img_siren(probe - e))[:, i]
    lap_fd = lap_fd + (gp - gm) / (2 * h)
assert torch.allclose(lap.flatten(), lap_fd.detach(), rtol=3e-2, atol=1.0), (lap, lap_fd)
