"""An energy-based model trained with short-run Langevin dynamics (as in "Implicit Generation and
Generalization with Energy-Based Models" and the UvA deep-learning tutorial): an MLP energy
E(x), negative samples refined by x <- x - step/2 * dE/dx + sqrt(step) * noise with
torch.autograd.grad on a detached copy that requires grad, a replay buffer re-initialised 5% of
the time, the contrastive loss E(real) - E(fake) plus an L2 regulariser on the energies, and
Langevin samples that end up near the two data modes."""
import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)
modes = torch.tensor([[-2.0, 0.0], [2.0, 0.0]])


def sample_data(n):
    return modes[torch.randint(0, 2, (n,))] + 0.3 * torch.randn(n, 2)


energy = nn.Sequential(nn.Linear(2, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, 1))


def langevin(x, steps=20, step_size=0.05):
    was_training = energy.training
    energy.eval()
    for p in energy.parameters():
        p.requires_grad_(False)
    x = x.detach().clone()
    for _ in range(steps):
        x.requires_grad_(True)
        e = energy(x).sum()
        grad = torch.autograd.grad(e, x)[0]
        x = (x - step_size / 2 * grad.clamp(-1, 1) + step_size ** 0.5 * 0.5 * torch.randn_like(x)).detach()
    for p in energy.parameters():
        p.requires_grad_(True)
    energy.train(was_training)
    return x


buffer = torch.rand(512, 2) * 8 - 4
optimizer = torch.optim.Adam(energy.parameters(), lr=2e-3, betas=(0.0, 0.999))
for step in range(150):
    real = sample_data(64)
    idx = torch.randint(0, len(buffer), (64,))
    init = buffer[idx]
    reinit = torch.rand(64) < 0.05
    init[reinit] = torch.rand(int(reinit.sum()), 2) * 8 - 4
    fake = langevin(init)
    buffer[idx] = fake
    e_real, e_fake = energy(real), energy(fake)
    reg_loss = 0.1 * (e_real ** 2 + e_fake ** 2).mean()
    cdiv_loss = e_real.mean() - e_fake.mean()
    loss = cdiv_loss + reg_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(f"step {step} contrastive {cdiv_loss.item():.4f} reg {reg_loss.item():.4f}")

samples = langevin(torch.rand(400, 2) * 8 - 4, steps=100)
dist = torch.cdist(samples, modes).min(dim=1).values
near = (dist < 1.0).float().mean().item()
with torch.no_grad():
    e_modes = energy(modes).mean().item()
    e_far = energy(torch.tensor([[0.0, 3.5], [0.0, -3.5]])).mean().item()
print(f"energy at modes {e_modes:.3f} far away {e_far:.3f}; samples near a mode {near:.3f}")
assert e_modes < e_far
assert near > 0.6
assert all(p.requires_grad for p in energy.parameters())
