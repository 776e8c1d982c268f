"""``torch.utils.benchmark``: time a statement reliably and compare implementations in a table.

    t = benchmark.Timer(stmt="f(x)", globals={"f": f, "x": x}, label="f", description="v1")
    m = t.blocked_autorange(min_run_time=0.2)    # a Measurement: m.median, m.mean, m.iqr ...
    benchmark.Compare([m, ...]).print()           # rows: sub_labels; columns: descriptions

``Timer`` is Python's ``timeit`` with PyTorch's additions (thread count, labels, automatic block
size) in ``timer.py``; ``Measurement`` and ``TaskSpec`` (the statistics and the description of
what was timed) in ``common.py``; ``Compare`` (the table) in ``compare.py``. minigenesis runs its
kernels synchronously, so no device synchronisation is needed around a measurement.
"""

from .common import Measurement, TaskSpec
from .compare import Compare
from .timer import Language, Timer

__all__ = ["Compare", "Language", "Measurement", "TaskSpec", "Timer"]
