"""What the READMEs say is what the project does: the commands they show run, the options and
chapters they list are the real ones, the paths they name exist, and the figures they quote
hold within the tolerances they state. The main job's sample output is compared with a real run
(slow: it trains for the README's 30 epochs); everything else runs in the default suite."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from minigenesis import version as mg_version
from minigenesis.app.cli import _parser, main
from minigenesis.app.schedules import SCHEDULES, schedule_factory
from minigenesis.viz.lr import lr_schedule_values

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
LESSONS_README = (ROOT / "lessons" / "README.md").read_text(encoding="utf-8")
CHAPTERS = sorted(  # (a folder without the course's checks is a learner's leftover, no chapter)
    p.name for p in (ROOT / "lessons").glob("[0-9][0-9]_*") if (p / "test_lesson.py").is_file()
)


def _fenced(markdown: str) -> list[str]:
    return re.findall(r"^```[a-z]*\n(.*?)^```", markdown, re.S | re.M)


def _sample_output() -> list[str]:
    (block,) = [b for b in _fenced(README) if b.startswith("minigenesis train -> ")]
    return block.splitlines()


def _run(args: list[str], cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


# ---------------------------------------------------------------------------------- the options
def test_the_options_the_readme_lists_are_the_train_options():
    (bullet,) = re.findall(r"^- Options: (.*?)\n(?=\S|\n)", README, re.S | re.M)
    listed = set(re.findall(r"--[a-z][a-z-]*", bullet.split("(`python")[0]))
    train = _parser()._subparsers._group_actions[0].choices["train"]
    real = {o for a in train._actions for o in a.option_strings if o.startswith("--")}
    real -= {"--help", "--interrupt-at-step"}  # argparse's own; a hidden one for the tests
    assert listed == real, f"README lacks {real - listed}, names unknown {listed - real}"


def test_version_is_the_packages(capsys):
    version = re.search(r'^version = "(.+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert main(["--version"]) == 0
    out = capsys.readouterr().out.strip()
    assert out == f"minigenesis {version.group(1)} (PyTorch 2.13.0's API)"
    assert mg_version.package == version.group(1)


# ------------------------------------------------------------------ the course the READMEs show
def test_the_chapter_table_lists_every_chapter():
    numbers = sorted(re.findall(r"\| (\d\d) \| [a-z]", README))
    assert numbers == [c[:2] for c in CHAPTERS], "README's course table and lessons/ differ"
    count = re.search(r"`lessons/` is a (\d+)-chapter course", README)
    assert count and int(count.group(1)) == len(CHAPTERS)


@pytest.mark.parametrize("name", ["README.md", "lessons/README.md", "ARCHITECTURE.md"])
def test_paths_the_docs_name_exist(name: str):
    text = (ROOT / name).read_text(encoding="utf-8")
    paths = set(re.findall(r"(?<![\w/.])(lessons/[\w./*-]*[\w*])", text))
    paths = {p for p in paths if "NN" not in p and "<" not in p}  # placeholders of the guide
    missing = sorted(p for p in paths if not list(ROOT.glob(p)))
    assert paths and not missing, f"{name} names paths that do not exist: {missing}"


def test_the_readmes_give_the_project_test_command_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = "python -m pytest --solutions --nbmake -q"
    assert command in ci and command in README
    assert "python -m pytest --solutions" in LESSONS_README
    # CI's first pass is the quickstart's second command, install included, character for character
    quickstart = re.search(r"# 2\. install the development tools[^\n]*\n(.+)\n", README)
    assert quickstart and quickstart.group(1) in ci, "README's test command and .ci/run differ"
    for text in (README, LESSONS_README):  # the two modes are explained in both
        assert "Learner mode" in text and "exit status 0" in text


# ---------------------------------------------------------------------------------- plot-lr
def test_plot_lr_descriptions_say_what_the_plots_show():
    """A description that counts cycles matches the restarts drawn, whatever the length."""
    for name, (about, _) in SCHEDULES.items():
        cycles = re.search(r"(\d+) cycles", about)
        if not cycles:
            continue
        for steps in (50, 100, 700, 1000, 1001, 4321):
            lrs = [row[0] for row in lr_schedule_values(schedule_factory(name, steps), steps)]
            restarts = sum(b > a for a, b in zip(lrs, lrs[1:]))
            assert restarts + 1 == int(cycles.group(1)), (name, steps, restarts)


def test_the_plot_lr_command_of_the_readme_runs(tmp_path: Path):
    (command,) = re.findall(r"`python -m minigenesis (plot-lr [^`]*--out lr\.png)`", README)
    run = _run(["-m", "minigenesis", *command.split()], tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "lr.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    listing = _run(["-m", "minigenesis", "plot-lr", "--list"], tmp_path).stdout
    assert all(name in listing for name in SCHEDULES)


# ---------------------------------------------------------------------------------- --resume
TINY = ["--samples", "240", "--hidden", "16", "--batch-size", "16", "--quiet"]


def test_resume_continues_or_extends_as_the_readme_says(tmp_path: Path, capsys):
    """Same --epochs: the run continues exactly (a finished one has nothing left and says to
    add --epochs). More --epochs: it extends, and says how."""
    out = tmp_path / "run"
    assert main(["train", *TINY, "--epochs", "2", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["train", "--resume", str(out), "--epochs", "3", "--quiet"]) == 0
    said = capsys.readouterr().out
    assert "extends the run from 2 to 3 epochs" in said, said
    old_lr, new_lr, step = re.search(r"from (\S+) to (\S+) at step (\d+)", said).groups()
    assert float(old_lr) == 0.0 and float(new_lr) > 0  # a finished run's schedule ended at 0
    # the rate now is the 3-epoch schedule's at that step (6 steps per epoch, warm-up 10%)
    want = schedule_factory("cosine_warmup", 18, 1)
    lrs = [row[0] for row in lr_schedule_values(want, 19, base_lr=0.003)]
    assert float(new_lr) == pytest.approx(lrs[int(step)], rel=1e-2)
    assert main(["train", "--resume", str(out), "--quiet"]) == 0  # a finished run: says so
    said = capsys.readouterr().out
    assert "nothing left to train" in said and "--epochs" in said, said
    stopped = tmp_path / "stopped"
    assert main(["train", *TINY, "--epochs", "2", "--out", str(stopped),
                 "--interrupt-at-step", "3"]) == 130  # fmt: skip
    capsys.readouterr()
    assert main(["train", "--resume", str(stopped), "--quiet"]) == 0
    assert "continues exactly" in capsys.readouterr().out


# ---------------------------------------------------------------------------------- the main job
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:e[+-]\d+)?(%| ?s\b)?")


def _agree(doc: str, real: str) -> str | None:
    """None if a README line and a real one say the same within the README's tolerances."""
    if _NUMBER.sub("#", doc) != _NUMBER.sub("#", real):
        return f"the README shows {doc!r}, the job prints {real!r}"
    for d, r in zip(_NUMBER.finditer(doc), _NUMBER.finditer(real)):
        unit = (d.group(1) or "").strip()
        a = float(d.group(0).rstrip("%s ").replace(",", ""))
        b = float(r.group(0).rstrip("%s ").replace(",", ""))
        if unit == "%":
            ok = abs(a - b) <= 0.5  # accuracies within 0.5 points
        elif unit == "s":
            ok = b <= 2 * a + 0.5  # times within twice those shown
        elif "." in d.group(0) or "e" in d.group(0):
            ok = b == pytest.approx(a, rel=0.02, abs=1e-6)  # losses, rates within 2%
        else:
            ok = a == b  # counts: epochs, steps, points, parameters
        if not ok:
            return f"{d.group(0)} in the README is {r.group(0)} now: {real!r}"
    return None


