"""A convolutional VAE on 16x16 binary blob images, written as in the pytorch/examples VAE: the
reparameterization trick with torch.randn_like and exp(0.5 * logvar), the KL term in closed form
(-0.5 * sum(1 + logvar - mu^2 - exp(logvar))), BCE(reduction='sum') reconstruction, sampling
from the prior and a latent interpolation with torch.linspace, test loss under torch.no_grad()."""
import minigenesis as torch
from minigenesis import nn, optim
from minigenesis.nn import functional as F
from minigenesis.distributions import Normal, kl_divergence

torch.manual_seed(1)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
latent_dim = 4


def blobs(n):
    """A filled square of random size at a random place, pixels in {0, 1}."""
    imgs = torch.zeros(n, 1, 16, 16)
    sizes = torch.randint(3, 8, (n,))
    tops = torch.randint(0, 16, (n,)) % (16 - sizes + 1)
    lefts = torch.randint(0, 16, (n,)) % (16 - sizes + 1)
    for i in range(n):
        t, l, s = tops[i].item(), lefts[i].item(), sizes[i].item()
        imgs[i, 0, t:t + s, l:l + s] = 1.0
    return imgs


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(1, 8, 4, 2, 1), nn.ReLU(),   # 8x8
            nn.Conv2d(8, 16, 4, 2, 1), nn.ReLU(),  # 4x4
            nn.Flatten())
        self.fc_mu = nn.Linear(16 * 4 * 4, latent_dim)
        self.fc_logvar = nn.Linear(16 * 4 * 4, latent_dim)
        self.fc_dec = nn.Linear(latent_dim, 16 * 4 * 4)
        self.dec = nn.Sequential(
            nn.ConvTranspose2d(16, 8, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(8, 1, 4, 2, 1))

    def encode(self, x):
        h = self.enc(x)
        return self.fc_mu(h), self.fc_logvar(h)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h = F.relu(self.fc_dec(z)).view(-1, 16, 4, 4)
        return torch.sigmoid(self.dec(h))

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 1, 16, 16), reduction='sum')
    # see Appendix B from VAE paper: Kingma and Welling. Auto-Encoding Variational Bayes. ICLR, 2014
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD, BCE, KLD


model = VAE().to(device)
optimizer = optim.Adam(model.parameters(), lr=3e-3)
train_data, test_data = blobs(512), blobs(128)


def test():
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i in range(0, len(test_data), 64):
            data = test_data[i:i + 64].to(device)
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar)[0].item()
    return test_loss / len(test_data)


before = test()
for epoch in range(1, 5):
    model.train()
    train_loss = 0
    perm = torch.randperm(len(train_data))
    for batch_idx in range(0, len(train_data), 64):
        data = train_data[perm[batch_idx:batch_idx + 64]].to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss, bce, kld = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    print('====> Epoch: {} Average loss: {:.4f}'.format(epoch, train_loss / len(train_data)))
after = test()
print('====> Test set loss: {:.4f} -> {:.4f}'.format(before, after))
assert after < 0.8 * before and after < 115, (before, after)

# the closed-form KL is the KL of N(mu, sigma^2) from N(0, 1), summed over the latent dimensions
with torch.no_grad():
    mu, logvar = model.encode(test_data[:16])
    closed = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)
    reference = kl_divergence(Normal(mu, torch.exp(0.5 * logvar)), Normal(0.0, 1.0)).sum(dim=1)
assert torch.allclose(closed, reference, rtol=1e-4, atol=1e-4)

with torch.no_grad():
    sample = model.decode(torch.randn(64, latent_dim).to(device)).cpu()
    z0, z1 = mu[0], mu[1]
    alphas = torch.linspace(0, 1, steps=5).unsqueeze(1)
    path = model.decode(z0 * (1 - alphas) + z1 * alphas)
print('samples', tuple(sample.shape), 'mean pixel %.3f' % sample.mean().item(),
      '(data %.3f)' % train_data.mean().item())
assert sample.shape == (64, 1, 16, 16) and path.shape == (5, 1, 16, 16)
assert ((sample >= 0) & (sample <= 1)).all()
