"""d2l.ai's GRU from scratch: parameters from torch.randn(shape) * 0.01 in a get_params function,
three (W_x, W_h, b) triples, init_gru_state returning a tuple, a Python loop over time steps
with the reset and update gates, an output layer, grad_clipping by the global norm over
params, and predict by warm-up then greedy decoding; trained on a periodic character sequence
with one-hot inputs via F.one_hot(X.T, vocab_size), perplexity as exp of the mean loss."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
text = "the quick brown fox jumps over the lazy dog " * 30
vocab = sorted(set(text))
vocab_size = len(vocab)
idx = {c: i for i, c in enumerate(vocab)}
corpus = torch.tensor([idx[c] for c in text])
num_steps, batch_size, num_hiddens = 12, 16, 48


def seq_data_iter_sequential(corpus, batch_size, num_steps):
    offset = int(torch.randint(0, num_steps, (1,)))
    num_tokens = ((len(corpus) - offset - 1) // batch_size) * batch_size
    Xs = corpus[offset: offset + num_tokens].reshape(batch_size, -1)
    Ys = corpus[offset + 1: offset + 1 + num_tokens].reshape(batch_size, -1)
    num_batches = Xs.shape[1] // num_steps
    for i in range(0, num_steps * num_batches, num_steps):
        yield Xs[:, i: i + num_steps], Ys[:, i: i + num_steps]


def get_params(vocab_size, num_hiddens):
    num_inputs = num_outputs = vocab_size

    def normal(shape):
        return torch.randn(size=shape) * 0.01

    def three():
        return (normal((num_inputs, num_hiddens)), normal((num_hiddens, num_hiddens)), torch.zeros(num_hiddens))

    W_xz, W_hz, b_z = three()
    W_xr, W_hr, b_r = three()
    W_xh, W_hh, b_h = three()
    W_hq = normal((num_hiddens, num_outputs))
    b_q = torch.zeros(num_outputs)
    params = [W_xz, W_hz, b_z, W_xr, W_hr, b_r, W_xh, W_hh, b_h, W_hq, b_q]
    for param in params:
        param.requires_grad_(True)
    return params


def init_gru_state(batch_size, num_hiddens):
    return (torch.zeros((batch_size, num_hiddens)),)


def gru(inputs, state, params):
    W_xz, W_hz, b_z, W_xr, W_hr, b_r, W_xh, W_hh, b_h, W_hq, b_q = params
    (H,) = state
    outputs = []
    for X in inputs:
        Z = torch.sigmoid((X @ W_xz) + (H @ W_hz) + b_z)
        R = torch.sigmoid((X @ W_xr) + (H @ W_hr) + b_r)
        H_tilda = torch.tanh((X @ W_xh) + ((R * H) @ W_hh) + b_h)
        H = Z * H + (1 - Z) * H_tilda
        Y = H @ W_hq + b_q
        outputs.append(Y)
    return torch.cat(outputs, dim=0), (H,)


class RNNModelScratch:
    def __init__(self, vocab_size, num_hiddens, get_params, init_state, forward_fn):
        self.vocab_size, self.num_hiddens = vocab_size, num_hiddens
        self.params = get_params(vocab_size, num_hiddens)
        self.init_state, self.forward_fn = init_state, forward_fn

    def __call__(self, X, state):
        X = F.one_hot(X.T, self.vocab_size).type(torch.float32)
        return self.forward_fn(X, state, self.params)

    def begin_state(self, batch_size):
        return self.init_state(batch_size, self.num_hiddens)


def grad_clipping(net, theta):
    params = net.params
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm
    return norm


def predict(prefix, num_preds, net):
    state = net.begin_state(batch_size=1)
    outputs = [idx[prefix[0]]]
    get_input = lambda: torch.tensor([outputs[-1]]).reshape((1, 1))
    for y in prefix[1:]:
        _, state = net(get_input(), state)
        outputs.append(idx[y])
    for _ in range(num_preds):
        y, state = net(get_input(), state)
        outputs.append(int(y.argmax(dim=1).reshape(1)))
    return "".join([vocab[i] for i in outputs])


# grad_clipping scales to the threshold exactly
probe = RNNModelScratch(vocab_size, 8, get_params, init_gru_state, gru)
for p in probe.params:
    p.grad = torch.ones_like(p)
total = math.sqrt(sum(p.numel() for p in probe.params))
assert abs(float(grad_clipping(probe, 1.0)) - total) < 1e-3
assert abs(float(torch.sqrt(sum((p.grad ** 2).sum() for p in probe.params))) - 1.0) < 1e-5

net = RNNModelScratch(vocab_size, num_hiddens, get_params, init_gru_state, gru)
lr = 4.0
loss_fn = nn.CrossEntropyLoss()
for epoch in range(25):
    state = None
    total_loss, n = 0.0, 0
    for X, Y in seq_data_iter_sequential(corpus, batch_size, num_steps):
        if state is None:
            state = net.begin_state(batch_size=X.shape[0])
        else:
            for s in state:
                s.detach_()
        y = Y.T.reshape(-1)
        y_hat, state = net(X, state)
        l = loss_fn(y_hat, y.long()).mean()
        for p in net.params:
            if p.grad is not None:
                p.grad.zero_()
        l.backward()
        grad_clipping(net, 1)
        with torch.no_grad():
            for p in net.params:
                p -= lr * p.grad
        total_loss += l.item() * y.numel()
        n += y.numel()
    ppl = math.exp(total_loss / n)
    if epoch % 5 == 4:
        print(f"epoch {epoch + 1}: perplexity {ppl:.2f}", predict("the ", 20, net))
assert ppl < 1.5, ppl
out = predict("the quick ", 30, net)
print(out)
assert out.startswith("the quick brown fox jumps over"), out
