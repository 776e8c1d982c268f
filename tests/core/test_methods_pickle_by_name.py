"""Every Tensor method (and a lazy module's __init__) pickles by name and comes back as itself,
as pickle.dumps(torch.Tensor.add) does: a model or a spawned DataLoader that keeps a method
(self.reduce = torch.Tensor.sum, map(mg.Tensor.mul, ...)) sends it by pickle."""

import pickle
import types

import numpy as np

import minigenesis as mg


def _round_trip_failures(cls):
    failed = []
    for name in dir(cls):
        fn = getattr(cls, name)
        if not isinstance(fn, types.FunctionType):
            continue
        try:
            back = pickle.loads(pickle.dumps(fn))
        except (pickle.PicklingError, AttributeError, TypeError) as error:
            failed.append(f"{name}: {error}")
            continue
        if back is not fn:
            failed.append(f"{name}: came back as another object")
    return failed


def test_every_tensor_method_pickles_by_name_and_comes_back_as_itself():
    failed = _round_trip_failures(mg.Tensor)
    assert not failed, failed[:10]


def test_every_lazy_module_class_and_its_init_pickle_by_name():
    lazies = [
        getattr(mg.nn, n) for n in dir(mg.nn) if n.startswith("Lazy") and n != "LazyModuleMixin"
    ]
    assert len(lazies) >= 13
    for cls in lazies:
        assert pickle.loads(pickle.dumps(cls)) is cls
        assert pickle.loads(pickle.dumps(cls.__init__)) is cls.__init__, cls


def test_pickled_tensor_methods_compute_what_they_computed():
    ops = pickle.loads(
        pickle.dumps([mg.Tensor.mul, mg.Tensor.multiply, mg.Tensor.amax, mg.Tensor.__iadd__])
    )
    x = mg.tensor([[1.0, -2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(ops[0](x, 3).numpy(), [[3.0, -6.0], [9.0, 12.0]])
    np.testing.assert_array_equal(ops[1](x, x).numpy(), [[1.0, 4.0], [9.0, 16.0]])
    np.testing.assert_array_equal(ops[2](x, 0).numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(ops[3](x, 1).numpy(), [[2.0, -1.0], [4.0, 5.0]])
