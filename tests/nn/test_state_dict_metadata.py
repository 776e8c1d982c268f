"""state_dict() records each module's version in ``_metadata`` (by prefix), as PyTorch does, and
the record survives a weights-only save and load."""

import io

from minigenesis import load, nn, save
from minigenesis.nn.utils import spectral_norm


def _model() -> nn.Sequential:
    return nn.Sequential(spectral_norm(nn.Linear(2, 3)), nn.BatchNorm1d(3))


def test_state_dict_records_each_modules_version_by_prefix():
    meta = _model().state_dict()._metadata
    assert list(meta) == ["", "0", "1"]
    assert meta["1"]["version"] == 2  # BatchNorm: the version with num_batches_tracked
    assert meta["0"]["spectral_norm"] == {"weight.version": 1}


def test_state_dict_metadata_survives_a_weights_only_save_and_load():
    model = _model()
    buffer = io.BytesIO()
    save(model.state_dict(), buffer)
    buffer.seek(0)
    loaded = load(buffer, weights_only=True)
    assert loaded._metadata == model.state_dict()._metadata
    copy = _model()
    copy.load_state_dict(loaded)
    assert all((copy.state_dict()[k] == v).all() for k, v in loaded.items())


def test_batchnorm_state_of_the_current_version_reports_a_missing_num_batches_tracked():
    model = _model()
    state = model.state_dict()
    del state["1.num_batches_tracked"]
    result = model.load_state_dict(state, strict=False)
    assert result.missing_keys == ["1.num_batches_tracked"]
    state._metadata["1"]["version"] = 1  # saved before num_batches_tracked existed: filled in
    assert model.load_state_dict(state).missing_keys == []


def test_load_state_dict_result_prints_as_pytorch_prints_it():
    model = _model()
    assert repr(model.load_state_dict(model.state_dict())) == "<All keys matched successfully>"
    state = model.state_dict()
    state["extra"] = state["1.running_mean"]
    result = model.load_state_dict(state, strict=False)
    assert str(result) == "_IncompatibleKeys(missing_keys=[], unexpected_keys=['extra'])"
