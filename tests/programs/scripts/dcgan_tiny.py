"""A DCGAN on 8x8 synthetic images: ConvTranspose2d generator, LeakyReLU(inplace) discriminator, BCEWithLogits, two Adams."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.optim as optim

torch.manual_seed(1)
nz, ngf, ndf = 8, 16, 16


def real_batch(n):
    """Bright horizontal bars at a random row on a dark background, in [-1, 1]."""
    img = -torch.ones(n, 1, 8, 8)
    rows = torch.randint(0, 8, (n,))
    img[torch.arange(n), 0, rows, :] = 1.0
    return img


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),  # 4x4
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),  # 8x8
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.Conv2d(ngf, 1, 3, 1, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, ndf, 4, 2, 1, bias=False),  # 4x4
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),  # 2x2
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 2, 1, 0, bias=False),  # 1x1 logit
        )

    def forward(self, input):
        return self.main(input).view(-1, 1).squeeze(1)


netG, netD = Generator(), Discriminator()
netG.apply(weights_init)
netD.apply(weights_init)
criterion = nn.BCEWithLogitsLoss()
fixed_noise = torch.randn(64, nz, 1, 1)
real_label, fake_label = 1.0, 0.0
optimizerD = optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))

batch_size = 32
for i in range(80):
    # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    real = real_batch(batch_size)
    label = torch.full((batch_size,), real_label, dtype=real.dtype)
    errD_real = criterion(netD(real), label)
    errD_real.backward()
    noise = torch.randn(batch_size, nz, 1, 1)
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach())
    errD_fake = criterion(output, label)
    errD_fake.backward()
    errD = errD_real + errD_fake
    optimizerD.step()
    # (2) update G: maximize log(D(G(z)))
    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake)
    errG = criterion(output, label)
    errG.backward()
    D_G_z2 = torch.sigmoid(output).mean().item()
    optimizerG.step()
    if i % 20 == 0:
        print(f"[{i}/80] Loss_D: {errD.item():.4f} Loss_G: {errG.item():.4f} D(G(z)): {D_G_z2:.4f}")

netG.eval()
with torch.no_grad():
    samples = netG(fixed_noise)
assert samples.shape == (64, 1, 8, 8)
assert samples.min() >= -1 and samples.max() <= 1
# the generator learns the data's statistics: mostly dark pixels, one bright row per image
bright_rows = (samples.mean(dim=3) > 0).sum(dim=(1, 2)).float()
frac_dark = (samples < 0).float().mean().item()
print(f"fraction of dark pixels {frac_dark:.3f} (real: 0.875), mean bright rows {bright_rows.mean().item():.2f}")
assert 0.75 < frac_dark < 0.97
assert torch.isfinite(errD) and torch.isfinite(errG)
