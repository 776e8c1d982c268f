"""Beginner Q&A tensor idioms checked against NumPy: view vs reshape after transpose (contiguous),
unsqueeze/squeeze/expand/repeat, index_select, gather along dim 1 for picking per-row classes,
masked_fill with a boolean mask, torch.where, nonzero(as_tuple=True), cat/stack/chunk/split,
advanced indexing assignment, sort/argsort/topk, and cumsum."""
import numpy as np
import minigenesis as torch

torch.manual_seed(0)
a_np = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
a = torch.from_numpy(a_np.copy())
t = a.transpose(1, 2)
assert not t.is_contiguous()
try:
    t.view(2, 12)
    raise AssertionError("view of a non-contiguous tensor must fail")
except RuntimeError:
    pass
assert np.array_equal(t.reshape(2, 12).numpy(), a_np.transpose(0, 2, 1).reshape(2, 12))
assert np.array_equal(t.contiguous().view(-1).numpy(), a_np.transpose(0, 2, 1).ravel())
b = torch.tensor([1.0, 2.0, 3.0])
assert b.unsqueeze(0).shape == (1, 3) and b[:, None].expand(3, 4).shape == (3, 4)
assert b.repeat(2, 2).tolist() == np.tile(b.numpy(), (2, 2)).tolist()
assert torch.zeros(1, 3, 1).squeeze().shape == (3,) and torch.zeros(1, 3, 1).squeeze(0).shape == (3, 1)
idx = torch.tensor([2, 0])
assert np.array_equal(a.index_select(2, idx).numpy(), a_np[:, :, [2, 0]])
logits = torch.randn(5, 4)
target = torch.tensor([3, 0, 1, 1, 2])
picked = logits.gather(1, target.unsqueeze(1)).squeeze(1)
assert np.array_equal(picked.numpy(), logits.numpy()[np.arange(5), target.numpy()])
assert torch.equal(picked, logits[torch.arange(5), target])
mask = logits > 0
filled = logits.masked_fill(~mask, float("-inf"))
assert np.array_equal(filled.numpy(), np.where(logits.numpy() > 0, logits.numpy(), -np.inf))
assert torch.equal(torch.where(mask, logits, torch.zeros_like(logits)), logits.clamp(min=0))
rows, cols = mask.nonzero(as_tuple=True)
r_np, c_np = np.nonzero(mask.numpy())
assert rows.tolist() == r_np.tolist() and cols.tolist() == c_np.tolist()
assert mask.nonzero().shape == (len(r_np), 2)
x = torch.randn(2, 3)
assert torch.cat([x, x], 0).shape == (4, 3) and torch.stack([x, x], 2).shape == (2, 3, 2)
assert [c.shape[1] for c in torch.arange(10.0).view(1, 10).chunk(3, 1)] == [4, 4, 2]
assert [s.shape[0] for s in torch.arange(10).split([3, 7])] == [3, 7]
z = torch.zeros(4, 5)
z[[0, 2, 3], [1, 1, 4]] = torch.tensor([1.0, 2.0, 3.0])
z[1, 2:] += 7
z_np = np.zeros((4, 5), np.float32)
z_np[[0, 2, 3], [1, 1, 4]] = [1, 2, 3]
z_np[1, 2:] += 7
assert np.array_equal(z.numpy(), z_np)
v = torch.tensor([3.0, 1.0, 2.0, 5.0, 4.0])
vals, order = v.sort(descending=True)
assert order.tolist() == np.argsort(-v.numpy()).tolist() and vals.tolist() == [5, 4, 3, 2, 1]
assert v.topk(2).indices.tolist() == [3, 4] and v.argsort().tolist() == [1, 2, 0, 4, 3]
assert np.allclose(v.cumsum(0).numpy(), np.cumsum(v.numpy()))
assert np.array_equal(a.sum(dim=(0, 2), keepdim=True).numpy(), a_np.sum(axis=(0, 2), keepdims=True))
assert a.max(dim=1).indices.tolist() == a_np.argmax(1).tolist()
print("indexing tour done:", picked.shape, filled.isinf().sum().item())
