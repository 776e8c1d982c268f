"""Index range checks on a GPU wait on the device, as PyTorch CUDA's device-side asserts: no host
read per op; the next host read (``.item()``, ``.cpu()``, ``synchronize``) reads every queued
verdict at once and raises the first failed check's error.

Runs on the CuPy stand-in, which counts host reads where real CuPy would synchronise.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import backend
from minigenesis.backend import cupy_module

pytestmark = pytest.mark.gpu

V, D, B, T = 11, 8, 4, 6  # vocabulary, width, batch, context


@pytest.fixture
def reads():
    cupy = cupy_module()
    if not hasattr(cupy, "counting_host_reads"):
        pytest.skip("counting host reads needs the CuPy stand-in")
    backend._device_asserts.clear()
    yield cupy.counting_host_reads
    backend._device_asserts.clear()


def _gpt_like_step(device: str, data: np.ndarray, ix: list, w: np.ndarray):
    """A batch drawn by x[idx], token embeddings, a linear head and cross_entropy; backward."""
    stream = mg.tensor(data, device=device)
    starts = mg.tensor(ix, dtype=mg.int64, device=device)
    offsets = mg.arange(T, device=device)
    xb = stream[starts[:, None] + offsets]  # (B, T) tokens, an advanced index
    yb = stream[starts[:, None] + offsets + 1]
    emb = mg.tensor(w, device=device, requires_grad=True)
    logits = F.embedding(xb, emb) @ emb.t()  # (B, T, V), the head tied to the embedding
    loss = F.cross_entropy(logits.view(-1, V), yb.view(-1))
    loss.backward()
    return loss, emb


def _data():
    rng = np.random.default_rng(0)
    return rng.integers(0, V, 40), rng.standard_normal((V, D)).astype(np.float32)


def test_a_gpt_like_step_reads_the_host_only_at_item(reads):
    data, w = _data()
    with reads():
        loss, emb = _gpt_like_step("cuda", data, [0, 5, 17, 33], w)
    assert reads.last.count == 0  # before: one read per x[idx], embedding and cross_entropy
    assert len(backend._device_asserts) > 0
    with reads():
        value = loss.item()
    assert reads.last.count == 2  # the queued verdicts in one small read, then the value
    assert not backend._device_asserts
    want, want_emb = _gpt_like_step("cpu", data, [0, 5, 17, 33], w)  # in range: as on the CPU
    assert value == pytest.approx(want.item(), rel=1e-6)
    np.testing.assert_allclose(emb.grad.cpu().numpy(), want_emb.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("sync", ["item", "cpu", "synchronize", "print"])
def test_an_out_of_range_index_raises_the_cpus_error_at_the_next_host_read(reads, sync):
    data, w = _data()
    data[20] = V  # a token past the vocabulary: the embedding's index and cross_entropy's target
    with pytest.raises(IndexError) as on_cpu:
        _gpt_like_step("cpu", data, [0, 5, 17, 33], w)
    loss, _ = _gpt_like_step("cuda", data, [0, 5, 17, 33], w)  # not raised here
    with pytest.raises(IndexError) as on_gpu:
        {
            "item": loss.item,
            "cpu": loss.cpu,
            "synchronize": mg.cuda.synchronize,
            "print": lambda: str(loss),
        }[sync]()
    assert (
        str(on_gpu.value)
        == str(on_cpu.value)
        == (
            f"embedding: index {V} is out of bounds: expected values in [0, {V}) "
            f"(the weight has {V} rows)"
        )
    )
    assert not backend._device_asserts
    assert np.isfinite(loss.item())  # the queue is empty: the next read does not raise again


def test_a_getitem_error_names_the_first_bad_value_in_pytorchs_words(reads):
    x = mg.zeros(3, 4, device="cuda")
    rows = mg.tensor([0, 5, -7, 3], dtype=mg.int64, device="cuda")
    y = x[rows]
    assert y.shape == (4, 4)
    with pytest.raises(IndexError) as on_gpu:
        mg.cuda.synchronize()
    assert str(on_gpu.value) == "index 5 is out of bounds for dimension 0 with size 3"


def test_the_queue_is_read_when_it_reaches_its_limit(reads):
    x = mg.zeros(3, 4, device="cuda")
    good, bad = (mg.tensor(v, dtype=mg.int64, device="cuda") for v in ([0, 2], [0, 3]))
    with reads():
        for _ in range(backend.DEVICE_ASSERTS_LIMIT):
            x[good]
    assert reads.last.count == 0 and len(backend._device_asserts) == backend.DEVICE_ASSERTS_LIMIT
    with reads():
        x[good]
    assert reads.last.count == 1 and len(backend._device_asserts) == 1  # the 64 read at once
    x[bad]
    for _ in range(backend.DEVICE_ASSERTS_LIMIT - 2):
        x[good]
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        x[good]  # the full queue is read before this check: the bad one surfaces here
    assert len(backend._device_asserts) == 0


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.bool_, np.int32])
def test_a_read_with_checks_queued_judges_them_first_and_returns_the_data(reads, dtype):
    want = (np.arange(24).reshape(4, 6) % 5).astype(dtype)
    x = mg.tensor(want, device="cuda")
    for view, expect in ((x.t()[1:], want.T[1:]), (x[2, 3], want[2, 3]), (x[:0], want[:0])):
        x[mg.tensor([1, -4], dtype=mg.int64, device="cuda")]  # a check, in range: queued
        with reads():
            got = view.cpu().numpy()
        assert reads.last.count == 2 and not backend._device_asserts  # verdicts, then data
        assert got.dtype == expect.dtype and got.shape == expect.shape
        np.testing.assert_array_equal(got, expect)
