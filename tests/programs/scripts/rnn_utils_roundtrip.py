"""The nn.utils.rnn toolkit as NLP code uses it on unsorted batches: pack_sequence and
pack_padded_sequence with enforce_sorted=False (sorted_indices / unsorted_indices), a
bidirectional 2-layer GRU over the packed batch, pad_packed_sequence with total_length,
unpad_sequence and unpack_sequence giving the original sequences back, and every sequence's
output and final hidden state equal to running the GRU on that sequence alone."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn.utils.rnn import (pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence,
                                      unpack_sequence, unpad_sequence)

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
lengths = [3, 7, 1, 5]
seqs = [torch.randn(n, 4) for n in lengths]
packed = pack_sequence(seqs, enforce_sorted=False)
print("batch sizes", packed.batch_sizes.tolist(), "sorted", packed.sorted_indices.tolist(), "unsorted", packed.unsorted_indices.tolist())
assert packed.batch_sizes.tolist() == [4, 3, 3, 2, 2, 1, 1]
assert packed.sorted_indices.tolist() == [1, 3, 0, 2]
back = unpack_sequence(packed)
assert all(torch.equal(a, b) for a, b in zip(back, seqs))

padded = pad_sequence(seqs, batch_first=True)
packed2 = pack_padded_sequence(padded, torch.tensor(lengths), batch_first=True, enforce_sorted=False)
assert torch.equal(packed2.data, packed.data)
gru = nn.GRU(4, 6, num_layers=2, bidirectional=True, batch_first=True)
out, h_n = gru(packed2)
unpacked, out_lengths = pad_packed_sequence(out, batch_first=True, total_length=9)
print("padded output", tuple(unpacked.shape), "lengths", out_lengths.tolist())
assert unpacked.shape == (4, 9, 12) and out_lengths.tolist() == lengths
assert (unpacked[2, 1:] == 0).all()
for i, s in enumerate(seqs):
    alone, h_alone = gru(s.unsqueeze(0))
    assert torch.allclose(unpacked[i, :lengths[i]], alone[0], atol=1e-12)
    assert torch.allclose(h_n[:, i], h_alone[:, 0], atol=1e-12)
pieces = unpad_sequence(unpacked, out_lengths, batch_first=True)
assert [p.shape[0] for p in pieces] == lengths

head = nn.Linear(12, 1)
# the forward direction's last valid step and the reverse direction's first step
last = torch.stack([torch.cat([unpacked[i, n - 1, :6], unpacked[i, 0, 6:]]) for i, n in enumerate(lengths)])
loss = head(last).pow(2).mean()
loss.backward()
grads = {name: p.grad.norm().item() for name, p in gru.named_parameters()}
print(f"loss {loss.item():.6f}, grad norm weight_hh_l1_reverse {grads['weight_hh_l1_reverse']:.6f}")
assert all(g > 0 for g in grads.values())
