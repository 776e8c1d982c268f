"""Ctrl-C that cannot split a unit of work in two.

Python raises KeyboardInterrupt (or runs the SIGINT handler) between any two bytecodes. Some work
is only consistent all or nothing: an optimizer step moves the weights, the optimizer's moments,
the GradScaler, the scheduler and the step counter together, and a checkpoint records them; a
Ctrl-C after the scheduler moved but before the step counter did would save new weights under the
old step, and resuming would no longer match an uninterrupted run. So such work runs inside
``sigint_deferred()``: a Ctrl-C arriving there is only noted, and handed to the handler that was
in place (Python's default raises KeyboardInterrupt) once the unit is complete.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """Hold SIGINT for the duration of the block, then deliver each one that arrived, in order.

    Only the main thread receives signals in Python; elsewhere this does nothing. Units must stay
    short: a user pressing Ctrl-C waits for the unit to finish.
    """
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(signal.SIGINT) is None:  # None: set outside Python
        yield
        return
    held = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        for _ in held:  # each Ctrl-C counts: a handler may act on the second one only
            signal.raise_signal(signal.SIGINT)  # handled now, as if it had just arrived
