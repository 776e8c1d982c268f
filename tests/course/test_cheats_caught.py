"""The shortcuts a learner may try on the exercises whose point is HOW the answer is found: each
gives the right numbers on the easy inputs, and each must fail its exercise's checks, with a
failure that names the exercise. (Every chapter's test_lesson.py lists the shortcuts tried.)"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"

# chapter -> (imports the cheats need, {name: cheating answer}, the exercises it cheats on)
CHEATS = {
    "02_autograd_from_scratch": (
        "import sys\n",
        {
            # recursion, with the recursion limit raised out of the way
            "topological_order": """
                def topological_order(root):
                    sys.setrecursionlimit(100000)
                    order, seen = [], set()

                    def visit(node):
                        if id(node) not in seen:
                            seen.add(id(node))
                            for parent in node.parents:
                                visit(parent)
                            order.append(node)

                    visit(root)
                    return order
            """,
            # the drawing code's own answer
            "graph_lists": """
                def graph_lists(root, names):
                    drawn = mg.viz.graph(root, params=names, show_broadcast=False)
                    return [n.name for n in drawn.nodes], list(drawn.edge_names())
            """,
        },
        ["2.3", "2.5"],
    ),
    "09_mixed_precision": (
        "import numpy as np\n",
        {
            # the "prediction" measured by running the quiz under autocast
            "autocast_predictions": """
                def autocast_predictions():
                    x, w, labels = mg.randn(8, 4), mg.randn(4, 3), mg.randint(0, 3, (8,))
                    with mg.autocast("cpu", dtype=mg.bfloat16):
                        h = x @ w
                        return {
                            "matmul": (h.dtype, "lower"),
                            "relu": (h.relu().dtype, "none"),
                            "add": ((h + x[:, :3]).dtype, "promote"),
                            "softmax": (h.softmax(dim=-1).dtype, "float32"),
                            "sum": (h.sum().dtype, "float32"),
                            "loss": (mg.nn.functional.cross_entropy(h, labels).dtype, "float32"),
                        }
            """,
            # the product rounded to float16 once, no tensors
            "fp16_weight_grad": """
                def fp16_weight_grad(x_value, upstream, loss_scale):
                    return float(np.float16(x_value * upstream * loss_scale)) / loss_scale
            """,
        },
        ["9.2", "9.3"],
    ),
    "14_sequence_models": (
        "import numpy as np\n",
        {
            # W^steps with NumPy, no autograd
            "gradient_through_time": """
                def gradient_through_time(w_hh, steps):
                    w = w_hh.detach().numpy()
                    ones = np.ones(w.shape[0])
                    return float(np.linalg.norm(ones @ np.linalg.matrix_power(w, steps)))
            """,
        },
        ["14.2"],
    ),
}


def _with_answers(template: str, imports: str, answers: dict[str, str]) -> str:
    """The template with some top-level functions replaced, and ``imports`` after its own."""
    lines = template.splitlines()
    spans = [
        (n.lineno, n.end_lineno, n.name)
        for n in ast.parse(template).body
        if isinstance(n, ast.FunctionDef) and n.name in answers
    ]
    assert len(spans) == len(answers)
    for start, end, name in sorted(spans, reverse=True):
        lines[start - 1 : end] = textwrap.dedent(answers[name]).strip("\n").splitlines()
    text = "\n".join(lines) + "\n"
    cut = text.index("\n\n", text.index("from __future__"))
    return text[:cut] + "\n" + imports + text[cut:]


@pytest.mark.parametrize("chapter", sorted(CHEATS))
def test_shortcuts_fail_their_exercises_checks(tmp_path: Path, chapter: str):
    imports, answers, numbers = CHEATS[chapter]
    lessons = tmp_path / "lessons"
    skip = shutil.ignore_patterns("exercises.py", "exercises.*.py", "*.ipynb", "__pycache__")
    shutil.copytree(LESSONS / chapter, lessons / chapter, ignore=skip)
    for name in (
        "conftest.py",
        "_course.py",
        "_progress.py",
        "_moves.py",
        "_checks.py",
        "_quiz.py",
    ):
        shutil.copy(LESSONS / name, lessons / name)
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    template = (lessons / chapter / "exercises_template.py").read_text(encoding="utf-8")
    (lessons / chapter / "exercises.py").write_text(_with_answers(template, imports, answers))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MINIGENESIS_SOLUTIONS", None)
    env.pop("MINIGENESIS_STUBS", None)
    keyword = " or ".join(f"test_{n.replace('.', '_')}_" for n in numbers)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:nbmake"]
        + ["-p", "no:hypothesispytest", "-q", f"lessons/{chapter}/test_lesson.py"]
        + (["-k", keyword] if chapter != "02_autograd_from_scratch" else []),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = run.stdout
    assert run.returncode == 1, out
    for number in numbers:
        # the exercise's failure is headed by its number
        assert f"Exercise {number}: this check of your answer failed" in out, (number, out)
