"""register_parameter / register_buffer refuse a wrong value type with a TypeError worded as
PyTorch's ("cannot assign '<type>' object to ..."), so code matching on it works the same."""

import pytest

import minigenesis as mg
from minigenesis import nn


def test_register_parameter_of_a_plain_tensor_names_the_type_and_the_parameter() -> None:
    with pytest.raises(TypeError, match=r"^cannot assign 'Tensor' object to parameter 'w'"):
        nn.Module().register_parameter("w", mg.zeros(1))


def test_register_buffer_of_a_number_names_the_type_and_the_buffer() -> None:
    with pytest.raises(TypeError, match=r"^cannot assign 'int' object to buffer 'b'"):
        nn.Module().register_buffer("b", 3)


def test_registering_before_module_init_is_an_attribute_error() -> None:
    class Early(nn.Module):
        def __init__(self) -> None:
            self.register_buffer("b", mg.zeros(1))

    with pytest.raises(AttributeError, match=r"^cannot assign buffer before Module.__init__"):
        Early()
