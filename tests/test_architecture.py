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


def test_every_file_architecture_names_in_its_prose_exists():
    """Every `path.py` or `folder/` quoted anywhere in ARCHITECTURE.md exists: in the package,
    from the repository's root or in tests/, or (a bare name) somewhere in the repository."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    quoted = set(re.findall(r"`([\w/.]+\.py)`", text)) | set(re.findall(r"`([\w/]+/)`", text))
    templates = {"exercises.py", "lessons/NN_topic/"}  # a learner's copy; a chapter's pattern
    bare = {p.name for p in ROOT.rglob("*.py") if ".git" not in p.parts}
    missing = [
        name
        for name in sorted(quoted - templates)
        if not (_exists(name) or (ROOT / "tests" / name).exists())
        and not ("/" not in name and name in bare)
    ]
    assert len(quoted) > 50 and not missing, f"ARCHITECTURE.md names missing files: {missing}"


def test_readme_package_map_names_only_real_files():
    names = _named_paths(_map_block(ROOT / "README.md", "## A map of the package"))
    assert len(names) > 10, "the README's map was not read"
    missing = [n for n in names if not _exists(n)]
    assert not missing, f"the README's package map names files that do not exist: {missing}"


def test_architecture_names_every_folder_of_the_tests():
    """The paragraph on what lies outside the package names each folder of tests/."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    paragraph = text.split("Outside the package:", 1)[1].split("\n\n", 1)[0]
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and p.name[0] not in "._"}
    missing = sorted(f for f in folders if f"`{f}/`" not in paragraph)
    assert len(folders) > 10 and not missing, f"test folders not in ARCHITECTURE.md: {missing}"


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


