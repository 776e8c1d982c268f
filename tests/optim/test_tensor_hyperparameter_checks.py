"""Constructor refusals for tensor hyper-parameters, with PyTorch's exception type and words:
a tensor lr must hold one element (every optimizer); Adam/AdamW take betas as two floats or two
tensors, and refuse a tensor lr or beta with foreach=True unless capturable=True."""

from __future__ import annotations

import pytest

import minigenesis as mg

ALL = ["SGD", "Adam", "AdamW", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "RMSprop"]
ALL += ["Rprop", "ASGD", "LBFGS"]


def _param():
    return mg.zeros(3, requires_grad=True)


@pytest.mark.parametrize("name", ALL)
def test_a_tensor_lr_of_two_elements_is_a_value_error(name):
    with pytest.raises(ValueError, match="^Tensor lr must be 1-element$"):
        getattr(mg.optim, name)([_param()], lr=mg.tensor([0.1, 0.2]))


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_a_tensor_lr_with_foreach_needs_capturable(name):
    cls = getattr(mg.optim, name)
    with pytest.raises(ValueError, match="lr as a Tensor is not supported for capturable=False"):
        cls([_param()], lr=mg.tensor(0.1), foreach=True)
    cls([_param()], lr=mg.tensor(0.1), foreach=True, capturable=True)  # accepted


@pytest.mark.parametrize(
    "betas", [(mg.tensor(0.9), 0.99), (0.9, mg.tensor(0.99)), (0, 0.999), (0.9, 1)]
)
def test_adam_betas_must_be_both_floats_or_both_tensors(betas):
    with pytest.raises(ValueError, match="^betas must be either both floats or both Tensors$"):
        mg.optim.Adam([_param()], betas=betas)


def test_adam_takes_two_one_element_tensor_betas_as_their_values():
    p = _param()
    opt = mg.optim.Adam([p], betas=(mg.tensor(0.5), mg.tensor(0.25)))
    assert opt.param_groups[0]["betas"] == (0.5, 0.25)
    with pytest.raises(ValueError, match=r"^Tensor betas\[1\] must be 1-element$"):
        mg.optim.Adam([p], betas=(mg.tensor(0.5), mg.tensor([0.25, 0.5])))
    with pytest.raises(ValueError, match=r"betas\[0\] as a Tensor is not supported"):
        mg.optim.Adam([p], betas=(mg.tensor(0.5), mg.tensor(0.25)), foreach=True)
