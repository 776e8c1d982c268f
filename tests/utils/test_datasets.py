"""Synthetic datasets, the shipped corpus, and the MNIST/CIFAR readers on files written here."""

from __future__ import annotations

import gzip
import pickle
import struct
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.datasets import (
    CIFAR10,
    MNIST,
    CharDataset,
    FashionMNIST,
    load_corpus,
    make_blobs,
    make_curve,
    make_spirals,
    read_idx,
)
from minigenesis.utils.data import DataLoader, default_collate


# ------------------------------------------------------------------------------ synthetic
def test_spirals_shapes_balance_and_seed():
    X, y = make_spirals(n_samples=300, n_classes=3, seed=5)
    assert X.shape == (300, 2) and X.dtype == mg.float32 and y.dtype == mg.int64
    assert np.bincount(y.numpy()).tolist() == [100, 100, 100]
    X2, _ = make_spirals(n_samples=300, n_classes=3, seed=5)
    np.testing.assert_array_equal(X.numpy(), X2.numpy())
    assert np.abs(X.numpy()).max() <= 1.0 + 1e-6  # radius is t in [0, 1]


def test_spirals_are_not_linearly_separable_but_blobs_are():
    X, y = make_spirals(n_samples=900, n_classes=3, noise=0.1, seed=0)
    A = np.hstack([X.numpy(), np.ones((900, 1))])
    W = np.linalg.lstsq(A, np.eye(3)[y.numpy()], rcond=None)[0]  # a least-squares linear model
    assert (np.argmax(A @ W, 1) == y.numpy()).mean() < 0.7
    centres = np.array([[-5.0, 0.0], [5.0, 0.0], [0.0, 5.0]])
    Xb, yb = make_blobs(n_samples=300, centers=centres, cluster_std=0.5, seed=0)
    nearest = np.argmin(((Xb.numpy()[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    assert (nearest == yb.numpy()).mean() > 0.99
    assert np.bincount(yb.numpy()).tolist() == [100, 100, 100]


def test_synthetic_uses_global_rng_without_seed():
    mg.manual_seed(3)
    a, _ = make_blobs(n_samples=10)
    mg.manual_seed(3)
    b, _ = make_blobs(n_samples=10)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_curve_and_bad_arguments():
    X, y = make_curve(n_samples=200, noise=0.0, seed=1)
    assert X.shape == y.shape == (200, 1) and np.all(np.diff(X.numpy()[:, 0]) >= 0)
    x = X.numpy()[:, 0].astype(np.float64)
    np.testing.assert_allclose(y.numpy()[:, 0], np.sin(2 * x) + 0.3 * x, atol=1e-5)
    with pytest.raises(ValueError, match="n_samples"):
        make_spirals(n_samples=0)
    with pytest.raises(ValueError, match="centers"):
        make_blobs(n_features=2, centers=np.zeros((3, 4)))


# ------------------------------------------------------------------------------ text
def test_corpus_is_small_text():
    text = load_corpus()
    assert 2_000 < len(text.encode("utf-8")) < 200_000
    with pytest.raises(ValueError, match="unknown corpus"):
        load_corpus("nope")


def test_char_dataset_shift_vocab_and_fast_path():
    ds = CharDataset("hello world, hello minigenesis", block_size=5)
    assert len(ds) == len(ds.text) - 5 and ds.vocab_size == len(set(ds.text))
    x, y = ds[3]
    assert ds.decode(x.tolist()) == ds.text[3:8] and ds.decode(y.tolist()) == ds.text[4:9]
    assert ds.decode(ds.encode("hello")) == "hello"
    with pytest.raises(ValueError, match="not in the vocabulary"):
        ds.encode("Z")
    fast = next(iter(DataLoader(ds, batch_size=4, shuffle=False)))
    slow = default_collate([ds[i] for i in range(4)])
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError, match="block_size"):
        CharDataset("short", block_size=10)


# ------------------------------------------------------------------------------ IDX / MNIST
def _write_idx(path: Path, array: np.ndarray, gz: bool) -> None:
    """IDX written independently of the reader: header by struct, data big-endian."""
    code = {np.dtype(np.uint8): 0x08, np.dtype(np.int32): 0x0C, np.dtype(np.float32): 0x0D}
    header = struct.pack(">BBBB", 0, 0, code[array.dtype], array.ndim)
    header += struct.pack(">" + "I" * array.ndim, *array.shape)
    payload = header + array.astype(array.dtype.newbyteorder(">")).tobytes()
    path.write_bytes(gzip.compress(payload) if gz else payload)


@pytest.mark.parametrize("gz", [False, True])
def test_read_idx_roundtrip(tmp_path, gz):
    rng = np.random.default_rng(0)
    for arr in [
        rng.integers(0, 256, (3, 4, 5)).astype(np.uint8),
        rng.integers(-1000, 1000, (7,)).astype(np.int32),
        rng.standard_normal((2, 3)).astype(np.float32),
    ]:
        p = tmp_path / f"a{arr.ndim}.idx"
        _write_idx(p, arr, gz)
        out = read_idx(p)
        assert out.dtype == arr.dtype and out.shape == arr.shape
        np.testing.assert_array_equal(out, arr)


def test_read_idx_rejects_bad_files(tmp_path):
    bad = tmp_path / "bad"
    bad.write_bytes(b"PK\x03\x04junk")
    with pytest.raises(ValueError, match="not an IDX file"):
        read_idx(bad)
    short = tmp_path / "short"
    _write_idx(short, np.zeros((4, 4), np.uint8), gz=False)
    short.write_bytes(short.read_bytes()[:-3])
    with pytest.raises(ValueError, match="bytes follow"):
        read_idx(short)


def _mnist_folder(root: Path, prefix: str, n: int, gz: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, (n, 28, 28)).astype(np.uint8)
    labels = rng.integers(0, 10, n).astype(np.uint8)
    root.mkdir(parents=True, exist_ok=True)
    suffix = ".gz" if gz else ""
    _write_idx(root / f"{prefix}-images-idx3-ubyte{suffix}", images, gz)
    _write_idx(root / f"{prefix}-labels-idx1-ubyte{suffix}", labels, gz)
    return images, labels


def test_mnist_reader_plain_and_torchvision_layout(tmp_path):
    images, labels = _mnist_folder(tmp_path, "t10k", 6, gz=False)
    ds = MNIST(tmp_path, train=False)
    assert len(ds) == 6 and ds.data.shape == (6, 28, 28) and ds.data.dtype == mg.uint8
    img, label = ds[2]
    assert img.shape == (1, 28, 28) and img.dtype == mg.float32 and label == int(labels[2])
    np.testing.assert_allclose(img.numpy()[0], images[2] / 255.0, rtol=1e-6)
    xb, yb = next(iter(DataLoader(ds, batch_size=4)))
    assert xb.shape == (4, 1, 28, 28) and yb.dtype == mg.int64
    np.testing.assert_allclose(xb.numpy()[:, 0], images[:4] / 255.0, rtol=1e-6)
    assert yb.tolist() == labels[:4].tolist()

    fashion_images, _ = _mnist_folder(tmp_path / "FashionMNIST" / "raw", "train", 3, gz=True)
    fds = FashionMNIST(tmp_path, train=True)  # found in the torchvision layout
    np.testing.assert_array_equal(fds.data.numpy(), fashion_images)
    assert fds.classes[9] == "Ankle boot"


def test_mnist_transform_and_missing_folder_message(tmp_path):
    images, labels = _mnist_folder(tmp_path, "train", 2, gz=True)
    ds = MNIST(tmp_path, transform=lambda t: t * 2, target_transform=lambda y: y + 100)
    img, label = ds[1]
    np.testing.assert_allclose(img.numpy()[0], images[1].astype(np.float64) * 2 / 255.0, rtol=1e-6)
    assert label == int(labels[1]) + 100
    batch_labels = next(iter(DataLoader(ds, batch_size=2)))[1]
    assert batch_labels.tolist() == [int(v) + 100 for v in labels]
    with pytest.raises(FileNotFoundError) as info:
        MNIST(tmp_path / "missing", train=False)
    msg = str(info.value)
    assert "t10k-images-idx3-ubyte" in msg and "t10k-labels-idx1-ubyte" in msg
    assert str(tmp_path / "missing") in msg and "download" in msg


# ------------------------------------------------------------------------------ CIFAR-10
def _cifar_batch(path: Path, n: int, seed: int) -> tuple[np.ndarray, list[int]]:
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, (n, 3072)).astype(np.uint8)
    labels = rng.integers(0, 10, n).tolist()
    with path.open("wb") as f:
        pickle.dump({b"batch_label": b"x", b"data": data, b"labels": labels}, f, protocol=2)
    return data, labels


def test_cifar_reader(tmp_path):
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    parts = [_cifar_batch(folder / f"data_batch_{i}", 3, seed=i) for i in range(1, 6)]
    test_data, test_labels = _cifar_batch(folder / "test_batch", 4, seed=9)
    with (folder / "batches.meta").open("wb") as f:
        pickle.dump({b"label_names": [f"c{i}".encode() for i in range(10)]}, f)
    train = CIFAR10(tmp_path, train=True)
    assert len(train) == 15 and train.classes[3] == "c3"
    img, label = train[4]  # the second image of data_batch_2
    r, g, b = (parts[1][0][1].reshape(3, 32, 32) / 255.0).astype(np.float32)
    assert img.shape == (3, 32, 32) and label == parts[1][1][1]
    np.testing.assert_allclose(img.numpy()[0], r)
    np.testing.assert_allclose(img.numpy()[2], b)
    assert train.data.shape == (15, 32, 32, 3)
    np.testing.assert_array_equal(train.data[4, :, :, 1], parts[1][0][1].reshape(3, 32, 32)[1])
    test = CIFAR10(folder, train=False)  # the batches folder itself works too
    assert len(test) == 4 and test.targets.tolist() == test_labels


def test_cifar_refuses_code_and_names_missing_files(tmp_path):
    import os

    (tmp_path / "test_batch").write_bytes(pickle.dumps({"data": os.system}))  # must not load
    with pytest.raises(ValueError, match="not a CIFAR python batch"):
        CIFAR10(tmp_path, train=False)
    with pytest.raises(FileNotFoundError, match="data_batch_5"):
        CIFAR10(tmp_path / "empty", train=True)
