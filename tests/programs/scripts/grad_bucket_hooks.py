"""Megatron/Apex-style gradient buckets: each parameter's AccumulateGrad node, reached by
p.expand_as(p).grad_fn.next_functions[0][0], gets a hook that marks the parameter ready; when a
bucket's parameters are all ready its gradients are flattened by torch.cat, "all-reduced"
(averaged over simulated replicas) in the order backward produces them, and written back with
copy_. The result equals averaging the replicas' gradients after backward.
A grad_fn pre-hook also rescales a loss gradient, checked against the closed form."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
replicas = 3
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 2))
params = [p for p in model.parameters() if p.requires_grad]
buckets = [params[i:i + 2] for i in range(0, len(params), 2)]
bucket_of = {id(p): b for b, ps in enumerate(buckets) for p in ps}
ready, reduced_order, grad_accs = set(), [], []
other_replica_grads = {}  # what the other replicas would contribute, per parameter


def make_hook(p):
    def hook(*unused):
        ready.add(id(p))
        b = bucket_of[id(p)]
        if all(id(q) in ready for q in buckets[b]):
            flat = torch.cat([q.grad.reshape(-1) for q in buckets[b]])
            others = torch.cat([other_replica_grads[id(q)].reshape(-1) for q in buckets[b]])
            flat = (flat + others) / replicas  # the all-reduce (sum) and the average
            offset = 0
            for q in buckets[b]:
                n = q.numel()
                q.grad.copy_(flat[offset:offset + n].view_as(q))
                offset += n
            reduced_order.append(b)
    return hook


for p in params:
    grad_acc = p.expand_as(p).grad_fn.next_functions[0][0]
    grad_acc.register_hook(make_hook(p))
    grad_accs.append(grad_acc)  # keep the nodes alive, as Megatron does

xs = [torch.randn(32, 6) for _ in range(replicas)]
ys = [torch.randint(0, 2, (32,)) for _ in range(replicas)]
# the reference: every replica's gradient, averaged
reference = [torch.zeros_like(p) for p in params]
for x, y in zip(xs, ys):
    grads = torch.autograd.grad(F.cross_entropy(model(x), y), params)  # autograd.grad: no hooks run
    for r, g in zip(reference, grads):
        r += g / replicas
for p in params:
    gs = torch.autograd.grad(sum(F.cross_entropy(model(x), y) for x, y in zip(xs[1:], ys[1:])), p)
    other_replica_grads[id(p)] = gs[0]

assert not ready  # autograd.grad ran no accumulation hooks
model.zero_grad(set_to_none=True)
F.cross_entropy(model(xs[0]), ys[0]).backward()
print("buckets reduced in the order", reduced_order, "(backward reaches the last layer first)")
assert sorted(reduced_order) == list(range(len(buckets))) and reduced_order[0] == len(buckets) - 1
err = max((p.grad - r).abs().max().item() for p, r in zip(params, reference))
print(f"bucketed all-reduce vs averaged gradients: max difference {err:.2e}")
assert err < 1e-6

# a pre-hook on the loss node scales the gradient flowing into it
x = torch.randn(4, 6)
out = model(x)
loss = out.pow(2).mean()
loss.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 0.5,))
(g,) = torch.autograd.grad(loss, out)
assert torch.allclose(g, 0.5 * 2 * out / out.numel())
print("pre-hook halved d loss / d out as expected")
