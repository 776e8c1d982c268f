"""mg.normal / mg.bernoulli / mg.poisson and the in-place draws (bernoulli_, exponential_,
geometric_, log_normal_, cauchy_, random_): each sample's mean and spread against the
distribution's closed forms (within a few standard errors of 20000 seeded draws), its support,
seeding, PyTorch's zero gradient to the parameters, and PyTorch's errors on bad parameters."""

import math

import numpy as np
import pytest

import minigenesis as mg

N = 20_000


def sample_stats(t):
    a = t.detach().numpy().astype(np.float64).reshape(-1)
    return a.mean(), a.var()


def assert_mean(a, mean, var, n=N):
    """The sample mean is within 5 standard errors of the distribution's mean."""
    assert abs(a - mean) <= 5 * math.sqrt(var / n), (a, mean)


@pytest.fixture(autouse=True)
def _seeded():
    mg.manual_seed(1234)


def test_in_place_draws_have_their_distributions_moments():
    t = mg.empty(N, dtype=mg.float64)
    m, v = sample_stats(t.exponential_(2.0))
    assert_mean(m, 0.5, 0.25)
    assert float(t.min()) >= 0
    m, v = sample_stats(t.geometric_(0.25))
    assert_mean(m, 4.0, 0.75 / 0.0625)
    assert float(t.min()) >= 1 and bool((t == t.round()).all())
    m, v = sample_stats(t.log_normal_(0.5, 0.25))
    assert_mean(m, math.exp(0.5 + 0.25**2 / 2), (math.exp(0.25**2) - 1) * math.exp(1 + 0.25**2))
    m, v = sample_stats(t.bernoulli_(0.3))
    assert_mean(m, 0.3, 0.21)
    assert set(np.unique(t.numpy())) <= {0.0, 1.0}
    t.random_(3, 7)
    assert set(np.unique(t.numpy())) == {3.0, 4.0, 5.0, 6.0}
    t.random_(4)
    assert set(np.unique(t.numpy())) == {0.0, 1.0, 2.0, 3.0}


def test_cauchy_quartiles_are_median_plus_minus_sigma():
    a = mg.empty(N, dtype=mg.float64).cauchy_(1.0, 2.0).numpy()  # no mean: check quantiles
    q1, q2, q3 = np.quantile(a, [0.25, 0.5, 0.75])
    assert abs(q2 - 1.0) < 0.1 and abs(q1 - (-1.0)) < 0.15 and abs(q3 - 3.0) < 0.15


def test_bernoulli_with_tensor_probabilities():
    p = mg.tensor([0.0, 0.2, 1.0], dtype=mg.float64).expand(N, 3)
    draws = mg.bernoulli(p)
    assert draws.dtype == mg.float64 and draws.shape == (N, 3)
    means = draws.numpy().mean(axis=0)
    assert means[0] == 0.0 and means[2] == 1.0
    assert_mean(means[1], 0.2, 0.16)
    assert_mean(p.bernoulli().numpy()[:, 1].mean(), 0.2, 0.16)
    assert_mean(mg.zeros(N).bernoulli(0.7).numpy().mean(), 0.7, 0.21)
    col = mg.empty(N, 2).bernoulli_(mg.tensor([0.1, 0.9]))  # probabilities broadcast to self
    assert_mean(col.numpy()[:, 1].mean(), 0.9, 0.09)


def test_normal_forms_and_moments():
    m, v = sample_stats(mg.normal(2.0, 3.0, (N,)))
    assert_mean(m, 2.0, 9.0)
    assert abs(v - 9.0) < 0.5
    mean = mg.tensor([-1.0, 4.0]).expand(N, 2)
    draws = mg.normal(mean, mg.tensor([0.5, 2.0]))
    assert draws.shape == (N, 2) and draws.dtype == mg.float32
    assert_mean(draws.numpy()[:, 0].mean(), -1.0, 0.25)
    assert_mean(draws.numpy()[:, 1].mean(), 4.0, 4.0)
    assert mg.normal(mg.zeros(3, dtype=mg.float64)).dtype == mg.float64
    assert mg.normal(0.0, mg.ones(4)).shape == (4,)


def test_poisson_mean_and_variance_equal_the_rate():
    rate = mg.full((N,), 3.5, dtype=mg.float64)
    m, v = sample_stats(mg.poisson(rate))
    assert_mean(m, 3.5, 3.5)
    assert abs(v - 3.5) < 0.3
    assert mg.poisson(mg.zeros(4)).tolist() == [0.0] * 4


def test_a_seed_repeats_the_draws():
    def draws():
        mg.manual_seed(7)
        return [
            mg.normal(0.0, 1.0, (5,)).tolist(),
            mg.empty(5).exponential_().tolist(),
            mg.poisson(mg.full((5,), 2.0)).tolist(),
            mg.bernoulli(mg.full((5,), 0.5)).tolist(),
        ]

    assert draws() == draws()
    g = mg.Generator().manual_seed(3)
    a = mg.empty(4).geometric_(0.5, generator=g).tolist()
    g.manual_seed(3)
    assert mg.empty(4).geometric_(0.5, generator=g).tolist() == a


