"""The "Word Embeddings: Encoding Lexical Semantics" tutorial's N-gram language model on the
Shakespeare sonnet: trigrams as ([w_{i-2}, w_{i-1}], w_i) tuples, an NGramLanguageModeler
(nn.Embedding, view((1, -1)), two Linears, F.log_softmax) trained with NLLLoss and SGD(lr=0.001)
one context at a time, total loss falling each epoch; then the tutorial's exercise, a CBOW model
over a window of two words each side, predicting the middle word of every training context."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.optim as optim

torch.manual_seed(1)
CONTEXT_SIZE = 2
EMBEDDING_DIM = 10
test_sentence = """When forty winters shall besiege thy brow,
And dig deep trenches in thy beauty's field,
Thy youth's proud livery so gazed on now,
Will be a totter'd weed of small worth held:
Then being asked, where all thy beauty lies,
Where all the treasure of thy lusty days;
To say, within thine own deep sunken eyes,
Were an all-eating shame, and thriftless praise.""".split()
ngrams = [
    ([test_sentence[i - j - 1] for j in range(CONTEXT_SIZE)], test_sentence[i])
    for i in range(CONTEXT_SIZE, len(test_sentence))
]
vocab = set(test_sentence)
word_to_ix = {word: i for i, word in enumerate(sorted(vocab))}


class NGramLanguageModeler(nn.Module):
    def __init__(self, vocab_size, embedding_dim, context_size):
        super(NGramLanguageModeler, self).__init__()
        self.embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.linear1 = nn.Linear(context_size * embedding_dim, 128)
        self.linear2 = nn.Linear(128, vocab_size)

    def forward(self, inputs):
        embeds = self.embeddings(inputs).view((1, -1))
        out = F.relu(self.linear1(embeds))
        out = self.linear2(out)
        log_probs = F.log_softmax(out, dim=1)
        return log_probs


losses = []
loss_function = nn.NLLLoss()
model = NGramLanguageModeler(len(vocab), EMBEDDING_DIM, CONTEXT_SIZE)
optimizer = optim.SGD(model.parameters(), lr=0.001)
for epoch in range(10):
    total_loss = 0
    for context, target in ngrams:
        context_idxs = torch.tensor([word_to_ix[w] for w in context], dtype=torch.long)
        model.zero_grad()
        log_probs = model(context_idxs)
        loss = loss_function(log_probs, torch.tensor([word_to_ix[target]], dtype=torch.long))
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    losses.append(total_loss)
assert all(b < a for a, b in zip(losses, losses[1:])), losses
print(f"n-gram total loss {losses[0]:.2f} -> {losses[-1]:.2f}")
assert model.embeddings.weight[word_to_ix["beauty"]].shape == (EMBEDDING_DIM,)

raw_text = test_sentence
data = []
for i in range(CONTEXT_SIZE, len(raw_text) - CONTEXT_SIZE):
    context = [raw_text[i - j - 1] for j in range(CONTEXT_SIZE)] + [raw_text[i + j + 1] for j in range(CONTEXT_SIZE)]
    data.append((context, raw_text[i]))


class CBOW(nn.Module):
    def __init__(self, vocab_size, embedding_dim):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.linear = nn.Linear(embedding_dim, vocab_size)

    def forward(self, inputs):
        return F.log_softmax(self.linear(self.embeddings(inputs).sum(dim=1)), dim=-1)


def make_context_vector(context, word_to_ix):
    idxs = [word_to_ix[w] for w in context]
    return torch.tensor(idxs, dtype=torch.long)


cbow = CBOW(len(vocab), 16)
opt = optim.Adam(cbow.parameters(), lr=0.05)
contexts = torch.stack([make_context_vector(c, word_to_ix) for c, _ in data])
targets = torch.tensor([word_to_ix[t] for _, t in data])
for step in range(100):
    opt.zero_grad()
    loss = F.nll_loss(cbow(contexts), targets)
    loss.backward()
    opt.step()
accuracy = (cbow(contexts).argmax(1) == targets).float().mean().item()
print(f"CBOW loss {loss.item():.4f}, middle-word accuracy {accuracy:.2f}")
assert accuracy > 0.95
