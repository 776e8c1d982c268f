"""DistributedDataParallel on 2 real processes equals one process on the whole batch.

ranks_ddp.py trains, on each rank, a DDP model on half of every batch and a single-process
reference on the whole batch, for 20 steps per configuration (SGD with momentum and AdamW; clipping,
small buckets, autocast float16 + GradScaler with an overflowing step, no_sync accumulation,
parameters unused on some ranks or on all). The parameters must match the reference to float32
rounding and be identical on both ranks.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.distributed.launch import mpiexec, run_on_ranks

pytest.importorskip("mpi4py")
pytestmark = pytest.mark.distributed
if mpiexec() is None:
    pytest.skip("no mpiexec (pip install mpich)", allow_module_level=True)

CONFIGS = ["sgd", "adamw_clip_small_buckets", "adamw_amp_inf_step", "sgd_no_sync",
           "adamw_amp_no_sync_clip", "unused_on_some_ranks", "unused_on_every_rank"]  # fmt: skip


@pytest.fixture(scope="module")
def ranks():
    return run_on_ranks("ranks_ddp.py", 2)


@pytest.mark.parametrize("config", CONFIGS)
def test_two_ranks_on_half_batches_equal_one_process_on_the_whole_batch(ranks, config):
    for r, out in enumerate(ranks):
        run = out[config]
        assert len(run["params"]) == len(run["ref"]) == 8
        # With float16 autocast and accumulation the two runs add the same float32 gradients in
        # another order (each rank's micro-batches, then the all-reduce); AdamW's division by
        # sqrt(v) enlarges those last-bit differences where a gradient is near 0 (1.4e-6 seen).
        atol = 1e-5 if "amp" in config else 1e-6
        for got, want in zip(run["params"], run["ref"]):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=atol, err_msg=f"rank {r}")
        assert run["scales"] == run["ref_scales"]


@pytest.mark.parametrize("config", CONFIGS)
def test_every_rank_holds_the_same_parameters(ranks, config):
    for a, b in zip(ranks[0][config]["params"], ranks[1][config]["params"]):
        np.testing.assert_array_equal(a, b)


def test_small_buckets_split_the_gradients(ranks):
    assert ranks[0]["adamw_clip_small_buckets"]["buckets"] > 1
    assert ranks[0]["sgd"]["buckets"] == 1


def test_an_overflow_on_one_rank_skips_the_step_on_both(ranks):
    for out in ranks:
        scales = out["adamw_amp_inf_step"]["scales"]
        assert scales[:7] == [65536.0] * 7 and scales[7] == 32768.0  # step 8 backed off


def test_gradscaler_agrees_across_ranks_on_gradients_ddp_does_not_see(ranks):
    assert [out["scaler_skips"] for out in ranks] == [[False, True, False]] * 2


def test_a_parameter_without_gradient_is_named_at_the_next_forward(ranks):
    for out in ranks:
        message = out["unused_error"]
        assert message is not None and "find_unused_parameters=True" in message
        assert "extra.weight" in message and "head.weight" not in message


def test_buffers_follow_rank_0_at_each_forward(ranks):
    assert [out["buffers"] for out in ranks] == [[10.0] * 4] * 2
