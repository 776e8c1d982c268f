"""ParameterDict built from (or updated with) a plain dict takes its keys in sorted order, as
PyTorch's does; an OrderedDict, a ParameterDict or a list of pairs keeps its own order. The
order decides parameters(), state_dict() and so the optimizer's parameter order."""

from collections import OrderedDict

import minigenesis as mg
from minigenesis import nn


def _param(n: int) -> nn.Parameter:
    return nn.Parameter(mg.zeros(n))


def test_parameter_dict_from_a_plain_dict_sorts_its_keys() -> None:
    pd = nn.ParameterDict({"b": _param(1), "a": _param(2), "c": _param(3)})
    assert list(pd.keys()) == ["a", "b", "c"]
    assert [n for n, _ in pd.named_parameters()] == ["a", "b", "c"]
    assert [tuple(p.shape) for p in pd.parameters()] == [(2,), (1,), (3,)]


def test_parameter_dict_update_with_a_plain_dict_appends_sorted_keys() -> None:
    pd = nn.ParameterDict([("z", _param(1))])
    pd.update({"y": _param(1), "x": _param(1)})
    assert list(pd) == ["z", "x", "y"]


def test_parameter_dict_keeps_the_order_of_ordered_inputs() -> None:
    ordered = OrderedDict([("b", _param(1)), ("a", _param(1))])
    assert list(nn.ParameterDict(ordered)) == ["b", "a"]
    assert list(nn.ParameterDict([("b", _param(1)), ("a", _param(1))])) == ["b", "a"]
    assert list(nn.ParameterDict(nn.ParameterDict(ordered))) == ["b", "a"]


def test_reversed_parameter_dict_yields_keys_last_inserted_first() -> None:
    pd = nn.ParameterDict([("b", _param(1)), ("a", _param(1))])
    pd["c"] = _param(1)
    assert list(reversed(pd)) == ["c", "a", "b"]
