"""The "Channels Last Memory Format" tutorial: an NCHW tensor converted with
x.to(memory_format=torch.channels_last) keeps its shape but gets strides (H*W*C, 1, W*C, C),
is_contiguous(memory_format=torch.channels_last) true and the default is_contiguous() false;
contiguous(memory_format=...) and torch.empty(..., memory_format=...) likewise; the values read
the same, an element's offset follows the strides (checked on the storage through as_strided),
a model moved with model.to(memory_format=torch.channels_last) gives the same outputs and
gradients as in NCHW, and permute(0, 2, 3, 1) of a channels-last tensor is contiguous NHWC."""
import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
N, C, H, W = 2, 3, 4, 5
x = torch.arange(N * C * H * W, dtype=torch.float32).reshape(N, C, H, W)
assert x.stride() == (C * H * W, H * W, W, 1)
cl = x.to(memory_format=torch.channels_last)
print("contiguous strides", x.stride(), "channels_last strides", cl.stride())
assert cl.shape == x.shape
assert cl.stride() == (H * W * C, 1, W * C, C)
assert cl.is_contiguous(memory_format=torch.channels_last)
assert not cl.is_contiguous()
assert torch.equal(cl, x)
# the same memory seen as NHWC
nhwc = cl.permute(0, 2, 3, 1)
assert nhwc.is_contiguous() and torch.equal(nhwc, x.permute(0, 2, 3, 1).contiguous())
n, c, h, w = 1, 2, 3, 4
flat = nhwc.reshape(-1)
assert flat[n * cl.stride(0) + c * cl.stride(1) + h * cl.stride(2) + w * cl.stride(3)] == x[n, c, h, w]
back = cl.contiguous()
assert back.is_contiguous() and back.stride() == x.stride()
assert x.contiguous(memory_format=torch.channels_last).stride() == cl.stride()
e = torch.empty(N, C, H, W, memory_format=torch.channels_last)
assert e.stride() == cl.stride()
# a (1, C, 1, 1)-broadcast op keeps the layout
scaled = cl * torch.tensor([1.0, 2.0, 3.0]).view(1, 3, 1, 1)
assert torch.equal(scaled, x * torch.tensor([1.0, 2.0, 3.0]).view(1, 3, 1, 1))
assert scaled.is_contiguous(memory_format=torch.channels_last)

model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 4, 3))
model_cl = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 4, 3))
model_cl.load_state_dict(model.state_dict())
model_cl = model_cl.to(memory_format=torch.channels_last)
assert model_cl[0].weight.is_contiguous(memory_format=torch.channels_last)
inp = torch.randn(4, 3, 8, 8)
out = model(inp)
out_cl = model_cl(inp.to(memory_format=torch.channels_last))
assert out_cl.shape == (4, 4, 6, 6) and out_cl.is_contiguous(memory_format=torch.channels_last)
assert torch.allclose(out, out_cl, atol=1e-5)
out.square().mean().backward()
out_cl.square().mean().backward()
for p, q in zip(model.parameters(), model_cl.parameters()):
    assert torch.allclose(p.grad, q.grad, atol=1e-5)
print(f"output {tuple(out_cl.shape)} equal in both formats, max diff {(out - out_cl).abs().max().item():.1e}")
