"""TabNet's building blocks written by hand, as its community reimplementations do: sparsemax
(Martins & Astudillo) by sorting, cumsum and a threshold tau found with a support mask, its
backward by a custom autograd.Function (grad - mean over the support), checked against the
closed-form projection onto the simplex and against gradcheck in float64; a GLU block
(F.glu), ghost batch normalisation by chunking the batch, and an attentive transformer whose
sparse masks select the two informative features of a tabular problem."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.autograd import Function
from minigenesis.nn import functional as F

torch.manual_seed(0)


class SparsemaxFunction(Function):
    @staticmethod
    def forward(ctx, input, dim=-1):
        ctx.dim = dim
        max_val, _ = input.max(dim=dim, keepdim=True)
        input = input - max_val  # stability, sparsemax is shift invariant
        zs = torch.sort(input, dim=dim, descending=True)[0]
        rng = torch.arange(1, input.size(dim) + 1, dtype=input.dtype).view([-1 if d == dim % input.dim() else 1 for d in range(input.dim())])
        bound = 1 + rng * zs
        cumsum = torch.cumsum(zs, dim)
        is_gt = (bound > cumsum).type(input.dtype)
        k = torch.max(is_gt * rng, dim, keepdim=True)[0]
        tau = (torch.sum(is_gt * zs, dim, keepdim=True) - 1) / k
        output = torch.clamp(input - tau, min=0)
        ctx.save_for_backward(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        (output,) = ctx.saved_tensors
        dim = ctx.dim
        nonzeros = (output != 0).type(grad_output.dtype)
        v_hat = (grad_output * nonzeros).sum(dim, keepdim=True) / nonzeros.sum(dim, keepdim=True)
        return nonzeros * (grad_output - v_hat), None


def sparsemax(x, dim=-1):
    return SparsemaxFunction.apply(x, dim)


z = torch.tensor([[0.1, 1.2, 0.9, -0.5], [3.0, 0.0, 0.0, 0.0]])
p = sparsemax(z)
# closed form for the first row: support {1.2, 0.9}, tau = (1.2 + 0.9 - 1) / 2
assert torch.allclose(p[0], torch.tensor([0.0, 0.65, 0.35, 0.0]), atol=1e-6)
assert torch.equal(p[1], torch.tensor([1.0, 0.0, 0.0, 0.0]))
zz = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
assert torch.autograd.gradcheck(sparsemax, (zz,))
print("sparsemax rows", p.tolist(), "sums", p.sum(1).tolist())


class GBN(nn.Module):
    def __init__(self, d, vbs=32, momentum=0.02):
        super().__init__()
        self.vbs = vbs
        self.bn = nn.BatchNorm1d(d, momentum=momentum)

    def forward(self, x):
        chunks = x.chunk(max(1, x.size(0) // self.vbs), 0)
        return torch.cat([self.bn(c) for c in chunks], dim=0)


class GLUBlock(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.fc = nn.Linear(d_in, 2 * d_out, bias=False)
        self.bn = GBN(2 * d_out)

    def forward(self, x):
        return F.glu(self.bn(self.fc(x)), dim=-1)


class TinyTabNet(nn.Module):
    def __init__(self, d_in, n_d=8, n_steps=2):
        super().__init__()
        self.initial_bn = nn.BatchNorm1d(d_in)
        self.attn = nn.ModuleList([nn.Linear(n_d, d_in, bias=False) for _ in range(n_steps)])
        self.feat = nn.ModuleList([GLUBlock(d_in, n_d) for _ in range(n_steps + 1)])
        self.head = nn.Linear(n_d, 2)

    def forward(self, x, gamma=1.3):
        x = self.initial_bn(x)
        prior = torch.ones_like(x)
        a = self.feat[0](x)
        out, masks = 0, []
        for step, attn in enumerate(self.attn):
            m = sparsemax(attn(a) * prior)
            prior = prior * (gamma - m)
            masks.append(m)
            d = F.relu(self.feat[step + 1](m * x))
            out = out + d
            a = d
        return self.head(out), masks


X = torch.randn(512, 6)
y = ((X[:, 1] * X[:, 4]) > 0).long()
model = TinyTabNet(6)
opt = torch.optim.Adam(model.parameters(), lr=2e-2)
for epoch in range(8):
    for i in range(0, 512, 128):
        logits, masks = model(X[i:i + 128])
        entropy = sum(torch.mean(torch.sum(-m * torch.log(m + 1e-15), dim=1)) for m in masks) / len(masks)
        loss = F.cross_entropy(logits, y[i:i + 128]) + 1e-3 * entropy
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
model.eval()
with torch.no_grad():
    logits, masks = model(X)
importance = sum(m.sum(0) for m in masks)
importance = importance / importance.sum()
acc = (logits.argmax(1) == y).float().mean().item()
print(f"accuracy {acc:.3f} importance {[round(v, 3) for v in importance.tolist()]}")
assert all(torch.allclose(m.sum(1), torch.ones(512), atol=1e-5) for m in masks)
assert acc > 0.8
assert importance[1] + importance[4] > 0.4  # the two informative features get most attention
