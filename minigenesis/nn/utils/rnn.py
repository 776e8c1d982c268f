"""Sequences of different lengths in one batch, as ``torch.nn.utils.rnn``.

Padding (``pad_sequence``) makes a rectangle (T_max, batch, *) of sequences of unequal lengths; a
recurrent layer run on it would also read the padding. Packing keeps only the real steps:
``pack_padded_sequence`` sorts the sequences by decreasing length and lists, time step by time
step, the rows of those still running::

    lengths 3, 1, 2 (sorted 3, 2, 1)  ->  data = [a0 c0 b0 | a1 c1 | a2],  batch_sizes = [3, 2, 1]

``nn.RNN``/``LSTM``/``GRU`` take such a ``PackedSequence``: at step t only the first
batch_sizes[t] rows advance, so each sequence's final state is its own last step's, and the
output is packed the same way. ``pad_packed_sequence`` turns it back into a padded tensor (zeros,
or ``padding_value``, after each sequence's end) and the lengths. Every step is made of
differentiable ops (indexing, cat, split), so gradients flow through packing and unpacking.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..._tensor import Tensor
from ...creation import arange, full, tensor
from ...dtypes import float16, float32, float64, int8, int16, int32, int64, uint8
from ...functions import cat, stack


class PackedSequence(NamedTuple):
    """``data`` (sum of lengths, *): the steps of all sequences, time step by time step;
    ``batch_sizes`` (int64, one per time step): how many sequences are still running at each;
    ``sorted_indices`` / ``unsorted_indices``: the permutation to decreasing length and its
    inverse (None when the batch was given sorted)."""

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The same packing with ``data`` moved or cast (``self`` if nothing changes). As in
        PyTorch, ``batch_sizes`` stays on the CPU and the two index tensors follow ``data``."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = [None if t is None else t.to(data.device) for t in self[2:]]
        return PackedSequence(data, self.batch_sizes, *move)

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def cuda(self, device: Any = None) -> PackedSequence:
        return self.to("cuda" if device is None else device)

    # the casts of ``data``, as Tensor's: packed.double() is packed.to(float64) ...
    def double(self) -> PackedSequence:
        return self.to(float64)

    def float(self) -> PackedSequence:
        return self.to(float32)

    def half(self) -> PackedSequence:
        return self.to(float16)

    def long(self) -> PackedSequence:
        return self.to(int64)

    def int(self) -> PackedSequence:
        return self.to(int32)

    def short(self) -> PackedSequence:
        return self.to(int16)

    def char(self) -> PackedSequence:
        return self.to(int8)

    def byte(self) -> PackedSequence:
        return self.to(uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.device.type == "cuda"

    def is_pinned(self) -> bool:
        """False: there is no pinned (page-locked) host memory here."""
        return False

    def pin_memory(self) -> PackedSequence:
        """``self``: there is no pinned host memory here (copies to a GPU read ordinary memory)."""
        return self


def _lengths_list(lengths: Any) -> list[int]:
    if isinstance(lengths, Tensor):
        if lengths.ndim != 1 or lengths.is_floating_point():
            raise ValueError(
                f"lengths must be a 1-D integer tensor or a list of ints, got a tensor of shape "
                f"{tuple(lengths.shape)} and dtype {lengths.dtype}"
            )
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(
    input: Tensor, lengths: Any, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Pack a padded batch (T, B, *) (or (B, T, *) with ``batch_first``) whose sequence b has
    ``lengths[b]`` real steps. With ``enforce_sorted`` the lengths must already decrease."""
    lengths = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if input.ndim < 2:
        raise ValueError(f"pack_padded_sequence: input must have at least 2 dims, got {input.ndim}")
    if len(lengths) != input.shape[batch_dim]:
        raise ValueError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
            f"(batch_size={input.shape[batch_dim]}, input shape {tuple(input.shape)})"
        )
    if any(n <= 0 for n in lengths):
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            f"that is <= 0 (lengths {lengths})"
        )
    steps = input.shape[1 - batch_dim]
    if max(lengths) > steps:
        raise RuntimeError(
            f"a length ({max(lengths)}) is larger than the input's {steps} time steps"
        )
    if batch_first:
        input = input.transpose(0, 1)
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX exportability."
            )
        sorted_indices = unsorted_indices = None
    else:
        order = sorted(range(len(lengths)), key=lambda b: -lengths[b])  # stable: ties keep order
        inverse = [0] * len(order)
        for position, b in enumerate(order):
            inverse[b] = position
        sorted_indices = tensor(order, dtype=int64)
        unsorted_indices = tensor(inverse, dtype=int64)
        input = input[:, sorted_indices]
        lengths = [lengths[i] for i in order]
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    data = cat([input[t, :bs] for t, bs in enumerate(batch_sizes)])
    return PackedSequence(data, tensor(batch_sizes, dtype=int64), sorted_indices, unsorted_indices)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """The padded batch (T, B, *) (or (B, T, *)) and the int64 lengths, in the original order."""
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    steps, batch = len(batch_sizes), batch_sizes[0]
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                f"Expected total_length to be at least the length of the longest sequence "
                f"({steps}), but got total_length={total_length}"
            )
    rows = []
    start = 0
    for bs in batch_sizes:
        piece = data[start : start + bs]
        start += bs
        if bs < batch:
            fill = full((batch - bs, *data.shape[1:]), padding_value, dtype=data.dtype,
                        device=data.device)  # fmt: skip
            piece = cat([piece, fill])
        rows.append(piece)
    for _ in range(steps, total_length or steps):
        rows.append(full((batch, *data.shape[1:]), padding_value, dtype=data.dtype,
                         device=data.device))  # fmt: skip
    padded = stack(rows)
    lengths = [sum(1 for bs in batch_sizes if bs > b) for b in range(batch)]
    lengths = tensor(lengths, dtype=int64)
    if sequence.unsorted_indices is not None:
        padded = padded[:, sequence.unsorted_indices]
        lengths = lengths[sequence.unsorted_indices]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths


