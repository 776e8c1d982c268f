"""The look of an autograd-graph picture: box colours by kind and dtype, outline colours, sizes
in bytes. Shared by the matplotlib drawing (``_graph_draw.py``) and the DOT text (``to_dot``)."""

from __future__ import annotations

from typing import Any

_DTYPE_FILL = {
    "float32": "#cfe2f3",
    "bfloat16": "#fce5cd",
    "float16": "#ffe599",
    "float64": "#d9d2e9",
}
_LEAF_FILL, _INPUT_FILL, _SUM_FILL, _MORE_FILL = "#d9ead3", "#eeeeee", "#fff2cc", "#ffffff"
_RECOMPUTED, _OUTPUT, _PLAIN = "#cc0000", "#38761d", "#555555"


def fill_color(node: Any) -> str:
    if node.kind == "leaf":
        return _LEAF_FILL if node.name != "tensor" else _INPUT_FILL
    if node.kind == "sum_to":
        return _SUM_FILL
    if node.kind == "more":
        return _MORE_FILL
    return _DTYPE_FILL.get(node.dtype or "", "#eeeeee")


def edge_color(node: Any) -> str:
    if node.segment is not None:
        return _RECOMPUTED
    if node.is_output:
        return _OUTPUT
    return _PLAIN


def fmt_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"
