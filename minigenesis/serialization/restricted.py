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
- views of such an array only through ``_rebuild_view(root, token, shape, strides, offset)``,
  every element inside the root's bytes (tensors that shared memory when saved share it again);
- tensors only through ``_rebuild_tensor``/``_rebuild_parameter`` (optionally inside
  ``_rebuild_located``) from such an array;
- sparse COO tensors only through ``_rebuild_sparse_coo(indices, values, size, coalesced)`` from
  such tensors, with every index checked against the size.

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

import struct
from collections.abc import Callable
from typing import Any, NoReturn

from ..backend import device
from ..dtypes import DType
from . import user_globals as _user
from .format import CheckpointError
from .memory_budget import MemoryBudget
from .pickling import RENAMED, PlacementError, UnsafeCheckpointError
from .restricted_calls import (
    _CALLABLES,
    _MODULE_ALIASES,
    _Global,
    _refusal,
    _trusted_call,
    allowed_globals,
)
from .restricted_opcodes import _DISPATCH, _OPCODE_NAMES, _op_STOP
from .restricted_result import MAX_DEPTH, _check_result

__all__ = ["MAX_DEPTH", "WORK_FACTOR", "allowed_globals", "restricted_load"]

WORK_FACTOR = 4  # copies may cost at most this many units per byte of the file
_SLACK = 1 << 20  # ... plus this, so tiny files may still hold a few small copies
_MAX_KEY_BITS = 60  # int keys below 2**60 hash to themselves: no crafted collisions

# The types that may be dict keys or set items.
_KEY_TYPES = (type(None), bool, float, str, bytes, DType, device)


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
            found = _Global(f"{module}.{name}", trusted, _trusted_call(trusted), user=True)
        self.stack.append(found)

    def forbid(self) -> NoReturn:
        raise UnsafeCheckpointError(
            f"opcode {self.opcode} is not allowed in a weights_only=True load (here: only on a "
            "class allowed with mg.serialization.add_safe_globals)"
        )


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
