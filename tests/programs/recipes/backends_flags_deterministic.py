"""The global switches people put at the top of training scripts: torch.backends.cudnn.benchmark /
deterministic / enabled, torch.backends.mkldnn and torch.backends.opt_einsum (is_available,
enabled, strategy), the CPU capability string, torch.use_deterministic_algorithms with warn_only,
float32 matmul precision, and an einsum chain giving the same numbers with opt_einsum on and off."""
import minigenesis as torch

torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = True
assert torch.backends.cudnn.benchmark and torch.backends.cudnn.deterministic
assert isinstance(torch.backends.cudnn.is_available(), bool)
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = False

assert isinstance(torch.backends.mkldnn.is_available(), bool)
assert torch.backends.mkldnn.enabled is True
with torch.backends.mkldnn.flags(enabled=False):
    assert torch.backends.mkldnn.enabled is False
assert torch.backends.mkldnn.enabled is True

assert isinstance(torch.backends.opt_einsum.is_available(), bool)
assert torch.backends.opt_einsum.enabled in (True, False)
assert torch.backends.opt_einsum.strategy in ("auto", None)
a, b, c = torch.randn(8, 16), torch.randn(16, 32), torch.randn(32, 4)
with_opt = torch.einsum("ij,jk,kl->il", a, b, c)
enabled, strategy = torch.backends.opt_einsum.enabled, torch.backends.opt_einsum.strategy
if torch.backends.opt_einsum.is_available():
    torch.backends.opt_einsum.strategy = "optimal"
    assert torch.backends.opt_einsum.strategy == "optimal"
    torch.backends.opt_einsum.strategy = strategy
torch.backends.opt_einsum.enabled = False
left_to_right = torch.einsum("ij,jk,kl->il", a, b, c)
torch.backends.opt_einsum.enabled = enabled
assert torch.allclose(with_opt, left_to_right, rtol=1e-4, atol=1e-4)
assert torch.allclose(with_opt, a @ b @ c, rtol=1e-4, atol=1e-4)

assert isinstance(torch.backends.cpu.get_cpu_capability(), str)
assert torch.backends.mps.is_available() in (True, False)

torch.use_deterministic_algorithms(True)
assert torch.are_deterministic_algorithms_enabled()
assert not torch.is_deterministic_algorithms_warn_only_enabled()
src = torch.ones(10)
index = torch.tensor([0, 1, 1, 2, 2, 2, 3, 3, 3, 3])
out = torch.zeros(4).index_add_(0, index, src)
assert out.tolist() == [1.0, 2.0, 3.0, 4.0]
torch.use_deterministic_algorithms(True, warn_only=True)
assert torch.is_deterministic_algorithms_warn_only_enabled()
assert torch.get_deterministic_debug_mode() == 1
torch.use_deterministic_algorithms(False)
assert torch.get_deterministic_debug_mode() == 0
torch.set_deterministic_debug_mode("error")
assert torch.are_deterministic_algorithms_enabled()
torch.set_deterministic_debug_mode(0)

old = torch.get_float32_matmul_precision()
torch.set_float32_matmul_precision("high")
assert torch.get_float32_matmul_precision() == "high"
torch.set_float32_matmul_precision(old)
print("capability:", torch.backends.cpu.get_cpu_capability(), "index_add:", out.tolist())
