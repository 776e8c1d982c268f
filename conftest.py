"""Repository-wide pytest setup (the course's own options live in lessons/conftest.py)."""

import os

# One BLAS thread for the tests: their matmuls are small, and on a shared 2-core machine a
# multi-threaded BLAS stalls at random (a 30 us matmul taking 100 ms). Set before NumPy loads
# BLAS; notebooks run by nbmake inherit it through the environment.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
