"""Before any data moves, every rank must be about to run the same collective on the same
number of elements of the same dtype (and the same op or root).

MPI checks none of this: two ranks reducing 3 and 5 floats get garbage without a word, a float32
against a float64 reduction aborts the job inside MPICH (an assertion and a C backtrace), and an
all-reduce on one rank against a broadcast on the other pairs up as whatever MPI makes of it. So
each collective of the MPI backend begins with one small all-reduce of a fingerprint of what this
rank is about to do: its name and what it moves (``"all_reduce"``, ``"3 float32 elements, op
sum"``) hashed to a 63-bit integer ``f``. All-reducing ``[f, -f]`` with MAX gives every rank
``[max f, -min f]``: all the ranks agree exactly when both equal their own ``f``, and every rank
learns it from the same numbers, so either all go on or all raise. Only then, on the rare
disagreement, do the ranks exchange their descriptions, so that the error names who runs what.

The cost is one all-reduce of 16 bytes per collective (a few microseconds between processes of
one machine); DistributedDataParallel's gradient buckets, whose shapes it checked across the
ranks when it was built, skip it. ``MINIGENESIS_DISTRIBUTED_DEBUG=DETAIL`` still compares the
tensors' shapes (not only their element counts) and the arguments before that.
"""

from __future__ import annotations

import hashlib
from typing import Any


def fingerprint(name: str, detail: str) -> int:
    """A 63-bit hash of a collective's name and what it moves (equal strings, equal numbers;
    different ones collide with probability 2**-63)."""
    digest = hashlib.blake2b(f"{name}\0{detail}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1  # fits an int64, and so does its negation


def agreed(mine: int, reduced: Any) -> bool:
    """True when ``reduced``, the MAX all-reduce of ``[mine, -mine]``, says every rank had
    ``mine``."""
    return int(reduced[0]) == mine and -int(reduced[1]) == mine


def disagreement(rank: int, here: str, everyone: list[tuple[int, str, str]]) -> str:
    """The error when the fingerprints differ: what this rank runs (``here``, e.g. ``all_reduce
    #2 (3 float32 elements, op sum)``) and what each rank that differs from it runs."""
    mine = everyone[rank]
    others = [
        f"rank {r} is in {_describe(theirs)}"
        for r, theirs in enumerate(everyone)
        if r != rank and theirs[1:] != mine[1:]
    ]
    return (
        f"[rank {rank}] {here}: the ranks called different collectives or passed different "
        f"tensors: {'; '.join(others)} (every rank must call the same collectives in the same "
        "order, with the same number of elements, dtype, op and root); no data was moved, and "
        "the process group can still be used"
    )


def _describe(summary: tuple[int, str, str]) -> str:
    seq, name, detail = summary
    return f"{name} #{seq}" + (f" ({detail})" if detail else "")
