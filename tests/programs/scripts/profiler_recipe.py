"""PyTorch's profiler recipe on a small CNN: profile a forward pass with record_shapes and a
record_function label, print the table sorted by CPU time, group by input shape, export a Chrome
trace and load it back, profile a training loop over a schedule with on_trace_ready, and the older
torch.autograd.profiler. Checked: the labelled range holds the model's work, each table has
PyTorch's columns, the trace is valid JSON with the labelled range in it, and the schedule hands
on exactly the steps it marks active."""
import json
import os
import tempfile

import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.profiler import ProfilerActivity, profile, record_function, schedule

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 4 * 4, 10)
)
inputs = torch.randn(5, 1, 8, 8)

with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    with record_function("model_inference"):
        model(inputs)

table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
print(table)
header = table.splitlines()[1]
for column in ("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
               "# of Calls"):
    assert column in header, column
averages = {a.key: a for a in prof.key_averages()}
label = averages["model_inference"]
assert label.count == 1
assert all(a.cpu_time_total <= label.cpu_time_total + 1e-6 for a in averages.values())
assert all(a.self_cpu_time_total <= a.cpu_time_total + 1e-6 for a in averages.values())
grouped = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=10)
assert "Input Shapes" in grouped.splitlines()[1]

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "trace.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
names = [e.get("name") for e in trace["traceEvents"]]
assert "model_inference" in names
print("chrome trace events:", len(names))

# a training loop over a schedule: wait 1, warm up 1, record 2, twice (steps 2, 3 and 6, 7)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
handed_on = []


def trace_handler(p):
    steps = [e for e in p.events() if e.name == "ProfilerStep*"]
    handed_on.append((p.step_num, len(steps)))

with profile(
    activities=[ProfilerActivity.CPU],
    schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
    on_trace_ready=trace_handler,
) as p:
    for step in range(10):
        optimizer.zero_grad()
        model(inputs).sum().backward()
        optimizer.step()
        p.step()
print("steps handed on:", handed_on)
assert handed_on == [(4, 2), (8, 2)]  # after steps 3 and 7, each with two steps recorded

# the older API
with torch.autograd.profiler.profile() as old:
    with torch.autograd.profiler.record_function("old_style"):
        model(inputs)
assert "old_style" in {e.key for e in old.key_averages()}
print(old.key_averages().table(sort_by="self_cpu_time_total", row_limit=5))
