"""d2l.ai's preliminaries chapter with torch: ndarray basics (arange, reshape(3, -1), cat on
dim 0 and 1, X == Y, broadcasting, Z[:] = X + Y and X += Y keeping id()), the linear-algebra
tour (A.T, A.sum(axis=[0, 1]), sum(axis=1, keepdims=True), cumsum(axis=0), torch.dot, torch.mv,
torch.mm, torch.norm, torch.abs(u).sum()), automatic differentiation (y = 2 * torch.dot(x, x),
x.grad.zero_(), y.backward(gradient=torch.ones(len(y))), u = y.detach(), Python control flow
with while b.norm() < 1000), and probability with torch.distributions.multinomial.Multinomial
(sample(), sample((500,)), counts.cumsum(dim=0) converging to the fair probabilities)."""
from math import factorial, log

import numpy as np
import minigenesis as torch
from minigenesis.distributions import multinomial

torch.manual_seed(0)
x = torch.arange(12, dtype=torch.float32)
assert x.shape == (12,) and x.numel() == 12
X = x.reshape(3, -1)
assert X.shape == (3, 4)
assert torch.zeros((2, 3, 4)).sum() == 0 and torch.ones((2, 3, 4)).sum() == 24
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
assert torch.cat((X, Y), dim=0).shape == (6, 4) and torch.cat((X, Y), dim=1).shape == (3, 8)
assert (X == Y).sum() == 2
a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
assert (a + b).tolist() == [[0, 1], [1, 2], [2, 3]]
assert X[-1].tolist() == [8.0, 9.0, 10.0, 11.0] and X[1:3].shape == (2, 4)
X[1, 2] = 9
X[0:2, :] = 12
before = id(Y)
Y = Y + X
assert id(Y) != before
Z = torch.zeros_like(Y)
before = id(Z)
Z[:] = X + Y
assert id(Z) == before
before = id(X)
X += Y
assert id(X) == before
A = X.numpy()
B = torch.from_numpy(A)
assert type(A) is np.ndarray and isinstance(B, torch.Tensor)
a = torch.tensor([3.5])
assert (a.item(), float(a), int(a)) == (3.5, 3.5, 3)

# linear algebra
A = torch.arange(20, dtype=torch.float32).reshape(5, 4)
assert torch.equal(A.T.T, A)
Bs = torch.tensor([[1, 2, 3], [2, 0, 4], [3, 4, 5]])
assert torch.equal(Bs, Bs.T)
assert A.sum(axis=0).tolist() == [40.0, 45.0, 50.0, 55.0]
assert A.sum(axis=[0, 1]) == A.sum() == 190
assert A.mean() == A.sum() / A.numel()
assert torch.allclose(A.mean(axis=0), A.sum(axis=0) / A.shape[0])
sum_A = A.sum(axis=1, keepdims=True)
assert sum_A.shape == (5, 1)
assert torch.allclose((A / sum_A).sum(1), torch.ones(5))
assert A.cumsum(axis=0)[-1].tolist() == A.sum(axis=0).tolist()
x = torch.arange(4, dtype=torch.float32)
y = torch.ones(4, dtype=torch.float32)
assert torch.dot(x, y) == torch.sum(x * y) == 6
assert torch.equal(torch.mv(A, x), A @ x)
Bm = torch.ones(4, 3)
assert torch.equal(torch.mm(A, Bm), A.sum(1, keepdim=True).repeat(1, 3))
u = torch.tensor([3.0, -4.0])
assert torch.norm(u) == 5 and torch.abs(u).sum() == 7
assert torch.isclose(torch.norm(torch.ones((4, 9))), torch.tensor(6.0))

# automatic differentiation
x = torch.arange(4.0)
x.requires_grad_(True)
assert x.grad is None
y = 2 * torch.dot(x, x)
y.backward()
assert torch.equal(x.grad, 4 * x)
x.grad.zero_()
y = x.sum()
y.backward()
assert torch.equal(x.grad, torch.ones(4))
x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))
assert torch.equal(x.grad, 2 * x)
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
assert torch.equal(x.grad, u)
x.grad.zero_()
y.sum().backward()
assert torch.equal(x.grad, 2 * x)


def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
assert a.grad == d / a
a = torch.randn(size=(3,), requires_grad=True)
d = f(a)
d.sum().backward()
assert torch.allclose(a.grad, d / a)

# probability
fair_probs = torch.ones([6]) / 6
one = multinomial.Multinomial(1, fair_probs).sample()
assert one.shape == (6,) and one.sum() == 1 and set(one.tolist()) <= {0.0, 1.0}
ten = multinomial.Multinomial(10, fair_probs).sample()
assert ten.sum() == 10
counts = multinomial.Multinomial(1000, fair_probs).sample()
print("frequencies of 1000 rolls", counts / 1000)
assert torch.allclose(counts / 1000, fair_probs, atol=0.05)
counts = multinomial.Multinomial(10, fair_probs).sample((500,))
assert counts.shape == (500, 6) and torch.all(counts.sum(1) == 10)
cum_counts = counts.cumsum(dim=0)
estimates = cum_counts / cum_counts.sum(dim=1, keepdims=True)
print("estimates after 500 groups", estimates[-1])
assert torch.allclose(estimates[-1], fair_probs, atol=0.02)
assert (estimates[9] - fair_probs).abs().max() > (estimates[-1] - fair_probs).abs().max()
m = multinomial.Multinomial(10, fair_probs)
lp = m.log_prob(torch.tensor([10.0, 0, 0, 0, 0, 0]))
assert torch.isclose(lp, torch.tensor(10 * np.log(1 / 6), dtype=torch.float32))
lp = m.log_prob(torch.tensor([2.0, 2, 2, 2, 1, 1]))
ref = log(factorial(10) / 2 ** 4) + 10 * log(1 / 6)
assert abs(lp.item() - ref) < 1e-4
