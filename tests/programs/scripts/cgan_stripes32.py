"""A conditional DCGAN on random 32x32 images in the pytorch/examples style: a weights_init
applied with .apply() by class name, the label embedded and concatenated to the noise (generator)
and given as an extra image channel (discriminator), Sigmoid + BCELoss with label.fill_(),
fake.detach() for the discriminator step, two Adams with betas=(0.5, 0.999), D(x) and D(G(z))
reported with .mean().item()."""
import random
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.optim as optim

manualSeed = 999
random.seed(manualSeed)
torch.manual_seed(manualSeed)
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
nc, nz, ngf, ndf, n_classes, image_size = 1, 16, 8, 8, 2, 32


def make_real(n):
    """Class 0: horizontal stripes, class 1: vertical stripes, with noise, in [-1, 1]."""
    labels = torch.randint(0, n_classes, (n,))
    base = torch.linspace(-3.14159, 3.14159, image_size)
    horizontal = torch.sin(3 * base).view(1, 1, image_size, 1).expand(n, 1, image_size, image_size)
    vertical = horizontal.transpose(2, 3)
    imgs = torch.where(labels.view(-1, 1, 1, 1) == 0, horizontal, vertical)
    imgs = imgs + 0.1 * torch.randn_like(imgs)
    return imgs.clamp(-1, 1), labels


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.label_emb = nn.Embedding(n_classes, 4)
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz + 4, ngf * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            # state size. (ngf*4) x 4 x 4
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            # state size. (ngf*2) x 8 x 8
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            # state size. (ngf) x 16 x 16
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh()
            # state size. (nc) x 32 x 32
        )

    def forward(self, noise, labels):
        c = self.label_emb(labels).unsqueeze(2).unsqueeze(3)
        return self.main(torch.cat((noise, c), 1))


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.label_emb = nn.Embedding(n_classes, image_size * image_size)
        self.main = nn.Sequential(
            nn.Conv2d(nc + 1, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 4),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, 1, 4, 1, 0, bias=False),
            nn.Sigmoid()
        )

    def forward(self, input, labels):
        c = self.label_emb(labels).view(-1, 1, image_size, image_size)
        return self.main(torch.cat([input, c], dim=1))


netG = Generator().to(device)
netG.apply(weights_init)
netD = Discriminator().to(device)
netD.apply(weights_init)
conv_std = netD.main[0].weight.std().item()
assert 0.015 < conv_std < 0.025, conv_std

criterion = nn.BCELoss()
fixed_noise = torch.randn(8, nz, 1, 1, device=device)
fixed_labels = torch.arange(n_classes).repeat_interleave(4).to(device)
real_label = 1.
fake_label = 0.
optimizerD = optim.Adam(netD.parameters(), lr=0.002, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=0.002, betas=(0.5, 0.999))

G_losses, D_losses = [], []
batch_size = 16
num_iters = 20
for i in range(num_iters):
    ############################
    # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
    ###########################
    netD.zero_grad()
    real_cpu, labels = make_real(batch_size)
    real_cpu, labels = real_cpu.to(device), labels.to(device)
    b_size = real_cpu.size(0)
    label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
    output = netD(real_cpu, labels).view(-1)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = output.mean().item()

    noise = torch.randn(b_size, nz, 1, 1, device=device)
    fake = netG(noise, labels)
    label.fill_(fake_label)
    output = netD(fake.detach(), labels).view(-1)
    errD_fake = criterion(output, label)
    errD_fake.backward()
    D_G_z1 = output.mean().item()
    errD = errD_real + errD_fake
    optimizerD.step()

    ############################
    # (2) Update G network: maximize log(D(G(z)))
    ###########################
    netG.zero_grad()
    label.fill_(real_label)  # fake labels are real for generator cost
    output = netD(fake, labels).view(-1)
    errG = criterion(output, label)
    errG.backward()
    D_G_z2 = output.mean().item()
    optimizerG.step()

    G_losses.append(errG.item())
    D_losses.append(errD.item())
    if i % 10 == 0:
        print('[%d/%d]\tLoss_D: %.4f\tLoss_G: %.4f\tD(x): %.4f\tD(G(z)): %.4f / %.4f'
              % (i, num_iters, errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))

with torch.no_grad():
    fake = netG(fixed_noise, fixed_labels).detach().cpu()
print("samples", tuple(fake.shape), "range %.3f %.3f" % (fake.min().item(), fake.max().item()))
assert fake.shape == (8, 1, 32, 32)
assert fake.abs().max().item() <= 1.0
assert all(map(lambda v: v == v, G_losses + D_losses))  # no NaN
# the discriminator has learned to tell real from generated images at some point
assert min(D_losses) < 0.5 * D_losses[0], D_losses
