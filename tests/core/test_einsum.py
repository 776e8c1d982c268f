"""mg.einsum: values against NumPy's einsum and torch.einsum, gradients (and a second derivative)
against float64 central finite differences, and PyTorch's errors on bad equations."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

rng = np.random.default_rng(0)


def leaf(shape):
    return mg.tensor(rng.standard_normal(shape), requires_grad=True)


# (equation, operand shapes)
CASES = [
    ("ij,jk->ik", [(3, 4), (4, 2)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(3, 3)]),
    ("iij->ij", [(3, 3, 2)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,), (5,)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),  # implicit output: i, k
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),  # a bilinear layer
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("b...,b...->b", [(2, 3, 4), (2, 3, 4)]),  # '...' summed away (NumPy: bxy,bxy->b)
    ("ij,ij->ij", [(1, 3), (2, 3)]),  # a size-1 dim broadcasts
    # a broadcast dim summed away: the full-size operand's gradient keeps its size
    ("ij,ij->", [(2, 3), (1, 3)]),
    ("ij,ij->", [(2, 1), (1, 3)]),
    ("abi,bi->i", [(4, 1, 3), (2, 3)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
]


@pytest.mark.parametrize("equation,shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_values_match_numpy(equation, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    ours = mg.einsum(equation, *[mg.tensor(a) for a in arrays])
    numpy_equation = "bxy,bxy->b" if equation == "b...,b...->b" else equation
    expected = np.einsum(numpy_equation, *arrays)
    np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("equation,shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_gradients_match_finite_differences(equation, shapes):
    inputs = tuple(leaf(s) for s in shapes)
    assert gradcheck(lambda *xs: mg.einsum(equation, *xs), inputs)


@pytest.mark.parametrize("equation,shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_matches_torch_values_and_gradients(equation, shapes):
    torch = pytest.importorskip("torch")
    arrays = [rng.standard_normal(s) for s in shapes]
    ours = [mg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    weights = rng.standard_normal(mg.einsum(equation, *ours).shape)
    (mg.einsum(equation, *ours) * mg.tensor(weights)).sum().backward()
    (torch.einsum(equation, *theirs) * torch.tensor(weights)).sum().backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_einsum_second_derivative_matches_finite_differences():
    def grad_of_loss(a, b):
        out = mg.einsum("ij,jk->ik", a, b)
        (ga,) = mg.autograd.grad((out * out).sum(), (a,), create_graph=True)
        return ga

    assert gradcheck(grad_of_loss, (leaf((2, 3)), leaf((3, 2))))


def test_einsum_sublist_and_list_forms_match_the_string_form():
    a, b = mg.tensor(rng.standard_normal((4, 2))), mg.tensor(rng.standard_normal((3, 2)))
    expected = mg.einsum("ab,cb->ac", a, b).numpy()
    np.testing.assert_allclose(mg.einsum(a, [0, 1], b, [2, 1], [0, 2]).numpy(), expected)
    np.testing.assert_allclose(mg.einsum("ab,cb->ac", [a, b]).numpy(), expected)
    np.testing.assert_allclose(mg.einsum(a, [..., 1], b, [2, 1]).numpy(), np.einsum("ab,cb", a, b))
    np.testing.assert_allclose(mg.einsum(" a b , c b -> a c ", a, b).numpy(), expected)


def test_einsum_float16_sums_like_torch():
    torch = pytest.importorskip("torch")
    a, b = rng.standard_normal((8, 64)), rng.standard_normal((64, 8))
    ours = mg.einsum("ij,jk->ik", mg.tensor(a).half(), mg.tensor(b).half())
    theirs = torch.einsum("ij,jk->ik", torch.tensor(a).half(), torch.tensor(b).half())
    assert ours.dtype == mg.float16
    np.testing.assert_allclose(ours.float().numpy(), theirs.float().numpy(), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize(
    "equation,shapes,message",
    [
        ("ij,jk->ik", [(2, 3)], "fewer operands"),
        ("ij->ij", [(2, 3), (3,)], "more operands"),
        ("ij,jk", [(2, 3), (2, 3)], "subscript j has size 2 for operand 1"),
        ("ij->i", [(2, 3, 4)], "number of subscripts in the equation (2) does not match"),
        ("ij,jk->kk", [(2, 3), (3, 2)], "output subscript k appears more than once"),
        ("ij->l", [(2, 3)], "output subscript l does not appear"),
        ("i1", [(2, 3)], "invalid subscript given at index 1"),
        ("ii->i", [(2, 3)], "subscript i is repeated for operand 0 but the sizes don't match"),
    ],
)
def test_einsum_bad_equations_raise_pytorchs_errors(equation, shapes, message):
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        mg.einsum(equation, *[mg.zeros(s) for s in shapes])


def test_einsum_refuses_mixed_dtypes():
    with pytest.raises(RuntimeError, match="same dtype"):
        mg.einsum("ij,jk", mg.zeros(2, 3), mg.zeros(3, 2, dtype=mg.float64))


def test_einsum_gives_the_cpu_numbers_on_each_device(device):
    arrays = [rng.standard_normal(s) for s in [(2, 3), (4, 3, 5), (2, 5)]]

    def run(dev):
        ops = [mg.tensor(a, device=dev, requires_grad=True) for a in arrays]
        out = mg.einsum("bn,anm,bm->ba", *ops) + mg.einsum("...ii->...i", ops[1][:, :3, :3]).sum()
        (out * out).sum().backward()
        return [out.detach().cpu().numpy()] + [t.grad.cpu().numpy() for t in ops]

    for ours, cpu in zip(run(device), run("cpu")):
        np.testing.assert_allclose(ours, cpu, rtol=1e-10, atol=1e-10)
