"""Checks for chapter 12. Oracles: the closed form of a debiased EMA (NumPy), minigenesis's
diagnose_training and find_nan_source, and event files written by minigenesis's SummaryWriter."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg
from minigenesis import diagnostics
from minigenesis.utils.tensorboard import SummaryWriter

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 12.1 k counted from 0 in the debiasing, or no debiasing        -> the closed form
# 12.2 NaN/Inf looked for in the train losses only; the length test first; the window
#      one longer; min over the window; elif between the rules;
#      any rise called diverging (no 1.5 * min test); overfitting
#      from a rising validation loss alone                          -> rules at their edges
# 12.3 hooks registered and never removed                          -> hooks removed
#      isnan only (an Inf output passes); the model itself not hooked -> inf and ''


# ----------------------------------------------------------------------------- 12.1
@pytest.mark.exercise("12.1")
@pytest.mark.parametrize("weight", [0.0, 0.3, 0.6, 0.95])
def test_12_1_debiased_ema_closed_form(impl, weight: float) -> None:
    values = np.random.default_rng(0).normal(2.0, 1.0, size=40)
    ours = impl.ema_smooth(list(values), weight)
    # closed form: a weighted mean of the values so far, weights (1 - w) w^(i - j), renormalised
    for i in range(len(values)):
        coefs = (1 - weight) * weight ** np.arange(i, -1, -1)
        want = float(coefs @ values[: i + 1] / coefs.sum())
        assert ours[i] == pytest.approx(want, rel=1e-9), (
            f"value {i + 1} (weight {weight}): yours {float(ours[i])!r}, expected {want!r}: "
            "after the k-th value report last / (1 - weight ** k), k counted from 1 "
            f"(here k = {i + 1})"
        )


@pytest.mark.exercise("12.1")
def test_12_1_constant_stays_constant(impl) -> None:
    got = impl.ema_smooth([3.0] * 5, 0.9)
    assert got == pytest.approx([3.0] * 5), (
        f"the smoothed constant 3.0 gave {got}: dividing by 1 - weight ** k (k from 1) removes "
        "the pull towards the starting 0"
    )
    assert impl.ema_smooth([], 0.5) == []


# ----------------------------------------------------------------------------- 12.2
def _curves() -> dict[str, tuple[list[float], list[float]]]:
    epochs = np.arange(30)
    decay = 2.0 * np.exp(-epochs / 6) + 0.05
    return {
        "healthy": (list(decay), list(decay + 0.05)),
        "overfitting": (list(decay), list(decay + 0.02 * np.maximum(epochs - 12, 0) ** 1.2)),
        "underfitting": (list(1.2 - 0.003 * epochs), list(1.25 - 0.003 * epochs)),
        "diverging": (list(np.r_[decay[:20], decay[19] * 1.6 ** np.arange(1, 11)]), list(decay)),
        "nan": (list(decay[:12]) + [math.nan], list(decay[:13])),
        "short": (list(decay[:5]), list(decay[:5])),
        "converged": (list(np.full(30, 0.2) + 0.001 * np.cos(epochs)), list(np.full(30, 0.25))),
    }


@pytest.mark.exercise("12.2")
@pytest.mark.parametrize("name", list(_curves()))
def test_12_2_agrees_with_diagnose_training(impl, name: str) -> None:
    train, val = _curves()[name]
    ours = impl.diagnose(train, val)
    ref = [k for k in diagnostics.diagnose_training(train, val).kinds if k != "oscillating"]
    assert ours == ref
    expected = {"healthy": [], "nan": ["diverging"], "short": ["too_short"]}.get(name, [name])
    assert ours == expected


@pytest.mark.exercise("12.2")
@pytest.mark.parametrize(
    ("train", "val", "want", "why"),
    [
        ([0.2] * 11, [0.3] * 10 + [math.inf], ["diverging"], "an Inf in the validation losses"),
        ([1.0, math.nan], [1.0, 1.0], ["diverging"], "a NaN comes before the length test"),
        ([0.5] + [0.2] * 10, [0.3] * 11, ["converged"], "t is the last `window` losses"),
        ([0.1, *np.linspace(1.0, 1.3, 10)], [2.0] * 11, ["diverging"],
         "1.5 * min over ALL the train losses, not over the window"),
        (list(np.linspace(0.205, 0.2, 10)), list(np.linspace(0.25, 0.3, 10)),
         ["overfitting", "converged"], "each rule is tested on its own (if, not elif)"),
        ([0.3] * 5 + list(np.linspace(0.3, 0.33, 10)), [0.3] * 15, [],
         "a rise is diverging only when the last loss is also above 1.5 * the lowest"),
        ([0.3] * 5 + list(np.linspace(0.3, 0.33, 10)), list(np.linspace(0.3, 0.4, 15)), [],
         "overfitting needs the train loss falling while the validation loss rises"),
    ],
    ids=["inf-in-val", "nan-before-length", "last-window", "min-of-all", "rules-apart",
         "mild-rise", "both-rise"],
)  # fmt: skip
def test_12_2_rules_at_their_edges(impl, train, val, want, why) -> None:
    ours = impl.diagnose(train, val, window=10)
    assert ours == want, f"diagnose gave {ours}, expected {want}: {why}"


# ----------------------------------------------------------------------------- 12.3
class _LinearThenLog(mg.nn.Module):
    """A block whose own forward code (not a child layer) produces the NaN."""

    def __init__(self) -> None:
        super().__init__()
        self.inner = mg.nn.Linear(8, 8)

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        return self.inner(x).log()  # log of negative numbers: NaN


def _net() -> mg.nn.Module:
    mg.manual_seed(0)
    return mg.nn.Sequential(
        mg.nn.Linear(4, 8),
        mg.nn.Sequential(mg.nn.Tanh(), mg.nn.Linear(8, 8)),
        _LinearThenLog(),
        mg.nn.Linear(8, 2),
    )


@pytest.mark.exercise("12.3")
def test_12_3_names_the_first_bad_module(impl) -> None:
    model, x = _net(), mg.randn(16, 4)
    with np.errstate(invalid="ignore", divide="ignore"):
        ours = impl.first_nonfinite_module(model, x)
        ref = diagnostics.find_nan_source(model, x, mg.zeros(16, 2), mg.nn.MSELoss())
    assert ours == "2", (
        f"got {ours!r}: the Linear inside '2' is finite and '2''s own log makes the NaN: hook "
        "EVERY module of named_modules() (blocks too, not only the leaves), and keep the FIRST "
        "non-finite output (the modules after it, the model '' included, only pass it on)"
    )
    assert f"module {ours} " in ref


@pytest.mark.exercise("12.3")
def test_12_3_nested_and_clean_models(impl) -> None:
    model = _net()
    model[1][1].weight.data.fill_(math.inf)  # now the inner Linear, "1.1", is the first culprit
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        got = impl.first_nonfinite_module(model, mg.randn(4, 4))
    assert got == "1.1", f"got {got!r}: the inner Linear '1.1' is the first non-finite output"
    clean = mg.nn.Sequential(mg.nn.Linear(4, 3), mg.nn.ReLU())
    assert impl.first_nonfinite_module(clean, mg.randn(4, 4)) is None
    calls = []
    clean.register_forward_hook(lambda m, i, o: calls.append(1))
    clean(mg.randn(2, 4))  # only this hook may remain: the exercise removed its own
    assert calls == [1]


class _Exp(mg.nn.Module):
    def forward(self, x: mg.Tensor) -> mg.Tensor:
        return (x.abs() * 1000).exp()  # +inf, never NaN


@pytest.mark.exercise("12.3")
def test_12_3_inf_counts_and_the_model_itself_has_a_name(impl) -> None:
    mg.manual_seed(0)
    with np.errstate(over="ignore", invalid="ignore"):
        got = impl.first_nonfinite_module(mg.nn.Sequential(mg.nn.Linear(4, 4), _Exp()),
                                          mg.randn(3, 4))  # fmt: skip
        assert got == "1", f"got {got!r}: " + (
            "an output of +inf (no NaN) is not finite either"
            if got is None
            else "'1' (its output is +inf) is the first non-finite module; keep the first"
        )
    mg.manual_seed(1)
    root = _LinearThenLog()
    with mg.no_grad():
        root.inner.weight.fill_(0.0)
        root.inner.bias.fill_(-1.0)  # the Linear's output is finite; the log makes it NaN
    with np.errstate(invalid="ignore"):
        got = impl.first_nonfinite_module(root, mg.randn(3, 8))
    assert got == "", (
        f"got {got!r}: the model's own forward made the NaN, and named_modules() names the "
        "model itself '' (hook it too)"
    )


class _Boom(mg.nn.Module):
    def forward(self, x: mg.Tensor) -> mg.Tensor:
        raise RuntimeError("a forward that fails")


@pytest.mark.exercise("12.3")
def test_12_3_hooks_are_removed_even_when_forward_raises(impl) -> None:
    """After the call, a forward of the model runs none of the answer's code (a hook left
    registered would run on every later forward), also when the forward raised."""
    answer_file = Path(impl.first_nonfinite_module.__code__.co_filename).resolve()
    clean = mg.nn.Sequential(mg.nn.Linear(4, 3), mg.nn.ReLU())
    failing = mg.nn.Sequential(mg.nn.Linear(4, 3), _Boom())
    impl.first_nonfinite_module(clean, mg.randn(4, 4))
    try:
        impl.first_nonfinite_module(failing, mg.randn(4, 4))
    except RuntimeError:
        pass  # the forward's own error may pass through
    for model, when in ((clean, "after a call"), (failing[0], "after a forward that raised")):
        with watch_calls() as seen:
            model(mg.randn(2, 4))
        ran = [f for f in seen.files if Path(f).resolve() == answer_file]
        assert not ran, (
            f"{when}, the model still runs your hooks: keep the handles register_forward_hook "
            "returns and call .remove() on each in a finally block"
        )


# ----------------------------------------------------------------------------- 12.4
def _write(log_dir: Path) -> None:
    with SummaryWriter(log_dir, write_csv=False, write_jsonl=False) as writer:
        for step in range(5):
            writer.add_scalar("Loss/train", 1.0 / (step + 1), step)
        writer.add_text("notes", "hello", 0)


@pytest.mark.exercise("12.4")
def test_12_4_reads_the_records_summarywriter_wrote(impl, tmp_path: Path) -> None:
    _write(tmp_path)
    (path,) = tmp_path.glob("events.out.tfevents.*")
    try:
        records = impl.read_tfrecords(path)
    except ValueError as e:
        pytest.fail(
            f"read_tfrecords raised ValueError({e}) on an intact file: the length is a "
            "little-endian uint64 and each CRC a little-endian uint32 ('<Q', '<I')"
        )
    assert len(records) == 1 + 5 + 1  # the file-version record, 5 scalars, 1 text
    assert b"brain.Event:2" in records[0]
    assert all(b"Loss/train" in r for r in records[1:6])
    assert b"hello" in records[6]


@pytest.mark.exercise("12.4")
@pytest.mark.parametrize("where", ["length", "length_crc", "data", "data_crc", "truncated"])
def test_12_4_damage_is_detected(impl, tmp_path: Path, where: str) -> None:
    _write(tmp_path)
    (path,) = tmp_path.glob("events.out.tfevents.*")
    blob = bytearray(path.read_bytes())
    first_len = int.from_bytes(blob[:8], "little")
    offset = {"length": 0, "length_crc": 9, "data": 13, "data_crc": 12 + first_len + 1}
    if where == "truncated":
        blob = blob[:-3]
    else:
        blob[offset[where]] ^= 0x04
    path.write_bytes(bytes(blob))
    check = {
        "length": "the length's CRC",
        "length_crc": "the length's CRC",
        "data": "the data's CRC",
        "data_crc": "the data's CRC",
        "truncated": "that the whole record is there",
    }[where]
    try:
        impl.read_tfrecords(path)
    except ValueError:
        return
    pytest.fail(f"a damaged file ({where}) was read without a ValueError: check {check}")


# ----------------------------------------------------------------------------- 12.5
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("ee1852bd2b8b7e65", "a9370cbae1a33dd0b3ef8e8a588a99f169e5c0973fef109732b5f07ff492e869"),
    "q2": ("8aaf01cb33dd990a", "e485975060ad9ba7cbe449b71a9e0809ab9cc1c76d441e0f1147351196ec1157"),
    "q3": ("71791a479a5c473e", "1d9a81a93c57cba281b5309e31b1ac52e57c0516e019c39b9f53687fc11220ba"),
}
QUIZ_HINTS = {
    "q1": ("Re-read 'Reading the curves': what does each pattern of the two curves mean?"),
    "q2": ("Re-read 'NaN hunting': what does a NaN do to everything computed from it?"),
    "q3": (
        "Compute the EMA of a constant series 1, 1, 1 ... started at 0 ('Smoothing noisy curves')."
    ),
}


@pytest.mark.exercise("12.5")
@pytest.mark.parametrize("question", list(QUIZ))
def test_12_5_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