def test_architecture_names_every_import_the_contract_exempts():
    """Each ``ignore_imports`` entry of the contract is named in ARCHITECTURE.md's layers section
    (both of its modules), with the count of them."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = config["tool"]["importlinter"]["contracts"]
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = " ".join(text.split("## The layers", 1)[1].split("\n## ", 1)[0].split())
    words = {1: "One import is", 2: "Two imports are", 3: "Three imports are"}
    words |= {4: "Four imports are", 5: "Five imports are"}
    exempt = contract.get("ignore_imports", [])
    assert words[len(exempt)] + " exempt" in section, len(exempt)
    for entry in exempt:
        for module in entry.split(" -> "):
            name = module.removeprefix("minigenesis.")
            named = (name, name.replace(".", "/") + ".py", name.rsplit(".", 1)[-1])
            assert any(f"`{n}`" in section for n in named), f"{entry}: {module} is not named"


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


# ---------------------------------------------------------------------- what one step reads
def _trace_one_training_step() -> tuple[int, int, int]:
    """(functions, lines of their bodies, files) of the package entered by one training step of
    a 4-16-3 ReLU MLP with F.cross_entropy and Adam, traced with sys.settrace (the step after a
    first one, so lazy state is made already). A comprehension or generator expression counts as
    part of the function it is written in."""
    import inspect

    import minigenesis as mg
    import minigenesis.nn.functional as F

    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(4, 16), mg.nn.ReLU(), mg.nn.Linear(16, 3))
    opt = mg.optim.Adam(model.parameters(), lr=1e-2)
    x, y = mg.randn(8, 4), mg.randint(0, 3, (8,))

    def step():
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()

    step()
    entered: dict = {}

    def tracer(frame, event, arg):
        code = frame.f_code
        if event == "call" and code.co_filename.startswith(str(PACKAGE)):
            if not code.co_name.startswith("<"):  # (<listcomp>, <genexpr>: their function's)
                entered[(code.co_filename, code.co_firstlineno)] = code

    # the step of a program that made no meta tensor (once one exists, every op also asks
    # meta_array.keep_on_meta whether its inputs are meta; earlier tests may have made one)
    from minigenesis import meta_array

    meta_used, meta_array.made[0] = meta_array.made[0], False
    sys.settrace(tracer)
    try:
        step()
    finally:
        sys.settrace(None)
        meta_array.made[0] = meta_used
    lines = sum(len(inspect.getsourcelines(code)[0]) for code in entered.values())
    return len(entered), lines, len({f for f, _ in entered})


def test_one_training_step_reads_no_more_of_the_package_than_it_does_now():
    """A ratchet: the functions, lines and files one MLP + Adam step enters may only shrink
    (103 functions, 1,280 lines, 29 files before the speed layer moved out of the ops and the
    optimizers' loops into Optimizer.step; 101, 1,216, 30 before the engine wrote a leaf's
    gradient without the user-facing setter's checks and cross_entropy, F.linear and Tensor.mT
    dropped their helper hops; the numbers below after). Files: nn/functional.py became a package
    of one file per family, so the step reads linear_maps.py, activations.py and losses.py where
    it read one file; dtypes.py and nn/_reduction.py left the path, so it reads 30, as before.
    91, 1,182, 30 before autocast was read as one flag where it is off, F.relu called its op,
    and Linear's backward multiplied its matrices with MatMul and reshaped only batched ones (no
    autocast_policy.py, size.py, tensor_shape.py, tensor_math.py on the path); 81, 1,107, 26
    before the engine set grad mode in its own try/finally (no grad_mode.py), ran a leaf's hooks
    only when it has some, saved_tensors checked every record's version in one place, and a
    user's `.grad = value` was checked in a function of its own. 76, 1,065, 25 before Linear's
    backward multiplied arrays (no Tensor.mT view, inplace.py, ops/shape.py), cross_entropy's
    usual call went straight to its op, and errors and rare cases (F.linear's checks, Module
    hooks, zero_grad(set_to_none=False), weight decay) moved into functions of their own.
    56, 746, 23 before add, mul, sum and matmul computed overflow to inf silently as PyTorch
    does: they run under backend.quiet_fp, whose one wrapper (NumPy's warnings off around the
    call, 6 lines) is on the path, and their decorators are read with them. 57, 756, 23 before
    F.linear checked its bias in its own body. 757 lines since Optimizer.step turns NumPy's
    failure to broadcast a loaded state into PyTorch's RuntimeError (a try around update); 758
    since run_backward runs under quiet_fp (gradient sums overflow silently, as in PyTorch).
    50, 716, 20 since ReLU's backward selects with the speed layer's bit select itself (the op
    SelectGrad, in ops/elementwise.py, only under create_graph), Linear's backward multiplies
    with NumPy's matmul (ops/matmul.py's matmul_arrays only for 2-byte floats) and
    cross_entropy checks its classes with one max where it uses them (ops/indexing.py's
    check_index_range only to name a bad one). 49, 700, 20 since a loaded plain-number step
    count is made a tensor on load only, _bump_version makes a counter itself, Adam's fused
    update is one call, and errors and long-winded docstrings on the path were shortened.
    48, 696, 20 since a small Linear (under 32,768 outputs) multiplies with NumPy's product and
    adds its bias instead of calling BLAS's gemm through ctypes (a fixed ~8 us). 704 since
    Tensor.backward takes PyTorch's inputs=, Linear saves x and W only for the gradient that
    reads them, and a leaf asked for twice in autograd.grad gets its gradient twice. 706 since
    reading a non-leaf's .grad warns as PyTorch does, and saving an inference tensor for
    backward is refused where saved tensors are recorded. 47, 679, 18 since Linear and ReLU's
    backward hand work to the speed layer only from the size where it pays (a constant read
    off kernels/, not a call): the step's 8 x 16 gradient is selected with NumPy's where and
    its bias gradients summed with NumPy's sum, so kernels/blas.py and kernels/elementwise.py
    left the path. 680 since the engine records which backward pass runs in the thread (for
    register_multi_grad_hook, which had walked the call stack to find it). cross_entropy's op
    hands (N, C) float32 logits from 64 elements on to a compiled loop (3 lines, a constant
    read off kernels/); F.cross_entropy's docstring was shortened by as many. 684 since
    Function.apply marks an op's outputs as one sample of a running vmap (a test of one list
    where no vmap runs), so that .item() and bool() on a sample raise as PyTorch's vmap. 687
    since a backward pass given inputs runs only the nodes on a path to them, as PyTorch's
    engine (run_backward tells backward(inputs=) from autograd.grad; _Backward keeps the set).
    690 since Op.apply runs forward in a try that turns CuPy's TypeError for a host array into
    PyTorch's error naming both devices (the check itself runs only after a failure). 691 since
    Optimizer.step runs under quiet_fp (inf/NaN gradients step silently, as in PyTorch)."""
    functions, lines, files = _trace_one_training_step()
    assert functions <= 47, functions
    assert lines <= 691, lines
    assert files <= 18, files


def test_the_afternoon_reading_names_functions_that_exist():
    """ "Read the engine in an afternoon" cannot rot: every file it names exists, and every
    ``Class.member`` and ``_helper`` it names is defined in one of those files."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("## Read the engine in an afternoon", 1)[1].split("\n## ", 1)[0]
    quoted = re.findall(r"`([^`]+)`", section)
    files = [q for q in quoted if q.endswith(".py") and not q.startswith("tests/")]
    assert len(files) > 10, "the section was not read"
    assert not [f for f in files if not (PACKAGE / f).is_file()], files
    source = "\n".join((PACKAGE / f).read_text(encoding="utf-8") for f in files)
    defined = set(re.findall(r"^\s*(?:def|class) (\w+)", source, re.MULTILINE))
    dotted = [q.split(".") for q in quoted if re.fullmatch(r"_?[A-Z]\w+\.\w+", q)]
    helpers = [q for q in quoted if re.fullmatch(r"_[a-z]\w*", q)]
    missing = [".".join(d) for d in dotted if not set(d) <= defined]
    missing += [h for h in helpers if h not in defined]
    assert not missing, (
        f"named in the afternoon's reading but defined in none of its files: {missing}"
    )


