"""Regenerate ``cupy14_names.json``: the public names of the real CuPy that the stand-in may expose.

Run with a Python that has the ``cupy-cuda12x`` wheel and ``ml_dtypes`` installed (CuPy imports
without a GPU), from the repository root::

    python tests/cupy_standin/record_names.py > tests/cupy_standin/cupy14_names.json

Nothing here runs in the tests; the JSON file is the record they read.
"""

from __future__ import annotations

import json

import cupy
import cupyx
import cupyx.scipy.special
import ml_dtypes
import numpy as np


def public(obj: object) -> list[str]:
    return sorted(n for n in dir(obj) if not n.startswith("_"))


bf16 = np.dtype(ml_dtypes.bfloat16).char  # "E"
ufuncs = [n for n in public(cupy) if isinstance(getattr(cupy, n), cupy.ufunc)]
record = {
    "version": cupy.__version__,
    "cupy": public(cupy),
    "ndarray": sorted(n for n in dir(cupy.ndarray) if not n.startswith("_") or n.startswith("__")),
    "ufunc_methods": public(cupy.add),
    "ufuncs_with_bfloat16": [
        n
        for n in ufuncs
        if any(t.split("->")[0] and set(t.split("->")[0]) == {bf16} for t in getattr(cupy, n).types)
    ],
    "ufuncs": ufuncs,
    "random": public(cupy.random),
    "random_Generator": public(cupy.random.Generator),
    "cuda": public(cupy.cuda),
    "cuda_runtime": public(cupy.cuda.runtime),
    "cuda_Device": public(cupy.cuda.Device),
    "cuda_MemoryPool": public(cupy.cuda.MemoryPool),
    "cupyx": public(cupyx),
    "cupyx_scipy_special": public(cupyx.scipy.special),
}
print(json.dumps(record, indent=1))
