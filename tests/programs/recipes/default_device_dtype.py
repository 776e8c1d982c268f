"""Default device and dtype: torch.set_default_device('cpu'), the `with torch.device('cpu'):`
context for building modules, torch.get_default_device, torch.set_default_dtype(torch.float64)
and what it changes (factories, modules, Python floats) and what it does not (integers, explicit
dtypes), then putting the defaults back."""
import minigenesis as torch
import minigenesis.nn as nn

assert torch.get_default_dtype() == torch.float32
assert torch.get_default_device() == torch.device("cpu")

with torch.device("cpu"):
    mod = nn.Linear(20, 30)
    t = torch.randn(3)
assert mod.weight.device == torch.device("cpu") and t.device.type == "cpu"

torch.set_default_device("cpu")
assert torch.get_default_device().type == "cpu"
assert torch.zeros(2).device == torch.device("cpu")
torch.set_default_device(None)

torch.set_default_dtype(torch.float64)
try:
    assert torch.tensor([1.2, 3]).dtype == torch.float64
    assert torch.tensor([1, 3]).dtype == torch.int64
    assert torch.randn(2).dtype == torch.float64
    assert torch.arange(3.0).dtype == torch.float64
    assert nn.Linear(2, 2).weight.dtype == torch.float64
    assert torch.zeros(2, dtype=torch.float32).dtype == torch.float32
    assert (torch.ones(2, dtype=torch.int32) * 1.5).dtype == torch.float64
    z = torch.zeros(2, 2)
    z.fill_(1 / 3)
    assert z[0, 0].item() == 1 / 3  # float64 keeps it exactly
finally:
    torch.set_default_dtype(torch.float32)
assert torch.tensor([1.2]).dtype == torch.float32

with torch.device("cpu"):
    with torch.device("meta"):
        m = torch.empty(4)
    assert m.device.type == "meta" and m.shape == (4,)
    assert torch.empty(4).device.type == "cpu"
print("defaults:", torch.get_default_dtype(), torch.get_default_device())
