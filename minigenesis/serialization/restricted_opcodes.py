"""The opcodes a ``weights_only=True`` load understands, one handler each (the name after
``_op_`` is the opcode's name in ``pickletools``): containers, scalars, strings, bytes, the memo,
out-of-band buffers, globals and REDUCE; NEWOBJ and BUILD only on classes the user allowed.

Each handler does work proportional to the bytes it reads or the values it pops: lengths go
through ``_Interpreter.take`` (checked against the bytes left before anything is allocated), the
memo is a dict, dict keys and set items pass ``_Interpreter.check_key``. An opcode without a
handler here is refused by the interpreter's loop (``restricted.py``).
"""

from __future__ import annotations

import collections
import pickle
import pickletools
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import user_globals as _user
from .restricted_calls import _Global, as_value
from .restricted_result import MAX_DEPTH

if TYPE_CHECKING:
    from .restricted import _Interpreter

_U1, _U2, _I4, _U4, _U8 = (struct.Struct(f) for f in ("<B", "<H", "<i", "<I", "<Q"))
_F8 = struct.Struct(">d")


def _op_PROTO(u: _Interpreter) -> None:
    if u.pos != 1:
        u.fail("PROTO in the middle of the stream")
    proto = u.unpack(_U1)
    if not 2 <= proto <= 5:
        u.fail(f"pickle protocol {proto} (a weights_only=True load reads protocols 2 to 5)")


def _op_FRAME(u: _Interpreter) -> None:
    # Frames only group opcodes for buffered reading; the whole payload is already in memory.
    length = u.unpack(_U8)
    if length > len(u.data) - u.pos:
        u.fail(f"a FRAME of {length} bytes but only {len(u.data) - u.pos} remain")


def _op_STOP(u: _Interpreter) -> None:  # handled in run()
    raise AssertionError


def _op_MARK(u: _Interpreter) -> None:
    if len(u.metastack) >= MAX_DEPTH:
        u.fail(f"MARKs nest deeper than {MAX_DEPTH}")
    u.metastack.append(u.stack)
    u.stack = []


def _op_POP(u: _Interpreter) -> None:
    u.stack.pop()


def _op_POP_MARK(u: _Interpreter) -> None:
    u.pop_mark()


# -- scalars
def _op_NONE(u: _Interpreter) -> None:
    u.stack.append(None)


def _op_NEWTRUE(u: _Interpreter) -> None:
    u.stack.append(True)


def _op_NEWFALSE(u: _Interpreter) -> None:
    u.stack.append(False)


def _op_BININT(u: _Interpreter) -> None:
    u.stack.append(u.unpack(_I4))


def _op_BININT1(u: _Interpreter) -> None:
    u.stack.append(u.byte())


def _op_BININT2(u: _Interpreter) -> None:
    u.stack.append(u.unpack(_U2))


def _op_LONG1(u: _Interpreter) -> None:
    u.stack.append(int.from_bytes(u.take(u.byte()), "little", signed=True))


def _op_LONG4(u: _Interpreter) -> None:
    n = u.unpack(_I4)
    if n < 0:
        u.fail("LONG4 with a negative length")
    u.stack.append(int.from_bytes(u.take(n), "little", signed=True))


def _op_BINFLOAT(u: _Interpreter) -> None:
    u.stack.append(u.unpack(_F8))


# -- strings and bytes (take() checks the length against the bytes left, before the copy)
def _text(u: _Interpreter, n: int) -> None:
    try:
        u.stack.append(u.take(n).decode("utf-8", "surrogatepass"))
    except UnicodeDecodeError as err:
        u.fail(f"a string is not valid UTF-8 ({err.reason} at byte {err.start})")


def _op_SHORT_BINUNICODE(u: _Interpreter) -> None:
    _text(u, u.byte())


def _op_BINUNICODE(u: _Interpreter) -> None:
    _text(u, u.unpack(_U4))


def _op_BINUNICODE8(u: _Interpreter) -> None:
    _text(u, u.unpack(_U8))


