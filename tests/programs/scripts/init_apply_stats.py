"""torch.nn.init on a custom module through model.apply(init_weights): xavier_uniform_ stays in its
bound, kaiming_normal_ (fan_out, relu) has its variance, orthogonal_ gives orthonormal rows,
constant_/zeros_ biases, trunc_normal_ within a and b, a custom Parameter initialised by
uniform_; and calculate_gain's values."""
import math

import minigenesis as torch
import minigenesis.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(16, 64, 3)
        self.fc = nn.Linear(256, 128)
        self.rnn_like = nn.Linear(128, 128, bias=False)
        self.emb = nn.Embedding(1000, 32)
        self.temperature = nn.Parameter(torch.empty(1))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.uniform_(self.temperature, 0.5, 1.5)


def init_weights(m):
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Linear) and m.bias is not None:
        nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("tanh"))
        nn.init.constant_(m.bias, 0.01)
    elif isinstance(m, nn.Linear):
        nn.init.orthogonal_(m.weight)
    elif isinstance(m, nn.Embedding):
        nn.init.trunc_normal_(m.weight, std=0.5, a=-1.0, b=1.0)


torch.manual_seed(0)
model = Block()
visited = []
model.apply(lambda m: visited.append(type(m).__name__))
assert visited[-1] == "Block" and "Conv2d" in visited
model.apply(init_weights)
conv_std = model.conv.weight.std().item()
expected = math.sqrt(2.0) / math.sqrt(64 * 9)
print("kaiming std %.4f expected %.4f" % (conv_std, expected))
assert abs(conv_std - expected) < 0.05 * expected and model.conv.bias.abs().sum() == 0
bound = 5.0 / 3 * math.sqrt(6.0 / (256 + 128))
assert model.fc.weight.abs().max().item() <= bound and model.fc.weight.abs().max().item() > 0.95 * bound
assert torch.all(model.fc.bias == 0.01)
w = model.rnn_like.weight
assert torch.allclose(w @ w.t(), torch.eye(128), atol=1e-4)
e = model.emb.weight
assert e.min().item() >= -1.0 and e.max().item() <= 1.0 and e.requires_grad
assert 0.5 <= model.temperature.item() <= 1.5
gains = [nn.init.calculate_gain(n) for n in ("linear", "relu", "tanh", "selu")]
gains.append(nn.init.calculate_gain("leaky_relu", 0.2))
print("gains", ["%.4f" % g for g in gains])
assert gains[:3] == [1, math.sqrt(2.0), 5.0 / 3] and abs(gains[3] - 0.75) < 1e-12
assert abs(gains[4] - math.sqrt(2.0 / 1.04)) < 1e-12
fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(model.conv.weight)
assert (fan_in, fan_out) == (16 * 9, 64 * 9)
with torch.no_grad():
    out = model.fc(torch.randn(8, 256))
assert out.shape == (8, 128)
