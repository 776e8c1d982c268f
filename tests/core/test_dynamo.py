"""``mg._dynamo`` (``torch._dynamo``): what programs touch around ``torch.compile`` works as in
PyTorch - ``config`` holds PyTorch's defaults, keeps what is set, rejects unknown names and
restores what ``patch`` changed; ``disable`` and ``reset`` leave results unchanged."""

from __future__ import annotations

import subprocess
import sys

import pytest

import minigenesis as mg
from minigenesis._dynamo import config


def test_dynamo_is_reachable_as_an_attribute_and_by_import_path():
    import minigenesis._dynamo.config as by_path

    assert mg._dynamo.config is by_path is config


def test_config_starts_from_pytorchs_defaults():
    # a fresh process, so no other test's setting is seen
    code = (
        "import minigenesis as mg; c = mg._dynamo.config;"
        "print(c.suppress_errors, c.cache_size_limit, c.recompile_limit, c.verbose,"
        " c.accumulated_cache_size_limit, c.capture_scalar_outputs, c.optimize_ddp)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "8", "8", "False", "256", "False", "True"]


def test_a_setting_reads_back_and_cache_size_limit_is_recompile_limits_old_name():
    before = config.get_config_copy()
    try:
        config.suppress_errors = True
        assert config.suppress_errors is True
        config.cache_size_limit = 64
        assert config.recompile_limit == 64
        config.recompile_limit = 3
        assert config.cache_size_limit == 3
    finally:
        for name in ("suppress_errors", "recompile_limit"):
            setattr(config, name, before[name])


def test_an_unknown_setting_raises_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="torch._dynamo.config.suppress_error does not"):
        config.suppress_error = True  # the typo is not silently kept
    with pytest.raises(AttributeError, match="no_such_flag"):
        _ = config.no_such_flag


def test_patch_sets_for_a_block_and_restores_after_in_its_three_spellings():
    assert config.verbose is False and config.suppress_errors is False
    with config.patch(verbose=True):
        assert config.verbose is True
    with config.patch("suppress_errors", True), config.patch({"recompile_limit": 1}):
        assert (config.suppress_errors, config.cache_size_limit) == (True, 1)
    assert (config.verbose, config.suppress_errors, config.recompile_limit) == (False, False, 8)


def test_patch_restores_after_an_exception_and_works_as_a_decorator():
    with pytest.raises(ValueError), config.patch(verbose=True):
        raise ValueError
    assert config.verbose is False

    @config.patch(suppress_errors=True)
    def read():
        return config.suppress_errors

    assert (read(), config.suppress_errors) == (True, False)


def test_patch_rejects_unknown_names_and_mixed_spellings():
    with pytest.raises(AttributeError, match="nope"), config.patch(nope=1):
        pass
    with pytest.raises(AssertionError, match="both positional and keyword"):
        config.patch({"verbose": True}, suppress_errors=True)
    with pytest.raises(AssertionError, match="must be a dict"):
        config.patch("verbose")
    assert config.verbose is False


def test_disable_in_all_its_forms_returns_a_function_computing_the_same():
    def double(x):
        return 2 * x

    @mg._dynamo.disable
    def bare(x):
        return 2 * x

    @mg._dynamo.disable(recursive=False)
    def with_options(x):
        return 2 * x

    x = mg.arange(4.0)
    for fn in (mg._dynamo.disable(double), bare, with_options):
        assert mg.equal(fn(x), double(x))
    with pytest.raises(TypeError, match="callable"):
        mg._dynamo.disable(3)


def test_reset_between_compiles_leaves_the_model_and_its_results_unchanged():
    mg.manual_seed(0)
    model = mg.nn.Linear(3, 2)
    x = mg.randn(4, 3)
    with pytest.warns(UserWarning, match="eagerly"):
        first = mg.compile(model)(x)
    mg._dynamo.reset()
    assert mg.equal(mg.compile(model)(x), first) and not mg._dynamo.is_compiling()


def test_marking_dims_checks_them_against_the_tensor():
    x = mg.zeros(2, 3)
    mg._dynamo.mark_dynamic(x, 0)
    mg._dynamo.maybe_mark_dynamic(x, [0, 1])
    mg._dynamo.mark_static(x)
    with pytest.raises(IndexError, match="out of range"):
        mg._dynamo.mark_dynamic(x, 2)
    assert mg._dynamo.allow_in_graph(len) is len
