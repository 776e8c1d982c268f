"""The Python custom operators tutorial (PyTorch 2.4+): torch.library.custom_op wrapping a NumPy
kernel with mutates_args=(), register_fake for shape propagation, register_autograd with a
setup_context, a mutating op with mutates_args, calling through torch.ops.<namespace>.<name>, and
torch.library.opcheck on sample inputs; gradients match the closed form."""
import numpy as np

import minigenesis as torch
from minigenesis import Tensor


@torch.library.custom_op("mylib::numpy_sin", mutates_args=())
def numpy_sin(x: Tensor) -> Tensor:
    x_np = x.cpu().numpy()
    y_np = np.sin(x_np)
    return torch.from_numpy(y_np).to(device=x.device)


@numpy_sin.register_fake
def _(x):
    return torch.empty_like(x)


def setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)


def backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * x.cos()


numpy_sin.register_autograd(backward, setup_context=setup_context)


@torch.library.custom_op("mylib::numpy_sin_", mutates_args={"x"})
def numpy_sin_(x: Tensor) -> None:
    x_np = x.numpy()
    np.sin(x_np, out=x_np)


@torch.library.custom_op("mylib::crop", mutates_args=())
def crop(pic: Tensor, box: list[int]) -> Tensor:
    a, b, c, d = box
    return pic[..., b:d, a:c].clone()


@torch.library.register_fake("mylib::crop")
def _(pic, box):
    channels = pic.shape[0]
    x0, y0, x1, y1 = box
    return pic.new_empty(channels, y1 - y0, x1 - x0)


x = torch.randn(3, requires_grad=True)
y = numpy_sin(x)
(grad_x,) = torch.autograd.grad(y.sum(), x)
assert torch.allclose(y, x.sin()) and torch.allclose(grad_x, x.cos())
assert torch.allclose(torch.ops.mylib.numpy_sin(x), x.sin())
assert torch.allclose(torch.ops.mylib.numpy_sin.default(x), x.sin())

z = torch.randn(4)
expected = z.sin()
numpy_sin_(z)
assert torch.allclose(z, expected)

pic = torch.arange(48.0).reshape(3, 4, 4)
out = crop(pic, [1, 0, 3, 2])
assert out.shape == (3, 2, 2) and out[0].tolist() == [[1.0, 2.0], [5.0, 6.0]]

examples = [[torch.randn(3)], [torch.randn(2, 3, requires_grad=True)]]
for example in examples:
    torch.library.opcheck(numpy_sin, example)
print("custom ops:", numpy_sin, "grad ok:", grad_x.shape)
