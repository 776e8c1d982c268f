"""Distribution: the interface every probability distribution shares (torch.distributions).

Shapes, in PyTorch's terms: a distribution object holds a batch of independent distributions
(``batch_shape``), each over events of ``event_shape``; ``sample(sample_shape)`` returns
``sample_shape + batch_shape + event_shape``, and ``log_prob(value)`` one number per event:
``sample_shape + batch_shape``.

``rsample`` draws with the reparameterisation trick: the sample is a differentiable function of
the parameters and of parameter-free noise (``loc + scale * eps``), so gradients of a Monte Carlo
estimate flow back to the parameters (``has_rsample``). ``sample`` draws without a graph.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..size import Size
from . import constraints
from .utils import broadcast_all, extended_shape

__all__ = ["Distribution"]


class Distribution:
    """The base class: shapes, argument validation, and the methods subclasses fill in."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = True  # PyTorch validates by default (outside `python -O`)
    arg_constraints: dict[str, constraints.Constraint] = {}
    support: Any = None

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for distributions created from now on."""
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args: expected True or False, got {value!r}")
        Distribution._validate_args = value

    def __init__(
        self,
        batch_shape: Any = (),
        event_shape: Any = (),
        validate_args: bool | None = None,
    ) -> None:
        self._batch_shape = Size(tuple(batch_shape))
        self._event_shape = Size(tuple(event_shape))
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self) -> None:
        """Each parameter that was given must lie in its constraint; the error names it."""
        for name, constraint in self.arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if name not in self.__dict__ and not isinstance(
                getattr(type(self), name, None), property
            ):
                continue  # a lazily derived form (Bernoulli's logits from probs): not given
            value = getattr(self, name)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {name} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                    f"{constraint!r}, but found invalid values:\n{value}"
                )

    # ------------------------------------------------------------------ shapes
    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape: Any = ()) -> Size:
        return extended_shape(sample_shape, self._batch_shape, self._event_shape)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """The same distribution with its parameters broadcast to a larger ``batch_shape``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement expand")

    def _expanded(self, batch_shape: Any, _instance: Any, **params: Tensor) -> Any:
        """expand's common part: a new instance of the same class whose named parameters are
        expanded to ``batch_shape`` (+ their event dimensions), no validation repeated."""
        batch_shape = Size(tuple(batch_shape))
        new = _instance if _instance is not None else object.__new__(type(self))
        for name, value in params.items():
            event = tuple(value.shape[len(self._batch_shape) :])
            setattr(new, name, value.expand(*batch_shape, *event))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    # ------------------------------------------------------------------ moments
    @property
    def mean(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement mean")

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement variance")

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def entropy(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement entropy")

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    # ------------------------------------------------------------------ draws and densities
    def sample(self, sample_shape: Any = ()) -> Tensor:
        """A draw of shape ``sample_shape + batch_shape + event_shape``, outside the graph."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """A reparameterised draw: differentiable with respect to the parameters."""
        raise NotImplementedError(
            f"{type(self).__name__} does not support rsample (has_rsample is False): its draws "
            f"are not a differentiable function of its parameters here. Use sample(), and "
            f"log_prob() for a score-function (REINFORCE) gradient."
        )

    def sample_n(self, n: int) -> Tensor:
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement log_prob")

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement cdf")

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement icdf")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement enumerate_support")

    def _check_sample(self, value: Any) -> None:
        """``_validate_sample(value)`` when this distribution validates its arguments
        (``validate_args``): the first line of log_prob, cdf and the like."""
        if self._validate_args:
            self._validate_sample(value)

    def _validate_sample(self, value: Any) -> None:
        """log_prob's argument: a Tensor whose shape broadcasts with the batch, inside the
        support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim = len(self._event_shape)
        if tuple(value.shape[value.dim() - event_dim :]) != tuple(self._event_shape):
            raise ValueError(
                f"The right-most size of value must match event_shape: {tuple(value.shape)} vs "
                f"{tuple(self._event_shape)}."
            )
        actual = tuple(value.shape[: value.dim() - event_dim])
        expected = tuple(self._batch_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: "
                    f"{tuple(value.shape)} vs {expected + tuple(self._event_shape)}."
                )
        support = self.support
        if support is None or constraints.is_dependent(support):
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) of the distribution {self!r}, but found "
                f"invalid values:\n{value}"
            )

    def __repr__(self) -> str:
        shown = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                v = self.__dict__[name]
                shown.append(f"{name}: {v if v.numel() == 1 else v.shape}")
        return f"{type(self).__name__}({', '.join(shown)})"


class _LocationScale(Distribution):
    """Shared by Normal and Laplace: a location ``loc`` (any real) and a ``scale`` (> 0),
    broadcast to the batch shape; x = loc + scale * z for z of the standardised distribution, so
    the mean (where it exists) and the mode are loc. Real-valued, with reparameterised draws."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Any:
        return self._expanded(batch_shape, _instance, loc=self.loc, scale=self.scale)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc
