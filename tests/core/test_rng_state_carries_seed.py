"""A generator's state carries the seed it was last seeded with, as PyTorch's does: restoring a
state (``set_rng_state``, ``Generator.set_state``, leaving ``fork_rng``) brings back
``initial_seed()`` together with the stream."""

from __future__ import annotations

import numpy as np

import minigenesis as mg


def test_set_rng_state_restores_the_initial_seed_and_the_stream() -> None:
    mg.manual_seed(5)
    state = mg.get_rng_state()
    want = mg.rand(4).numpy()
    mg.manual_seed(99)
    mg.set_rng_state(state)
    assert mg.initial_seed() == 5
    np.testing.assert_array_equal(mg.rand(4).numpy(), want)


def test_generator_set_state_restores_its_seed() -> None:
    g = mg.Generator().manual_seed(2**64 - 1)
    state = g.get_state()
    want = mg.randn(3, generator=g).numpy()
    g.manual_seed(7)
    g.set_state(state)
    assert g.initial_seed() == 2**64 - 1
    np.testing.assert_array_equal(mg.randn(3, generator=g).numpy(), want)


def test_a_state_saved_without_a_seed_keeps_the_current_seed() -> None:
    # the form states had before they carried the seed: the bit generator's JSON alone
    import json

    mg.manual_seed(11)
    raw = json.dumps(mg.default_generator._np.bit_generator.state).encode()
    old = mg.tensor(np.frombuffer(raw, dtype=np.uint8).copy())
    want = mg.rand(2).numpy()
    mg.manual_seed(12)
    mg.set_rng_state(old)
    assert mg.initial_seed() == 12
    np.testing.assert_array_equal(mg.rand(2).numpy(), want)


def test_fork_rng_puts_back_the_seed_set_inside() -> None:
    mg.manual_seed(5)
    want = mg.rand(3).numpy()
    mg.manual_seed(5)
    with mg.random.fork_rng():
        mg.manual_seed(99)
        mg.rand(8)
    assert mg.initial_seed() == 5
    np.testing.assert_array_equal(mg.rand(3).numpy(), want)
