"""BERT-style masked-language-model pretraining on a toy grammar, as from-scratch BERT tutorials
write it: [CLS]/[SEP]/[MASK]/[PAD] special tokens, 15% of positions chosen with
torch.bernoulli(torch.full(shape, 0.15)) and never the special ones, then the 80/10/10 rule
(mask / random token / unchanged), labels -100 elsewhere, token + position + segment embeddings,
nn.TransformerEncoder with src_key_padding_mask, BERT's _init_weights applied with
model.apply (normal std 0.02, the padding row zeroed), a decoder tied to the token embedding, and the
accuracy on masked positions."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
PAD, CLS, SEP, MASK = 0, 1, 2, 3
words = ["red", "green", "blue", "big", "small", "cat", "dog", "runs", "sleeps", "eats"]
stoi = {w: i + 4 for i, w in enumerate(words)}
V, D, L = len(words) + 4, 32, 10


def sentence():
    adj = torch.randint(0, 3, (1,)).item()
    size = torch.randint(3, 5, (1,)).item()
    noun = torch.randint(5, 7, (1,)).item()
    verb = 7 + 2 * (noun - 5)  # cats run, dogs eat: the verb follows from the noun
    return [stoi[words[adj]], stoi[words[size]], stoi[words[noun]], stoi[words[verb]]]


def batch(n):
    ids = torch.full((n, L), PAD, dtype=torch.long)
    seg = torch.zeros(n, L, dtype=torch.long)
    for i in range(n):
        a, b = sentence(), sentence()[:2]
        toks = [CLS] + a + [SEP] + b + [SEP]
        ids[i, :len(toks)] = torch.tensor(toks)
        seg[i, len(a) + 2:len(toks)] = 1
    return ids, seg


def mask_tokens(inputs, mlm_probability=0.15):
    labels = inputs.clone()
    probability_matrix = torch.full(labels.shape, mlm_probability)
    special = (inputs == PAD) | (inputs == CLS) | (inputs == SEP)
    probability_matrix.masked_fill_(special, value=0.0)
    masked_indices = torch.bernoulli(probability_matrix).bool()
    labels[~masked_indices] = -100
    inputs = inputs.clone()
    indices_replaced = torch.bernoulli(torch.full(labels.shape, 0.8)).bool() & masked_indices
    inputs[indices_replaced] = MASK
    indices_random = torch.bernoulli(torch.full(labels.shape, 0.5)).bool() & masked_indices & ~indices_replaced
    random_words = torch.randint(4, V, labels.shape, dtype=torch.long)
    inputs[indices_random] = random_words[indices_random]
    return inputs, labels


class TinyBert(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, D, padding_idx=PAD)
        self.pos = nn.Embedding(L, D)
        self.seg = nn.Embedding(2, D)
        self.norm = nn.LayerNorm(D)
        layer = nn.TransformerEncoderLayer(D, nhead=2, dim_feedforward=64, dropout=0.0, batch_first=True, activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.transform = nn.Sequential(nn.Linear(D, D), nn.GELU(), nn.LayerNorm(D))
        self.decoder = nn.Linear(D, V)
        self.decoder.weight = self.tok.weight
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            module.weight.data.normal_(mean=0.0, std=0.02)
            if module.bias is not None:
                module.bias.data.zero_()
        elif isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=0.02)
            if module.padding_idx is not None:
                module.weight.data[module.padding_idx].zero_()
        elif isinstance(module, nn.LayerNorm):
            module.bias.data.zero_()
            module.weight.data.fill_(1.0)

    def forward(self, ids, seg):
        pos = torch.arange(ids.size(1)).unsqueeze(0).expand_as(ids)
        x = self.norm(self.tok(ids) + self.pos(pos) + self.seg(seg))
        x = self.encoder(x, src_key_padding_mask=ids == PAD)
        return self.decoder(self.transform(x))


ids, _ = batch(400)
_, labels = mask_tokens(ids)
frac = (labels != -100).sum().item() / ((ids != PAD) & (ids != CLS) & (ids != SEP)).sum().item()
print(f"masked fraction of maskable tokens {frac:.3f}")
assert 0.1 < frac < 0.2 and (labels[ids == CLS] == -100).all()

model = TinyBert()
assert model.decoder.weight is model.tok.weight
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
for step in range(150):
    ids, seg = batch(32)
    inputs, labels = mask_tokens(ids, mlm_probability=0.4)
    logits = model(inputs, seg)
    loss = F.cross_entropy(logits.view(-1, V), labels.view(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 30 == 0:
        print(f"step {step} mlm loss {loss.item():.4f}")
model.eval()
with torch.no_grad():
    ids, seg = batch(200)
    inputs = ids.clone()
    inputs[:, 4] = MASK  # the verb of the first sentence
    acc = (model(inputs, seg)[:, 4].argmax(-1) == ids[:, 4]).float().mean().item()
print(f"verb recovered from context: {acc:.3f}")
assert acc > 0.8
