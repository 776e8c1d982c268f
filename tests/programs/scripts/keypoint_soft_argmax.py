"""Keypoint regression by heatmaps: a small fully convolutional net predicts one heatmap per
keypoint, a spatial softmax turns it into a distribution and the soft-argmax (expected
coordinates over a meshgrid) gives differentiable sub-pixel locations, trained with an L1 loss
on the coordinates; checked against a hard argmax and against the target points."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
S = 24


def render(n):
    pts = torch.rand(n, 2, 2) * (S - 8) + 4  # two keypoints (x, y) per image
    ys, xs = torch.meshgrid(torch.arange(S).float(), torch.arange(S).float(), indexing="ij")
    img = torch.zeros(n, 1, S, S)
    for k in range(2):
        d2 = (xs - pts[:, k, 0, None, None]) ** 2 + (ys - pts[:, k, 1, None, None]) ** 2
        img[:, 0] += torch.exp(-d2 / (2.0 if k == 0 else 8.0))  # a small dot and a big blob
    return img + 0.05 * torch.randn_like(img), pts


def soft_argmax(heat, beta=1.0):
    n, k, h, w = heat.shape
    prob = F.softmax(beta * heat.flatten(2), dim=-1).view(n, k, h, w)
    ys = torch.linspace(0, h - 1, h)
    xs = torch.linspace(0, w - 1, w)
    x = (prob.sum(2) * xs).sum(-1)
    y = (prob.sum(3) * ys).sum(-1)
    return torch.stack([x, y], -1)


# soft-argmax of a sharp peak is the peak
peak = torch.full((1, 1, S, S), -1e4)
peak[0, 0, 7, 13] = 0
assert torch.allclose(soft_argmax(peak), torch.tensor([[[13.0, 7.0]]]))

net = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 16, 3, padding=2, dilation=2), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 16, 3, padding=4, dilation=4), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 2, 1),
)
opt = torch.optim.Adam(net.parameters(), lr=3e-3)
for step in range(80):
    img, pts = render(16)
    loss = F.l1_loss(soft_argmax(net(img)), pts)
    opt.zero_grad()
    loss.backward()
    opt.step()
net.eval()
img, pts = render(50)
with torch.no_grad():
    heat = net(img)
    pred = soft_argmax(heat)
    flat = heat.flatten(2).argmax(-1)
    hard = torch.stack([flat % S, flat // S], -1).float()
err = (pred - pts).norm(dim=-1).mean().item()
print(f"mean keypoint error {err:.2f} px (soft), {(hard - pts).norm(dim=-1).mean().item():.2f} px (hard argmax), image {S}px")
assert err < 1.5
