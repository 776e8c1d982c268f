"""The "Extending torch.func with autograd.Function" tutorial: Functions written with a separate
setup_context (forward without ctx), generate_vmap_rule = True so torch.func.vmap can batch them,
a NumPy-backed sort (NumpySort/NumpyTake with ctx.save_for_backward of the indices and an
explicit backward through another Function), torch.func.grad of a loss through them against
closed forms, vmap(grad(...)) per sample equal to a Python loop, and jacrev of a custom cube."""
import numpy as np

import minigenesis as torch
from minigenesis.func import grad, jacrev, vmap

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


class MyCube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        result = x**3
        dx = 3 * x**2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result


def my_cube(x):
    result, dx = MyCube.apply(x)
    return result


x = torch.randn(5)
assert torch.allclose(grad(lambda x: my_cube(x).sum())(x), 3 * x**2)
# second order through the Function: d/dx 3x^2 = 6x
assert torch.allclose(grad(grad(lambda x: my_cube(x).sum()))(torch.tensor(1.5)), torch.tensor(9.0))
assert torch.allclose(jacrev(my_cube)(x), torch.diag(3 * x**2))
xb = torch.randn(4, 5)
assert torch.allclose(vmap(my_cube)(xb), xb**3)


def to_numpy(tensor):
    return tensor.cpu().numpy()


class NumpySort(torch.autograd.Function):
    generate_vmap_rule = False

    @staticmethod
    def forward(x, dim):
        device = x.device
        x = to_numpy(x)
        ind = np.argsort(x, axis=dim)
        ind_inv = np.argsort(ind, axis=dim)
        result = np.take_along_axis(x, ind, axis=dim)
        return (
            torch.tensor(result, device=device),
            torch.tensor(ind, device=device),
            torch.tensor(ind_inv, device=device),
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim = inputs
        _, ind, ind_inv = output
        ctx.mark_non_differentiable(ind, ind_inv)
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output, _0, _1):
        ind, ind_inv = ctx.saved_tensors
        return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None

    @staticmethod
    def vmap(info, in_dims, x, dim):
        x_bdim, _ = in_dims
        x = x.movedim(x_bdim, 0)
        dim = dim if dim >= 0 else dim + x.dim() - 1
        return NumpySort.apply(x, dim + 1), (0, 0, 0)


class NumpyTake(torch.autograd.Function):
    generate_vmap_rule = False

    @staticmethod
    def forward(x, ind, ind_inv, dim):
        device = x.device
        x = to_numpy(x)
        ind = to_numpy(ind)
        return torch.tensor(np.take_along_axis(x, ind, dim), device=device)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, ind, ind_inv, dim = inputs
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output):
        ind, ind_inv = ctx.saved_tensors
        result = NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim)
        return result, None, None, None

    @staticmethod
    def vmap(info, in_dims, x, ind, ind_inv, dim):
        x_bdim, ind_bdim, ind_inv_bdim, _ = in_dims
        logical_dim = x.dim() if x_bdim is None else x_bdim - 1
        dim = dim if dim >= 0 else dim + logical_dim
        def maybe_expand_bdim_at_front(x, x_bdim):
            if x_bdim is None:
                return x.expand(info.batch_size, *x.shape)
            return x.movedim(x_bdim, 0)
        x = maybe_expand_bdim_at_front(x, x_bdim)
        ind = maybe_expand_bdim_at_front(ind, ind_bdim)
        ind_inv = maybe_expand_bdim_at_front(ind_inv, ind_inv_bdim)
        return NumpyTake.apply(x, ind, ind_inv, dim + 1), 0


def numpy_sort(x, dim=-1):
    result, _, _ = NumpySort.apply(x, dim)
    return result


x = torch.randn(2, 5)
s = numpy_sort(x)
assert torch.equal(s, x.sort(dim=-1).values)
# weights on sorted positions: the gradient goes back to where each value came from
w = torch.arange(5.0)
g = grad(lambda x: (numpy_sort(x) * w).sum())(x)
expected = torch.empty_like(x)
expected.scatter_(1, x.argsort(dim=-1), w.expand(2, 5))
assert torch.allclose(g, expected)
xr = x.clone().requires_grad_()
(numpy_sort(xr) * w).sum().backward()
assert torch.allclose(xr.grad, expected)
batched = vmap(numpy_sort)(torch.randn(3, 2, 5))
assert batched.shape == (3, 2, 5) and torch.all(batched.diff(dim=-1) >= 0)
per_sample = vmap(grad(lambda row: (numpy_sort(row) * w).sum()))(x)
assert torch.allclose(per_sample, expected)
print("sorted:", s[0].tolist())
print("gradient of the position-weighted sort:", g[0].tolist())
