"""Host memory for a training loop: keep the pages of freed arrays for the next step.

A training step allocates and frees the same activation-sized arrays over and over. glibc's malloc
serves large blocks with a fresh ``mmap`` and unmaps them on free, and it returns the top of its
heap to the system whenever more than its trim threshold is free there (128 KiB at first, rising
to at most 64 MiB as large blocks come and go). Either way the next step gets pages the kernel
must fault in and zero again: measured on a 2-core Xeon, ~11,000 faults per step for the char GPT
256 wide without any setting, and ~10,700 for the 512-wide one with the 64 MiB trim threshold, whose
step frees more than that at once (PyTorch, whose caching allocator keeps freed blocks: 0).

``keep_freed_memory()`` sets two glibc options for the whole process (what PyTorch's caching
allocator does for its own tensors): blocks up to 32 MiB (glibc's largest mmap threshold) come
from the heap, and the heap is trimmed only when 1 GiB is free at its top, so what a step frees is
what the next step gets back, faults included only once. Blocks over 32 MiB are still mapped fresh
each time and returned at once; the ops avoid temporaries that large on the hot paths (a 3x3
convolution makes no im2col copy, see ``conv.py``).

It is an explicit choice, not an effect of ``import minigenesis``: the training entry points call
it (``app/trainer.py``'s ``Trainer.fit``, the benchmarks in ``bench/``), and a script of one's own
can too. glibc only (musl and macOS keep their own policies); a user's ``MALLOC_MMAP_THRESHOLD_``
or ``MALLOC_TRIM_THRESHOLD_`` environment setting wins. Numbers are unchanged by it: only where
freed memory goes.
"""

from __future__ import annotations

import ctypes
import os

MMAP_THRESHOLD = 32 * 2**20  # glibc's maximum (HEAP_MAX_SIZE / 2 on 64-bit)
TRIM_THRESHOLD = 2**30
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # <malloc.h>
_applied = False


def keep_freed_memory() -> bool:
    """Have glibc keep freed memory for reuse (see the module docstring). Returns True when the
    setting is in force (set now or by an earlier call), False where it does not apply: not
    glibc, or the user's ``MALLOC_*_`` environment variables decide."""
    global _applied
    if _applied:
        return True
    if any(v in os.environ for v in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")):
        return False
    try:
        libc = ctypes.CDLL(None)  # the C library this process already uses
    except (OSError, TypeError):  # (Windows has no such handle)
        return False
    if not hasattr(libc, "gnu_get_libc_version"):
        return False
    # Both are needed: setting the mmap threshold alone fixes the trim threshold at 128 KiB.
    ok = libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) and libc.mallopt(
        _M_TRIM_THRESHOLD, TRIM_THRESHOLD
    )
    _applied = bool(ok)
    return _applied
