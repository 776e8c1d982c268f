"""torch.autograd.functional on whole functions, checked against closed forms: jacobian of a
vector map (and of a tuple of inputs), hessian of the Rosenbrock function, vjp and jvp as products
with that Jacobian, hvp/vhp as products with that Hessian, create_graph=True to differentiate a
jacobian again, and a Newton iteration driven by hessian() that finds Rosenbrock's minimum."""
import minigenesis as torch
from minigenesis.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

torch.set_default_dtype(torch.float64)


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.rand(2, 2)
J = jacobian(exp_reducer, inputs)
assert J.shape == (2, 2, 2)
expected = torch.zeros(2, 2, 2)
for i in range(2):
    expected[i, i] = inputs[i].exp()
assert torch.allclose(J, expected)
print("jacobian of exp_reducer:", J.shape)


def polar(r, theta):
    return r * torch.cos(theta), r * torch.sin(theta)


r, theta = torch.tensor(2.0), torch.tensor(0.5)
(dx_dr, dx_dt), (dy_dr, dy_dt) = jacobian(polar, (r, theta))
det = dx_dr * dy_dt - dx_dt * dy_dr
assert torch.allclose(det, r)  # the polar Jacobian's determinant is r
print(f"polar jacobian determinant {det.item():.6f}")


def rosenbrock(v):
    x, y = v[0], v[1]
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


def rosen_hess(x, y):
    return torch.tensor([[2 - 400 * y + 1200 * x ** 2, -400 * x], [-400 * x, 200.0]])


p = torch.tensor([-1.2, 1.0])
H = hessian(rosenbrock, p)
assert torch.allclose(H, rosen_hess(-1.2, 1.0))
v = torch.tensor([0.3, -0.7])
value, Hv = hvp(rosenbrock, p, v)
assert torch.allclose(Hv, H @ v) and torch.allclose(value, rosenbrock(p))
_, vH = vhp(rosenbrock, p, v)
assert torch.allclose(vH, v @ H)


def f(x):
    return torch.stack([x[0] * x[1], x[1] ** 3, torch.sin(x[0])])


x = torch.tensor([0.4, -1.3])
Jf = torch.tensor([[x[1].item(), x[0].item()], [0.0, 3 * x[1].item() ** 2], [torch.cos(x[0]).item(), 0.0]])
out, u_J = vjp(f, x, torch.tensor([1.0, 2.0, -1.0]))
assert torch.allclose(u_J, torch.tensor([1.0, 2.0, -1.0]) @ Jf)
out, J_w = jvp(f, x, torch.tensor([0.5, 0.25]))
assert torch.allclose(J_w, Jf @ torch.tensor([0.5, 0.25]))
assert torch.allclose(jacobian(f, x, vectorize=False), Jf)
print("vjp", [round(t, 4) for t in u_J.tolist()], "jvp", [round(t, 4) for t in J_w.tolist()])

# create_graph: differentiate a jacobian entry with respect to the input again
x = torch.tensor([0.4, -1.3], requires_grad=True)
J = jacobian(f, x, create_graph=True)
J[1, 1].backward()  # d/dx1 of 3 x1^2 = 6 x1
assert torch.allclose(x.grad, torch.tensor([0.0, 6 * -1.3]))

# Newton's method with the Hessian
p = torch.tensor([-1.2, 1.0])
for it in range(20):
    g = torch.autograd.functional.jacobian(rosenbrock, p)
    H = torch.autograd.functional.hessian(rosenbrock, p)
    step = torch.linalg.solve(H, g)
    p = p - step
    if step.norm() < 1e-10:
        break
print(f"Newton on Rosenbrock: {it + 1} steps to {p.tolist()}")
assert torch.allclose(p, torch.tensor([1.0, 1.0]), atol=1e-8)
assert torch.get_default_dtype() == torch.float64 and torch.ones(1).dtype == torch.float64
torch.set_default_dtype(torch.float32)