def test_one_training_step_is_readable_in_an_afternoon():
    """The goal: one MLP + Adam step enters at most 70 functions, 700 lines, 18 files."""
    functions, lines, files = _trace_one_training_step()
    assert functions <= 70 and lines <= 700 and files <= 18, (functions, lines, files)


def test_no_file_of_the_package_is_longer_than_600_lines():
    """One concept per file, each short enough to read in one sitting: a file that grows past 600
    lines is split along its seams (as nn/functional/, serialization/restricted_*.py were)."""
    long = {
        str(path.relative_to(PACKAGE)): n
        for path in sorted(PACKAGE.rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert not long, f"files over 600 lines: {long}"


# ---------------------------------------------------------------------- the engine and speed
def test_no_engine_function_is_longer_than_a_screen():
    """Every function in autograd/ fits in 50 lines (def to last line)."""
    import ast

    long = []
    for path in sorted((PACKAGE / "autograd").rglob("*.py")):  # sub-packages too
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > 50:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.name} ({n} lines)")
    assert not long, long


KERNEL_CODE = re.compile(
    r"ElementwiseKernel|ReductionKernel|RawKernel|RawModule|cupy\.fuse|kernel_fits"
)


def test_kernel_code_lives_only_in_the_speed_layer():
    """CUDA kernels and the test that picks them (kernel_fits) are written in minigenesis/kernels/
    only; an op, an optimizer or the scaler hands its work there in one line."""
    outside = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.parts[len(PACKAGE.parts)] != "kernels"
        and KERNEL_CODE.search(path.read_text(encoding="utf-8"))
    ]
    assert not outside, f"kernel code outside minigenesis/kernels/: {outside}"


def test_the_speed_layer_imports_only_the_backend_from_the_package():
    """kernels/ reads arrays and the device, nothing that defines what is computed: from the
    rest of the package it imports backend.py alone (ARCHITECTURE.md, "The speed layer")."""
    import ast

    found = set()
    for path in sorted((PACKAGE / "kernels").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                found.add((node.module or "").split(".")[0] or "(the package)")
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("minigenesis"))
    assert found == {"backend"}, found


def test_the_cpu_path_of_a_small_training_step_never_enters_the_speed_layer():
    """On the CPU, one step of a small MLP with Adam calls nothing in minigenesis/kernels/: not
    the CUDA machinery (kernel_fits included), and not the CPU fast paths, which pay only from
    sizes far above this model's (BLAS's gemm and column sums, the select as bit arithmetic)."""
    import minigenesis as mg
    import minigenesis.nn.functional as F

    model = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.ReLU(), mg.nn.Linear(8, 3))
    opt = mg.optim.Adam(model.parameters())
    kernels = str(PACKAGE / "kernels")
    entered = []

    def tracer(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(kernels):
            entered.append(frame.f_code.co_name)

    sys.settrace(tracer)
    try:
        for _ in range(2):
            opt.zero_grad()
            F.cross_entropy(model(mg.randn(5, 4)), mg.tensor([0, 1, 2, 0, 1])).backward()
            opt.step()
    finally:
        sys.settrace(None)
    assert not entered, entered
