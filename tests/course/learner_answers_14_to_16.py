"""Answers a learner wrote to chapters 14 and 16, for tests/course/test_learner_answers.py.

RIGHT: every exercise of a chapter answered correctly in other words than solutions.py
(other algorithms, names, shapes, orders). MISTAKES: one honest mistake in each of
several exercises of a chapter, with words each failure must contain (each exercise is
checked with the reference answers for the others, so one run checks them all).
"""

_RIGHT_14_RNN_CELL = """
    def rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh):
        both = mg.cat([x, h], dim=1) @ mg.cat([w_ih, w_hh], dim=1).mT
        return (both + (b_ih + b_hh)).tanh()
"""

_RIGHT_14_GRADIENT_THROUGH_TIME = """
    def gradient_through_time(w_hh, steps):
        start = mg.ones(1, w_hh.shape[0], dtype=w_hh.dtype, requires_grad=True)
        state = start
        for _ in range(steps):
            state = (w_hh @ state.mT).mT
        state.sum().backward()
        return float((start.grad * start.grad).sum().item() ** 0.5)
"""

_RIGHT_14_LSTM_CELL = """
    def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
        n = h.shape[1]
        z = x @ w_ih.mT + h @ w_hh.mT + b_ih + b_hh
        gate_in = z[:, 0:n].sigmoid()
        gate_forget = z[:, n:2 * n].sigmoid()
        cand = z[:, 2 * n:3 * n].tanh()
        gate_out = z[:, 3 * n:].sigmoid()
        c_next = gate_forget * c + gate_in * cand
        return gate_out * c_next.tanh(), c_next
"""

_RIGHT_14_CHARLSTM = """
    class CharLSTM(nn.Module):
        def __init__(self, vocab_size, embed_dim=16, hidden_size=64, num_layers=1):
            super().__init__()
            self.embed = nn.Embedding(vocab_size, embed_dim)
            self.lstm = nn.LSTM(embed_dim, hidden_size, num_layers=num_layers, batch_first=True)
            self.head = nn.Linear(hidden_size, vocab_size)

        def forward(self, x, state=None):
            seq, new_state = self.lstm(self.embed(x), state)
            return self.head(seq), new_state
"""

_RIGHT_14_GENERATE = """
    def generate(model, prompt, n):
        mode = model.training
        model.eval()
        out = list(prompt)
        try:
            with mg.no_grad():
                logits, state = model(mg.tensor([prompt], dtype=mg.int64))
                for i in range(n):
                    nxt = int(logits[0, -1].argmax().item())
                    out.append(nxt)
                    if i < n - 1:
                        logits, state = model(mg.tensor([[nxt]], dtype=mg.int64), state)
        finally:
            model.train(mode)
        return out
"""

_WRONG_14_RNN_CELL = """
    def rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh):
        return (x @ w_ih.mT + b_ih + h @ w_hh.mT).tanh()
"""

_WRONG_14_GRADIENT_THROUGH_TIME = """
    def gradient_through_time(w_hh, steps):
        start = mg.ones(1, w_hh.shape[0], dtype=w_hh.dtype)
        state = start
        for _ in range(steps):
            state = (w_hh @ state.mT).mT
        state.sum().backward()
        return float((start.grad * start.grad).sum().item() ** 0.5)
"""

_WRONG_14_LSTM_CELL = """
    def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
        n = h.shape[1]
        z = x @ w_ih.mT + h @ w_hh.mT + b_ih + b_hh
        gate_in = z[:, 0:n].sigmoid()
        gate_forget = z[:, n:2 * n].sigmoid()
        cand = z[:, 3 * n:].tanh()
        gate_out = z[:, 2 * n:3 * n].sigmoid()
        c_next = gate_forget * c + gate_in * cand
        return gate_out * c_next.tanh(), c_next
"""

_WRONG_14_CHARLSTM = """
    class CharLSTM(nn.Module):
        def __init__(self, vocab_size, embed_dim=16, hidden_size=64, num_layers=1):
            super().__init__()
            self.embed = nn.Embedding(vocab_size, embed_dim)
            self.lstm = nn.LSTM(embed_dim, hidden_size, num_layers=num_layers)
            self.head = nn.Linear(hidden_size, vocab_size)

        def forward(self, x, state=None):
            seq, new_state = self.lstm(self.embed(x), state)
            return self.head(seq), new_state
"""

