"""Run a program of ``tests/programs/scripts`` on minigenesis with every random draw taken from
PyTorch's generators, drawn where and as PyTorch's own code draws it, so that its printed numbers
can be compared with the same program run on PyTorch (``test_programs_with_pytorchs_draws.py``).

    python tests/parity/pytorch_draws.py minigenesis SCRIPT   # minigenesis, PyTorch's draws
    python tests/parity/pytorch_draws.py torch SCRIPT         # the program on PyTorch itself

What is replaced, on minigenesis's side only (a tool for the parity suite, never the package):

- each ``minigenesis.Generator``'s NumPy generator by a stand-in that answers NumPy's calls
  (``standard_normal``, ``random``, ``integers``, ``permutation``, ``standard_gamma``,
  ``poisson``) with ``torch.randn``, ``torch.rand``, ``torch.randint``, ``torch.randperm``,
  ``torch._standard_gamma`` and ``torch.poisson`` on the matching torch generator (the
  default one for ``mg.default_generator``, a private one seeded alike for the others), and
  ``get_rng_state`` / ``set_rng_state`` by PyTorch's;
- the places whose draws PyTorch makes in another form: dropout's mask
  (``bernoulli_(1 - p)`` in PyTorch), ``torch.bernoulli`` of a tensor of probabilities,
  ``multinomial``, and ``RandomSampler``'s order (a seed drawn from the default generator for a
  private generator, then ``randperm``).

Everything else, every op, layer, loss and optimizer, is minigenesis's own.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import numpy as np
import torch

TORCH_DTYPE = {np.dtype(np.float32): torch.float32, np.dtype(np.float64): torch.float64}


def _shape(shape) -> tuple:
    if shape is None:
        return ()
    return (shape,) if isinstance(shape, int) else tuple(shape)


class TorchDraws:
    """NumPy's Generator interface, drawn by a torch.Generator."""

    def __init__(self, generator: torch.Generator) -> None:
        self.g = generator

    def standard_normal(self, shape, dtype=np.float64):
        dtype = TORCH_DTYPE[np.dtype(dtype)]
        return torch.randn(_shape(shape), dtype=dtype, generator=self.g).numpy()

    def random(self, shape=None, dtype=np.float64):
        dtype = TORCH_DTYPE[np.dtype(dtype)]
        return torch.rand(_shape(shape), dtype=dtype, generator=self.g).numpy()

    def integers(self, low, high=None, size=None, dtype=np.int64):
        if high is None:
            low, high = 0, low
        if size is None and high >= 2**62:  # a seed, as PyTorch draws one
            return torch.empty((), dtype=torch.int64).random_(generator=self.g).item()
        return torch.randint(low, high, _shape(size), generator=self.g).numpy()

    def permutation(self, n):
        return torch.randperm(n, generator=self.g).numpy()

    def standard_gamma(self, shape, size=None, dtype=np.float64):
        alpha = np.array(np.broadcast_to(shape, size if size is not None else np.shape(shape)))
        return torch._standard_gamma(torch.from_numpy(alpha), generator=self.g).numpy()

    def poisson(self, lam=1.0, size=None):
        rates = np.array(np.broadcast_to(lam, size if size is not None else np.shape(lam)), float)
        return torch.poisson(torch.from_numpy(rates), generator=self.g).numpy()

    def __getattr__(self, name):
        raise NotImplementedError(f"pytorch_draws: NumPy's {name} has no PyTorch twin here")


