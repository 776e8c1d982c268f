"""fastText-style text classification as in the torchtext tutorial: nn.EmbeddingBag over a flat
token stream with offsets, a collate_fn building (labels, text, offsets), SGD with StepLR and
gradient clipping, accuracy on held-out sentences."""
import random
import minigenesis as torch
from minigenesis import nn
from minigenesis.utils.data import DataLoader

random.seed(0)
torch.manual_seed(0)
topics = {
    0: "goal match team score player league coach win season stadium".split(),
    1: "stock market price bank trade profit share invest rate fund".split(),
    2: "cpu code software data chip cloud network server app model".split(),
}
filler = "the a of and to in is on for with".split()
vocab = {w: i for i, w in enumerate(sorted({w for ws in topics.values() for w in ws} | set(filler)))}


def make_sentence():
    label = random.randrange(3)
    n = random.randint(4, 12)
    words = [random.choice(topics[label]) if random.random() < 0.5 else random.choice(filler) for _ in range(n)]
    return label, " ".join(words)


train_data = [make_sentence() for _ in range(600)]
test_data = [make_sentence() for _ in range(200)]
text_pipeline = lambda x: [vocab[w] for w in x.split()]


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(_label)
        processed_text = torch.tensor(text_pipeline(_text), dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list, text_list, offsets


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


model = TextClassificationModel(len(vocab), 16, 3)
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)
train_loader = DataLoader(train_data, batch_size=16, shuffle=True, collate_fn=collate_batch)
test_loader = DataLoader(test_data, batch_size=64, shuffle=False, collate_fn=collate_batch)


def evaluate(dataloader):
    model.eval()
    total_acc, total_count = 0, 0
    with torch.no_grad():
        for label, text, offsets in dataloader:
            predicted_label = model(text, offsets)
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count


total_accu = None
for epoch in range(1, 6):
    model.train()
    for label, text, offsets in train_loader:
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
    accu_val = evaluate(test_loader)
    if total_accu is not None and total_accu > accu_val:
        scheduler.step()
    else:
        total_accu = accu_val
    print(f"epoch {epoch} test accuracy {accu_val:.3f} lr {scheduler.get_last_lr()[0]:.3f}")

# EmbeddingBag(mode="mean") is the mean of each bag's rows
_, text, offsets = collate_batch(test_data[:4])
bags = model.embedding(text, offsets)
bounds = offsets.tolist() + [len(text)]
by_hand = torch.stack([model.embedding.weight[text[a:b]].mean(0) for a, b in zip(bounds, bounds[1:])])
assert torch.allclose(bags, by_hand, atol=1e-6)
bag2d = nn.EmbeddingBag(5, 2, mode="sum")
assert torch.allclose(bag2d(torch.tensor([[1, 2], [3, 3]])), torch.stack([bag2d.weight[[1, 2]].sum(0), 2 * bag2d.weight[3]]))
assert evaluate(test_loader) > 0.85
