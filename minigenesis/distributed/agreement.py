"""Before any data moves, every rank must be about to run the same collective on the same
number of elements of the same dtype (and the same op or root).

MPI checks none of this: two ranks reducing 3 and 5 floats get garbage without a word, a float32
against a float64 reduction aborts the job inside MPICH (an assertion and a C backtrace), and an
all-reduce on one rank against a broadcast on the other pairs up as whatever MPI makes of it. So
each collective of the MPI backend begins with one small all-reduce of a fingerprint of what this
rank is about to do: its name and what it moves (``"all_reduce"``, ``"3 float32 elements, op
sum"``) hashed to a 63-bit integer ``f``. A bitwise AND over the ranks of ``[f, ~f]`` equals
``[f, ~f]`` exactly when every rank had ``f`` (each rank's bits hold all of f's and none other),
and every rank reads it from the same numbers, so either all go on or all stop. The 16 bytes go
as MPI bytes: were they met by another rank's gradient all-reduce (which skips this step, below),
MPICH would not find a partial element to choke on, on either side.

On a disagreement every rank asks the others what they run (the roll call of ``_mpi.py``) and
raises, naming them: a DistError when every other rank is in this step too (no data moved; the
group can be used again), a DistBackendError when one is elsewhere (its data met this step).

The cost is one all-reduce of 16 bytes per collective (about 20 us between two busy processes of
one machine, more when they are descheduled); DistributedDataParallel's gradient buckets, whose
shapes it checked across the ranks when it was built, skip it, since a wait in the middle of the
backward pass costs most there (measured: 10-35% of a small model's step on 2 busy cores).
``MINIGENESIS_DISTRIBUTED_DEBUG=DETAIL`` still compares the tensors' shapes (not only their
element counts) and the arguments before that.
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
    """True when ``reduced``, the bitwise AND over the ranks of ``[mine, ~mine]`` (int64), says
    every rank had ``mine``."""
    return int(reduced[0]) == mine and int(reduced[1]) == ~mine


def disagreement(rank: int, mine: tuple, size: int, answers: dict[int, Any]) -> tuple[str, bool]:
    """The error when the fingerprints differ, and whether the group is still usable.

    ``mine`` is this rank's op summary (seq, name, detail); ``answers`` the roll call's, each
    ``(seq, name, detail, in_agreement_step)`` or None (not in a collective)."""
    others = []
    usable = True
    for r in range(size):
        if r == rank:
            continue
        theirs = answers.get(r)
        if theirs is None:
            others.append(f"rank {r} did not answer (busy outside a collective, or gone)")
            usable = False
            continue
        usable = usable and theirs[0] == mine[0] and bool(theirs[3])
        if tuple(theirs[1:3]) != tuple(mine[1:3]) or theirs[0] != mine[0]:
            others.append(f"rank {r} is in {_describe(theirs)}")
    how = (
        "no data was moved, and the process group can still be used"
        if usable
        else "another rank's data met this check, and the process group is unusable"
    )
    return (
        f"[rank {rank}] {_describe(mine)}: the ranks called different collectives or passed "
        f"different tensors: {'; '.join(others) or 'every rank reports the same'} (every rank "
        "must call the same collectives in the same order, with the same number of elements, "
        f"dtype, op and root); {how}",
        usable,
    )


def _describe(summary: tuple) -> str:
    seq, name, detail = summary[:3]
    return f"{name} #{seq}" + (f" ({detail})" if detail else "")