def pad_sequence(
    sequences: Any,
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of shapes (L_b, *) into (L_max, B, *) (or (B, L_max, *)), padding each
    after its end (``padding_side="left"``: before its start) with ``padding_value``."""
    sequences = list(sequences)
    if not sequences:  # PyTorch's exception types (RuntimeError) for both refusals
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    if padding_side not in ("right", "left"):
        raise RuntimeError(f"padding_side must be 'left' or 'right', but got {padding_side!r}")
    trailing = tuple(sequences[0].shape[1:])
    for k, s in enumerate(sequences):
        if tuple(s.shape[1:]) != trailing:
            raise RuntimeError(
                f"pad_sequence: sequence {k} has shape {tuple(s.shape)}; every sequence must be "
                f"(length, {', '.join(map(str, trailing))}) like sequence 0"
            )
    longest = max(s.shape[0] for s in sequences)
    # as in PyTorch, the result has sequence 0's dtype: the others are cast to it, not promoted
    dtype = sequences[0].dtype
    padded = []
    for s in sequences:
        s = s.to(dtype)
        missing = longest - s.shape[0]
        if missing:
            fill = full((missing, *trailing), padding_value, dtype=s.dtype, device=s.device)
            s = cat([s, fill]) if padding_side == "right" else cat([fill, s])
        padded.append(s)
    return stack(padded, dim=0 if batch_first else 1)


def pack_sequence(sequences: Any, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences (L_b, *) directly: ``pack_padded_sequence(pad_sequence(...))``."""
    sequences = list(sequences)
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(
    padded_sequences: Tensor, lengths: Any, batch_first: bool = False
) -> list[Tensor]:
    """The inverse of ``pad_sequence``: sequence b is ``padded[:lengths[b], b]`` (or
    ``padded[b, :lengths[b]]`` with ``batch_first``)."""
    rows = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [row[:n] for row, n in zip(rows, _lengths_list(lengths), strict=True)]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The inverse of ``pack_sequence``: the list of sequences, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse permutation: ``out[permutation[i]] = i`` (None for None)."""
    if permutation is None:
        return None
    out = permutation.new_empty(permutation.shape)
    out[permutation] = arange(permutation.numel(), dtype=permutation.dtype)
    return out


__all__ = [
    "PackedSequence",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "pack_sequence",
    "unpad_sequence",
    "unpack_sequence",
    "invert_permutation",
]
