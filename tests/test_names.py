"""Names a reader can rely on. A module of the package imported under another name has that one
name everywhere, the name stands for that one module, and the short capital aliases are the ones
ARCHITECTURE.md lists ("Module aliases"): a reader who learns ``S`` is ``ops.shape`` in one file
can rely on it in all. The Tensor's method mixins are named after their files."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "minigenesis"
SHORT = re.compile(r"_?[A-Z][A-Z0-9]{0,2}")


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _aliases() -> list[tuple[str, str, str]]:
    """(file, module, alias) for every import of a package module under another name."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT)
        package = list(rel.parent.parts)  # the package a relative import starts from
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                base = ".".join(base + ([node.module] if node.module else []))
                targets = [(f"{base}.{a.name}", a.asname) for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [(a.name, a.asname) for a in node.names]
            else:
                continue
            for module, alias in targets:
                if (
                    alias
                    and module.startswith("minigenesis.")
                    and alias != module.rsplit(".", 1)[1]
                    and _is_module(module)
                ):
                    found.append((rel.as_posix(), module.removeprefix("minigenesis."), alias))
    return found


def test_aliases_are_read_by_the_test():
    modules = {module for _, module, _ in _aliases()}
    assert {"ops.shape", "ops.elementwise", "nn.functional", "dtypes"} <= modules, modules


def test_each_alias_names_one_module_and_each_module_has_one_alias():
    """The leading underscore aside (a public namespace such as mg.special hides its imports)."""
    by_alias: dict[str, set[str]] = defaultdict(set)
    by_module: dict[str, set[str]] = defaultdict(set)
    for _, module, alias in _aliases():
        by_alias[alias.lstrip("_")].add(module)
        by_module[module].add(alias.lstrip("_"))
    shared = {a: sorted(m) for a, m in by_alias.items() if len(m) > 1}
    several = {m: sorted(a) for m, a in by_module.items() if len(a) > 1}
    assert not shared, f"one alias for several modules: {shared}"
    assert not several, f"several aliases for one module: {several}"


def test_the_short_aliases_are_the_ones_architecture_lists():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("### Module aliases", 1)[1].split("\n## ", 1)[0]
    listed = dict(re.findall(r"`([A-Z][A-Z0-9]{0,2})` `([\w.]+)`", section))
    used = {alias.lstrip("_"): module for _, module, alias in _aliases() if SHORT.fullmatch(alias)}
    assert len(listed) > 10, "the section was not read"
    assert used == listed, (
        f"in the code, not listed: {sorted(set(used.items()) - set(listed.items()))}; "
        f"listed, not in the code: {sorted(set(listed.items()) - set(used.items()))}"
    )


def test_each_tensor_mixin_is_named_after_its_file():
    """``tensor_<family>.py`` holds the mixin ``Tensor<Family>`` (tensor_stats.py:
    TensorStatistics); the other bases of Tensor are the machinery ARCHITECTURE.md names."""
    import minigenesis as mg

    bases = {}
    for cls in mg.Tensor.__bases__:
        bases[cls.__name__] = cls.__module__.removeprefix("minigenesis.")
    mixins = {name: module for name, module in bases.items() if module.startswith("tensor_")}
    assert len(mixins) > 10, bases
    for name, module in mixins.items():
        family = module.removeprefix("tensor_").replace("_", "")
        assert name.startswith("Tensor") and family in name.lower().replace(
            "statistics", "stats"
        ), f"{module}.py's mixin is {name}"
    others = {name: module for name, module in bases.items() if name not in mixins}
    assert others == {
        "InPlace": "inplace",
        "ToShortcuts": "conversions",
        "TensorBase": "autograd.tensor_base",
    }, others
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in text for name in others), "ARCHITECTURE.md names Tensor's bases"
