"""A word-level LSTM language model written as a PyTorch program (in the manner of PyTorch's
word_language_model example: a Dictionary and Corpus, batchify, get_batch, an RNNModel with tied
weights, repackage_hidden, truncated backpropagation through time with gradient clipping; Adam
rather than the example's plain SGD, which needs far more steps on a text this small), run
unchanged on minigenesis. Only PyTorch's names are used.
"""

from __future__ import annotations

import math

import minigenesis as torch
import minigenesis.nn.functional as F
from minigenesis import nn, optim

TEXT = (
    """
the cat sat on the mat . the dog sat on the log . the cat saw the dog .
the dog saw the cat . a cat and a dog sat on a mat . the mat was red .
the log was brown . the cat ran to the log . the dog ran to the mat .
"""
    * 4
)


class Dictionary:
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus:
    def __init__(self, text):
        self.dictionary = Dictionary()
        ids = []
        for line in text.strip().split("\n"):
            for word in line.split() + ["<eos>"]:
                ids.append(self.dictionary.add_word(word))
        self.train = torch.tensor(ids, dtype=torch.int64)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data[: nbatch * bsz]
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].view(-1)
    return data, target


class RNNModel(nn.Module):
    """Encoder, a recurrent module, decoder; the decoder's weight tied to the encoder's."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.2, tie_weights=True):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            assert nhid == ninp
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.rnn_type, self.nhid, self.nlayers = rnn_type, nhid, nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        zeros = torch.zeros(self.nlayers, bsz, self.nhid, dtype=weight.dtype)
        if self.rnn_type == "LSTM":
            return (zeros, zeros.clone())
        return zeros


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def evaluate(model, criterion, data_source, bptt, ntokens):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(data_source.size(1))
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i, bptt)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train_language_model(rnn_type, epochs=6, lr=0.03, bptt=6, batch_size=2, clip=1.0):
    torch.manual_seed(1111)
    corpus = Corpus(TEXT)
    train_data = batchify(corpus.train, batch_size)
    ntokens = len(corpus.dictionary)
    model = RNNModel(rnn_type, ntokens, 16, 16, 2, dropout=0.1)
    criterion = nn.NLLLoss()
    optimizer = optim.Adam(model.parameters(), lr=lr)
    losses = [evaluate(model, criterion, train_data, bptt, ntokens)]
    for _ in range(epochs):
        model.train()
        hidden = model.init_hidden(batch_size)
        for i in range(0, train_data.size(0) - 1, bptt):
            data, targets = get_batch(train_data, i, bptt)
            hidden = repackage_hidden(hidden)
            optimizer.zero_grad()
            output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
        losses.append(evaluate(model, criterion, train_data, bptt, ntokens))
    return losses, ntokens


def test_lstm_language_model_learns_the_tiny_text():
    losses, ntokens = train_language_model("LSTM")
    assert math.isclose(losses[0], math.log(ntokens), rel_tol=0.1)  # untrained: about uniform
    assert losses[-1] < 0.5 * losses[0], losses
    assert all(math.isfinite(x) for x in losses)


def test_gru_language_model_learns_the_tiny_text():
    losses, _ = train_language_model("GRU", epochs=4)
    assert losses[-1] < 0.6 * losses[0], losses
