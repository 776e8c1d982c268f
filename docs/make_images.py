"""Regenerate the pictures the README shows (small, palette PNGs).

    python docs/make_images.py

docs/images/autograd_graph.png: the autograd graph of one training step of a small MLP, after
its backward (each parameter's gradient norm written in its box), drawn by mg.viz.draw_graph.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import minigenesis as mg  # noqa: E402
import minigenesis.nn as nn  # noqa: E402
import minigenesis.nn.functional as F  # noqa: E402


def save_small_png(fig, path: Path, dpi: int = 80, colors: int = 64) -> None:
    """Render, then store with a 64-colour palette: a few tens of KB instead of hundreds."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    image = Image.open(buffer).convert("RGB").quantize(colors=colors)
    image.save(path, optimize=True)
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size / 1024:.0f} KiB)")


def autograd_graph(path: Path) -> None:
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))
    x, y = mg.randn(64, 2), mg.randint(0, 3, (64,))
    loss = F.cross_entropy(model(x), y)
    loss.backward(retain_graph=True)
    save_small_png(mg.viz.draw_graph(loss, params=model, show_grad=True), path)


if __name__ == "__main__":
    autograd_graph(ROOT / "docs" / "images" / "autograd_graph.png")
