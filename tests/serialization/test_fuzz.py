"""Fuzzing the weights-only loader: mutated payloads of real checkpoints, in valid containers.

Each mutated pickle (bytes flipped, inserted, deleted, duplicated, cut short) is wrapped in a
checkpoint with a correct CRC, so only the unpickler stands between it and the caller. The
loader must answer ``CheckpointError`` or load something; any other exception, a hang or a crash
fails. Loads run in a child process (many payloads per child, for speed), so that a segfault
fails the test instead of killing pytest, and the child's address space is capped, so that an
allocation bomb fails too.
"""

from __future__ import annotations

import collections
import io
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pickle_asm import checkpoint_bytes

import minigenesis as mg
from minigenesis import nn
from minigenesis.serialization.format import read_checkpoint

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The child: load every file named on stdin, one per line; report each outcome on stdout.
CHILD = r"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # an allocation bomb fails, loudly
import minigenesis as mg
for line in sys.stdin:
    path = line.strip()
    print("start", path, flush=True)
    try:
        mg.load(path)
        print("ok", path, flush=True)
    except mg.CheckpointError:
        print("refused", path, flush=True)
    except BaseException as err:
        print("OTHER", path, type(err).__name__, str(err)[:300].replace("\n", " "), flush=True)
"""


def _base_objects() -> list:
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    opt = mg.optim.Adam(model.parameters(), lr=1e-2)
    sched = mg.optim.lr_scheduler.StepLR(opt, step_size=2)
    scaler = mg.amp.GradScaler()
    loss = model(mg.randn(5, 4)).sum()
    loss.backward()
    opt.step()
    sched.step()
    training = {
        "model_state_dict": model.state_dict(),
        "optimizer_state_dict": opt.state_dict(),
        "scheduler_state_dict": sched.state_dict(),
        "scaler_state_dict": scaler.state_dict(),
        "epoch": 3,
        "rng_state": mg.get_rng_state(),
        "history": [{"loss": 0.5, "acc": 0.25}],
        "lrs": sched.get_last_lr(),
    }
    plain = {
        "ints": [0, -1, 255, 65535, -(2**31), 2**40, -(2**70)],
        "floats": (0.5, float("inf")),
        "text": "weights ✓",
        "blob": b"\x00\xff",
        "ba": bytearray(b"ab"),
        "set": {1, "a"},
        "frozen": frozenset({2.5}),
        "flags": [True, False, None],
        "c": 1 - 2j,
        "od": collections.OrderedDict([("z", 1)]),
        "np": np.float32(1.5),
        "bf16": mg.ones(3, dtype=mg.bfloat16),
        "array": np.arange(6, dtype=np.int16).reshape(2, 3),
        "dtype": mg.float16,
        "device": mg.device("cpu"),
        "shared": [model[0].weight, model[0].weight],
    }
    return [training, plain]


def _payloads() -> list[tuple[bytes, list[bytes]]]:
    out = []
    for obj in _base_objects():
        f = io.BytesIO()
        mg.save(obj, f)
        payload, buffers = read_checkpoint(io.BytesIO(f.getvalue()), "base payload")
        out.append((payload, [b.tobytes() for b in buffers]))
    return out


BASE_PAYLOADS = _payloads()

# One mutation: (kind, position as a fraction of the length, a byte value, a length)
mutation = st.tuples(
    st.sampled_from(["flip", "set", "insert", "delete", "duplicate", "truncate"]),
    st.floats(0, 1, exclude_max=True),
    st.integers(0, 255),
    st.integers(1, 16),
)


def mutate(payload: bytes, steps: list) -> bytes:
    data = bytearray(payload)
    for kind, where, value, length in steps:
        if not data:
            break
        i = int(where * len(data))
        if kind == "flip":
            data[i] ^= 1 << (value % 8)
        elif kind == "set":
            data[i] = value
        elif kind == "insert":
            data[i:i] = bytes([value]) * length
        elif kind == "delete":
            del data[i : i + length]
        elif kind == "duplicate":
            data[i:i] = data[i : i + length]
        else:
            del data[i:]
    return bytes(data)


def run_batch(tmp_path, batch: list[tuple[int, list]]) -> None:
    names = []
    for k, (base, steps) in enumerate(batch):
        payload, buffers = BASE_PAYLOADS[base]
        path = tmp_path / f"m{k}.ckpt"
        path.write_bytes(checkpoint_bytes(mutate(payload, steps), buffers))
        names.append(str(path))
    child = subprocess.run(
        [sys.executable, "-c", CHILD],
        input="\n".join(names) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    lines = child.stdout.splitlines()
    started = [ln.split(" ", 1)[1] for ln in lines if ln.startswith("start ")]
    if child.returncode != 0:
        culprit = started[-1] if started else "(before the first load)"
        k = names.index(culprit) if culprit in names else -1
        pytest.fail(
            f"the loader crashed (exit {child.returncode}) on {culprit}, mutations "
            f"{batch[k] if k >= 0 else '?'}:\n{child.stderr[-2000:]}"
        )
    others = [ln for ln in lines if ln.startswith("OTHER ")]
    assert not others, "non-CheckpointError failures:\n" + "\n".join(others[:10])
    finished = sum(ln.startswith(("ok ", "refused ")) for ln in lines)
    assert finished == len(names), child.stderr[-2000:]


batches = st.lists(
    st.tuples(st.integers(0, len(BASE_PAYLOADS) - 1), st.lists(mutation, min_size=1, max_size=4)),
    min_size=60,
    max_size=60,
)


@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(batch=batches)
def test_mutated_payloads_load_or_raise_checkpoint_error(tmp_path_factory, batch):
    run_batch(tmp_path_factory.mktemp("fuzz"), batch)


@pytest.mark.slow
@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(batch=batches)
def test_mutated_payloads_load_or_raise_checkpoint_error_long_run(tmp_path_factory, batch):
    run_batch(tmp_path_factory.mktemp("fuzz"), batch)


def test_every_single_byte_change_of_a_real_payload(tmp_path):
    """Exhaustive over positions: each byte of a training checkpoint's pickle set to a few
    values (opcode bytes included), all in one child."""
    payload, _ = BASE_PAYLOADS[0]
    rng = np.random.default_rng(0)
    batch = [(0, [("set", i / len(payload), int(v), 1)]) for i in range(0, len(payload), 3)
             for v in rng.integers(0, 256, size=1)]  # fmt: skip
    run_batch(tmp_path, batch)
