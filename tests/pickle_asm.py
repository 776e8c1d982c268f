"""A tiny pickle assembler for the safety tests: hostile payloads are written as opcode bytes,
never by pickling a dangerous object, and wrapped in a valid checkpoint (header, CRC) so that
only the unpickler stands between the bytes and the caller."""

from __future__ import annotations

import io
import pickle
import struct
from collections.abc import Iterable

from minigenesis.serialization.format import write_checkpoint

PROTO = b"\x80\x05"
STOP = pickle.STOP
MARK = pickle.MARK
NONE = pickle.NONE
TRUE = pickle.NEWTRUE
FALSE = pickle.NEWFALSE
TUPLE = pickle.TUPLE
TUPLE1, TUPLE2, TUPLE3 = pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3
EMPTY_TUPLE = pickle.EMPTY_TUPLE
EMPTY_LIST, APPEND, APPENDS = pickle.EMPTY_LIST, pickle.APPEND, pickle.APPENDS
EMPTY_DICT, SETITEM, SETITEMS = pickle.EMPTY_DICT, pickle.SETITEM, pickle.SETITEMS
REDUCE, BUILD = pickle.REDUCE, pickle.BUILD
MEMOIZE = pickle.MEMOIZE
NEXT_BUFFER = pickle.NEXT_BUFFER
POP = pickle.POP


def text(s: str) -> bytes:
    raw = s.encode()
    if len(raw) < 256:
        return pickle.SHORT_BINUNICODE + bytes([len(raw)]) + raw
    return pickle.BINUNICODE + struct.pack("<I", len(raw)) + raw


def raw_bytes(b: bytes) -> bytes:
    return pickle.BINBYTES + struct.pack("<I", len(b)) + b


def integer(n: int) -> bytes:
    if 0 <= n < 256:
        return pickle.BININT1 + bytes([n])
    if -(2**31) <= n < 2**31:
        return pickle.BININT + struct.pack("<i", n)
    size = (n.bit_length() + 8) // 8
    return pickle.LONG4 + struct.pack("<i", size) + n.to_bytes(size, "little", signed=True)


def glob(module: str, name: str) -> bytes:
    """STACK_GLOBAL: push the named global."""
    return text(module) + text(name) + pickle.STACK_GLOBAL


def tup(*items: bytes) -> bytes:
    return MARK + b"".join(items) + TUPLE


def call(module: str, name: str, *args: bytes) -> bytes:
    """``module.name(*args)`` as GLOBAL + args tuple + REDUCE."""
    return glob(module, name) + tup(*args) + REDUCE


def binput(index: int) -> bytes:
    return pickle.LONG_BINPUT + struct.pack("<I", index)


def binget(index: int) -> bytes:
    return pickle.LONG_BINGET + struct.pack("<I", index)


def program(*parts: bytes) -> bytes:
    """A complete pickle: PROTO 5, the parts, STOP."""
    return PROTO + b"".join(parts) + STOP


def checkpoint_bytes(raw: bytes, buffers: Iterable[bytes] = ()) -> bytes:
    """``raw`` pickle bytes (and out-of-band ``buffers``) as a valid checkpoint file."""

    class RawPickler:
        def __init__(self, stream, buffer_callback):
            self.stream, self.callback = stream, buffer_callback

        def dump(self, obj):
            for buf in buffers:
                self.callback(pickle.PickleBuffer(buf))
            self.stream.write(raw)

    out = io.BytesIO()
    write_checkpoint(out, None, RawPickler)
    return out.getvalue()


def wrap_pickle(raw: bytes, path, buffers: Iterable[bytes] = ()) -> None:
    """Write ``raw`` as a valid checkpoint file at ``path``."""
    with open(path, "wb") as f:
        f.write(checkpoint_bytes(raw, buffers))
