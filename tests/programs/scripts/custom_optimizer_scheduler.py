"""Writing your own optimizer and scheduler, as blog posts and papers' code do: a subclass of
torch.optim.Optimizer (defaults dict, param_groups, per-parameter self.state, a @torch.no_grad()
step with an optional closure) implementing SGD with momentum, checked step for step against
torch.optim.SGD; the Lion optimizer (sign of an interpolated momentum, decoupled weight decay)
training a regression; a Noam schedule written as an LRScheduler subclass with get_lr, checked
against the same schedule by LambdaLR; and state_dict / load_state_dict round trips of both."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.optim import Optimizer
from minigenesis.optim.lr_scheduler import LambdaLR, LRScheduler

torch.manual_seed(0)


class MySGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0.0, weight_decay=0.0):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = dict(lr=lr, momentum=momentum, weight_decay=weight_decay)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad
                if group["weight_decay"] != 0:
                    d_p = d_p.add(p, alpha=group["weight_decay"])
                if group["momentum"] != 0:
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        buf = state["momentum_buffer"] = torch.clone(d_p).detach()
                    else:
                        buf = state["momentum_buffer"]
                        buf.mul_(group["momentum"]).add_(d_p)
                    d_p = buf
                p.add_(d_p, alpha=-group["lr"])
        return loss


class Lion(Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in filter(lambda p: p.grad is not None, group["params"]):
                p.data.mul_(1 - group["lr"] * group["weight_decay"])
                state = self.state[p]
                if len(state) == 0:
                    state["exp_avg"] = torch.zeros_like(p)
                exp_avg = state["exp_avg"]
                beta1, beta2 = group["betas"]
                update = exp_avg * beta1 + p.grad * (1 - beta1)
                p.add_(torch.sign(update), alpha=-group["lr"])
                exp_avg.mul_(beta2).add_(p.grad, alpha=1 - beta2)
        return loss


class NoamLR(LRScheduler):
    def __init__(self, optimizer, d_model, warmup_steps, last_epoch=-1):
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        step = max(self.last_epoch, 1)
        scale = self.d_model ** -0.5 * min(step ** -0.5, step * self.warmup_steps ** -1.5)
        return [base_lr * scale for base_lr in self.base_lrs]


X = torch.randn(64, 5)
y = X @ torch.tensor([1.0, -2.0, 0.5, 0.0, 3.0]) + 0.1 * torch.randn(64)


def make():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 1))


mine, ref = make(), make()
opt_mine = MySGD(mine.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)
opt_ref = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)
for step in range(30):
    for model, opt in ((mine, opt_mine), (ref, opt_ref)):
        def closure():
            opt.zero_grad()
            loss = ((model(X).squeeze(1) - y) ** 2).mean()
            loss.backward()
            return loss
        loss = opt.step(closure)
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(mine.parameters(), ref.parameters()))
print(f"MySGD == SGD after 30 steps, loss {loss.item():.5f}")
sd = opt_mine.state_dict()
assert sd["param_groups"][0]["momentum"] == 0.9 and len(sd["state"]) == 4
fresh = MySGD(make().parameters(), lr=0.05)
fresh.load_state_dict(sd)
assert torch.equal(fresh.state_dict()["state"][0]["momentum_buffer"], sd["state"][0]["momentum_buffer"])

model = make()
lion = Lion(model.parameters(), lr=0.3, weight_decay=0.01)
noam = NoamLR(lion, d_model=16, warmup_steps=20)
base = lion.param_groups[0]["initial_lr"]
lrs = []
for step in range(200):
    loss = ((model(X).squeeze(1) - y) ** 2).mean()
    lion.zero_grad()
    loss.backward()
    lion.step()
    lrs.append(noam.get_last_lr()[0])
    noam.step()
    if step % 50 == 0:
        print(f"step {step} lion loss {loss.item():.4f} lr {lrs[-1]:.6f}")
print(f"lion final loss {loss.item():.4f}")
assert loss.item() < 0.5

opt2 = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.3)
lam = LambdaLR(opt2, lambda s: 16 ** -0.5 * min(max(s, 1) ** -0.5, max(s, 1) * 20 ** -1.5))
ref_lrs = []
for _ in range(200):
    ref_lrs.append(lam.get_last_lr()[0])
    opt2.step()
    lam.step()
assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(lrs, ref_lrs))
peak = max(range(200), key=lambda i: lrs[i])
print(f"peak lr {lrs[peak]:.6f} at step {peak}")
assert peak == 20
state = noam.state_dict()
assert state["warmup_steps"] == 20 and state["last_epoch"] == 200
