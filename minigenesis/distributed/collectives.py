"""Collective operations on tensors: every rank calls the same one, in the same order.

    all_reduce(t, op)         every rank's t becomes op(t_0, ..., t_{N-1})     (in place)
    broadcast(t, src)         every rank's t becomes t_src                      (in place)
    all_gather(list, t)       list[r] becomes t_r on every rank
    all_gather_into_tensor    out = cat(t_0, ..., t_{N-1}) (or their stack)
    reduce_scatter(out, list) out on rank r becomes op over ranks of list[r]
    reduce_scatter_tensor     the same with the N pieces as one tensor's blocks

``async_op=True`` returns a ``Work`` at once; the data move while the caller computes, and
``work.wait()`` finishes the operation (the tensors hold the result from then on).

How a tensor reaches the backend: the backend needs one contiguous buffer of a type it can
reduce. A contiguous tensor is handed over as it is (reduced in place, no copy); a strided view
travels as a contiguous copy that is written back afterwards. bfloat16, which MPI has no type
for, travels as float32 (exact) and is rounded back once at the end. AVG is a SUM divided by the
world size (integers: divided toward zero, as NCCL does).

Every collective is bounded by the process group's timeout (``timeouts.py``). On the MPI
backend each one begins with a 16-byte agreement (``agreement.py``): a rank that runs another
collective, or passes another element count, dtype, op or root, makes every rank raise DistError
at once, naming what each runs, before any data moves (MPI would reduce two tensors of different
sizes without a word, and abort the job inside MPICH on different dtypes). With
``MINIGENESIS_DISTRIBUTED_DEBUG=DETAIL`` (PyTorch: ``TORCH_DISTRIBUTED_DEBUG=DETAIL``) the ranks
also exchange the shapes and the arguments, and a mismatch raises a RuntimeError on every rank.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

from .._tensor import Tensor
from ..backend import get_array_module
from ..functions import stack
from .process_group import _check_group, default_backend


class ReduceOp(enum.Enum):
    """How ``all_reduce`` / ``reduce_scatter`` combine the ranks' values."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"

    def __repr__(self) -> str:
        return f"ReduceOp.{self.name}"


class Work:
    """A collective in flight (``async_op=True``). ``wait()`` finishes it: afterwards the
    tensors hold the result (on a GPU: the current stream is ordered after it). ``is_completed()``
    asks without blocking."""

    def __init__(self, backend: Any, request: Any, finish: Callable[[], None],
                 result: list) -> None:  # fmt: skip
        self._backend, self._request, self._finish = backend, request, finish
        self._result = result
        self._done = False

    def _complete(self) -> None:
        self._done = True
        self._request = None
        self._finish()  # copy back / cast / divide, once

    def wait(self, timeout: Any = None) -> bool:
        """Finish the collective (bounded by the process group's timeout)."""
        if not self._done:
            self._backend.wait(self._request)
            self._complete()
        return True

    def is_completed(self) -> bool:
        if not self._done and self._backend.test(self._request):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self.is_completed()

    def result(self) -> list:
        """The output tensors (after ``wait()``)."""
        return self._result


