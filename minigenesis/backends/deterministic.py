"""``mg.use_deterministic_algorithms``: PyTorch's process-wide switch that makes an op with no
deterministic implementation raise (or warn, ``warn_only=True``) instead of running.

Reproducibility scripts set it together with the seed (``torch.manual_seed(0)``,
``torch.use_deterministic_algorithms(True)``). Here it is recorded and reported, and changes
nothing: minigenesis's CPU ops are deterministic (NumPy adds in a fixed order), so there is no op
to refuse; the same seed gives the same numbers on every run.

Debug modes, as PyTorch numbers them: 0 "default" (off), 1 "warn" (on, warn only), 2 "error" (on).
"""

from __future__ import annotations

_enabled = False
_warn_only = False
_MODES = {"default": 0, "warn": 1, "error": 2}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Switch deterministic algorithms on (``True``) or off; ``warn_only`` asks for a warning
    rather than an error where an op has no deterministic form (there is none here)."""
    global _enabled, _warn_only
    if not isinstance(mode, bool) or not isinstance(warn_only, bool):
        raise TypeError(
            "use_deterministic_algorithms(): argument 'mode' and keyword 'warn_only' must be "
            f"bool, not {type(mode).__name__} and {type(warn_only).__name__}"
        )
    _enabled, _warn_only = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True)`` is in force."""
    return _enabled


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether it was switched on with ``warn_only=True``."""
    return _warn_only


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """The same switch by name or number: "default"/0 off, "warn"/1 on with warnings only,
    "error"/2 on."""
    if isinstance(debug_mode, bool) or not isinstance(debug_mode, (str, int)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode).__name__}")
    if isinstance(debug_mode, str):
        if debug_mode not in _MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                f"but got {debug_mode}"
            )
        debug_mode = _MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0 when off, 1 when on with ``warn_only``, 2 when on."""
    return (1 if _warn_only else 2) if _enabled else 0
