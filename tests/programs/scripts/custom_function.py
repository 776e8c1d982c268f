"""Custom autograd Functions: a straight-through sign estimator and a gradcheck of x^3."""
import minigenesis as torch
from minigenesis.autograd import Function, gradcheck

class BinarizeSTE(Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.sign()

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad = grad_output.clone()
        grad[input.abs() > 1] = 0
        return grad

class MyCube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * g

x = torch.tensor([-2.0, -0.5, 0.3, 1.5], requires_grad=True)
y = BinarizeSTE.apply(x)
y.sum().backward()
print(y, x.grad)
assert x.grad.tolist() == [0.0, 1.0, 1.0, 0.0]
inp = torch.randn(5, dtype=torch.double, requires_grad=True)
print("gradcheck", gradcheck(MyCube.apply, (inp,), eps=1e-6, atol=1e-4))
