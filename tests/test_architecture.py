"""The maps of the package cannot rot: every path named in ARCHITECTURE.md's map and the README's
package map exists, and every module of the package appears in ARCHITECTURE.md's map."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "minigenesis"
# a path as the maps write it: "nn/linear.py", "autograd/", "_tensor.py"
PATH = re.compile(r"^[A-Za-z_][\w/]*(?:\.py|/)$")


def _map_block(doc: Path, heading: str) -> list[str]:
    """The lines of the first fenced block after ``heading``."""
    text = doc.read_text(encoding="utf-8")
    assert heading in text, f"{doc.name} has no {heading!r}"
    after = text.split(heading, 1)[1]
    return after.split("```", 2)[1].splitlines()[1:]


def _named_paths(lines: list[str]) -> list[str]:
    """The paths a map names: the leading words of each line that look like paths."""
    names = []
    for line in lines:
        if not line or line[0].isspace():  # a continued description
            continue
        for word in line.split():
            if not PATH.match(word):
                break
            names.append(word)
    return names


def _exists(name: str) -> bool:
    return (PACKAGE / name).exists() or (ROOT / name).exists()


def _modules() -> set[str]:
    """Every module and folder of the package, as the map writes them."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        if path.name == "__init__.py" and rel.parent != Path("."):
            found.add(rel.parent.as_posix() + "/")
        else:
            found.add(rel.as_posix())
    return found


def test_architecture_map_names_only_real_files():
    names = _named_paths(_map_block(ROOT / "ARCHITECTURE.md", "## A map of the package"))
    assert len(names) > 50, "the map was not read: is it a fenced block after its heading?"
    missing = [n for n in names if not (PACKAGE / n).exists()]
    assert not missing, f"ARCHITECTURE.md's map names files that do not exist: {missing}"


def test_every_package_module_is_in_the_architecture_map():
    names = set(_named_paths(_map_block(ROOT / "ARCHITECTURE.md", "## A map of the package")))
    absent = sorted(_modules() - names)
    assert not absent, f"modules missing from ARCHITECTURE.md's map: {absent}"


def test_readme_package_map_names_only_real_files():
    names = _named_paths(_map_block(ROOT / "README.md", "## A map of the package"))
    assert len(names) > 10, "the README's map was not read"
    missing = [n for n in names if not _exists(n)]
    assert not missing, f"the README's package map names files that do not exist: {missing}"


def test_architecture_layers_match_the_import_contract():
    """The layer list in ARCHITECTURE.md is the one lint-imports checks, in the same order."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = config["tool"]["importlinter"]["contracts"]
    written = [
        " ".join(line.split("  ")[0].split())
        for line in _map_block(ROOT / "ARCHITECTURE.md", "## The layers")
        if line.strip()
    ]
    assert written == [" ".join(layer.split()) for layer in contract["layers"]]


def test_imports_point_down_the_layers():
    """lint-imports keeps the contract in pyproject.toml: no module imports a layer above it."""
    pytest.importorskip("importlinter")
    code = (
        "from importlinter.cli import lint_imports; "
        "raise SystemExit(lint_imports(no_cache=True, no_logo=True))"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_tensor_module_does_not_shadow_the_tensor_function():
    """The Tensor class lives in ``_tensor.py`` (PyTorch's name for it): importing that module
    leaves ``mg.tensor`` the function that makes a tensor."""
    import minigenesis as mg
    import minigenesis._tensor  # noqa: F401

    assert callable(mg.tensor) and mg.tensor([1.0, 2.0]).tolist() == [1.0, 2.0]
