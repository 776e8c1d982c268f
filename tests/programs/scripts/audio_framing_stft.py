"""Audio front end written the way speech people do it by hand: frames cut from a waveform with
Tensor.unfold, a periodic Hann window, the spectrum by multiplying with the real DFT's cosine and
sine matrices (and the same again as a strided Conv1d whose kernels are the windowed basis, as
conv-based STFT layers do), checked against NumPy's np.fft.rfft; a triangular mel filterbank built
from the mel formula, log-mel features, and a small 1-d convolutional classifier (Conv1d over
time, BatchNorm1d, global average pooling) that tells rising from falling chirps. Signals are
synthesised with NumPy."""
import math

import numpy as np

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

sr, n_fft, hop, n_mels = 8000, 256, 128, 24


def chirp(f0, f1, seconds, rng):
    t = np.arange(int(sr * seconds)) / sr
    phase = 2 * np.pi * (f0 * t + (f1 - f0) * t**2 / (2 * seconds))
    return (np.sin(phase) + 0.05 * rng.standard_normal(t.size)).astype(np.float32)


def dft_basis():
    n = torch.arange(n_fft, dtype=torch.float64)
    k = torch.arange(n_fft // 2 + 1, dtype=torch.float64)[:, None]
    angle = 2 * math.pi * k * n / n_fft
    return torch.cos(angle).float(), -torch.sin(angle).float()  # real and imaginary parts


def power_spectrum(wave):
    window = torch.hann_window(n_fft)  # periodic by default, as STFTs use it
    frames = wave.unfold(-1, n_fft, hop) * window  # (..., n_frames, n_fft)
    cos, sin = dft_basis()
    return (frames @ cos.T) ** 2 + (frames @ sin.T) ** 2  # (..., n_frames, n_freqs)


def power_spectrum_conv(wave):
    cos, sin = dft_basis()
    kernels = torch.cat([cos, sin]) * torch.hann_window(n_fft)
    out = F.conv1d(wave.view(-1, 1, wave.shape[-1]), kernels.unsqueeze(1), stride=hop)
    re, im = out.chunk(2, dim=1)
    return (re**2 + im**2).transpose(1, 2)


def mel_filterbank():
    hz_to_mel = lambda f: 2595.0 * math.log10(1.0 + f / 700.0)
    mel_pts = torch.linspace(hz_to_mel(0.0), hz_to_mel(sr / 2), n_mels + 2)
    hz_pts = 700.0 * (10 ** (mel_pts / 2595.0) - 1.0)
    freqs = torch.linspace(0, sr / 2, n_fft // 2 + 1)
    lower, center, upper = hz_pts[:-2, None], hz_pts[1:-1, None], hz_pts[2:, None]
    up = (freqs - lower) / (center - lower)
    down = (upper - freqs) / (upper - center)
    return torch.clamp(torch.minimum(up, down), min=0.0)  # (n_mels, n_freqs)


def log_mel(wave):
    power = power_spectrum(wave)
    return torch.log(power @ mel_filterbank().T + 1e-6).transpose(-1, -2)  # (..., n_mels, frames)


rng = np.random.default_rng(0)
wave_np = chirp(300, 2500, 0.5, rng)
wave = torch.from_numpy(wave_np)
mine = power_spectrum(wave)
idx = np.arange(n_fft)[None, :] + hop * np.arange(mine.shape[0])[:, None]
hann = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)
ref = np.abs(np.fft.rfft(wave_np[idx] * hann, axis=-1)) ** 2
err = np.abs(mine.numpy() - ref).max() / ref.max()
conv_err = ((power_spectrum_conv(wave)[0] - mine).abs().max() / mine.max()).item()
print("frames %d, bins %d, relative error against np.fft.rfft %.2e, conv1d path %.2e" % (mine.shape[0], mine.shape[1], err, conv_err))
assert err < 1e-5 and conv_err < 1e-5 and mine.shape == ref.shape
fb = mel_filterbank()
assert fb.shape == (n_mels, n_fft // 2 + 1) and torch.all(fb.max(dim=1).values > 0.5)

waves, labels = [], []
for i in range(64):
    lo, hi = rng.uniform(200, 800), rng.uniform(1500, 3500)
    up = i % 2 == 0
    waves.append(chirp(lo, hi, 0.5, rng) if up else chirp(hi, lo, 0.5, rng))
    labels.append(int(up))
feats = log_mel(torch.from_numpy(np.stack(waves)))
feats = (feats - feats.mean()) / feats.std()
y = torch.tensor(labels)
print("log-mel batch", tuple(feats.shape))

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv1d(n_mels, 32, kernel_size=5, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
    nn.Conv1d(32, 32, kernel_size=5, padding=2, dilation=1), nn.ReLU(),
    nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(32, 2),
)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(40):
    loss = F.cross_entropy(model(feats[:48]), y[:48])
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()
with torch.no_grad():
    acc = (model(feats[48:]).argmax(1) == y[48:]).float().mean().item()
print("train loss %.4f, held-out accuracy %.3f" % (loss.item(), acc))
assert acc >= 0.9
