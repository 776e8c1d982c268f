"""mg.distributions: probability distributions with PyTorch's names (torch.distributions).

    d = mg.distributions.Normal(loc, scale)
    x = d.rsample((100,))          # differentiable draws (reparameterisation)
    loss = -d.log_prob(x).mean()   # gradients reach loc and scale
    mg.distributions.kl_divergence(d, other)

Each distribution states its density, moments and entropy in its docstring; ``kl.py`` holds the
closed-form KL divergences.
"""

from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .mixture_same_family import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Categorical",
    "Distribution",
    "Exponential",
    "Gamma",
    "Independent",
    "Laplace",
    "MixtureSameFamily",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