# ---------------------------------------------------------------------------------------------
# Buffers: tensor <-> what the backend can carry
# ---------------------------------------------------------------------------------------------
def _check_tensor(t: Any, what: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{what} must be a minigenesis Tensor, got {type(t).__name__}")
    return t


def _check_device(backend: Any, t: Tensor, what: str) -> None:
    on_gpu = t.device.type == "cuda"
    if backend.name == "nccl" and not on_gpu:
        raise RuntimeError(f"{what} is on the CPU, but backend 'nccl' reduces CUDA tensors; "
                           "move it with .cuda() or use backend='mpi'")  # fmt: skip
    if backend.name == "mpi" and on_gpu:
        raise RuntimeError(f"{what} is on {t.device}, but backend 'mpi' reduces CPU tensors; "
                           "use backend='nccl' for CUDA tensors")  # fmt: skip


def _wire_dtype(backend: Any, dtype: Any) -> Any:
    """The element type the backend carries for ``dtype`` (a NumPy dtype)."""
    xp_name = "bfloat16" if dtype.kind == "V" else str(dtype)
    if dtype.kind == "b":
        return "uint8"
    if xp_name == "bfloat16" and not (backend.name == "nccl" and backend.supports("bfloat16")):
        return "float32"
    if backend.name == "nccl" and not backend.supports(xp_name):
        raise TypeError(f"NCCL cannot reduce {xp_name} tensors")
    return dtype


def _wire_op(op: ReduceOp, dtype: Any) -> str:
    """The backend op for ``op`` on ``dtype``; AVG is a SUM (divided afterwards)."""
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op must be a ReduceOp (ReduceOp.SUM, ...), got {op!r}")
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype.kind not in "biu":
        raise TypeError(f"{op!r} needs an integer or bool tensor, got {dtype}")
    if dtype.kind == "b":  # bools travel as 0/1 bytes: any for SUM/MAX/BOR, all for PRODUCT/MIN
        return {ReduceOp.PRODUCT: "min", ReduceOp.MIN: "min", ReduceOp.BAND: "min",
                ReduceOp.BXOR: "bxor"}.get(op, "max")  # fmt: skip
    return "sum" if op is ReduceOp.AVG else op.value


class _Buffer:
    """One tensor's data as the backend sees it, and how to write the result back."""

    def __init__(self, backend: Any, t: Tensor, what: str, write: bool) -> None:
        _check_device(backend, t, what)
        data = t._data
        if write and not getattr(data.flags, "writeable", True):  # (CuPy has no such flag)
            raise RuntimeError(f"{what} is a read-only (expanded) view: the collective writes "
                               "into it; pass a .clone()")  # fmt: skip
        self.t, self.xp = t, get_array_module(data)
        wire = _wire_dtype(backend, data.dtype)
        self.in_place = data.flags.c_contiguous and wire == data.dtype
        if self.in_place:
            self.flat = data.reshape(-1)  # a view: the backend works in the tensor's memory
        else:
            self.flat = self.xp.ascontiguousarray(data).astype(wire).reshape(-1)

    def write_back(self, flat: Any = None) -> None:
        """Put ``flat`` (default: this buffer) into the tensor, in its dtype and layout."""
        flat = self.flat if flat is None else flat
        t = self.t
        if flat is not self.flat or not self.in_place:
            t._data[...] = flat.reshape(t._data.shape).astype(t._data.dtype, copy=False)
        t._bump_version()


def _average(xp: Any, flat: Any, n: int) -> None:
    """flat /= n in place; integers are divided toward zero (NCCL's integer average)."""
    if flat.dtype.kind == "f":
        flat /= flat.dtype.type(n)
    else:
        flat[...] = xp.sign(flat) * (xp.abs(flat) // n)


def _launch(backend: Any, request: Any, finish: Callable[[], None], async_op: bool,
            result: list) -> Work | None:  # fmt: skip
    if request is None:  # the backend finished it already (a blocking call)
        finish()
        if not async_op:
            return None
        work = Work(backend, None, lambda: None, result)
        work._done = True  # async_op=True always gets a Work, here already complete
        return work
    work = Work(backend, request, finish, result)
    if not async_op:
        work.wait()
        return None
    return work


def _agree(backend: Any, name: str, tensors: Sequence[Tensor], **args: Any) -> None:
    """MINIGENESIS_DISTRIBUTED_DEBUG=DETAIL: every rank must be about to run the same collective
    with the same shapes, dtypes and arguments; RuntimeError on every rank otherwise."""
    if not getattr(backend, "detail", False):
        return
    mine = (name, [(tuple(t.shape), str(t.dtype).replace("minigenesis.", "")) for t in tensors],
            sorted((k, repr(v)) for k, v in args.items()))  # fmt: skip
    everyone = backend.allgather_object(mine, name=f"{name} (DETAIL check)", count=False)
    differ = [r for r, theirs in enumerate(everyone) if theirs != everyone[0]]
    if differ:
        r = differ[0]
        raise RuntimeError(
            f"Detected mismatch between collectives on ranks. Rank 0 is running "
            f"{_fingerprint(everyone[0])}, but rank {r} is running {_fingerprint(everyone[r])} "
            f"(collective #{backend.seq + 1}; ranks that differ from rank 0: "
            f"{', '.join(map(str, differ))})"
        )


def _fingerprint(fp: tuple) -> str:
    name, tensors, args = fp
    shapes = ", ".join(f"{list(shape)} {dtype}" for shape, dtype in tensors)
    extra = "".join(f", {k}={v}" for k, v in args)
    return f"{name}(tensors: {shapes or 'none'}{extra})"


# ---------------------------------------------------------------------------------------------
# The collectives
# ---------------------------------------------------------------------------------------------
def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM, group: Any = None,
               async_op: bool = False) -> Work | None:  # fmt: skip
    """In place on every rank: ``tensor = op(tensor on rank 0, ..., tensor on rank N-1)``."""
    _check_group(group)
    return _all_reduce(tensor, op, async_op)


def _all_reduce(tensor: Tensor, op: ReduceOp, async_op: bool, check: bool = True
                ) -> Work | None:  # fmt: skip
    """all_reduce; ``check=False`` skips the MPI backend's agreement on what every rank reduces
    (``agreement.py``): for callers that checked their shapes across the ranks already (DDP)."""
    backend = default_backend()
    t = _check_tensor(tensor, "all_reduce's tensor")
    wire_op = _wire_op(op, t._data.dtype)
    _agree(backend, "all_reduce", [t], op=op)
    buf = _Buffer(backend, t, "all_reduce's tensor", write=True)

    def finish() -> None:
        if op is ReduceOp.AVG:
            _average(buf.xp, buf.flat, backend.size)
        buf.write_back()

    request = backend.all_reduce(buf.flat, wire_op, async_op, check=check)
    return _launch(backend, request, finish, async_op, [t])


def broadcast(tensor: Tensor, src: int, group: Any = None, async_op: bool = False,
              group_src: int | None = None) -> Work | None:  # fmt: skip
    """In place on every rank: ``tensor = tensor on rank src``."""
    _check_group(group)
    backend = default_backend()
    src = src if group_src is None else group_src
    _check_rank(src, backend.size, "src")
    t = _check_tensor(tensor, "broadcast's tensor")
    _agree(backend, "broadcast", [t], src=src)
    buf = _Buffer(backend, t, "broadcast's tensor", write=True)
    request = backend.broadcast(buf.flat, src, async_op)
    return _launch(backend, request, buf.write_back, async_op, [t])


def all_gather(tensor_list: list, tensor: Tensor, group: Any = None,
               async_op: bool = False) -> Work | None:  # fmt: skip
    """``tensor_list[r]`` becomes rank r's ``tensor`` on every rank (a list of world-size
    tensors of tensor's shape and dtype)."""
    _check_group(group)
    backend = default_backend()
    t = _check_tensor(tensor, "all_gather's tensor")
    if not isinstance(tensor_list, (list, tuple)) or len(tensor_list) != backend.size:
        got = len(tensor_list) if isinstance(tensor_list, (list, tuple)) else type(tensor_list)
        raise ValueError(f"all_gather's tensor_list must hold world size = {backend.size} "
                         f"tensors, got {got}")  # fmt: skip
    for i, out in enumerate(tensor_list):
        _check_like(_check_tensor(out, f"tensor_list[{i}]"), t, f"tensor_list[{i}]")
    _agree(backend, "all_gather", [t])
    send = _Buffer(backend, t, "all_gather's tensor", write=False)
    xp = send.xp
    recv = xp.empty(backend.size * send.flat.size, dtype=send.flat.dtype)
    outs = [_Buffer(backend, o, f"tensor_list[{i}]", write=True)
            for i, o in enumerate(tensor_list)]  # fmt: skip

    def finish() -> None:
        for r, out in enumerate(outs):
            out.write_back(recv[r * send.flat.size : (r + 1) * send.flat.size])

    request = backend.all_gather(send.flat, recv, async_op)
    return _launch(backend, request, finish, async_op, list(tensor_list))


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: Any = None,
                           async_op: bool = False) -> Work | None:  # fmt: skip
    """``output_tensor`` becomes the ranks' inputs concatenated along dim 0 (shape
    (N * n0, ...)) or stacked (shape (N, n0, ...))."""
    _check_group(group)
    backend = default_backend()
    inp = _check_tensor(input_tensor, "input_tensor")
    out = _check_tensor(output_tensor, "output_tensor")
    _check_blocks(out, inp, backend.size, "output_tensor", "input_tensor")
    _agree(backend, "all_gather_into_tensor", [out, inp])
    send = _Buffer(backend, inp, "input_tensor", write=False)
    recv = _Buffer(backend, out, "output_tensor", write=True)
    request = backend.all_gather(send.flat, recv.flat, async_op)
    return _launch(backend, request, recv.write_back, async_op, [out])


