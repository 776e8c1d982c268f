"""DeepSDF's auto-decoder (Park et al. 2019) in 2-d: no encoder, one latent code per shape in an
nn.Embedding (initialised N(0, 0.01), optimised with the decoder through two Adam parameter
groups with their own learning rates), a weight-normalised MLP (the deprecated
nn.utils.weight_norm, as DeepSDF's code uses) that maps [code, x, y] to a signed distance,
clamped L1 loss with delta = 0.1, and a code-norm penalty. At test time the decoder is frozen and
a fresh code is fitted to samples of an unseen circle: its SDF error falls well below the mean
code's."""
import math

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
num_shapes, latent_size, clamp_dist = 12, 8, 0.1


def circle_sdf(xy, center, radius):
    return (xy - center).norm(dim=-1) - radius


shape_params = [(torch.rand(2) - 0.5, 0.2 + 0.3 * torch.rand(()).item()) for _ in range(num_shapes)]


def sample_sdf(params, n=256):
    center, radius = params
    # half near the surface, half uniform, as DeepSDF's preprocessing samples
    angle = torch.rand(n // 2) * 2 * math.pi
    near = center + radius * torch.stack([angle.cos(), angle.sin()], 1) + 0.05 * torch.randn(n // 2, 2)
    xy = torch.cat([near, torch.rand(n // 2, 2) * 2 - 1])
    return xy, circle_sdf(xy, center, radius)


class Decoder(nn.Module):
    def __init__(self, latent_size, dims=(64, 64, 64), dropout_prob=0.1):
        super(Decoder, self).__init__()
        dims = [latent_size + 2] + list(dims) + [1]
        self.num_layers = len(dims)
        for layer in range(0, self.num_layers - 1):
            lin = nn.utils.weight_norm(nn.Linear(dims[layer], dims[layer + 1]))
            setattr(self, "lin" + str(layer), lin)
        self.relu = nn.ReLU()
        self.dropout_prob = dropout_prob
        self.th = nn.Tanh()

    def forward(self, input):
        x = input
        for layer in range(0, self.num_layers - 1):
            lin = getattr(self, "lin" + str(layer))
            x = lin(x)
            if layer < self.num_layers - 2:
                x = self.relu(x)
                x = F.dropout(x, p=self.dropout_prob, training=self.training)
        return self.th(x)


decoder = Decoder(latent_size)
assert hasattr(decoder.lin0, "weight_g") and hasattr(decoder.lin0, "weight_v")
lat_vecs = torch.nn.Embedding(num_shapes, latent_size, max_norm=1.0)
torch.nn.init.normal_(lat_vecs.weight.data, 0.0, 0.01)
optimizer_all = torch.optim.Adam([
    {"params": decoder.parameters(), "lr": 1e-3},
    {"params": lat_vecs.parameters(), "lr": 1e-2},
])
loss_l1 = torch.nn.L1Loss(reduction="sum")
code_reg_lambda = 1e-4
data = [sample_sdf(p) for p in shape_params]
for epoch in range(150):
    decoder.train()
    xyz = torch.cat([d[0] for d in data])
    sdf_gt = torch.cat([d[1] for d in data]).unsqueeze(1)
    indices = torch.arange(num_shapes).repeat_interleave(len(data[0][0]))
    num_sdf_samples = xyz.shape[0]
    sdf_gt = torch.clamp(sdf_gt, -clamp_dist, clamp_dist)
    optimizer_all.zero_grad()
    batch_vecs = lat_vecs(indices)
    input = torch.cat([batch_vecs, xyz], dim=1)
    pred_sdf = decoder(input)
    pred_sdf = torch.clamp(pred_sdf, -clamp_dist, clamp_dist)
    chunk_loss = loss_l1(pred_sdf, sdf_gt) / num_sdf_samples
    l2_size_loss = torch.sum(torch.norm(batch_vecs, dim=1))
    reg_loss = (code_reg_lambda * min(1, epoch / 100) * l2_size_loss) / num_sdf_samples
    chunk_loss = chunk_loss + reg_loss
    chunk_loss.backward()
    optimizer_all.step()
    if epoch % 50 == 0:
        print(f"epoch {epoch}  loss {chunk_loss.item():.5f}")
print(f"train loss {chunk_loss.item():.5f}")
assert chunk_loss.item() < 0.02


def reconstruct(decoder, num_iterations, latent_size, test_sdf, stat=0.01, clamp_dist=0.1, lr=5e-2):
    decoder.eval()
    latent = torch.ones(1, latent_size).normal_(mean=0, std=stat)
    latent.requires_grad = True
    optimizer = torch.optim.Adam([latent], lr=lr)
    loss_l1 = torch.nn.L1Loss()
    for e in range(num_iterations):
        xy, sdf_gt = test_sdf
        sdf_gt = torch.clamp(sdf_gt.unsqueeze(1), -clamp_dist, clamp_dist)
        optimizer.zero_grad()
        latent_inputs = latent.expand(xy.shape[0], -1)
        inputs = torch.cat([latent_inputs, xy], 1)
        pred_sdf = torch.clamp(decoder(inputs), -clamp_dist, clamp_dist)
        loss = loss_l1(pred_sdf, sdf_gt) + 1e-4 * torch.mean(latent.pow(2))
        loss.backward()
        optimizer.step()
    return loss.item(), latent


decoder.zero_grad(set_to_none=True)
for p in decoder.parameters():
    p.requires_grad_(False)
unseen = (torch.tensor([0.1, -0.2]), 0.35)
test_sdf = sample_sdf(unseen)
err, latent = reconstruct(decoder, 60, latent_size, test_sdf)
with torch.no_grad():
    mean_code = lat_vecs.weight.mean(0, keepdim=True).expand(len(test_sdf[0]), -1)
    base = F.l1_loss(torch.clamp(decoder(torch.cat([mean_code, test_sdf[0]], 1)), -0.1, 0.1),
                     test_sdf[1].clamp(-0.1, 0.1).unsqueeze(1)).item()
print(f"unseen shape: fitted code {err:.4f}, mean code {base:.4f}")
assert all(p.grad is None for p in decoder.parameters())
assert err < 0.7 * base
