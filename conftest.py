"""Repository-wide pytest setup: the course's ``--solutions`` switch and the ``exercise`` marker.

They live here, at the root, so that ``pytest --solutions`` is accepted whatever paths are given
(``pytest tests/...`` as well as ``pytest lessons/...``). Everything else about the course (the
``impl`` fixture, the one-line "not done yet" reports) is in ``lessons/conftest.py``.
"""

from __future__ import annotations

import os

# One BLAS thread for the tests: their matmuls are small, and on a shared 2-core machine a
# multi-threaded BLAS stalls at random (a 30 us matmul taking 100 ms). Set before NumPy loads
# BLAS; notebooks run by nbmake inherit it through the environment.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest  # noqa: E402

SOLUTIONS_ENV = "MINIGENESIS_SOLUTIONS"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--solutions",
        action="store_true",
        default=False,
        help="course: check lessons/*/solutions.py (and run notebooks on them) instead of the "
        "learner's exercises.py",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        'exercise(*numbers): the course exercises a test checks, e.g. exercise("7.2") '
        "(python -m minigenesis lessons counts an exercise done when all its tests pass)",
    )
    if config.getoption("--solutions"):
        # Notebook kernels started by nbmake inherit the environment: one switch for both.
        os.environ[SOLUTIONS_ENV] = "1"
