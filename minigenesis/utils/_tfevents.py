"""TensorBoard's event-file format, written by hand: TFRecord framing, CRC32C, and the protobuf
fields that scalars, histograms, text and hparams need. No TensorFlow, no protobuf package.

An event file is a sequence of *records*; each record holds one serialized ``Event`` message::

    uint64 length            little-endian
    uint32 masked_crc(length bytes)
    bytes  data[length]      the Event, protobuf wire format
    uint32 masked_crc(data)

``masked_crc(b) = rotate_right(crc32c(b), 15) + 0xA282EAD8 (mod 2**32)`` (CRC32C is the Castagnoli
polynomial, reflected form 0x82F63B78). The protobuf wire format: each field is a *key*
``(field_number << 3) | wire_type`` as a varint, then the value: varint (type 0), 8 little-endian
bytes (type 1, double), a varint length + bytes (type 2: strings, sub-messages, packed arrays) or
4 little-endian bytes (type 5, float). Field numbers below come from TensorFlow's ``event.proto``,
``summary.proto``, ``tensor.proto`` and TensorBoard's ``hparams/plugin_data.proto``.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable

# ---------------------------------------------------------------------------------------------
# CRC32C and TFRecord framing
# ---------------------------------------------------------------------------------------------
_CRC_TABLE: list[int] = []
for _byte in range(256):
    _crc = _byte
    for _ in range(8):
        _crc = (_crc >> 1) ^ 0x82F63B78 if _crc & 1 else _crc >> 1
    _CRC_TABLE.append(_crc)


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of ``data``, table-driven, one byte at a time."""
    crc = 0xFFFFFFFF
    table = _CRC_TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC: a CRC of data that itself holds CRCs is a poor check, so rotate."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frame_record(data: bytes) -> bytes:
    """One TFRecord: length, its masked CRC, the data, the data's masked CRC."""
    header = struct.pack("<Q", len(data))
    return (
        header
        + struct.pack("<I", masked_crc32c(header))
        + data
        + struct.pack("<I", masked_crc32c(data))
    )


# ---------------------------------------------------------------------------------------------
# Protobuf wire format
# ---------------------------------------------------------------------------------------------
def _varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64  # negative int64: two's complement, ten bytes
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _key(field: int, wire_type: int) -> bytes:
    return _varint((field << 3) | wire_type)


def f_varint(field: int, value: int) -> bytes:
    return _key(field, 0) + _varint(int(value))


def f_double(field: int, value: float) -> bytes:
    return _key(field, 1) + struct.pack("<d", float(value))


def f_float(field: int, value: float) -> bytes:
    return _key(field, 5) + struct.pack("<f", float(value))


def f_bytes(field: int, value: bytes | str) -> bytes:
    if isinstance(value, str):
        value = value.encode("utf-8")
    return _key(field, 2) + _varint(len(value)) + value


def f_packed_doubles(field: int, values: Iterable[float]) -> bytes:
    values = list(values)
    return f_bytes(field, struct.pack(f"<{len(values)}d", *values))


# ---------------------------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------------------------
def event(
    wall_time: float,
    step: int = 0,
    *,
    file_version: str | None = None,
    summary: bytes | None = None,
    session_log: bytes | None = None,
) -> bytes:
    """Event: wall_time=1 (double), step=2 (int64), file_version=3, summary=5, session_log=7."""
    out = f_double(1, wall_time) + f_varint(2, step)
    if file_version is not None:
        out += f_bytes(3, file_version)
    if summary is not None:
        out += f_bytes(5, summary)
    if session_log is not None:
        out += f_bytes(7, session_log)
    return out


def session_log_start() -> bytes:
    """SessionLog{status=START}: TensorBoard drops events with a larger step seen before it."""
    return f_varint(1, 1)


def summary(values: Iterable[bytes]) -> bytes:
    """Summary: repeated Value value = 1."""
    return b"".join(f_bytes(1, v) for v in values)


def plugin_metadata(plugin_name: str, content: bytes = b"") -> bytes:
    """SummaryMetadata{plugin_data=1: PluginData{plugin_name=1, content=2}}."""
    return f_bytes(1, f_bytes(1, plugin_name) + f_bytes(2, content))


def scalar_value(tag: str, value: float) -> bytes:
    """Summary.Value{tag=1, simple_value=2 (float)}."""
    return f_bytes(1, tag) + f_float(2, value)


