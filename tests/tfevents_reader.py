"""Read back a TensorBoard event file for the tests: the TFRecord framing checked here, with a
CRC-32C computed bit by bit (tensorboardX writes with a table), each record parsed by protobuf."""

from __future__ import annotations

import struct
from pathlib import Path

from tensorboardX.proto import event_pb2


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) one bit at a time."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    crc = crc32c(data)
    return ((crc >> 15 | crc << 17) + 0xA282EAD8) & 0xFFFFFFFF


def read_events(path: Path) -> list[event_pb2.Event]:
    """TFRecords (length, its masked CRC, data, its masked CRC), each an ``Event`` message."""
    raw, pos, events = Path(path).read_bytes(), 0, []
    while pos < len(raw):
        (length,) = struct.unpack_from("<Q", raw, pos)
        (len_crc,) = struct.unpack_from("<I", raw, pos + 8)
        assert len_crc == masked_crc32c(raw[pos : pos + 8]), "bad length CRC"
        data = raw[pos + 12 : pos + 12 + length]
        (data_crc,) = struct.unpack_from("<I", raw, pos + 12 + length)
        assert data_crc == masked_crc32c(data), "bad data CRC"
        events.append(event_pb2.Event.FromString(data))
        pos += 16 + length
    return events


def summary_values(events: list[event_pb2.Event]) -> list[tuple[int, event_pb2.Summary.Value]]:
    """(step, value) for every summary value, in the order written."""
    return [(e.step, v) for e in events if e.HasField("summary") for v in e.summary.value]


def event_file(folder: Path) -> Path:
    """The one event file in folder."""
    files = sorted(Path(folder).glob("events.out.tfevents.*"))
    assert len(files) == 1, files
    return files[0]


def scalars(path: Path) -> list[tuple[int, str, float]]:
    """(step, tag, value) of each scalar in one event file."""
    return [(s, v.tag, v.simple_value) for s, v in summary_values(read_events(path))]
