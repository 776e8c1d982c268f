"""Differential test of the nn layer against PyTorch: random constructor arguments and inputs for
every module both libraries have (``nn_diff_conv``, ``nn_diff_layers``, ``nn_diff_loss``), the same
cases with a wrongly shaped input (``nn_diff_errors``), and nn.init's distributions
(``nn_diff_init``). Each case is run as described in ``nn_diff``: outputs, input and parameter
gradients, and buffers must agree in float32 and float64, and where PyTorch raises we must raise.

The default run draws a fixed, small number of cases per family (the same ones every run);
``pytest -m slow tests/parity/test_nn_diff.py`` draws many more, from other seeds. To list every
disagreement of a family, known ones included: ``python -m tests.parity.test_nn_diff FAMILY N``.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("torch")

from . import (  # noqa: E402
    nn_diff,
    nn_diff_conv,
    nn_diff_errors,
    nn_diff_init,
    nn_diff_layers,
    nn_diff_loss,  # noqa: E402
)

FAMILIES = {**nn_diff_conv.GENERATORS, **nn_diff_layers.GENERATORS, **nn_diff_loss.GENERATORS}
BAD_INPUT = nn_diff_errors.GENERATORS

# cases per family in the default run: the Transformer stacks and the recurrent layers cost
# the most per case
SLOW_FAMILIES = {"transformer": 1, "transformer_layer": 2, "multihead_attention": 4, "rnn": 4}
DEFAULT_CASES = 6
SLOW_CASES = 150


def _ours_raised(problem: str, text: str) -> bool:
    return problem.startswith("forward: ours raised") and text in problem


# Disagreements where float64 truth (or PyTorch's own documentation) is on our side, or where
# PyTorch's behaviour is an accident of one of its code paths: (why, test of a case and finding).
KNOWN = [
    (
        "Hardsigmoid's float64 gradient: PyTorch multiplies by 1/6 rounded to float32 (an error "
        "of 5e-9); ours is 1/6 in float64",
        lambda case, p: (
            "Hardsigmoid" in (case.target[3:], *case.args[:1]) and p.startswith("grad of input 0")
        ),
    ),
    (
        "poisson_nll_loss(full=True): PyTorch's gradient for a target of 0 or 1 is NaN (0 log 0 "
        "in its masked Stirling term); ours is the derivative of the loss, whose Stirling term "
        "is 0 there",
        lambda case, p: case.target == "nn.PoissonNLLLoss" and p.startswith("grad of input 1"),
    ),
    (
        "circular padding wider than the cropped dim: PyTorch checks the uncropped size and then "
        "reads past the data (or fails on overlapping memory); ours raises ValueError",
        lambda case, p: _ours_raised(p, "can wrap at most once"),
    ),
    (
        "antialiased interpolation to an output width of 1: PyTorch applies the first output "
        "row's weights to every row; ours weighs each row by its own filter",
        lambda case, p: case.kwargs.get("antialias") is True and p.startswith("output 0:"),
    ),
    (
        "adaptive average pooling to size 1 of an input of too many dims: PyTorch's mean "
        "shortcut skips its rank check; ours raises",
        lambda case, p: case.target.startswith("nn.AdaptiveAvgPool") and _ours_raised(p, "-d"),
    ),
    (
        "a transposed convolution to an output size of 0 with dilation > 1: PyTorch's dilated "
        "path returns an empty tensor, its other paths raise, as ours does",
        lambda case, p: _ours_raised(p, "would be empty") and case.kwargs.get("dilation") != 1,
    ),
    (
        "in-place leaky_relu with a negative slope: PyTorch cannot tell the input's sign from "
        "the output it saved and refuses the backward; ours keeps what it needs and gives the "
        "gradient of the out-of-place form",
        lambda case, p: "In-place leakyReLu backward" in p,
    ),
    (
        "InstanceNorm with running statistics of another float dtype than its input: PyTorch's "
        "instance_norm accepts it (its BatchNorm refuses: 'mixed dtype'); ours refuses both",
        lambda case, p: case.target.startswith("nn.InstanceNorm") and _ours_raised(p, "mixed"),
    ),
    (
        "nll_loss of a (C,) input and a (1,) target with reduction='none': PyTorch's forward "
        "runs, its backward fails on the shapes; ours differentiates it",
        lambda case, p: p.startswith("backward: torch raised") and "size mismatch" in p,
    ),
    (
        "InstanceNorm with affine parameters on an empty batch: PyTorch fails inside (select() "
        "index out of range); ours returns the empty output",
        lambda case, p: case.target.startswith("nn.InstanceNorm") and "select(): index" in p,
    ),
    (
        "pixel_shuffle / pixel_unshuffle of an empty batch: PyTorch's unshuffle returns the "
        "input's shape and its shuffle's backward fails on its own gradient; ours keeps the rule",
        lambda case, p: (
            case.target.startswith("nn.Pixel")
            and ("PixelShuffleBackward0" in p or p.startswith("output 0 shape"))
        ),
    ),
    (
        "EmbeddingBag with include_last_offset and a last offset short of the input's length "
        "(outside PyTorch's contract): its float32 kernel ends the last bag there, its float64 "
        "kernel at the input's end, as ours does in both",
        lambda case, p: (
            case.target == "nn.EmbeddingBag"
            and case.kwargs.get("include_last_offset") is True
            and p.startswith("output 0: relative error")
        ),
    ),
    (
        "BatchNorm without affine parameters or running statistics on an input of another "
        "channel count: PyTorch never looks at num_features; ours raises ValueError",
        lambda case, p: case.target.startswith("nn.BatchNorm") and _ours_raised(p, "channels"),
    ),
]


def _known(case: nn_diff.Case, problem: str) -> bool:
    return any(test(case, problem) for _, test in KNOWN)


def _check(generators: dict, n: int, seed0: int) -> None:
    report = nn_diff.sweep(generators, n, seed0, known=_known)
    lines = [f"{name}: {case}\n    " + "\n    ".join(problems) for name, case, problems in report]
    assert not report, f"{len(report)} cases disagree with PyTorch:\n" + "\n".join(lines[:20])


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_modules_match_pytorch_on_random_configurations(family: str) -> None:
    n = SLOW_FAMILIES.get(family, DEFAULT_CASES)
    _check({family: FAMILIES[family]}, n, seed0=0)


@pytest.mark.parametrize("family", sorted(BAD_INPUT))
def test_modules_raise_where_pytorch_raises_on_misshapen_inputs(family: str) -> None:
    _check({family: BAD_INPUT[family]}, 3, seed0=0)


def test_init_distributions_match_pytorch() -> None:
    for k in range(12):
        name, kw, shape = nn_diff_init.draw_config(np.random.default_rng([0, k]))
        found = nn_diff_init.compare_config(name, kw, shape, seed=k)
        assert not found, f"nn.init.{name}(**{kw}) on {shape}: {found}"


def test_deterministic_inits_gains_and_fans_match_pytorch() -> None:
    assert nn_diff_init.deterministic_findings() == []


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_modules_match_pytorch_on_many_random_configurations(family: str) -> None:
    n = SLOW_CASES // 5 if family in SLOW_FAMILIES else SLOW_CASES
    _check({family: FAMILIES[family]}, n, seed0=1)


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(BAD_INPUT))
def test_modules_raise_where_pytorch_raises_on_many_misshapen_inputs(family: str) -> None:
    _check({family: BAD_INPUT[family]}, SLOW_CASES // 2, seed0=1)


@pytest.mark.slow
def test_init_distributions_match_pytorch_on_many_configurations() -> None:
    for k in range(300):
        name, kw, shape = nn_diff_init.draw_config(np.random.default_rng([1, k]))
        found = nn_diff_init.compare_config(name, kw, shape, seed=k)
        assert not found, f"nn.init.{name}(**{kw}) on {shape}: {found}"


def main(argv: list) -> None:
    """Print every disagreement (known ones marked) of the named families, N cases each."""
    names, n = argv[:-1], int(argv[-1])
    gens = {**FAMILIES, **BAD_INPUT}
    for name, case, problems in nn_diff.sweep({k: gens[k] for k in names or gens}, n, seed0=2):
        print(f"{name}: {case}")
        for p in problems:
            print(f"    {p}{'   (known)' if _known(case, p) else ''}")


if __name__ == "__main__":
    main(sys.argv[1:])
