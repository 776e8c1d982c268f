"""Next-frame prediction with a ConvLSTM cell (Shi et al.), as the popular single-file
implementations write it: the four gates from one Conv2d over torch.cat([input, h], dim=1),
torch.split into i, f, o, g, hidden state initialised with torch.zeros(..., device=...), a
sequence unrolled in Python over a moving-square video, and predictions checked to beat copying
the last frame."""
import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)


class ConvLSTMCell(nn.Module):
    def __init__(self, input_dim, hidden_dim, kernel_size, bias=True):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.padding = kernel_size[0] // 2, kernel_size[1] // 2
        self.conv = nn.Conv2d(input_dim + hidden_dim, 4 * hidden_dim, kernel_size, padding=self.padding, bias=bias)

    def forward(self, input_tensor, cur_state):
        h_cur, c_cur = cur_state
        combined = torch.cat([input_tensor, h_cur], dim=1)
        combined_conv = self.conv(combined)
        cc_i, cc_f, cc_o, cc_g = torch.split(combined_conv, self.hidden_dim, dim=1)
        i = torch.sigmoid(cc_i)
        f = torch.sigmoid(cc_f)
        o = torch.sigmoid(cc_o)
        g = torch.tanh(cc_g)
        c_next = f * c_cur + i * g
        h_next = o * torch.tanh(c_next)
        return h_next, c_next

    def init_hidden(self, batch_size, image_size):
        height, width = image_size
        return (torch.zeros(batch_size, self.hidden_dim, height, width, device=self.conv.weight.device),
                torch.zeros(batch_size, self.hidden_dim, height, width, device=self.conv.weight.device))


class Predictor(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = ConvLSTMCell(1, 8, (3, 3))
        self.out = nn.Conv2d(8, 1, 1)

    def forward(self, frames):  # (B, T, 1, H, W) -> predictions of frames 1..T
        b, t, _, h, w = frames.shape
        state = self.cell.init_hidden(b, (h, w))
        preds = []
        for step in range(t - 1):
            state = self.cell(frames[:, step], state)
            preds.append(torch.sigmoid(self.out(state[0])))
        return torch.stack(preds, dim=1)


def videos(n, t=5, size=8):
    v = torch.zeros(n, t, 1, size, size)
    r = torch.randint(0, size - 2, (n,))
    c = torch.randint(0, 3, (n,))
    for k in range(n):
        for s in range(t):
            v[k, s, 0, r[k]:r[k] + 2, c[k] + s:c[k] + s + 2] = 1.0
    return v


train, test = videos(16), videos(8)
model = Predictor()
opt = torch.optim.Adam(model.parameters(), lr=2e-2)
bce = nn.BCELoss()
for epoch in range(40):
    loss = bce(model(train), train[:, 1:])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 8 == 0:
        print(f"epoch {epoch} bce {loss.item():.4f}")
with torch.no_grad():
    mse = ((model(test) - test[:, 1:]) ** 2).mean().item()
    copy_last = ((test[:, :-1] - test[:, 1:]) ** 2).mean().item()
print(f"prediction mse {mse:.4f} copy-last-frame mse {copy_last:.4f}")
assert mse < 0.8 * copy_last
