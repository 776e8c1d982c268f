"""Answers a learner wrote to chapters 4, 5 and 7, for tests/course/test_learner_answers.py.

RIGHT: every exercise of a chapter answered correctly in other words than solutions.py
(other algorithms, names, shapes, orders). MISTAKES: one honest mistake in each of
several exercises of a chapter, with words each failure must contain (each exercise is
checked with the reference answers for the others, so one run checks them all).
"""

_RIGHT_04_MYLINEAR = """
    class MyLinear(nn.Module):
        def __init__(self, in_features, out_features, bias=True):
            super().__init__()
            bound = in_features ** -0.5
            self.weight = nn.Parameter(2 * bound * mg.rand(out_features, in_features) - bound)
            if bias:
                self.bias = nn.Parameter((mg.rand(out_features) - 0.5) * (2 * bound))
            else:
                self.bias = None

        def forward(self, x):
            out = x @ self.weight.transpose(0, 1)
            return out if self.bias is None else out + self.bias
"""

_RIGHT_04_MLP = """
    class MLP(nn.Module):
        def __init__(self, sizes):
            super().__init__()
            self.layers = nn.ModuleList()
            for a, b in zip(sizes[:-1], sizes[1:]):
                self.layers.append(nn.Linear(a, b))

        def forward(self, x):
            *hidden, last = self.layers
            for layer in hidden:
                x = layer(x).relu()
            return last(x)
"""

_RIGHT_04_LAYER_NORM = """
    def layer_norm(x, weight, bias, eps=1e-5):
        n = x.shape[-1]
        mu = x.sum(dim=-1, keepdim=True) / n
        centred = x - mu
        var = (centred * centred).sum(dim=-1, keepdim=True) / n
        return centred * (var + eps) ** -0.5 * weight + bias
"""

_RIGHT_04_MYDROPOUT = """
    class MyDropout(nn.Module):
        def __init__(self, p=0.5):
            super().__init__()
            if not (0.0 <= p <= 1.0):
                raise ValueError(f"p must be in [0, 1], got {p}")
            self.p = p

        def forward(self, x):
            if not self.training or self.p == 0:
                return x
            if self.p == 1:
                return x * 0
            keep = (mg.rand_like(x) >= self.p).float()
            return x * keep / (1 - self.p)
"""

_RIGHT_04_MYBATCHNORM1D = """
    class MyBatchNorm1d(nn.Module):
        def __init__(self, num_features, eps=1e-5, momentum=0.1):
            super().__init__()
            self.eps, self.momentum = eps, momentum
            self.weight = nn.Parameter(mg.ones(num_features))
            self.bias = nn.Parameter(mg.zeros(num_features))
            self.register_buffer("running_mean", mg.zeros(num_features))
            self.register_buffer("running_var", mg.ones(num_features))
            self.register_buffer("num_batches_tracked", mg.tensor(0))

        def forward(self, x):
            if self.training:
                n = x.shape[0]
                mean = x.mean(dim=0)
                var = ((x - mean) ** 2).mean(dim=0)
                with mg.no_grad():
                    m = self.momentum
                    self.running_mean.copy_((1 - m) * self.running_mean + m * mean)
                    self.running_var.copy_((1 - m) * self.running_var + m * var * (n / (n - 1)))
                    self.num_batches_tracked += 1
            else:
                mean, var = self.running_mean, self.running_var
            return (x - mean) / (var + self.eps).sqrt() * self.weight + self.bias
"""

_WRONG_04_LAYER_NORM = """
    def layer_norm(x, weight, bias, eps=1e-5):
        n = x.shape[-1]
        mu = x.sum(dim=-1, keepdim=True) / n
        centred = x - mu
        var = (centred * centred).sum(dim=-1, keepdim=True) / (n - 1)
        return centred * (var + eps) ** -0.5 * weight + bias
"""

_WRONG_04_MYDROPOUT = """
    class MyDropout(nn.Module):
        def __init__(self, p=0.5):
            super().__init__()
            if not (0.0 <= p <= 1.0):
                raise ValueError(f"p must be in [0, 1], got {p}")
            self.p = p

        def forward(self, x):
            if not self.training or self.p == 0:
                return x
            if self.p == 1:
                return x * 0
            keep = (mg.rand_like(x) >= self.p).float()
            return x * keep
"""

