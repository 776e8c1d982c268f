"""A convolutional autoencoder: strided Conv2d down, ConvTranspose2d up, BCELoss."""
import minigenesis as torch
import minigenesis.nn as nn

class AutoEncoder(nn.Module):
    def __init__(self):
        super(AutoEncoder, self).__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(True),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(True))
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1), nn.ReLU(True),
            nn.ConvTranspose2d(8, 1, 3, stride=2, padding=1, output_padding=1), nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))

torch.manual_seed(0)
imgs = (torch.rand(64, 1, 16, 16) > 0.7).float()
ae = AutoEncoder()
opt = torch.optim.Adam(ae.parameters(), lr=1e-2)
crit = nn.BCELoss()
for epoch in range(40):
    recon = ae(imgs)
    loss = crit(recon, imgs)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("bce", loss.item(), recon.shape)
assert recon.shape == imgs.shape and loss.item() < 0.6
