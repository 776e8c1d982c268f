"""torch.func tutorials: model ensembling by stack_module_state + functional_call + vmap (with
in_dims for the same or different minibatches, and randomness='different' for dropout), and the
Jacobians/Hessians tutorial: jacrev and jacfwd of a function of a weight, argnums, chunk_size,
vmap over a batch of Jacobians against torch.autograd.functional.jacobian, and hessian equal to
jacfwd(jacrev)."""
import copy

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.func import functional_call, hessian, jacfwd, jacrev, stack_module_state, vmap

torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 128)
        self.fc3 = nn.Linear(128, 10)

    def forward(self, x):
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


num_models = 5
data = torch.randn(100, 64, 1, 28, 28)
minibatches = data[:num_models]
models = [SimpleMLP() for _ in range(num_models)]
predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]
minibatch = data[0]
predictions2 = [model(minibatch) for model in models]

params, buffers = stack_module_state(models)
assert params["fc1.weight"].shape == (5, 128, 784)
base_model = copy.deepcopy(models[0])
base_model = base_model.to("meta")


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


print([p.size(0) for p in params.values()])
predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)
assert torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-3, rtol=1e-5)
predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
assert torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-3, rtol=1e-5)

D = 16
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


jacobian = jacrev(predict, argnums=2)(weight, bias, x)
unit_vectors = torch.eye(D)
_, vjp_fn = torch.func.vjp(lambda x: predict(weight, bias, x), x)
(ft_jacobian,) = vmap(vjp_fn)(unit_vectors)
assert torch.allclose(ft_jacobian, jacobian)
assert torch.allclose(jacfwd(predict, argnums=2)(weight, bias, x), jacobian, atol=1e-6)
assert torch.allclose(jacrev(predict, argnums=2, chunk_size=4)(weight, bias, x), jacobian)
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
assert ft_jac_weight.shape == (D, D, D) and ft_jac_bias.shape == (D, D)
ref_w, ref_b = torch.autograd.functional.jacobian(lambda w, b: predict(w, b, x), (weight, bias))
assert torch.allclose(ft_jac_weight, ref_w, atol=1e-6) and torch.allclose(ft_jac_bias, ref_b, atol=1e-6)

batch_size = 8
xs = torch.randn(batch_size, D)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, xs)
assert batch_jacobian0.shape == (batch_size, D, D)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, xs).movedim(1, 0)
assert torch.allclose(batch_jacobian0, batch_jacobian1, atol=1e-6)

hess_api = hessian(predict, argnums=2)(weight, bias, x)
hess_fwdrev = jacfwd(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
assert hess_api.shape == (D, D, D) and torch.allclose(hess_api, hess_fwdrev, atol=1e-5)
print("ensemble", tuple(predictions1_vmap.shape), "hessian", tuple(hess_api.shape))