_WRONG_04_MYBATCHNORM1D = """
    class MyBatchNorm1d(nn.Module):
        def __init__(self, num_features, eps=1e-5, momentum=0.1):
            super().__init__()
            self.eps, self.momentum = eps, momentum
            self.weight = nn.Parameter(mg.ones(num_features))
            self.bias = nn.Parameter(mg.zeros(num_features))
            self.register_buffer("running_mean", mg.zeros(num_features))
            self.register_buffer("running_var", mg.ones(num_features))
            self.register_buffer("num_batches_tracked", mg.tensor(0))

        def forward(self, x):
            if self.training:
                n = x.shape[0]
                mean = x.mean(dim=0)
                var = ((x - mean) ** 2).mean(dim=0)
                with mg.no_grad():
                    m = self.momentum
                    self.running_mean.copy_((1 - m) * self.running_mean + m * mean)
                    self.running_var.copy_((1 - m) * self.running_var + m * var)
                    self.num_batches_tracked += 1
            else:
                mean, var = self.running_mean, self.running_var
            return (x - mean) / (var + self.eps).sqrt() * self.weight + self.bias
"""

_WRONG_04_MLP = """
    class MLP(nn.Module):
        def __init__(self, sizes):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x).relu()
            return x
"""

_RIGHT_05_LOG_SOFTMAX = """
    def log_softmax(x, dim=-1):
        top = x.max(dim=dim, keepdim=True).values  # not detached: the shift cancels anyway
        shifted = x - top
        return shifted - shifted.exp().sum(dim=dim, keepdim=True).log()
"""

_RIGHT_05_CROSS_ENTROPY = """
    def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
        n, c = logits.shape
        keep = target != ignore_index
        safe = mg.where(keep, target, mg.zeros_like(target))
        logp = log_softmax(logits, dim=1)
        picked = (logp * mg.nn.functional.one_hot(safe, c).to(logp.dtype)).sum(dim=1)
        per = -(1 - label_smoothing) * picked - label_smoothing * logp.mean(dim=1)
        w = keep.to(logp.dtype)
        return (per * w).sum() / w.sum()
"""

_RIGHT_05_BCE_WITH_LOGITS = """
    def bce_with_logits(logits, targets):
        per = logits.relu() - logits * targets + (1 + (-logits.abs()).exp()).log()
        return per.sum() / per.numel()
"""

_RIGHT_05_TRAIN_STEP = """
    def train_step(model, loss_fn, x, y, lr):
        for p in model.parameters():
            p.grad = None
        out = loss_fn(model(x), y)
        out.backward()
        with mg.no_grad():
            for p in model.parameters():
                if p.grad is not None:
                    p -= lr * p.grad
        return out.item()
"""

_RIGHT_05_FIT = """
    def fit(model, x, y, epochs, batch_size, lr):
        model.train()
        n = x.shape[0]
        history = []
        for _ in range(epochs):
            order = mg.randperm(n)
            total = 0.0
            start = 0
            while start < n:
                idx = order[start:start + batch_size]
                total += train_step(model, mg.nn.functional.mse_loss, x[idx], y[idx], lr) * len(idx)
                start += batch_size
            history.append(total / n)
        return history
"""

_WRONG_05_LOG_SOFTMAX = """
    def log_softmax(x, dim=-1):
        return x - x.exp().sum(dim=dim, keepdim=True).log()
"""

_WRONG_05_CROSS_ENTROPY = """
    def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
        n, c = logits.shape
        keep = target != ignore_index
        safe = mg.where(keep, target, mg.zeros_like(target))
        logp = log_softmax(logits, dim=1)
        picked = (logp * mg.nn.functional.one_hot(safe, c).to(logp.dtype)).sum(dim=1)
        per = -(1 - label_smoothing) * picked - label_smoothing * logp.mean(dim=1)
        w = keep.to(logp.dtype)
        return (per * w).sum() / n
"""

_WRONG_05_BCE_WITH_LOGITS = """
    def bce_with_logits(logits, targets):
        s = logits.sigmoid()
        return -(targets * s.log() + (1 - targets) * (1 - s).log()).mean()
"""

_WRONG_05_TRAIN_STEP = """
    def train_step(model, loss_fn, x, y, lr):
        for p in model.parameters():
            p.grad = None
        out = loss_fn(model(x), y)
        out.backward()
        with mg.no_grad():
            for p in model.parameters():
                if p.grad is not None:
                    p += lr * p.grad
        return out.item()
"""

_WRONG_05_FIT = """
    def fit(model, x, y, epochs, batch_size, lr):
        model.train()
        n = x.shape[0]
        history = []
        for _ in range(epochs):
            order = mg.randperm(n)
            total = 0.0
            start = 0
            while start + batch_size <= n:
                idx = order[start:start + batch_size]
                total += train_step(model, mg.nn.functional.mse_loss, x[idx], y[idx], lr) * len(idx)
                start += batch_size
            history.append(total / n)
        return history
"""

