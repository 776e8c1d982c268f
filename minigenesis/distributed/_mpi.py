"""The CPU backend: collectives on NumPy arrays through MPI (mpi4py), each bounded by a timeout.

Every function here takes contiguous NumPy arrays and hands them to MPI as they are: the buffer
protocol gives MPI the address, the element count and the MPI datatype (float16 included, MPICH
has it). ``collectives.py`` prepares those arrays (a contiguous copy of a strided tensor, bfloat16
widened to float32) and writes the results back.

Every collective is started without blocking (``MPI_Iallreduce`` ...), numbered (its sequence
number: the same on every rank, since every rank calls the same collectives in the same order)
and polled until it is done or the process group's timeout has passed (``timeouts.py``). MPI
moves the data forward whenever the process calls into MPI (testing or waiting on any request),
so ``MPIBackend.poke`` lets a caller drive that progress while it computes.

When a collective times out, this rank asks every other rank, over a second communicator kept for
that, which collective it is in (a roll call): a rank that is waiting in a collective answers
from its polling loop; a rank that does not answer within a short grace is busy elsewhere,
stopped or dead. The error names the collective, its number, the timeout and what each other
rank is doing; the process group is then unusable, and the job is aborted when this process
exits (``MPI_Abort``: the launcher stops every rank, a stopped one included).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
from typing import Any, NoReturn

import numpy as np

from .agreement import agreed, disagreement, fingerprint
from .timeouts import DistBackendError, DistError, poll_until, seconds

INSTALL_HINT = 'pip install -e ".[distributed]"'
ASK, ANSWER = 1, 2  # the roll call's message tags (on its own communicator)
# The length a rank announces for an object it could not pickle: the others then raise at once
# instead of waiting for bytes that never come (a value no real length, nor a stray int64, is).
PICKLE_FAILED = -0x7069636B6C65  # "pickle" in ASCII, negated


def import_mpi() -> Any:
    """mpi4py's MPI module, or an ImportError that says how to install it."""
    try:
        from mpi4py import MPI  # optional dependency: only distributed runs need it
    except ImportError as err:
        raise ImportError(
            f"minigenesis.distributed needs mpi4py and an MPI library ({err}); install them "
            f"with: {INSTALL_HINT}"
        ) from None
    return MPI


# Run by a small watchdog process while MPI starts: MPI_Init waits, inside C and holding the
# GIL, until every process of the job has called it, so no thread of this process can time it.
# It ignores Ctrl-C: the process it guards may never return from MPI_Init to act on one (a rank
# interrupted before it called MPI_Init never comes), so the watchdog must outlive it.
_INIT_WATCHDOG = """
import os, select, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
ready, _, _ = select.select([0], [], [], min(float(sys.argv[2]), 2.0**31))  # (select's limit)
if not ready:
    os.write(2, sys.argv[3].encode() + b"\\n")
    os.kill(int(sys.argv[1]), signal.SIGKILL)
"""


