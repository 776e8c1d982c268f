"""Saving and loading as the "Saving and Loading Models" recipe does it: torch.save(model) pickling
the whole module, torch.load's weights_only=True default refusing it with pickle.UnpicklingError,
weights_only=False loading it (model.eval() before inference), the state_dict route with
map_location="cpu" and load_state_dict's strict=False report, a state_dict whose keys carry
DataParallel's "module." prefix stripped with consume_prefix_in_state_dict_if_present,
torch.serialization.add_safe_globals for a trusted class, and a checkpoint holding several models
and an optimizer in one file."""
import io
import os
import pickle
import tempfile
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.optim as optim


class TheModelClass(nn.Module):
    def __init__(self):
        super(TheModelClass, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.bn = nn.BatchNorm2d(6)
        self.fc1 = nn.Linear(6 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn(self.conv1(x))))
        x = x.view(-1, 6 * 4 * 4)
        return self.fc1(x)


torch.manual_seed(0)
model = TheModelClass()
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
x = torch.randn(4, 3, 12, 12)
model.train()
for _ in range(3):  # a few steps so the optimizer and the BatchNorm statistics have state
    optimizer.zero_grad()
    model(x).pow(2).mean().backward()
    optimizer.step()
model.eval()
reference = model(x)
print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\t", tuple(model.state_dict()[param_tensor].size()))
assert list(optimizer.state_dict()["param_groups"][0]["params"]) == list(range(6))

with tempfile.TemporaryDirectory() as tmp:
    PATH = os.path.join(tmp, "entire_model.pt")
    torch.save(model, PATH)
    try:
        torch.load(PATH)
        raise AssertionError("weights_only=True loaded a whole pickled module")
    except pickle.UnpicklingError as e:
        print("weights_only=True refuses it:", type(e).__name__)
    loaded = torch.load(PATH, weights_only=False)
    loaded.eval()
    assert type(loaded) is TheModelClass and loaded is not model
    assert torch.equal(loaded(x), reference)
    assert torch.equal(loaded.bn.running_mean, model.bn.running_mean) and loaded.bn.num_batches_tracked.item() == 3

    torch.serialization.add_safe_globals([TheModelClass, nn.Conv2d, nn.MaxPool2d, nn.BatchNorm2d, nn.Linear])
    try:
        trusted = torch.load(PATH)  # the classes it names are now allowed
        print("with add_safe_globals:", type(trusted).__name__)
    except pickle.UnpicklingError as e:  # a pickled module needs more than its classes (its internals)
        print("add_safe_globals is not enough for a whole module:", type(e).__name__)
    torch.serialization.clear_safe_globals()

    SD = os.path.join(tmp, "model_weights.pth")
    torch.save(model.state_dict(), SD)
    model2 = TheModelClass()
    result = model2.load_state_dict(torch.load(SD, map_location="cpu", weights_only=True))
    assert not result.missing_keys and not result.unexpected_keys
    model2.eval()
    assert torch.equal(model2(x), reference)
    partial = {k: v for k, v in torch.load(SD, map_location=torch.device("cpu")).items() if not k.startswith("fc1")}
    result = TheModelClass().load_state_dict(partial, strict=False)
    print("strict=False:", result)
    assert result.missing_keys == ["fc1.weight", "fc1.bias"]

    # weights saved from nn.DataParallel carry a "module." prefix
    prefixed = {"module." + k: v for k, v in model.state_dict().items()}
    torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(prefixed, "module.")
    model3 = TheModelClass()
    model3.load_state_dict(prefixed)
    model3.eval()
    assert torch.equal(model3(x), reference)

    CK = os.path.join(tmp, "checkpoint.tar")
    modelB = nn.Linear(3, 1)
    torch.save({"modelA_state_dict": model.state_dict(), "modelB_state_dict": modelB.state_dict(),
                "optimizerA_state_dict": optimizer.state_dict(), "epoch": 3, "loss": 0.25}, CK)
    checkpoint = torch.load(CK, weights_only=True)
    modelA, optimizerA = TheModelClass(), optim.SGD(TheModelClass().parameters(), lr=0.5)
    modelA.load_state_dict(checkpoint["modelA_state_dict"])
    optimizerA = optim.SGD(modelA.parameters(), lr=0.5)
    optimizerA.load_state_dict(checkpoint["optimizerA_state_dict"])
    assert optimizerA.param_groups[0]["lr"] == 0.001 and checkpoint["epoch"] == 3
    buf = optimizerA.state[modelA.fc1.weight]["momentum_buffer"]
    assert torch.equal(buf, optimizer.state[model.fc1.weight]["momentum_buffer"])

buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
buffer.seek(0)
assert set(torch.load(buffer)) == set(model.state_dict())
print("reloaded outputs equal:", torch.equal(model2(x), reference))
