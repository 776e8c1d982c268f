"""The natural-gradient step of TRPO as its classic PyTorch implementations write it: a policy's
flat gradient from parameters_to_vector of autograd.grad outputs, Fisher-vector products as
Hessian-vector products of the mean KL (autograd.grad with create_graph=True, then a second
grad of (grad . v)) plus damping, the conjugate-gradient solver, the step scaled to the
trust-region size sqrt(2 delta / s^T F s), a backtracking line search writing candidate
parameters with vector_to_parameters; the Fisher-vector product checked against an explicit
Fisher matrix from the Jacobian of torch.func.functional_call, and the KL of every accepted step within the trust region."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.distributions import Categorical, kl_divergence
from minigenesis.nn.utils import parameters_to_vector, vector_to_parameters

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
policy = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
params = list(policy.parameters())
states = torch.randn(200, 3)
actions = (states[:, 0] + 0.5 * states[:, 1] > 0).long()  # the "good" action per state
advantages = torch.ones(200)  # imitation as a policy-gradient surrogate


def surrogate(old_log_probs):
    log_probs = Categorical(logits=policy(states)).log_prob(actions)
    return (torch.exp(log_probs - old_log_probs) * advantages).mean()


def mean_kl(old_logits):
    return kl_divergence(Categorical(logits=old_logits), Categorical(logits=policy(states))).mean()


def fisher_vector_product(v, old_logits, damping=0.1):
    kl = mean_kl(old_logits)
    grads = torch.autograd.grad(kl, params, create_graph=True)
    flat_grad_kl = torch.cat([g.view(-1) for g in grads])
    kl_v = (flat_grad_kl * v).sum()
    grads = torch.autograd.grad(kl_v, params)
    return torch.cat([g.contiguous().view(-1) for g in grads]) + v * damping


def conjugate_gradients(Avp, b, nsteps=10, residual_tol=1e-10):
    x = torch.zeros(b.size())
    r, p = b.clone(), b.clone()
    rdotr = torch.dot(r, r)
    for _ in range(nsteps):
        _Avp = Avp(p)
        alpha = rdotr / torch.dot(p, _Avp)
        x += alpha * p
        r -= alpha * _Avp
        new_rdotr = torch.dot(r, r)
        p = r + new_rdotr / rdotr * p
        rdotr = new_rdotr
        if rdotr < residual_tol:
            break
    return x


# the Fisher matrix explicitly: E_s[J^T (diag(p) - p p^T) J] for logits' Jacobian J
with torch.no_grad():
    old_logits = policy(states).detach()
n_params = sum(p.numel() for p in params)
flat0 = parameters_to_vector(params).detach()


def logits_of(flat):
    shaped, i = {}, 0
    for name, p in policy.named_parameters():
        shaped[name] = flat[i:i + p.numel()].view_as(p)
        i += p.numel()
    return torch.func.functional_call(policy, shaped, (states[:20],))


J = torch.autograd.functional.jacobian(logits_of, flat0)  # (20, 2, P)
assert torch.allclose(logits_of(flat0), old_logits[:20])
probs = torch.softmax(old_logits[:20], dim=-1)
fisher = torch.zeros(n_params, n_params)
for i in range(20):
    H = torch.diag(probs[i]) - torch.outer(probs[i], probs[i])
    fisher += J[i].T @ H @ J[i] / 20
v = torch.randn(n_params)
states_all = states
states = states[:20]
fvp = fisher_vector_product(v, old_logits[:20], damping=0.0)
states = states_all
assert torch.allclose(fvp, fisher @ v, atol=1e-8)
print(f"Fisher-vector product matches the explicit Fisher, |Fv| = {fvp.norm().item():.6f}")

max_kl = 0.01
for it in range(15):
    with torch.no_grad():
        old_logits = policy(states)
        old_log_probs = Categorical(logits=old_logits).log_prob(actions)
    loss = surrogate(old_log_probs)
    grads = torch.autograd.grad(loss, params)
    loss_grad = torch.cat([g.view(-1) for g in grads])
    stepdir = conjugate_gradients(lambda p: fisher_vector_product(p, old_logits), loss_grad)
    shs = 0.5 * (stepdir * fisher_vector_product(stepdir, old_logits)).sum(0, keepdim=True)
    fullstep = stepdir / torch.sqrt(shs / max_kl)[0]
    prev = parameters_to_vector(params).detach()
    with torch.no_grad():
        for frac in 0.5 ** torch.arange(10).double():
            vector_to_parameters(prev + frac * fullstep, params)
            new_loss = surrogate(old_log_probs)
            kl = mean_kl(old_logits)
            if new_loss > loss and kl <= 1.5 * max_kl:
                break
        else:
            vector_to_parameters(prev, params)
    assert kl.item() <= 1.5 * max_kl
    if it % 5 == 0:
        print(f"iter {it} surrogate {loss.item():.5f} -> {new_loss.item():.5f} kl {kl.item():.5f}")
with torch.no_grad():
    acc = (policy(states).argmax(1) == actions).double().mean().item()
print(f"policy picks the good action in {acc:.3f} of states")
assert acc > 0.9
