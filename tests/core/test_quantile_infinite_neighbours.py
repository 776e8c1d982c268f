"""quantile's linear interpolation between an infinite and a finite neighbour follows PyTorch's
lerp, which works from the nearer end: a + w (b - a) for w < 0.5, b - (1 - w)(b - a) from 0.5 on.
So the midpoint of 2 and inf is NaN (inf - inf), and 0.6 of the way from -inf to 0.5 is -inf
(it was NaN and inf: a + w (b - a) throughout)."""

import math

import minigenesis as mg


def test_quantile_between_an_infinite_and_a_finite_value_is_pytorchs_lerp():
    x = mg.tensor([math.inf, 2.0], dtype=mg.float64)
    assert math.isnan(mg.quantile(x, 0.5).item())
    y = mg.tensor([-math.inf, 0.5, 2.0, math.inf], dtype=mg.float64)
    assert mg.quantile(y, 0.2).item() == -math.inf  # position 0.6 between -inf and 0.5
    assert math.isnan(mg.quantile(y, 0.1).item())  # position 0.3: -inf + 0.3 (inf), as PyTorch
    assert mg.nanquantile(y, 0.2, interpolation="midpoint").item() == -math.inf


def test_quantile_of_finite_values_is_unchanged_by_the_lerp_form():
    x = mg.tensor([1.0, 2.0, 4.0], dtype=mg.float64, requires_grad=True)
    q = mg.quantile(x, 0.75)  # position 1.5: 2 + 0.5 (4 - 2)
    assert q.item() == 3.0
    q.backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]
