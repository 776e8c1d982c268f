"""The torch.func "Jacobians, Hessians, hvp, vhp, and more" tutorial on a small tanh layer
predict(weight, bias, x): the Jacobian by rows of vjp (autograd.grad with one-hot cotangents), by
jacrev and jacfwd (equal), with argnums=(0, 1), batched Jacobians by vmap(jacrev(...)) and by the
sum trick jacrev(lambda x: predict(...).sum(0)), Hessians as hessian(f) == jacfwd(jacrev(f)), and a
Hessian-vector product as jvp(grad(f), ...) - all against the closed forms of tanh's derivatives."""
import minigenesis as torch
import minigenesis.nn.functional as F
from minigenesis.func import grad, hessian, jacfwd, jacrev, jvp, vjp, vmap

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 8
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)
# closed form: d tanh(Wx + b) / dx = diag(1 - y^2) W
y = predict(weight, bias, x)
expected = (1 - y**2)[:, None] * weight

xp = x.clone().requires_grad_()
unit_vectors = torch.eye(D)
jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0] for vec in unit_vectors.unbind()]
jacobian = torch.stack(jacobian_rows)
assert torch.allclose(jacobian, expected)

_, vjp_fn = vjp(lambda x: predict(weight, bias, x), x)
ft_jacobian_rows = vmap(vjp_fn)(unit_vectors)[0]
assert torch.allclose(ft_jacobian_rows, expected)

jr = jacrev(predict, argnums=2)(weight, bias, x)
jf = jacfwd(predict, argnums=2)(weight, bias, x)
assert torch.allclose(jr, expected) and torch.allclose(jf, expected)

# with respect to the weight and bias: d y_i / d W_jk = delta_ij (1 - y_i^2) x_k
jw, jb = jacrev(predict, argnums=(0, 1))(weight, bias, x)
assert jw.shape == (D, D, D) and jb.shape == (D, D)
assert torch.allclose(jb, torch.diag(1 - y**2))
assert torch.allclose(jw, torch.diag(1 - y**2)[:, :, None] * x[None, None, :])

# batched Jacobians
batch_size = 16
xb = torch.randn(batch_size, D)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, xb)
yb = predict(weight, bias, xb)
assert torch.allclose(batch_jacobian0, (1 - yb**2)[:, :, None] * weight)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, xb).movedim(1, 0)
assert torch.allclose(batch_jacobian0, batch_jacobian1)

# Hessians of a scalar f(x) = sum tanh(Wx + b): H = W^T diag(-2 y (1 - y^2)) W
def f(x):
    return predict(weight, bias, x).sum()


h = hessian(f)(x)
h2 = jacfwd(jacrev(f))(x)
h_closed = weight.T @ torch.diag(-2 * y * (1 - y**2)) @ weight
assert torch.allclose(h, h2) and torch.allclose(h, h_closed)


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


v = torch.randn(D)
assert torch.allclose(hvp(f, (x,), (v,)), h_closed @ v)
# the reverse-over-reverse way with autograd.grad(create_graph=True)
xr = x.clone().requires_grad_()
(g,) = torch.autograd.grad(f(xr), xr, create_graph=True)
(hv,) = torch.autograd.grad(g, xr, v)
assert torch.allclose(hv, h_closed @ v)
print(f"jacobian {tuple(jr.shape)}, batched {tuple(batch_jacobian0.shape)}, hessian norm {h.norm().item():.4f}")
