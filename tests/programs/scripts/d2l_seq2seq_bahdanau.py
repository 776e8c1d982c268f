"""d2l.ai's sequence-to-sequence chapter on a reversal task: Encoder/Decoder/EncoderDecoder base
classes, a GRU encoder with embedding and the Bahdanau-attention decoder (additive attention
over the encoder outputs, context concatenated with the embedded input by torch.cat on dim=-1),
xavier_init_weights walking nn.GRU's _flat_weights_names, MaskedSoftmaxCELoss as a subclass of
nn.CrossEntropyLoss setting self.reduction = 'none' and calling super().forward on
pred.permute(0, 2, 1), teacher forcing by torch.cat([bos, Y[:, :-1]], 1), grad clipping by
hand, greedy predict_seq2seq with valid lengths, and BLEU as in the book."""
import collections
import math

import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)
PAD, BOS, EOS = 0, 1, 2
vocab_size, num_steps = 10, 7


def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_lens):
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    shape = X.shape
    if valid_lens.dim() == 1:
        valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
    return nn.functional.softmax(X.reshape(shape), dim=-1)


class AdditiveAttention(nn.Module):
    def __init__(self, num_hiddens, dropout):
        super().__init__()
        self.W_k = nn.LazyLinear(num_hiddens, bias=False)
        self.W_q = nn.LazyLinear(num_hiddens, bias=False)
        self.w_v = nn.LazyLinear(1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        features = torch.tanh(queries.unsqueeze(2) + keys.unsqueeze(1))
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class Encoder(nn.Module):
    def forward(self, X, *args):
        raise NotImplementedError


class Decoder(nn.Module):
    def init_state(self, enc_all_outputs, *args):
        raise NotImplementedError

    def forward(self, X, state):
        raise NotImplementedError


class EncoderDecoder(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, enc_X, dec_X, *args):
        enc_all_outputs = self.encoder(enc_X, *args)
        dec_state = self.decoder.init_state(enc_all_outputs, *args)
        return self.decoder(dec_X, dec_state)[0]


class Seq2SeqEncoder(Encoder):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)

    def forward(self, X, *args):
        X = self.embedding(X.t().type(torch.int64))
        outputs, state = self.rnn(X)
        return outputs, state


class Seq2SeqAttentionDecoder(Decoder):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.attention = AdditiveAttention(num_hiddens, dropout)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout=dropout)
        self.dense = nn.LazyLinear(vocab_size)

    def init_state(self, enc_outputs, enc_valid_lens):
        outputs, hidden_state = enc_outputs
        return (outputs.permute(1, 0, 2), hidden_state, enc_valid_lens)

    def forward(self, X, state):
        enc_outputs, hidden_state, enc_valid_lens = state
        X = self.embedding(X).permute(1, 0, 2)
        outputs, self._attention_weights = [], []
        for x in X:
            query = torch.unsqueeze(hidden_state[-1], dim=1)
            context = self.attention(query, enc_outputs, enc_outputs, enc_valid_lens)
            x = torch.cat((context, torch.unsqueeze(x, dim=1)), dim=-1)
            out, hidden_state = self.rnn(x.permute(1, 0, 2), hidden_state)
            outputs.append(out)
            self._attention_weights.append(self.attention.attention_weights)
        outputs = self.dense(torch.cat(outputs, dim=0))
        return outputs.permute(1, 0, 2), [enc_outputs, hidden_state, enc_valid_lens]


class MaskedSoftmaxCELoss(nn.CrossEntropyLoss):
    def forward(self, pred, label, valid_len):
        weights = torch.ones_like(label)
        weights = sequence_mask(weights, valid_len)
        self.reduction = "none"
        unweighted_loss = super(MaskedSoftmaxCELoss, self).forward(pred.permute(0, 2, 1), label)
        weighted_loss = (unweighted_loss * weights).mean(dim=1)
        return weighted_loss


loss = MaskedSoftmaxCELoss()
l = loss(torch.ones(3, 4, 10), torch.ones((3, 4), dtype=torch.long), torch.tensor([4, 2, 0]))
assert torch.allclose(l, torch.tensor([math.log(10), math.log(10) / 2, 0.0]))


