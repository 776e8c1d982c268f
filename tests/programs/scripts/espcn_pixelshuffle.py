"""Single-image super-resolution in the ESPCN style: low-resolution inputs made by
F.avg_pool2d, a small CNN ending in nn.PixelShuffle(2), the loss in MSE, quality in PSNR
(10 log10(1 / MSE)) beside nearest and bicubic upsampling by F.interpolate, and PixelUnshuffle undoing
PixelShuffle."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
r = 2


def make_images(n, size=16):
    yy, xx = torch.meshgrid(torch.arange(size).float(), torch.arange(size).float(), indexing="ij")
    freq = torch.rand(n, 1, 1) * 0.8 + 0.2
    angle = torch.rand(n, 1, 1) * 3.1416
    img = 0.5 + 0.5 * torch.sin(freq * (xx * torch.cos(angle) + yy * torch.sin(angle)))
    return img.unsqueeze(1).clamp(0, 1)


class ESPCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.Tanh(), nn.Conv2d(32, 16, 3, padding=1), nn.Tanh(), nn.Conv2d(16, r * r, 3, padding=1))
        self.shuffle = nn.PixelShuffle(r)

    def forward(self, x):
        return torch.sigmoid(self.shuffle(self.body(x)))


def psnr(a, b):
    return (10 * torch.log10(1.0 / F.mse_loss(a, b))).item()


x = torch.randn(2, 8, 3, 5)
assert torch.equal(nn.PixelUnshuffle(2)(nn.PixelShuffle(2)(x)), x)
assert nn.PixelShuffle(2)(x).shape == (2, 2, 6, 10)

model = ESPCN()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(150):
    hr = make_images(16)
    lr_img = F.avg_pool2d(hr, r)
    loss = F.mse_loss(model(lr_img), hr)
    opt.zero_grad()
    loss.backward()
    opt.step()

with torch.no_grad():
    hr = make_images(32)
    lr_img = F.avg_pool2d(hr, r)
    sr = model(lr_img)
    bicubic = F.interpolate(lr_img, scale_factor=r, mode="bicubic", align_corners=False).clamp(0, 1)
    nearest = F.interpolate(lr_img, scale_factor=r, mode="nearest")
print(f"PSNR model {psnr(sr, hr):.2f} dB, bicubic {psnr(bicubic, hr):.2f} dB, nearest {psnr(nearest, hr):.2f} dB")
assert psnr(sr, hr) > psnr(nearest, hr) + 3
assert psnr(bicubic, hr) > psnr(nearest, hr)
