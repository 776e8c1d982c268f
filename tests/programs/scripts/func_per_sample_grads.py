"""torch.func as in its tutorials: per-sample gradients with functional_call + grad + vmap
(in_dims=(None, None, 0, 0)) checked against a loop of backward() calls; model ensembling with
stack_module_state and vmap over the stacked weights (the same minibatch, then one minibatch per
model); jacrev/jacfwd of a function and of a model's outputs with respect to its parameters;
hessian, and grad's argnums and has_aux."""
import copy
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.func import functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, stack_module_state, vmap

torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


model = SimpleMLP()
batch_size = 8
data = torch.randn(batch_size, 6)
targets = torch.randint(4, (batch_size,))


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)
    target = target.unsqueeze(0)
    prediction = model(sample)
    loss = F.cross_entropy(prediction, target)
    return torch.autograd.grad(loss, list(model.parameters()))


def compute_sample_grads(data, targets):
    sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
    sample_grads = zip(*sample_grads)
    return [torch.stack(shards) for shards in sample_grads]


per_sample_grads = compute_sample_grads(data, targets)
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return F.cross_entropy(predictions, targets)


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    assert ft_per_sample_grad.shape == per_sample_grad.shape
    assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
print("per-sample grads:", {k: tuple(v.shape) for k, v in ft_per_sample_grads.items()})
# their mean is the minibatch gradient
model.zero_grad()
F.cross_entropy(model(data), targets).backward()
assert torch.allclose(ft_per_sample_grads["fc1.weight"].mean(0), model.fc1.weight.grad, atol=1e-6)
assert all(p.grad is not None for p in model.parameters()) and params["fc1.weight"].grad is None

# model ensembling
num_models = 5
models = [SimpleMLP() for _ in range(num_models)]
minibatches = torch.randn(num_models, 16, 6)
minibatch = minibatches[0]
predictions_diff_minibatch_loop = [m(minibatches[i]) for i, m in enumerate(models)]
predictions2 = [m(minibatch) for m in models]
params, buffers = stack_module_state(models)
assert params["fc1.weight"].shape == (5, 16, 6) and params["fc1.weight"].requires_grad
base_model = copy.deepcopy(models[0])



def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)
assert torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-6)
predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
assert torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-6)
print("ensemble outputs:", tuple(predictions2_vmap.shape))


# jacobians and hessians
def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 4
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)
jac = jacrev(predict, argnums=2)(weight, bias, x)
expected = (1 - predict(weight, bias, x) ** 2).unsqueeze(1) * weight  # diag(1 - tanh^2) W
assert torch.allclose(jac, expected, atol=1e-6)
assert torch.allclose(jacfwd(predict, argnums=2)(weight, bias, x), expected, atol=1e-6)
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
assert ft_jac_weight.shape == (D, D, D) and torch.allclose(ft_jac_bias, expected @ torch.linalg.inv(weight), atol=1e-4)
# a batch of jacobians by vmap
xs = torch.randn(3, D)
batched = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, xs)
assert batched.shape == (3, D, D) and torch.allclose(batched[1], jacrev(predict, argnums=2)(weight, bias, xs[1]))


def f(x):
    return x.sin().sum()


x = torch.randn(5)
assert torch.allclose(hessian(f)(x), torch.diag(-x.sin()), atol=1e-6)
assert torch.allclose(grad(grad(lambda t: t.sin()))(torch.tensor(0.3)), -torch.tensor(0.3).sin())


def loss_with_aux(w, x):
    y = (w * x).sum()
    return y ** 2, y


g, aux = grad(loss_with_aux, has_aux=True)(torch.tensor([1.0, 2.0]), torch.tensor([3.0, -1.0]))
assert aux.item() == 1.0 and g.tolist() == [6.0, -2.0]
g, value = grad_and_value(lambda w: (w ** 3).sum())(torch.tensor([2.0]))
assert value.item() == 8.0 and g.item() == 12.0
# vmap on its own: batched dot products and out_dims
dots = vmap(torch.dot)(torch.ones(3, 4), torch.arange(12.0).view(3, 4))
assert dots.tolist() == [6.0, 22.0, 38.0]
assert vmap(lambda v: v * 2, out_dims=1)(torch.ones(3, 2)).shape == (2, 3)
print("jacobian", tuple(jac.shape), "hessian ok, aux", aux.item())
