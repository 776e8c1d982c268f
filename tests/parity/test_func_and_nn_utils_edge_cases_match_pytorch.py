"""mg.func, prune, fusion, get_total_norm and state_dict's version record against PyTorch on the
same float64 data: the structures, values and exception types of their edge cases."""

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.func as mfunc
from minigenesis.nn.utils import fusion as mfusion
from minigenesis.nn.utils import get_total_norm as m_total_norm
from minigenesis.nn.utils import prune as mprune

torch = pytest.importorskip("torch")
tfunc = torch.func
tprune = pytest.importorskip("torch.nn.utils.prune")
tfusion = pytest.importorskip("torch.nn.utils.fusion")


def _x(*shape: int) -> np.ndarray:
    return np.random.default_rng(0).standard_normal(shape)


def test_jvp_with_aux_and_a_pytree_output_matches_pytorch():
    x, v = _x(4), np.arange(4.0)

    def f(lib):
        return lambda a: ({"s": a.sin(), "t": [a * a]}, a.sum())

    mt = mfunc.jvp(f(mg), (mg.tensor(x),), (mg.tensor(v),), has_aux=True)
    tt = tfunc.jvp(f(torch), (torch.tensor(x),), (torch.tensor(v),), has_aux=True)
    for m_tree, t_tree in zip(mt[:2], tt[:2]):
        np.testing.assert_allclose(m_tree["s"].numpy(), t_tree["s"].numpy(), rtol=1e-14)
        np.testing.assert_allclose(m_tree["t"][0].numpy(), t_tree["t"][0].numpy(), rtol=1e-14)
    assert mt[2].item() == pytest.approx(tt[2].item())


def test_vmap_nested_in_dims_and_unbatched_output_match_pytorch():
    a, b, c = _x(5, 3, 4), _x(4, 5), _x(3)

    def f(p, q):
        return p[0] @ p[1] + q, q * 2

    got = mfunc.vmap(f, in_dims=((0, 1), None), out_dims=(1, None))(
        (mg.tensor(a), mg.tensor(b)), mg.tensor(c)
    )
    want = tfunc.vmap(f, in_dims=((0, 1), None), out_dims=(1, None))(
        (torch.tensor(a), torch.tensor(b)), torch.tensor(c)
    )
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-13)


def _tied(lib):
    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = lib.nn.Linear(3, 3).double(), lib.nn.Linear(3, 3).double()
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    return Tied()


def test_functional_call_with_tied_weights_matches_pytorch():
    w, x = _x(3, 3), _x(2, 3)
    tnet, mnet = _tied(torch), _tied(mg)
    for name in ("a.bias", "b.bias"):
        getattr(mnet, name[0]).bias.data = mg.tensor(getattr(tnet, name[0]).bias.detach().numpy())
    for key in ("a.weight", "b.weight"):
        got = mfunc.functional_call(mnet, {key: mg.tensor(w)}, (mg.tensor(x),))
        want = tfunc.functional_call(tnet, {key: torch.tensor(w)}, (torch.tensor(x),))
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-13)
    with pytest.raises(ValueError):
        tfunc.functional_call(tnet, {"a.weight": torch.tensor(w), "b.weight": torch.tensor(w)}, ())
    with pytest.raises(ValueError):
        mfunc.functional_call(mnet, {"a.weight": mg.tensor(w), "b.weight": mg.tensor(w)}, ())


@pytest.mark.parametrize("dim, error", [(2, IndexError), (-3, IndexError)])
def test_structured_pruning_errors_match_pytorch(dim, error):
    with pytest.raises(error):
        tprune.ln_structured(torch.nn.Linear(3, 4), "weight", 1, 2, dim)
    with pytest.raises(error):
        mprune.ln_structured(mg.nn.Linear(3, 4), "weight", 1, 2, dim)
    with pytest.raises(ValueError):
        tprune.ln_structured(torch.nn.Linear(3, 4), "bias", 1, 2, 0)
    with pytest.raises(ValueError):
        mprune.ln_structured(mg.nn.Linear(3, 4), "bias", 1, 2, 0)


def test_fusing_a_biasless_linear_with_a_one_channel_batchnorm_matches_pytorch():
    x = _x(3, 4)
    outs = []
    for lib, fuse in ((torch, tfusion), (mg, mfusion)):
        lin = lib.nn.Linear(4, 6, bias=False).double().eval()
        bn = lib.nn.BatchNorm1d(1).double().eval()
        with torch.no_grad() if lib is torch else mg.no_grad():
            lin.weight.copy_(lib.tensor(_x(6, 4)))
            bn.running_mean.fill_(0.5)
            bn.running_var.fill_(2.0)
        outs.append(fuse.fuse_linear_bn_eval(lin, bn)(lib.tensor(x)).detach().numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-13)


def test_get_total_norm_refusals_match_pytorch():
    for t_args, m_args in (
        (([torch.arange(3)],), ([mg.arange(3)],)),
        (([torch.zeros(0), torch.ones(2)], -1.0), ([mg.zeros(0), mg.ones(2)], -1.0)),
        (
            ([torch.zeros(0), torch.ones(2)], float("inf")),
            ([mg.zeros(0), mg.ones(2)], float("inf")),
        ),
    ):
        with pytest.raises(RuntimeError):
            torch.nn.utils.get_total_norm(*t_args)
        with pytest.raises(RuntimeError):
            m_total_norm(*m_args)


def test_state_dict_version_record_matches_pytorch():
    def model(lib):
        return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3), lib.nn.LayerNorm(3))

    assert dict(model(mg).state_dict()._metadata) == dict(model(torch).state_dict()._metadata)
