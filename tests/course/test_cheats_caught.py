"""The shortcuts a learner may try on the exercises whose point is HOW the answer is found: each
gives the right numbers on the easy inputs, and each must fail its exercise's checks, with a
failure that names the exercise. (Every chapter's test_lesson.py lists the shortcuts tried.)"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"

# The reference loss scaler, as a learner would write it; the 9.5 cases change one thing in it.
_SCALER = """
    class ManualGradScaler:
        def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                     growth_interval=2000):
            self.scale_value = float(init_scale)
            self.growth_factor, self.backoff_factor = growth_factor, backoff_factor
            self.growth_interval, self.good_steps, self.found_inf = growth_interval, 0, {}

        def scale(self, loss):
            return loss * self.scale_value

        def unscale_(self, optimizer):
            if id(optimizer) in self.found_inf:
                raise RuntimeError("unscale_() was already called on this optimizer")
            found = False
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.grad.mul_(1.0 / self.scale_value)
                        found = found or not bool(mg.isfinite(p.grad).all())
            self.found_inf[id(optimizer)] = found

        def step(self, optimizer):
            if id(optimizer) not in self.found_inf:
                self.unscale_(optimizer)
            if self.found_inf[id(optimizer)]:
                return False
            optimizer.step()
            return True

        def update(self):
            if any(self.found_inf.values()):
                self.scale_value *= self.backoff_factor
                self.good_steps = 0
            else:
                self.good_steps += 1
                if self.good_steps == self.growth_interval:
                    self.scale_value *= self.growth_factor
                    self.good_steps = 0
            self.found_inf.clear()

        def get_scale(self):
            return self.scale_value
