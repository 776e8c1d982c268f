"""Saving tensors that another thread is changing (a training step while a background thread
saves): the file may hold a mix of old and new values, as PyTorch's does, but it must load. The
checksum used to be computed on the helper thread from the arrays' memory, later than the write:
it then covered other bytes than the file holds, and the checkpoint was unloadable."""

from __future__ import annotations

import io
import threading

import numpy as np

import minigenesis as mg


def test_a_checkpoint_saved_while_another_thread_writes_the_tensor_loads():
    w = mg.zeros(8 * 2**20)  # 32 MiB: a save of several pieces
    stop = threading.Event()

    def training_steps() -> None:
        a = w._data
        while not stop.is_set():
            a[::4096] += 1.0  # whole numbers only: any mix of old and new values stays whole

    writer = threading.Thread(target=training_steps)
    writer.start()
    try:
        files = []
        for _ in range(3):
            buf = io.BytesIO()
            mg.save({"w": w}, buf)
            files.append(buf.getvalue())
    finally:
        stop.set()
        writer.join(timeout=10)
    assert not writer.is_alive()
    final = w._data[0]
    for data in files:
        got = mg.load(io.BytesIO(data))["w"].numpy()  # raised CheckpointError (CRC mismatch)
        touched = got[::4096]
        assert np.all(touched == np.round(touched)) and 0 <= touched.min() <= touched.max() <= final
        assert not np.delete(got, np.s_[::4096]).any()  # the untouched elements stay 0