_RIGHT_07_WARMUP_COSINE_LAMBDA = """
    def warmup_cosine_lambda(num_warmup_steps, num_training_steps):
        w = num_warmup_steps
        span = max(1, num_training_steps - w)

        def lr_lambda(step):
            if step < w:
                return step / w
            return max(0.0, (1 + math.cos(math.pi * (step - w) / span)) / 2)

        return lr_lambda
"""

_RIGHT_07_COSINE_ANNEALING_LR = """
    def cosine_annealing_lr(epoch, base_lr, T_max, eta_min=0.0):
        return base_lr + (eta_min - base_lr) * (1 - math.cos(math.pi * epoch / T_max)) / 2
"""

_RIGHT_07_WARM_RESTARTS_LR = """
    def warm_restarts_lr(epoch, base_lr, T_0, T_mult=1, eta_min=0.0):
        length, start = T_0, 0
        while epoch >= start + length:
            start += length
            length *= T_mult
        frac = (epoch - start) / length
        return eta_min + (base_lr - eta_min) * 0.5 * (1 + math.cos(math.pi * frac))
"""

_RIGHT_07_PLATEAU_LRS = """
    def plateau_lrs(metrics, lr, factor=0.1, patience=10, threshold=1e-4):
        best, bad, out = float("inf"), 0, []
        for value in metrics:
            if value < best * (1 - threshold):
                best, bad = value, 0
            else:
                bad = bad + 1
            if bad > patience:
                new = lr * factor
                if abs(lr - new) > 1e-8:
                    lr = new
                bad = 0
            out.append(lr)
        return out
"""

_RIGHT_07_WARMUPEXPONENTIALLR = """
    class WarmupExponentialLR(LRScheduler):
        def __init__(self, optimizer, warmup_steps, gamma, start_factor=0.1, last_epoch=-1):
            self.warmup_steps, self.gamma, self.start_factor = warmup_steps, gamma, start_factor
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            e, w = self.last_epoch, self.warmup_steps
            if e < w:
                scale = self.start_factor + (1 - self.start_factor) * e / w
            else:
                scale = self.gamma ** (e - w)
            return [scale * b for b in self.base_lrs]
"""

_WRONG_07_WARMUP_COSINE_LAMBDA = """
    def warmup_cosine_lambda(num_warmup_steps, num_training_steps):
        w = num_warmup_steps
        span = max(1, num_training_steps - w)

        def lr_lambda(step):
            if step < w:
                return (step + 1) / w
            return max(0.0, (1 + math.cos(math.pi * (step - w) / span)) / 2)

        return lr_lambda
"""

_WRONG_07_WARM_RESTARTS_LR = """
    def warm_restarts_lr(epoch, base_lr, T_0, T_mult=1, eta_min=0.0):
        t_cur = epoch % T_0
        return eta_min + (base_lr - eta_min) * 0.5 * (1 + math.cos(math.pi * t_cur / T_0))
"""

_WRONG_07_PLATEAU_LRS = """
    def plateau_lrs(metrics, lr, factor=0.1, patience=10, threshold=1e-4):
        best, bad, out = float("inf"), 0, []
        for value in metrics:
            if value < best - best * threshold:
                best, bad = value, 0
            else:
                bad = bad + 1
            if bad > patience:
                new = lr * factor
                if abs(lr - new) > 1e-8:
                    lr = new
                bad = 0
            out.append(lr)
        return out
"""

_WRONG_07_WARMUPEXPONENTIALLR = """
    class WarmupExponentialLR(LRScheduler):
        def __init__(self, optimizer, warmup_steps, gamma, start_factor=0.1, last_epoch=-1):
            super().__init__(optimizer, last_epoch)
            self.warmup_steps, self.gamma, self.start_factor = warmup_steps, gamma, start_factor

        def get_lr(self):
            e, w = self.last_epoch, self.warmup_steps
            if e < w:
                scale = self.start_factor + (1 - self.start_factor) * e / w
            else:
                scale = self.gamma ** (e - w)
            return [scale * b for b in self.base_lrs]
"""
_WRONG_04_MYBATCHNORM1D_GRAPH = """
    class MyBatchNorm1d(nn.Module):
        def __init__(self, num_features, eps=1e-5, momentum=0.1):
            super().__init__()
            self.eps, self.momentum = eps, momentum
            self.weight = nn.Parameter(mg.ones(num_features))
            self.bias = nn.Parameter(mg.zeros(num_features))
            self.register_buffer("running_mean", mg.zeros(num_features))
            self.register_buffer("running_var", mg.ones(num_features))
            self.register_buffer("num_batches_tracked", mg.tensor(0))

        def forward(self, x):
            if self.training:
                n = x.shape[0]
                mean = x.mean(dim=0)
                var = ((x - mean) ** 2).mean(dim=0)
                m = self.momentum
                self.running_mean.copy_((1 - m) * self.running_mean + m * mean)
                self.running_var.copy_((1 - m) * self.running_var + m * var * (n / (n - 1)))
                self.num_batches_tracked += 1
            else:
                mean, var = self.running_mean, self.running_var
            return (x - mean) / (var + self.eps).sqrt() * self.weight + self.bias
"""


