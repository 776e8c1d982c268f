"""nn.Transformer as an encoder-decoder, in the style of the "language translation with
nn.Transformer" tutorial (sequence-first tensors): a PositionalEncoding module with its table in
register_buffer (math.log and a div_term), embeddings scaled by sqrt(d_model),
generate_square_subsequent_mask for the target, src/tgt/memory key padding masks for padded
sequences of different lengths, CrossEntropyLoss(ignore_index=PAD_IDX), greedy decoding."""
import math
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis import Tensor

torch.manual_seed(0)
DEVICE = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
PAD_IDX, BOS_IDX, EOS_IDX = 0, 1, 2
VOCAB = 10  # tokens 3..9 are "words"


class PositionalEncoding(nn.Module):
    def __init__(self, emb_size: int, dropout: float, maxlen: int = 50):
        super(PositionalEncoding, self).__init__()
        den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(-2)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('pos_embedding', pos_embedding)

    def forward(self, token_embedding: Tensor):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size: int, emb_size):
        super(TokenEmbedding, self).__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.emb_size = emb_size

    def forward(self, tokens: Tensor):
        return self.embedding(tokens.long()) * math.sqrt(self.emb_size)


class Seq2SeqTransformer(nn.Module):
    def __init__(self, emb_size, nhead, dim_feedforward=64, dropout=0.0):
        super(Seq2SeqTransformer, self).__init__()
        self.transformer = nn.Transformer(d_model=emb_size, nhead=nhead, num_encoder_layers=1,
                                          num_decoder_layers=1, dim_feedforward=dim_feedforward,
                                          dropout=dropout)
        self.generator = nn.Linear(emb_size, VOCAB)
        self.src_tok_emb = TokenEmbedding(VOCAB, emb_size)
        self.tgt_tok_emb = TokenEmbedding(VOCAB, emb_size)
        self.positional_encoding = PositionalEncoding(emb_size, dropout=dropout)

    def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask,
                memory_key_padding_mask):
        src_emb = self.positional_encoding(self.src_tok_emb(src))
        tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
        outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                src_padding_mask, tgt_padding_mask, memory_key_padding_mask)
        return self.generator(outs)

    def encode(self, src: Tensor, src_mask: Tensor):
        return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)), src_mask)

    def decode(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor):
        return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)), memory, tgt_mask)


def generate_square_subsequent_mask(sz):
    mask = (torch.triu(torch.ones((sz, sz), device=DEVICE)) == 1).transpose(0, 1)
    mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0))
    return mask


def create_mask(src, tgt):
    src_seq_len = src.shape[0]
    tgt_seq_len = tgt.shape[0]
    tgt_mask = generate_square_subsequent_mask(tgt_seq_len)
    src_mask = torch.zeros((src_seq_len, src_seq_len), device=DEVICE).type(torch.bool)
    src_padding_mask = (src == PAD_IDX).transpose(0, 1)
    tgt_padding_mask = (tgt == PAD_IDX).transpose(0, 1)
    return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask


def make_batch(batch_size):
    """Each source is 2..5 words; the target is the source with every word shifted by one (9 -> 3)."""
    srcs, tgts = [], []
    for _ in range(batch_size):
        n = int(torch.randint(2, 6, (1,)))
        words = torch.randint(3, VOCAB, (n,))
        shifted = (words - 3 + 1) % (VOCAB - 3) + 3
        srcs.append(torch.cat([torch.tensor([BOS_IDX]), words, torch.tensor([EOS_IDX])]))
        tgts.append(torch.cat([torch.tensor([BOS_IDX]), shifted, torch.tensor([EOS_IDX])]))
    pad = nn.utils.rnn.pad_sequence
    return pad(srcs, padding_value=PAD_IDX).to(DEVICE), pad(tgts, padding_value=PAD_IDX).to(DEVICE)


# the library's causal mask is the tutorial's
assert torch.equal(nn.Transformer.generate_square_subsequent_mask(5), generate_square_subsequent_mask(5))

model = Seq2SeqTransformer(emb_size=32, nhead=4).to(DEVICE)
for p in model.parameters():
    if p.dim() > 1:
        nn.init.xavier_uniform_(p)
loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX)
optimizer = torch.optim.Adam(model.parameters(), lr=0.003, betas=(0.9, 0.98), eps=1e-9)

model.train()
for step in range(120):
    src, tgt = make_batch(32)
    tgt_input = tgt[:-1, :]
    src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)
    logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)
    optimizer.zero_grad()
    tgt_out = tgt[1:, :]
    loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
    loss.backward()
    optimizer.step()
    if step % 40 == 0:
        print(f"step {step}: loss {loss.item():.4f}")


def greedy_decode(model, src, src_mask, max_len, start_symbol):
    memory = model.encode(src, src_mask)
    ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long).to(DEVICE)
    for i in range(max_len - 1):
        tgt_mask = (generate_square_subsequent_mask(ys.size(0)).type(torch.bool)).to(DEVICE)
        out = model.decode(ys, memory, tgt_mask)
        out = out.transpose(0, 1)
        prob = model.generator(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.item()
        ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
        if next_word == EOS_IDX:
            break
    return ys


model.eval()
correct = 0
with torch.no_grad():
    for _ in range(20):
        src, tgt = make_batch(1)
        num_tokens = src.shape[0]
        src_mask = (torch.zeros(num_tokens, num_tokens)).type(torch.bool)
        out = greedy_decode(model, src, src_mask, max_len=num_tokens + 2, start_symbol=BOS_IDX)
        correct += int(out.flatten().tolist() == tgt.flatten().tolist())
print(f"greedy decoding: {correct}/20 targets exact")
assert correct >= 14, correct
