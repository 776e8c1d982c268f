"""The figure every plot in ``viz`` returns: matplotlib's, built without pyplot.

No pyplot means no global state, so plots work on headless machines, in threads and in tests.
The price: Jupyter's inline backend only shows figures that pyplot made. ``_repr_png_`` closes
that gap, so a returned figure is drawn in a notebook cell like any other.
"""

from __future__ import annotations

import io

from matplotlib.figure import Figure


class NotebookFigure(Figure):
    """A matplotlib Figure that IPython/Jupyter displays when a cell returns it."""

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()


def new_figure(width: float, height: float) -> NotebookFigure:
    return NotebookFigure(figsize=(width, height))