def _dense_strides(a: np.ndarray) -> tuple | None:
    """The element strides of ``a`` when it is a permutation of a dense layout (PyTorch's
    empty_like keeps those), else None (empty_like is then row-major)."""
    if a.ndim == 0 or any(s < 0 or s % a.itemsize for s in a.strides):
        return None
    strides = tuple(s // a.itemsize for s in a.strides)
    expected = 1
    for d in sorted(range(a.ndim), key=lambda d: strides[d]):
        if a.shape[d] != 1 and strides[d] != expected:
            return None
        expected *= a.shape[d]
    return strides


def _replace_everywhere(name: str, old, new) -> None:
    """Rebind ``name`` in every minigenesis module that imported ``old`` under that name."""
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("minigenesis"):
            if getattr(module, name, None) is old:
                setattr(module, name, new)


def use_pytorchs_draws() -> None:
    import minigenesis as mg
    import minigenesis.ops.dropout as dropout_op
    import minigenesis.ops.sorting as sorting
    import minigenesis.random as mrand
    from minigenesis.utils.data import sampler

    seed_numpy = mrand.Generator.manual_seed

    def manual_seed(self, seed):
        seed_numpy(self, seed)
        if self is mrand.default_generator:
            torch.manual_seed(seed)
            self._np = TorchDraws(torch.default_generator)
        else:
            self._np = TorchDraws(torch.Generator().manual_seed(seed))
        return self

    mrand.Generator.manual_seed = manual_seed
    mrand.Generator.get_state = lambda self: mg.tensor(self._np.g.get_state().numpy())
    mrand.Generator.set_state = lambda self, s: self._np.g.set_state(torch.from_numpy(s.numpy()))
    mrand.default_generator._np = TorchDraws(torch.default_generator)
    _replace_everywhere(
        "get_rng_state", mrand.get_rng_state, lambda: mg.tensor(torch.get_rng_state().numpy())
    )
    _replace_everywhere(
        "set_rng_state",
        mrand.set_rng_state,
        lambda s: torch.set_rng_state(torch.from_numpy(s.numpy().copy())),
    )

    def bernoulli_mask(shape, keep, like, generator=None):
        g = mrand.generator_for(np, generator).g
        return torch.empty(tuple(shape)).bernoulli_(keep, generator=g).numpy().astype(like.dtype)

    def dropout_mask(shape, keep, like, generator=None):
        # PyTorch draws F.dropout's mask into empty_like(input): a permuted input's mask (the
        # output of batch_first attention) is filled in the input's memory order. (Attention's
        # own weights are row-major in PyTorch, whatever layout ours have: bernoulli_mask.)
        g = mrand.generator_for(np, generator).g
        strides = _dense_strides(like) if tuple(shape) == like.shape else None
        if strides is None:
            return bernoulli_mask(shape, keep, like, generator)
        mask = torch.empty_strided(tuple(shape), strides).bernoulli_(keep, generator=g)
        return mask.numpy().astype(like.dtype)

    _replace_everywhere("bernoulli_mask", mrand.bernoulli_mask, bernoulli_mask)
    dropout_op.bernoulli_mask = dropout_mask

    draw_numpy = mrand.draw

    def draw(kind, shape, dtype, xp, generator=None, *params):
        if kind == "bernoulli" and np.ndim(params[0]) > 0:  # torch.bernoulli(probs tensor)
            g = mrand.generator_for(np, generator).g
            probs = np.array(np.broadcast_to(params[0], shape))  # a writable copy
            return torch.bernoulli(torch.from_numpy(probs), generator=g).numpy().astype(dtype)
        return draw_numpy(kind, shape, dtype, xp, generator, *params)

    _replace_everywhere("draw", mrand.draw, draw)

    def multinomial_indices(w, num_samples, replacement, generator=None):
        g = mrand.generator_for(np, generator).g
        probs = torch.from_numpy(np.asarray(w, dtype=np.float64))
        return torch.multinomial(probs, num_samples, replacement, generator=g).numpy()

    _replace_everywhere("multinomial_indices", sorting.multinomial_indices, multinomial_indices)

    def random_sampler_order(self):  # torch.utils.data.RandomSampler.__iter__
        n = len(self.data_source)
        if self.generator is None:
            seed = int(torch.empty((), dtype=torch.int64).random_().item())
            generator = torch.Generator().manual_seed(seed)
        else:
            generator = self.generator._np.g
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from torch.randint(high=n, size=(32,), generator=generator).tolist()
            yield from torch.randint(
                high=n, size=(self.num_samples % 32,), generator=generator
            ).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from torch.randperm(n, generator=generator).tolist()
            yield from torch.randperm(n, generator=generator).tolist()[: self.num_samples % n]

    sampler.RandomSampler.__iter__ = random_sampler_order


def main(library: str, script: str) -> None:
    path = Path(script)
    torch.set_num_threads(1)  # one thread: PyTorch's own reductions in one order, run to run
    if library == "torch":
        import tempfile

        source = path.read_text().replace("minigenesis", "torch")
        path = Path(tempfile.mkdtemp()) / path.name
        path.write_text(source)
        torch.manual_seed(0)
    else:
        import minigenesis as mg

        use_pytorchs_draws()
        mg.manual_seed(0)
    runpy.run_path(str(path), run_name="__main__")


if __name__ == "__main__":
    main(*sys.argv[1:3])
