"""Extending autograd as the PyTorch docs show it: the docs' LinearFunction (ctx.save_for_backward,
ctx.needs_input_grad) wrapped in an nn.Module, MulConstant with a non-tensor argument (None as
its gradient), a PyTorch 2 style Function with a separate setup_context, a sort whose indices are
marked non-differentiable, a @once_differentiable backward, and every gradient checked with
gradcheck / gradgradcheck in float64 and against torch.autograd.functional.jacobian."""
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.autograd import Function, gradcheck, gradgradcheck
from minigenesis.autograd.function import once_differentiable


class LinearFunction(Function):
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


class MyLinear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter('bias', None)
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return 'input_features={}, output_features={}, bias={}'.format(
            self.weight.size(1), self.weight.size(0), self.bias is not None)


class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class Softplus(Function):
    """PyTorch 2 style: forward without ctx, setup_context saves what backward needs."""
    @staticmethod
    def forward(x, beta):
        return torch.log1p(torch.exp(beta * x)) / beta

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, beta = inputs
        ctx.save_for_backward(x)
        ctx.beta = beta

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * torch.sigmoid(ctx.beta * x), None


class SortWithIndices(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = torch.sort(x, dim=-1)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_values, grad_idx):
        idx, = ctx.saved_tensors
        grad_input = torch.zeros_like(grad_values)
        grad_input.scatter_(-1, idx, grad_values)
        return grad_input


torch.manual_seed(0)
x = torch.randn(6, 4, dtype=torch.double, requires_grad=True)
w = torch.randn(3, 4, dtype=torch.double, requires_grad=True)
b = torch.randn(3, dtype=torch.double, requires_grad=True)
assert gradcheck(LinearFunction.apply, (x, w, b), eps=1e-6, atol=1e-4)
assert gradgradcheck(LinearFunction.apply, (x, w, b), eps=1e-6, atol=1e-4)
assert gradcheck(lambda t: MulConstant.apply(t, 2.5), (x,))
assert gradcheck(lambda t: Softplus.apply(t, 2.0), (x,))
assert gradcheck(lambda t: SortWithIndices.apply(t)[0], (x,))

# needs_input_grad: no gradient is computed for an input that does not require one
frozen = w.detach()
out = LinearFunction.apply(x, frozen, b)
out.sum().backward()
assert frozen.grad is None and x.grad is not None
x.grad = None

# the sort's indices are not differentiable; the values are
values, idx = SortWithIndices.apply(x)
assert values.requires_grad and not idx.requires_grad
assert torch.equal(x.gather(-1, idx), values)

# Softplus against torch.nn.functional.softplus, and its Jacobian against autograd's
jac = torch.autograd.functional.jacobian(lambda t: Softplus.apply(t, 2.0), x[0].detach())
expected = torch.diag(torch.sigmoid(2.0 * x[0].detach()))
assert torch.allclose(jac, expected)
assert torch.allclose(Softplus.apply(x, 2.0), nn.functional.softplus(x, beta=2.0))

# MyLinear trains like nn.Linear with the same weights
torch.manual_seed(0)
mine = MyLinear(4, 2)
ref = nn.Linear(4, 2)
with torch.no_grad():
    ref.weight.copy_(mine.weight)
    ref.bias.copy_(mine.bias)
print(mine)
X = torch.randn(64, 4)
Y = X @ torch.tensor([[1.0, -2.0], [0.5, 0.0], [0.0, 1.0], [-1.0, 0.3]]) + 0.1
opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (mine, ref)]
for step in range(50):
    for m, opt in zip((mine, ref), opts):
        opt.zero_grad()
        loss = ((MulConstant.apply(m(X), 1.0) - Y) ** 2).mean()
        loss.backward()
        opt.step()
print("final loss %.6f" % loss.item())
assert torch.allclose(mine.weight, ref.weight, atol=1e-5)
assert torch.allclose(mine.bias, ref.bias, atol=1e-5)
assert loss.item() < 0.02
