"""Seed 000 (the Genesis "advanced training features" page) runs as written, `genesis` renamed.

The page's eleven code blocks are read from the seed file itself and run one after another in one
namespace, as a reader would paste them. The page assumes a few things exist (a `dataloader`, a
`criterion`, `train(...)`, `YourModel`): the harness below provides small versions of them, and
nothing else is changed. Seed 001 is the same page rendered as HTML text.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg

SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "000_7376d8e674392963.txt"


def _blocks() -> list[str]:
    if not SEED.exists():
        pytest.skip(f"seed file not found at {SEED} (shared/ sits beside the checkout)")
    text = SEED.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 11, "the seed page changed: update this test"
    return [b.replace("genesis", "minigenesis") for b in blocks]


def _harness() -> dict:
    nn = mg.nn
    mg.manual_seed(0)
    x = mg.randn(8, 1024)
    y = mg.randn(8, 512)
    loader = mg.utils.data.DataLoader(mg.utils.data.TensorDataset(x, y), batch_size=4)
    calls = {"train": 0}

    def train(*args):
        calls["train"] += 1

    def validate(model, loader):
        with mg.no_grad():
            return sum(nn.MSELoss()(model(a), b).item() for a, b in loader)

    return {
        "dataloader": loader,
        "train_loader": loader,
        "val_loader": loader,
        "criterion": nn.MSELoss(),
        "train": train,
        "validate": validate,
        "YourModel": lambda: nn.Linear(1024, 512),
        "num_epochs": 3,
        "best_acc": 0.9,
        "LambdaLR": mg.optim.LambdaLR,  # the page uses it without an import line
        "_calls": calls,
    }


# Block 1 is a fragment "during training" (训练过程中): it needs a loss whose graph is still
# there (block 0's was freed by its backward, as it would be in PyTorch too).
PRELUDE = {1: "loss = criterion(model(data), target)"}


def test_every_seed000_block_runs(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    ns = _harness()
    for i, block in enumerate(_blocks()):
        if i in PRELUDE:
            exec(PRELUDE[i], ns)
        try:
            exec(compile(block, f"seed000-block{i}", "exec"), ns)
        except Exception as err:  # name the block that failed
            raise AssertionError(f"seed 000 block {i} failed: {err!r}\n{block}") from err

    # what the blocks did, checked
    assert ns["_calls"]["train"] == 300  # three 100-epoch scheduler loops
    assert ns["scheduler"].get_last_lr()[0] == pytest.approx(
        0.001 * 0.5 * (1 + np.cos(np.pi * 3 / 100))
    )
    ckpt = mg.load_checkpoint("checkpoint_epoch_10.pth")
    assert set(ckpt) == {
        "epoch",
        "model_state_dict",
        "optimizer_state_dict",
        "loss",
        "best_accuracy",
    }
    best = mg.load_checkpoint("best_model.pth")
    assert best["best_loss"] == pytest.approx(ns["best_loss"])
    final = mg.load_checkpoint("checkpoint_epoch_0.pth")
    assert set(final) >= {"scheduler_state_dict", "scaler_state_dict"}
    model = ns["model"]
    np.testing.assert_array_equal(
        final["model_state_dict"]["weight"].numpy().shape, model.weight.shape
    )
