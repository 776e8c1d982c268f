"""SummaryWriter: the event files it writes are read back (tests/tfevents_reader.py checks the
framing and parses each record with protobuf; TensorBoard's own loader reads them too when the
tensorboard package is importable), with PyTorch's file names and folders; CSV and JSONL."""

from __future__ import annotations

import csv
import io
import json
import re
import socket
import subprocess
import sys

import numpy as np
import pytest
from tensorboardX.proto import event_pb2
from tfevents_reader import event_file, read_events, scalars, summary_values

import minigenesis as mg
from minigenesis.utils.tensorboard import SummaryWriter


# ------------------------------------------------------------------ tests
def test_event_file_named_as_pytorch_names_it(tmp_path):
    with SummaryWriter(tmp_path, filename_suffix=".v1") as w:
        w.add_scalar("x", 1.0, 0)
    name = event_file(tmp_path).name
    host = re.escape(socket.gethostname())
    assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.{host}\.\d+\.\d+\.v1", name), name
    events = read_events(event_file(tmp_path))
    assert events[0].file_version == "brain.Event:2"


def test_two_writers_in_one_second_write_two_files(tmp_path):
    for value in (1.0, 2.0):
        with SummaryWriter(tmp_path) as w:
            w.add_scalar("x", value, 0)
    files = sorted(tmp_path.glob("events.out.tfevents.*"))
    assert len(files) == 2
    assert sorted(v for f in files for _, _, v in scalars(f)) == [1.0, 2.0]


def test_scalars_roundtrip_events_csv_jsonl(tmp_path):
    with SummaryWriter(tmp_path / "run") as w:
        for step in range(4):
            w.add_scalar("Loss/train", 1.0 / (step + 1), step)
        w.add_scalar("Accuracy/val", mg.tensor(0.75), 9)  # a one-element Tensor is fine
        w.add_scalar("count", np.int64(3), 10, walltime=1.7e9)
    events = read_events(event_file(tmp_path / "run"))
    got = summary_values(events)
    assert [(s, v.tag) for s, v in got][:4] == [(i, "Loss/train") for i in range(4)]
    np.testing.assert_allclose([v.simple_value for _, v in got[:4]], [1, 1 / 2, 1 / 3, 1 / 4],
                               rtol=1e-6)  # fmt: skip
    assert (got[4][0], got[4][1].tag, got[4][1].simple_value) == (9, "Accuracy/val", 0.75)
    assert events[-1].wall_time == 1.7e9
    assert all(e.wall_time > 1.6e9 for e in events)

    rows = list(csv.DictReader((tmp_path / "run" / "scalars.csv").read_text().splitlines()))
    assert [r["tag"] for r in rows] == ["Loss/train"] * 4 + ["Accuracy/val", "count"]
    assert float(rows[2]["value"]) == pytest.approx(1 / 3) and rows[2]["step"] == "2"
    lines = [json.loads(x) for x in (tmp_path / "run" / "events.jsonl").read_text().splitlines()]
    assert lines[-1] == {**lines[-1], "type": "scalar", "tag": "count", "step": 10, "value": 3.0}


def test_add_scalars_writes_one_run_per_curve_in_pytorch_folders(tmp_path):
    w = SummaryWriter(tmp_path)
    for step in range(3):
        w.add_scalars("Loss/all", {"train": 1.0 - step / 10, "val": 2.0 - step / 10}, step)
    w.close()
    for key, base in [("train", 1.0), ("val", 2.0)]:
        got = scalars(event_file(tmp_path / f"Loss_all_{key}"))
        assert [(s, t) for s, t, _ in got] == [(0, "Loss/all"), (1, "Loss/all"), (2, "Loss/all")]
        np.testing.assert_allclose([x for _, _, x in got], [base, base - 0.1, base - 0.2], 1e-6)
    tags = [r["tag"] for r in csv.DictReader((tmp_path / "scalars.csv").read_text().splitlines())]
    assert tags[:2] == ["Loss/all/train", "Loss/all/val"]


def test_histogram_statistics_and_buckets(tmp_path):
    values = np.random.default_rng(0).standard_normal(500).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("weights", mg.tensor(values), 5, bins=20)
        w.add_histogram("default_bins", mg.tensor(values), 6)
    (step, value), (_, default) = summary_values(read_events(event_file(tmp_path)))
    assert (value.tag, step) == ("weights", 5)
    histo, v64 = value.histo, values.astype(np.float64)
    assert (histo.min, histo.max, histo.num) == (pytest.approx(v64.min()), pytest.approx(v64.max()),
                                                 500)  # fmt: skip
    assert histo.sum == pytest.approx(v64.sum())
    assert histo.sum_squares == pytest.approx((v64**2).sum())
    # TensorBoard's buckets: bucket i holds the values in (limit[i-1], limit[i]]; the first one
    # is an empty bucket that carries the lowest edge
    counts, limits = np.array(histo.bucket), np.array(histo.bucket_limit)
    assert counts[0] == 0 and counts.sum() == 500
    ref_counts, ref_edges = np.histogram(v64, bins=20)
    np.testing.assert_allclose(limits, ref_edges, rtol=1e-6)
    np.testing.assert_array_equal(counts[1:], ref_counts)
    assert default.histo.num == 500 and np.array(default.histo.bucket).sum() == 500
    with pytest.raises(ValueError, match="NaN or Inf"):
        SummaryWriter(tmp_path / "x").add_histogram("bad", np.array([1.0, np.nan]))


