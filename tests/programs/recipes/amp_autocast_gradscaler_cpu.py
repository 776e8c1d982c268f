"""The automatic-mixed-precision recipe on CPU: torch.amp.autocast('cpu') with bfloat16 (the
default CPU dtype) around the forward pass, matmuls in bfloat16 while the loss stays float32,
torch.amp.GradScaler('cpu') through scale/step/update (a no-op scale factor when disabled),
its state_dict in a checkpoint, and an inf gradient making the scaler skip the step and halve."""
import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.2)
teacher = torch.randn(16, 4)
inputs = [torch.randn(8, 16) for _ in range(10)]
data = [(inp, (inp @ teacher).argmax(1)) for inp in inputs]
loss_fn = nn.CrossEntropyLoss()

scaler = torch.amp.GradScaler("cpu")
assert scaler.is_enabled() and scaler.get_scale() == 65536.0
first = None
for epoch in range(3):
    for inp, target in data:
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            output = model(inp)
            assert output.dtype == torch.bfloat16
            loss = loss_fn(output, target)
            assert loss.dtype == torch.float32
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        first = first if first is not None else loss.item()
assert model[0].weight.dtype == torch.float32
print(f"loss {first:.3f} -> {loss.item():.3f}, scale {scaler.get_scale()}")
assert loss.item() < first

checkpoint = {"model": model.state_dict(), "optimizer": opt.state_dict(), "scaler": scaler.state_dict()}
assert checkpoint["scaler"]["scale"] == scaler.get_scale()
assert set(checkpoint["scaler"]) == {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"}

scaler2 = torch.amp.GradScaler("cpu", init_scale=1024.0)
w = nn.Parameter(torch.ones(3))
opt2 = torch.optim.SGD([w], lr=1.0)
scaler2.scale((w * float("inf")).sum()).backward()
scaler2.step(opt2)
scaler2.update()
assert w.tolist() == [1.0, 1.0, 1.0] and scaler2.get_scale() == 512.0

with torch.autocast("cpu", enabled=False):
    assert model(data[0][0]).dtype == torch.float32
with torch.amp.autocast("cpu"):
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16
    assert torch.is_autocast_enabled("cpu")
    assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.bfloat16
    assert torch.ones(3).sum().dtype == torch.float32

off = torch.amp.GradScaler("cpu", enabled=False)
l = torch.tensor(2.0, requires_grad=True)
assert off.scale(l) is l and off.get_scale() == 1.0
