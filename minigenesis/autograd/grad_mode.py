"""Grad mode and the other per-thread switches the autograd machinery reads on every op.

Chainer's lesson: configuration is thread-local, so a ``no_grad`` block in one thread never
changes what another thread records.
"""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any

from . import tensor_base


class _State(threading.local):
    """Per-thread flags, as plain fields.

    Function.apply, which every op passes through, reads ``grad_enabled`` and ``anomaly`` from
    this thread's ``__dict__`` in one read: each attribute read on a ``threading.local`` first
    looks up the calling thread's dict, which costs more than the rest of such a read.

    The autocast fields are class attributes on purpose: ``mg.enable_autocast = True`` sets them on
    the class, so every thread sees it; a ``with autocast(...)`` block stores its setting in this
    thread's own dict, which hides the class value until the block ends (see amp/).
    """

    # autocast: the active setting while autocast is on (None = off); Function.apply calls its
    # cast(rule, args) for an op class with an autocast rule. amp/ sets it.
    autocast_dtype = None
    # (pack, unpack) while an autograd.graph.saved_tensors_hooks block is active in this thread.
    saved_tensors_hooks = None
    # the error message while an autograd.graph.disable_saved_tensors_hooks block is active
    saved_tensors_hooks_disabled = None
    # the backward pass (engine._Backward) running in this thread, for the hooks that ask
    # which pass calls them (autograd.graph.register_multi_grad_hook)
    backward = None

    def __init__(self) -> None:
        self.grad_enabled = True
        self.inference_mode = False  # inside an inference_mode(True) block
        self.anomaly = False  # detect_anomaly: check every op's outputs for NaN/Inf


state = _State()


def is_grad_enabled() -> bool:
    """True when ops record the graph for backward."""
    return state.grad_enabled


class _GradModeContext:
    """Base for the grad-mode switches: context manager and decorator in one."""

    _mode: bool

    def __enter__(self) -> None:
        self._prev = state.grad_enabled
        state.grad_enabled = self._mode

    def __exit__(self, *exc: Any) -> None:
        state.grad_enabled = self._prev

    def __call__(self, fn):
        return _decorate(fn, self.__class__)


def _decorate(fn, make_context):
    """``fn`` run inside a fresh ``make_context()``. A generator function gets a generator that
    enters the context each time it resumes and leaves it at each ``yield``, as PyTorch's: the
    caller's code between two items runs in the caller's own mode."""
    if not inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with make_context():
                return fn(*args, **kwargs)

        return wrapper

    @functools.wraps(fn)
    def generator(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with make_context():
                item = gen.send(None)
            while True:
                try:
                    request = yield item
                except GeneratorExit:
                    with make_context():
                        gen.close()
                    raise
                except BaseException as error:  # thrown in by the caller: on into fn's frame
                    with make_context():
                        item = gen.throw(error)
                else:
                    with make_context():
                        item = gen.send(request)
        except StopIteration as stop:
            return stop.value

    return generator


class _NoArgumentDecorator(_GradModeContext):
    """A switch that also decorates without parentheses: ``@no_grad`` as ``@no_grad()``."""

    def __new__(cls, fn=None):
        if fn is None:
            return super().__new__(cls)
        return cls()(fn)


class no_grad(_NoArgumentDecorator):  # noqa: N801
    """Ops inside do not record a graph (inference, optimizer updates)."""

    _mode = False


class enable_grad(_NoArgumentDecorator):  # noqa: N801
    """Turn recording back on inside a ``no_grad`` block."""

    _mode = True


class set_grad_enabled(_GradModeContext):  # noqa: N801
    """``set_grad_enabled(False)`` as a context manager, or called plainly to set the mode."""

    def __init__(self, mode: bool) -> None:
        self._mode = bool(mode)
        # Called as a plain function it takes effect at once, as in PyTorch; leaving a `with`
        # block restores the previous mode either way.
        self._prev = state.grad_enabled
        state.grad_enabled = self._mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        state.grad_enabled = self._prev

    def __call__(self, fn):
        mode = self._mode
        state.grad_enabled = self._prev  # used as a decorator: do not change the mode now
        return _decorate(fn, lambda: set_grad_enabled(mode))


class inference_mode(_GradModeContext):  # noqa: N801
    """``with inference_mode():`` runs without recording a graph, like ``no_grad``.

    The tensors made inside are inference tensors (``t.is_inference()``), as in PyTorch; PyTorch
    may then refuse them in autograd, minigenesis only marks them.
    ``inference_mode(False)`` inside such a block turns recording back on.
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # @inference_mode without parentheses: mode is the function

    def __init__(self, mode: bool = True) -> None:
        self._mode = not mode  # the grad mode inside the block
        self._inference = bool(mode)

    def __enter__(self) -> None:
        super().__enter__()
        self._prev_inference = state.inference_mode
        state.inference_mode = tensor_base._inference = self._inference

    def __exit__(self, *exc: Any) -> None:
        super().__exit__(*exc)
        state.inference_mode = tensor_base._inference = self._prev_inference

    def __call__(self, fn):
        inference = self._inference
        return _decorate(fn, lambda: inference_mode(inference))


def is_inference_mode_enabled() -> bool:
    """True inside an ``inference_mode()`` block."""
    return state.inference_mode
