"""The recipes "Saving and loading multiple models in one file" and "Zeroing out gradients" on a
tiny GAN: netG and netD with their Adam optimizers saved in one dict by torch.save into an
io.BytesIO, loaded into fresh instances with load_state_dict, the optimizers' state (exp_avg,
step) restored so training continues bit for bit like the uninterrupted run; and the gradients
piling up across backward() calls until optimizer.zero_grad() clears them (set_to_none)."""
import io

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.optim as optim


def make():
    netG = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    netD = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    optimizerG = optim.Adam(netG.parameters(), lr=1e-3, betas=(0.5, 0.999))
    optimizerD = optim.Adam(netD.parameters(), lr=1e-3, betas=(0.5, 0.999))
    return netG, netD, optimizerG, optimizerD


criterion = nn.BCEWithLogitsLoss()


def train_step(netG, netD, optimizerG, optimizerD, real, noise):
    optimizerD.zero_grad()
    fake = netG(noise)
    lossD = criterion(netD(real), torch.ones(len(real), 1)) + criterion(netD(fake.detach()), torch.zeros(len(real), 1))
    lossD.backward()
    optimizerD.step()
    optimizerG.zero_grad()
    lossG = criterion(netD(fake), torch.ones(len(real), 1))
    lossG.backward()
    optimizerG.step()
    return lossD.item(), lossG.item()


torch.manual_seed(0)
netG, netD, optimizerG, optimizerD = make()
data = [(torch.randn(32, 2) * 0.5 + torch.tensor([2.0, -1.0]), torch.randn(32, 4)) for _ in range(10)]
for real, noise in data[:5]:
    train_step(netG, netD, optimizerG, optimizerD, real, noise)

buffer = io.BytesIO()
torch.save({
    "modelA_state_dict": netG.state_dict(),
    "modelB_state_dict": netD.state_dict(),
    "optimizerA_state_dict": optimizerG.state_dict(),
    "optimizerB_state_dict": optimizerD.state_dict(),
    "epoch": 5,
}, buffer)
size = buffer.tell()
for real, noise in data[5:]:
    losses_straight = train_step(netG, netD, optimizerG, optimizerD, real, noise)

buffer.seek(0)
modelA, modelB, optimizerA, optimizerB = make()
checkpoint = torch.load(buffer, weights_only=True)
modelA.load_state_dict(checkpoint["modelA_state_dict"])
modelB.load_state_dict(checkpoint["modelB_state_dict"])
optimizerA.load_state_dict(checkpoint["optimizerA_state_dict"])
optimizerB.load_state_dict(checkpoint["optimizerB_state_dict"])
assert checkpoint["epoch"] == 5
assert optimizerA.state_dict()["state"][0]["step"] == 5
modelA.train()
modelB.train()
for real, noise in data[5:]:
    losses_resumed = train_step(modelA, modelB, optimizerA, optimizerB, real, noise)
assert size > 0  # (the byte count is the file format's business, not printed)
print(f"losses after resuming {losses_resumed} vs straight {losses_straight}")
assert losses_resumed == losses_straight
for p, q in zip(netG.parameters(), modelA.parameters()):
    assert torch.equal(p, q)

# zeroing out gradients: they accumulate until cleared
net = nn.Linear(3, 1)
opt = optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(8, 3)
net(x).sum().backward()
g1 = net.weight.grad.clone()
net(x).sum().backward()
assert torch.allclose(net.weight.grad, 2 * g1)
assert torch.allclose(g1, x.sum(0, keepdim=True))  # d/dW sum(W x + b) = sum of the inputs
opt.zero_grad()
assert net.weight.grad is None
opt.zero_grad(set_to_none=False)
net(x).sum().backward()
net.zero_grad(set_to_none=False)
assert torch.equal(net.weight.grad, torch.zeros(1, 3))