def make_batch(n):
    lens = torch.randint(2, num_steps - 1, (n,))
    src = torch.full((n, num_steps), PAD)
    tgt = torch.full((n, num_steps), PAD)
    for i in range(n):
        toks = torch.randint(3, vocab_size, (int(lens[i]),))
        src[i, : lens[i]] = toks
        src[i, lens[i]] = EOS
        tgt[i, : lens[i]] = toks.flip(0)
        tgt[i, lens[i]] = EOS
    return src, lens + 1, tgt, lens + 1


def xavier_init_weights(m):
    if type(m) == nn.Linear:
        nn.init.xavier_uniform_(m.weight)
    if type(m) == nn.GRU:
        for param in m._flat_weights_names:
            if "weight" in param:
                nn.init.xavier_uniform_(m._parameters[param])


def grad_clipping(net, theta):
    params = [p for p in net.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm


embed_size, num_hiddens, num_layers = 16, 48, 1
encoder = Seq2SeqEncoder(vocab_size, embed_size, num_hiddens, num_layers)
decoder = Seq2SeqAttentionDecoder(vocab_size, embed_size, num_hiddens, num_layers)
net = EncoderDecoder(encoder, decoder)
X0, len0, Y0, _ = make_batch(2)
net(X0, torch.cat([torch.full((2, 1), BOS), Y0[:, :-1]], 1), len0)  # materialize lazy layers
net.apply(xavier_init_weights)
assert encoder.rnn._flat_weights_names == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]

optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
net.train()
for step in range(120):
    X, X_valid_len, Y, Y_valid_len = make_batch(64)
    optimizer.zero_grad()
    bos = torch.tensor([BOS] * Y.shape[0]).reshape(-1, 1)
    dec_input = torch.cat([bos, Y[:, :-1]], 1)
    Y_hat = net(X, dec_input, X_valid_len)
    l = loss(Y_hat, Y, Y_valid_len)
    l.sum().backward()
    grad_clipping(net, 1)
    optimizer.step()
    if step % 40 == 0:
        print(f"step {step}: loss {l.sum().item() / Y_valid_len.sum().item():.3f}")


def predict_seq2seq(net, src_tokens, num_steps):
    net.eval()
    enc_valid_len = torch.tensor([len(src_tokens)])
    src_tokens = src_tokens + [PAD] * (num_steps - len(src_tokens))
    enc_X = torch.unsqueeze(torch.tensor(src_tokens, dtype=torch.long), dim=0)
    enc_outputs = net.encoder(enc_X, enc_valid_len)
    dec_state = net.decoder.init_state(enc_outputs, enc_valid_len)
    dec_X = torch.unsqueeze(torch.tensor([BOS], dtype=torch.long), dim=0)
    output_seq = []
    for _ in range(num_steps):
        Y, dec_state = net.decoder(dec_X, dec_state)
        dec_X = Y.argmax(dim=2)
        pred = dec_X.squeeze(dim=0).type(torch.int32).item()
        if pred == EOS:
            break
        output_seq.append(pred)
    return output_seq


def bleu(pred_seq, label_seq, k):
    len_pred, len_label = len(pred_seq), len(label_seq)
    score = math.exp(min(0, 1 - len_label / len_pred)) if len_pred else 0.0
    for n in range(1, min(k, len_pred) + 1):
        num_matches, label_subs = 0, collections.defaultdict(int)
        for i in range(len_label - n + 1):
            label_subs[" ".join(map(str, label_seq[i: i + n]))] += 1
        for i in range(len_pred - n + 1):
            if label_subs[" ".join(map(str, pred_seq[i: i + n]))] > 0:
                num_matches += 1
                label_subs[" ".join(map(str, pred_seq[i: i + n]))] -= 1
        score *= math.pow(num_matches / (len_pred - n + 1), math.pow(0.5, n))
    return score


assert bleu([3, 4, 5], [3, 4, 5], 2) == 1.0
assert bleu([3, 4], [3, 4, 5, 6], 2) == math.exp(1 - 2)
with torch.no_grad():
    scores, exact = [], 0
    for _ in range(40):
        n = int(torch.randint(2, num_steps - 1, (1,)))
        src = torch.randint(3, vocab_size, (n,)).tolist()
        out = predict_seq2seq(net, src + [EOS], num_steps)
        exact += out == src[::-1]
        scores.append(bleu(out, src[::-1], k=2))
print(f"mean BLEU {sum(scores) / len(scores):.3f}, exact {exact}/40")
print("attention of the last step", decoder._attention_weights[-1].reshape(-1)[:4])
assert sum(scores) / len(scores) > 0.8 and exact >= 28
