"""The ``weights_only=True`` loader: a small pickle interpreter that knows what checkpoints use.

Why not ``pickle.Unpickler`` with a ``find_class`` allow-list? Because an allow-list of *globals*
guards only one opcode. The others are trusted to be harmless, and with NumPy in the allow-list
they are not: BUILD hands attacker-chosen state to ``numpy.dtype.__setstate__``, which can build an
"object" dtype whose "holds Python objects" flags are cleared; NumPy's own rebuild helpers then
read raw bytes from the file as ``PyObject*`` pointers. That is a segfault, a heap read or, with
address randomisation off, a call of ``os.system`` from a 100-byte file. The C unpickler also
trusts the file's numbers: a memo index of 2**27 makes it allocate 2 GB, a 75-byte file builds
a 2 GB bytearray.

So this loader allows *opcodes*, not just names. It implements the ~40 opcodes that
``CheckpointPickler`` (protocol 5) and plain protocols 2-5 emit for checkpoint data (containers,
scalars, strings, bytes, the memo, out-of-band buffers) and refuses everything else (INST, OBJ,
NEWOBJ_EX, EXT*, persistent ids, the text opcodes of protocols 0-1; NEWOBJ and BUILD too, unless
they act on a class the user allowed with ``add_safe_globals``, see ``user_globals.py``) with an
``UnsafeCheckpointError`` that names the file and the opcode. REDUCE calls only the callables in
``_CALLABLES`` (and those the user allowed), each behind a check of its arguments' exact types:

- arrays only through ``_rebuild_array(bytes, token, shape, fortran)`` with a numeric dtype token
  ('<f4': bool/int/uint/float/complex, or 'ml_dtypes:bfloat16') and a shape whose size times the
  item size equals the buffer length. No dtype object ever comes from the file;
- tensors only through ``_rebuild_tensor``/``_rebuild_parameter`` (optionally inside
  ``_rebuild_located``) from such an array.

And it bounds what a file can make it do:

- every length field is checked against the bytes left before anything is allocated;
- the memo is a dict (an index is a key, never a size);
- marks nest at most ``MAX_DEPTH`` deep, and the result must be a tree or DAG of containers at
  most ``MAX_DEPTH`` deep, without cycles;
- dict keys and set items are scalars with cheap, collision-resistant hashes (so a file cannot
  make building a dict quadratic);
- every opcode does work proportional to the bytes it reads or the values it pops, except the
  copies (``list(x)``, ``set(x)``, a tensor copied from read-only bytes or placed on a device),
  which are charged (one unit per element or byte) against ``WORK_FACTOR`` times the file's size
  (pickle and arrays): the total work is linear in the file.

A checkpoint's pickle is small (the arrays are out-of-band buffers), so a Python loop is fast
enough: a 10-million-parameter model with its Adam state (900 tensors, 25,000 opcodes) costs
about 30 ms more than the C unpickler.
"""

from __future__ import annotations

import codecs
import collections
import functools
import pickle
import pickletools
import re
import struct
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from .._tensor import Tensor, _rebuild_tensor
from ..backend import device
from ..dtypes import DType, from_numpy_dtype, get_dtype
from ..nn.parameter import _rebuild_parameter
from ..size import Size
from . import user_globals as _user
from .format import CheckpointError
from .memory_budget import MemoryBudget
from .pickling import (
    _HOME,
    RENAMED,
    PlacementError,
    UnsafeCheckpointError,
    _rebuild_array,
    _rebuild_located,
    _rebuild_scalar,
    call_placer,
)

MAX_DEPTH = 100  # nesting of containers (and of MARKs): real checkpoints are < 10 deep
WORK_FACTOR = 4  # copies may cost at most this many units per byte of the file
_SLACK = 1 << 20  # ... plus this, so tiny files may still hold a few small copies
_MAX_KEY_BITS = 60  # int keys below 2**60 hash to themselves: no crafted collisions
_MAX_NDIM = 32
_LOCATION = re.compile(r"(cpu|cuda)(:(0|[1-9][0-9]{0,2}))?")  # cuda:N, N < 1000

