"""The torch.utils.benchmark recipe: Timer with a stmt and setup strings and globals, timeit(n),
blocked_autorange(min_run_time=...), the Measurement's mean/median/times/number_per_run, labels,
sub_labels and descriptions, and Compare printing a table of two implementations of batched dot."""
import minigenesis as torch
import minigenesis.utils.benchmark as benchmark


def batched_dot_mul_sum(a, b):
    """Computes batched dot by multiplying and summing"""
    return a.mul(b).sum(-1)


def batched_dot_bmm(a, b):
    """Computes batched dot by reducing to bmm"""
    a = a.reshape(-1, 1, a.shape[-1])
    b = b.reshape(-1, b.shape[-1], 1)
    return torch.bmm(a, b).flatten(-3)


x = torch.randn(1000, 64)
assert torch.allclose(batched_dot_mul_sum(x, x), batched_dot_bmm(x, x), rtol=1e-4)

t0 = benchmark.Timer(
    stmt="batched_dot_mul_sum(x, x)",
    setup="from __main__ import batched_dot_mul_sum",
    globals={"x": x},
)
t1 = benchmark.Timer(
    stmt="batched_dot_bmm(x, x)", globals={"x": x, "batched_dot_bmm": batched_dot_bmm}
)
m0 = t0.timeit(20)
m1 = t1.timeit(20)
assert m0.number_per_run == 20 and len(m0.times) == 1
assert m0.mean > 0 and m1.median > 0
print(m0)

m2 = t0.blocked_autorange(min_run_time=0.05)
assert sum(m2.times) * m2.number_per_run >= 0.05 * 0.5
assert m2.median > 0 and m2.iqr >= 0

results = []
for n in [1, 64]:
    for num_threads in [1, 2]:
        x = torch.ones((n, n))
        label = "Batched dot"
        sub_label = f"[{n}, {n}]"
        results.append(
            benchmark.Timer(
                stmt="batched_dot_mul_sum(x, x)",
                setup="from __main__ import batched_dot_mul_sum",
                globals={"x": x},
                num_threads=num_threads,
                label=label,
                sub_label=sub_label,
                description="mul/sum",
            ).blocked_autorange(min_run_time=0.01)
        )
        results.append(
            benchmark.Timer(
                stmt="batched_dot_bmm(x, x)",
                globals={"x": x, "batched_dot_bmm": batched_dot_bmm},
                num_threads=num_threads,
                label=label,
                sub_label=sub_label,
                description="bmm",
            ).blocked_autorange(min_run_time=0.01)
        )
assert results[0].task_spec.sub_label == "[1, 1]" and results[1].task_spec.description == "bmm"
compare = benchmark.Compare(results)
compare.trim_significant_figures()
compare.colorize()
compare.print()
text = str(compare)
assert "Batched dot" in text and "mul/sum" in text and "bmm" in text and "[64, 64]" in text, text
