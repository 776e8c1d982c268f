"""``mg._dynamo.config``'s settings have PyTorch's names and defaults."""

from __future__ import annotations

import warnings

import pytest

from minigenesis._dynamo import config

torch = pytest.importorskip("torch")


def test_every_setting_has_pytorchs_default():
    import torch._dynamo.config as theirs

    with warnings.catch_warnings():  # inline_inbuilt_nn_modules is deprecated there
        warnings.simplefilter("ignore")
        assert {n: getattr(theirs, n) for n in config.get_config_copy()} == (
            config.get_config_copy()
        )