# Types that may sit in the result, and the ones that may be dict keys or set items.
_LEAVES = (type(None), bool, int, float, complex, str, bytes, bytearray, slice, Tensor, DType, Size,
           device, np.ndarray, np.generic, memoryview)  # fmt: skip
_KEY_TYPES = (type(None), bool, float, str, bytes, DType, device)


class _Global:
    """An allow-listed global on the stack. Only REDUCE may use it (it calls ``call``, which
    checks the arguments first); the object itself never reaches the result."""

    __slots__ = ("qualname", "obj", "call")

    def __init__(self, qualname: str, obj: Any, call: Callable[[_Interpreter, tuple], Any]) -> None:
        self.qualname, self.obj, self.call = qualname, obj, call

    def __repr__(self) -> str:
        return self.qualname


class _Interpreter:
    """One ``weights_only=True`` load of one payload. Use ``restricted_load``."""

    def __init__(self, payload: bytes, buffers: list, name: str, place: Callable) -> None:
        self.data = bytes(payload)  # (no copy for bytes) slices of it are the strings' bytes
        self.pos = 0
        self.name = name
        self.place = place
        self.buffers = buffers
        self.next_buffer = 0
        self.stack: list[Any] = []  # the values since the last MARK ...
        self.metastack: list[list] = []  # ... and the stacks below each MARK
        self.memo: dict[int, Any] = {}
        size = len(payload) + sum(b.nbytes for b in buffers)  # the file: pickle and arrays
        self.work_left = WORK_FACTOR * size + _SLACK
        self.memory = MemoryBudget(size)  # what the objects built may take
        self.at = 0  # where the current opcode starts

    # ------------------------------------------------------------------ small helpers
    def fail(self, message: str) -> NoReturn:
        raise CheckpointError(message)

    def charge(self, units: int) -> None:
        """Pay for a copy; a file that asks for more copying than it carries is refused."""
        self.work_left -= units
        if self.work_left < 0:
            self.fail(
                f"the payload asks for more copying than the file's size allows "
                f"({WORK_FACTOR} x its bytes); it was not written by save()"
            )

    def take(self, n: int) -> bytes:
        """The next ``n`` payload bytes; a length field is checked *before* any allocation."""
        if n > len(self.data) - self.pos:
            self.fail(f"a length field says {n} bytes but only {len(self.data) - self.pos} remain")
        start = self.pos
        self.pos += n
        return self.data[start : self.pos]

    def unpack(self, fmt: struct.Struct) -> Any:
        return fmt.unpack(self.take(fmt.size))[0]

    def byte(self) -> int:
        """A one-byte argument (the common case: memo indices, short lengths, small ints)."""
        if self.pos >= len(self.data):
            self.fail("the pickle ends inside an opcode")
        self.pos += 1
        return self.data[self.pos - 1]

    def pop_mark(self) -> list:
        """The values pushed since the last MARK (like pickle's own metastack)."""
        if not self.metastack:
            self.fail("an opcode needs a MARK but none is set")
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    # ------------------------------------------------------------------ the loop
    def run(self) -> Any:
        data = self.data
        dispatch = _DISPATCH
        if data[:1] != b"\x80":
            self.fail("the pickle does not start with PROTO (protocol 2 or later expected)")
        try:
            while True:
                if self.pos >= len(data):
                    self.fail("the pickle ends without STOP")
                self.at = self.pos
                handler = dispatch.get(data[self.pos])
                self.pos += 1
                if handler is None:
                    raise UnsafeCheckpointError(
                        f"opcode {self.opcode} is not allowed in a weights_only=True load (it "
                        "only understands the opcodes of plain data: containers, scalars, "
                        "strings, bytes, tensors and arrays)"
                    )
                if handler is _op_STOP:
                    return self.finish()
                depth = len(self.stack)
                handler(self)
                self.memory.after(self.stack, data[self.at], depth)
        except IndexError:  # list.pop() or [-1] on an empty stack: the handlers do not check
            self.fail("stack underflow (an opcode needs a value that is not there)")

    def finish(self) -> Any:
        if self.metastack or len(self.stack) != 1:
            self.fail(f"STOP with {len(self.stack)} values on the stack (expected exactly one)")
        if self.pos != len(self.data):
            self.fail(f"{len(self.data) - self.pos} bytes follow STOP")
        if self.next_buffer != len(self.buffers):
            self.fail(
                f"the file carries {len(self.buffers)} arrays but the pickle uses "
                f"{self.next_buffer} of them"
            )
        result = self.stack.pop()
        _check_result(result, self.fail)
        return result

    @property
    def opcode(self) -> str:
        """The name of the opcode being run (for messages)."""
        if self.at >= len(self.data):
            return "(end of the pickle)"
        code = self.data[self.at]
        return _OPCODE_NAMES.get(code, f"0x{code:02x} (no such opcode)")

    def where(self) -> str:
        return f"opcode {self.opcode} at byte {self.at} of the pickle"

    # ------------------------------------------------------------------ checks used by opcodes
    def check_key(self, key: Any) -> None:
        """Dict keys and set items: scalars whose hashes a file cannot make collide en masse."""
        if type(key) is int:
            if key.bit_length() > _MAX_KEY_BITS:
                self.fail(f"a dict key or set item is an int of {key.bit_length()} bits (max 60)")
        elif type(key) not in _KEY_TYPES:
            self.fail(
                f"a dict key or set item is a {type(key).__name__}; a weights_only=True load "
                "accepts str, int, float, bool, None and bytes keys"
            )

    def resolve(self, as_written: Any, name: Any) -> None:
        if type(as_written) is not str or type(name) is not str:
            self.fail("a global's module and name must be strings")
        module = _MODULE_ALIASES.get(as_written, as_written)
        if module.startswith("numpy._core"):  # NumPy 2's name for numpy.core
            module = "numpy.core" + module[len("numpy._core") :]
        module, name = RENAMED.get((module, name), (module, name))
        found = _CALLABLES.get((module, name))
        if found is None:
            trusted = _user.user_global(f"{module}.{name}")
            if trusted is None:
                raise UnsafeCheckpointError(_refusal(module, name, as_written))
            found = _Global(f"{module}.{name}", trusted, _trusted_call(trusted))
        self.stack.append(found)

    def forbid(self) -> NoReturn:
        raise UnsafeCheckpointError(
            f"opcode {self.opcode} is not allowed in a weights_only=True load (here: only on a "
            "class allowed with mg.serialization.add_safe_globals)"
        )


