"""The pruning tutorial on LeNet: random_unstructured on conv1.weight (weight_orig parameter,
weight_mask buffer, a forward pre-hook), l1_unstructured on the bias, ln_structured along dim 0,
iterative pruning's PruningContainer history, prune.remove making it permanent, global pruning
over several layers by l1 magnitude, sparsity counted, and a custom BasePruningMethod."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.nn.utils.prune as prune

torch.manual_seed(0)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
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
        return self.fc3(x)


model = LeNet()
module = model.conv1
print(list(module.named_parameters()))
prune.random_unstructured(module, name="weight", amount=0.3)
assert [n for n, _ in module.named_parameters()] == ["bias", "weight_orig"]
assert [n for n, _ in module.named_buffers()] == ["weight_mask"]
assert int(module.weight_mask.sum()) == 54 - round(0.3 * 54)
assert torch.equal(module.weight, module.weight_orig * module.weight_mask)
assert len(module._forward_pre_hooks) == 1

prune.l1_unstructured(module, name="bias", amount=3)
assert int((module.bias == 0).sum()) == 3
kept = module.bias_orig.abs().sort().values[3:]
assert torch.equal(module.bias[module.bias != 0].abs().sort().values, kept)

prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
rows_zero = (module.weight.flatten(1).abs().sum(1) == 0).sum().item()
assert rows_zero >= 3
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":
        break
assert list(hook) and [type(h).__name__ for h in hook] == ["RandomUnstructured", "LnStructured"]
print(model.state_dict().keys())
assert "conv1.weight_orig" in model.state_dict() and "conv1.weight_mask" in model.state_dict()

prune.remove(module, "weight")
assert [n for n, _ in module.named_parameters()] == ["bias_orig", "weight"]
assert [n for n, _ in module.named_buffers()] == ["bias_mask"]

new_model = LeNet()
for name, module in new_model.named_modules():
    if isinstance(module, torch.nn.Conv2d):
        prune.l1_unstructured(module, name="weight", amount=0.2)
    elif isinstance(module, torch.nn.Linear):
        prune.l1_unstructured(module, name="weight", amount=0.4)
assert dict(new_model.named_buffers()).keys() == {f"{n}.weight_mask" for n in ["conv1", "conv2", "fc1", "fc2", "fc3"]}

model = LeNet()
parameters_to_prune = (
    (model.conv1, "weight"),
    (model.conv2, "weight"),
    (model.fc1, "weight"),
    (model.fc2, "weight"),
    (model.fc3, "weight"),
)
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
total = sum(m.weight.nelement() for m, _ in parameters_to_prune)
zeros = sum(float(torch.sum(m.weight == 0)) for m, _ in parameters_to_prune)
print("Global sparsity: {:.2f}%".format(100.0 * zeros / total))
assert zeros == round(0.2 * total)
threshold = torch.cat([m.weight_orig.abs().flatten() for m, _ in parameters_to_prune]).sort().values[int(zeros) - 1]
assert all(bool((m.weight_orig.abs()[m.weight_mask == 0] <= threshold).all()) for m, _ in parameters_to_prune)


class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor"""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


model = LeNet()
foobar_unstructured(model.fc3, name="bias")
assert model.fc3.bias_mask.tolist() == [0.0, 1.0] * 5
out = model(torch.randn(2, 1, 28, 28))
assert out.shape == (2, 10)
