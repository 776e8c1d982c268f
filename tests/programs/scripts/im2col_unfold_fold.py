"""Convolution by hand with im2col, as the "how convolutions work" posts and CS231n-style
assignments do it: F.unfold extracting patches with stride, padding and dilation, the
convolution as a matmul of the flattened kernel with the patch matrix reshaped to the output
size, checked against F.conv2d (values and gradients); the transposed convolution as that
matmul's transpose followed by F.fold (col2im) against F.conv_transpose2d; fold(unfold(x))
counting how many patches cover each pixel; and a grouped convolution by splitting channels."""
import minigenesis as torch
from minigenesis.nn import functional as F

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


def conv2d_unfold(x, w, b=None, stride=1, padding=0, dilation=1):
    n, c, h, wd = x.shape
    oc, _, kh, kw = w.shape
    cols = F.unfold(x, (kh, kw), dilation=dilation, padding=padding, stride=stride)  # (N, C*kh*kw, L)
    oh = (h + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    out = w.view(oc, -1) @ cols  # (N, OC, L)
    if b is not None:
        out = out + b.view(1, -1, 1)
    return out.view(n, oc, oh, ow)


def conv_transpose2d_fold(x, w, stride=1, padding=0, output_hw=None):
    n, cin, h, wd = x.shape
    _, cout, kh, kw = w.shape
    cols = w.view(cin, -1).t() @ x.view(n, cin, -1)  # (N, cout*kh*kw, h*w)
    return F.fold(cols, output_hw, (kh, kw), padding=padding, stride=stride)


for stride, padding, dilation in ((1, 0, 1), (2, 1, 1), (1, 2, 2), (3, 1, 2)):
    x = torch.randn(2, 3, 9, 11, requires_grad=True)
    w = torch.randn(4, 3, 3, 3, requires_grad=True)
    b = torch.randn(4, requires_grad=True)
    mine = conv2d_unfold(x, w, b, stride, padding, dilation)
    ref = F.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation)
    assert mine.shape == ref.shape and torch.allclose(mine, ref, atol=1e-10)
    g = torch.randn_like(ref)
    grads_mine = torch.autograd.grad(mine, (x, w, b), g)
    grads_ref = torch.autograd.grad(ref, (x, w, b), g)
    assert all(torch.allclose(p, q, atol=1e-10) for p, q in zip(grads_mine, grads_ref))
    print(f"stride {stride} padding {padding} dilation {dilation}: out {tuple(ref.shape)}, sum {ref.sum().item():.6f}")

for stride, padding in ((1, 0), (2, 1), (2, 0)):
    x = torch.randn(2, 4, 5, 6)
    w = torch.randn(4, 3, 3, 3)
    ref = F.conv_transpose2d(x, w, stride=stride, padding=padding)
    mine = conv_transpose2d_fold(x, w, stride, padding, ref.shape[-2:])
    assert torch.allclose(mine, ref, atol=1e-10)
print("transposed convolutions by fold agree, last shape", tuple(ref.shape))

ones = torch.ones(1, 1, 5, 5)
coverage = F.fold(F.unfold(ones, 3, padding=1), (5, 5), 3, padding=1)
print("patch coverage\n", coverage[0, 0].long())
assert coverage[0, 0, 0, 0] == 4 and coverage[0, 0, 2, 2] == 9 and coverage[0, 0, 0, 2] == 6

x = torch.randn(1, 6, 7, 7)
w = torch.randn(4, 3, 3, 3)
groups = [conv2d_unfold(xg, wg) for xg, wg in zip(x.chunk(2, dim=1), w.chunk(2, dim=0))]
assert torch.allclose(torch.cat(groups, dim=1), F.conv2d(x, w, groups=2), atol=1e-10)