# ---------------------------------------------------------------------------------------------
# Opcode handlers (the name after "_op_" is the opcode's name in pickletools)
# ---------------------------------------------------------------------------------------------
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
    value = u.stack.pop()
    _target(u, (list,), "lists are appended to").append(value)


def _op_APPENDS(u: _Interpreter) -> None:
    items = u.pop_mark()
    _target(u, (list,), "lists are appended to").extend(items)


_DICTS = (dict, collections.OrderedDict)


def _op_SETITEM(u: _Interpreter) -> None:
    value = u.stack.pop()
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
        target[items[i]] = items[i + 1]


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
def _trusted_call(obj: Callable) -> Callable[[_Interpreter, tuple], Any]:
    """REDUCE on a global the user allowed: ``obj(*args)`` (the user trusts the call)."""

    def call(u: _Interpreter, args: tuple) -> Any:
        return obj(*args)

    return call


def _op_NEWOBJ(u: _Interpreter) -> None:
    args = u.stack.pop()
    cls = u.stack.pop()
    if type(cls) is not _Global or not _user.is_user_class(cls.obj):
        u.forbid()
    if type(args) is not tuple:
        u.fail(f"NEWOBJ: {cls.qualname} needs a tuple of arguments, got {type(args).__name__}")
    u.stack.append(cls.obj.__new__(cls.obj, *args))


def _op_BUILD(u: _Interpreter) -> None:
    state = u.stack.pop()
    inst = u.stack[-1]
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


# ---------------------------------------------------------------------------------------------
# The callables REDUCE may call, each with the exact argument types it accepts
# ---------------------------------------------------------------------------------------------
def _args(u: _Interpreter, qualname: str, args: tuple, *types: tuple) -> None:
    """Refuse ``args`` unless it has one value of the listed exact types per position."""
    if len(args) == len(types):
        for arg, ok in zip(args, types):
            if type(arg) not in ok:
                break
        else:
            return
    got = ", ".join(type(a).__name__ for a in args)
    want = ", ".join("|".join(t.__name__ for t in ok) for ok in types)
    u.fail(f"{qualname} called with ({got}); it takes ({want})")


