"""scatter_reduce (sum, prod, mean, amax, amin; include_self) and scatter(reduce="add" /
"multiply"): values against a NumPy loop over the index, gradients against float64 central
finite differences, and PyTorch's own results side by side."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

REDUCTIONS = ["sum", "prod", "mean", "amax", "amin"]
FOLD = {"sum": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}

rng = np.random.default_rng(0)
SELF = rng.standard_normal((3, 5))
SRC = rng.standard_normal((3, 4))
INDEX = np.array(
    [[0, 2, 2, 4], [1, 1, 1, 1], [3, 0, 3, 0]]
)  # along dim 1; column 4 of row 1 untouched


def reference(x, dim, index, src, reduce, include_self):
    """The definition, one src element at a time: fold it into out at its target place."""
    out = x.astype(np.float64).copy()
    values = {}  # place -> the values it receives
    for pos in np.ndindex(*index.shape):
        place = list(pos)
        place[dim] = index[pos]
        values.setdefault(tuple(place), []).append(src[pos])
    for place, vals in values.items():
        start = [x[place]] if include_self else []
        allv = start + vals
        if reduce == "mean":
            out[place] = np.mean(allv)
        else:
            acc = allv[0]
            for v in allv[1:]:
                acc = FOLD[reduce](acc, v)
            out[place] = acc
    return out


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_scatter_reduce_values_match_the_definition(reduce, include_self):
    out = mg.tensor(SELF).scatter_reduce(
        1, mg.tensor(INDEX), mg.tensor(SRC), reduce, include_self=include_self
    )
    expected = reference(SELF, 1, INDEX, SRC, reduce, include_self)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_scatter_reduce_gradients_match_finite_differences(reduce, include_self):
    x = mg.tensor(SELF, requires_grad=True)
    src = mg.tensor(SRC, requires_grad=True)
    index = mg.tensor(INDEX)
    assert gradcheck(
        lambda a, b: a.scatter_reduce(1, index, b, reduce, include_self=include_self),
        (x, src),
    )


def test_prod_gradient_with_zeros_among_the_contributors():
    """One zero at a place: only it gets the product of the others; two zeros: nobody does."""
    x = mg.tensor([2.0, 3.0, 5.0], dtype=mg.float64, requires_grad=True)
    src = mg.tensor([0.0, 4.0, 0.0, 0.0], dtype=mg.float64, requires_grad=True)
    index = mg.tensor([0, 0, 1, 1])
    x.scatter_reduce(0, index, src, "prod").sum().backward()
    # place 0: 2 * 0 * 4 -> d/dx0 = 0, d/dsrc0 = 2 * 4, d/dsrc1 = 0; place 1: 3 * 0 * 0 -> all 0
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0, 1.0])
    np.testing.assert_allclose(src.grad.numpy(), [8.0, 0.0, 0.0, 0.0])
    assert gradcheck(lambda a, b: a.scatter_reduce(0, index, b, "prod"), (x, src))


def test_amax_gradient_is_shared_among_ties():
    x = mg.tensor([1.0, 7.0], dtype=mg.float64, requires_grad=True)
    src = mg.tensor([3.0, 3.0, 7.0], dtype=mg.float64, requires_grad=True)
    x.scatter_reduce(0, mg.tensor([0, 0, 1]), src, "amax").sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.5])  # 7 at place 1: x and src[2] tie
    np.testing.assert_allclose(src.grad.numpy(), [0.5, 0.5, 0.5])


def test_integer_mean_rounds_down():
    out = mg.tensor([5, -5, 0]).scatter_reduce(
        0, mg.tensor([0, 0, 1, 1]), mg.tensor([1, 4, 1, -1]), "mean"
    )
    assert out.tolist() == [3, -2, 0]  # (5 + 1 + 4) // 3, (-5 + 1 - 1) // 3 = floor(-5 / 3)


def test_scatter_with_reduce_folds_values_without_a_gradient():
    index = mg.tensor([0, 1, 0, 1])
    src = mg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with pytest.warns(UserWarning, match="scatter_reduce"):
        added = mg.zeros(2).scatter(0, index, src, reduce="add")
    np.testing.assert_allclose(added.detach().numpy(), [4.0, 6.0])
    np.testing.assert_allclose(
        mg.ones(2).scatter(0, index, 2.0, reduce="multiply").numpy(), [4.0, 4.0]
    )
    with pytest.raises(RuntimeError, match="scatter_reduce"):
        added.sum().backward()
    x = mg.ones(2)
    x.scatter_(0, index, 3.0, reduce="multiply")
    np.testing.assert_allclose(x.numpy(), [9.0, 9.0])


def test_scatter_reduce_in_place_and_functional_forms_agree():
    index, src = mg.tensor(INDEX), mg.tensor(SRC)
    x = mg.tensor(SELF)
    expected = x.scatter_reduce(1, index, src, "amin", include_self=False)
    np.testing.assert_array_equal(
        mg.scatter_reduce(x, 1, index, src, "amin", include_self=False).numpy(), expected.numpy()
    )
    x.scatter_reduce_(1, index, src, "amin", include_self=False)
    np.testing.assert_array_equal(x.numpy(), expected.numpy())


def test_bad_input_is_refused_with_a_clear_error():
    x, index, src = mg.zeros(3), mg.tensor([0, 1]), mg.ones(2)
    with pytest.raises(RuntimeError, match="reduce must be one of"):
        x.scatter_reduce(0, index, src, "add")
    with pytest.raises(TypeError, match="src must be a Tensor"):
        x.scatter_reduce(0, index, 1.0, "sum")
    with pytest.raises(RuntimeError, match="same dtype"):
        x.scatter_reduce(0, index, src.double(), "sum")
    with pytest.raises(RuntimeError, match="'add' or 'multiply'"):
        x.scatter(0, index, src, reduce="mean")
    with pytest.raises(RuntimeError, match="index 3 is out of bounds"):  # PyTorch's type
        x.scatter_reduce(0, mg.tensor([0, 3]), src, "sum")


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_scatter_reduce_matches_torch_values_and_gradients(reduce, include_self):
    torch = pytest.importorskip("torch")
    x, src = mg.tensor(SELF, requires_grad=True), mg.tensor(SRC, requires_grad=True)
    tx = torch.tensor(SELF, requires_grad=True)
    tsrc = torch.tensor(SRC, requires_grad=True)
    out = x.scatter_reduce(1, mg.tensor(INDEX), src, reduce, include_self=include_self)
    tout = tx.scatter_reduce(1, torch.tensor(INDEX), tsrc, reduce, include_self=include_self)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    weights = rng.standard_normal(out.shape)
    (out * mg.tensor(weights)).sum().backward()
    (tout * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(src.grad.numpy(), tsrc.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_integer_scatter_reduce_matches_torch(reduce):
    torch = pytest.importorskip("torch")
    a = rng.integers(-9, 9, (2, 6))
    s = rng.integers(-9, 9, (2, 5))
    i = rng.integers(0, 6, (2, 5))
    for include_self in (True, False):
        out = mg.tensor(a).scatter_reduce(
            1, mg.tensor(i), mg.tensor(s), reduce, include_self=include_self
        )
        tout = torch.tensor(a).scatter_reduce(
            1, torch.tensor(i), torch.tensor(s), reduce, include_self=include_self
        )
        assert out.tolist() == tout.tolist()


def test_scatter_with_reduce_matches_torch():
    torch = pytest.importorskip("torch")
    import warnings

    i = rng.integers(0, 4, (3, 4))
    for reduce in ("add", "multiply"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = mg.tensor(SELF[:, :4]).scatter(1, mg.tensor(i), mg.tensor(SRC), reduce=reduce)
            tout = torch.tensor(SELF[:, :4]).scatter(
                1, torch.tensor(i), torch.tensor(SRC), reduce=reduce
            )
        np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-12)
        value = mg.tensor(SELF[:, :4]).scatter(1, mg.tensor(i), 1.5, reduce=reduce)
        tvalue = torch.tensor(SELF[:, :4]).scatter(1, torch.tensor(i), 1.5, reduce=reduce)
        np.testing.assert_allclose(value.numpy(), tvalue.numpy(), rtol=1e-12)


@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_scatter_reduce_on_each_device_matches_the_cpu(device, reduce):
    grads = []
    for dev in ("cpu", device):
        x = mg.tensor(SELF, device=dev, requires_grad=True)
        src = mg.tensor(SRC, device=dev, requires_grad=True)
        out = x.scatter_reduce(1, mg.tensor(INDEX, device=dev), src, reduce, include_self=False)
        out.sum().backward()
        assert out.device.type == dev
        grads.append([t.cpu().detach().numpy() for t in (out, x.grad, src.grad)])
    for a, b in zip(*grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
