"""The "Sequence Models and Long Short-Term Memory Networks" tutorial's part-of-speech tagger: a
word_to_ix vocabulary built by a loop, prepare_sequence turning words into a LongTensor, an
LSTMTagger (nn.Embedding, nn.LSTM over view(len(sentence), 1, -1), nn.Linear, F.log_softmax) trained
one sentence at a time with model.zero_grad(), NLLLoss and SGD(lr=0.1); the tags read back by argmax
under torch.no_grad() and the LSTM's last output equal to its returned hidden state."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.optim as optim

torch.manual_seed(1)


def prepare_sequence(seq, to_ix):
    idxs = [to_ix[w] for w in seq]
    return torch.tensor(idxs, dtype=torch.long)


training_data = [
    ("The dog ate the apple".split(), ["DET", "NN", "V", "DET", "NN"]),
    ("Everybody read that book".split(), ["NN", "V", "DET", "NN"]),
    ("The cat read a book".split(), ["DET", "NN", "V", "DET", "NN"]),
    ("A dog saw the cat".split(), ["DET", "NN", "V", "DET", "NN"]),
]
word_to_ix = {}
for sent, tags in training_data:
    for word in sent:
        if word not in word_to_ix:
            word_to_ix[word] = len(word_to_ix)
tag_to_ix = {"DET": 0, "NN": 1, "V": 2}
ix_to_tag = {v: k for k, v in tag_to_ix.items()}
EMBEDDING_DIM = 6
HIDDEN_DIM = 6


class LSTMTagger(nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super(LSTMTagger, self).__init__()
        self.hidden_dim = hidden_dim
        self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim)
        self.hidden2tag = nn.Linear(hidden_dim, tagset_size)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        tag_scores = F.log_softmax(tag_space, dim=1)
        return tag_scores


model = LSTMTagger(EMBEDDING_DIM, HIDDEN_DIM, len(word_to_ix), len(tag_to_ix))
loss_function = nn.NLLLoss()
optimizer = optim.SGD(model.parameters(), lr=0.1)

with torch.no_grad():
    inputs = prepare_sequence(training_data[0][0], word_to_ix)
    before = model(inputs)
    assert torch.allclose(before.exp().sum(1), torch.ones(5), atol=1e-5)

losses = []
for epoch in range(150):
    total = 0.0
    for sentence, tags in training_data:
        model.zero_grad()
        sentence_in = prepare_sequence(sentence, word_to_ix)
        targets = prepare_sequence(tags, tag_to_ix)
        tag_scores = model(sentence_in)
        loss = loss_function(tag_scores, targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    losses.append(total / len(training_data))

with torch.no_grad():
    correct = 0
    count = 0
    for sentence, tags in training_data:
        pred = model(prepare_sequence(sentence, word_to_ix)).argmax(dim=1)
        correct += sum(ix_to_tag[p.item()] == t for p, t in zip(pred, tags))
        count += len(tags)
    emb = model.word_embeddings(prepare_sequence(training_data[2][0], word_to_ix))
    out, (h, c) = model.lstm(emb.view(5, 1, -1))
    assert torch.allclose(out[-1], h[0])
print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}, tag accuracy {correct}/{count}")
assert losses[-1] < 0.3 * losses[0]
assert correct == count