def _op_SHORT_BINBYTES(u: _Interpreter) -> None:
    u.stack.append(u.take(u.byte()))


def _op_BINBYTES(u: _Interpreter) -> None:
    u.stack.append(u.take(u.unpack(_U4)))


def _op_BINBYTES8(u: _Interpreter) -> None:
    u.stack.append(u.take(u.unpack(_U8)))


def _op_BYTEARRAY8(u: _Interpreter) -> None:
    u.stack.append(bytearray(u.take(u.unpack(_U8))))


# -- out-of-band buffers (the arrays, read from the file by format.read_checkpoint)
def _op_NEXT_BUFFER(u: _Interpreter) -> None:
    if u.next_buffer >= len(u.buffers):
        u.fail(f"the pickle asks for more arrays than the file's {len(u.buffers)}")
    u.stack.append(u.buffers[u.next_buffer])
    u.next_buffer += 1


def _op_READONLY_BUFFER(u: _Interpreter) -> None:
    buf = u.stack.pop()
    if type(buf) not in (np.ndarray, bytes, bytearray, memoryview):
        u.fail(f"READONLY_BUFFER on a {type(buf).__name__}")
    u.stack.append(memoryview(buf).toreadonly())


# -- containers
def _op_EMPTY_LIST(u: _Interpreter) -> None:
    u.stack.append([])


def _op_EMPTY_DICT(u: _Interpreter) -> None:
    u.stack.append({})


def _op_EMPTY_SET(u: _Interpreter) -> None:
    u.stack.append(set())


def _op_EMPTY_TUPLE(u: _Interpreter) -> None:
    u.stack.append(())


def _op_TUPLE(u: _Interpreter) -> None:
    items = u.pop_mark()
    u.stack.append(tuple(items))


def _op_TUPLE1(u: _Interpreter) -> None:
    s = u.stack
    s[-1] = (s[-1],)


def _op_TUPLE2(u: _Interpreter) -> None:
    s = u.stack
    s[-2:] = [(s[-2], s[-1])]


def _op_TUPLE3(u: _Interpreter) -> None:
    s = u.stack
    s[-3:] = [(s[-3], s[-2], s[-1])]


def _target(u: _Interpreter, kinds: tuple[type, ...], what: str) -> Any:
    target = u.stack[-1]
    if type(target) not in kinds:
        u.fail(f"{u.opcode} on a {type(target).__name__} (only {what})")
    return target


def _op_APPEND(u: _Interpreter) -> None:
    value = as_value(u.stack.pop())
    _target(u, (list,), "lists are appended to").append(value)


def _op_APPENDS(u: _Interpreter) -> None:
    items = [as_value(item) for item in u.pop_mark()]
    _target(u, (list,), "lists are appended to").extend(items)


_DICTS = (dict, collections.OrderedDict)


def _op_SETITEM(u: _Interpreter) -> None:
    value = as_value(u.stack.pop())
    key = u.stack.pop()
    u.check_key(key)
    _target(u, _DICTS, "dicts take items")[key] = value


def _op_SETITEMS(u: _Interpreter) -> None:
    items = u.pop_mark()
    if len(items) % 2:
        u.fail("SETITEMS with an odd number of values")
    target = _target(u, _DICTS, "dicts take items")
    for i in range(0, len(items), 2):
        u.check_key(items[i])
        target[items[i]] = as_value(items[i + 1])


def _op_ADDITEMS(u: _Interpreter) -> None:
    items = u.pop_mark()
    target = _target(u, (set,), "sets take items")
    for item in items:
        u.check_key(item)
        target.add(item)


def _op_FROZENSET(u: _Interpreter) -> None:
    items = u.pop_mark()
    for item in items:
        u.check_key(item)
    u.stack.append(frozenset(items))


# -- the memo: a dict, so an index is a key and never a size
def _op_BINPUT(u: _Interpreter) -> None:
    u.memo[u.byte()] = u.stack[-1]


