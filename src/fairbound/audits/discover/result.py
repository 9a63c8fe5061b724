"""What subgroup discovery found: :class:`SliceFinding` (one slice) and :class:`DiscoverResult`.

Both follow the audit result contract (:mod:`fairbound.audits.contract`): a row has
``group_a`` (the slice), ``group_b`` (``"complement"`` or ``"population"``), ``estimate``,
``low``, ``high``, ``interval_level``, ``verdict`` and ``note``; the result has
``comparisons``, ``select``, ``to_frame``, ``to_dict``, ``to_json``, ``summary``,
``report``, ``plot``, ``recompute`` and ``confidence_interval``, and its JSON the kind
``"discover"``.  The result keeps every candidate's counts, so :meth:`DiscoverResult.recompute`
re-runs the error control at another level without reading the data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairbound.audits.contract import ResultMethods
from fairbound.audits.gaps.result import _jsonable
from fairbound.audits.verdicts import GAP_VERDICTS
from fairbound.errors import FairboundError
from fairbound.stats.base import ConfidenceInterval, check_confidence_level

SCHEMA = "fairbound.discover/1"
#: The comparisons a slice can be set against.
COMPARISONS = ("complement", "population")


def _num(x):
    v = _jsonable(x)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else v


@dataclass(frozen=True)
class SliceFinding:
    """One candidate slice set against its complement (or the whole population).

    Attributes
    ----------
    group_a : str
        The slice, as its conditions joined by ``" & "`` (e.g. ``"sex=F & age in [30, 45)"``).
    group_b : str
        ``"complement"`` (every row outside the slice) or ``"population"`` (every row).
    conditions : tuple of str
        The slice's conditions.
    depth : int
        How many conditions.
    rows : int
        Rows in the slice (its support, from the features).
    n, count : int
        Rows of the slice in the metric's denominator, and those bearing the cost.
    n_other, count_other : int
        The same outside the slice (``"population"``: over every row).
    estimate, low, high : float
        The cost gap ``cost rate (slice) - cost rate (other)`` and its one-sided interval
        ``[low, high]`` (``high`` is the largest gap possible): positive means the slice
        bears more cost.
    interval_level : float
        The level of this interval: ``1 - alpha w`` under the family-wise control (``w`` the
        slice's depth weight over the whole lattice), so all intervals of the search hold
        jointly at the audit's level.
    verdict : str
        ``"A disadvantaged"`` (the exact test rejects: the slice is harmed) or ``"not
        enough evidence"``.  Verdicts come from the exact test, which is more powerful than
        the intervals: a flagged slice's interval may still reach 0 (its note says so).
    p_value : float
        The one-sided Fisher exact p-value of the slice against its complement (before any
        multiplicity adjustment; NaN where it was not computed: gap not positive, or
        pruned).
    test_alpha : float
        The level the exact test of this slice ran at (Tarone-weighted Bonferroni with
        every level raised by ``discrete_scale``, or Benjamini-Yekutieli over the testable
        slices); the verdict is ``p_value <= test_alpha``.  0 for a slice too small ever to
        reach a level (not counted).
    required_n : float
        Rows (slice + other, same shares) at which the exact test would flag the slice if
        the observed rates were the truth, at ``test_alpha`` before the discrete scale
        (which shrinks towards 1 as the counts grow).
    merged : tuple of str
        Near-duplicate slices (nearly the same rows) folded into this one.
    parents, children : tuple of dict
        The slices with one condition fewer / more, each with its gap and verdict
        (children: the five with the largest gaps).
    note : str
    """

    group_a: str
    group_b: str
    conditions: tuple
    depth: int
    rows: int
    n: int
    count: int
    n_other: int
    count_other: int
    estimate: float
    low: float
    high: float
    interval_level: float
    verdict: str
    p_value: float
    required_n: float
    metric: str
    component: str
    rate: str
    rate_is_cost: bool
    note: str = ""
    merged: tuple = ()
    parents: tuple = ()
    children: tuple = ()
    weight: float = field(default=math.nan, repr=False)
    test_alpha: float = math.nan

    @property
    def slice(self) -> str:
        """The slice's label (same as ``group_a``)."""
        return self.group_a

    @property
    def rate_a(self) -> float:
        """The slice's rate (error rate, TPR, selection rate, ...)."""
        return self._rate(self.count, self.n)

    @property
    def rate_b(self) -> float:
        """The rate of the complement (or the population)."""
        return self._rate(self.count_other, self.n_other)

    def _rate(self, k, n) -> float:
        if n <= 0:
            return math.nan
        c = k / n
        return c if self.rate_is_cost else 1.0 - c

    @property
    def rate_gap(self) -> tuple[float, float, float]:
        """``(rate_slice - rate_other, low, high)`` on the rate scale."""
        if self.rate_is_cost:
            return (self.estimate, self.low, self.high)
        return (-self.estimate, -self.high, -self.low)

    @property
    def flagged(self) -> bool:
        """Whether the slice is declared harmed."""
        return self.verdict in GAP_VERDICTS

    def confidence_interval(self, confidence_level: float | None = None
                            ) -> ConfidenceInterval:
        """The interval shown, or this slice's own one-sided interval at another level.

        A level recomputes from the stored counts with no multiplicity adjustment.
        """
        if confidence_level is None:
            return ConfidenceInterval(self.low, self.high)
        from fairbound.stats.slices import gap_lower_bound

        rho = check_confidence_level(confidence_level)
        n_c, k_c = self._complement()
        lo = float(gap_lower_bound(self.count, self.n, k_c, n_c, 1.0 - rho))
        scale = self.high
        return ConfidenceInterval(lo * scale, self.high)

    def _complement(self) -> tuple[int, int]:
        if self.group_b == "population":
            return self.n_other - self.n, self.count_other - self.count
        return self.n_other, self.count_other

    def __repr__(self) -> str:
        from fairbound._render import fmt_level, fmt_num

        return (f"SliceFinding({self.group_a} vs {self.group_b}: gap "
                f"{fmt_num(self.estimate)} [{fmt_num(self.low)}, {fmt_num(self.high)}] at "
                f"{fmt_level(self.interval_level)}, {self.verdict})")

    def to_dict(self) -> dict:
        """Plain dictionary (JSON-ready)."""
        g, glo, ghi = self.rate_gap
        return {
            "slice": self.group_a, "group_a": self.group_a, "group_b": self.group_b,
            "conditions": list(self.conditions), "depth": self.depth, "rows": self.rows,
            "n_a": self.n, "count_a": self.count, "n_b": self.n_other,
            "count_b": self.count_other, "metric": self.metric, "component": self.component,
            "rate": self.rate, "rate_a": _num(self.rate_a), "rate_b": _num(self.rate_b),
            "rate_gap": _num(g), "rate_gap_low": _num(glo), "rate_gap_high": _num(ghi),
            "estimate": _num(self.estimate), "low": _num(self.low), "high": _num(self.high),
            "interval_level": _num(self.interval_level), "verdict": self.verdict,
            "p_value": _num(self.p_value), "test_alpha": _num(self.test_alpha),
            "required_n": _num(self.required_n),
            "note": self.note, "merged": list(self.merged),
            "parents": [dict(p) for p in self.parents],
            "children": [dict(c) for c in self.children],
        }


@dataclass(frozen=True)
class DiscoverResult(ResultMethods):
    """Every slice the search reports, with the counts to recompute the error control.

    Attributes
    ----------
    comparisons : tuple of SliceFinding
        The slices reported: the ``max_rows`` best-ranked candidates (by their weighted
        p-value, which does not depend on the level), near duplicates merged, and every
        flagged slice.  :attr:`flagged` gives the flagged ones ranked by gap.
    n_candidates : int
        Candidate slices searched: every conjunction of up to ``depth`` conditions with at
        least ``min_support`` rows (the family the error control covers, pruned ones
        included).
    lattice : dict
        Candidates by depth.
    n_pruned : int
        Candidates no refinement of which could be flagged (not evaluated; still counted).
    n_testable : int
        Candidates whose exact test could reach its level at all (Tarone's count: the
        multiplicity the verdicts pay); the rest can never be flagged.
    discrete_scale : float
        The factor by which the tests' attainable sizes raised every testable slice's
        level (family-wise control; 1 otherwise or where nothing could be gained).
    """

    comparisons: tuple
    metric: str
    component: str
    rate: str
    favourable: str
    comparison: str
    confidence_level: float
    error_control: str
    depth: int
    min_support: int
    features: tuple
    n_rows: int
    excluded: dict
    source: str
    engine: str
    n_candidates: int
    lattice: dict
    n_evaluated: int
    n_pruned: int
    n_not_estimable: int
    n_flagged: int
    population_n: int
    population_rate: float
    detectable: tuple
    version: str
    created: str
    columns: dict = field(default_factory=dict)
    n_testable: int = -1
    discrete_scale: float = 1.0
    kind: str = "discover"
    state: Any = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        from fairbound._render import fmt_level

        return (f"DiscoverResult({self.n_candidates:,} candidate slices up to depth "
                f"{self.depth}, {self.metric}, {self.error_control} at "
                f"{fmt_level(self.confidence_level)}; {self.n_flagged} flagged)")

    @property
    def flagged(self) -> tuple:
        """The slices declared harmed, largest gap first."""
        return tuple(sorted((c for c in self.comparisons if c.flagged),
                            key=lambda c: (-c.estimate, c.group_a)))

    def recompute(self, *, confidence_level: float | None = None,
                  error_control: str | None = None) -> DiscoverResult:
        """The search under another level or error control, from the stored counts."""
        from fairbound.audits.discover.build import evaluate

        if self.state is None:
            raise FairboundError("recompute: this result was read from JSON and holds no "
                                 "candidate counts; run discover again", param="recompute")
        return evaluate(self.state, confidence_level=self.confidence_level
                        if confidence_level is None else confidence_level,
                        error_control=self.error_control if error_control is None
                        else error_control)

    def statement(self) -> str:
        """What the search found, or what "no harmed slice found" does and does not rule out."""
        from fairbound.audits.discover.report import statement

        return statement(self.to_dict())

    def summary(self) -> list[str]:
        """Plain-language sentences: the statement, then one per flagged slice."""
        from fairbound.audits.discover.report import slice_sentence

        d = self.to_dict()
        return [self.statement()] + [slice_sentence(c, d) for c in d["comparisons"]
                                     if c["verdict"] in GAP_VERDICTS]

    def to_frame(self):
        """One row per reported slice (pandas DataFrame)."""
        import pandas as pd

        rows = []
        for c in self.comparisons:
            d = c.to_dict()
            d["parents"] = "; ".join(p["slice"] for p in d["parents"])
            d["children"] = "; ".join(p["slice"] for p in d["children"])
            d["merged"] = "; ".join(d["merged"])
            d["conditions"] = " & ".join(d["conditions"])
            rows.append(d)
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-ready dictionary with the schema and kind ``"discover"``."""
        return {
            "schema": SCHEMA, "kind": self.kind, "fairbound_version": self.version,
            "created": self.created, "source": self.source, "engine": self.engine,
            "columns": dict(self.columns), "n_rows": self.n_rows,
            "excluded": dict(self.excluded), "metric": self.metric,
            "component": self.component, "rate": self.rate,
            "rate_is_cost": bool(self.comparisons[0].rate_is_cost) if self.comparisons
            else None, "favourable": self.favourable,
            "comparison": self.comparison, "confidence_level": self.confidence_level,
            "error_control": self.error_control, "depth": self.depth,
            "min_support": self.min_support,
            "features": [dict(f) for f in self.features],
            "n_candidates": self.n_candidates,
            "lattice": {str(k): v for k, v in self.lattice.items()},
            "n_evaluated": self.n_evaluated, "n_pruned": self.n_pruned,
            "n_testable": self.n_testable, "discrete_scale": self.discrete_scale,
            "n_not_estimable": self.n_not_estimable, "n_flagged": self.n_flagged,
            "population_n": self.population_n,
            "population_rate": _num(self.population_rate),
            "detectable": [dict(x) for x in self.detectable],
            "method": "verdicts: one-sided Fisher exact test of each slice against its "
                      "complement, Tarone-weighted over the testable slices (family: levels "
                      "raised by the tests' attainable sizes); intervals: "
                      "clopper-pearson difference (finite-sample, one-sided), depth-weighted "
                      "over every candidate",
            "comparisons": [c.to_dict() for c in self.comparisons],
        }

    def plot(self, **options):
        """Each reported slice's gap and one-sided interval, flagged ones in red."""
        from fairbound.audits.discover.report import plot_slices

        return plot_slices(self.to_dict(), **options)

    def report(self, path, *, title: str | None = None):
        """Write the self-contained HTML report (figure, flagged slices, statement)."""
        from fairbound.audits.discover.report import write_discover_report

        return write_discover_report(self, path, title=title)


def rate_of(k: float, n: float, rate_is_cost: bool) -> float:
    """The rate shown for ``k`` cost rows of ``n``."""
    if n <= 0:
        return math.nan
    return k / n if rate_is_cost else 1.0 - k / n


def as_float_array(x) -> np.ndarray:
    """``x`` as a float array."""
    return np.asarray(x, dtype=float)


__all__ = ["COMPARISONS", "SCHEMA", "DiscoverResult", "SliceFinding"]
