"""Answers a learner wrote to chapters 8, 11 and 12, for tests/course/test_learner_answers.py.

RIGHT: every exercise of a chapter answered correctly in other words than solutions.py
(other algorithms, names, shapes, orders). MISTAKES: one honest mistake in each of
several exercises of a chapter, with words each failure must contain (each exercise is
checked with the reference answers for the others, so one run checks them all).
"""

_RIGHT_08_CLIP_GRAD_NORM = """
    def clip_grad_norm(parameters, max_norm, norm_type=2.0):
        grads = [p.grad for p in parameters if p.grad is not None]
        if norm_type == math.inf:
            total = max((float(g.abs().max().item()) for g in grads), default=0.0)
        else:
            acc = 0.0
            for g in grads:
                acc += float((g.abs() ** norm_type).sum().item())
            total = acc ** (1.0 / norm_type)
        factor = max_norm / (total + 1e-6)
        if factor < 1:
            for g in grads:
                g.mul_(factor)
        return total
"""

_RIGHT_08_CLIP_GRAD_VALUE = """
    def clip_grad_value(parameters, clip_value):
        for p in parameters:
            if p.grad is None:
                continue
            p.grad.clamp_(min=-clip_value, max=clip_value)
"""

_RIGHT_08_ACCUMULATE_GRADIENTS = """
    def accumulate_gradients(model, loss_fn, inputs, targets, micro_batches):
        n = inputs.shape[0]
        if n % micro_batches:
            raise ValueError(f"{n} examples do not split into {micro_batches} equal micro-batches")
        model.zero_grad()
        size, total = n // micro_batches, 0.0
        for k in range(micro_batches):
            sl = slice(k * size, (k + 1) * size)
            part = loss_fn(model(inputs[sl]), targets[sl]) / micro_batches
            part.backward()
            total += part.item()
        return total
"""

_RIGHT_08_GRAD_NORMS = """
    def grad_norms(model):
        out, squares = {}, 0.0
        for name, p in model.named_parameters():
            if p.grad is not None:
                n = float(np.sqrt((p.grad.numpy().astype(np.float64) ** 2).sum()))
                out[name] = n
                squares += n * n
        out["total"] = squares ** 0.5
        return out
"""

_RIGHT_08_NONFINITE_GRADS = """
    def nonfinite_grads(model):
        return [n for n, p in model.named_parameters()
                if p.grad is not None and not np.isfinite(p.grad.numpy()).all()]
"""

_WRONG_08_CLIP_GRAD_NORM = """
    def clip_grad_norm(parameters, max_norm, norm_type=2.0):
        total = 0.0
        for p in parameters:
            if p.grad is None:
                continue
            n = float((p.grad.abs() ** norm_type).sum().item()) ** (1 / norm_type)
            total = max(total, n)
            p.grad.mul_(min(1.0, max_norm / (n + 1e-6)))
        return total
"""

_WRONG_08_CLIP_GRAD_VALUE = """
    def clip_grad_value(parameters, clip_value):
        for p in parameters:
            if p.grad is None:
                continue
            g = p.grad.clamp(-clip_value, clip_value)
"""

_WRONG_08_ACCUMULATE_GRADIENTS = """
    def accumulate_gradients(model, loss_fn, inputs, targets, micro_batches):
        n = inputs.shape[0]
        if n % micro_batches:
            raise ValueError(f"{n} examples do not split into {micro_batches} equal micro-batches")
        size, total = n // micro_batches, 0.0
        for k in range(micro_batches):
            sl = slice(k * size, (k + 1) * size)
            part = loss_fn(model(inputs[sl]), targets[sl]) / micro_batches
            part.backward()
            total += part.item()
        return total
"""

_WRONG_08_GRAD_NORMS = """
    def grad_norms(model):
        out, squares = {}, 0.0
        for name, p in model.named_parameters():
            if p.grad is not None:
                n = float(np.sqrt((p.grad.numpy().astype(np.float64) ** 2).sum()))
                out[name] = n
                squares += n
        out["total"] = squares
        return out
"""

_WRONG_08_NONFINITE_GRADS = """
    def nonfinite_grads(model):
        return [n for n, p in model.named_parameters()
                if p.grad is not None and np.isnan(p.grad.numpy()).any()]
"""

_RIGHT_11_PEAK_BYTES = """
    def peak_bytes(fn, *args):
        started_here = not tracemalloc.is_tracing()
        if started_here:
            tracemalloc.start()
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        try:
            out = fn(*args)
            _, top = tracemalloc.get_traced_memory()
        finally:
            if started_here:
                tracemalloc.stop()
        return out, top - base
"""

_RIGHT_11_STORED_ACTIVATIONS = """
    def stored_activations(num_layers, segments):
        per = num_layers // segments
        checkpointed = segments - 1
        return checkpointed + (num_layers - checkpointed * per)
"""

_RIGHT_11_BEST_SEGMENTS = """
    def best_segments(num_layers):
        return min(range(1, num_layers + 1), key=lambda s: stored_activations(num_layers, s))
"""

