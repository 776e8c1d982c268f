"""The public computing names the op database must cover, enumerated from the package itself:
mg.* functions, Tensor methods, nn.functional, mg.linalg, mg.special and the distributions'
methods (qualified as the entries name them: ``exp``, ``Tensor.exp_``, ``F.relu``,
``linalg.svd``, ``special.erf``, ``distributions.Normal.log_prob``)."""

from __future__ import annotations

import inspect
import types

import minigenesis as mg
import minigenesis.nn.functional as F


def _functions(module: types.ModuleType, prefix: str) -> set[str]:
    """Public functions of a module that minigenesis defines (not typing names or NumPy)."""
    names = set()
    for name in dir(module):
        obj = getattr(module, name)
        if name.startswith("_") or inspect.isclass(obj) or isinstance(obj, types.ModuleType):
            continue
        if callable(obj) and getattr(obj, "__module__", "").startswith("minigenesis"):
            names.add(prefix + name)
    return names


def public_names() -> set[str]:
    names = _functions(mg, "")
    names |= {
        f"F.{n}"
        for n in dir(F)
        if inspect.isfunction(getattr(F, n))
        and getattr(F, n).__module__.startswith(F.__name__ + ".")
        and not n.startswith("_")
    }  # fmt: skip  (defined in one of nn/functional/'s files: F's API, not a helper from ops/)
    names |= {
        f"linalg.{n}" for n in mg.linalg.__all__ if not inspect.isclass(getattr(mg.linalg, n))
    }
    names |= _functions(mg.special, "special.")
    names |= {
        f"Tensor.{n}"
        for n in dir(mg.Tensor)
        if not n.startswith("_") and callable(getattr(mg.Tensor, n, None))
    }
    return names | distribution_names()


# The base class's own formulas, public on a distribution that has what they are built from
_DERIVED = {"stddev": "variance", "perplexity": "entropy"}


def distribution_names() -> set[str]:
    """``distributions.kl_divergence`` and ``distributions.<Class>.<attr>`` for each method and
    property a distribution defines (itself or a parent below ``Distribution``: the base's stubs
    raise NotImplementedError), with the base's stddev / perplexity where the class has the
    variance / entropy they derive from."""
    D = mg.distributions
    names = {f"distributions.{n}" for n in D.__all__ if inspect.isfunction(getattr(D, n))}
    for cname in D.__all__:
        cls = getattr(D, cname)
        if not (inspect.isclass(cls) and issubclass(cls, D.Distribution)) or cls is D.Distribution:
            continue
        own = {
            n
            for k in cls.__mro__
            if k not in (D.Distribution, object)
            for n, obj in vars(k).items()
            if not n.startswith("_")
            and (callable(obj) or hasattr(obj, "__get__"))
            and not isinstance(obj, type)
        }
        own |= {n for n, base in _DERIVED.items() if base in own}
        names |= {f"distributions.{cname}.{n}" for n in own}
    return names


def covered_names(entries) -> set[str]:
    """The public names the entries test: each entry's name, method, in-place form and aliases."""
    names = set()
    for e in entries:
        names.add(e.name)
        if e.method:
            names.add(f"Tensor.{e.method}")
        if e.inplace:
            names.add(f"Tensor.{e.inplace}")
            # an alias's in-place form that is the very same method (not_equal_ is ne_) is
            # tested by the entry's in-place check
            same = getattr(mg.Tensor, e.inplace, None)
            names.update(
                f"Tensor.{a}_"
                for a in e.aliases
                if "." not in a and same is not None and getattr(mg.Tensor, f"{a}_", 0) is same
            )
        names.update(e.aliases)
    return names
