"""The parametrizations tutorial: a symmetric weight by register_parametrization, the
parametrizations.weight.original tensor, a skew-symmetric then matrix-exponential chain giving an
orthogonal weight, caching with parametrize.cached(), right_inverse initialising from a value,
is_parametrized, training through the parametrization, and remove_parametrizations with
leave_parametrized=True/False."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.utils.parametrize as parametrize

torch.manual_seed(0)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)


class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        return torch.linalg.solve(self.Id - X, self.Id + X)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
A = layer.weight
assert torch.allclose(A, A.T)
print(layer)
assert parametrize.is_parametrized(layer) and parametrize.is_parametrized(layer, "weight")
assert not parametrize.is_parametrized(layer, "bias")
assert torch.equal(layer.weight, Symmetric()(layer.parametrizations.weight.original))

layer_orthogonal = nn.Linear(3, 3)
parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
parametrize.register_parametrization(layer_orthogonal, "weight", CayleyMap(3))
X = layer_orthogonal.weight
assert torch.dist(X.T @ X, torch.eye(3)) < 1e-5
assert len(layer_orthogonal.parametrizations.weight) == 2

layer_exp = nn.Linear(3, 3)
parametrize.register_parametrization(layer_exp, "weight", Skew())
parametrize.register_parametrization(layer_exp, "weight", MatrixExponential())
Q = layer_exp.weight
assert torch.dist(Q.T @ Q, torch.eye(3)) < 1e-5


class Noop(nn.Module):
    def forward(self, X):
        print("Computing the Parametrization")
        return X


layer = nn.Linear(4, 4)
parametrize.register_parametrization(layer, "weight", Noop())
with parametrize.cached():
    a = layer.weight
    b = layer.weight
assert a is b


class SymmetricInv(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).T

    def right_inverse(self, A):
        return A.triu()


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", SymmetricInv())
X = torch.rand(3, 3)
X = X + X.T
layer.weight = X
assert torch.allclose(layer.weight, X)
assert torch.allclose(layer.parametrizations.weight.original, X.triu())

opt = torch.optim.SGD(layer.parameters(), lr=0.1)
target = torch.randn(8, 3)
inp = torch.randn(8, 3)
for _ in range(20):
    opt.zero_grad()
    nn.functional.mse_loss(layer(inp), target).backward()
    opt.step()
assert torch.allclose(layer.weight, layer.weight.T)
assert [n for n, _ in layer.named_parameters()] == ["bias", "parametrizations.weight.original"]

W = layer.weight.detach().clone()
parametrize.remove_parametrizations(layer, "weight")
assert not parametrize.is_parametrized(layer) and torch.allclose(layer.weight, W)
assert isinstance(layer.weight, nn.Parameter)
layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", SymmetricInv())
orig = layer.parametrizations.weight.original.detach().clone()
parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
assert torch.equal(layer.weight, orig)
print("symmetric after training:", [round(v, 4) for v in W[0].tolist()])
