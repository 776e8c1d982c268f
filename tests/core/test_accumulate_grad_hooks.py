"""Hooks on a leaf's AccumulateGrad node (``p.expand_as(p).grad_fn.next_functions[0][0]``), the
per-parameter hook Megatron-style data parallelism reduces gradient buckets from: checked against
closed-form gradients."""

from __future__ import annotations

import numpy as np

import minigenesis as mg


def accumulate_grad_of(p):
    return p.expand_as(p).grad_fn.next_functions[0][0]


def test_pre_and_post_hooks_run_around_the_accumulation():
    p = mg.nn.Parameter(mg.tensor([1.0, 2.0]))
    acc = accumulate_grad_of(p)
    events = []
    acc.register_prehook(lambda go: events.append(("pre", go[0].clone(), p.grad)))
    acc.register_hook(lambda gi, go: events.append(("post", gi, go[0].clone(), p.grad.clone())))
    (p * 3).sum().backward()
    (p * p).sum().backward()  # accumulates 2p onto 3
    pre, post, _, post2 = events
    np.testing.assert_allclose(pre[1].numpy(), [3.0, 3.0])
    assert pre[2] is None  # the gradient is not in .grad yet
    assert post[1] == ()
    np.testing.assert_allclose(post[2].numpy(), [3.0, 3.0])
    np.testing.assert_allclose(post[3].numpy(), [3.0, 3.0])
    np.testing.assert_allclose(post2[2].numpy(), [2.0, 4.0])  # the incoming gradient, 2p
    np.testing.assert_allclose(post2[3].numpy(), [5.0, 7.0])  # .grad after accumulating


def test_a_pre_hook_replaces_the_gradient_and_handles_remove_hooks():
    p = mg.nn.Parameter(mg.tensor([1.0, 2.0]))
    acc = accumulate_grad_of(p)
    h = acc.register_prehook(lambda go: (go[0] * 0.5,))
    ran = []
    post = acc.register_hook(lambda gi, go: ran.append(1))
    (p * 4).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [2.0, 2.0])
    h.remove()
    post.remove()
    p.grad = None
    (p * 4).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [4.0, 4.0])
    assert ran == [1]


def test_a_pre_hook_result_that_is_not_a_tuple_is_ignored_as_in_pytorch():
    p = mg.nn.Parameter(mg.tensor([1.0]))
    accumulate_grad_of(p).register_prehook(lambda go: 5)
    (p * 2).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [2.0])


def test_post_hooks_do_not_run_for_autograd_grad():
    p = mg.nn.Parameter(mg.tensor([1.0]))
    ran = []
    accumulate_grad_of(p).register_hook(lambda gi, go: ran.append(1))
    (g,) = mg.autograd.grad((p * 4).sum(), p)
    assert float(g) == 4.0 and not ran and p.grad is None


def test_accumulate_grad_pre_hook_does_not_run_for_autograd_grad():
    """autograd.grad(sum(2 p), p) takes p's gradient without running its AccumulateGrad node:
    the pre-hook (which would triple it) stays silent and the result is the closed form 2; a
    backward into .grad runs it (2 * 3 = 6), backward(inputs=[p]) too."""
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    node = p.view_as(p).grad_fn.next_functions[0][0]
    calls: list = []
    node.register_prehook(lambda g: (calls.append(g[0].tolist()), (g[0] * 3,))[1])
    (g,) = mg.autograd.grad((2 * p).sum(), p)
    assert g.tolist() == [2.0, 2.0] and calls == [] and p.grad is None
    (2 * p).sum().backward(inputs=[p])
    assert p.grad.tolist() == [6.0, 6.0] and calls == [[2.0, 2.0]]
