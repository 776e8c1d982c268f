"""The op database: every entry of every family, in one list (PyTorch's ``op_db``).

An entry (``core.OpEntry``) names a public op, its forms (function, method, in-place, ``out=``,
aliases), its sample generator and its float64 reference; ``test_battery.py`` runs every check
of ``checks.py`` over every entry, ``test_coverage.py`` fails when a public op has no entry, and
``test_fuzz.py`` draws random programs from the entries.
"""

from __future__ import annotations

import minigenesis as mg

from . import (
    db_activation,
    db_binary,
    db_common_names,
    db_conv,
    db_distributions,
    db_distributions_more,
    db_functional_more,
    db_grid_sample,
    db_indexing,
    db_integration_strides,
    db_legacy_names,
    db_linalg,
    db_loss,
    db_more_names,
    db_more_names_layers,
    db_more_names_losses,
    db_nn,
    db_reductions,
    db_rnn_cells,
    db_shape,
    db_special,
    db_special_more,
    db_stats,
    db_top_level_aliases,
    db_unary,
)
from .core import OpEntry

ENTRIES: list[OpEntry] = [
    *db_unary.ENTRIES,
    *db_binary.ENTRIES,
    *db_reductions.ENTRIES,
    *db_shape.ENTRIES,
    *db_indexing.ENTRIES,
    *db_linalg.ENTRIES,
    *db_activation.ENTRIES,
    *db_loss.ENTRIES,
    *db_nn.ENTRIES,
    *db_conv.ENTRIES,
    *db_stats.ENTRIES,
    *db_more_names.ENTRIES,
    *db_common_names.ENTRIES,
    *db_more_names_layers.ENTRIES,
    *db_grid_sample.ENTRIES,
    *db_more_names_losses.ENTRIES,
    *db_special.ENTRIES,
    *db_special_more.ENTRIES,
    *db_distributions.ENTRIES,
    *db_functional_more.ENTRIES,
    *db_distributions_more.ENTRIES,
    *db_integration_strides.ENTRIES,
    *db_legacy_names.ENTRIES,
    *db_rnn_cells.ENTRIES,
]

# The same op under other public names (mg.special, nn.functional): the variants check calls
# each one on every sample of the entry and wants the entry's result.
OTHER_NAMES = {
    "erf": ("special.erf",),
    "erfc": ("special.erfc",),
    "erfinv": ("special.erfinv",),
    "exp2": ("special.exp2",),
    "expm1": ("special.expm1",),
    "log1p": ("special.log1p",),
    "sigmoid": ("special.expit", "F.sigmoid"),
    "logit": ("special.logit",),
    "digamma": ("special.digamma", "special.psi"),
    "lgamma": ("special.gammaln",),
    "i0": ("special.i0",),
    "sinc": ("special.sinc",),
    "xlogy": ("special.xlogy",),
    "Tensor.xlog1py": ("special.xlog1py",),
    "relu": ("F.relu",),
    "tanh": ("F.tanh",),
    "logsumexp": ("special.logsumexp",),
}


def _with_method_aliases(entry: OpEntry) -> None:
    """An alias that is also a Tensor method (``arccos``) is checked in both forms, and its
    in-place form too, except for an op whose result is bool (``not_equal_`` writes the
    comparison into self's own dtype and shape: not the function's result)."""
    in_place = entry.dtype != "bool"
    extra = tuple(
        f"Tensor.{a}" for a in entry.aliases if "." not in a and hasattr(mg.Tensor, a)
    ) + tuple(
        f"Tensor.{a}_"
        for a in entry.aliases
        if in_place and "." not in a and hasattr(mg.Tensor, f"{a}_")
    )
    # torch.abs_(x): the top-level form of the in-place method, where there is one
    top_inplace = tuple(
        f"{a}_"
        for a in (entry.name, *entry.aliases)
        if in_place and entry.inplace and "." not in a and hasattr(mg, f"{a}_")
    )
    more = OTHER_NAMES.get(entry.id, ()) + db_top_level_aliases.ALIASES.get(entry.id, ())
    calls = db_top_level_aliases.ALIAS_CALLS.get(entry.id, {})
    entry.alias_calls = {**entry.alias_calls, **calls}
    entry.aliases = tuple(dict.fromkeys(entry.aliases + extra + top_inplace + more + tuple(calls)))


for _entry in ENTRIES:
    _with_method_aliases(_entry)

BY_ID = {entry.id: entry for entry in ENTRIES}
assert len(BY_ID) == len(ENTRIES), "two entries share an id"
