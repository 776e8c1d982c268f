"""The pruning tutorial and the parametrizations tutorial on LeNet: prune.random_unstructured and
prune.l1_unstructured on named parameters (weight_orig, weight_mask, a forward pre-hook), pruning
the bias too, ln_structured over output channels, iterative pruning composing masks,
prune.remove making it permanent, global_unstructured over several layers, sparsity measured;
then register_parametrization with Symmetric and a skew-symmetric matrix_exp (an orthogonal
weight), parametrizations.weight.original, cached(), and remove_parametrizations."""
import minigenesis as torch
from minigenesis import nn
import minigenesis.nn.functional as F
import minigenesis.nn.utils.prune as prune
import minigenesis.nn.utils.parametrize as parametrize

torch.manual_seed(0)


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


model = LeNet()
module = model.conv1
print(list(module.named_parameters())[0][0], list(module.named_buffers()))
original = module.weight.detach().clone()
prune.random_unstructured(module, name="weight", amount=0.3)
print([name for name, _ in module.named_parameters()], [name for name, _ in module.named_buffers()])
assert int((module.weight_mask == 0).sum()) == round(0.3 * 54)
assert torch.equal(module.weight, module.weight_orig * module.weight_mask)
assert len(module._forward_pre_hooks) == 1
prune.l1_unstructured(module, name="bias", amount=3)
assert int((module.bias == 0).sum()) == 3
kept_bias = module.bias_orig.abs()[module.bias_mask.bool()]
assert kept_bias.min() >= module.bias_orig.abs()[~module.bias_mask.bool()].max()  # the 3 smallest went
# iterative pruning: ln_structured removes whole output channels, on top of the random mask
prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
channel_zero = (module.weight == 0).view(6, -1).all(dim=1)
assert int(channel_zero.sum()) >= 3
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":
        break
print([type(m).__name__ for m in hook], type(hook).__name__)
assert len(list(hook)) == 2  # a PruningContainer holding both pruning methods
x = torch.randn(2, 1, 28, 28)
# the forward uses the masked weight
out = model(x)
manual = F.conv2d(x, module.weight_orig * module.weight_mask, module.bias_orig * module.bias_mask)
assert torch.allclose(model.conv1(x), manual, atol=1e-6)
# gradients reach weight_orig only where the mask is 1
out.sum().backward()
assert (module.weight_orig.grad[module.weight_mask == 0] == 0).all()
masked = module.weight.detach().clone()
prune.remove(module, "weight")
assert "weight_orig" not in dict(module.named_parameters()) and "weight_mask" not in dict(module.named_buffers())
assert isinstance(module.weight, nn.Parameter)
assert torch.equal(module.weight.detach(), masked) and not torch.equal(masked, original)

# global pruning over all the conv and linear weights
new_model = LeNet()
parameters_to_prune = ((new_model.conv1, "weight"), (new_model.conv2, "weight"), (new_model.fc1, "weight"),
                       (new_model.fc2, "weight"), (new_model.fc3, "weight"))
all_weights = torch.cat([getattr(m, n).detach().abs().flatten() for m, n in parameters_to_prune])
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
total = sum(float(torch.sum(getattr(m, n) == 0)) for m, n in parameters_to_prune)
numel = sum(float(getattr(m, n).nelement()) for m, n in parameters_to_prune)
for m, n in parameters_to_prune:
    print("Sparsity in {}: {:.2f}%".format(type(m).__name__, 100.0 * float(torch.sum(getattr(m, n) == 0)) / float(getattr(m, n).nelement())))
print("Global sparsity: {:.2f}%".format(100.0 * total / numel))
assert total == round(0.2 * numel)
threshold = all_weights.sort().values[int(total) - 1]
assert all((getattr(m, n).abs()[getattr(m, n) != 0] >= threshold).all() for m, n in parameters_to_prune)
assert prune.is_pruned(new_model) and not prune.is_pruned(LeNet())


# parametrizations
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
A = layer.weight
assert torch.allclose(A, A.T)
print(layer)
assert parametrize.is_parametrized(layer) and parametrize.is_parametrized(layer, "weight")
original_w = layer.parametrizations.weight.original
assert torch.equal(A, original_w.triu() + original_w.triu(1).T)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)


layer_orthogonal = nn.Linear(3, 3)
parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
Q = layer_orthogonal.weight
assert torch.dist(Q.T @ Q, torch.eye(3)) < 1e-5
opt = torch.optim.SGD(layer_orthogonal.parameters(), lr=0.1)
for _ in range(5):
    opt.zero_grad()
    layer_orthogonal(torch.randn(4, 3)).pow(2).sum().backward()
    opt.step()
Q = layer_orthogonal.weight
assert torch.dist(Q.T @ Q, torch.eye(3)) < 1e-5  # still orthogonal after training the original
with parametrize.cached():
    assert layer_orthogonal.weight is layer_orthogonal.weight
parametrize.remove_parametrizations(layer_orthogonal, "weight", leave_parametrized=True)
assert not parametrize.is_parametrized(layer_orthogonal) and torch.allclose(layer_orthogonal.weight, Q)
print("orthogonal after training:", torch.dist(Q.T @ Q, torch.eye(3)).item() < 1e-5)
