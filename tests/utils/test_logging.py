"""SummaryWriter: event files parsed back by a reader written here (independent of the writer),
and by TensorBoard's own loader when the tensorboard package is importable; CSV and JSONL."""

from __future__ import annotations

import csv
import json
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.utils import _tfevents as tfe
from minigenesis.utils.tensorboard import SummaryWriter


# ------------------------------------------------------------------ an independent reader
def _crc32c_bitwise(data: bytes) -> int:
    """CRC-32C one bit at a time (the writer uses a table): an independent check."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def _masked(data: bytes) -> int:
    crc = _crc32c_bitwise(data)
    return ((crc >> 15 | crc << 17) + 0xA282EAD8) & 0xFFFFFFFF


def _records(path: Path) -> list[bytes]:
    raw, pos, out = path.read_bytes(), 0, []
    while pos < len(raw):
        (length,) = struct.unpack_from("<Q", raw, pos)
        (len_crc,) = struct.unpack_from("<I", raw, pos + 8)
        assert len_crc == _masked(raw[pos : pos + 8]), "bad length CRC"
        data = raw[pos + 12 : pos + 12 + length]
        (data_crc,) = struct.unpack_from("<I", raw, pos + 12 + length)
        assert data_crc == _masked(data), "bad data CRC"
        out.append(data)
        pos += 16 + length
    return out


def _fields(buf: bytes) -> list[tuple[int, int, object]]:
    """Protobuf wire format -> [(field, wire_type, value)]; value raw bytes for type 2."""
    pos, out = 0, []

    def varint() -> int:
        nonlocal pos
        shift = result = 0
        while True:
            b = buf[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return result

    while pos < len(buf):
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            value: object = varint()
        elif wire == 1:
            (value,) = struct.unpack_from("<d", buf, pos)
            pos += 8
        elif wire == 5:
            (value,) = struct.unpack_from("<f", buf, pos)
            pos += 4
        elif wire == 2:
            n = varint()
            value = buf[pos : pos + n]
            pos += n
        else:
            raise AssertionError(f"unexpected wire type {wire}")
        out.append((field, wire, value))
    return out


def _get(fields, number):
    return [v for f, _, v in fields if f == number]


def _read_events(path: Path) -> list[dict]:
    """Each event as {wall_time, step, file_version | values: [(tag, kind, payload)]}."""
    events = []
    for record in _records(path):
        f = _fields(record)
        ev = {"wall_time": _get(f, 1)[0], "step": (_get(f, 2) or [0])[0]}
        if _get(f, 3):
            ev["file_version"] = _get(f, 3)[0].decode()
        if _get(f, 7):
            ev["session_log"] = _get(_fields(_get(f, 7)[0]), 1)[0]
        values = []
        for summary in _get(f, 5):
            for value in _get(_fields(summary), 1):
                vf = _fields(value)
                tag = _get(vf, 1)[0].decode()
                if _get(vf, 2):
                    values.append((tag, "scalar", _get(vf, 2)[0]))
                elif _get(vf, 5):
                    values.append((tag, "histo", _fields(_get(vf, 5)[0])))
                elif _get(vf, 4):
                    values.append((tag, "image", _fields(_get(vf, 4)[0])))
                elif _get(vf, 8):
                    values.append((tag, "tensor", (_fields(_get(vf, 8)[0]), _get(vf, 9))))
                else:
                    values.append((tag, "metadata", _get(vf, 9)))
        ev["values"] = values
        events.append(ev)
    return events


def _event_file(folder: Path) -> Path:
    files = sorted(folder.glob("events.out.tfevents.*"))
    assert len(files) == 1, files
    return files[0]


# ------------------------------------------------------------------ tests
def test_crc32c_known_vector_and_masking():
    assert tfe.crc32c(b"123456789") == 0xE3069283  # the standard CRC-32C check value
    assert tfe.crc32c(b"") == 0
    data = bytes(range(256)) * 3
    assert tfe.masked_crc32c(data) == _masked(data)


def test_scalars_roundtrip_events_csv_jsonl(tmp_path):
    with SummaryWriter(tmp_path / "run") as w:
        for step in range(4):
            w.add_scalar("Loss/train", 1.0 / (step + 1), step)
        w.add_scalar("Accuracy/val", mg.tensor(0.75), 9)  # a one-element Tensor is fine
        w.add_scalar("count", np.int64(3), 10)
    events = _read_events(_event_file(tmp_path / "run"))
    assert events[0]["file_version"] == "brain.Event:2"
    scalars = [(e["step"], v) for e in events for v in e["values"]]
    assert [(s, t) for s, (t, _, _) in scalars][:4] == [(i, "Loss/train") for i in range(4)]
    np.testing.assert_allclose([v[2] for _, v in scalars[:4]], [1, 1 / 2, 1 / 3, 1 / 4], rtol=1e-6)
    assert scalars[4] == (9, ("Accuracy/val", "scalar", pytest.approx(0.75)))
    assert all(e["wall_time"] > 1.6e9 for e in events)

    rows = list(csv.DictReader((tmp_path / "run" / "scalars.csv").open()))
    assert [r["tag"] for r in rows] == ["Loss/train"] * 4 + ["Accuracy/val", "count"]
    assert float(rows[2]["value"]) == pytest.approx(1 / 3) and rows[2]["step"] == "2"
    lines = [json.loads(x) for x in (tmp_path / "run" / "events.jsonl").read_text().splitlines()]
    assert lines[-1] == {**lines[-1], "type": "scalar", "tag": "count", "step": 10, "value": 3.0}


def test_add_scalars_writes_one_run_per_curve(tmp_path):
    w = SummaryWriter(tmp_path)
    for step in range(3):
        w.add_scalars("Loss", {"train": 1.0 - step / 10, "val": 2.0 - step / 10}, step)
    w.close()
    for key, base in [("train", 1.0), ("val", 2.0)]:
        events = _read_events(_event_file(tmp_path / f"Loss_{key}"))
        got = [(e["step"], v[0], v[2]) for e in events for v in e["values"]]
        assert [(s, t) for s, t, _ in got] == [(0, "Loss"), (1, "Loss"), (2, "Loss")]
        np.testing.assert_allclose([x for _, _, x in got], [base, base - 0.1, base - 0.2], 1e-6)
    tags = [r["tag"] for r in csv.DictReader((tmp_path / "scalars.csv").open())]
    assert tags[:2] == ["Loss/train", "Loss/val"]


def test_histogram_statistics(tmp_path):
    values = np.random.default_rng(0).standard_normal(500).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("weights", mg.tensor(values), 5, bins=20)
    (event,) = [e for e in _read_events(_event_file(tmp_path)) if e["values"]]
    tag, kind, histo = event["values"][0]
    assert (tag, kind, event["step"]) == ("weights", "histo", 5)
    v64 = values.astype(np.float64)
    assert _get(histo, 1)[0] == pytest.approx(v64.min())
    assert _get(histo, 2)[0] == pytest.approx(v64.max())
    assert _get(histo, 3)[0] == 500
    assert _get(histo, 4)[0] == pytest.approx(v64.sum())
    assert _get(histo, 5)[0] == pytest.approx((v64**2).sum())
    limits = struct.unpack("<20d", _get(histo, 6)[0])
    counts = struct.unpack("<20d", _get(histo, 7)[0])
    ref_counts, ref_edges = np.histogram(v64, bins=20)
    np.testing.assert_allclose(limits, ref_edges[1:])
    np.testing.assert_array_equal(counts, ref_counts)
    with pytest.raises(ValueError, match="NaN or Inf"):
        w2 = SummaryWriter(tmp_path / "x")
        w2.add_histogram("bad", np.array([1.0, np.nan]))


def test_text_hparams_image_and_purge(tmp_path):
    w = SummaryWriter(tmp_path, purge_step=7)
    w.add_text("Hyperparameters", "lr = 0.001", 0)
    w.add_hparams({"lr": 0.001, "optimizer": "adam", "amp": True}, {"hparam/acc": 0.9})
    w.add_image("digit", np.ones((1, 4, 6), np.float32) * 0.5, 2)
    w.close()
    events = _read_events(_event_file(tmp_path))
    assert events[1]["step"] == 7 and events[1]["session_log"] == 1  # SessionLog START
    tag, kind, (tensor, metadata) = events[2]["values"][0]
    assert tag == "Hyperparameters/text_summary" and kind == "tensor"
    assert _get(tensor, 1) == [7] and _get(tensor, 8) == [b"lr = 0.001"]  # DT_STRING, value
    assert b"text" in metadata[0]
    tag, kind, image = events[3]["values"][0]
    assert (tag, _get(image, 1), _get(image, 2), _get(image, 3)) == ("digit", [4], [6], [1])
    png = _get(image, 4)[0]
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    idat = png[png.index(b"IDAT") + 4 : png.index(b"IEND") - 8]
    rows = zlib.decompress(idat)
    assert len(rows) == 4 * (1 + 6) and set(rows[1:7]) == {128}  # 0.5 * 255 rounds to 128

    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    hp = _read_events(_event_file(run))
    tags = [v[0] for e in hp for v in e["values"]]
    assert tags == [
        "_hparams_/experiment",
        "_hparams_/session_start_info",
        "_hparams_/session_end_info",
        "hparam/acc",
    ]
    start = hp[2]["values"][0][2][0]  # metadata -> plugin_data -> content (HParamsPluginData)
    content = _get(_fields(_get(_fields(start), 1)[0]), 2)[0]
    entries = _get(_fields(_get(_fields(content), 3)[0]), 1)
    decoded = {}
    for entry in entries:
        ef = _fields(entry)
        vf = _fields(_get(ef, 2)[0])
        decoded[_get(ef, 1)[0].decode()] = vf[0][2]
    assert decoded == {"lr": pytest.approx(0.001), "optimizer": b"adam", "amp": 1}


def test_bad_input_and_closed_writer(tmp_path):
    w = SummaryWriter(tmp_path)
    with pytest.raises(ValueError, match="one number"):
        w.add_scalar("loss", mg.zeros(3), 0)
    with pytest.raises(ValueError, match="dataformats"):
        w.add_image("img", np.zeros((3, 4)), 0)
    w.close()
    w.close()  # twice is harmless
    with pytest.raises(RuntimeError, match="closed"):
        w.add_scalar("loss", 1.0, 0)


def test_tensorboard_own_loader_reads_our_files(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalar("Loss/train", 0.5 * step, step)
        w.add_histogram("w", np.arange(10.0), 1)
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("Loss/train")] == [(0, 0), (1, 0.5), (2, 1.0)]
    assert acc.Histograms("w")[0].histogram_value.num == 10
