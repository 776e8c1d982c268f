"""The torch.func "Neural Tangent Kernels" tutorial on a small CNN: parameters detached into a
dict, fnet_single(params, x) by functional_call on one unsqueezed image, the empirical NTK by
Jacobian contraction (vmap(jacrev(fnet_single)) over both batches, flatten(2), einsum
'Naf,Mbf->NMab', summed over parameters) and by NTK-vector products (vmap over vmap of vjp/jvp);
both equal a loop of autograd.grad rows, the 'trace' and 'diagonal' compute modes agree, and the
kernel of a batch with itself is symmetric positive semi-definite."""
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.func import functional_call, jacrev, jvp, vjp, vmap

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, (3, 3))
        self.conv2 = nn.Conv2d(4, 4, (3, 3))
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        x = self.conv1(x)
        x = x.relu()
        x = self.conv2(x)
        x = x.relu()
        x = x.flatten(1)
        return self.fc(x)


net = CNN()
x_train = torch.randn(5, 1, 8, 8)
x_test = torch.randn(4, 1, 8, 8)
params = {k: v.detach() for k, v in net.named_parameters()}


def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)


def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2, compute="full"):
    jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
    jac1 = jac1.values()
    jac1 = [j.flatten(2) for j in jac1]
    jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
    jac2 = jac2.values()
    jac2 = [j.flatten(2) for j in jac2]
    einsum_expr = {"full": "Naf,Mbf->NMab", "trace": "Naf,Maf->NM", "diagonal": "Naf,Maf->NMa"}[compute]
    result = torch.stack([torch.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
    return result.sum(0)


def empirical_ntk_ntk_vps(func, params, x1, x2):
    def get_ntk(x1, x2):
        def func_x1(params):
            return func(params, x1)

        def func_x2(params):
            return func(params, x2)

        output, vjp_fn = vjp(func_x1, params)

        def get_ntk_slice(vec):
            vjps = vjp_fn(vec)
            _, jvps = jvp(func_x2, (params,), vjps)
            return jvps

        basis = torch.eye(output.numel(), dtype=output.dtype).view(output.numel(), -1)
        return vmap(get_ntk_slice)(basis)

    result = vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2)
    return result


ntk_jac = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
ntk_vps = empirical_ntk_ntk_vps(fnet_single, params, x_train, x_test)
assert ntk_jac.shape == (5, 4, 3, 3)
assert torch.allclose(ntk_jac, ntk_vps, atol=1e-10)

# the same kernel from a loop of autograd.grad rows: J(x) has one row per output
def jacobian_rows(x):
    rows = []
    for a in range(3):
        out = net(x.unsqueeze(0))[0, a]
        grads = torch.autograd.grad(out, list(net.parameters()))
        rows.append(torch.cat([g.flatten() for g in grads]))
    return torch.stack(rows)


J1 = torch.stack([jacobian_rows(x) for x in x_train])
J2 = torch.stack([jacobian_rows(x) for x in x_test])
ntk_loop = torch.einsum("naf,mbf->nmab", J1, J2)
assert torch.allclose(ntk_jac, ntk_loop, atol=1e-10)

trace = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, "trace")
diagonal = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, "diagonal")
assert torch.allclose(trace, ntk_jac.diagonal(dim1=-2, dim2=-1).sum(-1))
assert torch.allclose(diagonal, ntk_jac.diagonal(dim1=-2, dim2=-1))

k = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_train, "trace")
assert torch.allclose(k, k.T)
assert torch.linalg.eigvalsh(k).min() > -1e-8
print(f"NTK {tuple(ntk_jac.shape)}, trace kernel eigenvalues {torch.linalg.eigvalsh(k).tolist()[:2]}")
