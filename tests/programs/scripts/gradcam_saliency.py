"""Grad-CAM and saliency maps as the interpretability tutorials write them: a CNN trained to find
a bright square, a forward hook storing the last conv block's activations and
output.register_hook storing their gradient, the class score backpropagated with
one_hot-style indexing, channel weights by global-average-pooling the gradients, ReLU of the
weighted sum, F.interpolate(mode="bilinear") up to the input size and min-max normalised; and a
vanilla saliency map from the input's gradient; both peak on the square."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
S = 16


def images(n):
    x = 0.2 * torch.randn(n, 1, S, S)
    y = torch.randint(0, 2, (n,))
    rc = torch.randint(0, S - 4, (n, 2))
    for i in range(n):
        if y[i] == 1:
            r, c = rc[i].tolist()
            x[i, 0, r:r + 4, c:c + 4] += 1.5
    return x, y, rc


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.classifier = nn.Linear(16, 2)

    def forward(self, x):
        return self.classifier(F.adaptive_max_pool2d(self.features(x), 1).flatten(1))


X, Y, _ = images(256)
model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(8):
    for i in range(0, 256, 32):
        loss = F.cross_entropy(model(X[i:i + 32]), Y[i:i + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
print(f"loss {loss.item():.4f}")


class GradCAM:
    def __init__(self, model, target_layer):
        self.model, self.activations, self.gradients = model, None, None
        self.handle = target_layer.register_forward_hook(self.save)

    def save(self, module, input, output):
        self.activations = output.detach()

        def grad_hook(grad):
            self.gradients = grad.detach()

        output.register_hook(grad_hook)

    def __call__(self, x, class_idx=None):
        self.model.zero_grad()
        logits = self.model(x)
        if class_idx is None:
            class_idx = logits.argmax(dim=1)
        score = logits.gather(1, class_idx.view(-1, 1)).sum()
        score.backward()
        weights = self.gradients.mean(dim=(2, 3), keepdim=True)
        cam = F.relu((weights * self.activations).sum(dim=1, keepdim=True))
        cam = F.interpolate(cam, size=x.shape[-2:], mode="bilinear", align_corners=False)
        flat = cam.flatten(1)
        lo, hi = flat.min(1, keepdim=True)[0], flat.max(1, keepdim=True)[0]
        return ((flat - lo) / (hi - lo + 1e-8)).view_as(cam)


model.eval()
Xt, Yt, rc = images(64)
pos = Yt == 1
cam = GradCAM(model, model.features[-1])(Xt[pos], torch.ones(int(pos.sum()), dtype=torch.long))
assert cam.shape == (int(pos.sum()), 1, S, S) and cam.min() >= 0 and cam.max() <= 1

x = Xt[pos].clone().requires_grad_(True)
model(x)[:, 1].sum().backward()
saliency = x.grad.abs().amax(dim=1)


def inside(maps, rc):
    hits = 0
    for m, (r, c) in zip(maps, rc.tolist()):
        idx = int(m.flatten().argmax())
        rr, cc = divmod(idx, S)
        hits += (r - 1 <= rr <= r + 4) and (c - 1 <= cc <= c + 4)
    return hits / len(maps)


cam_hits, sal_hits = inside(cam[:, 0], rc[pos]), inside(saliency, rc[pos])
acc = (model(Xt).argmax(1) == Yt).float().mean().item()
print(f"accuracy {acc:.3f}, Grad-CAM peak on the square {cam_hits:.3f}, saliency {sal_hits:.3f}")
assert acc > 0.9 and cam_hits > 0.8 and sal_hits > 0.8