# chapter folder, extra imports, answers, the exercises they answer
RIGHT = {
    "04-every-exercise-in-other-words": (
        "04_modules_and_layers",
        "",
        {
            "MyLinear": _RIGHT_04_MYLINEAR,
            "MLP": _RIGHT_04_MLP,
            "layer_norm": _RIGHT_04_LAYER_NORM,
            "MyDropout": _RIGHT_04_MYDROPOUT,
            "MyBatchNorm1d": _RIGHT_04_MYBATCHNORM1D,
        },
        ["4.1", "4.2", "4.3", "4.4", "4.5"],
    ),
    "05-every-exercise-in-other-words": (
        "05_losses_and_training_loop",
        "",
        {
            "log_softmax": _RIGHT_05_LOG_SOFTMAX,
            "cross_entropy": _RIGHT_05_CROSS_ENTROPY,
            "bce_with_logits": _RIGHT_05_BCE_WITH_LOGITS,
            "train_step": _RIGHT_05_TRAIN_STEP,
            "fit": _RIGHT_05_FIT,
        },
        ["5.1", "5.2", "5.3", "5.4", "5.5"],
    ),
    "07-every-exercise-in-other-words": (
        "07_lr_schedulers",
        "",
        {
            "warmup_cosine_lambda": _RIGHT_07_WARMUP_COSINE_LAMBDA,
            "cosine_annealing_lr": _RIGHT_07_COSINE_ANNEALING_LR,
            "warm_restarts_lr": _RIGHT_07_WARM_RESTARTS_LR,
            "plateau_lrs": _RIGHT_07_PLATEAU_LRS,
            "WarmupExponentialLR": _RIGHT_07_WARMUPEXPONENTIALLR,
        },
        ["7.1", "7.2", "7.3", "7.4", "7.5"],
    ),
}

# chapter folder, extra imports, answers, (exercise, words its failure must contain)
MISTAKES = {
    "04-running-statistics-updated-with-a-graph": (
        "04_modules_and_layers",
        "",
        {"MyBatchNorm1d": _WRONG_04_MYBATCHNORM1D_GRAPH},
        [("4.5", "update the running statistics under `with mg.no_grad():`")],
    ),
    "04-one-mistake-an-exercise": (
        "04_modules_and_layers",
        "",
        {
            "layer_norm": _WRONG_04_LAYER_NORM,
            "MyDropout": _WRONG_04_MYDROPOUT,
            "MyBatchNorm1d": _WRONG_04_MYBATCHNORM1D,
            "MLP": _WRONG_04_MLP,
        },
        [
            ("4.3", "divide the variance by n"),
            ("4.4", "scale the elements kept by 1 / (1 - p)"),
            ("4.5", "update it with n / (n - 1)"),
            ("4.2", "apply no ReLU after the last layer"),
        ],
    ),
    "05-one-mistake-an-exercise": (
        "05_losses_and_training_loop",
        "",
        {
            "log_softmax": _WRONG_05_LOG_SOFTMAX,
            "cross_entropy": _WRONG_05_CROSS_ENTROPY,
            "bce_with_logits": _WRONG_05_BCE_WITH_LOGITS,
            "train_step": _WRONG_05_TRAIN_STEP,
            "fit": _WRONG_05_FIT,
        },
        [
            ("5.1", "subtract the max along dim"),
            ("5.2", "not by N"),
            ("5.3", "sigmoid rounds to exactly 0 or 1"),
            ("5.4", "differs from mg.optim.SGD's p -= lr * p.grad"),
            ("5.5", "keep the last, smaller batch"),
        ],
    ),
    "07-one-mistake-an-exercise": (
        "07_lr_schedulers",
        "",
        {
            "warmup_cosine_lambda": _WRONG_07_WARMUP_COSINE_LAMBDA,
            "warm_restarts_lr": _WRONG_07_WARM_RESTARTS_LR,
            "plateau_lrs": _WRONG_07_PLATEAU_LRS,
            "WarmupExponentialLR": _WRONG_07_WARMUPEXPONENTIALLR,
        },
        [
            ("7.1", "0 at step 0"),
            ("7.3", "in a cycle of T_i = 20 steps"),
            ("7.4", "inf - inf * threshold is nan"),
            ("7.5", "store your settings BEFORE super().__init__"),
        ],
    ),
}
