"""MultivariateNormal on mg.linalg's cholesky and triangular solve: log_prob, rsample, entropy and
KL with their gradients against torch.distributions and float64 finite differences, for each of
the three ways to give the covariance, with batch and sample dims broadcast."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import distributions as D
from minigenesis.autograd import gradcheck

RNG = np.random.default_rng(7)
K = 4
A = RNG.standard_normal((2, K, K))
COV = A @ A.transpose(0, 2, 1) + K * np.eye(K)  # a batch of 2 positive-definite matrices
LOC = RNG.standard_normal((3, 1, K))  # broadcast with COV's batch: batch shape (3, 2)
VALUE = RNG.standard_normal((5, 3, 2, K))  # sample shape (5,)
EPS = RNG.standard_normal((5, 3, 2, K))  # the noise rsample draws (mg.randn is patched)

# (keyword, the matrix given for COV)
FORMS = [
    ("covariance_matrix", COV),
    ("precision_matrix", np.linalg.inv(COV)),
    ("scale_tril", np.linalg.cholesky(COV)),
]


def _mg(a):
    return mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def _symmetric_or_tril(name, m):
    """The matrix a parameter is built from, kept inside its constraint as m is perturbed."""
    return m.tril() if name == "scale_tril" else (m + m.mT) / 2


@pytest.mark.parametrize("name,matrix", FORMS, ids=[f[0] for f in FORMS])
def test_log_prob_rsample_entropy_and_their_gradients_match_torch(name, matrix, monkeypatch):
    torch = pytest.importorskip("torch")
    import minigenesis.distributions.multivariate_normal as mvn

    monkeypatch.setattr(mvn, "randn", lambda *shape, **kw: mg.tensor(EPS))
    loc, m = _mg(LOC), _mg(matrix)
    ours = D.MultivariateNormal(loc, **{name: m})
    tl = torch.tensor(LOC, requires_grad=True)
    tm = torch.tensor(matrix, requires_grad=True)
    theirs = torch.distributions.MultivariateNormal(tl, **{name: tm})
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape) == (3, 2)
    total = ours.log_prob(mg.tensor(VALUE)).sum() + ours.entropy().sum()
    # torch's rsample with the same noise: loc + L eps
    t_draw = theirs.loc + (theirs._unbroadcasted_scale_tril @ torch.tensor(EPS)[..., None])[..., 0]
    t_total = theirs.log_prob(torch.tensor(VALUE)).sum() + theirs.entropy().sum()
    draw = ours.rsample((5,))
    np.testing.assert_allclose(draw.detach().numpy(), t_draw.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(total.item(), t_total.item(), rtol=1e-12)
    (total + (draw**2).sum()).backward()
    (t_total + (t_draw**2).sum()).backward()
    np.testing.assert_allclose(loc.grad.numpy(), tl.grad.numpy(), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(m.grad.numpy(), tm.grad.numpy(), rtol=1e-9, atol=1e-10)
    for attr in ("covariance_matrix", "precision_matrix", "scale_tril"):
        np.testing.assert_allclose(
            getattr(ours, attr).detach().numpy(), getattr(theirs, attr).detach().numpy(), atol=1e-12
        )


@pytest.mark.parametrize("name,matrix", FORMS, ids=[f[0] for f in FORMS])
def test_log_prob_and_rsample_gradients_match_finite_differences(name, matrix):
    value = mg.tensor(VALUE[:, :1, :1])

    def log_prob(loc, m):
        return D.MultivariateNormal(loc, **{name: _symmetric_or_tril(name, m)}).log_prob(value)

    def rsample(loc, m):
        mg.manual_seed(5)  # the same noise at every evaluation: a deterministic function
        return D.MultivariateNormal(loc, **{name: _symmetric_or_tril(name, m)}).rsample((2,))

    args = (_mg(LOC[:1]), _mg(matrix[:1]))
    assert gradcheck(log_prob, args)
    assert gradcheck(rsample, args)


def test_kl_divergence_and_its_gradients_match_torch():
    torch = pytest.importorskip("torch")
    p_loc, q_tril = _mg(LOC), _mg(np.linalg.cholesky(COV[::-1].copy()))
    p = D.MultivariateNormal(p_loc, covariance_matrix=mg.tensor(COV))
    q = D.MultivariateNormal(mg.tensor(LOC[::-1].copy()), scale_tril=q_tril)
    tp_loc, tq_tril = torch.tensor(LOC, requires_grad=True), torch.tensor(q_tril.detach().numpy())
    tq_tril.requires_grad_()
    tp = torch.distributions.MultivariateNormal(tp_loc, covariance_matrix=torch.tensor(COV))
    tq = torch.distributions.MultivariateNormal(torch.tensor(LOC[::-1].copy()), scale_tril=tq_tril)
    kl, t_kl = D.kl_divergence(p, q), torch.distributions.kl_divergence(tp, tq)
    np.testing.assert_allclose(kl.detach().numpy(), t_kl.detach().numpy(), rtol=1e-12)
    kl.sum().backward()
    t_kl.sum().backward()
    np.testing.assert_allclose(p_loc.grad.numpy(), tp_loc.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(q_tril.grad.numpy(), tq_tril.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_a_covariance_that_is_not_positive_definite_raises_linalg_error_unvalidated():
    bad = mg.tensor([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="covariance_matrix"):  # validated: the constraint names it
        D.MultivariateNormal(mg.zeros(2), covariance_matrix=bad)
    with pytest.raises(mg.linalg.LinAlgError, match="not positive-definite"):  # as torch's
        D.MultivariateNormal(mg.zeros(2), covariance_matrix=bad, validate_args=False)
