"""einsum: sums of products written as subscripts ("ij,jk->ik" is a matrix product).

out[output letters] = sum over the other letters of prod_k operand_k[letters of k]

The gradient of operand k is one more einsum: the product of the output's gradient with every
other operand, summed down to k's letters,

    dL/dA_k[letters_k] = sum over the rest of dL/dout[output] * prod_{j != k} A_j[letters_j]

with two fix-ups, both written as extra constant operands so the gradient stays one einsum (and
is itself differentiable, for second derivatives):

- a letter repeated in k ("ii->i" reads a diagonal) gets a fresh letter for its second place and
  an identity matrix joining the two, which puts the gradient back on the diagonal;
- a letter that only k has ("ij->i" sums j away), or that every other term has at size 1 (k's dim
  broadcast against it), gets a vector of ones: its gradient is the same at every position along
  that dim.

'...' stands for the broadcast batch dims: ``parse`` replaces it with letters nobody used, one per
dim, right-aligned as in broadcasting; a size-1 dim broadcasts against the other operands' size.
"""

from __future__ import annotations

import functools
import string
from typing import Any

import numpy as np

from ..autocast_policy import LOWER
from ..autograd.function import Op
from ..autograd.tensor_base import TensorBase
from ..backend import get_array_module, quiet_fp

LETTERS = string.ascii_letters  # PyTorch's subscripts: a-z and A-Z


def parse(equation: str, shapes: list[tuple]) -> tuple[tuple[str, ...], str]:
    """The letters of each operand and of the output, with '...' spelled out as letters."""
    return _parse(equation, tuple(tuple(s) for s in shapes))


@functools.lru_cache(maxsize=512)  # a training loop asks the same question at every step
def _parse(equation: str, shapes: tuple[tuple, ...]) -> tuple[tuple[str, ...], str]:
    eq = equation.replace(" ", "")
    for i, c in enumerate(eq):
        if c not in LETTERS and c not in ".,->":
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {i} in the equation string, "
                f"subscripts must be in [a-zA-Z]"
            )
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        few = "fewer" if len(shapes) < len(terms) else "more"
        raise RuntimeError(
            f"einsum(): {few} operands were provided than specified in the equation "
            f"({len(shapes)} operands, {len(terms)} terms in {equation!r})"
        )
    free = [c for c in LETTERS if c not in eq]  # letters for the '...' dims
    n_batch = 0
    inputs = []
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        named = len(term.replace("...", ""))
        if "..." in term:
            n = len(shape) - named
            if n < 0:
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({named}) is more than "
                    f"the number of dimensions ({len(shape)}) for operand {k}"
                )
            n_batch = max(n_batch, n)
            term = term.replace("...", "".join(free[len(free) - n :]) if n else "")
        elif named != len(shape):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) does not match "
                f"the number of dimensions ({len(shape)}) for operand {k} and no ellipsis was "
                f"given"
            )
        inputs.append(term)
    batch = "".join(free[len(free) - n_batch :]) if n_batch else ""
    if arrow:
        output = rhs.replace("...", batch)
        for c in output:
            if output.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once")
            if not any(c in term for term in inputs):
                raise RuntimeError(
                    f"einsum(): output subscript {c} does not appear in the equation for any "
                    f"input operand"
                )
    else:  # implicit output: the batch dims, then the letters used once, in alphabetical order
        used = "".join(terms)
        output = batch + "".join(sorted(c for c in set(used) if c != "." and used.count(c) == 1))
    return tuple(inputs), output


@functools.lru_cache(maxsize=512)
def sizes_of(inputs: tuple[str, ...], shapes: tuple[tuple, ...]) -> dict[str, int]:
    """Each letter's size; a size-1 dim broadcasts against the others, any other mismatch raises."""
    sizes: dict[str, int] = {}
    for k, (term, shape) in enumerate(zip(inputs, shapes)):
        seen: dict[str, int] = {}
        for c, n in zip(term, shape):
            if c in seen and seen[c] != n:
                raise RuntimeError(
                    f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't "
                    f"match, {n} != {seen[c]}"
                )
            seen[c] = n
            if sizes.get(c, 1) != n and n != 1:
                if c in sizes and sizes[c] != 1:
                    raise RuntimeError(
                        f"einsum(): subscript {c} has size {n} for operand {k} which does not "
                        f"broadcast with previously seen size {sizes[c]}"
                    )
            if n != 1 or c not in sizes:
                sizes[c] = n
    return sizes


