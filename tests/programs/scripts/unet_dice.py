"""A tiny U-Net segmenting discs from noisy 16x16 images: Conv-BN-ReLU blocks, MaxPool2d down,
ConvTranspose2d up, skip connections by torch.cat, a soft Dice + BCE loss; IoU on held-out images."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
H = W = 16


def make_batch(n):
    yy, xx = torch.meshgrid(torch.arange(H), torch.arange(W), indexing="ij")
    cy = torch.randint(4, H - 4, (n, 1, 1))
    cx = torch.randint(4, W - 4, (n, 1, 1))
    r = torch.randint(2, 5, (n, 1, 1))
    masks = (((yy - cy) ** 2 + (xx - cx) ** 2) <= r**2).float().unsqueeze(1)
    images = masks * 0.8 + 0.3 * torch.randn(n, 1, H, W)
    return images, masks


class DoubleConv(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        )


class UNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.down1 = DoubleConv(1, c)
        self.down2 = DoubleConv(c, 2 * c)
        self.bottom = DoubleConv(2 * c, 4 * c)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(4 * c, 2 * c, kernel_size=2, stride=2)
        self.dec2 = DoubleConv(4 * c, 2 * c)
        self.up1 = nn.ConvTranspose2d(2 * c, c, kernel_size=2, stride=2)
        self.dec1 = DoubleConv(2 * c, c)
        self.head = nn.Conv2d(c, 1, kernel_size=1)

    def forward(self, x):
        x1 = self.down1(x)
        x2 = self.down2(self.pool(x1))
        x3 = self.bottom(self.pool(x2))
        y = self.dec2(torch.cat([self.up2(x3), x2], dim=1))
        y = self.dec1(torch.cat([self.up1(y), x1], dim=1))
        return self.head(y)


def dice_loss(logits, target, eps=1.0):
    probs = torch.sigmoid(logits)
    inter = (probs * target).sum(dim=(1, 2, 3))
    union = probs.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


model = UNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
bce = nn.BCEWithLogitsLoss()
for step in range(45):
    images, masks = make_batch(16)
    logits = model(images)
    loss = bce(logits, masks) + dice_loss(logits, masks)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 15 == 0:
        print(f"step {step} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    images, masks = make_batch(64)
    pred = (model(images) > 0).float()
    inter = (pred * masks).sum((1, 2, 3))
    union = ((pred + masks) > 0).float().sum((1, 2, 3))
    iou = (inter / union).mean().item()
print(f"mean IoU {iou:.3f}")
assert pred.shape == masks.shape
assert iou > 0.7