def _op_LONG_BINPUT(u: _Interpreter) -> None:
    u.memo[u.unpack(_U4)] = u.stack[-1]


def _op_MEMOIZE(u: _Interpreter) -> None:
    u.memo[len(u.memo)] = u.stack[-1]


def _get(u: _Interpreter, index: int) -> None:
    try:
        u.stack.append(u.memo[index])
    except KeyError:
        u.fail(f"memo entry {index} was never stored")


def _op_BINGET(u: _Interpreter) -> None:
    _get(u, u.byte())


def _op_LONG_BINGET(u: _Interpreter) -> None:
    _get(u, u.unpack(_U4))


# -- globals and calls
def _op_GLOBAL(u: _Interpreter) -> None:
    # Protocols 2-3 spell a global as two text lines, "module\nname\n".
    lines = []
    for _ in range(2):
        end = u.data.find(b"\n", u.pos, u.pos + 256)
        if end < 0:
            u.fail("GLOBAL without a newline in its first 256 bytes")
        try:
            lines.append(u.take(end - u.pos).decode("ascii"))
        except UnicodeDecodeError:
            u.fail("GLOBAL with a non-ASCII name")
        u.pos += 1  # the newline
    u.resolve(*lines)


def _op_STACK_GLOBAL(u: _Interpreter) -> None:
    name = u.stack.pop()
    u.resolve(u.stack.pop(), name)


def _op_REDUCE(u: _Interpreter) -> None:
    args = u.stack.pop()
    func = u.stack.pop()
    if type(func) is not _Global:
        u.fail(f"REDUCE on a {type(func).__name__}, not an allow-listed callable")
    if type(args) is not tuple:
        u.fail(f"REDUCE: {func.qualname} needs a tuple of arguments, got {type(args).__name__}")
    u.stack.append(func.call(u, args))


# -- objects of the classes the user allowed (add_safe_globals), as PyTorch's loader makes them
def _op_NEWOBJ(u: _Interpreter) -> None:
    args = u.stack.pop()
    cls = u.stack.pop()
    if type(cls) is not _Global or not _user.is_user_class(cls.obj):
        u.forbid()
    if type(args) is not tuple:
        u.fail(f"NEWOBJ: {cls.qualname} needs a tuple of arguments, got {type(args).__name__}")
    u.stack.append(cls.obj.__new__(cls.obj, *args))


def _is_state_dict_metadata(state: Any) -> bool:
    """Whether a BUILD state is ``{"_metadata": dict}``: what pickling a state_dict adds (its
    modules' versions). Nothing else may be set on an OrderedDict."""
    return (
        type(state) is dict and set(state) == {"_metadata"} and type(state["_metadata"]) in _DICTS
    )


def _op_BUILD(u: _Interpreter) -> None:
    state = u.stack.pop()
    inst = u.stack[-1]
    if type(inst) is collections.OrderedDict and _is_state_dict_metadata(state):
        inst._metadata = state["_metadata"]  # a state_dict's per-module versions, as PyTorch
        return
    if not _user.is_user_class(type(inst)):
        u.forbid()
    setstate = getattr(type(inst), "__setstate__", None)
    if setstate is not None:
        setstate(inst, state)
        return
    slots = None
    if type(state) is tuple and len(state) == 2:  # (__dict__ state, __slots__ state)
        state, slots = state
    for part in (state, slots):
        if part is not None and (type(part) is not dict or any(type(k) is not str for k in part)):
            u.fail(f"BUILD: the state of a {type(inst).__name__} must be a dict with str keys")
    if state:
        inst.__dict__.update(state)
    for key, value in (slots or {}).items():
        setattr(inst, key, value)


# opcode byte -> handler, from the handlers' names (pickle.MARK == b"(" ...)
_DISPATCH: dict[int, Callable[[_Interpreter], None]] = {
    getattr(pickle, name[4:])[0]: fn for name, fn in list(globals().items()) if name[:4] == "_op_"
}
_OPCODE_NAMES = {op.code.encode("latin-1")[0]: op.name for op in pickletools.opcodes}
