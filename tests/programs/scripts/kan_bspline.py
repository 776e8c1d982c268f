"""A Kolmogorov-Arnold Network the way efficient-kan writes its layer: every edge carries a SiLU
base term plus a learned cubic B-spline on a uniform grid (a registered buffer), the bases by the
Cox-de Boor recursion on broadcast slices of the grid; the bases are a partition of unity inside
the grid, and a [2, 5, 1] KAN fits f(x, y) = exp(sin(pi x) + y^2) far better than least squares."""
import math

import minigenesis as torch
import minigenesis.nn.functional as F
from minigenesis import nn

torch.manual_seed(0)


class KANLinear(nn.Module):
    def __init__(self, in_features, out_features, grid_size=5, spline_order=3,
                 scale_noise=0.1, grid_range=(-1, 1)):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.grid_size = grid_size
        self.spline_order = spline_order
        h = (grid_range[1] - grid_range[0]) / grid_size
        grid = (
            (torch.arange(-spline_order, grid_size + spline_order + 1) * h + grid_range[0])
            .expand(in_features, -1)
            .contiguous()
        )
        self.register_buffer("grid", grid)
        self.base_weight = nn.Parameter(torch.Tensor(out_features, in_features))
        self.spline_weight = nn.Parameter(
            torch.Tensor(out_features, in_features, grid_size + spline_order))
        self.scale_noise = scale_noise
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.base_weight, a=math.sqrt(5))
        with torch.no_grad():
            noise = (torch.rand(self.out_features, self.in_features,
                                self.grid_size + self.spline_order) - 0.5)
            self.spline_weight.data.copy_(noise * self.scale_noise / self.grid_size)

    def b_splines(self, x: torch.Tensor):
        assert x.dim() == 2 and x.size(1) == self.in_features
        grid: torch.Tensor = self.grid  # (in_features, grid_size + 2 * spline_order + 1)
        x = x.unsqueeze(-1)
        bases = ((x >= grid[:, :-1]) & (x < grid[:, 1:])).to(x.dtype)
        for k in range(1, self.spline_order + 1):
            bases = (
                (x - grid[:, : -(k + 1)]) / (grid[:, k:-1] - grid[:, : -(k + 1)]) * bases[:, :, :-1]
            ) + (
                (grid[:, k + 1:] - x) / (grid[:, k + 1:] - grid[:, 1:(-k)]) * bases[:, :, 1:]
            )
        assert bases.size() == (x.size(0), self.in_features, self.grid_size + self.spline_order)
        return bases.contiguous()

    def forward(self, x: torch.Tensor):
        base_output = F.linear(F.silu(x), self.base_weight)
        spline_output = F.linear(
            self.b_splines(x).view(x.size(0), -1),
            self.spline_weight.view(self.out_features, -1),
        )
        return base_output + spline_output

    def regularization_loss(self, regularize_activation=1.0, regularize_entropy=1.0):
        l1_fake = self.spline_weight.abs().mean(-1)
        regularization_loss_activation = l1_fake.sum()
        p = l1_fake / regularization_loss_activation
        regularization_loss_entropy = -torch.sum(p * p.log())
        return (regularize_activation * regularization_loss_activation
                + regularize_entropy * regularization_loss_entropy)


class KAN(nn.Module):
    def __init__(self, layers_hidden, grid_size=5, spline_order=3):
        super().__init__()
        self.layers = nn.ModuleList(
            KANLinear(i, o, grid_size=grid_size, spline_order=spline_order)
            for i, o in zip(layers_hidden, layers_hidden[1:])
        )

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def regularization_loss(self):
        return sum(layer.regularization_loss() for layer in self.layers)


# the bases sum to one anywhere inside the grid range
layer = KANLinear(3, 2)
u = torch.rand(100, 3) * 1.98 - 0.99
bases = layer.b_splines(u)
assert torch.allclose(bases.sum(-1), torch.ones(100, 3), atol=1e-5), bases.sum(-1)
assert (bases >= 0).all()


def f(x):
    return torch.exp(torch.sin(math.pi * x[:, [0]]) + x[:, [1]] ** 2)


X = torch.rand(512, 2) * 2 - 1
y = f(X)
X_test = torch.rand(256, 2) * 2 - 1
y_test = f(X_test)

model = KAN([2, 5, 1])
print("parameters:", sum(p.numel() for p in model.parameters()))
optimizer = torch.optim.Adam(model.parameters(), lr=2e-2)
for step in range(250):
    optimizer.zero_grad()
    loss = F.mse_loss(model(X), y) + 1e-5 * model.regularization_loss()
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(f"step {step:3d}  loss {loss.item():.5f}")

with torch.no_grad():
    test_mse = F.mse_loss(model(X_test), y_test).item()
# least squares on [x, y, 1]
A = torch.cat([X, torch.ones(len(X), 1)], 1)
coef = torch.linalg.lstsq(A, y).solution
lin_mse = F.mse_loss(torch.cat([X_test, torch.ones(len(X_test), 1)], 1) @ coef, y_test).item()
print(f"KAN test mse {test_mse:.5f}  linear {lin_mse:.5f}")
assert test_mse < 0.05 * lin_mse