def _array_from_file(u: _Interpreter, args: tuple) -> np.ndarray:
    q = "_rebuild_array"
    _args(u, q, args, (bytes, bytearray, np.ndarray, memoryview), (str,), (tuple,), (bool,))
    buf, token, shape, _ = args
    if type(buf) is memoryview:
        if type(buf.obj) not in (np.ndarray, bytes, bytearray):
            u.fail(f"{q}: a buffer view of a {type(buf.obj).__name__}")
        buf = buf.obj  # private to this load: a read-only view need not stay read-only
    if type(buf) is np.ndarray and (buf.dtype != np.uint8 or buf.ndim != 1):
        u.fail(f"{q}: the buffer must be raw bytes, not an array of {buf.dtype}")
    if len(token) > 32 or not _is_numeric_token(token):  # (a long one never enters the cache)
        raise UnsafeCheckpointError(
            f"{q}: dtype {token[:40]!r} is not a plain numeric dtype (bool, int, uint, float, "
            "complex, or an ml_dtypes type): a weights_only=True load builds nothing else from "
            "raw bytes. If you trust this file, load it with weights_only=False"
        )
    if len(shape) > _MAX_NDIM or any(type(n) is not int or not 0 <= n < 2**62 for n in shape):
        u.fail(f"{q}: a shape must be up to {_MAX_NDIM} non-negative ints")
    return _rebuild_array(buf, *args[1:])


@functools.lru_cache(maxsize=256)
def _is_numeric_token(token: str) -> bool:
    if token.startswith("ml_dtypes:"):
        return True  # _dtype_from_token checks the name against ml_dtypes' own types
    return re.fullmatch(r"[<>|=][biufc][0-9]{1,2}", token) is not None


def _scalar_from_file(u: _Interpreter, args: tuple) -> np.generic:
    _args(u, "_rebuild_scalar", args, (bytes,), (str,))
    if len(args[1]) > 32 or not _is_numeric_token(args[1]):
        u.fail(f"_rebuild_scalar: dtype {args[1][:40]!r} is not a plain numeric dtype")
    return _rebuild_scalar(*args)


def _tensor_from_file(rebuild: Callable) -> Callable[[_Interpreter, tuple], Tensor]:
    def call(u: _Interpreter, args: tuple) -> Tensor:
        _args(u, rebuild.__name__, args, (np.ndarray,), (bool,))
        array = args[0]
        from_numpy_dtype(array.dtype)  # TypeError (-> CheckpointError) for a non-tensor dtype
        if not array.flags.writeable:
            u.charge(array.nbytes)  # the rebuild copies it
        return rebuild(array, args[1])

    return call


def _located_from_file(u: _Interpreter, args: tuple) -> Tensor:
    _args(u, "_rebuild_located", args, (_Global,), (tuple,), (str,))
    rebuild, inner, location = args
    if rebuild not in (_CALLABLES[_TENSOR], _CALLABLES[_PARAMETER]):
        u.fail(f"_rebuild_located: {rebuild.qualname} does not rebuild a tensor")
    if not _LOCATION.fullmatch(location):
        u.fail(f"_rebuild_located: bad location {location[:40]!r}")
    t = rebuild.call(u, inner)
    u.charge(t._data.nbytes)  # placing may copy it to a device: once per tensor object
    return call_placer(u.place, t, location)


def _device_from_file(u: _Interpreter, args: tuple) -> device:
    _args(u, "device", args, (str,))
    if not _LOCATION.fullmatch(args[0]):
        u.fail(f"device {args[0][:40]!r} (expected 'cpu' or 'cuda:N', N < 1000)")
    return device(args[0])


def _dtype_by_name(u: _Interpreter, args: tuple) -> DType:
    _args(u, "get_dtype", args, (str,))
    return get_dtype(args[0])


