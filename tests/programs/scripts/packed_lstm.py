"""A bidirectional LSTM over padded, packed sequences of different lengths."""
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence

torch.manual_seed(0)
seqs = [torch.randn(n, 4) for n in (5, 2, 7, 3)]
lengths = torch.tensor([len(s) for s in seqs])
padded = pad_sequence(seqs, batch_first=True)
lstm = nn.LSTM(4, 6, batch_first=True, bidirectional=True)
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
out_packed, (h, c) = lstm(packed)
out, out_lengths = pad_packed_sequence(out_packed, batch_first=True)
print(out.shape, out_lengths.tolist(), h.shape)
# the final forward state of each sequence equals the output at its last real step
for i, n in enumerate(lengths.tolist()):
    assert torch.allclose(out[i, n - 1, :6], h[0, i], atol=1e-6)
    assert torch.allclose(out[i, 0, 6:], h[1, i], atol=1e-6)
loss = out.sum()
loss.backward()
print("grad norm", sum(p.grad.norm() ** 2 for p in lstm.parameters()).sqrt().item())
