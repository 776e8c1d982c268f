"""The checkpoint file format: a header, the array bytes, the pickle, an index and a checksum.

::

    offset 0   MAGIC (8 bytes, b"\\x89MGCKPT\\n")   FORMAT_VERSION (uint32)   reserved (uint32, 0)
    16         buffer 0 bytes | buffer 1 bytes | ...      the arrays, raw, in pickling order
               pickle stream (protocol 5)                 small: every array is a NEXT_BUFFER
               length of buffer 0 | 1 | ... (uint64 each)
    size - 28  n_buffers (uint64)  pickle_length (uint64)  CRC32 (uint32)  END (8 bytes)

All integers are little-endian. The CRC32 covers every byte before it (header, arrays, pickle,
index, the two counts), so any change to the file is caught before a single byte is unpickled.

Why this layout:
- Streaming. Pickle protocol 5 hands every large array to a callback as a ``PickleBuffer`` (a view,
  not a copy) instead of copying it into the pickle stream. The callback writes it to the file at
  once and feeds it to the running checksum, in 128 KiB copies (the checksum must cover exactly
  the bytes written, even while another thread changes the array), so saving never holds a
  second copy of the state dict.
  The arrays come first because they are written while pickling is still going on; the index that
  says where each one ends comes last, when it is known.
- Loading reads each array straight into its own fresh allocation (``readinto``), which then
  *becomes* the array (no second copy), so each tensor owns its memory and frees it on its own.
- Why CRC32 and not SHA-256: the checksum is there to catch accidents (a truncated copy, a flipped
  bit on disk), not an attacker, who could recompute any unkeyed hash. CRC32 detects every
  single-bit error, every burst up to 32 bits and all but 1 in 2^32 random corruptions, and
  ``zlib.crc32`` runs at several GB/s (about 2.5x SHA-256 and 4x BLAKE2b here), so it adds little
  to a save or a load. Safety against malicious files is the restricted unpickler's job.
- The fixed-size footer with an end marker makes truncation easy to name: a file that was cut
  short ends in the middle of something else, so its last 8 bytes are not END.
"""

from __future__ import annotations

import errno
import io
import mmap as _mmap
import os
import pickle
import queue
import stat
import struct
import threading
import zlib
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

import numpy as np

MAGIC = b"\x89MGCKPT\n"  # non-ASCII first byte and a newline: text-mode mangling is caught too
END = b"\x89MGCEND\n"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sII")  # magic, version, reserved
_FOOTER = struct.Struct("<QQI8s")  # n_buffers, pickle_length, crc32, END
_CHUNK = 4 << 20  # I/O and checksum go in 4 MiB pieces, overlapped (see _RunningCrc)
_SNAPSHOT = 128 << 10  # a save copies the arrays in pieces this small (see write_checkpoint)
_THREAD_MIN = 8 << 20  # below this a load checksums inline (a thread costs more than it saves)
MIN_SIZE = _HEADER.size + _FOOTER.size


class CheckpointError(RuntimeError):
    """A checkpoint file that cannot be read: truncated, corrupted, or not a checkpoint at all."""


