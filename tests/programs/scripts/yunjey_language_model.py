"""yunjey's pytorch-tutorial language model: Dictionary and Corpus classes reading a text file
word by word with an <eos> token, ids.view(batch_size, -1) batching, an RNNLM (Embedding, LSTM
with batch_first, Linear over out.reshape(out.size(0) * out.size(1), out.size(2))), truncated
backpropagation with detach(states), clip_grad_norm_(model.parameters(), 0.5), perplexity by
np.exp(loss.item()), and sampling with torch.multinomial(prob, num_samples=1).item() and
input.fill_(word_id), writing the sample to a file; the sampler's frequencies checked against
the softmax and the sample against the grammar of the training text."""
import os
import shutil
import tempfile

import numpy as np
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.nn.utils import clip_grad_norm_

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# Hyper-parameters
embed_size = 32
hidden_size = 64
num_layers = 1
num_epochs = 8
num_samples = 40
batch_size = 10
seq_length = 15
learning_rate = 0.005


class Dictionary(object):
    def __init__(self):
        self.word2idx = {}
        self.idx2word = {}
        self.idx = 0

    def add_word(self, word):
        if word not in self.word2idx:
            self.word2idx[word] = self.idx
            self.idx2word[self.idx] = word
            self.idx += 1

    def __len__(self):
        return len(self.word2idx)


class Corpus(object):
    def __init__(self):
        self.dictionary = Dictionary()

    def get_data(self, path, batch_size=20):
        with open(path, "r") as f:
            tokens = 0
            for line in f:
                words = line.split() + ["<eos>"]
                tokens += len(words)
                for word in words:
                    self.dictionary.add_word(word)
        ids = torch.LongTensor(tokens)
        token = 0
        with open(path, "r") as f:
            for line in f:
                words = line.split() + ["<eos>"]
                for word in words:
                    ids[token] = self.dictionary.word2idx[word]
                    token += 1
        num_batches = ids.size(0) // batch_size
        ids = ids[: num_batches * batch_size]
        return ids.view(batch_size, -1)


torch.manual_seed(0)
np.random.seed(0)
subjects, verbs, objects = ["the cat", "a dog", "my bird"], ["sees", "likes"], ["the fish", "a ball", "some seeds"]
lines = [f"{subjects[np.random.randint(3)]} {verbs[np.random.randint(2)]} {objects[np.random.randint(3)]}" for _ in range(400)]

tmp = tempfile.mkdtemp()
train_path = os.path.join(tmp, "train.txt")
with open(train_path, "w") as f:
    f.write("\n".join(lines) + "\n")
corpus = Corpus()
ids = corpus.get_data(train_path, batch_size)
vocab_size = len(corpus.dictionary)
num_batches = ids.size(1) // seq_length
assert vocab_size == 13 and ids.shape == (batch_size, 400 * 6 // batch_size)


class RNNLM(nn.Module):
    def __init__(self, vocab_size, embed_size, hidden_size, num_layers):
        super(RNNLM, self).__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.lstm = nn.LSTM(embed_size, hidden_size, num_layers, batch_first=True)
        self.linear = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, h):
        x = self.embed(x)
        out, (h, c) = self.lstm(x, h)
        out = out.reshape(out.size(0) * out.size(1), out.size(2))
        out = self.linear(out)
        return out, (h, c)


model = RNNLM(vocab_size, embed_size, hidden_size, num_layers).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)


def detach(states):
    return [state.detach() for state in states]


for epoch in range(num_epochs):
    states = (torch.zeros(num_layers, batch_size, hidden_size).to(device),
              torch.zeros(num_layers, batch_size, hidden_size).to(device))
    for i in range(0, ids.size(1) - seq_length, seq_length):
        inputs = ids[:, i:i + seq_length].to(device)
        targets = ids[:, (i + 1):(i + 1) + seq_length].to(device)
        states = detach(states)
        outputs, states = model(inputs, states)
        loss = criterion(outputs, targets.reshape(-1))
        model.zero_grad()
        loss.backward()
        clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        step = (i + 1) // seq_length
    print("Epoch [{}/{}], Step[{}/{}], Loss: {:.4f}, Perplexity: {:5.2f}".format(
        epoch + 1, num_epochs, step, num_batches, loss.item(), np.exp(loss.item())))
# each line has 5 words + <eos>: 3 random choices among (3, 2, 3) and 3 forced tokens
entropy = (np.log(3) + np.log(2) + np.log(3)) / 6
print("perplexity floor", np.exp(entropy))
assert np.exp(loss.item()) < 1.3 * np.exp(entropy), np.exp(loss.item())

# the sampler's frequencies follow the probabilities
prob = torch.softmax(torch.tensor([2.0, 1.0, 0.0, -1.0]), 0)
draws = torch.multinomial(prob, num_samples=20000, replacement=True)
freq = torch.bincount(draws, minlength=4).float() / 20000
assert torch.allclose(freq, prob, atol=0.015), (freq, prob)

sample_path = os.path.join(tmp, "sample.txt")
words = []
with torch.no_grad():
    with open(sample_path, "w") as f:
        state = (torch.zeros(num_layers, 1, hidden_size).to(device),
                 torch.zeros(num_layers, 1, hidden_size).to(device))
        prob = torch.ones(vocab_size)
        input = torch.multinomial(prob, num_samples=1).unsqueeze(1).to(device)
        input.fill_(corpus.dictionary.word2idx["<eos>"])
        for i in range(num_samples):
            output, state = model(input, state)
            prob = output.exp()
            word_id = torch.multinomial(prob, num_samples=1).item()
            input.fill_(word_id)
            word = corpus.dictionary.idx2word[word_id]
            words.append(word)
            word = "\n" if word == "<eos>" else word + " "
            f.write(word)
with open(sample_path) as f:
    sampled = [line.strip() for line in f.read().split("\n")[:-1]]
print("\n".join(sampled))
grammatical = set(f"{s} {v} {o}" for s in subjects for v in verbs for o in objects)
ok = sum(line in grammatical for line in sampled)
assert len(sampled) >= 4 and ok >= len(sampled) - 1, sampled
shutil.rmtree(tmp)
