"""GPU-style batch augmentation written with tensor ops, as Kornia-free training scripts do it: a
random affine per image (rotation, scale, translation) built as a (N, 2, 3) theta and applied
with F.affine_grid + F.grid_sample (bilinear and nearest, padding "zeros", "border" and
"reflection", align_corners True and False); a 90-degree rotation by grid_sample equal to
torch.rot90, a horizontal flip by a theta of diag(-1, 1) equal to torch.flip, a separable
Gaussian blur by two grouped conv2d calls equal to one 2-d kernel, random erasing by masks, and
F.interpolate in bicubic, area and nearest-exact modes against their definitions."""
import math

import minigenesis as torch
from minigenesis.nn import functional as F

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
N, C, H, W = 4, 3, 8, 8
img = torch.rand(N, C, H, W)

rot = torch.tensor([[[0.0, -1.0, 0.0], [1.0, 0.0, 0.0]]]).expand(N, 2, 3)
for align in (True, False):
    grid = F.affine_grid(rot, (N, C, H, W), align_corners=align)
    out = F.grid_sample(img, grid, mode="nearest", align_corners=align)
    assert torch.allclose(out, torch.rot90(img, k=1, dims=(2, 3)), atol=1e-12) or torch.allclose(
        out, torch.rot90(img, k=-1, dims=(2, 3)), atol=1e-12)
flip = torch.tensor([[[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]).expand(N, 2, 3)
flipped = F.grid_sample(img, F.affine_grid(flip, img.shape, align_corners=False), align_corners=False)
assert torch.allclose(flipped, torch.flip(img, dims=[3]), atol=1e-12)
print("rot90 and flip by grid_sample agree with torch.rot90 and torch.flip")

angle = (torch.rand(N) - 0.5) * math.pi / 3
scale = 0.9 + 0.2 * torch.rand(N)
shift = (torch.rand(N, 2) - 0.5) * 0.4
theta = torch.zeros(N, 2, 3)
theta[:, 0, 0] = torch.cos(angle) / scale
theta[:, 0, 1] = -torch.sin(angle) / scale
theta[:, 1, 0] = torch.sin(angle) / scale
theta[:, 1, 1] = torch.cos(angle) / scale
theta[:, :, 2] = shift
grid = F.affine_grid(theta, img.shape, align_corners=False)
for padding_mode in ("zeros", "border", "reflection"):
    out = F.grid_sample(img, grid, mode="bilinear", padding_mode=padding_mode, align_corners=False)
    print(f"{padding_mode:10s} mean {out.mean().item():.6f} min {out.min().item():.6f}")
    if padding_mode != "zeros":
        assert out.min() >= img.min() - 1e-12 and out.max() <= img.max() + 1e-12
# a sample point outside the image: border repeats the edge, reflection mirrors it
g = torch.tensor([[[[1.5, 0.0]]]])  # x = 1.5 in normalised coordinates, past the right edge
row = torch.arange(4.0).view(1, 1, 1, 4)
border = F.grid_sample(row, g, padding_mode="border", align_corners=True).item()
reflect = F.grid_sample(row, g, padding_mode="reflection", align_corners=True).item()
print(f"outside sample: border {border}, reflection {reflect}")
assert border == 3.0 and abs(reflect - 2.25) < 1e-12  # pixel 3.75 mirrored about 3

k1 = torch.exp(-torch.arange(-2.0, 3.0) ** 2 / 2)
k1 = k1 / k1.sum()
sep = F.conv2d(F.conv2d(F.pad(img, (2, 2, 2, 2), mode="reflect"), k1.view(1, 1, 1, 5).repeat(C, 1, 1, 1), groups=C),
               k1.view(1, 1, 5, 1).repeat(C, 1, 1, 1), groups=C)
full = F.conv2d(F.pad(img, (2, 2, 2, 2), mode="reflect"), torch.outer(k1, k1).expand(C, 1, 5, 5), groups=C)
assert torch.allclose(sep, full, atol=1e-12)

erase = torch.ones(N, 1, H, W)
ys, xs = torch.randint(0, H - 3, (N,)), torch.randint(0, W - 3, (N,))
rows, cols = torch.arange(H).view(1, H, 1), torch.arange(W).view(1, 1, W)
box = (rows >= ys.view(N, 1, 1)) & (rows < ys.view(N, 1, 1) + 3) & (cols >= xs.view(N, 1, 1)) & (cols < xs.view(N, 1, 1) + 3)
erased = img.masked_fill(box.unsqueeze(1), 0.0)
assert (erased == 0).sum().item() == N * C * 9

small = torch.arange(16.0).view(1, 1, 4, 4)
area = F.interpolate(small, size=(2, 2), mode="area")
assert torch.equal(area, F.avg_pool2d(small, 2))
near = F.interpolate(small, scale_factor=2, mode="nearest-exact")
assert torch.equal(near, small.repeat_interleave(2, dim=2).repeat_interleave(2, dim=3))
bicubic = F.interpolate(small, size=(7, 7), mode="bicubic", align_corners=True)
assert torch.allclose(bicubic[0, 0, ::2, ::2], small[0, 0], atol=1e-12)  # the grid points are kept
print(f"bicubic of a ramp: {bicubic[0, 0, 1, :3].tolist()}")
