"""Sorting digit strings with an LSTM encoder-decoder and Luong ("general") attention, written as
in the translation tutorials: an EncoderRNN / AttnDecoderRNN pair stepped one token at a time,
attention scores by torch.bmm and F.softmax, teacher forcing chosen with random.random(), the
next input read with topk(1) and detached, NLLLoss on log_softmax, gradient clipping, greedy
decoding under torch.no_grad() and exact-match accuracy on held-out strings."""
import random
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis import optim

random.seed(0)
torch.manual_seed(0)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
SOS_token, EOS_token = 0, 1
n_digits, seq_len, hidden_size = 6, 4, 32
vocab = n_digits + 2  # digit d is token d + 2


def random_batch(batch_size):
    src = torch.randint(2, vocab, (batch_size, seq_len))
    tgt, _ = src.sort(dim=1)
    eos = torch.full((batch_size, 1), EOS_token, dtype=torch.long)
    return src.to(device), torch.cat([tgt, eos], dim=1).to(device)


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.lstm = nn.LSTM(hidden_size, hidden_size, batch_first=True)

    def forward(self, input):
        embedded = self.embedding(input)
        output, (hidden, cell) = self.lstm(embedded)
        return output, (hidden, cell)


class LuongAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.W = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, query, keys):
        # query: (B, 1, H), keys: (B, T, H)
        scores = torch.bmm(self.W(query), keys.transpose(1, 2))  # (B, 1, T)
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)  # (B, 1, H)
        return context, weights


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super(AttnDecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.lstm = nn.LSTM(hidden_size, hidden_size, batch_first=True)
        self.attention = LuongAttention(hidden_size)
        self.concat = nn.Linear(hidden_size * 2, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)

    def forward_step(self, input, hidden, encoder_outputs):
        embedded = self.embedding(input)  # (B, 1, H)
        output, hidden = self.lstm(embedded, hidden)
        context, attn_weights = self.attention(output, encoder_outputs)
        concat_output = torch.tanh(self.concat(torch.cat((output, context), dim=2)))
        return F.log_softmax(self.out(concat_output), dim=-1), hidden, attn_weights


encoder = EncoderRNN(vocab, hidden_size).to(device)
decoder = AttnDecoderRNN(hidden_size, vocab).to(device)
encoder_optimizer = optim.Adam(encoder.parameters(), lr=0.01)
decoder_optimizer = optim.Adam(decoder.parameters(), lr=0.01)
criterion = nn.NLLLoss()
teacher_forcing_ratio = 0.5


def train(input_tensor, target_tensor):
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()
    encoder_outputs, encoder_hidden = encoder(input_tensor)
    batch_size, target_length = target_tensor.size()
    decoder_input = torch.full((batch_size, 1), SOS_token, dtype=torch.long, device=device)
    decoder_hidden = encoder_hidden
    loss = 0
    use_teacher_forcing = True if random.random() < teacher_forcing_ratio else False
    for di in range(target_length):
        decoder_output, decoder_hidden, _ = decoder.forward_step(
            decoder_input, decoder_hidden, encoder_outputs)
        loss += criterion(decoder_output.squeeze(1), target_tensor[:, di])
        if use_teacher_forcing:
            decoder_input = target_tensor[:, di].unsqueeze(1)  # Teacher forcing
        else:
            topv, topi = decoder_output.topk(1)
            decoder_input = topi.squeeze(-1).detach()  # detach from history as input
    loss.backward()
    torch.nn.utils.clip_grad_norm_(encoder.parameters(), 1.0)
    torch.nn.utils.clip_grad_norm_(decoder.parameters(), 1.0)
    encoder_optimizer.step()
    decoder_optimizer.step()
    return loss.item() / target_length


def evaluate(input_tensor, max_length=seq_len + 1):
    with torch.no_grad():
        encoder_outputs, decoder_hidden = encoder(input_tensor)
        decoder_input = torch.full((input_tensor.size(0), 1), SOS_token, dtype=torch.long, device=device)
        decoded, attentions = [], []
        for di in range(max_length):
            decoder_output, decoder_hidden, attn = decoder.forward_step(
                decoder_input, decoder_hidden, encoder_outputs)
            _, topi = decoder_output.data.topk(1)
            decoder_input = topi.squeeze(-1)
            decoded.append(decoder_input)
            attentions.append(attn)
        return torch.cat(decoded, dim=1), torch.cat(attentions, dim=1)


print_loss_total = 0
for iter in range(1, 121):
    src, tgt = random_batch(32)
    print_loss_total += train(src, tgt)
    if iter % 40 == 0:
        print('iter %d  loss %.4f' % (iter, print_loss_total / 40))
        print_loss_total = 0

src, tgt = random_batch(200)
decoded, attentions = evaluate(src)
exact = (decoded == tgt).all(dim=1).float().mean().item()
per_token = (decoded == tgt).float().mean().item()
print(f'exact-match accuracy {exact:.3f}, per-token {per_token:.3f}')
print('example', src[0].tolist(), '->', decoded[0].tolist())
assert attentions.shape == (200, seq_len + 1, seq_len)
assert torch.allclose(attentions.sum(-1), torch.ones(200, seq_len + 1))
assert per_token > 0.8, per_token
