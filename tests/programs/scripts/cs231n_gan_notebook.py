"""CS231n's GAN notebook in PyTorch on a 1-d Gaussian: sample_noise as
torch.rand(batch_size, dim) * 2 - 1, a numerically stable bce_loss written by hand (input.clamp(
min=0) - input * target + (1 + neg_abs.exp()).log()) checked against
F.binary_cross_entropy_with_logits, discriminator_loss/generator_loss and the least-squares
variants, initialize_weights with nn.init.xavier_uniform_ via model.apply, get_optimizer with
Adam(lr, betas=(0.5, 0.999)), and run_a_gan alternating D and G steps; the generator's
batches must circle the data's mean."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.optim as optim

dtype = torch.FloatTensor
torch.manual_seed(0)
NOISE_DIM = 8


def sample_noise(batch_size, dim, seed=None):
    if seed is not None:
        torch.manual_seed(seed)
    return torch.rand(batch_size, dim) * 2 - 1


z = sample_noise(2000, 3)
assert z.shape == (2000, 3) and z.min() >= -1 and z.max() <= 1
assert abs(z.mean().item()) < 0.05 and abs(z.var().item() - 1 / 3) < 0.03


def bce_loss(input, target):
    neg_abs = -input.abs()
    loss = input.clamp(min=0) - input * target + (1 + neg_abs.exp()).log()
    return loss.mean()


logits = torch.randn(50) * 20
targets = (torch.rand(50) > 0.5).float()
assert torch.allclose(bce_loss(logits, targets), F.binary_cross_entropy_with_logits(logits, targets), atol=1e-5)


def discriminator_loss(logits_real, logits_fake):
    true_labels = torch.ones_like(logits_real).type(dtype)
    return bce_loss(logits_real, true_labels) + bce_loss(logits_fake, 1 - true_labels)


def generator_loss(logits_fake):
    return bce_loss(logits_fake, torch.ones_like(logits_fake).type(dtype))


def ls_discriminator_loss(scores_real, scores_fake):
    return 0.5 * ((scores_real - 1) ** 2).mean() + 0.5 * (scores_fake ** 2).mean()


def ls_generator_loss(scores_fake):
    return 0.5 * ((scores_fake - 1) ** 2).mean()


d_real, d_fake = torch.tensor([2.0, -1.0]), torch.tensor([0.5, -3.0])
assert torch.isclose(ls_discriminator_loss(d_real, d_fake), torch.tensor(0.5 * (1 + 4) / 2 + 0.5 * (0.25 + 9) / 2))
assert torch.isclose(generator_loss(torch.zeros(4)), torch.log(torch.tensor(2.0)))


def initialize_weights(m):
    if isinstance(m, nn.Linear) or isinstance(m, nn.ConvTranspose2d):
        nn.init.xavier_uniform_(m.weight.data)


def discriminator():
    return nn.Sequential(nn.Linear(1, 64), nn.LeakyReLU(0.01), nn.Linear(64, 64), nn.LeakyReLU(0.01), nn.Linear(64, 1))


def generator(noise_dim=NOISE_DIM):
    return nn.Sequential(nn.Linear(noise_dim, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))


def get_optimizer(model):
    return optim.Adam(model.parameters(), lr=2e-3, betas=(0.5, 0.999))


def real_batch(n):
    return 1.5 + 0.5 * torch.randn(n, 1)


def run_a_gan(D, G, D_solver, G_solver, discriminator_loss, generator_loss, num_iters=400, batch_size=64):
    means = []
    for it in range(num_iters):
        real_data = real_batch(batch_size).type(dtype)
        D_solver.zero_grad()
        logits_real = D(real_data)
        g_fake_seed = sample_noise(batch_size, NOISE_DIM).type(dtype)
        fake_images = G(g_fake_seed).detach()
        logits_fake = D(fake_images)
        d_total_error = discriminator_loss(logits_real, logits_fake)
        d_total_error.backward()
        D_solver.step()

        G_solver.zero_grad()
        g_fake_seed = sample_noise(batch_size, NOISE_DIM).type(dtype)
        fake_images = G(g_fake_seed)
        gen_logits_fake = D(fake_images)
        g_error = generator_loss(gen_logits_fake)
        g_error.backward()
        G_solver.step()
        means.append(fake_images.mean().item())
        if it % 200 == 0:
            print("Iter: {}, D: {:.4}, G:{:.4}".format(it, d_total_error.item(), g_error.item()))
    return G, means


for name, d_loss, g_loss in [("vanilla", discriminator_loss, generator_loss), ("least squares", ls_discriminator_loss, ls_generator_loss)]:
    D = discriminator().type(dtype)
    D.apply(initialize_weights)
    G = generator().type(dtype)
    G.apply(initialize_weights)
    with torch.no_grad():
        start = G(sample_noise(4000, NOISE_DIM)).mean().item()
    G, means = run_a_gan(D, G, get_optimizer(D), get_optimizer(G), d_loss, g_loss)
    with torch.no_grad():
        samples = G(sample_noise(4000, NOISE_DIM)).squeeze(1)
    mean, std = samples.mean().item(), samples.std().item()
    print(f"{name}: generated mean {start:.3f} -> {mean:.3f}, std {std:.3f} (data: 1.5, 0.5)")
    # a GAN circles its target: the generator's mean over the last 200 iterations is close
    late = sum(means[-200:]) / 200
    print(f"mean of the generated batches over the last 200 iterations {late:.3f}")
    assert abs(late - 1.5) < 0.2 and abs(late - 1.5) < 0.3 * abs(start - 1.5), (start, late)
    assert 0.02 < std < 1.0, std