_WRONG_14_GENERATE = """
    def generate(model, prompt, n):
        mode = model.training
        model.eval()
        out = list(prompt)
        try:
            with mg.no_grad():
                logits, state = model(mg.tensor([prompt], dtype=mg.int64))
                for i in range(n):
                    nxt = int(logits[0, -1].argmax().item())
                    out.append(nxt)
                    if i < n - 1:
                        logits, state = model(mg.tensor([[nxt]], dtype=mg.int64))
        finally:
            model.train(mode)
        return out
"""

_RIGHT_16_CHUNKS = """
    def chunks(n, world):
        bounds, start = [], 0
        for r in range(world):
            size = n // world + (1 if r < n % world else 0)
            bounds.append((start, start + size))
            start += size
        return bounds
"""

_RIGHT_16_RING_ALL_REDUCE = """
    def ring_all_reduce(comm, x):
        n, r = comm.Get_size(), comm.Get_rank()
        buf = x.astype(float, copy=True)
        parts = chunks(buf.size, n)
        right, left = (r + 1) % n, (r - 1) % n
        def view(k):
            a, b = parts[k % n]
            return buf[a:b]
        # a shifted ring: rank r ends the reduce-scatter with the full chunk r
        for s in range(n - 1):
            got = comm.sendrecv(view(r - s - 1), dest=right, source=left)
            view(r - s - 2)[:] += got
        for s in range(n - 1):
            got = comm.sendrecv(view(r - s), dest=right, source=left)
            view(r - s - 1)[:] = got
        return buf
"""

_RIGHT_16_RING_TIME = """
    def ring_time(nbytes, world, bandwidth, latency):
        if world < 2:
            return 0.0
        steps = 2 * (world - 1)
        per_message = latency + (nbytes / world) / bandwidth
        return steps * per_message
"""

_RIGHT_16_ASSIGN_BUCKETS = """
    def assign_buckets(nbytes, cap):
        out, cur, filled = [], [], 0
        for i in reversed(range(len(nbytes))):
            cur.append(i)
            filled += nbytes[i]
            if filled >= cap:
                out.append(cur)
                cur, filled = [], 0
        if cur:
            out.append(cur)
        return out
"""

_RIGHT_16_AVERAGE_GRADIENTS = """
    def average_gradients(model, comm):
        world = comm.Get_size()
        for p in model.parameters():
            if p.grad is None:
                continue
            mean = comm.allreduce(p.grad.numpy()) / world
            p.grad.copy_(mg.tensor(mean, dtype=p.grad.dtype))
"""

_WRONG_16_CHUNKS = """
    def chunks(n, world):
        bounds, start = [], 0
        for r in range(world):
            size = n // world + (1 if r >= world - n % world else 0)
            bounds.append((start, start + size))
            start += size
        return bounds
"""

_WRONG_16_RING_ALL_REDUCE = """
    def ring_all_reduce(comm, x):
        n, r = comm.Get_size(), comm.Get_rank()
        buf = x.astype(float, copy=True)
        parts = chunks(buf.size, n)
        right, left = (r + 1) % n, (r - 1) % n
        def view(k):
            a, b = parts[k % n]
            return buf[a:b]
        # a shifted ring: rank r ends the reduce-scatter with the full chunk r
        for s in range(n - 1):
            got = comm.sendrecv(view(r - s - 1), dest=right, source=left)
            view(r - s - 2)[:] += got
        for s in range(n - 1):
            got = comm.sendrecv(view(r - s), dest=right, source=left)
            view(r - s - 1)[:] += got
        return buf
"""

_WRONG_16_RING_TIME = """
    def ring_time(nbytes, world, bandwidth, latency):
        if world < 2:
            return 0.0
        steps = 2 * (world - 1)
        per_message = latency + nbytes / bandwidth
        return steps * per_message
"""

