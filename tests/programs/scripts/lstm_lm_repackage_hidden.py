"""pytorch/examples' word_language_model with an LSTM: an RNNModel (Embedding, Dropout, nn.LSTM,
a decoder Linear with tied weights when ninp == nhid), init_hidden from weight.new_zeros,
repackage_hidden detaching the (h, c) tuple between bptt chunks so backward stays in one chunk,
the manual update p.data.add_(p.grad, alpha=-lr) after clip_grad_norm_, lr annealed by 4 when the
validation loss stops improving, and the hidden state carried across chunks equal to one pass
over the whole sequence."""
import math

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(1111)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError("When using the tied flag, nhid must be equal to emsize")
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


words = ("a b c d e f a b c d e f g h " * 30).split()
vocab = sorted(set(words))
ids = torch.tensor([vocab.index(w) for w in words])
train_data = batchify(ids[:320], 4)
val_data = batchify(ids[320:], 2)
ntokens, bptt, clip = len(vocab), 10, 0.25
model = RNNModel(ntokens, 24, 24, 2, dropout=0.1, tie_weights=True)
assert model.decoder.weight is model.encoder.weight
assert len(list(model.parameters())) == len(dict(model.named_parameters()))  # the tied weight once
criterion = nn.NLLLoss()


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len].view(-1)


def evaluate(data_source):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(data_source.size(1))
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


lr = 5.0
best_val_loss = None
history = []
for epoch in range(1, 7):
    model.train()
    hidden = model.init_hidden(4)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        assert hidden[0].grad_fn is None and not hidden[0].requires_grad
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
    val_loss = evaluate(val_data)
    history.append(val_loss)
    if not best_val_loss or val_loss < best_val_loss:
        best_val_loss = val_loss
    else:
        lr /= 4.0
print("validation ppl by epoch:", [round(math.exp(v), 2) for v in history], "lr", lr)
assert math.exp(best_val_loss) < 3.0 and history[0] > 1.5 * best_val_loss

# carrying the hidden state across chunks equals one pass over the whole sequence
model.eval()
with torch.no_grad():
    full, _ = model(val_data, model.init_hidden(2))
    hidden = model.init_hidden(2)
    parts = []
    for i in range(0, val_data.size(0), bptt):
        out, hidden = model(val_data[i : i + bptt], hidden)
        hidden = repackage_hidden(hidden)
        parts.append(out.view(-1, 2, ntokens))
    assert torch.allclose(full.view(-1, 2, ntokens), torch.cat(parts), atol=1e-5)