def _ordered_dict(u: _Interpreter, args: tuple) -> collections.OrderedDict:
    _args(u, "OrderedDict", args)  # items follow as SETITEMS
    return collections.OrderedDict()


def _copying(kind: type) -> Callable[[_Interpreter, tuple], Any]:
    """``set(list)``, ``frozenset(list)``, ``list(list)`` (protocols 2-3, LRList): charged."""

    def call(u: _Interpreter, args: tuple) -> Any:
        if args == ():
            return kind()
        _args(u, kind.__name__, args, (list,))
        u.charge(len(args[0]))
        if kind is not list:
            for item in args[0]:
                u.check_key(item)
        return kind(args[0])

    return call


def _complex(u: _Interpreter, args: tuple) -> complex:
    _args(u, "complex", args, (float, int), (float, int))
    if any(type(a) is int and a.bit_length() > 1024 for a in args):
        u.fail("complex() with an int too large for a float")
    return complex(*args)


def _size(u: _Interpreter, args: tuple) -> Size:
    """``Size((2, 3))``: a tensor's shape (``x.shape``), from a tuple of ints."""
    _args(u, "Size", args, (tuple,))
    u.charge(len(args[0]))
    if any(type(n) is not int or not 0 <= n < 2**63 for n in args[0]):
        u.fail("Size() with a dimension that is not an int in [0, 2**63)")
    return Size(args[0])


def _slice(u: _Interpreter, args: tuple) -> slice:
    _args(u, "slice", args, *[(int, type(None))] * 3)
    return slice(*args)


def _encode(u: _Interpreter, args: tuple) -> bytes:
    # Protocol 2 has no bytes opcode: it writes bytes as _codecs.encode(text, "latin1").
    _args(u, "_codecs.encode", args, (str,), (str,))
    if args[1] not in ("latin1", "latin-1"):
        u.fail(f"_codecs.encode with encoding {args[1][:20]!r} (only latin1)")
    u.charge(len(args[0]))
    return args[0].encode("latin-1")


_TENSOR = ("minigenesis._tensor", "_rebuild_tensor")
_PARAMETER = ("minigenesis.nn.parameter", "_rebuild_parameter")


def _callables() -> dict[tuple[str, str], _Global]:
    table = {  # (module, name): (the object, the checked call that REDUCE makes)
        (_HOME, "_rebuild_array"): (_rebuild_array, _array_from_file),
        (_HOME, "_rebuild_scalar"): (_rebuild_scalar, _scalar_from_file),
        (_HOME, "_rebuild_located"): (_rebuild_located, _located_from_file),
        _TENSOR: (_rebuild_tensor, _tensor_from_file(_rebuild_tensor)),
        _PARAMETER: (_rebuild_parameter, _tensor_from_file(_rebuild_parameter)),
        ("minigenesis.dtypes", "get_dtype"): (get_dtype, _dtype_by_name),
        ("minigenesis.backend", "device"): (device, _device_from_file),
        ("collections", "OrderedDict"): (collections.OrderedDict, _ordered_dict),
        ("builtins", "set"): (set, _copying(set)),
        ("builtins", "frozenset"): (frozenset, _copying(frozenset)),
        ("builtins", "list"): (list, _copying(list)),
        ("builtins", "complex"): (complex, _complex),
        ("builtins", "slice"): (slice, _slice),
        ("minigenesis.size", "Size"): (Size, _size),
        ("_codecs", "encode"): (codecs.encode, _encode),
    }
    return {key: _Global(".".join(key), obj, call) for key, (obj, call) in table.items()}


_CALLABLES = _callables()
_MODULE_ALIASES = {"__builtin__": "builtins"}  # protocol 2 spells builtins the Python 2 way

# What NumPy's own pickling names (dtypes, scalars, arrays of strings/dates/records/objects).
_NUMPY_OWN = {
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"),
}


def allowed_globals() -> dict[tuple[str, str], Any]:
    """Every global a ``weights_only=True`` load may call, as {(module, name): object}; each
    call's arguments are checked first (see the module docstring)."""
    return {key: g.obj for key, g in _CALLABLES.items()}


