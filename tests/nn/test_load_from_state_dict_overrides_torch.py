"""``_load_from_state_dict`` overrides against PyTorch: the same layer written for both engines
sees the same prefixes, versions and slices, and load_state_dict reports the same keys."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigenesis as mg  # noqa: E402
from minigenesis import nn  # noqa: E402


def _layer_class(base, log: list):
    class Legacy(base):
        _version = 3

        def __init__(self, make_param) -> None:
            super().__init__()
            self.scale = make_param()

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, *rest):
            log.append((prefix, local_metadata.get("version"), sorted(state_dict)))
            if prefix + "old_scale" in state_dict:
                state_dict[prefix + "scale"] = state_dict.pop(prefix + "old_scale")
            super()._load_from_state_dict(state_dict, prefix, local_metadata, *rest)

    return Legacy


def _both(log_mg: list, log_torch: list):
    mg_layer = _layer_class(nn.Module, log_mg)
    torch_layer = _layer_class(torch.nn.Module, log_torch)
    ours = nn.Sequential(nn.Linear(2, 2), mg_layer(lambda: nn.Parameter(mg.zeros(2))))
    theirs = torch.nn.Sequential(
        torch.nn.Linear(2, 2), torch_layer(lambda: torch.nn.Parameter(torch.zeros(2)))
    )
    return ours, theirs


def test_override_sees_what_pytorch_gives_it_and_keys_match():
    log_mg, log_torch = [], []
    ours, theirs = _both(log_mg, log_torch)
    assert ours.state_dict()._metadata == theirs.state_dict()._metadata
    values = {"0.weight": np.eye(2), "1.old_scale": np.array([2.0, 3.0]), "1.extra": np.ones(1)}
    mg_state = {k: mg.tensor(v, dtype=mg.float32) for k, v in values.items()}
    torch_state = {k: torch.tensor(v, dtype=torch.float32) for k, v in values.items()}
    result_mg = ours.load_state_dict(mg_state, strict=False)
    result_torch = theirs.load_state_dict(torch_state, strict=False)
    assert log_mg == log_torch
    assert result_mg.missing_keys == result_torch.missing_keys
    assert result_mg.unexpected_keys == result_torch.unexpected_keys
    np.testing.assert_array_equal(ours[1].scale.detach().numpy(), [2.0, 3.0])
    with pytest.raises(RuntimeError) as mg_error:
        ours.load_state_dict(mg_state)
    with pytest.raises(RuntimeError) as torch_error:
        theirs.load_state_dict(torch_state)
    assert str(mg_error.value) == str(torch_error.value)
