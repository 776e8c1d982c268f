"""d2l.ai's optimization chapter with plain torch: minibatch SGD, momentum (init_momentum_states
and v[:] = momentum * v + p.grad), AdaGrad, RMSProp, Adadelta and Adam written as
update functions over (params, states, hyperparams) with p[:] -= ... under torch.no_grad(),
trained on a linear regression by train_ch11; each trajectory compared with torch.optim's
(SGD(momentum=..), Adagrad, RMSprop(alpha=..), Adadelta, Adam), whose update rules differ from
the book's in the placement of eps only where noted."""
import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)
X = torch.randn(1500, 5)
true_w = torch.tensor([1.0, -2.0, 0.5, 3.0, -1.0])
y = X @ true_w + 0.3 + 0.1 * torch.randn(1500)
batches = [(X[i:i + 10], y[i:i + 10]) for i in range(0, 1500, 10)]


def init_params():
    g = torch.Generator().manual_seed(1)
    w = torch.normal(0.0, 0.01, size=(5, 1), generator=g, requires_grad=True)
    b = torch.zeros((1), requires_grad=True)
    return [w, b]


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, states, hyperparams):
    for p in params:
        p.data.sub_(hyperparams["lr"] * p.grad)
        p.grad.data.zero_()


def init_momentum_states(feature_dim):
    v_w = torch.zeros((feature_dim, 1))
    v_b = torch.zeros(1)
    return (v_w, v_b)


def sgd_momentum(params, states, hyperparams):
    for p, v in zip(params, states):
        with torch.no_grad():
            v[:] = hyperparams["momentum"] * v + p.grad
            p[:] -= hyperparams["lr"] * v
        p.grad.data.zero_()


def init_adagrad_states(feature_dim):
    return (torch.zeros((feature_dim, 1)), torch.zeros(1))


def adagrad(params, states, hyperparams):
    eps = 1e-10
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] += torch.square(p.grad)
            p[:] -= hyperparams["lr"] * p.grad / (torch.sqrt(s) + eps)
        p.grad.data.zero_()


def init_rmsprop_states(feature_dim):
    return (torch.zeros((feature_dim, 1)), torch.zeros(1))


def rmsprop(params, states, hyperparams):
    gamma, eps = hyperparams["gamma"], 1e-8
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] = gamma * s + (1 - gamma) * torch.square(p.grad)
            p[:] -= hyperparams["lr"] * p.grad / (torch.sqrt(s) + eps)
        p.grad.data.zero_()


def init_adadelta_states(feature_dim):
    s_w, s_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    delta_w, delta_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    return ((s_w, delta_w), (s_b, delta_b))


def adadelta(params, states, hyperparams):
    rho, eps = hyperparams["rho"], 1e-6
    for p, (s, delta) in zip(params, states):
        with torch.no_grad():
            s[:] = rho * s + (1 - rho) * torch.square(p.grad)
            g = (torch.sqrt(delta + eps) / torch.sqrt(s + eps)) * p.grad
            p[:] -= hyperparams.get("lr", 1.0) * g
            delta[:] = rho * delta + (1 - rho) * g * g
        p.grad.data.zero_()


def init_adam_states(feature_dim):
    v_w, v_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    s_w, s_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    return ((v_w, s_w), (v_b, s_b))


def adam(params, states, hyperparams):
    beta1, beta2, eps = 0.9, 0.999, 1e-6
    for p, (v, s) in zip(params, states):
        with torch.no_grad():
            v[:] = beta1 * v + (1 - beta1) * p.grad
            s[:] = beta2 * s + (1 - beta2) * torch.square(p.grad)
            v_bias_corr = v / (1 - beta1 ** hyperparams["t"])
            s_bias_corr = s / (1 - beta2 ** hyperparams["t"])
            p[:] -= hyperparams["lr"] * v_bias_corr / (torch.sqrt(s_bias_corr) + eps)
        p.grad.data.zero_()
    hyperparams["t"] += 1


def train_ch11(trainer_fn, states, hyperparams, num_epochs=2):
    w, b = init_params()
    net, loss = lambda X: torch.matmul(X, w) + b, squared_loss
    trajectory = []
    for _ in range(num_epochs):
        for Xb, yb in batches:
            l = loss(net(Xb), yb).mean()
            l.backward()
            trainer_fn([w, b], states, hyperparams)
            trajectory.append(w.detach().clone().squeeze())
    final = float(loss(net(X), y).mean())
    return torch.stack(trajectory), final


def train_concise_ch11(trainer_fn, hyperparams, num_epochs=2):
    w0, _ = init_params()
    net = nn.Sequential(nn.Linear(5, 1))
    with torch.no_grad():
        net[0].weight.copy_(w0.T)
        net[0].bias.zero_()
    loss = nn.MSELoss(reduction="none")
    optimizer = trainer_fn(net.parameters(), **hyperparams)
    trajectory = []
    for _ in range(num_epochs):
        for Xb, yb in batches:
            optimizer.zero_grad()
            out = net(Xb)
            yb = yb.reshape(out.shape)
            l = loss(out, yb) / 2
            l.mean().backward()
            optimizer.step()
            trajectory.append(net[0].weight.detach().clone().squeeze())
    return torch.stack(trajectory)


cases = [
    ("sgd", sgd, None, {"lr": 0.05}, torch.optim.SGD, {"lr": 0.05}, 1e-5),
    ("momentum", sgd_momentum, init_momentum_states(5), {"lr": 0.01, "momentum": 0.9},
     torch.optim.SGD, {"lr": 0.01, "momentum": 0.9}, 1e-5),
    ("adagrad", adagrad, init_adagrad_states(5), {"lr": 0.5}, torch.optim.Adagrad, {"lr": 0.5, "eps": 1e-10}, 1e-4),
    ("rmsprop", rmsprop, init_rmsprop_states(5), {"lr": 0.01, "gamma": 0.9},
     torch.optim.RMSprop, {"lr": 0.01, "alpha": 0.9, "eps": 1e-8}, 1e-4),
    ("adadelta", adadelta, init_adadelta_states(5), {"rho": 0.9}, torch.optim.Adadelta, {"rho": 0.9, "eps": 1e-6}, 1e-4),
    ("adam", adam, init_adam_states(5), {"lr": 0.05, "t": 1}, torch.optim.Adam, {"lr": 0.05, "eps": 1e-6}, 1e-4),
]
for name, fn, states, hp, opt_cls, opt_hp, tol in cases:
    mine, final = train_ch11(fn, states, hp)
    theirs = train_concise_ch11(opt_cls, opt_hp)
    err = (mine - theirs).abs().max().item()
    print(f"{name:9s} final loss {final:.4f}, max trajectory difference {err:.2e}")
    assert err < tol, (name, err)
    if name != "adadelta":
        assert final < 0.1, (name, final)  # from about 7.6 at the start