def test_parameters_get_a_zero_gradient_as_in_pytorch():
    mean = mg.zeros(3, requires_grad=True)
    std = mg.ones(3, requires_grad=True)
    p = mg.full((3,), 0.5, requires_grad=True)
    rate = mg.full((3,), 2.0, requires_grad=True)
    total = mg.normal(mean, std).sum() + mg.bernoulli(p).sum() + mg.poisson(rate).sum()
    total.backward()
    for t in (mean, std, p, rate):
        assert t.grad.tolist() == [0.0, 0.0, 0.0]


def test_bad_parameters_are_refused_with_pytorchs_errors():
    t = mg.empty(3)
    cases = [
        (lambda: t.exponential_(0.0), RuntimeError, "lambda > 0"),
        (lambda: t.geometric_(1.5), RuntimeError, r"p to be in \(0, 1\)"),
        (lambda: t.log_normal_(1.0, -1.0), RuntimeError, "std > 0"),
        (lambda: t.cauchy_(0.0, 0.0), RuntimeError, "sigma > 0"),
        (lambda: t.bernoulli_(1.5), RuntimeError, r"p to be in \[0, 1\]"),
        (lambda: t.random_(5, 2), RuntimeError, "'from' to be less than 'to'"),
        (lambda: mg.empty(3, dtype=mg.int64).exponential_(), RuntimeError, "floating point"),
        (lambda: mg.normal(0.0, 1.0), TypeError, "needs a size"),
        (lambda: mg.normal(mg.zeros(2), -mg.ones(2)), RuntimeError, "std >= 0"),
        (lambda: mg.normal(0.0, -1.0, (2,)), RuntimeError, "std >= 0"),
        (lambda: mg.bernoulli(mg.tensor([1.5])), RuntimeError, r"\[0, 1\]"),
        (lambda: mg.poisson(mg.tensor([-1.0])), RuntimeError, "non-negative"),
        (lambda: mg.poisson(mg.tensor([1, 2])), NotImplementedError, "floating point"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


def test_errors_and_zero_gradients_match_torch():
    torch = pytest.importorskip("torch")
    for name, args in (
        ("exponential_", (0.0,)),
        ("geometric_", (1.5,)),
        ("log_normal_", (1.0, -1.0)),
        ("cauchy_", (0.0, -1.0)),
        ("bernoulli_", (1.5,)),
    ):
        with pytest.raises(RuntimeError):
            getattr(torch.empty(3), name)(*args)
        with pytest.raises(RuntimeError):
            getattr(mg.empty(3), name)(*args)
    mean = torch.zeros(3, requires_grad=True)
    torch.normal(mean, 1.0).sum().backward()
    m = mg.zeros(3, requires_grad=True)
    mg.normal(m, 1.0).sum().backward()
    assert m.grad.tolist() == mean.grad.tolist()


def test_draws_on_each_device_have_their_support_and_mean(device):
    n = 4000
    checks = [
        (mg.empty(n, device=device).exponential_(2.0), 0.5, 0.25),
        (mg.empty(n, device=device).geometric_(0.5), 2.0, 2.0),
        (mg.bernoulli(mg.full((n,), 0.25, device=device)), 0.25, 0.1875),
        (mg.poisson(mg.full((n,), 3.0, device=device)), 3.0, 3.0),
        (mg.normal(mg.full((n,), 1.0, device=device), 2.0), 1.0, 4.0),
    ]
    for draws, mean, var in checks:
        assert draws.device.type == device
        assert_mean(draws.cpu().numpy().mean(), mean, var, n)
    ints = mg.empty(n, device=device).random_(2, 5).cpu().numpy()
    assert set(np.unique(ints)) == {2.0, 3.0, 4.0}


@pytest.mark.parametrize("draw", [
    lambda g: mg.randn(3, generator=g),
    lambda g: mg.randperm(3, generator=g),
    lambda g: mg.ones(3).normal_(generator=g),
    lambda g: list(mg.utils.data.RandomSampler(range(3), generator=g)),
    lambda g: list(mg.utils.data.DataLoader(range(3), shuffle=True, generator=g)),
])  # fmt: skip
def test_a_generator_that_is_not_a_generator_is_a_type_error_naming_it(draw):
    with pytest.raises(TypeError, match="generator must be an mg.Generator .*got int 5"):
        draw(5)
    draw(mg.Generator().manual_seed(0))  # a real one still draws


@pytest.mark.parametrize("dtype", [mg.int64, mg.uint8, mg.bool])
@pytest.mark.parametrize(
    "fill",
    [
        lambda t: t.uniform_(),
        lambda t: t.normal_(),
        lambda t: mg.nn.init.kaiming_uniform_(t),
        lambda t: mg.nn.init.kaiming_normal_(t),
    ],
)
def test_uniform_and_normal_fills_refuse_integer_and_bool_tensors(fill, dtype):
    # (a NumPy draw cast to uint8 / bool filled the tensor with garbage; PyTorch refuses)
    t = mg.zeros(3, 3, dtype=dtype)
    with pytest.raises(NotImplementedError, match="not implemented for"):
        fill(t)
    assert (t == 0).all()