def _refusal(module: str, name: str, as_written: str) -> str:
    if (module, name) in _NUMPY_OWN or module == "ml_dtypes":
        why = (
            "it is how NumPy pickles a dtype, a scalar or an array of a non-numeric dtype "
            "(strings, dates, records, objects). Those records can make NumPy read bytes of the "
            "file as memory addresses, so a weights-only load refuses them; save() writes "
            "numeric arrays and scalars without them. "
        )
    else:
        why = (
            "a weights-only load calls only the rebuild functions of tensors, numeric arrays "
            "and a few builtin containers, so that a malicious file cannot run code. If you "
            f"trust this class or function, allow it: mg.serialization.add_safe_globals([{name}])"
            f" (or the context manager mg.serialization.safe_globals([{name}])). "
        )
    return (
        f"weights_only=True refused to load the global '{as_written}.{name}': {why}If this "
        "file comes from a source you trust, load it with weights_only=False (unpickling it "
        "can then execute arbitrary code)."
    )


# ---------------------------------------------------------------------------------------------
# The result: a tree or DAG of containers, not too deep, no cycles, no stray globals
# ---------------------------------------------------------------------------------------------
_CONTAINERS = frozenset({list, tuple, dict, collections.OrderedDict, set, frozenset})
_PLAIN = frozenset({type(None), bool, int, float, str, bytes, Tensor})  # the common leaves, fast


def _children(obj: Any) -> Any:
    if type(obj) in (dict, collections.OrderedDict):
        return obj.values()  # the keys are scalars (check_key)
    return obj  # list, tuple, set, frozenset


def _check_result(root: Any, fail: Callable[[str], NoReturn]) -> None:
    """Walk the result once, iteratively (it may be deep), and refuse cycles, containers nested
    deeper than MAX_DEPTH, and values of a type no opcode here makes (a global never called).
    A container shared by several parents is walked once (its height is remembered), so the
    walk is linear in the number of objects even for a DAG."""

    def check_leaf(obj: Any) -> None:
        if type(obj) not in _PLAIN and not isinstance(obj, _LEAVES):
            if _user.is_user_class(type(obj)):
                return  # an object of a class the user allowed (add_safe_globals)
            fail(f"the result holds a {type(obj).__name__} (a global that was never called)")

    if type(root) not in _CONTAINERS:
        return check_leaf(root)
    height: dict[int, int] = {}  # id -> height of a finished container
    path: set[int] = set()  # the containers being walked (the ancestors of the current one)
    todo: list[tuple[Any, bool]] = [(root, False)]
    while todo:
        obj, finished = todo.pop()
        key = id(obj)
        if finished:
            path.discard(key)
            below = [height[id(c)] for c in _children(obj) if type(c) in _CONTAINERS]
            height[key] = 1 + max(below, default=0)
        elif key in path:
            fail("the result contains a reference cycle (a container inside itself)")
        elif len(path) + height.get(key, 1) > MAX_DEPTH:
            fail(f"containers nest deeper than {MAX_DEPTH}")
        elif key not in height:
            path.add(key)
            todo.append((obj, True))
            for child in _children(obj):
                if type(child) in _CONTAINERS:
                    todo.append((child, False))
                else:
                    check_leaf(child)


def restricted_load(payload: bytes, buffers: list, name: str, place: Callable) -> Any:
    """Interpret ``payload`` (with its out-of-band ``buffers``) under the rules above.

    Every failure is a ``CheckpointError`` (``UnsafeCheckpointError`` for what is forbidden
    rather than broken) naming the file, the opcode and its position; errors of
    ``map_location`` itself pass through unchanged (``PlacementError``).
    """
    u = _Interpreter(payload, buffers, name, place)
    try:
        return u.run()
    except PlacementError:
        raise
    except CheckpointError as err:
        raise type(err)(f"{name}: {err} ({u.where()})") from None
    except Exception as err:  # MemoryError and RecursionError included
        raise CheckpointError(
            f"{name}: the payload passed its checksum but is malformed: {type(err).__name__}: "
            f"{err} ({u.where()}); the file was not written by save()"
        ) from err
    finally:
        u.stack.clear()  # the partial objects go now, not with the traceback
        u.metastack.clear()
        u.memo.clear()