"""


def _changed(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new)


# unscale_ walks the first param group only (what one-group checks cannot tell)
_FIRST_GROUP_ONLY = _changed(
    _SCALER, "for group in optimizer.param_groups:", "for group in optimizer.param_groups[:1]:"
)
# the step always runs, and after an inf the weights are put back (what a stateless SGD cannot
# tell: the optimizer's state has seen the inf)
_UNDO_THE_STEP = _changed(
    _SCALER,
    """            if self.found_inf[id(optimizer)]:
                return False
            optimizer.step()
            return True""",
    """            params = [p for g in optimizer.param_groups for p in g["params"]]
            before = [p.detach().clone() for p in params]
            optimizer.step()
            if self.found_inf[id(optimizer)]:
                with mg.no_grad():
                    for p, b in zip(params, before):
                        p.copy_(b)
                return False
            return True""",
)


# (chapter, imports the cheats need, {name: cheating answer}, the exercises it cheats on, and
# the checks that must catch it: None when any check of those exercises may)
CASES = {
    "02-recursion-and-the-oracle": ("02_autograd_from_scratch", "import sys\n", {
        "topological_order": """
            def topological_order(root):
                sys.setrecursionlimit(100000)
                order, seen = [], set()

                def visit(node):
                    if id(node) not in seen:
                        seen.add(id(node))
                        for parent in node.parents:
                            visit(parent)
                        order.append(node)

                visit(root)
                return order
        """,
        # the drawing code's own answer
        "graph_lists": """
            def graph_lists(root, names):
                drawn = mg.viz.graph(root, params=names, show_broadcast=False)
                return [n.name for n in drawn.nodes], list(drawn.edge_names())
        """,
    }, ["2.3", "2.5"], None),
    "09-run-the-quiz-and-no-tensors": ("09_mixed_precision", "import numpy as np\n", {
        # the "prediction" measured by running the quiz under autocast
        "autocast_predictions": """
            def autocast_predictions():
                x, w, labels = mg.randn(8, 4), mg.randn(4, 3), mg.randint(0, 3, (8,))
                with mg.autocast("cpu", dtype=mg.bfloat16):
                    h = x @ w
                    return {
                        "matmul": (h.dtype, "lower"),
                        "relu": (h.relu().dtype, "none"),
                        "add": ((h + x[:, :3]).dtype, "promote"),
                        "softmax": (h.softmax(dim=-1).dtype, "none"),
                        "sum": (h.sum().dtype, "none"),
                        "loss": (mg.nn.functional.cross_entropy(h, labels).dtype, "float32"),
                    }
        """,
        # the product rounded to float16 once, no tensors
        "fp16_weight_grad": """
            def fp16_weight_grad(x_value, upstream, loss_scale):
                return float(np.float16(x_value * upstream * loss_scale)) / loss_scale
        """,
    }, ["9.2", "9.3"], None),
    "14-matrix-power-no-autograd": ("14_sequence_models", "import numpy as np\n", {
        # W^steps with NumPy, no autograd
        "gradient_through_time": """
            def gradient_through_time(w_hh, steps):
                w = w_hh.detach().numpy()
                ones = np.ones(w.shape[0])
                return float(np.linalg.norm(ones @ np.linalg.matrix_power(w, steps)))
        """,
    }, ["14.2"], None),
    # the optimizers' interface: settings read from each group at every step
    "06-settings-fixed-at-construction": ("06_optimizers_by_hand", "", {
        "AdamW": """
            class AdamW(Adam):
                def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                             weight_decay=1e-2):
                    super().__init__(params, lr, betas, eps, weight_decay)

                def step(self):
                    lr, wd = self.defaults["lr"], self.defaults["weight_decay"]
                    beta1, beta2 = self.defaults["betas"]
                    with mg.no_grad():
                        for group in self.param_groups:
                            for p in group["params"]:
                                if p.grad is None:
                                    continue
                                p.mul_(1 - lr * wd)
                                st = self.state.setdefault(
                                    id(p), {"t": 0, "m": mg.zeros_like(p), "v": mg.zeros_like(p)}
                                )
                                st["t"] += 1
                                st["m"].mul_(beta1).add_((1 - beta1) * p.grad)
                                st["v"].mul_(beta2).add_((1 - beta2) * p.grad * p.grad)
                                m_hat = st["m"] / (1 - beta1 ** st["t"])
                                v_hat = st["v"] / (1 - beta2 ** st["t"])
                                p.sub_(lr * m_hat / (v_hat.sqrt() + self.defaults["eps"]))
        """,
    }, ["6.3"], ["test_adamw_takes_param_groups_and_reads_lr_each_step"]),
    "06-first-groups-settings-for-all": ("06_optimizers_by_hand", "", {
        "SGDMomentum": """
            class SGDMomentum(HandOptimizer):
                def __init__(self, params, lr, momentum=0.0, weight_decay=0.0, nesterov=False):
                    defaults = dict(lr=lr, momentum=momentum, weight_decay=weight_decay,
                                    nesterov=nesterov)
                    super().__init__(params, defaults)

                def step(self):
                    first = self.param_groups[0]
                    lr, momentum, wd = first["lr"], first["momentum"], first["weight_decay"]
                    with mg.no_grad():
                        for p in [p for group in self.param_groups for p in group["params"]]:
                            if p.grad is None:
                                continue
                            g = p.grad + wd * p
                            if momentum != 0:
                                state = self.state.setdefault(id(p), {})
                                if "momentum_buffer" not in state:
                                    state["momentum_buffer"] = g.clone()
                                else:
                                    state["momentum_buffer"].mul_(momentum).add_(g)
                                buf = state["momentum_buffer"]
                                g = g + momentum * buf if first["nesterov"] else buf
                            p.sub_(lr * g)
        """,
    }, ["6.1"], ["test_sgd_takes_param_groups_and_reads_lr_each_step"]),
    # a walk that skips only the nodes it has emitted: right order, but each shared node is
    # expanded once per path to it (exponential on a graph of values used twice)
    "02-expand-once-per-path": ("02_autograd_from_scratch", "", {
        "topological_order": """
            def topological_order(root):
                order, stack, emitted = [], [(root, False)], set()
                while stack:
                    node, parents_done = stack.pop()
                    if parents_done:
                        if id(node) not in emitted:
                            emitted.add(id(node))
                            order.append(node)
                        continue
                    stack.append((node, True))
                    for parent in node.parents:
                        stack.append((parent, False))
                return order
        """,
    }, ["2.3"], ["test_topological_order_expands_each_node_once"]),
    # the bias left at zeros (within [-k, k], so a bound alone passes it)
    "04-bias-left-at-zero": ("04_modules_and_layers", "import math\n", {
        "MyLinear": """
            class MyLinear(nn.Module):
                def __init__(self, in_features, out_features, bias=True):
                    super().__init__()
                    k = 1 / math.sqrt(in_features)
                    self.weight = nn.Parameter(mg.rand(out_features, in_features) * 2 * k - k)
                    self.bias = nn.Parameter(mg.zeros(out_features)) if bias else None

                def forward(self, x):
                    y = x @ self.weight.T
                    return y if self.bias is None else y + self.bias
        """,
    }, ["4.1"], ["test_my_linear_initialisation_is_pytorchs"]),
    # the oracles themselves
    "08-call-minigenesis-clipping": ("08_clipping_accumulation", "", {
        "clip_grad_norm": """
            def clip_grad_norm(parameters, max_norm, norm_type=2.0):
                return mg.nn.utils.clip_grad_norm_(parameters, max_norm, norm_type).item()
        """,
        "clip_grad_value": """
            def clip_grad_value(parameters, clip_value):
                mg.nn.utils.clip_grad_value_(parameters, clip_value)
        """,
    }, ["8.1", "8.2"], ["test_8_1_is_written_by_hand", "test_8_2_is_written_by_hand"]),
    "04-call-the-layers": ("04_modules_and_layers", "", {
        "layer_norm": """
            def layer_norm(x, weight, bias, eps=1e-5):
                return mg.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps)
        """,
        "MyDropout": """
            class MyDropout(nn.Module):
                def __init__(self, p=0.5):
                    super().__init__()
                    if not 0 <= p <= 1:
                        raise ValueError(f"p must be in [0, 1], got {p}")
                    self.p = p

                def forward(self, x):
                    return nn.functional.dropout(x, self.p, self.training)
        """,
        "MyBatchNorm1d": """
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
                        self.num_batches_tracked.add_(1)
                    return nn.functional.batch_norm(
                        x, self.running_mean, self.running_var, self.weight, self.bias,
                        self.training, self.momentum, self.eps,
                    )
        """,
    }, ["4.3", "4.4", "4.5"], [
        "test_layer_norm_is_written_by_hand",
        "test_dropout_is_written_by_hand",
        "test_batchnorm_is_written_by_hand",
    ]),
    "05-call-the-losses": ("05_losses_and_training_loop", "", {
        "log_softmax": """
            def log_softmax(x, dim=-1):
                return x.log_softmax(dim=dim)
        """,
        "cross_entropy": """
            def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
                return mg.nn.functional.cross_entropy(
                    logits, target, ignore_index=ignore_index, label_smoothing=label_smoothing
                )
        """,
        "bce_with_logits": """
            def bce_with_logits(logits, targets):
                return mg.nn.functional.binary_cross_entropy_with_logits(logits, targets)
        """,
    }, ["5.1", "5.2", "5.3"], [
        "test_log_softmax_is_written_by_hand",
        "test_cross_entropy_is_written_by_hand",
        "test_bce_with_logits_is_written_by_hand",
    ]),
    # the epoch's loss as the plain mean of the batch means (the last, smaller batch overweighted)
    "05-mean-of-batch-means": ("05_losses_and_training_loop", "", {
        "fit": """
            def fit(model, x, y, epochs, batch_size, lr):
                model.train()
                history = []
                for _ in range(epochs):
                    perm = mg.randperm(len(x))
                    losses = [
                        train_step(model, mg.nn.functional.mse_loss, x[perm[s : s + batch_size]],
                                   y[perm[s : s + batch_size]], lr)
                        for s in range(0, len(x), batch_size)
                    ]
                    history.append(sum(losses) / len(losses))
                return history
        """,
    }, ["5.5"], ["test_fit_weights_the_epoch_loss_by_batch_size"]),
    "07-the-schedulers-own-lambda": ("07_lr_schedulers", "import minigenesis as mg\n", {
        "warmup_cosine_lambda": """
            def warmup_cosine_lambda(num_warmup_steps, num_training_steps):
                probe = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
                return mg.optim.get_cosine_schedule_with_warmup(
                    probe, num_warmup_steps, num_training_steps
                ).lr_lambdas[0]
        """,
    }, ["7.1"], ["test_7_1_is_written_by_hand"]),
    "11-call-checkpoint-sequential": ("11_memory_checkpointing", "", {
        "checkpointed_forward": """
            def checkpointed_forward(blocks, x, segments):
                return mg.utils.checkpoint_sequential(mg.nn.Sequential(*blocks), segments, x)
        """,
    }, ["11.3"], ["test_11_3_is_written_by_hand"]),
    # hooks removed only when the forward returns (no finally): a failing forward leaves them
    "12-hooks-left-after-an-error": ("12_diagnostics_logging", "", {
        "first_nonfinite_module": """
            def first_nonfinite_module(model, x):
                found, handles = [], []
                name_of = {id(m): n for n, m in model.named_modules()}

                def hook(module, inputs, output):
                    if not found and not bool(mg.isfinite(output).all()):
                        found.append(name_of[id(module)])

                for _, m in model.named_modules():
                    handles.append(m.register_forward_hook(hook))
                model(x)
                for h in handles:
                    h.remove()
                return found[0] if found else None
        """,
    }, ["12.3"], ["test_12_3_hooks_are_removed_even_when_forward_raises"]),
    # the loss scaler driving an optimizer of chapter 6's (two groups, an overflow in the second)
    "09-unscale-the-first-group-only": ("09_mixed_precision", "", {
        "ManualGradScaler": _FIRST_GROUP_ONLY,
    }, ["9.5"], ["test_9_5_drives_an_optimizer_written_by_hand"]),
    "09-undo-the-step-after-an-inf": ("09_mixed_precision", "", {
        "ManualGradScaler": _UNDO_THE_STEP,
    }, ["9.5"], ["test_9_5_drives_an_optimizer_written_by_hand"]),
    # answers that write into what they were given: the caller's array, the gradient handed to
    # a backward, the saved input, the parameters' .grad
    "01-oracles-and-the-callers-array": ("01_tensors_and_dtypes", "import ml_dtypes\n", {
        "round_to_bfloat16": """
            def round_to_bfloat16(x):
                bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
                bits += np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))
                bits &= np.uint32(0xFFFF0000)
                return bits.view(np.float32)
        """,
        "format_limits": """
            def format_limits(fmt):
                dt = {"float32": np.float32, "float16": np.float16,
                      "bfloat16": ml_dtypes.bfloat16}[fmt]
                info = ml_dtypes.finfo(dt)
                return {"max": float(info.max), "tiny": float(info.tiny), "eps": float(info.eps)}
        """,
        "contiguous_strides": """
            def contiguous_strides(shape, itemsize):
                return np.empty(shape, dtype=f"V{itemsize}").strides
        """,
    }, ["1.3", "1.4", "1.5"], [
        "test_round_to_bfloat16_leaves_its_input_alone",
        "test_format_limits_are_worked_out_by_hand",
        "test_contiguous_strides_of_a_shape_too_big_to_allocate",
    ]),
    "03-backwards-write-into-their-inputs": ("03_broadcasting_and_gradients", "", {
        "linear_backward": """
            def linear_backward(x, w, b, grad_out):
                gw, gb = grad_out.T @ x, grad_out.sum(axis=0)
                x[...] = grad_out @ w  # dL/dx has x's shape: reuse its memory
                return x, gw, gb
        """,
        "softmax_backward": """
            def softmax_backward(y, grad_out):
                grad_out -= (grad_out * y).sum(axis=-1, keepdims=True)
                grad_out *= y
                return grad_out
        """,
    }, ["3.4", "3.5"], [
        "test_linear_backward_leaves_its_inputs_alone",
        "test_softmax_backward_leaves_its_inputs_alone",
    ]),
    "02-softplus-clamps-its-input": ("02_autograd_from_scratch", "", {
        "Softplus": """
            class Softplus(mg.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x)
                    tail = (1 + (-x.abs()).exp()).log()
                    return x.clamp_(min=0) + tail
                @staticmethod
                def backward(ctx, grad_output):
                    (x,) = ctx.saved_tensors
                    return grad_output * x.sigmoid()
        """,
    }, ["2.6"], ["test_softplus_leaves_its_input_alone"]),
    "05-old-gradients-and-one-shuffle": ("05_losses_and_training_loop", "", {
        "train_step": """
            def train_step(model, loss_fn, x, y, lr):
                loss = loss_fn(model(x), y)
                loss.backward()
                with mg.no_grad():
                    for p in model.parameters():
                        if p.grad is not None:
                            p.sub_(lr * p.grad)
                model.zero_grad()
                return loss.item()
        """,
        "fit": """
            def fit(model, x, y, epochs, batch_size, lr):
                model.train()
                n, history = len(x), []
                perm = mg.randperm(n)
                for _ in range(epochs):
                    total = 0.0
                    for start in range(0, n, batch_size):
                        idx = perm[start : start + batch_size]
                        total += train_step(model, mg.nn.functional.mse_loss, x[idx], y[idx],
                                            lr) * len(idx)
                    history.append(total / n)
                return history
        """,
    }, ["5.4", "5.5"], [
        "test_train_step_clears_old_gradients_first_and_keeps_its_own",
        "test_fit_starts_training_mode_and_shuffles_every_epoch",
    ]),
    "06-decay-added-into-the-gradient": ("06_optimizers_by_hand", "", {
        "SGDMomentum": """
            class SGDMomentum(HandOptimizer):
                def __init__(self, params, lr, momentum=0.0, weight_decay=0.0, nesterov=False):
                    super().__init__(params, dict(lr=lr, momentum=momentum,
                                                  weight_decay=weight_decay, nesterov=nesterov))

                def step(self):
                    with mg.no_grad():
                        for group in self.param_groups:
                            lr, momentum = group["lr"], group["momentum"]
                            for p in group["params"]:
                                if p.grad is None:
                                    continue
                                g = p.grad.add_(group["weight_decay"] * p)
                                if momentum != 0:
                                    state = self.state.setdefault(id(p), {})
                                    if "momentum_buffer" not in state:
                                        state["momentum_buffer"] = g.clone()
                                    else:
                                        state["momentum_buffer"].mul_(momentum).add_(g)
                                    buf = state["momentum_buffer"]
                                    g = g + momentum * buf if group["nesterov"] else buf
                                p.sub_(lr * g)
        """,
    }, ["6.1"], ["test_sgd_matches_mg_optim"]),
    "08-clip-without-the-epsilon": ("08_clipping_accumulation", "import math\n", {
        "clip_grad_norm": """
            def clip_grad_norm(parameters, max_norm, norm_type=2.0):
                grads = [p.grad for p in parameters if p.grad is not None]
                if norm_type == math.inf:
                    total = max(g.abs().max().item() for g in grads)
                else:
                    total = sum((g.abs() ** norm_type).sum().item()
                                for g in grads) ** (1 / norm_type)
                for g in grads:
                    g.mul_(min(1.0, max_norm / total))
                return total
        """,
    }, ["8.1"], ["test_8_1_all_zero_gradients_stay_zero",
                 "test_8_1_closed_form_on_gradients_set_by_hand"]),
    "13-around-the-scaler-and-a-graph-in-eval": ("13_capstone", "", {
        "train_step": """
            def train_step(model, optimizer, scheduler, scaler, x, y, max_norm):
                optimizer.zero_grad()
                with mg.autocast("cpu", dtype=mg.bfloat16):
                    loss = mg.nn.functional.cross_entropy(model(x), y)
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
                norm = mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
                lr = optimizer.param_groups[0]["lr"]
                optimizer.step()
                scaler.update()
                scheduler.step()
                return {"loss": loss.item(), "grad_norm": float(norm), "lr": lr}
        """,
        "evaluate": """
            def evaluate(model, X, y, batch_size=256):
                was_training = model.training
                model.eval()
                total, correct = 0.0, 0
                for start in range(0, len(y), batch_size):
                    xb, yb = X[start : start + batch_size], y[start : start + batch_size]
                    logits = model(xb)
                    total += mg.nn.functional.cross_entropy(logits, yb, reduction="sum").item()
                    correct += int((logits.argmax(dim=1) == yb).sum().item())
                model.train(was_training)
                return total / len(y), correct / len(y)
        """,
    }, ["13.2", "13.3"], [
        "test_13_2_a_step_with_inf_gradients_is_skipped",
        "test_13_3_evaluates_without_a_graph",
    ]),
    "12-elif-rules-and-nan-only": ("12_diagnostics_logging", "import math\n", {
        "diagnose": """
            def diagnose(train_losses, val_losses, window=10, high_loss=0.5, gap=0.1,
                         converge_tol=0.01):
                train, val = [float(x) for x in train_losses], [float(x) for x in val_losses]
                if any(not math.isfinite(x) for x in train):
                    return ["diverging"]
                if len(train) < window:
                    return ["too_short"]
                t, v = train[-window:], val[-window:]
                if t[-1] > t[0] and t[-1] > 1.5 * min(train):
                    return ["diverging"]
                if t[-1] < t[0] and v[-1] > v[0]:
                    return ["overfitting"]
                if t[-1] > high_loss and abs(t[-1] - v[-1]) < gap:
                    return ["underfitting"]
                if abs(t[-1] - t[0]) < converge_tol:
                    return ["converged"]
                return []
        """,
        "first_nonfinite_module": """
            def first_nonfinite_module(model, x):
                first = []

                def hook(module, inputs, output):
                    if not first and bool(mg.isnan(output).any()):
                        first.append(names[id(module)])

                names = {id(m): n for n, m in model.named_modules()}
                handles = [m.register_forward_hook(hook) for m in model.modules()]
                try:
                    with mg.no_grad():
                        model(x)
                finally:
                    for h in handles:
                        h.remove()
                return first[0] if first else None
        """,
    }, ["12.2", "12.3"], [
        "test_12_2_rules_at_their_edges",
        "test_12_3_inf_counts_and_the_model_itself_has_a_name",
    ]),
    "14-untransposed-and-generating-in-training-mode": ("14_sequence_models", "", {
        "gradient_through_time": """
            def gradient_through_time(w_hh, steps):
                h0 = mg.ones(1, w_hh.shape[0], dtype=w_hh.dtype, requires_grad=True)
                h = h0
                for _ in range(steps):
                    h = h @ w_hh
                h.sum().backward()
                return float(h0.grad.norm())
        """,
        "generate": """
            def generate(model, prompt, n):
                out = list(prompt)
                logits, state = model(mg.tensor([prompt], dtype=mg.int64))
                for k in range(n):
                    nxt = int(logits[0, -1].argmax())
                    out.append(nxt)
                    if k < n - 1:
                        logits, state = model(mg.tensor([[nxt]], dtype=mg.int64), state)
                return out
        """,
    }, ["14.2", "14.5"], [
        "test_14_2_multiplies_by_w_transposed",
        "test_14_5_generates_in_eval_mode_without_a_graph",
    ]),
    "16-ring-into-the-callers-array": ("16_distributed", "", {
        "ring_all_reduce": """
            def ring_all_reduce(comm, x):
                r, n = comm.Get_rank(), comm.Get_size()
                bounds = chunks(x.size, n)
                right, left = (r + 1) % n, (r - 1) % n

                def part(i):
                    start, stop = bounds[i % n]
                    return x[start:stop]

                for s in range(n - 1):
                    part(r - s - 1)[...] += comm.sendrecv(part(r - s), dest=right, source=left)
                for s in range(n - 1):
                    part(r - s)[...] = comm.sendrecv(part(r + 1 - s), dest=right, source=left)
                return x
        """,
    }, ["16.2"], ["test_16_2_ring_all_reduce_sums_on_every_rank"]),
}  # fmt: skip


def _with_answers(template: str, imports: str, answers: dict[str, str]) -> str:
    """The template with some top-level functions replaced, and ``imports`` after its own."""
    lines = template.splitlines()
    spans = [
        (n.lineno, n.end_lineno, n.name)
        for n in ast.parse(template).body
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name in answers
    ]
    assert len(spans) == len(answers)
    for start, end, name in sorted(spans, reverse=True):
        lines[start - 1 : end] = textwrap.dedent(answers[name]).strip("\n").splitlines()
    text = "\n".join(lines) + "\n"
    cut = text.index("\n\n", text.index("from __future__"))
    return text[:cut] + "\n" + imports + text[cut:]


@pytest.mark.parametrize("case", sorted(CASES))
def test_shortcuts_fail_their_exercises_checks(tmp_path: Path, case: str):
    chapter, imports, answers, numbers, caught_by = CASES[case]
    lessons = tmp_path / "lessons"  # the whole course: a check may read another chapter's files
    skip = shutil.ignore_patterns(
        "exercises.py", "exercises.*.py", "*.ipynb", "__pycache__", "_moved", "_build"
    )
    shutil.copytree(LESSONS, lessons, ignore=skip)
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    template = (lessons / chapter / "exercises_template.py").read_text(encoding="utf-8")
    (lessons / chapter / "exercises.py").write_text(_with_answers(template, imports, answers))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MINIGENESIS_SOLUTIONS", None)
    env.pop("MINIGENESIS_STUBS", None)
    # the checks of the exercises cheated on (chapters 1 to 6 name them without numbers)
    keyword = " or ".join(f"test_{n.replace('.', '_')}_" for n in numbers)
    unnumbered = chapter in (
        "01_tensors_and_dtypes",
        "02_autograd_from_scratch",
        "03_broadcasting_and_gradients",
        "04_modules_and_layers",
        "05_losses_and_training_loop",
        "06_optimizers_by_hand",
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:nbmake", "-rf"]
        + ["-p", "no:hypothesispytest", "-q", f"lessons/{chapter}/test_lesson.py"]
        + ([] if unnumbered else ["-k", keyword]),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = run.stdout
    assert run.returncode == 1, out
    for number in numbers:
        # the exercise's failure is headed by its number
        assert f"Exercise {number}: this check of your answer failed" in out, (number, out)
    if caught_by is not None:  # exactly the checks the chapter's list of shortcuts names
        failed = set(re.findall(r"^FAILED \S+::(\w+)", out, re.M))
        assert failed == set(caught_by), out[-3000:]