_WRONG_16_ASSIGN_BUCKETS = """
    def assign_buckets(nbytes, cap):
        out, cur, filled = [], [], 0
        for i in reversed(range(len(nbytes))):
            cur.append(i)
            filled += nbytes[i]
            if filled > cap:
                out.append(cur)
                cur, filled = [], 0
        if cur:
            out.append(cur)
        return out
"""

_WRONG_16_AVERAGE_GRADIENTS = """
    def average_gradients(model, comm):
        world = comm.Get_size()
        for p in model.parameters():
            if p.grad is None:
                continue
            mean = comm.allreduce(p.grad.numpy())
            p.grad.copy_(mg.tensor(mean, dtype=p.grad.dtype))
"""
_WRONG_14_GRADIENT_THROUGH_TIME_FLOAT32 = """
    def gradient_through_time(w_hh, steps):
        h0 = mg.ones(1, w_hh.shape[0], requires_grad=True)
        h = h0
        for _ in range(steps):
            h = h @ w_hh.mT
        h.sum().backward()
        return h0.grad.norm().item()
"""


# chapter folder, extra imports, answers, the exercises they answer
RIGHT = {
    "14-every-exercise-in-other-words": (
        "14_sequence_models",
        "",
        {
            "rnn_cell": _RIGHT_14_RNN_CELL,
            "gradient_through_time": _RIGHT_14_GRADIENT_THROUGH_TIME,
            "lstm_cell": _RIGHT_14_LSTM_CELL,
            "CharLSTM": _RIGHT_14_CHARLSTM,
            "generate": _RIGHT_14_GENERATE,
        },
        ["14.1", "14.2", "14.3", "14.4", "14.5"],
    ),
    "16-every-exercise-in-other-words": (
        "16_distributed",
        "",
        {
            "chunks": _RIGHT_16_CHUNKS,
            "ring_all_reduce": _RIGHT_16_RING_ALL_REDUCE,
            "ring_time": _RIGHT_16_RING_TIME,
            "assign_buckets": _RIGHT_16_ASSIGN_BUCKETS,
            "average_gradients": _RIGHT_16_AVERAGE_GRADIENTS,
        },
        ["16.1", "16.2", "16.3", "16.4", "16.5"],
    ),
}

# chapter folder, extra imports, answers, (exercise, words its failure must contain)
MISTAKES = {
    "14-h0-in-the-default-float32": (
        "14_sequence_models",
        "",
        {"gradient_through_time": _WRONG_14_GRADIENT_THROUGH_TIME_FLOAT32},
        [("14.2", "make h_0 in its dtype")],
    ),
    "14-one-mistake-an-exercise": (
        "14_sequence_models",
        "",
        {
            "rnn_cell": _WRONG_14_RNN_CELL,
            "gradient_through_time": _WRONG_14_GRADIENT_THROUGH_TIME,
            "lstm_cell": _WRONG_14_LSTM_CELL,
            "CharLSTM": _WRONG_14_CHARLSTM,
            "generate": _WRONG_14_GENERATE,
        },
        [
            ("14.1", "both biases"),
            ("14.2", "Only a tensor that requires grad gets a .grad"),
            ("14.3", "PyTorch's order i, f, g, o"),
            ("14.4", "batch_first=True"),
            ("14.5", "with the state the previous call returned"),
        ],
    ),
    "16-one-mistake-an-exercise": (
        "16_distributed",
        "",
        {
            "chunks": _WRONG_16_CHUNKS,
            "ring_all_reduce": _WRONG_16_RING_ALL_REDUCE,
            "ring_time": _WRONG_16_RING_TIME,
            "assign_buckets": _WRONG_16_ASSIGN_BUCKETS,
            "average_gradients": _WRONG_16_AVERAGE_GRADIENTS,
        },
        [
            ("16.1", "the FIRST 10 % 3"),
            ("16.2", "keeps them (=, no +=)"),
            ("16.3", "each one message of nbytes / N"),
            ("16.4", "reach the cap (>=)"),
            ("16.5", "the AVERAGE over the ranks"),
        ],
    ),
}
