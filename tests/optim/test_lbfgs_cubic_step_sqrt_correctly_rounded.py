"""The strong-Wolfe line search's cubic step takes the correctly rounded square root of its float32
discriminant, as PyTorch's d2_square.sqrt() on a 0-d float32 tensor: a float32 scalar's ** 0.5
(powf) is one ulp off for some values, and the interpolated step then lands one ulp away, a
difference the line search and the L-BFGS history carry on. Oracle: the same float32 formula with
d2 = the float64 square root rounded to float32 (the correctly rounded float32 root)."""

import math

import numpy as np
import pytest

from minigenesis.optim.lbfgs import _cubic_interpolate

# (g1, g2, f1, f2) on the interval [0, 1] where powf's root is one ulp off the correct one
CASES = [
    (-1.544629693031311, 4.1654253005981445, 0.568563469742169, 0.6838649298282634),
    (-8.613648414611816, 2.010530948638916, 0.1805851118713513, 0.704456244336917),
    (-4.631258487701416, 1.718034029006958, 0.5966843360708713, 0.2492181246947498),
    (-4.444465160369873, 9.911505699157715, 0.48704744520393783, 0.5546037283897934),
]


@pytest.mark.parametrize("g1, g2, f1, f2", CASES)
def test_cubic_step_uses_correctly_rounded_float32_square_root(g1, g2, f1, f2):
    g1, g2 = np.float32(g1), np.float32(g2)
    d1 = g1 + g2 - 3 * (f1 - f2) / (0.0 - 1.0)  # float32, as PyTorch's 0-d tensors
    d2_square = d1**2 - g1 * g2
    d2 = np.float32(math.sqrt(float(d2_square)))
    expected = 1.0 - (1.0 - 0.0) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    got = _cubic_interpolate(0.0, f1, g1, 1.0, f2, g2)
    assert isinstance(got, np.float32)
    assert got == expected
