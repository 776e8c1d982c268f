"""Gradient accumulation under autocast (bfloat16 on the CPU) with a GradScaler and clipping."""
import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
device = "cuda" if torch.cuda.is_available() else "cpu"
model.to(device)
accum = 4
X = torch.randn(512, 16)
y = X[:, :1] * 2 - X[:, 1:2]
for step, i in enumerate(range(0, 512, 32)):
    xb, yb = X[i:i + 32].to(device), y[i:i + 32].to(device)
    with torch.autocast(device_type=device, dtype=torch.bfloat16):
        pred = model(xb)
        loss = nn.functional.mse_loss(pred.float(), yb) / accum
    scaler.scale(loss).backward()
    if (step + 1) % accum == 0:
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
print("last loss", loss.item() * accum)
