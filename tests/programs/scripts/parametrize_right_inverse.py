"""The parametrizations tutorial's later sections: a parametrization with right_inverse so that
assigning layer.weight = X stores an original whose forward gives X back (Symmetric, and the
tutorial's Skew + CayleyMap chain, each with a right_inverse, initialised to a given rotation), a parametrization that
changes the number of tensors (a rank-r factorisation returning (U, V) from right_inverse, so
parametrizations.weight.original0 and original1), is_parametrized, and training under the
constraint keeping the weight symmetric."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.utils.parametrize as P

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(A):
        return A.triu()

    right_inverse = staticmethod(right_inverse)


layer = nn.Linear(3, 3)
P.register_parametrization(layer, "weight", Symmetric())
assert P.is_parametrized(layer) and P.is_parametrized(layer, "weight") and not P.is_parametrized(layer, "bias")
X = torch.rand(3, 3)
X = X + X.T
print("before assignment: symmetric", torch.allclose(layer.weight, layer.weight.T))
layer.weight = X
assert torch.allclose(layer.weight, X)
assert torch.allclose(layer.parametrizations.weight.original, X.triu())

# training keeps it symmetric: the gradient flows to the upper triangle only
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
x = torch.randn(16, 3)
y = torch.randn(16, 3)
for _ in range(5):
    opt.zero_grad()
    ((layer(x) - y) ** 2).mean().backward()
    opt.step()
W = layer.weight
assert torch.allclose(W, W.T)
assert torch.all(layer.parametrizations.weight.original.grad.tril(-1) == 0)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu(1)


class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        # (I + X)(I - X)^{-1}
        return torch.linalg.solve(self.Id - X, self.Id + X)

    def right_inverse(self, A):
        # X = (A - I)(A + I)^{-1}, the inverse Cayley map
        return torch.linalg.solve(A + self.Id, A - self.Id, left=False)


layer_orthogonal = nn.Linear(3, 3)
P.register_parametrization(layer_orthogonal, "weight", Skew())
P.register_parametrization(layer_orthogonal, "weight", CayleyMap(3))
Q = torch.linalg.qr(torch.randn(3, 3)).Q
if torch.det(Q) < 0:
    Q[:, 0] = -Q[:, 0]  # the Cayley map reaches the rotations (det = 1)
layer_orthogonal.weight = Q
assert torch.allclose(layer_orthogonal.weight, Q, atol=1e-10)
assert torch.allclose(layer_orthogonal.weight @ layer_orthogonal.weight.T, torch.eye(3), atol=1e-10)
orig = layer_orthogonal.parametrizations.weight.original
assert torch.allclose(orig.triu(1), orig)  # stored as the skew part's upper triangle


class LowRank(nn.Module):
    """W = U V^T with U (out, r), V (in, r): two original tensors from one weight."""

    def __init__(self, rank):
        super().__init__()
        self.rank = rank

    def forward(self, U, V):
        return U @ V.T

    def right_inverse(self, W):
        u, s, vh = torch.linalg.svd(W, full_matrices=False)
        r = self.rank
        return u[:, :r] * s[:r].sqrt(), vh[:r].T * s[:r].sqrt()


lin = nn.Linear(6, 5)
W0 = lin.weight.detach().clone()
P.register_parametrization(lin, "weight", LowRank(2))
U = lin.parametrizations.weight.original0
V = lin.parametrizations.weight.original1
assert U.shape == (5, 2) and V.shape == (6, 2)
assert torch.linalg.matrix_rank(lin.weight).item() == 2
s = torch.linalg.svdvals(W0)
# the best rank-2 approximation (Eckart-Young): the error's spectral norm is the third singular value
assert abs(torch.linalg.matrix_norm(W0 - lin.weight, ord=2).item() - s[2].item()) < 1e-10
names = sorted(n for n, _ in lin.named_parameters())
print("parameters:", names)
assert names == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