def test_text_hparams_image_and_purge(tmp_path):
    w = SummaryWriter(tmp_path, purge_step=7)
    w.add_text("Hyperparameters", "lr = 0.001", 0)
    w.add_hparams({"lr": 0.001, "optimizer": "adam", "amp": True, "sizes": [4, 8]},
                  {"hparam/acc": 0.9}, run_name="hp")  # fmt: skip
    w.add_image("digit", np.array([[[0.5, 2.0, -1.0]]], np.float32), 2)  # CHW, 1 x 1 x 3
    w.close()
    events = read_events(event_file(tmp_path))
    purge = [e for e in events if e.HasField("session_log")]
    assert [(e.step, e.session_log.status) for e in purge] == [(7, event_pb2.SessionLog.START)]
    (_, text), (step, image) = summary_values(events)
    assert text.tag == "Hyperparameters/text_summary"
    assert text.metadata.plugin_data.plugin_name == "text"
    assert list(text.tensor.string_val) == [b"lr = 0.001"]
    assert (step, image.tag, image.image.height, image.image.width) == (2, "digit", 1, 3)
    png = image.image.encoded_image_string
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image  # matplotlib's dependency

    pixels = np.asarray(Image.open(io.BytesIO(png)))
    assert pixels.shape == (1, 3, 3)  # one grey channel, stored as RGB (as PyTorch does)
    for channel in range(3):  # int(0.5 * 255); above 1 and below 0 clip
        assert pixels[0, :, channel].tolist() == [127, 255, 0]

    hp = summary_values(read_events(event_file(tmp_path / "hp")))
    assert [v.tag for _, v in hp] == [
        "_hparams_/experiment",
        "_hparams_/session_start_info",
        "_hparams_/session_end_info",
        "hparam/acc",
    ]
    from tensorboardX.proto.plugin_hparams_pb2 import HParamsPluginData

    start = HParamsPluginData.FromString(hp[1][1].metadata.plugin_data.content)
    got = {k: v.WhichOneof("kind") for k, v in start.session_start_info.hparams.items()}
    assert got == {"lr": "number_value", "optimizer": "string_value", "amp": "bool_value",
                   "sizes": "string_value"}  # fmt: skip
    hparams = start.session_start_info.hparams
    assert hparams["lr"].number_value == 0.001 and hparams["sizes"].string_value == "[4, 8]"
    assert hp[3][1].simple_value == pytest.approx(0.9)


def test_images_figure_and_embedding(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    batch = np.random.default_rng(0).integers(0, 256, (4, 3, 8, 6), dtype=np.uint8)  # NCHW
    fig, ax = plt.subplots(figsize=(2, 1), dpi=50)
    ax.plot([0, 1], [1, 0])
    with SummaryWriter(tmp_path) as w:
        w.add_images("batch", mg.tensor(batch), 1)
        w.add_figure("curve", fig, 1)
        w.add_embedding(mg.randn(6, 5), metadata=list("abcdef"), global_step=2)
    (_, grid), (_, figure) = summary_values(read_events(event_file(tmp_path)))
    from PIL import Image

    tiled = np.asarray(Image.open(io.BytesIO(grid.image.encoded_image_string)))
    # PyTorch's grid: up to 8 images a row, side by side
    np.testing.assert_array_equal(tiled, np.concatenate(batch.transpose(0, 2, 3, 1), axis=1))
    assert (figure.image.width, figure.image.height) == (100, 50)
    folder = tmp_path / "00002" / "default"  # PyTorch's <step>/<tag> layout
    assert np.loadtxt(folder / "tensors.tsv").shape == (6, 5)
    assert (folder / "metadata.tsv").read_text().split() == list("abcdef")
    assert "00002/default/tensors.tsv" in (tmp_path / "projector_config.pbtxt").read_text()


def test_bad_input_and_closed_writer(tmp_path):
    w = SummaryWriter(tmp_path)
    with pytest.raises(ValueError, match="one number"):
        w.add_scalar("loss", mg.zeros(3), 0)
    with pytest.raises(AssertionError, match="input format"):  # PyTorch's exception type
        w.add_image("img", np.zeros((3, 4)), 0)
    with pytest.raises(ValueError, match="2-D"):
        w.add_embedding(np.zeros(3))
    w.close()
    w.close()  # twice is harmless
    with pytest.raises(RuntimeError, match="closed"):
        w.add_scalar("loss", 1.0, 0)


def test_import_minigenesis_does_not_import_tensorboardx():
    """The writer loads with the train command's trainer, not with the package or its CLI."""
    code = "import sys, minigenesis, minigenesis.app.cli; print('tensorboardX' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


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
