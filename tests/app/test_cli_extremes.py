"""The command line at the edges of what its options allow: the largest values each option
accepts must train (or be refused in one line), never end in a traceback."""

from __future__ import annotations

import pytest

from minigenesis.app.cli import main

TINY = ["--samples", "60", "--hidden", "4", "--batch-size", "8", "--epochs", "2", "--quiet"]


@pytest.mark.parametrize("seed", [2**64 - 1, 10**14, 2**63])
def test_the_largest_seeds_the_options_allow_train(tmp_path, capsys, seed):
    """--seed accepts [0, 2**64 - 1]; each epoch's shuffling seed is derived from it and must
    stay a valid 64-bit seed (it was seed * 1_000_003 + epoch, past 2**64 from ~1.8e13 on)."""
    out = tmp_path / "run"
    assert main(["train", "--seed", str(seed), "--out", str(out), *TINY]) == 0
    assert capsys.readouterr().err == ""
    # and the run resumes (the order of its next epoch is drawn from the same derived seed)
    assert main(["train", "--resume", str(out), "--epochs", "3", "--quiet"]) == 0
