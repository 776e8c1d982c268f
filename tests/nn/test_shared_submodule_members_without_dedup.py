"""named_parameters / named_buffers with ``remove_duplicate=False`` list a shared submodule's
members under every name it is reachable by, as PyTorch does (its traversal also walks the
module tree without removing duplicates)."""

from minigenesis import nn


def test_named_parameters_without_dedup_walk_a_shared_layer_under_each_name() -> None:
    layer = nn.Linear(1, 1)
    model = nn.Sequential(layer, layer)
    names = [n for n, _ in model.named_parameters(remove_duplicate=False)]
    assert names == ["0.weight", "0.bias", "1.weight", "1.bias"]
    # the default still lists each Parameter once
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias"]
    assert len(list(model.parameters())) == 2


def test_named_buffers_without_dedup_walk_a_shared_layer_under_each_name() -> None:
    norm = nn.BatchNorm1d(2)
    model = nn.Sequential(norm, norm)
    names = [n for n, _ in model.named_buffers(remove_duplicate=False)]
    per_layer = ["running_mean", "running_var", "num_batches_tracked"]
    assert names == [f"0.{n}" for n in per_layer] + [f"1.{n}" for n in per_layer]
    assert [n for n, _ in model.named_buffers()] == [f"0.{n}" for n in per_layer]