def reduce_scatter(output: Tensor, input_list: list, op: ReduceOp = ReduceOp.SUM,
                   group: Any = None, async_op: bool = False) -> Work | None:  # fmt: skip
    """``output`` on rank r becomes ``op`` over the ranks of their ``input_list[r]``."""
    _check_group(group)
    backend = default_backend()
    out = _check_tensor(output, "reduce_scatter's output")
    if not isinstance(input_list, (list, tuple)) or len(input_list) != backend.size:
        raise ValueError(f"reduce_scatter's input_list must hold world size = {backend.size} "
                         "tensors")  # fmt: skip
    for i, t in enumerate(input_list):
        _check_like(_check_tensor(t, f"input_list[{i}]"), out, f"input_list[{i}]")
    xp = get_array_module(out._data)
    whole = stack([t.detach() for t in input_list])
    return _reduce_scatter(backend, out, whole, op, async_op, xp)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM,
                          group: Any = None, async_op: bool = False) -> Work | None:  # fmt: skip
    """``output`` on rank r becomes ``op`` over the ranks of block r of ``input`` (``input``:
    the N blocks concatenated along dim 0, or stacked)."""
    _check_group(group)
    backend = default_backend()
    out = _check_tensor(output, "output")
    inp = _check_tensor(input, "input")
    _check_blocks(inp, out, backend.size, "input", "output")
    return _reduce_scatter(backend, out, inp, op, async_op, get_array_module(out._data))


