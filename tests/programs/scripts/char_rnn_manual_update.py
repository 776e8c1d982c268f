"""The char-RNN classification tutorial's training loop as written there: a hand-written RNN module
that concatenates input and hidden with torch.cat, i2h/h2o Linear layers, LogSoftmax + NLLLoss,
one name at a time with the parameters updated by p.data.add_(p.grad.data, alpha=-lr), topk for
the category, and a row-normalised confusion matrix whose diagonal dominates."""
import random
import string

import minigenesis as torch
import minigenesis.nn as nn

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)
random.seed(0)
torch.manual_seed(0)
endings = {"Aish": "ashi", "Oon": "oon", "Ezz": "ezz"}
category_lines = {}
for cat, end in endings.items():
    names = []
    for _ in range(30):
        stem = "".join(random.choice("bcdfgklmnprstv") + random.choice("aeiou") for _ in range(random.randint(1, 2)))
        names.append(stem.capitalize() + end)
    category_lines[cat] = names
all_categories = list(category_lines)
n_categories = len(all_categories)


def letterToIndex(letter):
    return all_letters.find(letter)


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = torch.tanh(self.i2h(combined))
        output = self.softmax(self.h2o(hidden))
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


assert lineToTensor("Jones").size() == (5, 1, n_letters)
rnn = RNN(n_letters, 32, n_categories)
criterion = nn.NLLLoss()
learning_rate = 0.01


def categoryFromOutput(output):
    top_n, top_i = output.topk(1)
    return all_categories[top_i[0].item()], top_i[0].item()


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item()


def evaluate(line_tensor):
    hidden = rnn.initHidden()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    return output


current_loss, all_losses = 0.0, []
for it in range(1, 1201):
    category = random.choice(all_categories)
    line = random.choice(category_lines[category])
    category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
    output, loss = train(category_tensor, lineToTensor(line))
    current_loss += loss
    if it % 300 == 0:
        all_losses.append(current_loss / 300)
        current_loss = 0.0
print("average losses", ["%.3f" % v for v in all_losses])
assert all_losses[-1] < all_losses[0]
confusion = torch.zeros(n_categories, n_categories)
with torch.no_grad():
    for category in all_categories:
        for line in category_lines[category]:
            guess, guess_i = categoryFromOutput(evaluate(lineToTensor(line)))
            confusion[all_categories.index(category)][guess_i] += 1
for i in range(n_categories):
    confusion[i] = confusion[i] / confusion[i].sum()
print(confusion)
assert torch.allclose(confusion.sum(1), torch.ones(n_categories))
assert confusion.diag().min().item() > 0.8