_RIGHT_11_CHECKPOINTED_FORWARD = """
    def checkpointed_forward(blocks, x, segments):
        size = len(blocks) // segments
        blocks = list(blocks)
        for i in range(segments - 1):
            chunk = mg.nn.Sequential(*blocks[i * size:(i + 1) * size])
            x = mg.utils.checkpoint(chunk, x)
        for block in blocks[(segments - 1) * size:]:
            x = block(x)
        return x
"""

_RIGHT_11_TRAINING_STEP_PEAK = """
    def training_step_peak(model, x, segments):
        model.zero_grad()
        def step():
            if segments is None:
                out = model(x)
            else:
                out = mg.utils.checkpoint_sequential(model, segments, x)
            out.sum().backward()
        return peak_bytes(step)[1]
"""

_WRONG_11_PEAK_BYTES = """
    def peak_bytes(fn, *args):
        started_here = not tracemalloc.is_tracing()
        if started_here:
            tracemalloc.start()
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        try:
            out = fn(*args)
            _, top = tracemalloc.get_traced_memory()
        finally:
            if started_here:
                tracemalloc.stop()
        return out, top
"""

_WRONG_11_BEST_SEGMENTS = """
    def best_segments(num_layers):
        costs = {s: stored_activations(num_layers, s) for s in range(1, num_layers + 1)}
        low = min(costs.values())
        return max(s for s, c in costs.items() if c == low)
"""

_WRONG_11_CHECKPOINTED_FORWARD = """
    def checkpointed_forward(blocks, x, segments):
        size = len(blocks) // segments
        blocks = list(blocks)
        for i in range(segments - 1):
            chunk = mg.nn.Sequential(*blocks[i * size:(i + 1) * size])
            x = mg.utils.checkpoint(chunk, x)
        for block in blocks[segments * size:]:
            x = block(x)
        return x
"""

_RIGHT_12_EMA_SMOOTH = """
    def ema_smooth(values, weight=0.6):
        out, acc, decay = [], 0.0, 1.0
        for v in values:
            acc = acc * weight + v * (1 - weight)
            decay *= weight
            out.append(acc / (1 - decay) if weight else float(v))
        return out
"""

_RIGHT_12_DIAGNOSE = """
    def diagnose(train_losses, val_losses, window=10, high_loss=0.5, gap=0.1, converge_tol=0.01):
        everything = list(train_losses) + list(val_losses)
        if any(not math.isfinite(v) for v in everything):
            return ["diverging"]
        if len(train_losses) < window:
            return ["too_short"]
        t, v = list(train_losses)[-window:], list(val_losses)[-window:]
        found = []
        if t[-1] > t[0] and t[-1] > 1.5 * min(train_losses):
            found.append("diverging")
        if t[-1] < t[0] and v[-1] > v[0]:
            found.append("overfitting")
        if t[-1] > high_loss and abs(t[-1] - v[-1]) < gap:
            found.append("underfitting")
        if abs(t[-1] - t[0]) < converge_tol:
            found.append("converged")
        return found
"""

_RIGHT_12_FIRST_NONFINITE_MODULE = """
    def first_nonfinite_module(model, x):
        culprits, handles = [], []
        def make(name):
            def hook(module, inputs, output):
                if not culprits and not bool(mg.isfinite(output).all()):
                    culprits.append(name)
            return hook
        try:
            for name, module in model.named_modules():
                handles.append(module.register_forward_hook(make(name)))
            model(x)
        finally:
            while handles:
                handles.pop().remove()
        return culprits[0] if culprits else None
"""

_RIGHT_12_READ_TFRECORDS = """
    def read_tfrecords(path):
        blob = Path(path).read_bytes()
        pos, out = 0, []
        while pos < len(blob):
            if pos + 12 > len(blob):
                raise ValueError("truncated header")
            header = blob[pos:pos + 8]
            (n,) = struct.unpack("<Q", header)
            (hcrc,) = struct.unpack("<I", blob[pos + 8:pos + 12])
            if hcrc != masked_crc32c(header):
                raise ValueError("bad length crc")
            start, end = pos + 12, pos + 12 + n
            if end + 4 > len(blob):
                raise ValueError("truncated data")
            data = blob[start:end]
            (dcrc,) = struct.unpack("<I", blob[end:end + 4])
            if dcrc != masked_crc32c(data):
                raise ValueError("bad data crc")
            out.append(data)
            pos = end + 4
        return out
"""

_WRONG_12_EMA_SMOOTH = """
    def ema_smooth(values, weight=0.6):
        out, last = [], 0.0
        for k, v in enumerate(values):
            last = weight * last + (1 - weight) * v
            out.append(last / (1 - weight ** k) if k else last)
        return out
"""

_WRONG_12_FIRST_NONFINITE_MODULE = """
    def first_nonfinite_module(model, x):
        culprits, handles = [], []
        def make(name):
            def hook(module, inputs, output):
                if not bool(mg.isfinite(output).all()):
                    culprits.append(name)
            return hook
        try:
            for name, module in model.named_modules():
                handles.append(module.register_forward_hook(make(name)))
            model(x)
        finally:
            while handles:
                handles.pop().remove()
        return culprits[-1] if culprits else None
"""

