"""data_ptr and storages give the addresses of a tensor's memory (views share them, a slice is
offset * element_size further on); apply_ and map_ run a Python callable on every element."""

import warnings

import numpy as np
import pytest

import minigenesis as mg


def test_data_ptr_is_equal_for_views_at_offset_zero_and_moves_by_offset_times_itemsize():
    x = mg.zeros(4, 5, dtype=mg.float64)
    assert x.data_ptr() == x.view(20).data_ptr() == x.t().data_ptr() == x[0].data_ptr()
    assert x[1].data_ptr() - x.data_ptr() == 5 * 8
    assert x[2:, 3:].data_ptr() - x.data_ptr() == (2 * 5 + 3) * 8
    assert x.clone().data_ptr() != x.data_ptr()
    assert mg.empty(0).data_ptr() == 0
    assert x.data_ptr() == x._data.__array_interface__["data"][0]


def test_untyped_storage_is_shared_by_views_and_counts_bytes():
    x = mg.zeros(3, 4, dtype=mg.float32)
    s = x.untyped_storage()
    assert s.nbytes() == s.size() == len(s) == 3 * 4 * 4
    for view in (x[1:], x[:, 2], x.t(), x.reshape(12)):
        assert view.untyped_storage().data_ptr() == s.data_ptr() == x.data_ptr()
        assert view.untyped_storage().nbytes() == 48
    assert x[2].data_ptr() - s.data_ptr() == x[2].storage_offset() * x.element_size()
    assert mg.empty(0).untyped_storage().data_ptr() == 0


def test_storage_counts_elements_of_the_dtype_and_warns_it_is_deprecated():
    x = mg.zeros(3, 4, dtype=mg.int16)
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        st = x[1:].storage()
    assert st.size() == 12 and st.nbytes() == 24 and st.element_size() == 2
    assert st.dtype == mg.int16 and st.data_ptr() == x.data_ptr()


def test_apply_maps_every_element_through_a_python_callable_in_place():
    x = mg.arange(6.0).reshape(2, 3).t()  # not contiguous: written back to the same elements
    expected = np.arange(6.0).reshape(2, 3).T ** 2 + 1
    assert x.apply_(lambda v: v * v + 1) is x
    np.testing.assert_array_equal(x.numpy(), expected)
    b = mg.arange(6.0)
    b.apply_(lambda v: v > 2)  # a bool result is a number written in x's dtype
    np.testing.assert_array_equal(b.numpy(), [0, 0, 0, 1, 1, 1])


def test_apply_bumps_the_version_so_saved_values_are_protected():
    x = mg.arange(3.0)
    v = x._version
    x.apply_(float)
    assert x._version > v


def test_map_combines_with_a_broadcast_tensor():
    x = mg.arange(6.0).reshape(2, 3)
    x.map_(mg.tensor([10.0, 20.0, 30.0]), lambda a, b: a * b)
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3) * [10, 20, 30])
    with pytest.raises(RuntimeError, match="expanded size"):
        x.map_(mg.ones(2), lambda a, b: a)


def test_apply_and_map_are_refused_on_tensors_that_require_grad_even_under_no_grad():
    x = mg.ones(3, requires_grad=True)
    msg = r"Can't call apply_\(\) on Variable that requires grad. Use var.detach\(\).apply_\(\)"
    with pytest.raises(RuntimeError, match=msg):
        x.apply_(lambda v: v)
    with mg.no_grad(), pytest.raises(RuntimeError, match=r"Can't call map_\(\)"):
        x.map_(mg.ones(3), lambda a, b: a)
    with pytest.raises(TypeError, match="must be real number, not str"):
        mg.ones(2).apply_(lambda v: "a")


def test_typed_storage_warning_is_a_user_warning_once_caught():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mg.ones(2).storage()
    assert [w.category for w in caught] == [UserWarning]


def test_storage_offset_counts_elements_from_the_start_of_the_storage():
    x = mg.zeros(4, 5)
    assert x.storage_offset() == x.t().storage_offset() == 0
    assert x[1].storage_offset() == 5 and x[2:, 3].storage_offset() == 13
    assert x[1][2:].storage_offset() == 7


def test_strided_views_share_their_base_storage_and_count_their_offset_from_it():
    # as_strided, unfold and diagonal build their views through NumPy's stride tricks, which
    # hold the base array in a wrapper object; the storage is still the base's.
    x = mg.arange(20.0).reshape(4, 5)
    views = {
        3: x.as_strided((2, 2), (1, 1), 3),
        5: x[1:].unfold(1, 2, 1),
        6: x[1:, 1:].diagonal(),
    }
    for offset, view in views.items():
        assert view.storage_offset() == offset
        assert view.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert view.untyped_storage().nbytes() == x.untyped_storage().nbytes()
        assert view.data_ptr() - x.data_ptr() == offset * x.element_size()
