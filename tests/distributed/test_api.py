"""minigenesis.distributed in this process, without starting MPI: the errors before a process
group exists, the optional dependency, and the gradient hook DDP is built on."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.distributed as dist
from minigenesis.distributed.process_group import NOT_INITIALIZED

NOT_INIT = "Default process group has not been initialized"


@pytest.mark.parametrize(
    "call",
    [dist.get_rank, dist.get_world_size, dist.barrier, lambda: dist.all_reduce(mg.ones(2)),
     lambda: mg.nn.parallel.DistributedDataParallel(mg.nn.Linear(2, 2))],
    ids=["get_rank", "get_world_size", "barrier", "all_reduce", "DDP"],
)  # fmt: skip
def test_using_a_process_group_before_init_says_to_call_init(call):
    pytest.importorskip("mpi4py")
    with pytest.raises(ValueError, match=NOT_INIT):
        call()
    assert not dist.is_initialized()


def test_the_message_is_pytorchs():
    torch_dist = pytest.importorskip("torch.distributed")
    with pytest.raises(ValueError) as err:
        torch_dist.get_rank()
    assert str(err.value) == NOT_INITIALIZED


def test_without_mpi4py_import_works_and_use_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # as if it were not installed
    assert not dist.is_available()
    with pytest.raises(ImportError, match=r'pip install -e "\.\[distributed\]"'):
        dist.init_process_group("mpi")
    with pytest.raises(RuntimeError, match=r"pip install -e"):
        dist.get_rank()


def test_world_size_without_a_launcher_names_the_launcher(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "0")
    for var in ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(RuntimeError, match="minigenesis.distributed.run --nproc-per-node 2"):
        dist.init_process_group("mpi")


@pytest.mark.parametrize(
    "kwargs, message",
    [({"backend": "smoke"}, "backend must be one of"),
     ({"init_method": "tcp://10.0.0.1:23456"}, "init_method"),
     ({"store": object()}, "store")],
)  # fmt: skip
def test_bad_init_arguments_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        dist.init_process_group(**kwargs)


def test_reduce_op_names_are_pytorchs():
    torch_dist = pytest.importorskip("torch.distributed")
    ours = {op.name for op in dist.ReduceOp}
    theirs = set(torch_dist.ReduceOp.RedOpType.__members__) - {"PREMUL_SUM"}
    assert ours == theirs


def test_post_accumulate_grad_hook_sees_the_accumulated_gradient_as_pytorch():
    torch = pytest.importorskip("torch")
    seen, seen_t = [], []
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    wt = torch.tensor([1.0, 2.0], requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist()))
    wt.register_post_accumulate_grad_hook(lambda p: seen_t.append(p.grad.tolist()))
    for x, xt in ((w, wt), (w, wt)):  # two backwards: the hook sees the running sum
        (x * x).sum().backward()
        (xt * xt).sum().backward()
    (w * 3 + w * w).sum().backward()  # two uses of w in one backward: the hook runs once
    (wt * 3 + wt * wt).sum().backward()
    assert seen == seen_t == [[2.0, 4.0], [4.0, 8.0], [9.0, 15.0]]


def test_post_accumulate_grad_hook_handle_removes_it_and_non_leaves_refuse():
    w = mg.ones(3, requires_grad=True)
    calls = []
    handle = w.register_post_accumulate_grad_hook(lambda p: calls.append(1))
    w.sum().backward()
    handle.remove()
    w.sum().backward()
    assert calls == [1]
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0, 2.0])
    with pytest.raises(RuntimeError, match="non-leaf"):
        (w * 2).register_post_accumulate_grad_hook(lambda p: None)
    mg.autograd.grad((w * w).sum(), [w])  # autograd.grad accumulates nothing: no hook
    assert calls == [1]
