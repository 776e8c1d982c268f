"""Linear algebra: det, slogdet, logdet, inv, solve, solve_triangular, cholesky (+ solve, inverse),
cross, kron, matrix_power, qr, eigh, svd / svdvals, pinv, lstsq, matrix_norm. Values against
NumPy, gradients (batched too) against float64 central finite differences (for eigh and svd with
losses that do not depend on the eigenvectors' signs), gradients against torch where it is
installed, and PyTorch's errors for singular, non-square, half and integer input."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

rng = np.random.default_rng(1)


def leaf(a):
    return mg.tensor(np.array(a, dtype=np.float64), requires_grad=True)


def well_conditioned(*shape):
    """Random square matrices near 3 I: far from singular, so finite differences are accurate."""
    return rng.standard_normal(shape) + 3 * np.eye(shape[-1])


def spd(*shape):
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def sym(x):
    """A symmetric input built from any square x: what eigh / cholesky gradients are checked on."""
    return 0.5 * (x + x.mT)


A3 = well_conditioned(2, 3, 3)


# ---------------------------------------------------------------------- values against NumPy
def test_det_slogdet_logdet_inv_match_numpy():
    a = mg.tensor(A3)
    np.testing.assert_allclose(mg.linalg.det(a).numpy(), np.linalg.det(A3))
    sign, logabsdet = mg.linalg.slogdet(a)
    np.testing.assert_allclose(sign.numpy(), np.linalg.slogdet(A3)[0])
    np.testing.assert_allclose(logabsdet.numpy(), np.linalg.slogdet(A3)[1])
    np.testing.assert_allclose(mg.linalg.inv(a).numpy(), np.linalg.inv(A3), rtol=1e-12)
    np.testing.assert_allclose(a.inverse().numpy(), np.linalg.inv(A3), rtol=1e-12)
    np.testing.assert_allclose(mg.det(a).numpy(), a.det().numpy())


def test_logdet_is_nan_for_a_negative_determinant_and_slogdet_names_its_fields():
    flip = mg.tensor([[-1.0, 0.0], [0.0, 2.0]])
    assert np.isnan(mg.logdet(flip).item())
    result = mg.linalg.slogdet(flip)
    assert result.sign.item() == -1.0 and result.logabsdet.item() == pytest.approx(np.log(2))
    assert mg.logdet(mg.tensor([[2.0, 0.0], [0.0, 3.0]])).item() == pytest.approx(np.log(6))


def test_solve_broadcasts_batches_and_knows_vectors_like_pytorch():
    a = well_conditioned(2, 1, 3, 3)
    b = rng.standard_normal((4, 3, 2))
    x = mg.linalg.solve(mg.tensor(a), mg.tensor(b))
    assert x.shape == (2, 4, 3, 2)
    np.testing.assert_allclose((mg.tensor(a) @ x).numpy(), np.broadcast_to(b, (2, 4, 3, 2)))
    v = rng.standard_normal((2, 3))  # shape A.shape[:-1]: a batch of vectors
    a2 = well_conditioned(2, 3, 3)
    xv = mg.linalg.solve(mg.tensor(a2), mg.tensor(v))
    assert xv.shape == (2, 3)
    np.testing.assert_allclose(np.einsum("bij,bj->bi", a2, xv.numpy()), v, atol=1e-12)
    xr = mg.linalg.solve(mg.tensor(a2), mg.tensor(rng.standard_normal((2, 4, 3))), left=False)
    assert xr.shape == (2, 4, 3)


def test_cholesky_qr_eigh_svd_reconstruct_their_input():
    s = spd(2, 4, 4)
    l_ = mg.linalg.cholesky(mg.tensor(s))
    np.testing.assert_allclose((l_ @ l_.mT).numpy(), s, atol=1e-12)
    assert np.allclose(np.triu(l_.numpy()[0], 1), 0)
    u = mg.linalg.cholesky(mg.tensor(s), upper=True)
    np.testing.assert_allclose(u.numpy(), np.swapaxes(l_.numpy(), -1, -2))
    for shape in [(2, 5, 3), (3, 3), (3, 5)]:
        a = rng.standard_normal(shape)
        q, r = mg.linalg.qr(mg.tensor(a))
        np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-12)
        u_, s_, vh = mg.linalg.svd(mg.tensor(a), full_matrices=False)
        np.testing.assert_allclose(((u_ * s_.unsqueeze(-2)) @ vh).numpy(), a, atol=1e-12)
        np.testing.assert_allclose(mg.linalg.svdvals(mg.tensor(a)).numpy(), s_.numpy())
    w, v = mg.linalg.eigh(mg.tensor(s))
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(s))
    np.testing.assert_allclose(((v * w.unsqueeze(-2)) @ v.mT).numpy(), s, atol=1e-10)


def test_torch_svd_returns_v_and_linalg_svd_returns_vh():
    a = rng.standard_normal((4, 3))
    u, s, v = mg.svd(mg.tensor(a))
    assert u.shape == (4, 3) and v.shape == (3, 3)
    np.testing.assert_allclose(((u * s) @ v.mT).numpy(), a, atol=1e-12)
    u, s, vh = mg.linalg.svd(mg.tensor(a))  # full_matrices=True by default
    assert u.shape == (4, 4) and vh.shape == (3, 3)
    q, r = mg.qr(mg.tensor(a), some=False)
    assert q.shape == (4, 4) and r.shape == (4, 3)


def test_cross_kron_matrix_power_match_numpy():
    a, b = rng.standard_normal((1, 4, 3)), rng.standard_normal((2, 1, 3))
    np.testing.assert_allclose(mg.linalg.cross(mg.tensor(a), mg.tensor(b)).numpy(), np.cross(a, b))
    with pytest.raises(RuntimeError, match="same number of dimensions"):  # as PyTorch: no new dims
        mg.linalg.cross(mg.tensor(a[0]), mg.tensor(b))
    at, bt = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    got = mg.cross(mg.tensor(at), mg.tensor(bt), dim=0)
    np.testing.assert_allclose(got.numpy(), np.cross(at, bt, axis=0))
    with pytest.warns(UserWarning, match="without specifying the dim"):
        got = mg.cross(mg.tensor(at), mg.tensor(bt))  # the first dim of size 3
    np.testing.assert_allclose(got.numpy(), np.cross(at, bt, axis=0))
    x, y = rng.standard_normal((2, 3)), rng.standard_normal((4, 1))
    np.testing.assert_allclose(mg.kron(mg.tensor(x), mg.tensor(y)).numpy(), np.kron(x, y))
    np.testing.assert_allclose(mg.tensor(x).kron(mg.tensor(y[:, 0])).numpy(), np.kron(x, y[:, 0]))
    m = A3
    for n in (0, 1, 5, -3):
        expected = np.linalg.matrix_power(m if n >= 0 else np.linalg.inv(m), abs(n))
        np.testing.assert_allclose(mg.tensor(m).matrix_power(n).numpy(), expected, rtol=1e-10)


def test_pinv_lstsq_matrix_rank_and_matrix_norms_match_numpy():
    a = rng.standard_normal((2, 5, 3))
    np.testing.assert_allclose(mg.linalg.pinv(mg.tensor(a)).numpy(), np.linalg.pinv(a), atol=1e-12)
    low_rank = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 4))
    np.testing.assert_allclose(
        mg.linalg.pinv(mg.tensor(low_rank)).numpy(), np.linalg.pinv(low_rank), atol=1e-10
    )
    assert mg.linalg.matrix_rank(mg.tensor(low_rank)).item() == 2
    b = rng.standard_normal((5, 2))
    sol = mg.linalg.lstsq(mg.tensor(a[0]), mg.tensor(b)).solution
    np.testing.assert_allclose(sol.numpy(), np.linalg.lstsq(a[0], b, rcond=None)[0], atol=1e-12)
    m = mg.tensor(a)
    s = np.linalg.svd(a, compute_uv=False)
    np.testing.assert_allclose(mg.linalg.matrix_norm(m, "nuc").numpy(), s.sum(-1))
    np.testing.assert_allclose(mg.linalg.matrix_norm(m, 2).numpy(), s[:, 0])
    np.testing.assert_allclose(mg.linalg.matrix_norm(m, -2).numpy(), s[:, -1])
    for ord_ in (1, -1, np.inf, -np.inf, "fro"):
        np.testing.assert_allclose(
            mg.linalg.matrix_norm(m, ord_).numpy(), np.linalg.norm(a, ord_, axis=(-2, -1))
        )


# ---------------------------------------------------------------------- gradients
GRADIENT_CASES = [
    ("det", lambda a: mg.linalg.det(a), well_conditioned(2, 3, 3)),
    (
        "det_singular",
        lambda a: mg.linalg.det(a),
        np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1, 0, 1]]),
    ),
    ("slogdet", lambda a: mg.linalg.slogdet(a).logabsdet, well_conditioned(2, 3, 3)),
    ("logdet", lambda a: mg.logdet(a), spd(3, 3)),
    ("inv", lambda a: mg.linalg.inv(a), well_conditioned(2, 3, 3)),
    (
        "cholesky",
        lambda a: mg.linalg.cholesky(sym(a) + 4 * mg.eye(3, dtype=mg.float64)),
        rng.standard_normal((2, 3, 3)),
    ),
    (
        "cholesky_upper",
        lambda a: mg.linalg.cholesky(sym(a) + 4 * mg.eye(3, dtype=mg.float64), upper=True),
        rng.standard_normal((3, 3)),
    ),
    (
        "cholesky_inverse",
        lambda a: mg.cholesky_inverse(a.tril() + 3 * mg.eye(3, dtype=mg.float64)),
        rng.standard_normal((3, 3)),
    ),
    (
        "matrix_power_5",
        lambda a: mg.linalg.matrix_power(a, 5),
        rng.standard_normal((2, 3, 3)) * 0.5,
    ),
    ("matrix_power_-2", lambda a: mg.linalg.matrix_power(a, -2), well_conditioned(3, 3)),
    ("qr_tall", lambda a: mg.linalg.qr(a), rng.standard_normal((2, 5, 3))),
    ("qr_square", lambda a: mg.linalg.qr(a), rng.standard_normal((3, 3))),
    ("qr_wide", lambda a: mg.linalg.qr(a), rng.standard_normal((2, 3, 5))),
    ("qr_complete_square", lambda a: mg.linalg.qr(a, mode="complete"), rng.standard_normal((3, 3))),
    ("svdvals", lambda a: mg.linalg.svdvals(a), rng.standard_normal((2, 4, 3))),
    ("matrix_exp", lambda a: mg.linalg.matrix_exp(a), 2 * rng.standard_normal((2, 3, 3))),
    ("cond", lambda a: mg.linalg.cond(a), rng.standard_normal((2, 3, 3))),
    ("diagonal", lambda a: mg.linalg.diagonal(a, offset=1), rng.standard_normal((2, 3, 4))),
    ("pinv_tall", lambda a: mg.linalg.pinv(a), rng.standard_normal((2, 5, 3))),
    ("pinv_wide", lambda a: mg.linalg.pinv(a), rng.standard_normal((3, 5))),
    ("matrix_norm_nuc", lambda a: mg.linalg.matrix_norm(a, "nuc"), rng.standard_normal((2, 4, 3))),
    ("matrix_norm_2", lambda a: mg.linalg.matrix_norm(a, 2), rng.standard_normal((4, 3))),
    (
        "lstsq",
        lambda a: mg.linalg.lstsq(a, mg.ones(5, 2, dtype=mg.float64)).solution,
        rng.standard_normal((5, 3)),
    ),
]


@pytest.mark.parametrize("name,fn,a", GRADIENT_CASES, ids=[c[0] for c in GRADIENT_CASES])
def test_gradients_match_finite_differences(name, fn, a):
    assert gradcheck(fn, (leaf(a),))


def _sign_free_eigh_loss(x):
    """Depends on V only through V diag(c) V^T: unchanged when an eigenvector flips sign."""
    w, v = mg.linalg.eigh(sym(x))
    c = mg.arange(1, x.shape[-1] + 1, dtype=mg.float64)
    return (w * w).sum() + ((v * c) @ v.mT * mg.tensor(W4)).sum()


def _sign_free_svd_loss(x, full_matrices=False):
    """Depends on U, V through U diag(c) V^T, U diag(c) U^T and V diag(c) V^T: the sign of each
    singular vector pair (and the extra columns of full matrices) drop out."""
    u, s, vh = mg.linalg.svd(x, full_matrices=full_matrices)
    k = s.shape[-1]
    u, v = u[..., :k], vh[..., :k, :].mT
    c = mg.arange(1, k + 1, dtype=mg.float64)
    return (
        (s**3).sum()
        + (((u * c) @ v.mT) ** 2 * 0.3).sum()
        + ((u * c) @ u.mT).sin().sum()
        + ((v * c) @ v.mT).cos().sum()
    )


W4 = rng.standard_normal((4, 4))


def test_eigh_gradient_of_a_sign_free_loss_matches_finite_differences():
    assert gradcheck(_sign_free_eigh_loss, (leaf(rng.standard_normal((2, 4, 4))),))


@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 3), (2, 3, 5)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_svd_gradient_of_a_sign_free_loss_matches_finite_differences(shape, full_matrices):
    x = leaf(rng.standard_normal(shape))
    assert gradcheck(lambda a: _sign_free_svd_loss(a, full_matrices), (x,))


def test_solve_gradients_with_broadcast_batches_and_vectors():
    a, b = leaf(well_conditioned(2, 1, 3, 3)), leaf(rng.standard_normal((4, 3, 2)))
    assert gradcheck(lambda a, b: mg.linalg.solve(a, b), (a, b))
    assert gradcheck(lambda a, b: mg.linalg.solve(a, b, left=False), (a, leaf(np.ones((2, 3)))))
    assert gradcheck(
        lambda a, b: mg.linalg.solve(a, b), (leaf(well_conditioned(3, 3)), leaf([1.0, 2, 3]))
    )


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular_gradients(upper, left, unit):
    a, b = leaf(well_conditioned(2, 3, 3)), leaf(rng.standard_normal((2, 3, 3)))
    fn = lambda a, b: mg.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)  # noqa: E731
    assert gradcheck(fn, (a, b))


def test_cholesky_solve_and_cross_and_kron_gradients():
    l_, b = leaf(np.tril(well_conditioned(3, 3))), leaf(rng.standard_normal((3, 2)))
    assert gradcheck(lambda b, l_: mg.cholesky_solve(b, l_), (b, l_))
    assert gradcheck(
        lambda b, u: mg.cholesky_solve(b, u, upper=True), (b, leaf(l_.detach().numpy().T))
    )
    x, y = leaf(rng.standard_normal((4, 3))), leaf(rng.standard_normal((1, 3)))
    assert gradcheck(lambda x, y: mg.linalg.cross(x, y), (x, y))
    assert gradcheck(
        lambda x, y: mg.kron(x, y),
        (leaf(rng.standard_normal((2, 3))), leaf(rng.standard_normal((2, 2)))),
    )


def test_det_and_inv_second_derivatives_match_finite_differences():
    def grad_of(fn):
        def g(a):
            (ga,) = mg.autograd.grad(fn(a).sum(), (a,), create_graph=True)
            return ga

        return g

    a = leaf(well_conditioned(3, 3))
    assert gradcheck(grad_of(mg.linalg.det), (a,))
    assert gradcheck(grad_of(lambda x: mg.linalg.inv(x) ** 2), (a,))
    assert gradcheck(grad_of(lambda x: mg.linalg.cholesky(sym(x)) ** 2), (leaf(spd(3, 3)),))


# ---------------------------------------------------------------------- torch parity
# (No exactly singular det here: torch's gradient there is zero, though the determinant's derivative
# is the cofactor matrix; test_gradients_match_finite_differences[det_singular] checks ours.)
TORCH_CASES = [
    ("det", lambda L, a: L.linalg.det(a), well_conditioned(2, 3, 3)),
    ("inv", lambda L, a: L.linalg.inv(a), well_conditioned(2, 3, 3)),
    ("cholesky", lambda L, a: L.linalg.cholesky(a), spd(2, 3, 3)),
    ("cholesky_upper", lambda L, a: L.linalg.cholesky(a, upper=True), spd(3, 3)),
    ("eigh_values", lambda L, a: L.linalg.eigh(a)[0], spd(2, 4, 4)),
    ("eigvalsh_upper", lambda L, a: L.linalg.eigvalsh(a, UPLO="U"), spd(4, 4)),
    (
        "solve_triangular",
        lambda L, a: L.linalg.solve_triangular(a, a[..., :2] + 1, upper=True),
        well_conditioned(2, 3, 3),
    ),
    ("qr_r", lambda L, a: L.linalg.qr(a)[1], rng.standard_normal((2, 5, 3))),
    ("svdvals", lambda L, a: L.linalg.svdvals(a), rng.standard_normal((2, 5, 3))),
    ("pinv", lambda L, a: L.linalg.pinv(a), rng.standard_normal((2, 5, 3))),
    ("matrix_power", lambda L, a: L.linalg.matrix_power(a, 3), rng.standard_normal((3, 3))),
    ("kron", lambda L, a: L.kron(a, a[:2]), rng.standard_normal((3, 3))),
    ("cross", lambda L, a: L.linalg.cross(a, a.flip(0)), rng.standard_normal((3, 3))),
    ("cholesky_solve", lambda L, a: L.cholesky_solve(a[:, :2], L.linalg.cholesky(a)), spd(3, 3)),
    ("matrix_exp", lambda L, a: L.linalg.matrix_exp(a), 2 * rng.standard_normal((2, 3, 3))),
    ("cond", lambda L, a: L.linalg.cond(a), well_conditioned(2, 3, 3)),
    ("vecdot", lambda L, a: L.linalg.vecdot(a, a.flip(-1), dim=0), rng.standard_normal((3, 4))),
    ("diagonal", lambda L, a: L.diagonal(a, -1, 2, 0), rng.standard_normal((3, 4, 5))),
    ("logdet", lambda L, a: L.logdet(a), spd(3, 3)),
]


@pytest.mark.parametrize("name,fn,a", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
def test_values_and_gradients_match_torch(name, fn, a):
    torch = pytest.importorskip("torch")
    ours, theirs = leaf(a), torch.tensor(a, requires_grad=True)
    out_m, out_t = fn(mg, ours), fn(torch, theirs)
    np.testing.assert_allclose(
        out_m.detach().numpy(), out_t.detach().numpy(), rtol=1e-9, atol=1e-10
    )
    weights = rng.standard_normal(tuple(out_t.shape))
    (out_m * mg.tensor(weights)).sum().backward()
    (out_t * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_solve_broadcasting_gradients_match_torch():
    torch = pytest.importorskip("torch")
    a, b = well_conditioned(2, 1, 3, 3), rng.standard_normal((4, 3, 2))
    ours = [leaf(a), leaf(b)]
    theirs = [torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)]
    mg.linalg.solve(*ours).sin().sum().backward()
    torch.linalg.solve(*theirs).sin().sum().backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-9)


# ---------------------------------------------------------------------- errors
def test_singular_matrices_raise_naming_the_batch_element():
    singular = np.stack([np.eye(2), [[1.0, 2.0], [2.0, 4.0]]])
    with pytest.raises(mg.linalg.LinAlgError, match=r"linalg.inv: \(Batch element 1\).*singular"):
        mg.linalg.inv(mg.tensor(singular))
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\): The solver failed .* singular"):
        mg.linalg.solve(mg.tensor(singular), mg.ones(2, dtype=mg.float64))
    with pytest.raises(mg.linalg.LinAlgError, match="leading minor of order 2"):
        mg.linalg.cholesky(mg.tensor(singular))
    with pytest.raises(mg.linalg.LinAlgError, match="leading minor of order 1"):
        mg.linalg.cholesky(-mg.eye(3))
    assert mg.linalg.det(mg.tensor(singular)).numpy()[1] == 0.0


@pytest.mark.parametrize(
    "call,error,message",
    [
        (
            lambda: mg.linalg.inv(mg.ones(2, 3)),
            RuntimeError,
            "square matrices, but they are 2 by 3",
        ),
        (lambda: mg.linalg.det(mg.ones(3)), RuntimeError, "at least 2 dimensions"),
        (lambda: mg.linalg.inv(mg.eye(2).half()), NotImplementedError, "Low precision.*float16"),
        (lambda: mg.linalg.cholesky(mg.eye(2).bfloat16()), NotImplementedError, "bfloat16"),
        (lambda: mg.linalg.svd(mg.eye(2).half()), NotImplementedError, "float16"),
        (lambda: mg.linalg.det(mg.eye(2, dtype=mg.int64)), RuntimeError, "floating point.*int64"),
        (
            lambda: mg.linalg.solve(mg.eye(3), mg.ones(2, 4)),
            RuntimeError,
            r"Incompatible shapes.*3x3 and 2x4",
        ),
        (lambda: mg.linalg.matrix_power(mg.ones(2, 3), 2), RuntimeError, "2 by 3 matrices"),
        (
            lambda: mg.linalg.cross(mg.ones(3, 2), mg.ones(3, 2)),
            RuntimeError,
            "must have length 3. Got 2 and 2",
        ),
        (lambda: mg.linalg.qr(mg.eye(2), mode="thin"), RuntimeError, "unrecognized mode 'thin'"),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_qr_mode_r_has_no_gradient_and_says_why():
    x = leaf(rng.standard_normal((3, 3)))
    q, r = mg.linalg.qr(x, mode="r")
    assert q.numel() == 0
    with pytest.raises(RuntimeError, match="mode='r'"):
        r.sum().backward()


def test_einsum_and_matrix_power_work_in_half_like_torch():
    m = mg.eye(2).half()
    assert mg.linalg.matrix_power(m, 3).dtype == mg.float16
    assert mg.kron(m, m).dtype == mg.float16


# ---------------------------------------------------------------------- on the GPU
def test_linalg_ops_give_the_cpu_numbers_on_each_device(device):
    """Every op here on ``device`` (CuPy's linalg on "cuda"): the values and gradients of a loss
    that uses them all match the same computation on NumPy."""
    a0, b0, s0 = well_conditioned(2, 3, 3), rng.standard_normal((2, 3, 2)), spd(2, 3, 3)

    def run(dev):
        a = mg.tensor(a0, device=dev, requires_grad=True)
        b = mg.tensor(b0, device=dev, requires_grad=True)
        s = mg.tensor(s0, device=dev, requires_grad=True)
        w, v = mg.linalg.eigh(s)
        u, sv, vh = mg.linalg.svd(a, full_matrices=False)
        q, r = mg.linalg.qr(b)
        chol = mg.linalg.cholesky(s)
        loss = (
            mg.linalg.det(a).sum()
            + mg.linalg.slogdet(s).logabsdet.sum()
            + mg.linalg.inv(a).sum()
            + mg.linalg.solve(a, b).sum()
            + mg.linalg.solve_triangular(chol, b, upper=False).sum()
            + mg.einsum("bij,bjk->", a, b)
            + mg.linalg.cross(a, a.flip(-1)).sum()
            + mg.kron(a[0], b[0]).sum()
            + w.sum()
            + ((v * w.unsqueeze(-2)) @ v.mT).sum()
            + sv.sum()
            + ((u * sv.unsqueeze(-2)) @ vh).sum()
            + (q @ r).sum()
            + mg.linalg.pinv(b).sum()
        )
        loss.backward()
        return [loss.item()] + [t.grad.cpu().numpy() for t in (a, b, s)]

    for ours, cpu in zip(run(device), run("cpu")):
        np.testing.assert_allclose(ours, cpu, rtol=1e-9, atol=1e-9)


def test_cond_matches_torch_for_every_order():
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 4, 4))
    for p in (None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf):
        ours = mg.linalg.cond(mg.tensor(a), p).numpy()
        np.testing.assert_allclose(ours, torch.linalg.cond(torch.tensor(a), p).numpy(), rtol=1e-9)


def test_autocast_runs_factorizations_in_float32_and_einsum_low_like_torch():
    torch = pytest.importorskip("torch")
    a = spd(3, 3).astype(np.float32)
    checks = [
        ("inv", lambda L, x: L.linalg.inv(x)),
        ("solve", lambda L, x: L.linalg.solve(x, x)),
        ("cholesky", lambda L, x: L.linalg.cholesky(x)),
        ("eigh", lambda L, x: L.linalg.eigh(x)[0]),
        ("svdvals", lambda L, x: L.linalg.svdvals(x)),
        ("einsum", lambda L, x: L.einsum("ij,jk->ik", x, x)),
    ]
    for name, fn in checks:
        with mg.autocast(dtype=mg.bfloat16):
            ours = fn(mg, mg.tensor(a).bfloat16())
        with torch.autocast("cpu", dtype=torch.bfloat16):
            theirs = fn(torch, torch.tensor(a).bfloat16())
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], name


def test_cholesky_ex_reports_info_instead_of_raising_like_torch():
    torch = pytest.importorskip("torch")
    a = np.stack([spd(3, 3), -np.eye(3), np.diag([1.0, -1.0, 1.0])])
    ours, theirs = mg.linalg.cholesky_ex(mg.tensor(a)), torch.linalg.cholesky_ex(torch.tensor(a))
    assert ours.info.tolist() == theirs.info.tolist() == [0, 1, 2]
    np.testing.assert_allclose(ours.L[0].numpy(), theirs.L[0].numpy())
    with pytest.raises(mg.linalg.LinAlgError, match="Batch element 1"):
        mg.linalg.cholesky_ex(mg.tensor(a), check_errors=True)
    # the jitter loop of GP code: add to the diagonal until the factorization succeeds
    singular = mg.tensor(np.ones((3, 3)))
    jitter = 1e-6
    while mg.linalg.cholesky_ex(singular + jitter * mg.eye(3, dtype=mg.float64)).info.item():
        jitter *= 10
    assert jitter <= 1e-5


def test_graph_nodes_carry_pytorchs_names():
    torch = pytest.importorskip("torch")
    a = well_conditioned(3, 3)
    cases = [
        lambda L, x: L.linalg.det(x),
        lambda L, x: L.linalg.slogdet(x)[1],
        lambda L, x: L.linalg.inv(x),
        lambda L, x: L.linalg.solve(x, x),
        lambda L, x: L.linalg.solve_triangular(x, x, upper=True),
        lambda L, x: L.linalg.cholesky(x @ x.mT),
        lambda L, x: L.linalg.qr(x)[0],
        lambda L, x: L.linalg.eigh(x @ x.mT)[0],
        lambda L, x: L.linalg.svdvals(x),
        lambda L, x: L.linalg.pinv(x),
        lambda L, x: L.linalg.matrix_exp(x),
    ]
    for fn in cases:
        ours, theirs = (
            fn(mg, leaf(a)).grad_fn,
            fn(torch, torch.tensor(a, requires_grad=True)).grad_fn,
        )
        assert type(ours).__name__ == type(theirs).__name__
        assert len(ours.next_functions) == len(theirs.next_functions)
