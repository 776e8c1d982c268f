"""Shared fixtures for the tests: ``device`` runs a test on the CPU and, marked ``gpu``, on "cuda".

The "cuda" case is deselected by default (``-m 'not gpu'``); it runs where CuPy sees a GPU, and
on every test run on the strict CuPy stand-in (tests/core/test_cuda_standin.py starts a child
pytest with ``MINIGENESIS_CUPY=tests.cupy_standin -m gpu``).
"""

from __future__ import annotations

import pytest

import minigenesis as mg


@pytest.fixture(autouse=True)
def _seeded() -> None:
    """Every test starts from seed 0: minigenesis, like PyTorch, seeds each process afresh, and a
    test's draws must not depend on which tests ran before it."""
    mg.manual_seed(0)


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def device(request: pytest.FixtureRequest) -> str:
    if request.param == "cuda" and not mg.cuda.is_available():
        pytest.skip("needs CuPy and a CUDA device (or the CuPy stand-in)")
    return request.param


@pytest.fixture
def kernel_launches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the fused kernels (minigenesis/kernels/cuda.py: ElementwiseKernel and
    ReductionKernel calls) launched while the test runs, in order: the tests of a kernel check
    with it that the GPU path really launches it, and how often."""
    from minigenesis.kernels import cuda as gpu_kernels

    names: list[str] = []
    for cls in (gpu_kernels.ElementwiseKernel, gpu_kernels.ReductionKernel):
        call = cls.__call__

        def recorded(self, *args, _call=call, **kwargs):
            names.append(self.name)
            return _call(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__call__", recorded)
    return names
