"""gradcheck and gradgradcheck as the custom-Function docs use them: a Function with a
hand-written backward checked in double precision, a wrong backward that gradcheck catches
(raise_exception=False gives False; the default raises GradcheckError, a RuntimeError), nn
functions checked through lambdas, and second derivatives through a backward that is itself
differentiable."""
import minigenesis as torch
from minigenesis.autograd import gradcheck, gradgradcheck


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class BadSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x  # should be 2 * x


inp = (
    torch.randn(20, 20, dtype=torch.double, requires_grad=True),
    torch.randn(30, 20, dtype=torch.double, requires_grad=True),
)
assert gradcheck(LinearFunction.apply, inp, eps=1e-6, atol=1e-4)
assert gradgradcheck(LinearFunction.apply, inp)

x = torch.randn(5, dtype=torch.double, requires_grad=True)
assert gradcheck(BadSquare.apply, (x,), raise_exception=False) is False
try:
    gradcheck(BadSquare.apply, (x,))
except RuntimeError as e:
    assert type(e).__name__ == "GradcheckError", type(e)
    assert "Jacobian mismatch for output 0 with respect to input 0" in str(e), str(e)
    print(str(e).splitlines()[0])
else:
    raise RuntimeError("gradcheck passed a wrong backward")

w = torch.randn(3, 4, dtype=torch.double, requires_grad=True)
assert gradcheck(lambda a: torch.nn.functional.softplus(a @ w).sum(), (torch.randn(2, 3, dtype=torch.double, requires_grad=True),))
assert gradgradcheck(lambda a: torch.tanh(a).pow(3), (x,))
assert gradcheck(torch.nn.functional.log_softmax, (torch.randn(3, 4, dtype=torch.double, requires_grad=True), 1))
print("gradcheck and gradgradcheck passed")
