"""The forward-mode AD tutorial: dual tensors under fwAD.dual_level, make_dual and unpack_dual
(a namedtuple with primal and tangent), custom Functions with jvp, forward AD through a module
by making its parameters dual with functional_call, torch.func.jvp equal to the directional
derivative by central differences, and linearize."""
import minigenesis as torch
import minigenesis.autograd.forward_ad as fwAD
import minigenesis.nn as nn
from minigenesis.func import functional_call, jvp, linearize

torch.manual_seed(0)
primal = torch.randn(10, 10, dtype=torch.float64)
tangent = torch.randn(10, 10, dtype=torch.float64)


def fn(x, y):
    return x**2 + y**2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent
    plain_tensor = torch.randn(10, 10, dtype=torch.float64)
    dual_output = fn(dual_input, plain_tensor)
    jvp_out = fwAD.unpack_dual(dual_output)
    assert isinstance(jvp_out, tuple) and jvp_out.tangent is jvp_out[1]
    assert torch.allclose(jvp_out.tangent, 2 * primal * tangent)
assert fwAD.unpack_dual(dual_output).tangent is None

model = nn.Linear(5, 5).double()
input = torch.randn(16, 5, dtype=torch.float64)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(input)
    jvp_model = fwAD.unpack_dual(out).tangent
assert torch.allclose(jvp_model, input @ tangents["weight"].T + tangents["bias"])

model = nn.Linear(5, 5).double()
dual_params = {}
with fwAD.dual_level():
    for name, p in model.named_parameters():
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, input)
    jvp2 = fwAD.unpack_dual(out).tangent
assert torch.allclose(jvp2, jvp_model)


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


x = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
t = torch.randn(10, 10, dtype=torch.double)
with fwAD.dual_level():
    dual_out = Fn.apply(fwAD.make_dual(x, t))
    jvp_fn = fwAD.unpack_dual(dual_out).tangent
assert torch.allclose(jvp_fn, t * x.exp())
assert torch.autograd.gradcheck(Fn.apply, (x,), check_forward_ad=True, check_backward_ad=False, check_undefined_grad=False, check_batched_grad=False)

f = lambda v: (v.sin() * v.cumsum(0)).sum(0)
v, d = torch.randn(6, 3, dtype=torch.float64), torch.randn(6, 3, dtype=torch.float64)
value, directional = jvp(f, (v,), (d,))
h = 1e-6
assert torch.allclose(directional, (f(v + h * d) - f(v - h * d)) / (2 * h), atol=1e-6)
out, jvp_lin = linearize(f, v)
assert torch.allclose(jvp_lin(d), directional) and torch.allclose(out, value)
print("forward AD:", directional.tolist()[:2])
