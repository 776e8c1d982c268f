"""``torch.version`` and ``torch.__version__``: which release this is.

minigenesis follows PyTorch 2.13's API and numbers, so its version string leads with that release
and names itself after the ``+`` (as PyTorch's own builds say ``2.13.0+cpu``):
``2.13.0+minigenesis.0.1.0``. Programs that check ``torch.__version__`` to choose between an old
and a new API then choose the API this package implements. ``TorchVersion`` compares as PyTorch's
does, with tuples and with version strings: ``__version__ >= (2, 0)``, ``__version__ >= "1.8"``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TorchVersion", "__version__", "cuda", "debug", "git_version", "hip", "package"]

package = "0.1.0"  # minigenesis' own release (pyproject.toml)
api = "2.13.0"  # the PyTorch release whose API it follows
cuda = None  # the CUDA toolkit a build was made for: none (CuPy brings its own)
hip = None
debug = False
git_version = "Unknown"


class TorchVersion(str):
    """A version string that compares with tuples and version strings as PEP 440 versions (by
    ``packaging``, as PyTorch's does): ``2.13.0+minigenesis.0.1.0 >= (2, 0)`` and ``> "2.13"``
    (a local label sorts after the release it labels), ``== "2.13"`` is False."""

    def _compare(self, other: Any, how: str) -> Any:
        from packaging.version import InvalidVersion, Version

        if isinstance(other, (tuple, list)):
            other = ".".join(str(part) for part in other)
        if not isinstance(other, (str, Version)):
            return NotImplemented
        try:
            theirs = other if isinstance(other, Version) else Version(other)
        except InvalidVersion:
            if how == "__eq__":
                return False
            raise
        return getattr(Version(str(self)), how)(theirs)

    def __lt__(self, other: Any) -> Any:
        return self._compare(other, "__lt__")

    def __le__(self, other: Any) -> Any:
        return self._compare(other, "__le__")

    def __gt__(self, other: Any) -> Any:
        return self._compare(other, "__gt__")

    def __ge__(self, other: Any) -> Any:
        return self._compare(other, "__ge__")

    def __eq__(self, other: Any) -> Any:
        return self._compare(other, "__eq__")

    def __ne__(self, other: Any) -> Any:
        equal = self._compare(other, "__eq__")
        return equal if equal is NotImplemented else not equal

    __hash__ = str.__hash__


__version__ = TorchVersion(f"{api}+minigenesis.{package}")