def _reduce_scatter(backend: Any, out: Tensor, whole: Tensor, op: ReduceOp, async_op: bool,
                    xp: Any) -> Work | None:  # fmt: skip
    wire_op = _wire_op(op, out._data.dtype)
    _agree(backend, "reduce_scatter", [out, whole], op=op)
    send = _Buffer(backend, whole, "input", write=False)
    recv = _Buffer(backend, out, "output", write=True)

    def finish() -> None:
        if op is ReduceOp.AVG:
            _average(xp, recv.flat, backend.size)
        recv.write_back()

    request = backend.reduce_scatter(send.flat, recv.flat, wire_op, async_op)
    return _launch(backend, request, finish, async_op, [out])


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> Work | None:
    """Return once every rank has called ``barrier``."""
    _check_group(group)
    backend = default_backend()
    _agree(backend, "barrier", [])
    request = backend.barrier(async_op)
    return _launch(backend, request, lambda: None, async_op, [])


def broadcast_object_list(object_list: list, src: int = 0, group: Any = None,
                          device: Any = None) -> None:  # fmt: skip
    """In place: every rank's ``object_list`` becomes rank src's (picklable objects)."""
    _check_group(group)
    backend = default_backend()
    _check_rank(src, backend.size, "src")
    _agree(backend, "broadcast_object_list", [], src=src, length=len(object_list))
    object_list[:] = backend.bcast_object(list(object_list), src)


def all_gather_object(object_list: list, obj: Any, group: Any = None) -> None:
    """``object_list[r]`` becomes rank r's ``obj`` (picklable) on every rank."""
    _check_group(group)
    backend = default_backend()
    if len(object_list) != backend.size:
        raise ValueError(f"object_list must have world size = {backend.size} entries")
    _agree(backend, "all_gather_object", [])
    object_list[:] = backend.allgather_object(obj)


# ---------------------------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------------------------
def _check_rank(r: Any, size: int, name: str) -> None:
    if not isinstance(r, int) or not 0 <= r < size:
        raise ValueError(f"{name} must be a rank in [0, {size}), got {r!r}")


def _check_like(t: Tensor, like: Tensor, what: str) -> None:
    if t.shape != like.shape or t.dtype != like.dtype or t.device != like.device:
        raise ValueError(
            f"{what} must match the tensor in shape, dtype and device: got "
            f"{tuple(t.shape)} {t.dtype} {t.device}, expected {tuple(like.shape)} {like.dtype} "
            f"{like.device}"
        )


def _check_blocks(big: Tensor, small: Tensor, n: int, big_name: str, small_name: str) -> None:
    """``big`` must be n of ``small`` concatenated along dim 0 or stacked on a new dim 0."""
    s = tuple(small.shape)
    cat = (s[0] * n, *s[1:]) if s else (n,)
    if tuple(big.shape) not in (cat, (n, *s)):
        raise ValueError(f"{big_name} must have shape {cat} or {(n, *s)} (world size {n} times "
                         f"{small_name}'s {s}), got {tuple(big.shape)}")  # fmt: skip
    if big.dtype != small.dtype:
        raise ValueError(f"{big_name} and {small_name} must share a dtype, got {big.dtype} and "
                         f"{small.dtype}")  # fmt: skip


__all__: Sequence[str] = (
    "ReduceOp", "Work", "all_reduce", "broadcast", "all_gather", "all_gather_into_tensor",
    "reduce_scatter", "reduce_scatter_tensor", "barrier", "broadcast_object_list",
    "all_gather_object",
)  # fmt: skip
