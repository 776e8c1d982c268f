"""The "NLP From Scratch: Generating Names with a Character-Level RNN" tutorial on a handful of
names: a category one-hot concatenated with each letter's one-hot (inputTensor of shape
(len, 1, n_letters)) and the targets shifted by one letter ending in EOS (targetTensor with
unsqueeze_(-1)); an RNN of i2h, i2o, o2o over torch.cat((category, input, hidden), 1), dropout(0.1)
and LogSoftmax, trained step by step with the loss summed over letters and a manual
p.data.add_(p.grad.data, alpha=-lr); then sampling with topk(1) and a check that each category's
generated name starts in the right language's style."""
import string

import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
all_letters = string.ascii_letters + " .,;'-"
n_letters = len(all_letters) + 1  # plus EOS marker
category_lines = {
    "Greek": ["Andreou", "Antonopoulos", "Anastasiou"],
    "Russian": ["Vasiliev", "Volkov", "Vorobiev"],
    "Scottish": ["Mcdonald", "Mckenzie", "Mcgregor"],
}
all_categories = list(category_lines)
n_categories = len(all_categories)


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(n_categories + input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(n_categories + input_size + hidden_size, output_size)
        self.o2o = nn.Linear(hidden_size + output_size, output_size)
        self.dropout = nn.Dropout(0.1)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, category, input, hidden):
        input_combined = torch.cat((category, input, hidden), 1)
        hidden = self.i2h(input_combined)
        output = self.i2o(input_combined)
        output_combined = torch.cat((hidden, output), 1)
        output = self.o2o(output_combined)
        output = self.dropout(output)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


def categoryTensor(category):
    li = all_categories.index(category)
    tensor = torch.zeros(1, n_categories)
    tensor[0][li] = 1
    return tensor


def inputTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li in range(len(line)):
        letter = line[li]
        tensor[li][0][all_letters.find(letter)] = 1
    return tensor


def targetTensor(line):
    letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
    letter_indexes.append(n_letters - 1)  # EOS
    return torch.LongTensor(letter_indexes)


rnn = RNN(n_letters, 64, n_letters)
criterion = nn.NLLLoss()
learning_rate = 0.01  # the tutorial uses 0.0005 over 100000 iterations


def train(category_tensor, input_line_tensor, target_line_tensor):
    target_line_tensor.unsqueeze_(-1)
    hidden = rnn.initHidden()
    rnn.zero_grad()
    loss = torch.Tensor([0])
    for i in range(input_line_tensor.size(0)):
        output, hidden = rnn(category_tensor, input_line_tensor[i], hidden)
        l = criterion(output, target_line_tensor[i])
        loss += l
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item() / input_line_tensor.size(0)


pairs = [(c, line) for c in all_categories for line in category_lines[c]]
assert inputTensor("ab").shape == (2, 1, n_letters) and targetTensor("ab").tolist() == [1, n_letters - 1]
first = last = None
for it in range(20):
    total = 0.0
    for category, line in pairs:
        _, loss = train(categoryTensor(category), inputTensor(line), targetTensor(line))
        total += loss
    first = total / len(pairs) if first is None else first
    last = total / len(pairs)
print(f"mean per-letter loss {first:.3f} -> {last:.3f}")
assert last < 0.7 * first
max_length = 12


def sample(category, start_letter):
    with torch.no_grad():
        category_tensor = categoryTensor(category)
        input = inputTensor(start_letter)
        hidden = rnn.initHidden()
        output_name = start_letter
        for i in range(max_length):
            output, hidden = rnn(category_tensor, input[0], hidden)
            topv, topi = output.topk(1)
            topi = topi[0][0]
            if topi == n_letters - 1:
                break
            letter = all_letters[topi]
            output_name += letter
            input = inputTensor(letter)
        return output_name


rnn.eval()
names = {c: sample(c, category_lines[c][0][0]) for c in all_categories}
print(names)
assert names["Scottish"].startswith("Mc")
assert names["Russian"].startswith("V") and len(names["Greek"]) > 3
