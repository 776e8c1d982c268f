"""Answers a learner writes from the text alone, run against their chapter's checks.

- Right answers written differently from ``solutions.py`` must pass every check of their
  exercise: a check that rejects a correct answer is a bug of the course.
- Honest mistakes (not shortcuts: the answer tries to do the right thing) must fail, and the
  failure must say what the mistake is, in words the learner can act on.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.course import (
    learner_answers_04_to_07,
    learner_answers_08_to_12,
    learner_answers_14_to_16,
)
from tests.course.test_cheats_caught import _with_answers

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"

_KAHN_ORDER = """
    def topological_order(root):
        # collect every node with a stack, then Kahn's algorithm: a node is ready once all of
        # its parents are out (this reads node.parents five times a node on y = y + y)
        nodes, seen, stack = [], {id(root)}, [root]
        while stack:
            node = stack.pop()
            nodes.append(node)
            for parent in node.parents:
                if id(parent) not in seen:
                    seen.add(id(parent))
                    stack.append(parent)
        children = {id(n): [] for n in nodes}
        for node in nodes:
            for parent in node.parents:
                children[id(parent)].append(node)
        ready = [n for n in nodes if not n.parents]
        queued, out, order = {id(n) for n in ready}, set(), []
        while ready:
            node = ready.pop()
            order.append(node)
            out.add(id(node))
            for child in children[id(node)]:
                if all(id(p) in out for p in child.parents) and id(child) not in queued:
                    queued.add(id(child))
                    ready.append(child)
        return order