class _RunningCrc:
    """A running CRC32 of the pieces fed to it, in order, optionally on a helper thread.

    ``zlib.crc32`` releases the GIL on large buffers, as file reads and writes do, so with a helper
    thread the checksum of piece k runs while the main thread reads or writes piece k+1: a save or
    a load costs about max(I/O, CRC) instead of their sum. Use it as a context manager (the thread
    is stopped on any exit) and read ``result()`` after every piece has been fed.
    """

    def __init__(self, threaded: bool, max_pending: int = 0) -> None:
        self._value = 0  # max_pending: pieces fed but not yet summed (0: any number)
        self._queue: queue.Queue | None = queue.Queue(max_pending) if threaded else None
        if self._queue is not None:
            self._thread = threading.Thread(target=self._run, name="checkpoint-crc", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while (piece := self._queue.get()) is not None:
            self._value = zlib.crc32(piece, self._value)

    def feed(self, piece: Any) -> None:
        if self._queue is None:
            self._value = zlib.crc32(piece, self._value)
        else:
            self._queue.put(piece)  # the piece must stay valid (and unchanged) until result()

    def result(self) -> int:
        if self._queue is not None:
            self._queue.put(None)
            self._thread.join()
            self._queue = None
        return self._value

    def __enter__(self) -> _RunningCrc:
        return self

    def __exit__(self, *exc: object) -> None:
        self.result()


def _pieces(data: Any, size: int = _CHUNK) -> Iterator[memoryview]:
    view = memoryview(data).cast("B")
    for start in range(0, len(view), size):
        yield view[start : start + size]


def write_checkpoint(
    f: BinaryIO, obj: Any, make_pickler: Callable[[BinaryIO, Callable], pickle.Pickler]
) -> None:
    """Write ``obj`` to the open binary file ``f`` in the format above.

    ``make_pickler(stream, buffer_callback)`` builds the protocol-5 pickler (the safe-pickle module
    decides how tensors and arrays reduce); every buffer it reports is written out of band.
    """
    lengths: list[int] = []
    with _RunningCrc(threaded=True, max_pending=2) as crc:

        def write(data: Any) -> None:
            # Each piece is copied first, and the copy is both written and checksummed: another
            # thread may be changing the arrays while they are saved (a training step during a
            # background save), and a checksum of other bytes than the written ones would make
            # the file unloadable. So the file may be torn, as PyTorch's is, but it loads. The
            # copies are small and at most 3 wait for the checksum: memory stays flat.
            for piece in _pieces(data, _SNAPSHOT):
                snapshot = bytes(piece)
                crc.feed(snapshot)  # checksummed on the helper thread while it is being written
                f.write(snapshot)

        def on_buffer(buf: pickle.PickleBuffer) -> bool:
            view = buf.raw()  # a flat byte view of the array's memory, no copy
            write(view)
            lengths.append(view.nbytes)
            return False  # False = out of band: the pickle stream only records NEXT_BUFFER

        write(_HEADER.pack(MAGIC, FORMAT_VERSION, 0))
        stream = io.BytesIO()
        make_pickler(stream, on_buffer).dump(obj)
        payload = stream.getvalue()
        write(payload)
        write(struct.pack(f"<{len(lengths)}Q", *lengths))
        write(struct.pack("<QQ", len(lengths), len(payload)))
        value = crc.result()
    f.write(struct.pack("<I", value) + END)


def open_checkpoint(path: str | os.PathLike, name: str) -> BinaryIO:
    """Open the file at ``path`` for ``read_checkpoint`` (unbuffered: arrays are read into place).

    A checkpoint is read by seeking to its footer, so only a regular file (or a block device)
    holds one. The open does not wait (O_NONBLOCK): opening a FIFO would otherwise block until
    some process opens it for writing, a hang; a FIFO, a socket or a character device
    (``/dev/zero``) is refused by name instead.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", os.fspath(path))
        if not (stat.S_ISREG(mode) or stat.S_ISBLK(mode)):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else (
                "a character device")  # fmt: skip
            raise CheckpointError(
                f"{name}: not a regular file but {kind}; a checkpoint is read from a file (its "
                "footer is found by seeking): save it to a file, or read it into io.BytesIO first"
            )
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        os.close(fd)
        raise


def read_checkpoint(f: BinaryIO, name: str, mmap: bool = False) -> tuple[bytes, list[np.ndarray]]:
    """Check and read a checkpoint: ``(pickle bytes, out-of-band buffers)``.

    Every structural fact is checked against the file size before anything is allocated, and the
    checksum is compared before anything is unpickled; each failure raises ``CheckpointError``
    naming ``name`` and what is wrong. With ``mmap=True`` the buffers are views of a private
    (copy-on-write) memory map of the file instead of fresh allocations: pages are read when
    first touched (the checksum touches each once) and writes to them never reach the file.
    """
    try:
        base = f.tell()
        f.seek(base)
        # (a file of /proc or /sys is "regular" but cannot seek to its end: EINVAL)
        size = f.seek(0, io.SEEK_END) - base
    except (AttributeError, OSError, ValueError) as err:  # a pipe, a socket: the footer is last
        raise CheckpointError(
            f"{name}: cannot read a checkpoint from a stream that cannot seek ({err}); save it to "
            "a file, or read it into io.BytesIO first"
        ) from None  # a file object may hold a checkpoint after other data: it runs to the end
    if size == 0:
        raise CheckpointError(f"{name}: the file is empty (0 bytes), so it holds no checkpoint")
    f.seek(base)
    start = _read_exact(f, min(size, len(MAGIC)), name)
    if not MAGIC.startswith(start):  # first: a short pickle or text is no truncated checkpoint
        raise CheckpointError(_not_a_checkpoint(name, start))
    if size < MIN_SIZE:
        raise CheckpointError(
            f"{name}: the file is truncated: {size} bytes, fewer than the {MIN_SIZE} bytes of even "
            "an empty checkpoint"
        )
    f.seek(base)
    header = _read_exact(f, _HEADER.size, name)
    _, version, _ = _HEADER.unpack(header)
    if version != FORMAT_VERSION:
        raise CheckpointError(
            f"{name}: written in checkpoint format version {version}; this minigenesis reads "
            f"version {FORMAT_VERSION}"
        )

    f.seek(base + size - _FOOTER.size)
    footer = _read_exact(f, _FOOTER.size, name)
    n_buffers, pickle_length, stored_crc, end = _FOOTER.unpack(footer)
    if end != END:
        raise CheckpointError(
            f"{name}: the file is truncated or was not completely written: its last 8 bytes are "
            f"not the end marker ({size} bytes in the file)"
        )
    room = size - MIN_SIZE  # bytes between header and footer: arrays + pickle + index
    if n_buffers > room // 8 or pickle_length > room:
        raise CheckpointError(
            f"{name}: the file is corrupt: its footer announces {n_buffers} arrays and a "
            f"{pickle_length}-byte pickle, more than the file's {size} bytes can hold"
        )
    f.seek(base + size - _FOOTER.size - 8 * n_buffers)
    index = _read_exact(f, 8 * n_buffers, name)
    lengths = struct.unpack(f"<{n_buffers}Q", index)
    described = MIN_SIZE + sum(lengths) + pickle_length + 8 * n_buffers
    if described != size:
        raise CheckpointError(
            f"{name}: the file is corrupt or truncated: its index describes {described} bytes "
            f"but the file has {size}"
        )

    # Sequential pass: read everything once, checksumming as it arrives.
    f.seek(base + _HEADER.size)
    mapped = _map_file(f, name) if mmap else None
    buffers = []
    with _RunningCrc(threaded=size >= _THREAD_MIN) as crc:
        crc.feed(header)
        at = base + _HEADER.size
        for length in lengths:
            if mapped is not None:  # a view of the file's pages; its only reference is the map
                buf = np.frombuffer(mapped, dtype=np.uint8, count=length, offset=at)
                for piece in _pieces(buf):
                    crc.feed(piece)
            else:
                buf = np.empty(length, dtype=np.uint8)  # becomes the array's memory (no copy)
                _readinto(f, buf, crc, name)
            buffers.append(buf)
            at += length
        f.seek(at)
        payload = _read_exact(f, pickle_length, name)  # bytes as read: no second copy of it
        crc.feed(payload)
        crc.feed(index)
        crc.feed(footer[:16])
        computed = crc.result()
    if computed != stored_crc:
        raise CheckpointError(
            f"{name}: the file is corrupt: its CRC32 checksum does not match (stored "
            f"0x{stored_crc:08x}, computed 0x{computed:08x}); it was damaged after it was written"
        )
    return payload, buffers


def _map_file(f: BinaryIO, name: str) -> _mmap.mmap:
    """A private, writable memory map of the whole file (MAP_PRIVATE: what the loaded tensors
    write stays in this process, as with ``torch.load(mmap=True)``)."""
    try:
        return _mmap.mmap(f.fileno(), 0, access=_mmap.ACCESS_COPY)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation) as err:
        raise ValueError(
            f"{name}: mmap=True needs a file on disk (a path, or a file object with a fileno), "
            f"got {type(f).__name__} ({err})"
        ) from None


def _not_a_checkpoint(name: str, start: bytes) -> str:
    """The error for a file not beginning with MAGIC, with a hint where its format is known."""
    hint = ""
    if start[:1] == b"\x80":
        hint = " (it looks like a plain pickle: if you trust it, read it with pickle.load)"
    elif start[:4] == b"PK\x03\x04":  # torch.save's format since PyTorch 1.6 is a zip
        hint = (
            " (it is a zip archive, as torch.save writes: read it with torch.load(path, "
            "weights_only=True) and convert each tensor with mg.tensor(t.numpy()))"
        )
    return f"{name}: not a minigenesis checkpoint: it starts with {start!r}, not {MAGIC!r}{hint}"


def _read_exact(f: BinaryIO, n: int, name: str) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise CheckpointError(f"{name}: the file ended early (it changed while being read?)")
    return data


def _readinto(f: BinaryIO, target: Any, crc: _RunningCrc, name: str) -> None:
    """Fill ``target`` from ``f`` piece by piece, feeding each piece to ``crc`` once it is in."""
    for piece in _pieces(target):
        got = 0
        while got < len(piece):
            n = f.readinto(piece[got:])
            if not n:
                raise CheckpointError(f"{name}: the file ended early (changed while being read?)")
            got += n
        crc.feed(piece)
