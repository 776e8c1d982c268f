"""Reptile (Nichol, Achiam & Schulman) in the shape of OpenAI's reptile-sinewaves script: for each
sampled sine task, a few SGD steps by hand on a copy (param.data -= lr * grad), then the meta
update interpolates the state_dict toward the adapted weights with a linearly annealed outer step
size. After meta-training, 8 gradient steps on 10 points of a new sine wave fit it far better than
the same steps from the random initialisation."""
from copy import deepcopy

import numpy as np

import minigenesis as torch
from minigenesis import nn

seed = 0
plot = False
innerstepsize = 0.05  # stepsize in inner SGD
innerepochs = 1  # number of epochs of each inner SGD
outerstepsize0 = 0.3  # stepsize of outer optimization, i.e., meta-optimization
niterations = 500  # number of outer updates; each iteration we sample one task and update on it

rng = np.random.RandomState(seed)
torch.manual_seed(seed)

# Define task distribution
x_all = np.linspace(-5, 5, 50)[:, None]  # All of the x points
ntrain = 10  # Size of training minibatches


def gen_task():
    "Generate classification problem"
    phase = rng.uniform(low=0, high=2 * np.pi)
    ampl = rng.uniform(0.1, 5)
    f_randomsine = lambda x: np.sin(x + phase) * ampl
    return f_randomsine


# Define model. Reptile paper uses ReLU, but Tanh gives slightly better results
model = nn.Sequential(
    nn.Linear(1, 32),
    nn.Tanh(),
    nn.Linear(32, 32),
    nn.Tanh(),
    nn.Linear(32, 1),
)
init_state = deepcopy(model.state_dict())


def totorch(x):
    return torch.autograd.Variable(torch.Tensor(x))


def train_on_batch(x, y):
    x = totorch(x)
    y = totorch(y)
    model.zero_grad()
    ypred = model(x)
    loss = (ypred - y).pow(2).mean()
    loss.backward()
    for param in model.parameters():
        param.data -= innerstepsize * param.grad.data


def predict(x):
    x = totorch(x)
    return model(x).data.numpy()


# Reptile training loop
for iteration in range(niterations):
    weights_before = deepcopy(model.state_dict())
    # Generate task
    f = gen_task()
    y_all = f(x_all)
    # Do SGD on this task
    inds = rng.permutation(len(x_all))
    for _ in range(innerepochs):
        for start in range(0, len(x_all), ntrain):
            mbinds = inds[start:start + ntrain]
            train_on_batch(x_all[mbinds], y_all[mbinds])
    # Interpolate between current weights and trained weights from this task
    # I.e. (weights_before - weights_after) is the meta-gradient
    weights_after = model.state_dict()
    outerstepsize = outerstepsize0 * (1 - iteration / niterations)  # linear schedule
    model.load_state_dict({name:
        weights_before[name] + (weights_after[name] - weights_before[name]) * outerstepsize
        for name in weights_before})


def adapted_loss(start_state, f_test, steps=8):
    model.load_state_dict(start_state)
    y_test = f_test(x_all)
    mbinds = np.arange(0, len(x_all), 5)[:ntrain]
    for _ in range(steps):
        train_on_batch(x_all[mbinds], y_test[mbinds])
    return float(np.square(predict(x_all) - y_test).mean())


meta_state = deepcopy(model.state_dict())
meta, scratch = [], []
for _ in range(5):
    f_test = gen_task()
    meta.append(adapted_loss(meta_state, f_test))
    scratch.append(adapted_loss(init_state, f_test))
print(f"mse after 8 steps on new tasks: from meta-init {np.mean(meta):.3f}, from scratch {np.mean(scratch):.3f}")
assert np.mean(meta) < 0.6 * np.mean(scratch)
