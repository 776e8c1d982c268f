"""The logical/bitwise, pointwise, special, statistics, searching and diagonal functions give the
same values, dtypes and gradients on "cuda" (a GPU, or the strict CuPy stand-in) as on the CPU."""

import numpy as np
import pytest

import minigenesis as mg

RNG = np.random.default_rng(17)
F = RNG.normal(size=(4, 5))
G = RNG.normal(size=(4, 5))
POS = RNG.uniform(0.05, 0.95, size=(3, 4))
I = RNG.integers(-8, 9, size=(3, 4))
J = RNG.integers(-8, 9, size=(3, 4))
NANS = np.array([[1.0, np.nan, 3.0, 0.5], [2.0, -1.0, 4.0, 0.0]])
SPECIAL = np.array([-3.5, -0.5, 0.25, 1.0, 2.5, 7.0, 30.0])
SORTED = np.array([-2.0, -1.0, 0.0, 0.5, 3.0])

CASES = [
    ("logical_xor", lambda a, b: mg.logical_xor(a, b), [I, J]),
    ("bitwise_and", lambda a, b: mg.bitwise_and(a, b), [I, J]),
    ("signbit", lambda a: mg.signbit(a), [F]),
    ("logaddexp", lambda a, b: mg.logaddexp(a, b), [F, G]),
    ("hypot", lambda a, b: mg.hypot(a, b), [F, G]),
    ("xlogy", lambda a, b: mg.xlogy(a, b), [POS, POS]),
    ("logit", lambda a: a.logit(eps=0.1), [POS]),
    ("fmax", lambda a, b: mg.fmax(a, b), [NANS, NANS[::-1].copy()]),
    ("frexp", lambda a: mg.frexp(a), [F]),
    ("copysign", lambda a, b: mg.copysign(a, b), [F, G]),
    ("erfc", lambda a: mg.erfc(a), [F]),
    ("i0", lambda a: mg.i0(a), [SPECIAL]),
    ("sinc", lambda a: mg.sinc(a), [SPECIAL]),
    ("entr", lambda a: mg.special.entr(a), [POS]),
    ("ndtri", lambda a: mg.special.ndtri(a), [POS]),
    ("median", lambda a: mg.median(a, 1), [F]),
    ("median_all", lambda a: a.median(), [np.round(F)]),
    ("quantile_q", lambda a, q: a.quantile(q, 0, keepdim=True), [F, np.array([0.2, 0.9])]),
    ("kthvalue", lambda a: mg.kthvalue(a, 2, 0), [F]),
    ("quantile", lambda a: mg.quantile(a, 0.3, dim=1), [F]),
    ("nanquantile", lambda a: mg.nanquantile(a, 0.6, dim=1), [NANS]),
    ("nanmean", lambda a: mg.nanmean(a, 1), [NANS]),
    ("logcumsumexp", lambda a: mg.logcumsumexp(a, 1), [F]),
    ("count_nonzero", lambda a: mg.count_nonzero(a, 0), [I]),
    ("histogram", lambda a: mg.histogram(a, 4), [F]),
    ("mode", lambda a: mg.mode(a), [I]),
    ("diff", lambda a: mg.diff(a, 2), [F]),
    ("gradient", lambda a: mg.gradient(a), [F]),
    ("cov", lambda a: mg.cov(a), [F]),
    ("corrcoef", lambda a: mg.corrcoef(a), [F]),
    ("searchsorted", lambda s, v: mg.searchsorted(s, v), [SORTED, F]),
    ("isin", lambda a, b: mg.isin(a, b), [I, J[0]]),
    ("diagonal", lambda a: a.diagonal(1), [F]),
    ("diag_embed", lambda a: mg.diag_embed(a), [F]),
    ("rot90", lambda a: mg.rot90(a), [F]),
    ("tensordot", lambda a, b: mg.tensordot(a, b, 1), [F, G.T.copy()]),
    ("block_diag", lambda a, b: mg.block_diag(a, b), [F, G]),
    ("combinations", lambda a: mg.combinations(a), [F[0]]),
    ("vander", lambda a: mg.vander(a, 4), [F[0]]),
    ("tensor_split", lambda a: mg.tensor_split(a, 3, 1), [F]),
]


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


@pytest.mark.parametrize("name, fn, arrays", CASES, ids=[c[0] for c in CASES])
def test_same_values_and_gradients_on_the_device(device, name, fn, arrays):
    results = {}
    for dev in ("cpu", device):
        ts = [mg.tensor(a, device=dev, requires_grad=a.dtype.kind == "f") for a in arrays]
        outs = _flat(fn(*ts))
        floats = [o for o in outs if o.dtype.is_floating_point and o.requires_grad]
        if floats:
            total = floats[0].nansum()
            for o in floats[1:]:
                total = total + o.nansum()
            total.backward()
        grads = [t.grad.cpu().numpy() if t.grad is not None else None for t in ts]
        results[dev] = ([(o.dtype, o.cpu().detach().numpy()) for o in outs], grads)
    (cpu_outs, cpu_grads), (dev_outs, dev_grads) = results["cpu"], results[device]
    for (dc, vc), (dd, vd) in zip(cpu_outs, dev_outs, strict=True):
        assert dc is dd, name
        np.testing.assert_allclose(vd, vc, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=name)
    for gc, gd in zip(cpu_grads, dev_grads, strict=True):
        if gc is None:
            assert gd is None, name
        else:
            np.testing.assert_allclose(gd, gc, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=name)
