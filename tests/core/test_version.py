"""``mg.__version__`` names the PyTorch release whose API minigenesis follows, and compares as
PyTorch's ``TorchVersion``: with tuples and version strings, as PEP 440 orders them (a local
label such as ``+minigenesis.0.1.0`` sorts after the release it labels)."""

from __future__ import annotations

import operator
import subprocess
import sys

import pytest

import minigenesis as mg

# (other, ==, <) for 2.13.0+minigenesis.<package>, written out from PEP 440's ordering
CASES = [
    ((2, 13, 0), False, False),
    ((2, 13), False, False),
    ("2.13.0", False, False),
    ("2.13", False, False),
    ((2, 14), False, True),
    ("2.13.1", False, True),
    ("2.13.0a0", False, False),
    ("2.13.0.post1", False, True),
    ("1.8", False, False),
    ((3,), False, True),
]


@pytest.mark.parametrize(("other", "equal", "less"), CASES, ids=str)
def test_version_compares_with_tuples_and_strings_as_pep_440(other, equal, less):
    v = mg.__version__
    assert (v == other, v != other, v < other) == (equal, not equal, less)
    assert (v <= other, v > other, v >= other) == (less or equal, not (less or equal), not less)


def test_version_is_the_api_release_labelled_with_the_package():
    v = mg.__version__
    assert v == f"{mg.version.api}+minigenesis.{mg.version.package}"
    assert v.split("+")[0] == "2.13.0" and isinstance(v, str) and {v: 1}[str(v)] == 1
    assert mg.version.cuda is None and mg.version.debug is False


@pytest.mark.parametrize("op", [operator.lt, operator.ge])
def test_comparing_a_version_with_a_number_is_a_type_error(op):
    with pytest.raises(TypeError, match="not supported"):
        op(mg.__version__, 3)
    assert mg.__version__ != 3


def test_the_command_reports_the_package_and_the_api():
    out = subprocess.run(
        [sys.executable, "-m", "minigenesis", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert out.stdout.strip() == f"minigenesis {mg.version.package} (PyTorch 2.13.0's API)"
