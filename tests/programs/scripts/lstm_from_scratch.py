"""An LSTM written by hand as in blog posts that explain it: one weight matrix for the four
gates, torch.chunk into input/forget/cell/output, sigmoid and tanh, stepping a Python loop; its
weights copied into nn.LSTM (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0), and the two
giving the same outputs, final states and gradients; then trained as a sequence classifier."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F


class NaiveLSTM(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.W = nn.Parameter(torch.empty(input_size, 4 * hidden_size))
        self.U = nn.Parameter(torch.empty(hidden_size, 4 * hidden_size))
        self.b = nn.Parameter(torch.empty(4 * hidden_size))
        std = 1.0 / hidden_size**0.5
        for w in self.parameters():
            w.data.uniform_(-std, std)

    def forward(self, x, init_states=None):
        bs, seq_sz, _ = x.size()
        hidden_seq = []
        if init_states is None:
            h_t, c_t = (torch.zeros(bs, self.hidden_size), torch.zeros(bs, self.hidden_size))
        else:
            h_t, c_t = init_states
        for t in range(seq_sz):
            gates = x[:, t, :] @ self.W + h_t @ self.U + self.b
            i_t, f_t, g_t, o_t = gates.chunk(4, dim=1)
            i_t, f_t, g_t, o_t = torch.sigmoid(i_t), torch.sigmoid(f_t), torch.tanh(g_t), torch.sigmoid(o_t)
            c_t = f_t * c_t + i_t * g_t
            h_t = o_t * torch.tanh(c_t)
            hidden_seq.append(h_t.unsqueeze(0))
        hidden_seq = torch.cat(hidden_seq, dim=0).transpose(0, 1).contiguous()
        return hidden_seq, (h_t, c_t)


torch.manual_seed(0)
naive = NaiveLSTM(3, 5)
ref = nn.LSTM(3, 5, batch_first=True)
with torch.no_grad():
    ref.weight_ih_l0.copy_(naive.W.t())
    ref.weight_hh_l0.copy_(naive.U.t())
    ref.bias_ih_l0.copy_(naive.b)
    ref.bias_hh_l0.zero_()
x = torch.randn(4, 7, 3)
h0, c0 = torch.randn(4, 5), torch.randn(4, 5)
out_n, (hn_n, cn_n) = naive(x, (h0, c0))
out_r, (hn_r, cn_r) = ref(x, (h0.unsqueeze(0), c0.unsqueeze(0)))
assert torch.allclose(out_n, out_r, atol=1e-6)
assert torch.allclose(hn_n, hn_r[0], atol=1e-6) and torch.allclose(cn_n, cn_r[0], atol=1e-6)
(out_n.sum() + cn_n.pow(2).sum()).backward()
(out_r.sum() + cn_r.pow(2).sum()).backward()
assert torch.allclose(naive.W.grad, ref.weight_ih_l0.grad.t(), atol=1e-5)
assert torch.allclose(naive.U.grad, ref.weight_hh_l0.grad.t(), atol=1e-5)
assert torch.allclose(naive.b.grad, ref.bias_hh_l0.grad, atol=1e-5)

# train it: is the running sum of the first input feature positive at the end?
model, head = NaiveLSTM(3, 16), nn.Linear(16, 2)
opt = torch.optim.RMSprop(list(model.parameters()) + list(head.parameters()), lr=1e-2)
for step in range(80):
    xb = torch.randn(32, 10, 3)
    yb = (xb[:, :, 0].sum(1) > 0).long()
    _, (h, _) = model(xb)
    loss = F.cross_entropy(head(h), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    xb = torch.randn(200, 10, 3)
    acc = (head(model(xb)[1][0]).argmax(1) == (xb[:, :, 0].sum(1) > 0).long()).float().mean().item()
print(f"same as nn.LSTM; trained accuracy {acc:.3f}")
assert acc > 0.85
