"""``mg.use_deterministic_algorithms`` and its debug modes, as PyTorch's: the switch is recorded
and read back through every one of PyTorch's five functions, bad values raise PyTorch's errors,
and with it on a seeded training step repeats exactly."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.fixture(autouse=True)
def _restore_the_switch():
    yield
    mg.use_deterministic_algorithms(False)


@pytest.mark.parametrize(
    "mode, warn_only, debug_mode", [(False, False, 0), (True, True, 1), (True, False, 2)]
)
def test_the_switch_reads_back_as_flags_and_debug_mode(mode, warn_only, debug_mode) -> None:
    mg.use_deterministic_algorithms(mode, warn_only=warn_only)
    assert mg.are_deterministic_algorithms_enabled() is mode
    assert mg.is_deterministic_algorithms_warn_only_enabled() is warn_only
    assert mg.get_deterministic_debug_mode() == debug_mode


@pytest.mark.parametrize(
    "debug_mode, enabled, warn_only",
    [("default", False, False), ("warn", True, True), ("error", True, False), (1, True, True)],
)
def test_debug_mode_sets_the_switch_by_name_or_number(debug_mode, enabled, warn_only) -> None:
    mg.set_deterministic_debug_mode(debug_mode)
    assert mg.are_deterministic_algorithms_enabled() is enabled
    assert mg.is_deterministic_algorithms_warn_only_enabled() is warn_only


def test_bad_values_raise_pytorchs_errors() -> None:
    with pytest.raises(TypeError):
        mg.use_deterministic_algorithms(1)
    with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`"):
        mg.set_deterministic_debug_mode("strict")
    with pytest.raises(RuntimeError, match="expected 0, 1, or 2"):
        mg.set_deterministic_debug_mode(3)
    with pytest.raises(TypeError):
        mg.set_deterministic_debug_mode(2.0)
    assert not mg.are_deterministic_algorithms_enabled()  # a refused value changes nothing


def test_a_seeded_step_repeats_exactly_with_the_switch_on() -> None:
    mg.use_deterministic_algorithms(True)

    def step() -> np.ndarray:
        mg.manual_seed(0)
        model = mg.nn.Sequential(mg.nn.Linear(6, 16), mg.nn.Dropout(0.3), mg.nn.Linear(16, 2))
        opt = mg.optim.Adam(model.parameters(), lr=1e-2)
        x, y = mg.randn(32, 6), mg.randint(0, 2, (32,))
        mg.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        return model[0].weight.detach().numpy()

    np.testing.assert_array_equal(step(), step())
