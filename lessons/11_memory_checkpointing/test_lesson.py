"""Checks for chapter 11. Oracles: arrays of known size, the closed-form cost model, and
minigenesis.utils.checkpoint_sequential with plain backprop."""

from __future__ import annotations

import importlib
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 11.1 the peak not reset when tracing was already on             -> ignores what came before
# 11.3 every segment checkpointed, the last one too              -> recomputes only those
#      return mg.utils.checkpoint_sequential(...) (the oracle)     -> by-hand watch
#      the first segments run under mg.no_grad() (no graph at all) -> gradients reach every layer
# 11.4 the gradients not cleared first (a 2nd call adds to them)  -> training step peaks

MB = 1 << 20


# ----------------------------------------------------------------------------- 11.1
@pytest.mark.exercise("11.1")
def test_11_1_measures_a_known_allocation(impl) -> None:
    result, peak = impl.peak_bytes(lambda n: float(np.ones(n).sum()), 1_000_000)
    assert result == 1_000_000.0
    assert 8_000_000 <= peak < 8_000_000 + MB // 2


@pytest.mark.exercise("11.1")
def test_11_1_ignores_what_was_allocated_before(impl) -> None:
    tracemalloc.start()
    try:
        keep = np.ones(2_000_000)  # 16 MB alive before fn starts
        np.ones(4_000_000).sum()  # 32 MB allocated and freed again: an old peak, not fn's
        _, peak = impl.peak_bytes(lambda: np.ones(100_000).sum())
        assert tracemalloc.is_tracing(), "leave tracing on when it was on"
        assert 800_000 <= peak < 800_000 + MB // 2, (
            f"peak {peak} bytes for fn's 800,000: tracing was on with 16 MB allocated (and an "
            "older peak of 48 MB) before fn started; reset the peak and subtract the memory "
            "traced at the start"
        )
        del keep
    finally:
        tracemalloc.stop()


@pytest.mark.exercise("11.1")
def test_11_1_stops_tracing_it_started(impl) -> None:
    assert not tracemalloc.is_tracing()
    impl.peak_bytes(lambda: None)
    running = tracemalloc.is_tracing()
    tracemalloc.stop()
    assert not running, "peak_bytes started tracemalloc and left it on: stop what you started"


