"""torch.inference_mode as a context manager and a decorator, inference_mode(False) inside it,
Tensor.is_inference(), torch.is_inference_mode_enabled(), no_grad's differences, and the errors
PyTorch raises when an inference tensor is used where autograd must record it."""
import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
x = torch.randn(5, 4)

with torch.inference_mode():
    assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
    y = model(x)
    with torch.inference_mode(False):
        assert not torch.is_inference_mode_enabled()
        w = torch.ones(2, requires_grad=True)
        assert (w * 2).requires_grad
assert not torch.is_inference_mode_enabled() and torch.is_grad_enabled()
assert y.is_inference() and not y.requires_grad and not x.is_inference()


@torch.inference_mode()
def predict(batch):
    return model(batch).argmax(dim=1)


@torch.inference_mode
def predict_bare(batch):
    return model(batch).softmax(dim=1)


labels = predict(x)
assert labels.is_inference() and labels.dtype == torch.int64
probs = predict_bare(x)
assert probs.is_inference() and torch.allclose(probs.sum(1), torch.ones(5))

with torch.no_grad():
    z = model(x)
assert not z.is_inference() and not z.requires_grad
assert torch.equal(z, y)

try:
    y.add_(1)
except RuntimeError as e:
    assert "Inplace update to inference tensor outside InferenceMode is not allowed" in str(e), e
    print("in-place:", str(e)[:70])
else:
    raise RuntimeError("in-place update of an inference tensor allowed")

p = torch.ones(2, 2, requires_grad=True)
try:
    (p * y[:2]).sum().backward()
except RuntimeError as e:
    assert "Inference tensors cannot be saved for backward" in str(e), e
    print("saved:", str(e)[:60])
else:
    raise RuntimeError("an inference tensor was saved for backward")

usable = y.clone()
assert not usable.is_inference()
(p * usable[:2]).sum().backward()
assert torch.equal(p.grad, usable[:2])
print("inference predictions:", labels.tolist())