_WRONG_12_READ_TFRECORDS = """
    def read_tfrecords(path):
        blob = Path(path).read_bytes()
        pos, out = 0, []
        while pos < len(blob):
            if pos + 12 > len(blob):
                raise ValueError("truncated header")
            header = blob[pos:pos + 8]
            (n,) = struct.unpack(">Q", header)
            (hcrc,) = struct.unpack("<I", blob[pos + 8:pos + 12])
            if hcrc != masked_crc32c(header):
                raise ValueError("bad length crc")
            start, end = pos + 12, pos + 12 + n
            if end + 4 > len(blob):
                raise ValueError("truncated data")
            data = blob[start:end]
            (dcrc,) = struct.unpack("<I", blob[end:end + 4])
            if dcrc != masked_crc32c(data):
                raise ValueError("bad data crc")
            out.append(data)
            pos = end + 4
        return out
"""

# chapter folder, extra imports, answers, the exercises they answer
RIGHT = {
    "08-every-exercise-in-other-words": (
        "08_clipping_accumulation",
        "import numpy as np\nimport math",
        {
            "clip_grad_norm": _RIGHT_08_CLIP_GRAD_NORM,
            "clip_grad_value": _RIGHT_08_CLIP_GRAD_VALUE,
            "accumulate_gradients": _RIGHT_08_ACCUMULATE_GRADIENTS,
            "grad_norms": _RIGHT_08_GRAD_NORMS,
            "nonfinite_grads": _RIGHT_08_NONFINITE_GRADS,
        },
        ["8.1", "8.2", "8.3", "8.4", "8.5"],
    ),
    "11-every-exercise-in-other-words": (
        "11_memory_checkpointing",
        "import tracemalloc",
        {
            "peak_bytes": _RIGHT_11_PEAK_BYTES,
            "stored_activations": _RIGHT_11_STORED_ACTIVATIONS,
            "best_segments": _RIGHT_11_BEST_SEGMENTS,
            "checkpointed_forward": _RIGHT_11_CHECKPOINTED_FORWARD,
            "training_step_peak": _RIGHT_11_TRAINING_STEP_PEAK,
        },
        ["11.1", "11.2", "11.3", "11.4"],
    ),
    "12-every-exercise-in-other-words": (
        "12_diagnostics_logging",
        "import math\nimport struct",
        {
            "ema_smooth": _RIGHT_12_EMA_SMOOTH,
            "diagnose": _RIGHT_12_DIAGNOSE,
            "first_nonfinite_module": _RIGHT_12_FIRST_NONFINITE_MODULE,
            "read_tfrecords": _RIGHT_12_READ_TFRECORDS,
        },
        ["12.1", "12.2", "12.3", "12.4"],
    ),
}

# chapter folder, extra imports, answers, (exercise, words its failure must contain)
MISTAKES = {
    "08-one-mistake-an-exercise": (
        "08_clipping_accumulation",
        "import math\nimport numpy as np",
        {
            "clip_grad_norm": _WRONG_08_CLIP_GRAD_NORM,
            "clip_grad_value": _WRONG_08_CLIP_GRAD_VALUE,
            "accumulate_gradients": _WRONG_08_ACCUMULATE_GRADIENTS,
            "grad_norms": _WRONG_08_GRAD_NORMS,
            "nonfinite_grads": _WRONG_08_NONFINITE_GRADS,
        },
        [
            ("8.1", "the norm of ALL gradients as one vector"),
            ("8.2", "clamp p.grad itself, in place"),
            ("8.3", "the model came with stale gradients"),
            ("8.4", "not their sum"),
            ("8.5", "fc2.weight a -inf"),
        ],
    ),
    "11-one-mistake-an-exercise": (
        "11_memory_checkpointing",
        "import tracemalloc",
        {
            "peak_bytes": _WRONG_11_PEAK_BYTES,
            "stored_activations": _RIGHT_11_STORED_ACTIVATIONS,
            "best_segments": _WRONG_11_BEST_SEGMENTS,
            "checkpointed_forward": _WRONG_11_CHECKPOINTED_FORWARD,
        },
        [
            ("11.1", "subtract the memory traced at the start"),
            ("11.2", "on a tie return the smallest"),
            ("11.3", "did those blocks run?"),
        ],
    ),
    "12-one-mistake-an-exercise": (
        "12_diagnostics_logging",
        "import math\nimport struct",
        {
            "ema_smooth": _WRONG_12_EMA_SMOOTH,
            "first_nonfinite_module": _WRONG_12_FIRST_NONFINITE_MODULE,
            "read_tfrecords": _WRONG_12_READ_TFRECORDS,
        },
        [
            ("12.1", "k counted from 1"),
            ("12.3", "keep the FIRST non-finite output"),
            ("12.4", "little-endian uint64"),
        ],
    ),
}
