"""The "Double Backward with Custom Functions" tutorial: Square saving its input, Exp saving its
output (so the double backward goes through the saved result), Sinh saving intermediate results
returned as extra outputs so that
the gradient of the gradient sees them, and a Function whose backward is itself not differentiable
(once_differentiable) raising on double backward; each checked with gradcheck and gradgradcheck in
float64 and against the closed-form second derivatives."""
import minigenesis as torch
from minigenesis.autograd.function import once_differentiable


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return grad_out * 2 * x


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_out):
        result, = ctx.saved_tensors
        return result * grad_out


class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        return (expx - expnegx) / 2, expx, expnegx

    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input


def sinh(x):
    return Sinh.apply(x)[0]


class SquareOnce(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return grad_out * 2 * x


x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
assert torch.autograd.gradcheck(Square.apply, x)
assert torch.autograd.gradgradcheck(Square.apply, x)
assert torch.autograd.gradcheck(Exp.apply, x)
assert torch.autograd.gradgradcheck(Exp.apply, x)
assert torch.autograd.gradcheck(sinh, x)
assert torch.autograd.gradgradcheck(sinh, x)

for f, d1, d2 in [
    (Square.apply, lambda v: 2 * v, lambda v: 2 * torch.ones_like(v)),
    (Exp.apply, torch.exp, torch.exp),
    (sinh, torch.cosh, torch.sinh),
]:
    (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)
    assert torch.allclose(g, d1(x.detach()))
    (gg,) = torch.autograd.grad(g.sum(), x)
    assert torch.allclose(gg, d2(x.detach()))

# the extra outputs take part in autograd: d/dx (sinh + e^x - e^-x) = cosh + e^x + e^-x
y, ex, enx = Sinh.apply(x)
(g,) = torch.autograd.grad((y + ex - enx).sum(), x)
assert torch.allclose(g, torch.cosh(x.detach()) + x.detach().exp() + (-x.detach()).exp())

(g,) = torch.autograd.grad(SquareOnce.apply(x).sum(), x, create_graph=True)
assert torch.allclose(g, 2 * x.detach())
try:
    g.sum().backward()
    raised = False
except RuntimeError:
    raised = True
assert raised
print("gradcheck and gradgradcheck passed for Square, Exp and Sinh; once_differentiable refuses double backward")