def test_the_comparison_of_output_lines_catches_drift():
    line = "done: 30 epochs, 1140 optimizer steps in 6.8 s"
    assert _agree(line, "done: 30 epochs, 1140 optimizer steps in 9.1 s") is None
    assert _agree(line, "done: 30 epochs, 1140 optimizer steps in 14.2 s") is not None
    assert _agree(line, "done: 30 epochs, 1141 optimizer steps in 6.8 s") is not None
    acc = "  validation accuracy 99.33% (loss 0.0331); best 99.83% at epoch 23"
    assert (
        _agree(acc, "  validation accuracy 99.50% (loss 0.0330); best 99.83% at epoch 23") is None
    )
    assert _agree(acc, "  validation accuracy 98.50% (loss 0.0331); best 99.83% at epoch 23")
    assert _agree("  diagnosis: converged", "  diagnosis: healthy") is not None


@pytest.mark.slow  # trains the README's 30 epochs: ~10 s
def test_the_main_job_prints_what_the_readme_shows(tmp_path: Path):
    (command,) = re.findall(r"python -m minigenesis (train --out runs/first)", README)
    run = _run(["-m", "minigenesis", *command.split()], tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr
    real = run.stdout.splitlines()
    doc = _sample_output()
    assert "..." in doc
    cut = doc.index("...")
    # the lines before "..." open the output, the lines after it close it
    pairs = list(zip(doc[:cut], real[:cut])) + list(
        zip(doc[cut + 1 :], real[-(len(doc) - cut - 1) :])
    )
    problems = [p for d, r in pairs if (p := _agree(d, r))]
    assert not problems, "\n".join(problems)
    claim = re.search(r"at least (\d+)% validation accuracy \(([\d.]+)% with seed 0\)", README)
    final = float(re.search(r"validation accuracy ([\d.]+)%", run.stdout).group(1))
    assert final >= float(claim.group(1)) and abs(final - float(claim.group(2))) <= 0.5
    assert (tmp_path / "runs" / "first" / "checkpoints" / "best_model.pth").is_file()
