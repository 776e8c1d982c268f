"""DistributedDataParallel: the same model on every process, each on its own slice of the batch.

Every rank holds a full copy of the model. Each step, rank r runs forward and backward on its
own B/N samples; the gradients are then AVERAGED over the ranks, so every copy takes the same
optimizer step and the copies stay identical. With a loss that is a mean over the batch,

    (1/N) sum_r  grad (1/(B/N)) sum_{i in slice r} loss_i  =  grad (1/B) sum_i loss_i,

the averaged gradient is exactly the single-process gradient on the whole batch B.

What makes it fast (and what this file does):

- Buckets. Gradients are all-reduced in few large messages, not one per parameter: each
  message costs a fixed latency plus its bytes over the bandwidth, so many small ones waste the
  latency. Parameters are packed, in reverse order of ``module.parameters()`` (roughly the order
  backward produces their gradients), into buckets of about ``bucket_cap_mb`` MB (the first one
  small, 1 MB, so that communication starts early).
- Overlap. A hook on each parameter runs as soon as backward has accumulated its gradient; when
  every gradient of a bucket is in, the bucket's all-reduce is started *without waiting* (a
  non-blocking MPI_Iallreduce, or NCCL on its own stream) while backward goes on computing the
  gradients of earlier layers. Buckets start in the same order on every rank (collectives must
  match). When the last bucket has started, the reducer waits for all of them and writes the
  averages back into each ``param.grad``: by the time ``loss.backward()`` returns, the gradients
  are averaged.
- ``no_sync()``: gradient accumulation without communication; the gradients of the micro-batches
  add up locally and the next synchronised backward averages the sum.

At construction the ranks first check that they hold the same model (every parameter's and
buffer's name, shape and dtype, in order: a RuntimeError on every rank names the first that
differs, instead of all-reduces of different sizes that MPI would run silently or wait on for
ever), then rank 0's parameters and buffers are broadcast, so every copy starts equal;
``broadcast_buffers`` re-broadcasts the buffers (BatchNorm's running statistics) at each forward.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ... import distributed as dist
from ..._tensor import Tensor
from ...autograd import no_grad
from ...autograd.function import Function
from ...autograd.grad_mode import state
from ...backend import get_array_module
from ...distributed.collectives import _all_reduce
from ...distributed.process_group import default_backend
from ..module import Module

MB = 1024 * 1024
FIRST_BUCKET_BYTES = 1 * MB  # PyTorch's first bucket: small, so the first all-reduce starts early


class DistributedDataParallel(Module):
    """Data-parallel training of ``module`` over the default process group (PyTorch's API).

    Gradients are averaged over the ranks during ``backward()``; the wrapped model is
    ``ddp.module`` (save ``ddp.module.state_dict()`` for a checkpoint without the prefix).
    ``device_ids``: the one GPU this process uses (``[local_rank]``) or None on the CPU.
    ``find_unused_parameters``: set when some parameters may get no gradient in a step (they
    then take part with zeros, so the buckets still complete).
    """

    def __init__(
        self,
        module: Module,
        device_ids: list | None = None,
        output_device: Any = None,
        dim: int = 0,
        broadcast_buffers: bool = True,
        init_sync: bool = True,
        process_group: Any = None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
    ) -> None:
        super().__init__()
        backend = default_backend()  # raises if init_process_group was not called
        if process_group is not None and process_group is not dist.group.WORLD:
            raise NotImplementedError("only the default process group is supported")
        if not isinstance(module, Module):
            raise TypeError(f"module must be an nn.Module, got {type(module).__name__}")
        params = _unique([p for p in module.parameters() if p.requires_grad])
        if not params:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any parameter "
                "that requires a gradient."
            )
        devices = {p.device for p in params}
        if len(devices) > 1:
            raise ValueError(f"the module's parameters must be on one device, found {devices}")
        device = next(iter(devices))
        if device_ids is not None:
            if device.type != "cuda" or len(device_ids) != 1:
                raise ValueError(
                    "device_ids must be None for a CPU module, or [the one GPU of this process] "
                    f"for a CUDA module; got {device_ids} for a module on {device}"
                )
            want = getattr(device_ids[0], "index", device_ids[0])
            if device.index is not None and int(want) != device.index:
                raise ValueError(f"device_ids {device_ids} but the module is on {device}")
        if bucket_cap_mb is not None and not bucket_cap_mb > 0:
            raise ValueError(f"bucket_cap_mb must be positive, got {bucket_cap_mb}")
        self.module = module
        self.device_ids, self.output_device, self.dim = device_ids, output_device, dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view, self.static_graph = gradient_as_bucket_view, static_graph
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * MB)
        self.require_backward_grad_sync = True  # False inside no_sync()
        self.require_forward_param_sync = True
        self.world_size = backend.size
        _check_same_model(module)
        if init_sync:
            _broadcast_coalesced(list(module.parameters()) + list(module.buffers()))
        names = {id(p): n for n, p in module.named_parameters()}
        object.__setattr__(
            self,
            "reducer",
            _Reducer(
                params,
                [names.get(id(p), "?") for p in params],
                self.bucket_bytes_cap,
                backend,
                find_unused_parameters,
            ),
        )  # fmt: skip  (not a submodule: kept out of state_dict)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        sync = self.require_backward_grad_sync and state.grad_enabled
        if sync:
            self.reducer.check_previous_finished()
        if self.broadcast_buffers and self.require_forward_param_sync and self.world_size > 1:
            buffers = list(self.module.buffers())
            if buffers:
                _broadcast_coalesced(buffers)
        output = self.module(*inputs, **kwargs)
        self.reducer.prepare(output if sync else None)
        return output

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Forward/backward passes inside accumulate gradients locally, without communication;
        the first synchronised backward after it averages the accumulated sum."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def extra_repr(self) -> str:
        return f"world_size={self.world_size}, buckets={len(self.reducer.buckets)}"


class _Bucket:
    """Gradients of a few parameters, packed end to end into one flat array."""

    def __init__(self, indices: list[int], params: list[Tensor]) -> None:
        self.indices = indices  # positions in the reducer's parameter list
        self.offsets, n = [], 0
        for i in indices:
            self.offsets.append(n)
            n += params[i].numel()
        first = params[indices[0]]._data
        self.flat = get_array_module(first).zeros(n, dtype=first.dtype)
        self.nbytes = self.flat.nbytes
        self.missing = len(indices)
        self.work: Any = None


class _Reducer:
    """Per-parameter hooks -> buckets -> non-blocking all-reduces -> averaged ``.grad``."""

    def __init__(self, params: list[Tensor], names: list[str], cap: int, backend: Any,
                 find_unused: bool) -> None:  # fmt: skip
        self.params, self.names, self.backend = params, names, backend
        self.find_unused = find_unused
        self.buckets = _assign_buckets(params, cap)
        self.where = {}  # parameter index -> (bucket, slot in the bucket)
        for bucket in self.buckets:
            for slot, i in enumerate(bucket.indices):
                self.where[i] = (bucket, slot)
        self.expecting = False  # a synchronised forward ran: its backward must reduce
        self.started = False  # a hook of the current backward has fired
        self.ready = [False] * len(params)
        self.unused: list[int] = []  # find_unused_parameters: not reached from the outputs
        self.next_bucket = 0
        for i, p in enumerate(params):
            p.register_post_accumulate_grad_hook(self._hook(i))

    # ------------------------------------------------------------------ one iteration
    def check_previous_finished(self) -> None:
        if self.started:
            missing = [self.names[i] for i, r in enumerate(self.ready) if not r]
            self.started = self.expecting = False
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a "
                "new one: these parameters got no gradient in the last backward: "
                f"{', '.join(missing)}. If some parameters do not take part in producing the "
                "loss, pass find_unused_parameters=True to DistributedDataParallel; make sure "
                "the forward outputs all take part in the loss."
            )

    def prepare(self, output: Any) -> None:
        """Called by forward: a synchronised backward follows (output given) or not (None)."""
        self.expecting = output is not None
        self.started = False
        self.ready = [False] * len(self.params)
        self.next_bucket = 0
        for bucket in self.buckets:
            bucket.missing, bucket.work = len(bucket.indices), None
        self.unused = []
        if self.expecting and self.find_unused:
            reached = _leaves_reached(output)
            self.unused = [i for i, p in enumerate(self.params) if id(p) not in reached]

    def _hook(self, i: int) -> Any:
        def hook(param: Tensor) -> None:
            if not self.expecting:  # no_sync, eval, or a backward without a DDP forward
                return
            if not self.started:
                self.started = True
                for j in self.unused:  # they take part with their gradient as it is (or zero)
                    self._mark_ready(j)
            if self.ready[i]:
                raise RuntimeError(
                    f"parameter {self.names[i]} got its gradient twice in one synchronised "
                    "backward (backward called twice after one forward?). Use no_sync() for "
                    "all but the last backward, or run forward again."
                )
            self._mark_ready(i)

        return hook

    def _mark_ready(self, i: int) -> None:
        bucket, slot = self.where[i]
        p = self.params[i]
        start, n = bucket.offsets[slot], p.numel()
        slot_view = bucket.flat[start : start + n]
        if p.grad is None:  # unused here: zeros, so the other ranks' gradients still average
            slot_view[...] = 0
        else:  # g / N into the bucket in one pass: the all-reduce's SUM is then the average
            xp = get_array_module(slot_view)
            xp.divide(p.grad._data.reshape(-1), self.backend.size, out=slot_view)
        self.ready[i] = True
        bucket.missing -= 1
        if bucket.missing == 0:
            self._launch_ready_buckets()
        else:
            self.backend.poke()  # let the all-reduces already in flight move on

    def _launch_ready_buckets(self) -> None:
        """Start complete buckets in bucket order (every rank must start the same all-reduces in
        the same order); after the last one, finish the iteration."""
        while self.next_bucket < len(self.buckets):
            bucket = self.buckets[self.next_bucket]
            if bucket.missing:
                return
            # no agreement step: the buckets' sizes were checked across the ranks at __init__
            bucket.work = _all_reduce(Tensor._make(bucket.flat), dist.ReduceOp.SUM, True, False)
            self.next_bucket += 1
        self._finish()

    def _finish(self) -> None:
        """Wait for every bucket and write the averages into the parameters' gradients."""
        used_anywhere = None
        if self.find_unused:  # a parameter no rank used keeps grad None, as in PyTorch
            xp = get_array_module(self.buckets[0].flat)
            used = Tensor._make(xp.ones(len(self.params), dtype="int32"))
            used._data[self.unused] = 0
            dist.all_reduce(used, op=dist.ReduceOp.MAX)
            used_anywhere = used.tolist()  # one read back to the host
        with no_grad():
            for bucket in self.buckets:
                bucket.work.wait()
                for slot, i in enumerate(bucket.indices):
                    p = self.params[i]
                    if used_anywhere is not None and not used_anywhere[i]:
                        continue
                    start, n = bucket.offsets[slot], p.numel()
                    avg = bucket.flat[start : start + n].reshape(p._data.shape)
                    if p.grad is None:
                        p.grad = Tensor._make(avg.copy())
                    else:
                        p.grad._data[...] = avg
                        p.grad._bump_version()
        self.expecting = self.started = False


def _assign_buckets(params: list[Tensor], cap: int) -> list[_Bucket]:
    """Pack the parameters, last first, into buckets of one dtype and device each, closing a
    bucket once it holds ``limit`` bytes (1 MB for the first bucket, then ``cap``)."""
    buckets: list[_Bucket] = []
    open_: dict[Any, tuple[list[int], int]] = {}  # (dtype, device) -> (indices, bytes)
    for i in reversed(range(len(params))):
        p = params[i]
        key = (p._data.dtype, p.device)
        indices, size = open_.get(key, ([], 0))
        indices.append(i)
        size += p._data.nbytes
        limit = FIRST_BUCKET_BYTES if not buckets else cap
        if size >= min(limit, cap):
            buckets.append(_Bucket(indices, params))
            open_.pop(key, None)
        else:
            open_[key] = (indices, size)
    for indices, _ in open_.values():
        buckets.append(_Bucket(indices, params))
    return buckets


def _leaves_reached(output: Any) -> set[int]:
    """ids of the leaf tensors the backward from ``output``'s tensors can reach."""
    stack, seen, leaves = list(_tensors_in(output)), set(), set()
    while stack:
        vertex = stack.pop()
        if id(vertex) in seen:
            continue
        seen.add(id(vertex))
        if isinstance(vertex, Function):
            stack.extend(edge[0] for edge in vertex.next_edges if edge is not None)
        elif isinstance(vertex, Tensor):
            if vertex.grad_fn is not None:
                stack.append(vertex.grad_fn)
            else:
                leaves.add(id(vertex))
    return leaves


def _tensors_in(obj: Any) -> Iterator[Tensor]:
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _tensors_in(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _tensors_in(item)


def _signature(module: Module) -> list[tuple[str, str, tuple, str]]:
    """What must be the same on every rank: each parameter and buffer, in order."""
    return [(kind, name, tuple(t.shape), str(t.dtype).replace("minigenesis.", ""))
            for kind, named in (("parameter", module.named_parameters()),
                                ("buffer", module.named_buffers()))
            for name, t in named]  # fmt: skip


def _check_same_model(module: Module) -> None:
    """RuntimeError on every rank (each gets every rank's signature) unless all ranks hold a
    model with the same parameters and buffers: names, shapes, dtypes, in the same order."""
    mine = _signature(module)
    everyone = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, mine)
    ref = everyone[0]
    for r, theirs in enumerate(everyone[1:], start=1):
        if theirs == ref:
            continue
        for i, (a, b) in enumerate(zip(ref, theirs)):
            if a != b:
                raise RuntimeError(
                    f"DistributedDataParallel expects the same model on every rank, but "
                    f"{a[0]} #{i} is {a[1]} {list(a[2])} {a[3]} on rank 0 and {b[0]} {b[1]} "
                    f"{list(b[2])} {b[3]} on rank {r} (ranks that differ from rank 0: "
                    f"{', '.join(str(q) for q, s in enumerate(everyone) if s != ref)})"
                )
        counts = [sum(1 for x in s if x[0] == "parameter") for s in (ref, theirs)]
        raise RuntimeError(
            f"DistributedDataParallel expects the same model on every rank, but rank {r} has "
            f"{counts[1]} parameters and {len(theirs) - counts[1]} buffers, while rank 0 has "
            f"{counts[0]} parameters and {len(ref) - counts[0]} buffers"
        )


def _broadcast_coalesced(tensors: list[Tensor], src: int = 0) -> None:
    """Every rank's tensors become rank src's: one broadcast per dtype and device, of all those
    tensors joined end to end."""
    groups: dict[Any, list[Tensor]] = {}
    for t in _unique(tensors):
        groups.setdefault((t._data.dtype, t.device), []).append(t)
    for group in groups.values():
        xp = get_array_module(group[0]._data)
        flat = xp.concatenate([t._data.reshape(-1) for t in group])
        dist.broadcast(Tensor._make(flat), src)
        start = 0
        for t in group:
            n = t._data.size
            t._data[...] = flat[start : start + n].reshape(t._data.shape)
            t._bump_version()
            start += n


def _unique(tensors: list[Tensor]) -> list[Tensor]:
    seen: set[int] = set()
    out = []
    for t in tensors:
        if id(t) not in seen:
            seen.add(id(t))
            out.append(t)
    return out
