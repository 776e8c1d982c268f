"""F.batch_norm's running statistics come in pairs, as in PyTorch: one without the other is a
ValueError (in training and eval mode, for (N, C) and (N, C, L) inputs alike), and eval mode
without them is a RuntimeError (there is nothing to normalise with)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("which", ["mean", "var"])
def test_one_running_statistic_without_the_other_is_a_value_error(shape, training, which):
    x = mg.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    mean = mg.zeros(3) if which == "mean" else None
    var = mg.ones(3) if which == "var" else None
    with pytest.raises(ValueError, match="both be None or neither be None"):
        F.batch_norm(x, mean, var, training=training)
    if mean is not None:  # and the statistic given is left as it was
        np.testing.assert_array_equal(mean.numpy(), np.zeros(3, np.float32))


@pytest.mark.parametrize("shape", [(4, 3), (1, 3), (4, 3, 5)])
def test_eval_mode_without_running_statistics_is_a_runtime_error(shape):
    x = mg.ones(*shape)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(x, None, None, training=False)


def test_training_without_running_statistics_still_normalises_by_the_batch():
    x = np.arange(12.0).reshape(4, 3)
    y = F.batch_norm(mg.tensor(x), None, None, training=True).numpy()
    expected = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
    np.testing.assert_allclose(y, expected, rtol=1e-12)


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("name", ["weight", "bias", "running_mean", "running_var"])
@pytest.mark.parametrize("size", [1, 4])
def test_a_parameter_without_one_element_per_channel_is_refused(shape, training, name, size):
    """weight, bias and the running statistics hold C elements; one of 1 element (which NumPy
    would broadcast silently) or of C + 1 is PyTorch's RuntimeError naming it, raised before a
    running statistic is touched."""
    x = mg.tensor(np.random.default_rng(0).standard_normal(shape))
    args = {
        "weight": mg.ones(3, dtype=mg.float64),
        "bias": mg.zeros(3, dtype=mg.float64),
        "running_mean": mg.zeros(3, dtype=mg.float64),
        "running_var": mg.ones(3, dtype=mg.float64),
    }
    args[name] = mg.ones(size, dtype=mg.float64)
    before = {k: v.numpy().copy() for k, v in args.items()}
    with pytest.raises(RuntimeError, match=f"{name} should contain 3 elements not {size}"):
        F.batch_norm(x, training=training, **args)
    for k, v in args.items():
        np.testing.assert_array_equal(v.numpy(), before[k])
