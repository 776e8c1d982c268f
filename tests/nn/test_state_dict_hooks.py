"""Module state_dict / load_state_dict hooks and extra state, as PyTorch's: the order and
arguments of pre- and post-hooks per module (with their prefixes), a load pre-hook renaming keys
of its own module, a load post-hook clearing missing keys before strict judges them, the legacy
post-hook's returned dict, and ``get_extra_state``/``set_extra_state`` under ``_extra_state``."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Sequential(lib.nn.Linear(3, 1)))


def _save_events(lib):
    model, seen = _model(lib), []
    for m in (model, model[1], model[1][0]):
        m.register_state_dict_pre_hook(lambda mod, prefix, kv: seen.append(("pre", prefix, kv)))
        m.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta: seen.append(("post", prefix, len(sd), "version" in meta))
        )
    keys = list(model.state_dict(keep_vars=True))
    return seen, keys


def test_state_dict_hooks_run_per_module_in_pytorchs_order():
    ours = _save_events(mg)
    assert ours == _save_events(torch)
    assert ours[0] == [
        ("pre", "", True),
        ("pre", "1.", True),
        ("pre", "1.0.", True),
        ("post", "1.0.", 4, True),
        ("post", "1.", 4, True),
        ("post", "", 4, True),
    ]


def test_state_dict_post_hook_may_change_the_dict_but_not_return_one():
    model = mg.nn.Linear(2, 1)
    h = model.register_state_dict_post_hook(lambda m, sd, p, meta: sd.pop(p + "bias") and None)
    assert list(model.state_dict()) == ["weight"]
    h.remove()
    model.register_state_dict_post_hook(lambda m, sd, p, meta: {})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        model.state_dict()


def test_legacy_state_dict_hook_returns_a_new_dict():
    model = mg.nn.Linear(2, 1)
    model._register_state_dict_hook(lambda m, sd, p, meta: {"only": sd["weight"]})
    assert list(model.state_dict()) == ["only"]


def test_load_pre_hook_renames_its_modules_keys_and_sees_a_copy():
    lib_results = []
    for lib in (mg, torch):
        model = _model(lib)
        saved = {k.replace("1.0.", "1.0.old_"): v.clone() for k, v in model.state_dict().items()}
        saved["0.weight"] = saved["0.weight"] * 0 + 2.0
        seen = []

        def rename(mod, sd, prefix, meta, strict, missing, unexpected, errors, seen=seen):
            seen.append((prefix, sorted(sd)))
            for name in ("weight", "bias"):
                sd[prefix + name] = sd.pop(prefix + "old_" + name)

        model[1][0].register_load_state_dict_pre_hook(rename)
        result = model.load_state_dict(saved)
        lib_results.append((seen, list(result.missing_keys), sorted(saved)))
        np.testing.assert_array_equal(model[0].weight.detach().numpy(), np.full((3, 2), 2.0))
    assert lib_results[0] == lib_results[1]
    assert lib_results[0][0] == [("1.0.", ["1.0.old_bias", "1.0.old_weight"])]


def test_load_post_hook_may_clear_missing_keys_before_strict_judges_them():
    for lib in (mg, torch):
        model = _model(lib)
        saved = model.state_dict()
        del saved["1.0.bias"]
        seen = []

        def forgive(mod, keys, seen=seen):
            seen.append(list(keys.missing_keys))
            keys.missing_keys.clear()

        h = model.register_load_state_dict_post_hook(forgive)
        result = model.load_state_dict(saved)
        assert seen == [["1.0.bias"]] and result.missing_keys == []
        h.remove()
        model.register_load_state_dict_post_hook(lambda mod, keys: None)
        with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "1.0.bias"'):
            model.load_state_dict(saved)
        model.register_load_state_dict_post_hook(lambda mod, keys: keys)
        with pytest.raises(AssertionError, match="not expected to return new values"):
            model.load_state_dict(model.state_dict())


class _Counter(mg.nn.Module):
    """A layer with a learned scale and a Python-side count saved as extra state."""

    def __init__(self):
        super().__init__()
        self.scale = mg.nn.Parameter(mg.ones(1))
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x * self.scale

    def get_extra_state(self):
        return {"calls": self.calls}

    def set_extra_state(self, state):
        self.calls = state["calls"]


def test_extra_state_is_saved_and_loaded_under_extra_state():
    model = mg.nn.Sequential(_Counter(), mg.nn.Linear(1, 1))
    model(mg.ones(2, 1))
    model(mg.ones(2, 1))
    sd = model.state_dict()
    assert list(sd) == ["0.scale", "0._extra_state", "1.weight", "1.bias"]
    assert sd["0._extra_state"] == {"calls": 2}
    fresh = mg.nn.Sequential(_Counter(), mg.nn.Linear(1, 1))
    fresh.load_state_dict(sd)
    assert fresh[0].calls == 2
    del sd["0._extra_state"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "0._extra_state"'):
        fresh.load_state_dict(sd)
    # a layer without set_extra_state: the key is unexpected
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "_extra_state"'):
        mg.nn.Linear(1, 1).load_state_dict({**mg.nn.Linear(1, 1).state_dict(), "_extra_state": 1})
    with pytest.raises(RuntimeError, match="should never be called"):
        mg.nn.Linear(1, 1).get_extra_state()


def test_state_dict_hooks_get_each_layers_version_in_local_metadata():
    for lib in (mg, torch):
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        versions = []
        for m in model:
            m.register_state_dict_post_hook(
                lambda mod, sd, prefix, meta, v=versions: v.append(meta["version"])
            )
        model.state_dict()
        assert versions == [1, 2]
