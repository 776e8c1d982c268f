"""``import minigenesis`` changes nothing outside its own modules (ARCHITECTURE.md, "What runs at
import, and the process-wide settings"): a fresh interpreter's process-wide state is the same
before and after the import, except the modules its dependencies bring in and the one exception
that section names (the package module's class, for ``mg.enable_autocast = True``)."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = r"""
import copyreg, gc, json, locale, logging, os, signal, sys, threading, types, warnings
import numpy as np

def tasks():  # the process's native threads (BLAS pools included), where Linux shows them
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None

def handlers():
    out = {}
    for sig in signal.valid_signals():
        try:
            out[int(sig)] = repr(signal.getsignal(sig))
        except (OSError, ValueError):
            pass
    return out

def snapshot():
    return {
        "numpy errors": np.geterr(), "numpy error call": repr(np.geterrcall()),
        "numpy print options": repr(np.get_printoptions()), "numpy bufsize": np.getbufsize(),
        "numpy global random state": np.random.get_state()[1][:4].tolist(),
        "numpy functions": {k: id(v) for k, v in vars(np).items() if not k.startswith("__")},
        "ndarray": sorted(vars(np.ndarray)),
        "warnings filters": repr(warnings.filters),
        "warnings hooks": repr((warnings.showwarning, warnings.formatwarning)),
        "signal handlers": handlers(),
        "python threads": threading.active_count(), "native threads": tasks(),
        "environment": dict(os.environ),
        "hooks": repr((sys.excepthook, sys.displayhook, threading.excepthook, sys.unraisablehook)),
        "import system": repr((sys.meta_path, sys.path_hooks, sys.path)),
        "trace/profile": repr((sys.gettrace(), sys.getprofile())),
        "interpreter": [sys.getrecursionlimit(), sys.getswitchinterval(), gc.isenabled(),
                        list(gc.get_threshold())],
        "copyreg": repr(sorted(copyreg.dispatch_table.items(), key=lambda kv: repr(kv[0]))),
        "locale": locale.setlocale(locale.LC_ALL),
        "logging": repr((logging.root.level, logging.root.handlers)),
        "streams": repr((sys.stdout, sys.stderr, sys.stdin)),
    }

def diff(a, b):  # what changed: the keys of a dict, else the two values
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(set(a) | set(b), key=repr)
        return {repr(k): [repr(a.get(k))[:200], repr(b.get(k))[:200]]
                for k in keys if a.get(k) != b.get(k)}
    return [repr(a)[:300], repr(b)[:300]]

before, modules = snapshot(), dict(sys.modules)
import minigenesis
after = snapshot()
changed = sorted(k for k in before if before[k] != after[k])
new = sorted(set(sys.modules) - set(modules))
fabricated = [  # a module object registered under a name that is not its own
    name for name in new
    if getattr(sys.modules[name], "__name__", None) != name
    and not (name == "__mp_main__" and sys.modules[name] is sys.modules["__main__"])
]
swapped = [name for name, m in modules.items() if sys.modules.get(name) is not m]
print(json.dumps({
    "changed": {k: diff(before[k], after[k]) for k in changed},
    "new": new, "fabricated": fabricated, "swapped": swapped,
    "package class": [c.__qualname__ for c in type(minigenesis).__mro__],
    "malloc setting applied": sys.modules["minigenesis.kernels.memory"]._applied,
}))
"""

# The libraries `import minigenesis` imports (and theirs), besides Python's own modules.
DEPENDENCIES = {"numpy", "ml_dtypes"}


@functools.cache  # one fresh interpreter serves the three tests
def _probe() -> dict:
    # a clean environment: this process has imported minigenesis (and whatever it imports)
    # already, so a variable set by an import would be in os.environ before the probe starts
    env = {k: os.environ[k] for k in ("PATH", "HOME", "SYSTEMROOT") if k in os.environ}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=99
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_importing_minigenesis_leaves_the_process_state_as_it_was():
    """NumPy's error state and print options, warnings filters, signal handlers, threads, the
    environment, import hooks, copyreg, the locale, logging, the interpreter's settings; glibc's
    malloc thresholds are set by a call (kernels/memory.py's keep_freed_memory), not the import."""
    result = _probe()
    assert not result["changed"], result["changed"]
    assert not result["fabricated"], f"sys.modules entries made by hand: {result['fabricated']}"
    assert not result["swapped"], f"modules replaced in sys.modules: {result['swapped']}"
    assert result["malloc setting applied"] is False, "glibc's malloc was set at import"


def test_importing_minigenesis_brings_in_only_its_dependencies_and_pythons_modules():
    """``__mp_main__`` is multiprocessing's own alias of ``__main__``, made by its import."""
    outside = {
        name.split(".")[0]
        for name in _probe()["new"]
        if not name.startswith("minigenesis") and name != "__mp_main__"
    }
    assert outside - DEPENDENCIES - set(sys.stdlib_module_names) == set()


def test_the_package_module_class_is_the_one_documented_exception():
    """``mg.enable_autocast = True`` needs a property on the module object; ARCHITECTURE.md
    names this, and it is the whole of the change: a ModuleType subclass with that property."""
    mro = _probe()["package class"]
    assert mro == ["PackageModule", "module", "object"], mro
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("## What runs at import", 1)[1].split("\n## ", 1)[0]
    assert "_compat.PackageModule" in section
