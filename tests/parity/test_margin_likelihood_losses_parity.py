"""PyTorch parity: the margin losses (soft margin, multi-label soft margin, multi-class and
multi-label hinge, hinge embedding, margin ranking, cosine embedding, triplet with p-norm or any
distance) and the Poisson / Gaussian negative log-likelihoods, modules and F forms: values and
gradients in float64 for every reduction."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional
rng = np.random.default_rng(0)

X = rng.standard_normal((5, 4))
X2 = rng.standard_normal((5, 4))
X3 = rng.standard_normal((5, 4))
SIGNS = np.where(rng.random((5, 4)) < 0.5, -1.0, 1.0)
SIGNS1 = np.where(rng.random(5) < 0.5, -1.0, 1.0)
LABELS = (rng.random((5, 4)) < 0.5).astype(float)
CLASSES = rng.integers(0, 4, 5)
MULTI = np.array([[3, 0, -1, 1], [1, 2, 3, -1], [0, -1, 2, 2], [2, 1, 0, 3], [-1, 0, 1, 2]])
W4 = rng.uniform(0.5, 2, 4)
COUNTS = rng.poisson(2.0, (5, 4)).astype(float)
VAR = rng.uniform(0.1, 2, (5, 4))

# name, the F form's name, (float inputs, then fixed inputs), keyword arguments
CASES = [
    ("soft_margin", "soft_margin_loss", [X], [SIGNS], {}),
    ("multilabel_soft_margin", "multilabel_soft_margin_loss", [X], [LABELS], {}),
    ("multilabel_soft_margin_w", "multilabel_soft_margin_loss", [X], [LABELS], {"weight": W4}),
    ("multi_margin", "multi_margin_loss", [X], [CLASSES], {}),
    ("multi_margin_p2_w", "multi_margin_loss", [X], [CLASSES], {"p": 2, "margin": 0.7,
                                                                "weight": W4}),
    ("multilabel_margin", "multilabel_margin_loss", [X], [MULTI], {}),
    ("hinge_embedding", "hinge_embedding_loss", [X], [SIGNS], {"margin": 0.5}),
    ("margin_ranking", "margin_ranking_loss", [X[:, 0], X2[:, 0]], [SIGNS1], {"margin": 0.2}),
    ("cosine_embedding", "cosine_embedding_loss", [X, X2], [SIGNS1], {"margin": 0.1}),
    ("triplet", "triplet_margin_loss", [X, X2, X3], [], {"margin": 0.5}),
    ("triplet_p1_swap", "triplet_margin_loss", [X, X2, X3], [], {"p": 1, "swap": True}),
    ("triplet_distance", "triplet_margin_with_distance_loss", [X, X2, X3], [], {"margin": 2.0}),
    ("poisson_log", "poisson_nll_loss", [X], [COUNTS], {}),
    ("poisson_rate_full", "poisson_nll_loss", [np.abs(X) + 0.1], [COUNTS],
     {"log_input": False, "full": True}),
    ("gaussian", "gaussian_nll_loss", [X, VAR], [X2], {}),
    ("gaussian_full_shared_var", "gaussian_nll_loss", [X, VAR[:, :1]], [X2], {"full": True}),
    ("gaussian_per_sample_var", "gaussian_nll_loss", [X, VAR[:, 0]], [X2], {}),
]  # fmt: skip


def _args(lib, floats, fixed, kwargs, grad):
    tensor = mg.tensor if lib is mg else torch.tensor
    made = [tensor(a, requires_grad=grad) for a in floats]
    fixed = [tensor(a) for a in fixed]
    kw = {k: tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    return made, fixed, kw


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_loss_matches_pytorch(case, reduction):
    _, fn, floats, fixed, kwargs = case
    m_in, m_fix, m_kw = _args(mg, floats, fixed, kwargs, True)
    t_in, t_fix, t_kw = _args(torch, floats, fixed, kwargs, True)
    if fn == "gaussian_nll_loss":  # (input, target, var)
        m_args, t_args = [m_in[0], m_fix[0], m_in[1]], [t_in[0], t_fix[0], t_in[1]]
    elif fn.startswith("triplet"):
        m_args, t_args = m_in, t_in
    else:
        m_args, t_args = m_in + m_fix, t_in + t_fix
    ym = getattr(F, fn)(*m_args, reduction=reduction, **m_kw)
    yt = getattr(TF, fn)(*t_args, reduction=reduction, **t_kw)
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-14)
    g = rng.standard_normal(tuple(yt.shape))
    (ym * mg.tensor(g)).sum().backward()
    (yt * torch.tensor(g)).sum().backward()
    for a, b in zip(m_in, t_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-13)


def test_loss_modules_match_pytorch_and_print_alike():
    for name in ["SoftMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
                 "MultiLabelMarginLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
                 "CosineEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
                 "PoissonNLLLoss", "GaussianNLLLoss"]:  # fmt: skip
        assert repr(getattr(mg.nn, name)()) == repr(getattr(torch.nn, name)())
    m = mg.nn.MultiMarginLoss(p=2, weight=mg.tensor(W4))
    t = torch.nn.MultiMarginLoss(p=2, weight=torch.tensor(W4))
    assert list(m.state_dict()) == list(t.state_dict()) == ["weight"]
    np.testing.assert_allclose(
        m(mg.tensor(X), mg.tensor(CLASSES)).item(),
        t(torch.tensor(X), torch.tensor(CLASSES)).item(),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(mg.tensor(X), mg.tensor(X2), mg.tensor(VAR[:2]))
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(mg.tensor(X), mg.tensor(X2), mg.tensor(-VAR))