@quiet_fp
def einsum_arrays(inputs: tuple[str, ...], output: str, arrays: list) -> Any:
    """The einsum of arrays whose letters are already spelled out (no '...').

    Size-1 dims are broadcast first (views, no copies), since NumPy's optimized contraction (BLAS
    through tensordot) wants equal sizes. Three or more operands take an optimized contraction
    order (NumPy's greedy path): that turns an O(n^4) triple product into two O(n^3) matmuls. Two
    go through BLAS as well when they are large enough to pay for working out the path. 2-byte
    floats are summed in float32 on the CPU, as matmul does."""
    xp = get_array_module(arrays[0])
    dtype = arrays[0].dtype
    shapes = tuple(a.shape for a in arrays)
    sizes = sizes_of(inputs, shapes)
    full = tuple(tuple(sizes[c] for c in term) for term in inputs)
    if full != shapes:
        arrays = [xp.broadcast_to(a, s) for a, s in zip(arrays, full)]
    if xp is np and dtype.itemsize == 2 and dtype.kind in "fV":
        arrays = [a.astype(np.float32) for a in arrays]
    equation = ",".join(inputs) + "->" + output
    optimize: Any = len(arrays) > 2 or (len(arrays) == 2 and max(a.size for a in arrays) >= 4096)
    if optimize and xp is np:  # the contraction order, worked out once per equation and shapes
        optimize = _path(xp, equation, full)
    out = xp.einsum(equation, *arrays, optimize=optimize)
    return xp.asarray(out).astype(dtype, copy=False)


@functools.lru_cache(maxsize=512)
def _path(xp: Any, equation: str, shapes: tuple[tuple, ...]) -> list:
    stand_ins = [xp.broadcast_to(xp.zeros((), xp.float32), s) for s in shapes]  # no memory
    return xp.einsum_path(equation, *stand_ins, optimize="greedy")[0]


class Einsum(Op):
    """out = einsum(spec, *operands), ``spec`` = (letters of each operand, output letters);
    dL/dA_k = einsum(dL/dout, the other operands -> letters of k) (module docstring)."""

    autocast = LOWER  # a product, like matmul (PyTorch's einsum runs bmm)

    @staticmethod
    def forward(ctx, spec, *arrays):
        inputs, output = spec
        dtypes = {a.dtype for a in arrays}
        if len(dtypes) > 1:
            raise RuntimeError(
                f"einsum(): all operands must have the same dtype, got {sorted(map(str, dtypes))}"
            )
        ctx.spec = spec
        ctx.shapes = tuple(tuple(a.shape) for a in arrays)
        # operand j enters the gradient of every other operand: saved only if one of those
        # wants a gradient (so an operand nothing needs may be written in place, as PyTorch)
        need = ctx.needs_input_grad[1:]
        wanted = sum(need)
        ctx.save_for_backward(*(a if wanted - need[j] > 0 else None for j, a in enumerate(arrays)))
        return einsum_arrays(inputs, output, list(arrays))

    @staticmethod
    def backward(ctx, g):
        inputs, output = ctx.spec
        operands = ctx.saved_tensors
        sizes = sizes_of(inputs, ctx.shapes)
        grads: list = [None]
        for k, wanted in enumerate(ctx.needs_input_grad[1:]):
            args = (k, g, inputs, output, operands, ctx.shapes, sizes)
            grads.append(_operand_grad(*args) if wanted else None)
        return tuple(grads)


def _operand_grad(k, g, inputs, output, operands, shapes, sizes) -> Any:
    """dL/dA_k as one einsum of g, the other operands and the constants of the fix-ups."""
    xp = get_array_module(g._data)
    terms, tensors, term_shapes = [output], [g], [tuple(g.shape)]
    for j, (term, t) in enumerate(zip(inputs, operands)):
        if j != k:
            terms.append(term)
            tensors.append(t)
            term_shapes.append(shapes[j])
    fresh = iter(c for c in LETTERS if c not in "".join(inputs) + output)
    target = ""
    for c in inputs[k]:
        if c in target:  # a repeated letter: a fresh one, tied to it by an identity matrix
            f = next(fresh)
            terms.append(c + f)
            tensors.append(TensorBase._make(xp.eye(sizes[c], dtype=g._data.dtype)))
            term_shapes.append((sizes[c], sizes[c]))
            target += f
        else:
            target += c

    def full_size_in(c: str) -> bool:  # some term carries c at its full (broadcast) size
        return any(c in t and s[t.index(c)] == sizes[c] for t, s in zip(terms, term_shapes))

    for c in dict.fromkeys(inputs[k]):
        # summed away by k alone, or every other term has c at size 1 (broadcast against k's
        # dim): the gradient is the same at every position along it, ones give it k's size
        if not full_size_in(c):
            terms.append(c)
            tensors.append(TensorBase._make(xp.ones(sizes[c], dtype=g._data.dtype)))
    return Einsum.apply((tuple(terms), target), *tensors)


def sublist_equation(args: tuple) -> tuple[str, list]:
    """einsum(op1, [0, 1], op2, [1, 2], [0, 2]): the equation string and the operands."""
    output = args[-1] if len(args) % 2 == 1 else None  # an odd count ends with the output's
    operands, terms = list(args[0:-1:2] if output is not None else args[0::2]), list(args[1::2])

    def letters(sub: Any) -> str:
        out = ""
        for s in sub:
            if s is Ellipsis:
                out += "..."
            elif isinstance(s, int) and 0 <= s < len(LETTERS):
                out += LETTERS[s]
            else:
                raise ValueError(
                    f"einsum(): subscript in subscript list is not within [0, 52): {s}"
                )
        return out

    equation = ",".join(letters(t) for t in terms)
    if output is not None:
        equation += "->" + letters(output)
    return equation, operands
