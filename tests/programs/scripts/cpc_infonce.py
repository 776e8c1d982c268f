"""Contrastive predictive coding (van den Oord et al. 2018) on 1-d signals, in the shape of the
common CPC re-implementations: a strided Conv1d encoder to latents z_t, a GRU over them for the
context c_t (initial hidden state passed explicitly), one nn.Linear per prediction step k, and the
InfoNCE loss where the other sequences of the batch are the negatives: for each k, the matrix
torch.mm(z_{t+k}, W_k c_t ^T) is scored by log_softmax along a row and the diagonal is the
positive. Contrastive accuracy rises far above chance, and the context linearly predicts the
signal's frequency, which no single latent frame fixes."""
import numpy as np

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)


class CDCK2(nn.Module):
    def __init__(self, timestep, batch_size, seq_len, z_dim=32, c_dim=32):
        super(CDCK2, self).__init__()
        self.batch_size = batch_size
        self.seq_len = seq_len
        self.timestep = timestep
        self.encoder = nn.Sequential(  # downsampling factor = 4
            nn.Conv1d(1, z_dim, kernel_size=4, stride=2, padding=1, bias=False),
            nn.BatchNorm1d(z_dim),
            nn.ReLU(inplace=True),
            nn.Conv1d(z_dim, z_dim, kernel_size=4, stride=2, padding=1, bias=False),
            nn.BatchNorm1d(z_dim),
            nn.ReLU(inplace=True),
        )
        self.gru = nn.GRU(z_dim, c_dim, num_layers=1, bidirectional=False, batch_first=True)
        self.Wk = nn.ModuleList([nn.Linear(c_dim, z_dim) for i in range(timestep)])
        self.softmax = nn.Softmax(dim=1)
        self.lsoftmax = nn.LogSoftmax(dim=1)

        def _weights_init(m):
            if isinstance(m, nn.Linear):
                nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')
            if isinstance(m, nn.Conv1d):
                nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')
            elif isinstance(m, nn.BatchNorm1d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

        for layer_p in self.gru._all_weights:
            for p in layer_p:
                if 'weight' in p:
                    nn.init.kaiming_normal_(self.gru.__getattr__(p), mode='fan_out', nonlinearity='relu')
        self.apply(_weights_init)

    def init_hidden(self, batch_size):
        return torch.zeros(1, batch_size, self.gru.hidden_size)

    def forward(self, x, hidden):
        batch = x.size()[0]
        frames = self.seq_len // 4
        t_samples = torch.randint(frames - self.timestep, size=(1,)).long()  # randomly pick time stamps
        z = self.encoder(x)
        z = z.transpose(1, 2)  # (N, frames, z_dim)
        nce = 0
        encode_samples = torch.empty((self.timestep, batch, z.size(2))).float()
        for i in np.arange(1, self.timestep + 1):
            encode_samples[i - 1] = z[:, t_samples + i, :].view(batch, z.size(2))
        forward_seq = z[:, :t_samples + 1, :]
        output, hidden = self.gru(forward_seq, hidden)
        c_t = output[:, t_samples, :].view(batch, -1)
        pred = torch.empty((self.timestep, batch, z.size(2))).float()
        for i in np.arange(0, self.timestep):
            linear = self.Wk[i]
            pred[i] = linear(c_t)
        correct = 0
        for i in np.arange(0, self.timestep):
            total = torch.mm(encode_samples[i], torch.transpose(pred[i], 0, 1))  # e.g. size 8*8
            correct += torch.sum(torch.eq(torch.argmax(self.softmax(total), dim=0), torch.arange(0, batch)))
            nce += torch.sum(torch.diag(self.lsoftmax(total)))  # nce is a tensor
        nce /= -1. * batch * self.timestep
        accuracy = 1. * correct.item() / (batch * self.timestep)
        return accuracy, nce, hidden

    def predict(self, x, hidden):
        z = self.encoder(x).transpose(1, 2)
        output, hidden = self.gru(z, hidden)
        return output, hidden


def make_batch(n, seq_len):
    freq = np.random.uniform(0.02, 0.12, size=(n, 1))
    phase = np.random.uniform(0, 2 * np.pi, size=(n, 1))
    t = np.arange(seq_len)[None, :]
    x = np.sin(2 * np.pi * freq * t + phase) + 0.1 * np.random.randn(n, seq_len)
    return torch.from_numpy(x).float().unsqueeze(1), torch.from_numpy(freq).float()


batch_size, seq_len, timestep = 32, 128, 4
model = CDCK2(timestep, batch_size, seq_len)
optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()),
                             lr=2e-3, betas=(0.9, 0.98), eps=1e-09, weight_decay=1e-4, amsgrad=True)
accs = []
for step in range(100):
    data, _ = make_batch(batch_size, seq_len)
    hidden = model.init_hidden(len(data))
    optimizer.zero_grad()
    acc, loss, hidden = model(data, hidden)
    loss.backward()
    optimizer.step()
    accs.append(acc)
    if step % 25 == 0:
        print(f"step {step}  nce {loss.item():.4f}  accuracy {acc:.3f}")
late_acc = sum(accs[-10:]) / 10
print(f"contrastive accuracy {late_acc:.3f} (chance {1 / batch_size:.3f})")
assert late_acc > 8 / batch_size

# a linear probe on the final context recovers the frequency
model.eval()
with torch.no_grad():
    x, freq = make_batch(256, seq_len)
    c, _ = model.predict(x, model.init_hidden(256))
    feats = torch.cat([c[:, -1], torch.ones(256, 1)], 1)
    coef = torch.linalg.lstsq(feats[:192], freq[:192]).solution
    r2 = 1 - ((feats[192:] @ coef - freq[192:]) ** 2).sum() / ((freq[192:] - freq[192:].mean()) ** 2).sum()
print(f"frequency probe R^2 {r2.item():.3f}")
assert r2 > 0.5
