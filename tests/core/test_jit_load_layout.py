"""``mg.jit.load`` of a file whose module bookkeeping was tampered with: one clear error at load.

The weights-only loader makes a module from whatever state the file gives it, never calling its
constructor. A file could so give ``_modules`` as a list, or put a number where the class has
``forward``: the module loaded, and the first call failed far from the file
(``AttributeError: 'list' object has no attribute 'values'``). ``jit.load`` now checks every
module's bookkeeping and names the file, the submodule and the field.
"""

from __future__ import annotations

import copy
import io
import re

import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.serialization import CheckpointError


def _model() -> nn.Module:
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))


def _saved(tamper) -> io.BytesIO:
    model = copy.deepcopy(_model())
    tamper(model)
    buf = io.BytesIO()
    mg.jit.save(model, buf)
    buf.seek(0)
    return buf


@pytest.mark.parametrize("tamper, message", [
    (lambda m: vars(m).__setitem__("_modules", [1, 2]),
     "the module's _modules is list, not a dict"),
    (lambda m: vars(m[0]).__setitem__("_parameters", "abc"),
     "submodule 0's _parameters is str, not a dict"),
    (lambda m: m[2]._parameters.__setitem__("weight", 3.5),
     "submodule 2's _parameters['weight'] is float, not a tensor or None"),
    (lambda m: m._modules.__setitem__("9", 7), "the module's _modules['9'] is int, not a module"),
    (lambda m: vars(m[0]).__setitem__("forward", 5),
     "submodule 0's forward is int data, which replaces the method Linear.forward"),
    (lambda m: m[0]._forward_hooks.__setitem__(0, "os.system"),
     "submodule 0's _forward_hooks[0] is str, not a function"),
    (lambda m: vars(m).__setitem__("training", "yes"), "the module's training flag is str"),
], ids=["modules-list", "parameters-str", "parameter-float", "submodule-int", "forward-int",
        "hook-str", "training-str"])  # fmt: skip
def test_jit_load_names_tampered_module_bookkeeping(tamper, message):
    with pytest.raises(CheckpointError, match="^" + re.escape(f"<BytesIO>: {message}")):
        mg.jit.load(_saved(tamper))


def test_jit_load_of_something_else_than_a_module_says_so(tmp_path):
    path = tmp_path / "weights.pth"
    mg.save(_model().state_dict(), path)
    with pytest.raises(RuntimeError, match=r"weights.pth: holds a OrderedDict, not a module"):
        mg.jit.load(path)


def test_jit_load_of_an_untouched_module_gives_its_numbers():
    model = _model()
    buf = io.BytesIO()
    mg.jit.save(model, buf)
    buf.seek(0)
    x = mg.randn(5, 3)
    assert mg.equal(mg.jit.load(buf)(x), model(x))
