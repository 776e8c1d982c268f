"""Three autograd tutorials' recipes: forward-mode AD with dual numbers (torch.autograd.forward_ad:
dual_level, make_dual, unpack_dual) giving the Jacobian-vector product that
torch.autograd.functional.jvp gives; saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks)
that count and copy what the graph saves, and save_on_cpu; and the optimizer step fused into
the backward pass with Tensor.register_post_accumulate_grad_hook and one optimizer per
parameter, training exactly as the usual loop does."""
import minigenesis as torch
import minigenesis.autograd.forward_ad as fwAD
from minigenesis import nn

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


def fn(x, y):
    return torch.sin(x) * y ** 2 + torch.exp(x * y)


x, y = torch.randn(5), torch.randn(5)
tx, ty = torch.randn(5), torch.randn(5)
with fwAD.dual_level():
    dual_x = fwAD.make_dual(x, tx)
    dual_y = fwAD.make_dual(y, ty)
    out = fn(dual_x, dual_y)
    primal, tangent = fwAD.unpack_dual(out)
_, jvp = torch.autograd.functional.jvp(fn, (x, y), (tx, ty))
manual = (torch.cos(x) * y ** 2 + y * torch.exp(x * y)) * tx + (2 * y * torch.sin(x) + x * torch.exp(x * y)) * ty
assert torch.allclose(primal, fn(x, y)) and torch.allclose(tangent, jvp) and torch.allclose(tangent, manual)
print("forward-mode tangent", [round(v, 6) for v in tangent.tolist()])

model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
x0 = torch.randn(3, 8)
with fwAD.dual_level():
    inp = fwAD.make_dual(x0, torch.ones(3, 8))
    dual_out = fwAD.unpack_dual(model(inp)).tangent
jac = torch.autograd.functional.jacobian(model, x0)  # (3, 1, 3, 8)
assert torch.allclose(dual_out, jac.sum(dim=(2, 3)))
print(f"module tangent {[round(v, 6) for v in dual_out.flatten().tolist()]}")

saved = []


def pack_hook(t):
    saved.append(t.shape)
    return t.clone()


def unpack_hook(t):
    return t


a = torch.randn(4, 4, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    b = (a * a).sum()
b.backward()
print(f"tensors saved for backward: {len(saved)}")
assert len(saved) == 2 and torch.allclose(a.grad, 2 * a)
with torch.autograd.graph.save_on_cpu():
    c = (a.exp() * 3).sum()
a.grad = None
c.backward()
assert torch.allclose(a.grad, 3 * a.exp())


def make():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))


X, Y = torch.randn(64, 8), torch.randn(64, 1)
ref = make()
ref_opt = torch.optim.Adam(ref.parameters(), lr=1e-2)
for _ in range(20):
    ref_opt.zero_grad()
    nn.functional.mse_loss(ref(X), Y).backward()
    ref_opt.step()

fused = make()
optimizer_dict = {p: torch.optim.Adam([p], lr=1e-2) for p in fused.parameters()}


def optimizer_hook(parameter) -> None:
    optimizer_dict[parameter].step()
    optimizer_dict[parameter].zero_grad()


handles = [p.register_post_accumulate_grad_hook(optimizer_hook) for p in fused.parameters()]
for _ in range(20):
    loss = nn.functional.mse_loss(fused(X), Y)
    loss.backward()
assert all(p.grad is None for p in fused.parameters())
assert all(torch.allclose(p, q, atol=1e-12) for p, q in zip(fused.parameters(), ref.parameters()))
for h in handles:
    h.remove()
print(f"optimizer in backward equals the usual loop, loss {loss.item():.6f}")
