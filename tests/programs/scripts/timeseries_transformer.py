"""A time-series forecaster built on torch.nn.Transformer the way forecasting blog posts do it: a
linear input embedding, learned positional encodings (an nn.Parameter initialised by
trunc_normal_), the encoder reading the history and the decoder the shifted target under
generate_square_subsequent_mask, trained with teacher forcing on noisy seasonal series; at test
time an autoregressive loop in eval mode extends the decoder input one step at a time. The
causal mask is checked (changing a later decoder input leaves earlier outputs), and the forecast
beats the last-value baseline."""
import math

import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
ENC_LEN, DEC_LEN, PERIOD = 24, 8, 12


def make_series(n):
    t = torch.arange(ENC_LEN + DEC_LEN).float()
    amp = torch.rand(n, 1) + 0.5
    phase = torch.rand(n, 1) * 2 * math.pi
    trend = (torch.rand(n, 1) - 0.5) * 0.05
    y = amp * torch.sin(2 * math.pi * t / PERIOD + phase) + trend * t + 0.05 * torch.randn(n, len(t))
    return y.unsqueeze(-1)  # (n, time, 1)


class TimeSeriesTransformer(nn.Module):
    def __init__(self, d_model=32, nhead=4, num_layers=2, max_len=64):
        super().__init__()
        self.encoder_input_layer = nn.Linear(1, d_model)
        self.decoder_input_layer = nn.Linear(1, d_model)
        self.pos_embedding = nn.Parameter(torch.empty(1, max_len, d_model))
        nn.init.trunc_normal_(self.pos_embedding, std=0.02)
        self.transformer = nn.Transformer(d_model=d_model, nhead=nhead,
                                          num_encoder_layers=num_layers,
                                          num_decoder_layers=num_layers,
                                          dim_feedforward=64, dropout=0.1, batch_first=True)
        self.linear_mapping = nn.Linear(d_model, 1)

    def forward(self, src, tgt, tgt_mask=None):
        src = self.encoder_input_layer(src) + self.pos_embedding[:, :src.size(1)]
        tgt = self.decoder_input_layer(tgt) + self.pos_embedding[:, ENC_LEN:ENC_LEN + tgt.size(1)]
        out = self.transformer(src, tgt, tgt_mask=tgt_mask)
        return self.linear_mapping(out)


def split(series):
    src = series[:, :ENC_LEN]
    tgt_y = series[:, ENC_LEN:]
    tgt = series[:, ENC_LEN - 1:-1]  # shifted by one: starts with the last observed value
    return src, tgt, tgt_y


model = TimeSeriesTransformer()
mask = nn.Transformer.generate_square_subsequent_mask(DEC_LEN)
assert mask.shape == (DEC_LEN, DEC_LEN) and mask[0, 1] == float("-inf") and mask[1, 0] == 0
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=50, gamma=0.5)
criterion = nn.MSELoss()
for step in range(120):
    src, tgt, tgt_y = split(make_series(32))
    pred = model(src, tgt, tgt_mask=mask)
    loss = criterion(pred, tgt_y)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()
    scheduler.step()
    if step % 40 == 0:
        print(f"step {step}  loss {loss.item():.4f}")

model.eval()
src, tgt, tgt_y = split(make_series(64))
with torch.no_grad():
    # causality of the decoder
    out1 = model(src, tgt, tgt_mask=mask)
    tgt2 = tgt.clone()
    tgt2[:, 5:] += 3.0
    out2 = model(src, tgt2, tgt_mask=mask)
    assert torch.allclose(out1[:, :5], out2[:, :5], atol=1e-5)
    assert not torch.allclose(out1[:, 5:], out2[:, 5:], atol=1e-3)
    # autoregressive forecast
    dec_in = src[:, -1:, :]
    for i in range(DEC_LEN):
        m = nn.Transformer.generate_square_subsequent_mask(dec_in.size(1))
        nxt = model(src, dec_in, tgt_mask=m)[:, -1:, :]
        dec_in = torch.cat([dec_in, nxt], dim=1)
    forecast = dec_in[:, 1:]
mse = criterion(forecast, tgt_y).item()
last_value = criterion(src[:, -1:].expand_as(tgt_y), tgt_y).item()
print(f"forecast mse {mse:.4f}, last value {last_value:.4f}")
assert mse < 0.4 * last_value
