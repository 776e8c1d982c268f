"""The "Language Modeling with nn.Transformer" tutorial on a tiny repeating corpus: batchify into
bsz columns (narrow then view(bsz, -1).t().contiguous()), get_batch with bptt and target.reshape(-1),
a TransformerModel (nn.TransformerEncoder, a PositionalEncoding buffer of shape (max_len, 1, d),
embedding scaled by sqrt(d_model), uniform_ init), nn.Transformer.generate_square_subsequent_mask,
clip_grad_norm_(0.5), SGD with StepLR, evaluate() under no_grad with the loss weighted by
len(data), perplexity falling, and causality: changing a later token leaves earlier outputs alone."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import TransformerEncoder, TransformerEncoderLayer

torch.manual_seed(0)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[: x.size(0)]
        return self.dropout(x)


class TransformerModel(nn.Module):
    def __init__(self, ntoken, d_model, nhead, d_hid, nlayers, dropout=0.5):
        super().__init__()
        self.model_type = "Transformer"
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers, enable_nested_tensor=False)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)
        self.init_weights()

    def init_weights(self):
        initrange = 0.1
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.linear.bias.data.zero_()
        self.linear.weight.data.uniform_(-initrange, initrange)

    def forward(self, src, src_mask=None):
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        if src_mask is None:
            src_mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        output = self.transformer_encoder(src, src_mask)
        output = self.linear(output)
        return output


text = "the quick brown fox jumps over the lazy dog . " * 40
vocab = sorted(set(text.split()))
stoi = {w: i for i, w in enumerate(vocab)}
data_all = torch.tensor([stoi[w] for w in text.split()], dtype=torch.long)


def batchify(data, bsz):
    seq_len = data.size(0) // bsz
    data = data[: seq_len * bsz]
    data = data.view(bsz, seq_len).t().contiguous()
    return data


train_data = batchify(data_all[:300], 4)
val_data = batchify(data_all[300:], 2)
assert train_data.shape == (75, 4) and torch.equal(train_data[:, 1], data_all[75:150])
bptt = 12


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].reshape(-1)
    return data, target


ntokens = len(vocab)
model = TransformerModel(ntokens, 32, 2, 64, 2, dropout=0.1)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)
mask = nn.Transformer.generate_square_subsequent_mask(4)
assert torch.equal(mask, torch.triu(torch.full((4, 4), float("-inf")), diagonal=1))


def evaluate(model, eval_data):
    model.eval()
    total_loss = 0.0
    with torch.no_grad():
        for i in range(0, eval_data.size(0) - 1, bptt):
            data, targets = get_batch(eval_data, i)
            seq_len = data.size(0)
            output = model(data)
            output_flat = output.view(-1, ntokens)
            total_loss += seq_len * criterion(output_flat, targets).item()
    return total_loss / (len(eval_data) - 1)


ppl0 = math.exp(evaluate(model, val_data))
for epoch in range(1, 5):
    model.train()
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        output = model(data)
        loss = criterion(output.view(-1, ntokens), targets)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
    scheduler.step()
ppl = math.exp(evaluate(model, val_data))
print(f"validation perplexity {ppl0:.2f} -> {ppl:.2f}, lr {scheduler.get_last_lr()[0]:.4f}")
assert ppl < 2.0 < ppl0
assert abs(scheduler.get_last_lr()[0] - 0.95**4) < 1e-9

model.eval()
with torch.no_grad():
    src = val_data[:10, :1].clone()
    out1 = model(src)
    src[7, 0] = (src[7, 0] + 1) % ntokens
    out2 = model(src)
assert torch.allclose(out1[:7], out2[:7], atol=1e-5) and not torch.allclose(out1[7:], out2[7:])
