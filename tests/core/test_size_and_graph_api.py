"""mg.Size (the type of .shape and .size()) and grad_fn.next_functions, against PyTorch's
behaviour."""

from __future__ import annotations

import gc
import pickle
import weakref

import pytest

import minigenesis as mg


def test_shape_and_size_are_sizes_that_behave_as_tuples():
    x = mg.zeros(2, 3)
    for s in (x.shape, x.size()):
        assert type(s) is mg.Size and isinstance(s, tuple)
        assert s == (2, 3) and s == mg.Size([2, 3]) and hash(s) == hash((2, 3))
        a, b = s
        assert (a, b) == (2, 3) and s[-1] == 3 and len(s) == 2
    assert x.size(1) == 3 and type(x.size(1)) is int
    assert repr(x.shape) == str(x.shape) == "minigenesis.Size([2, 3])"
    assert repr(mg.zeros(()).shape) == "minigenesis.Size([])"


def test_size_arithmetic_and_numel_follow_pytorch():
    torch = pytest.importorskip("torch")
    ours, theirs = mg.Size([2, 3, 4]), torch.Size([2, 3, 4])
    cases = [
        lambda s: s[1:],
        lambda s: s + (5,),
        lambda s: (1,) + s,
        lambda s: s * 2,
        lambda s: 2 * s,
        lambda s: s[0],
    ]
    for case in cases:
        got, want = case(ours), case(theirs)
        assert tuple(got) == tuple(want) if isinstance(want, tuple) else got == want
        assert isinstance(got, mg.Size) == isinstance(want, torch.Size)
    assert ours.numel() == theirs.numel() == 24 and mg.Size([]).numel() == 1
    assert repr(ours) == repr(theirs).replace("torch", "minigenesis")


def test_size_is_made_from_ints_only_and_pickles():
    assert mg.Size(range(3)) == (0, 1, 2)
    with pytest.raises(TypeError, match="must be an int, got float 2.5"):
        mg.Size([2.5])
    s = pickle.loads(pickle.dumps(mg.Size([4, 5])))
    assert type(s) is mg.Size and s == (4, 5)
    assert mg.zeros(mg.Size([2, 2])).shape == (2, 2)  # a Size is a valid shape argument


def test_next_functions_walk_the_graph_as_in_pytorch():
    torch = pytest.importorskip("torch")

    def walk(lib):
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2) * 3.0
        c = lib.ones(2, requires_grad=True)
        y = a * b + c
        add = y.grad_fn
        mul, leaf_c = [fn for fn, _ in add.next_functions]
        leaf_a, none = [fn for fn, _ in mul.next_functions]
        return (
            type(mul).__name__.startswith("Mul"),
            leaf_c.variable is c,
            leaf_a.variable is a,
            none is None,
            leaf_a.next_functions == (),
            type(leaf_a).__name__,
        )

    assert walk(mg) == walk(torch)


def test_a_leafs_accumulate_grad_node_is_one_object_and_does_not_keep_it_alive():
    a = mg.ones(2, requires_grad=True)
    n1 = (a * 2).grad_fn.next_functions[0][0]
    n2 = (a + 1).grad_fn.next_functions[0][0]
    assert n1 is n2 and n1.variable is a
    ref = weakref.ref(a)
    del a, n2
    gc.collect()
    assert ref() is None  # leaf -> node is strong, node -> leaf is weak: no cycle
    assert n1.variable is None