"""

_DURABLE_SAVE = """
    def atomic_save(obj, path):
        path = Path(path)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(obj, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        folder = os.open(path.parent, os.O_RDONLY)  # make the rename itself durable too
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
"""

_BROADCAST_OTHER_SIZE = """
    def broadcast_shape(a, b):
        n = max(len(a), len(b))
        pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
        out = []
        for k in range(n - 1, -1, -1):
            x, y = pa[k], pb[k]
            if x != y and x != 1 and y != 1:
                raise ValueError(
                    f"shapes {tuple(a)} and {tuple(b)} cannot be broadcast: {x} vs {y} "
                    f"in dim {k - n}"
                )
            out.append(y if x == 1 else x)
        return tuple(reversed(out))
"""

# chapter folder, extra imports, answers, the exercise numbers
RIGHT = {
    "02-kahns-algorithm": ("02_autograd_from_scratch", "", {"topological_order": _KAHN_ORDER},
                           ["2.3"]),
    "03-right-to-left-with-zero-sizes": ("03_broadcasting_and_gradients", "",
                                         {"broadcast_shape": _BROADCAST_OTHER_SIZE}, ["3.1"]),
    "10-folder-fsynced-after-the-replace": ("10_checkpoints", "", {"atomic_save": _DURABLE_SAVE},
                                            ["10.2"]),
}  # fmt: skip

_ALIASING_WALK = """
    def backward(root):
        order = topological_order(root)
        for node in order:
            node.grad = np.zeros_like(node.data)
        root.grad = np.ones_like(root.data)
        for node in reversed(order):
            if node.backward_fn is None:
                continue
            for parent, g in zip(node.parents, node.backward_fn(node.grad)):
                if not parent.grad.any():
                    parent.grad = g  # the first contribution kept as is: add's g is shared
                else:
                    parent.grad += g
"""

_ADAMW_BIAS_FROM_ZERO = """
    class AdamW(Adam):
        def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
            super().__init__(params, lr, betas, eps, weight_decay)

        def step(self):
            with mg.no_grad():
                for group in self.param_groups:
                    lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
                    for p in group["params"]:
                        if p.grad is None:
                            continue
                        p.mul_(1 - lr * group["weight_decay"])
                        st = self.state.setdefault(
                            id(p), {"t": 0, "m": mg.zeros_like(p), "v": mg.zeros_like(p)}
                        )
                        st["m"] = b1 * st["m"] + (1 - b1) * p.grad
                        st["v"] = b2 * st["v"] + (1 - b2) * p.grad * p.grad
                        m_hat = st["m"] / (1 - b1 ** (st["t"] + 1))
                        v_hat = st["v"] / (1 - b1 ** (st["t"] + 1))  # beta1 for v too
                        st["t"] += 1
                        p.sub_(lr * m_hat / (v_hat.sqrt() + eps))
"""

_MEAN_OF_BATCH_MEANS = """
    def evaluate(model, X, y, batch_size=256):
        was_training = model.training
        model.eval()
        losses, hits = [], 0
        with mg.no_grad():
            for start in range(0, len(y), batch_size):
                xb, yb = X[start : start + batch_size], y[start : start + batch_size]
                logits = model(xb)
                losses.append(mg.nn.functional.cross_entropy(logits, yb).item())
                hits += int((logits.argmax(dim=1) == yb).sum().item())
        model.train(was_training)
        return sum(losses) / len(losses), hits / len(y)
"""

# chapter folder, extra imports, answers, the exercise number, words the failure must contain
MISTAKES = {
    "02-first-gradient-kept-as-is": ("02_autograd_from_scratch", "", {"backward": _ALIASING_WALK},
                                     "2.4", "add's backward returns the same array"),
    "06-bias-correction-off-by-one": ("06_optimizers_by_hand", "",
                                      {"AdamW": _ADAMW_BIAS_FROM_ZERO}, "6.3",
                                      "check the bias corrections"),
    "13-mean-of-batch-means": ("13_capstone", "", {"evaluate": _MEAN_OF_BATCH_MEANS}, "13.3",
                               "you averaged the batch means"),
}  # fmt: skip


def _run_checks(tmp_path: Path, chapter: str, imports: str, answers: dict[str, str]) -> str:
    lessons = tmp_path / "lessons"
    skip = shutil.ignore_patterns(
        "exercises.py", "exercises.*.py", "*.ipynb", "__pycache__", "_moved", "_build"
    )
    shutil.copytree(LESSONS, lessons, ignore=skip)
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    template = (lessons / chapter / "exercises_template.py").read_text(encoding="utf-8")
    (lessons / chapter / "exercises.py").write_text(_with_answers(template, imports, answers))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MINIGENESIS_SOLUTIONS", None)
    env.pop("MINIGENESIS_STUBS", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:nbmake", "-rf"]
        + ["-q", f"lessons/{chapter}/test_lesson.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return run.stdout


@pytest.mark.parametrize("case", sorted(RIGHT))
def test_right_answers_written_differently_pass(tmp_path: Path, case: str):
    chapter, imports, answers, numbers = RIGHT[case]
    out = _run_checks(tmp_path, chapter, imports, answers)
    for number in numbers:
        assert f"Exercise {number}: this check of your answer failed" not in out, out[-4000:]
    assert not re.search(r"^FAILED ", out, re.M), out[-4000:]


@pytest.mark.parametrize("case", sorted(MISTAKES))
def test_honest_mistakes_fail_with_a_message_naming_them(tmp_path: Path, case: str):
    chapter, imports, answers, number, words = MISTAKES[case]
    out = _run_checks(tmp_path, chapter, imports, answers)
    assert f"Exercise {number}: this check of your answer failed" in out, out[-4000:]
    assert words in out, out[-4000:]


# Whole chapters: every exercise answered right (other words), then one mistake in each of
# several exercises in one run (each exercise is checked with the reference answers for the rest).
_LATER = (learner_answers_04_to_07, learner_answers_08_to_12, learner_answers_14_to_16)
RIGHT_CHAPTERS = {k: v for m in _LATER for k, v in m.RIGHT.items()}
MISTAKES_CHAPTERS = {k: v for m in _LATER for k, v in m.MISTAKES.items()}


@pytest.mark.parametrize("case", sorted(RIGHT_CHAPTERS))
def test_a_chapter_answered_right_in_other_words_passes(tmp_path: Path, case: str):
    chapter, imports, answers, numbers = RIGHT_CHAPTERS[case]
    out = _run_checks(tmp_path, chapter, imports, answers)
    assert not re.search(r"^FAILED ", out, re.M), out[-4000:]
    for number in numbers:
        assert f"Exercise {number} not done yet" not in out, out[-4000:]  # really ran
        assert f"Exercise {number}: this check of your answer failed" not in out, out[-4000:]


@pytest.mark.parametrize("case", sorted(MISTAKES_CHAPTERS))
def test_mistakes_across_a_chapter_each_fail_naming_the_mistake(tmp_path: Path, case: str):
    chapter, imports, answers, expected = MISTAKES_CHAPTERS[case]
    out = _run_checks(tmp_path, chapter, imports, answers)
    for number, words in expected:
        assert f"Exercise {number}: this check of your answer failed" in out, (number, out[-4000:])
        assert words in out, (number, words, out[-4000:])