def histogram_value(
    tag: str,
    vmin: float,
    vmax: float,
    num: float,
    total: float,
    sum_squares: float,
    bucket_limits: list[float],
    counts: list[float],
) -> bytes:
    """Summary.Value{tag=1, histo=5: HistogramProto{min=1, max=2, num=3, sum=4, sum_squares=5,
    bucket_limit=6 (packed), bucket=7 (packed)}}; bucket i counts values in
    (bucket_limit[i-1], bucket_limit[i]]."""
    histo = (
        f_double(1, vmin) + f_double(2, vmax) + f_double(3, num) + f_double(4, total)
        + f_double(5, sum_squares)
        + f_packed_doubles(6, bucket_limits) + f_packed_doubles(7, counts)
    )  # fmt: skip
    return f_bytes(1, tag) + f_bytes(5, histo)


def text_value(tag: str, text: str) -> bytes:
    """A text summary as the text plugin reads it: Value{tag=1, metadata=9 (plugin "text"),
    tensor=8: TensorProto{dtype=1: DT_STRING (7), tensor_shape=2: {dim=2: {size=1: 1}},
    string_val=8: text}}."""
    shape = f_bytes(2, f_bytes(2, f_varint(1, 1)))
    tensor = f_varint(1, 7) + shape + f_bytes(8, text)
    return f_bytes(1, tag) + f_bytes(9, plugin_metadata("text")) + f_bytes(8, tensor)


# --- the hparams plugin (tensorboard/plugins/hparams/api.proto and plugin_data.proto) -----------
def _struct_value(value: float | str | bool) -> bytes:
    """google.protobuf.Value: number_value=2 (double), string_value=3, bool_value=4."""
    if isinstance(value, bool):
        return f_varint(4, value)
    if isinstance(value, int | float):
        return f_double(2, value)
    return f_bytes(3, str(value))


def _hparams_value(tag: str, data_field: int, message: bytes) -> bytes:
    """A Value whose metadata carries HParamsPluginData{version=1: 0, <data_field>: message} and no
    value (TensorBoard fills in a null tensor when it reads one)."""
    content = f_bytes(data_field, message)  # version 0 is the default: not written
    return f_bytes(1, tag) + f_bytes(9, plugin_metadata("hparams", content))


def hparams_values(hparams: dict, metric_tags: list[str], start_time: float) -> list[bytes]:
    """The three summaries TensorBoard's HPARAMS tab reads: experiment, session start, end."""
    infos = b""
    for name, value in hparams.items():
        kind = 2 if isinstance(value, bool) else 3 if isinstance(value, int | float) else 1
        infos += f_bytes(4, f_bytes(1, name) + f_varint(4, kind))  # HParamInfo{name, type}
    for tag in metric_tags:
        infos += f_bytes(5, f_bytes(1, f_bytes(2, tag)))  # MetricInfo{name: MetricName{tag}}
    experiment = infos
    start = b"".join(
        f_bytes(1, f_bytes(1, name) + f_bytes(2, _struct_value(value)))  # map entry
        for name, value in hparams.items()
    ) + f_double(5, start_time)
    end = f_varint(1, 1) + f_double(2, start_time)  # status = STATUS_SUCCESS
    return [
        _hparams_value("_hparams_/experiment", 2, experiment),
        _hparams_value("_hparams_/session_start_info", 3, start),
        _hparams_value("_hparams_/session_end_info", 4, end),
    ]


# --- images -------------------------------------------------------------------------------------
def encode_png(pixels) -> bytes:
    """A PNG file of ``pixels`` (uint8 NumPy array of shape (H, W, C), C = 1, 3 or 4).

    PNG = signature + chunks (length, type, data, CRC-32 of type+data): IHDR (size, bit depth 8,
    colour type 0 grey / 2 RGB / 6 RGBA), IDAT (zlib-compressed rows, each prefixed by filter
    type 0 = none) and IEND.
    """
    height, width, channels = pixels.shape
    colour_type = {1: 0, 3: 2, 4: 6}[channels]

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + pixels[r].tobytes() for r in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 6))
        + chunk(b"IEND", b"")
    )


def image_value(tag: str, pixels) -> bytes:
    """Summary.Value{tag=1, image=4: Image{height=1, width=2, colorspace=3,
    encoded_image_string=4 (PNG)}}."""
    height, width, channels = pixels.shape
    image = (
        f_varint(1, height) + f_varint(2, width) + f_varint(3, channels)
        + f_bytes(4, encode_png(pixels))
    )  # fmt: skip
    return f_bytes(1, tag) + f_bytes(4, image)