# ----------------------------------------------------------------------------- 11.2
@pytest.mark.exercise("11.2")
@pytest.mark.parametrize(
    ("layers", "segments", "stored"),
    [(16, 1, 16), (16, 4, 7), (16, 16, 16), (10, 3, 6), (100, 10, 19), (7, 2, 5)],
)
def test_11_2_stored_activations(impl, layers: int, segments: int, stored: int) -> None:
    got = impl.stored_activations(layers, segments)
    last = layers - (segments - 1) * (layers // segments)
    assert got == stored, (
        f"stored_activations({layers}, {segments}) = {got}: {segments - 1} checkpoint inputs + "
        f"the last segment's {last} outputs (the rest of the layers: {layers} - {segments - 1} * "
        f"{layers // segments})"
    )


@pytest.mark.exercise("11.2")
@pytest.mark.parametrize(("layers", "best"), [(1, 1), (4, 2), (16, 4), (100, 10), (50, 5)])
def test_11_2_best_segments(impl, layers: int, best: int) -> None:
    assert impl.best_segments(layers) == best, f"{layers} layers: {best} segments store fewest"


@pytest.mark.exercise("11.2")
def test_11_2_best_is_the_minimum(impl) -> None:
    for layers in range(1, 40):
        best = impl.best_segments(layers)
        costs = [impl.stored_activations(layers, s) for s in range(1, layers + 1)]
        assert costs[best - 1] == min(costs), (
            f"{layers} layers: {best} segments store {costs[best - 1]}, {min(costs)} is possible"
        )
        assert costs.index(min(costs)) == best - 1, (  # the smallest on a tie
            f"{layers} layers: {costs.index(min(costs)) + 1} and {best} segments both store "
            f"{min(costs)}: on a tie return the smallest"
        )


# ----------------------------------------------------------------------------- 11.3
def _mlp(depth: int = 8, width: int = 64):
    mg.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [mg.nn.Linear(width, width), mg.nn.Tanh()]
    return mg.nn.Sequential(*layers)


@pytest.mark.exercise("11.3")
@pytest.mark.parametrize("segments", [1, 2, 3, 5])
def test_11_3_same_output_and_gradients_as_checkpoint_sequential(impl, segments: int) -> None:
    model = _mlp()
    x = mg.randn(16, 64, requires_grad=True)
    out = impl.checkpointed_forward(list(model), x, segments)
    out.pow(2).sum().backward()
    missing = [n for n, p in model.named_parameters() if p.grad is None]
    if x.grad is None:
        pytest.fail(
            f"no gradient reached the input x (nor {', '.join(missing) or 'any parameter'}): a "
            "segment that runs under mg.no_grad() keeps no graph at all; mg.utils.checkpoint "
            "keeps the segment's input and recomputes the rest during backward"
        )
    assert not missing, (
        f"no gradient reached {', '.join(missing)}: did those blocks run? Every block runs once, "
        f"in order: {segments - 1} checkpointed runs of len(blocks) // segments, then all the rest"
    )
    ours = [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]

    model.zero_grad()
    x.grad = None
    ref_out = mg.utils.checkpoint_sequential(model, segments, x)
    ref_out.pow(2).sum().backward()
    ref = [p.grad.numpy() for p in model.parameters()] + [x.grad.numpy()]

    np.testing.assert_allclose(
        out.detach().numpy(),
        ref_out.detach().numpy(),
        rtol=1e-6,
        err_msg="every block once, in order (checkpointed runs, then the rest)",
    )
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


@pytest.mark.exercise("11.3")
def test_11_3_is_written_by_hand(impl) -> None:
    """mg.utils.checkpoint_sequential is the oracle: the answer builds the segments itself and
    calls mg.utils.checkpoint on each (checkpoint_sequential's own code must not run)."""
    oracle = importlib.import_module("minigenesis.utils.checkpoint")
    model = _mlp()
    x = mg.randn(4, 64, requires_grad=True)
    with watch_calls() as seen:
        impl.checkpointed_forward(list(model), x, 3).sum().backward()
    in_oracle = {
        code.co_name
        for code in seen.deepest_by_code
        if Path(code.co_filename).resolve() == Path(oracle.__file__).resolve()
    }
    assert "checkpoint_sequential" not in in_oracle, (
        "checkpointed_forward ran mg.utils.checkpoint_sequential, the function the checks "
        "compare it with: cut the blocks into segments and mg.utils.checkpoint each yourself"
    )
    assert "checkpoint" in in_oracle, "no segment went through mg.utils.checkpoint"


@pytest.mark.exercise("11.3")
def test_11_3_recomputes_only_the_checkpointed_segments(impl) -> None:
    blocks = list(_mlp())  # 16 blocks; 3 segments: 2 checkpointed runs of 5, then 6 plain
    calls = [0] * len(blocks)
    for i, block in enumerate(blocks):
        block.register_forward_hook(lambda m, inp, out, i=i: calls.__setitem__(i, calls[i] + 1))
    x = mg.randn(4, 64, requires_grad=True)
    impl.checkpointed_forward(blocks, x, 3).sum().backward()
    want = [2] * 10 + [1] * 6  # forward, then once more in backward for a checkpointed block
    assert calls == want, (
        f"forward calls per block (forward + recomputation): {calls}; the first segments - 1 "
        "runs of len(blocks) // segments blocks go through mg.utils.checkpoint (run again in "
        "backward), every block after them runs once, normally"
    )


@pytest.mark.exercise("11.3")
def test_11_3_keeps_less_memory_than_plain_backprop(impl) -> None:
    model = _mlp(depth=16, width=64)
    x = mg.randn(2048, 64)  # activations (512 KB a layer) dwarf the weights (16 KB)

    def peak(forward) -> int:
        model.zero_grad()
        tracemalloc.start()
        try:
            forward().sum().backward()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    plain = peak(lambda: model(x))
    ours = peak(lambda: impl.checkpointed_forward(list(model), x, 4))
    assert ours < 0.75 * plain, f"checkpointed peak {ours} vs plain {plain}"


# ----------------------------------------------------------------------------- 11.4
@pytest.mark.exercise("11.4")
def test_11_4_training_step_peaks(impl) -> None:
    depth, width, batch = 16, 64, 2048
    model = _mlp(depth, width)
    x = mg.randn(batch, width)
    plain = impl.training_step_peak(model, x, None)
    checkpointed = impl.training_step_peak(model, x, 4)
    # plain backprop keeps at least one float32 activation per layer until backward reaches it
    assert plain >= depth * batch * width * 4
    assert checkpointed < 0.75 * plain
    assert all(p.grad is not None for p in model.parameters()), "run the backward pass too"
    once = [p.grad.numpy().copy() for p in model.parameters()]
    impl.training_step_peak(model, x, 4)
    for (name, p), g in zip(model.named_parameters(), once):
        np.testing.assert_allclose(
            p.grad.numpy(),
            g,
            rtol=1e-5,
            atol=1e-7,
            err_msg=f"{name}.grad after a second call is not one step's gradient: each call "
            "starts from cleared gradients (backward adds into any gradient already there)",
        )


# ----------------------------------------------------------------------------- 11.5
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("a64c59bbe9e49ac6", "3f2c03708c84c56a71c8f3fd887c0eac7231b1982193b58f6c01cf064898534a"),
    "q2": ("9c6b011beae86330", "2261bd9d3dc606c73187ff5e641a8055c9ab4104f610a234bac92ce30b85eb84"),
    "q3": ("d6ded759704e6bb6", "8c6cfb6ebc3305388355d0e027d6f3a8ebbc6a9a5af195c2983c03e9ff5f8245"),
}
QUIZ_HINTS = {
    "q1": ("Re-read 'Activations grow with depth': what does the graph keep for backward?"),
    "q2": (
        "Re-read 'Checkpointing: keep less, recompute in backward' and count what is stored at "
        "the peak."
    ),
    "q3": (
        "Re-read 'A common pattern: a checkpointed module': what differs between the first "
        "forward and its recomputation?"
    ),
}


@pytest.mark.exercise("11.5")
@pytest.mark.parametrize("question", list(QUIZ))
def test_11_5_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
