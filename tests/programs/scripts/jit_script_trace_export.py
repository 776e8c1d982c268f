"""TorchScript as people sprinkle it through a project: a @torch.jit.script helper function with
type annotations, a module with an @torch.jit.ignore debug method and an @torch.jit.export extra
method compiled by torch.jit.script, another traced by torch.jit.trace with example inputs,
both saved to an in-memory buffer with torch.jit.save and loaded back with map_location="cpu",
and torch.jit.is_scripting guarding Python-only code. Every compiled path must give the eager
numbers. Weights and inputs come from NumPy, so the printed numbers are PyTorch's."""
import io
from typing import List

import numpy as np

import minigenesis as torch
import minigenesis.nn as nn


@torch.jit.script
def gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


@torch.jit.script
def moving_average(xs: List[float], k: int) -> List[float]:
    out: List[float] = []
    for i in range(len(xs) - k + 1):
        out.append(sum(xs[i:i + k]) / k)
    return out


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.jit.is_scripting():
            self.debug_shapes(x)
        return self.norm(x + self.fc2(gelu_tanh(self.fc1(x))))

    @torch.jit.ignore
    def debug_shapes(self, x):
        self.last_shape = tuple(x.shape)

    @torch.jit.export
    def embed_mean(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward(x).mean(dim=1)


rng = np.random.default_rng(0)
model = Block(6).eval()
head = nn.Sequential(nn.Linear(6, 3), nn.Tanh()).eval()  # a module with exported methods cannot be traced
with torch.no_grad():
    for p in list(model.parameters()) + list(head.parameters()):
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
x = torch.from_numpy(rng.standard_normal((2, 5, 6)).astype(np.float32))

with torch.no_grad():
    ref = model(x)
scripted = torch.jit.script(model)
traced = torch.jit.trace(head, (ref,))
for name, compiled, inp, expected in [("script", scripted, x, ref), ("trace", traced, ref, head(ref))]:
    buf = io.BytesIO()
    torch.jit.save(compiled, buf)
    buf.seek(0)
    loaded = torch.jit.load(buf, map_location="cpu")
    out = loaded(inp)
    print("%s: max |compiled - eager| %.2e, saved %s" % (name, (out - expected).abs().max().item(), "yes" if buf.getbuffer().nbytes > 0 else "no"))
    assert torch.allclose(out, expected, atol=1e-5)
assert torch.allclose(scripted.embed_mean(x), ref.mean(dim=1), atol=1e-6)
assert model.last_shape == (2, 5, 6)
print("gelu_tanh(1.0) = %.6f, eager F.gelu(tanh) = %.6f" % (gelu_tanh(torch.tensor(1.0)).item(),
      nn.functional.gelu(torch.tensor(1.0), approximate="tanh").item()))
print("moving average", ["%.4f" % v for v in moving_average([1.0, 2.0, 4.0, 8.0, 16.0], 3)])
print("output checksum %.6f, head checksum %.6f" % (ref.sum().item(), head(ref).sum().item()))
