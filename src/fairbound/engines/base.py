"""What every engine returns: a small table of per-group sufficient statistics.

An engine reads the rows once, where they live, and returns :class:`Aggregates`: the
(group, label, prediction) confusion counts and/or the count, sum and sum of squares of a
cost column per group, plus how many rows were scanned and excluded, and why.  Nothing
downstream ever sees a row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class AggregateSpec:
    """Which columns to aggregate.

    Parameters
    ----------
    group : tuple of str
        Protected-attribute column(s); several columns form intersectional groups.
    label, prediction : str, optional
        True and predicted label columns (for confusion-based metrics).  A name that is not
        a column is read as a checked SQL expression over the columns, e.g.
        ``"score >= 0.5"`` (see :mod:`fairbound.engines.expr`).
    cost : str, optional
        A per-row cost column (or a checked expression).
    keep_cost_sample : int
        Keep up to this many per-group costs (a uniform random sample, in a canonical order)
        for methods that need per-example costs; 0 keeps none.
    seed : int
        Seed for that sample.
    where : str, optional
        A checked SQL filter; rows where it is not true are counted as excluded.
    max_cost_values : int
        Largest number of distinct (group, cost) values fetched to rebuild exact per-group
        cost samples; above it the engine draws a hashed bottom-k sample per group instead
        (see :func:`fairbound.engines.assemble.sample_from_hashed`).
    extra : tuple of (str, str)
        Further ``(parameter, column or expression)`` roles a caller reads itself (the
        sampling probability and batch of a weighted prediction-powered audit): resolved and
        projected like the others, aggregated by nothing here.
    """

    group: tuple[str, ...]
    label: str | None = None
    prediction: str | None = None
    cost: str | None = None
    keep_cost_sample: int = 0
    seed: int = 0
    where: str | None = None
    max_cost_values: int = 1_000_000
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def columns(self) -> tuple[str, ...]:
        """The role names (columns or expressions) in a stable order, without repeats."""
        cols = [*self.group, self.label, self.prediction, self.cost, *(v for _, v in self.extra)]
        return tuple(dict.fromkeys(c for c in cols if c is not None))


@dataclass(frozen=True)
class CostMoments:
    """Per-group moments of a cost column (arrays aligned with ``Aggregates.groups``).

    ``samples`` (when asked for) hold per-group costs in sorted order; ``samples_complete``
    says whether a group's sample is all of its costs, and ``sample_method`` how a partial
    sample was drawn (``"value counts, hypergeometric"`` or ``"hashed rows (bottom-k)"``).
    """

    n: np.ndarray
    total: np.ndarray
    total_sq: np.ndarray
    minimum: np.ndarray
    maximum: np.ndarray
    samples: tuple[np.ndarray, ...] | None = field(default=None, repr=False)
    samples_complete: tuple[bool, ...] | None = None
    sample_method: str = ""


@dataclass(frozen=True)
class Aggregates:
    """Sufficient statistics of one scan.

    Attributes
    ----------
    groups : tuple
        Group labels (sorted; intersectional groups are tuples of labels).
    classes : tuple
        Distinct label/prediction values, sorted.
    confusion : numpy.ndarray or None
        Counts of shape ``(G, K, K)``: group x true label x prediction.
    label_values, prediction_values : tuple
        Distinct values seen in each column (for validation messages).
    cost : CostMoments or None
        Moments of the cost column per group.
    n_rows : int
        Rows scanned (every row of the source, before any ``where`` filter).
    excluded : dict
        Reason -> number of rows left out (``where`` filter, a missing group value =
        "not annotated", missing label / prediction / cost).
    engine, source : str
        What ran and what it read.
    collected_bytes : int
        Size of the statistics table brought back from the engine (what crossed to Python
        or to the Spark driver).
    """

    groups: tuple
    classes: tuple
    confusion: np.ndarray | None
    label_values: tuple
    prediction_values: tuple
    cost: CostMoments | None
    n_rows: int
    excluded: dict[str, int]
    engine: str
    source: str
    collected_bytes: int = 0

    def group_rows(self) -> dict:
        """Annotated rows per group (rows that reach at least one metric)."""
        if self.confusion is not None:
            counts = self.confusion.sum(axis=(1, 2))
        else:
            counts = self.cost.n
        return {g: int(c) for g, c in zip(self.groups, counts, strict=True)}
