"""What a learner sees when printing: tensors, shapes, dtypes, devices, generators.

The expected strings are PyTorch's output for the same tensors (``tests/parity/test_printing.py``
checks many more against torch itself), with our module name where a dtype is named.
"""

import pytest

import minigenesis as mg


@pytest.fixture(autouse=True)
def default_printoptions():
    yield
    mg.set_printoptions(profile="default")


def test_a_scalar_prints_with_four_decimals():
    assert repr(mg.tensor(5.5)) == "tensor(5.5000)"
    assert str(mg.tensor(5.5)) == "tensor(5.5000)"
    assert repr(mg.tensor(3)) == "tensor(3)"


def test_whole_floats_print_with_a_trailing_dot_and_ints_without():
    assert repr(mg.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(mg.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(mg.tensor([True, False])) == "tensor([ True, False])"


def test_nan_inf_and_negative_zero():
    nan, inf = float("nan"), float("inf")
    assert repr(mg.tensor([nan, inf, -inf, -0.0, 2.0])) == "tensor([nan, inf, -inf, -0., 2.])"
    assert repr(mg.tensor([nan, 0.5])) == "tensor([   nan, 0.5000])"
    assert repr(mg.tensor(-0.0)) == "tensor(-0.)"


def test_scientific_mode_when_the_values_span_more_than_three_decades():
    assert repr(mg.tensor([1e-5, 1.0, 1e3])) == "tensor([1.0000e-05, 1.0000e+00, 1.0000e+03])"
    assert repr(mg.tensor(1e10)) == "tensor(1.0000e+10)"
    assert repr(mg.tensor([[1.5, -2.25, 3.0], [100.0, 0.001, -7.0]])) == (
        "tensor([[ 1.5000e+00, -2.2500e+00,  3.0000e+00],\n"
        "        [ 1.0000e+02,  1.0000e-03, -7.0000e+00]])"
    )


def test_columns_align_and_rows_wrap_at_80_characters():
    assert repr(mg.arange(12).reshape(2, 2, 3)) == (
        "tensor([[[ 0,  1,  2],\n"
        "         [ 3,  4,  5]],\n"
        "\n"
        "        [[ 6,  7,  8],\n"
        "         [ 9, 10, 11]]])"
    )
    assert repr(mg.arange(12.0) / 7) == (
        "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
        "        1.2857, 1.4286, 1.5714])"
    )


def test_more_than_a_thousand_elements_are_summarized():
    assert repr(mg.arange(2000)) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"


def test_suffixes_name_the_dtype_and_the_autograd_state():
    assert repr(mg.tensor([1, 2], dtype=mg.int32)) == "tensor([1, 2], dtype=minigenesis.int32)"
    assert repr(mg.tensor([1.5], dtype=mg.bfloat16)) == (
        "tensor([1.5000], dtype=minigenesis.bfloat16)"
    )
    x = mg.tensor([[1.0, 2.0]], dtype=mg.float16, requires_grad=True)
    assert repr(x) == "tensor([[1., 2.]], dtype=minigenesis.float16, requires_grad=True)"
    assert repr(x * 2) == "tensor([[2., 4.]], dtype=minigenesis.float16, grad_fn=<MulBackward0>)"
    assert repr(mg.nn.Parameter(mg.ones(2))) == (
        "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    )


def test_empty_tensors_print_their_size_and_dtype():
    assert repr(mg.zeros(0)) == "tensor([])"
    assert repr(mg.zeros(2, 0, dtype=mg.int64)) == (
        "tensor([], size=(2, 0), dtype=minigenesis.int64)"
    )


def test_set_printoptions_changes_precision_threshold_and_mode():
    mg.set_printoptions(precision=2)
    assert repr(mg.tensor([1.23456])) == "tensor([1.23])"
    mg.set_printoptions(threshold=5)
    assert repr(mg.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    mg.set_printoptions(sci_mode=True)
    assert repr(mg.tensor([1.5])) == "tensor([1.50e+00])"  # precision 2 still holds
    mg.set_printoptions(profile="short")
    assert mg.get_printoptions() == dict(
        precision=2, threshold=1000, edgeitems=2, linewidth=80, sci_mode=None
    )
    mg.set_printoptions(profile="default")
    assert repr(mg.tensor([1.23456])) == "tensor([1.2346])"
    with mg.printoptions(precision=1):
        assert repr(mg.tensor([1.23456])) == "tensor([1.2])"
    assert repr(mg.tensor([1.23456])) == "tensor([1.2346])"


def test_set_printoptions_names_an_unknown_profile():
    with pytest.raises(ValueError, match="profile 'long'.*'default', 'short', 'full'"):
        mg.set_printoptions(profile="long")


def test_shapes_dtypes_and_devices_print_with_our_module_name():
    assert repr(mg.zeros(2, 3).shape) == "minigenesis.Size([2, 3])"
    assert repr(mg.float32) == str(mg.float32) == "minigenesis.float32"
    assert repr(mg.zeros(2).device) == "device(type='cpu')"
    assert str(mg.zeros(2).device) == "cpu"
    assert repr(mg.device("cuda", 0)) == "device(type='cuda', index=0)"


def test_manual_seed_returns_the_default_generator():
    g = mg.manual_seed(7)
    assert g is mg.default_generator and g.initial_seed() == 7 == mg.initial_seed()
    first = mg.rand(3)
    g.manual_seed(7)  # reseeding through the returned generator repeats the draws
    assert mg.equal(mg.rand(3), first)


def test_tensors_made_in_inference_mode_are_inference_tensors_as_in_torch():
    torch = pytest.importorskip("torch")

    def kinds(lib):
        x = lib.ones(2)
        with lib.inference_mode():
            y, z = x * 2, lib.zeros(2)
            with lib.inference_mode(False):
                w = x * 3
        with lib.no_grad():
            v = x * 4
        return [t.is_inference() for t in (x, y, z, w, v)]

    assert kinds(mg) == kinds(torch) == [False, True, True, False, False]


def test_a_0d_tensor_formats_as_its_python_number():
    # Tensor.__format__ in PyTorch: a 0-d tensor formats as .item(), with or without a spec.
    assert f"{mg.tensor(3.14159):.2f}" == "3.14"
    assert f"{mg.tensor(2.5)}" == "2.5" and format(mg.tensor(1.0), "") == "1.0"
    assert f"{mg.tensor(7)}" == "7" and f"{mg.tensor(7, dtype=mg.int32):>4}" == "   7"
    assert f"{mg.tensor(True)}" == "True"
    assert f"{mg.tensor(1.5, requires_grad=True) * 2}" == "3.0"  # no grad_fn suffix either
    assert f"{mg.tensor(0.5, dtype=mg.float16):.3e}" == "5.000e-01"


def test_str_and_percent_s_of_a_0d_tensor_keep_the_tensor_repr():
    t = mg.tensor(2.5)
    assert str(t) == "%s" % t == "%r" % (t,) == "tensor(2.5000)"  # noqa: UP031 (under test)


def test_only_0d_plain_tensors_take_a_format_spec():
    assert f"{mg.tensor([1.0, 2.0])}" == "tensor([1., 2.])"
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        format(mg.tensor([1.5]), ".2f")  # one element, but 1-d
    p = mg.nn.Parameter(mg.tensor(1.5))
    assert f"{p}" == "Parameter containing:\ntensor(1.5000, requires_grad=True)"
    with pytest.raises(TypeError, match="Parameter.__format__"):
        format(p, ".2f")