def start_watchdog(timeout: float, message: str) -> subprocess.Popen:
    """The watchdog of this process (``_INIT_WATCHDOG``): it writes ``message`` and kills this
    process unless its stdin is closed within ``timeout`` seconds. It runs in a session of its
    own, so a Ctrl-C sent to this process's group never reaches it (and it ignores one sent to it
    directly once it has started)."""
    return subprocess.Popen(
        [sys.executable, "-S", "-c", _INIT_WATCHDOG, str(os.getpid()), str(timeout), message],
        stdin=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip


def start_mpi(timeout: float) -> Any:
    """Import mpi4py (which starts MPI), stopping this process with a clear message if the other
    processes have not all started MPI within ``timeout`` seconds."""
    world = launched_world()
    if "mpi4py.MPI" in sys.modules or world is None or world[1] == 1:
        return import_mpi()  # already started, or alone: nothing to wait for
    message = (
        f"[rank {world[0]}] init_process_group timed out after {seconds(timeout)}: not every one "
        f"of the {world[1]} processes started (a rank that has not reached init_process_group, "
        f"or has stopped); stopping this process"
    )
    watchdog = start_watchdog(timeout, message)
    try:
        return import_mpi()
    finally:
        watchdog.stdin.close()  # end of file: the watchdog leaves quietly
        watchdog.wait()


class _Op:
    """One collective of this rank: its sequence number, name, what it moves, when it began."""

    def __init__(self, seq: int, name: str, detail: str) -> None:
        self.seq, self.name, self.detail = seq, name, detail
        self.started = time.monotonic()

    def summary(self) -> tuple[int, str, str]:
        return self.seq, self.name, self.detail

    def __str__(self) -> str:
        return describe(self.summary())


def describe(summary: tuple) -> str:
    """'all_reduce #2 (3 float32 elements, op sum)' from an op's summary (or a roll-call answer,
    which carries one more item: whether that rank is in the agreement step)."""
    seq, name, detail = summary[:3]
    return f"{name} #{seq}" + (f" ({detail})" if detail else "")


def _moves(buf: np.ndarray, op: str | None = None) -> str:
    return f"{buf.size} {buf.dtype} elements" + (f", op {op}" if op else "")


class MPIBackend:
    """One communicator (a duplicate of MPI_COMM_WORLD) and the collectives on it, each one
    bounded by ``timeout`` seconds."""

    name = "mpi"

    def __init__(self, timeout: float) -> None:
        MPI = import_mpi()
        self.MPI, self.timeout = MPI, timeout
        self.rank, self.size = MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()
        self.ops = {
            "sum": MPI.SUM, "product": MPI.PROD, "max": MPI.MAX, "min": MPI.MIN,
            "band": MPI.BAND, "bor": MPI.BOR, "bxor": MPI.BXOR,
        }  # fmt: skip
        self.seq = 0  # collectives started so far
        self.pending: list[tuple[Any, _Op]] = []  # requests in flight, tested by poke()
        self.waiting: _Op | None = None  # the collective this rank is waiting in
        self.agreeing = False  # ... in its agreement step, which found the ranks disagree
        self.broken: str | None = None  # why the group is unusable (a timeout or MPI error)
        self._replies: list = []  # roll-call answers being sent
        # Private duplicates: our messages can never match a user's own MPI_COMM_WORLD traffic,
        # and the roll call never matches a collective. Duplicating is itself a collective.
        init = _Op(0, "init_process_group", f"{self.size} processes")
        self.comm, first = MPI.COMM_WORLD.Idup()
        self.talk, second = MPI.COMM_WORLD.Idup()
        if not poll_until(lambda: MPI.Request.Testall([first, second]),
                          init.started + timeout):  # fmt: skip
            self._fail(f"[rank {self.rank}] init_process_group timed out after "
                       f"{seconds(timeout)}: not every one of the {self.size} processes "
                       "reached init_process_group")  # fmt: skip

    # Every collective returns None (done) or an MPI request (in flight).
    def all_reduce(self, buf: np.ndarray, op: str, async_op: bool, check: bool = True) -> Any:
        o = self._begin("all_reduce", _moves(buf, op), check=check)
        return self._run(self.comm.Iallreduce(self.MPI.IN_PLACE, buf, op=self.ops[op]), o,
                         async_op)  # fmt: skip

    def broadcast(self, buf: np.ndarray, src: int, async_op: bool) -> Any:
        o = self._begin("broadcast", f"{_moves(buf)}, from rank {src}")
        return self._run(self.comm.Ibcast(buf, root=src), o, async_op)

    def all_gather(self, send: np.ndarray, recv: np.ndarray, async_op: bool) -> Any:
        """recv (size * send.size elements) gets every rank's send, in rank order."""
        o = self._begin("all_gather", _moves(send))
        return self._run(self.comm.Iallgather(send, recv), o, async_op)

    def reduce_scatter(self, send: np.ndarray, recv: np.ndarray, op: str, async_op: bool) -> Any:
        """send holds size equal blocks; block r, reduced over the ranks, lands in rank r's recv."""
        o = self._begin("reduce_scatter", _moves(send, op))
        return self._run(self.comm.Ireduce_scatter_block(send, recv, op=self.ops[op]), o,
                         async_op)  # fmt: skip

    def barrier(self, async_op: bool) -> Any:
        o = self._begin("barrier", "")  # agreed on before the barrier starts
        return self._run(self.comm.Ibarrier(), o, async_op)

    def bcast_object(self, obj: Any, src: int, name: str = "broadcast_object_list") -> Any:
        """Rank src's picklable ``obj`` on every rank: its length, then its bytes."""
        op = self._begin(name, f"from rank {src}")
        data, failure = _pickled(obj) if self.rank == src else (b"", None)
        length = np.array([len(data) if failure is None else PICKLE_FAILED], dtype=np.int64)
        self._wait(self.comm.Ibcast(length, root=src), op)
        if failure is not None:  # the others were told, and raise too: the group stays usable
            raise failure
        if int(length[0]) == PICKLE_FAILED:
            raise DistError(f"[rank {self.rank}] {op}: rank {src} could not pickle the object "
                            "it broadcasts (its own error says why)")  # fmt: skip
        buf = np.frombuffer(data, dtype=np.uint8).copy() if self.rank == src else \
            self._receive_buffer(int(length[0]), src, op)  # fmt: skip
        self._wait(self.comm.Ibcast(buf, root=src), op)
        return obj if self.rank == src else self._unpickle(buf, src, op)

    def allgather_object(self, obj: Any, name: str = "all_gather_object", count: bool = True
                         ) -> list:  # fmt: skip
        """Every rank's picklable ``obj``, in rank order: the lengths, then the bytes."""
        op = self._begin(name, "", count)
        raw, failure = _pickled(obj)
        data = np.frombuffer(raw, dtype=np.uint8)
        lengths = np.empty(self.size, dtype=np.int64)
        mine = data.size if failure is None else PICKLE_FAILED
        self._wait(self.comm.Iallgather(np.array([mine], dtype=np.int64), lengths), op)
        if failure is not None:  # every rank saw it and raises: the group stays usable
            raise failure
        failed = [r for r, n in enumerate(lengths.tolist()) if n == PICKLE_FAILED]
        if failed:
            raise DistError(f"[rank {self.rank}] {op}: rank{'s' * (len(failed) > 1)} "
                            f"{', '.join(map(str, failed))} could not pickle "
                            f"{'their' if len(failed) > 1 else 'its'} object (its own error "
                            "says why)")  # fmt: skip
        for r, n in enumerate(lengths.tolist()):
            if n < 0:
                self._garbage(op, r, f"announced a length of {n} bytes")
        recv = self._receive_buffer(int(lengths.sum()), None, op)
        self._wait(self.comm.Iallgatherv(data, [recv, lengths.tolist()]), op)
        starts = np.cumsum(lengths) - lengths
        return [
            self._unpickle(recv[a : a + n], r, op) for r, (a, n) in enumerate(zip(starts, lengths))
        ]

    # ------------------------------------------------------------------ object messages
    # The ranks trust each other's objects (pickle, as PyTorch does), but a rank that runs a
    # *different* collective here sends bytes that are no length and no pickle: say so.
    def _receive_buffer(self, n: int, src: int | None, op: _Op) -> np.ndarray:
        if n < 0:
            self._garbage(op, src, f"announced a length of {n} bytes")
        try:
            return np.empty(n, dtype=np.uint8)
        except (MemoryError, ValueError) as err:
            self._garbage(op, src, f"announced {n} bytes, which cannot be allocated ({err})")

    def _unpickle(self, buf: np.ndarray, src: int | None, op: _Op) -> Any:
        try:
            return pickle.loads(buf.tobytes())
        except Exception as err:  # noqa: BLE001  (any failure of foreign bytes is the same error)
            self._garbage(op, src, f"sent {buf.size} bytes that are not a pickled object "
                                   f"({type(err).__name__}: {err})")  # fmt: skip

    def _garbage(self, op: _Op, src: int | None, what: str) -> NoReturn:
        who = "a rank" if src is None else f"rank {src}"
        self._fail(f"[rank {self.rank}] {op}: {who} {what}; the ranks called different "
                   "collectives (every rank must call the same ones, in the same order; set "
                   "MINIGENESIS_DISTRIBUTED_DEBUG=DETAIL to check each one)")  # fmt: skip

    # ------------------------------------------------------------------ requests
    def _begin(self, name: str, detail: str, count: bool = True, check: bool = True) -> _Op:
        """A new collective: numbered (``count``; the steps of another one are not) and, unless
        ``check`` is False, agreed on by every rank before it starts (``agreement.py``)."""
        if self.broken is not None:
            raise DistBackendError(f"{name}: the process group is unusable after an earlier "
                                   f"error: {self.broken}")  # fmt: skip
        if count:
            self.seq += 1
        op = _Op(self.seq, name, detail)
        if count and check and self.size > 1:
            self._agree(op)
        return op

    def _agree(self, op: _Op) -> None:
        """Every rank is about to run ``op`` as this one describes it; else each one asks the
        others (the roll call) what they run and raises: DistError when all of them are in
        this step too (no data moved), DistBackendError when one is elsewhere (DDP's unchecked
        gradient all-reduce, say: its data met this step, and the group is unusable)."""
        mine = fingerprint(op.name, op.detail)
        both = np.array([mine, ~mine], dtype=np.int64)  # as bytes: see agreement.py
        request = self.comm.Iallreduce(self.MPI.IN_PLACE, [both.view(np.uint8), self.MPI.BYTE],
                                       op=self.MPI.BAND)  # fmt: skip
        self._wait(request, op)
        if agreed(mine, both):
            return
        self.waiting, self.agreeing = op, True  # what the others' roll calls hear meanwhile
        try:
            answers, _ = self._roll_call()
        finally:
            self.waiting, self.agreeing = None, False
        message, usable = disagreement(self.rank, op.summary(), self.size, answers)
        if usable:
            raise DistError(message)
        self._fail(message)

    def _run(self, request: Any, op: _Op, async_op: bool) -> Any:
        if async_op:
            self.pending.append((request, op))
            return request
        self._wait(request, op)
        return None

    def wait(self, request: Any) -> None:
        self._wait(request, self._op_of(request))
        self._forget(request)

    def test(self, request: Any) -> bool:
        done = self._test(request, self._op_of(request))
        if done:
            self._forget(request)
        return done

    def poke(self) -> None:
        """Let MPI progress the collectives in flight (MPICH moves data only inside MPI calls),
        and answer a roll call meanwhile."""
        if self.pending:
            try:
                self.MPI.Request.Testall([r for r, _ in self.pending])
            except self.MPI.Exception as err:
                self._fail(f"[rank {self.rank}] {self.pending[0][1]} failed: {err}")
            self._answer()

    def _op_of(self, request: Any) -> _Op:
        return next((o for r, o in self.pending if r is request), _Op(self.seq, "collective", ""))

    def _test(self, request: Any, op: _Op) -> bool:
        try:
            return request.Test()
        except self.MPI.Exception as err:  # e.g. a message longer than the receive buffer
            self._fail(f"[rank {self.rank}] {op} failed: {err}")

    def _wait(self, request: Any, op: _Op) -> None:
        """Wait for ``request`` until ``op``'s start + timeout; then the roll call and an error."""
        self.waiting = op  # kept through the roll call: a rank asking meanwhile hears where
        try:
            done = poll_until(lambda: self._test(request, op), op.started + self.timeout,
                              self._answer)  # fmt: skip
            if not done:
                self._expire(op)
        finally:
            self.waiting = None

    def _forget(self, request: Any) -> None:
        self.pending = [(r, o) for r, o in self.pending if r is not request]

    # ------------------------------------------------------------------ the roll call
    def _where(self) -> tuple[int, str, str, bool] | None:
        """What this rank is doing, for another rank's roll call: the op's summary and whether
        this rank is in its agreement step."""
        if self.waiting is not None:
            return (*self.waiting.summary(), self.agreeing)
        return (*self.pending[0][1].summary(), False) if self.pending else None

    def _answer(self) -> None:
        """Answer every roll call that has arrived (non-blocking)."""
        status = self.MPI.Status()
        while self.talk.Iprobe(source=self.MPI.ANY_SOURCE, tag=ASK, status=status):
            asker = status.Get_source()
            self.talk.recv(source=asker, tag=ASK)
            self._replies.append(self.talk.isend(self._where(), dest=asker, tag=ANSWER))

    def _expire(self, op: _Op) -> None:
        """``op`` timed out: ask the other ranks where they are, then raise (naming them)."""
        answers, grace = self._roll_call()
        others = [r for r in range(self.size) if r != self.rank]
        self._fail(roll_call_message(self.rank, op, self.timeout, others, answers, grace))

    def _roll_call(self) -> tuple[dict[int, Any], float]:
        """Ask every other rank where it is; {rank: its answer} (within a grace, in seconds)."""
        others = [r for r in range(self.size) if r != self.rank]
        asks = [self.talk.isend(None, dest=r, tag=ASK) for r in others]
        answers: dict[int, Any] = {}
        status = self.MPI.Status()

        def heard_all() -> bool:
            while self.talk.Iprobe(source=self.MPI.ANY_SOURCE, tag=ANSWER, status=status):
                source = status.Get_source()
                answers[source] = self.talk.recv(source=source, tag=ANSWER)
            self._answer()  # the others may be asking too
            return len(answers) == len(others)

        grace = min(1.0, max(0.5, self.timeout / 10))  # a busy machine may be slow to answer
        poll_until(heard_all, time.monotonic() + grace)
        self._answer()  # a rank that asked just now hears this one before it goes on
        del asks  # never waited for: a stopped rank never takes them
        return answers, grace

    def _fail(self, message: str) -> NoReturn:
        self.broken = message
        raise DistBackendError(message)

    def close(self) -> None:
        """Finish the collectives in flight (bounded) and free the communicators; after an
        error there is nothing to finish (the job is aborted when the process exits)."""
        if self.broken is None:
            for request, op in list(self.pending):
                self._wait(request, op)
            self.comm.Free()
            self.talk.Free()
        self.pending = []


def _pickled(obj: Any) -> tuple[bytes, Exception | None]:
    """``(pickle.dumps(obj), None)``, or ``(b"", the error)`` for an object pickle refuses."""
    try:
        return pickle.dumps(obj), None
    except Exception as err:  # noqa: BLE001  (any failure: reported to the others, then raised)
        return b"", err


def roll_call_message(rank: int, op: _Op, timeout: float, others: list[int],
                      answers: dict[int, Any], grace: float) -> str:  # fmt: skip
    """The timeout error: the collective, its number, the timeout, and what each rank does."""
    lines = [
        f"[rank {rank}] {op} timed out after {seconds(timeout)} (the process group's timeout: "
        "init_process_group(timeout=...) or MINIGENESIS_DISTRIBUTED_TIMEOUT)"
    ]
    missing = [r for r in others if r not in answers or answers[r] is None]
    if missing:
        names = ", ".join(map(str, missing))
        lines.append(
            f"rank{'s' if len(missing) > 1 else ''} {names} did not arrive (no answer within "
            f"{seconds(grace)}: busy outside a collective, stopped or dead)"
        )
    elsewhere = {r: a for r, a in answers.items() if a is not None and a[:2] != (op.seq, op.name)}
    for r, where in sorted(elsewhere.items()):
        lines.append(
            f"rank {r} is in {describe(where)} instead: the ranks called different "
            "collectives (every rank must call the same ones, in the same order)"
        )
    same = {r: a for r, a in answers.items() if a is not None and a[:2] == (op.seq, op.name)}
    if same:
        ranks = ", ".join(map(str, sorted(same)))
        lines.append(f"rank{'s' if len(same) > 1 else ''} {ranks} reached it too")
        differ = [f"rank {r}: {a[2]}" for r, a in sorted(same.items()) if a[2] != op.detail]
        if differ:
            lines[-1] += f", with other arguments ({'; '.join(differ)}; this rank: {op.detail})"
    if not missing and not elsewhere:
        lines.append("set MINIGENESIS_DISTRIBUTED_DEBUG=DETAIL to check every collective's "
                     "shapes and dtypes across the ranks")  # fmt: skip
    return "; ".join(lines)


def launched_world() -> tuple[int, int] | None:
    """(rank, size) from the environment an MPI launcher (mpiexec) gives each process, or None.
    Read before MPI starts, so that a mismatch with RANK/WORLD_SIZE can be named clearly."""
    for rank_var, size_var in (("PMI_RANK", "PMI_SIZE"), ("OMPI_COMM_WORLD_RANK",
                                                         "OMPI_COMM_WORLD_SIZE")):  # fmt: skip
        if rank_var in os.environ and size_var in os.environ:
            return int(os.environ[rank_var]), int(os.environ[size_var])
    return None
