"""What an audit found: :class:`Comparison` (one gap) and :class:`AuditResult` (all of them).

Both are frozen and keep the per-group sufficient statistics behind every number, so
:meth:`Comparison.recompute` and :meth:`AuditResult.recompute` give the same result at
another method, level, seed or error control without reading the data again; the builder
that makes them is :mod:`fairbound.audits.gaps.build`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from fairbound._validate import check_seed
from fairbound.audits.verdicts import (
    GAP_VERDICTS,
    NO_EVIDENCE,
    NOT_ESTIMABLE,
    check_error_control,
    check_tolerance,
    disadvantaged,
    select,
)
from fairbound.errors import FairboundError
from fairbound.metrics import get_metric
from fairbound.stats import ConfidenceInterval, GroupStats, get_method
from fairbound.stats.base import check_confidence_level

SCHEMA = "fairbound.audit/1"


def _jsonable(v):
    if isinstance(v, tuple):
        return " & ".join(map(str, v))
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


@dataclass(frozen=True)
class Comparison:
    """One gap between two groups on one metric component, with its interval and verdict.

    The estimate is the cost gap ``delta = E_A[cost] - E_B[cost]`` (Ethayarajh 2020): a
    positive value means group A bears more cost.  ``rate_*`` give the same gap on the
    familiar rate scale (TPR, selection rate, ...).

    Attributes
    ----------
    metric, component : str
        Metric name and component (``"tpr"``, ``"fpr"``, ``"max"`` ...).
    rate : str
        Name of the rate (``"TPR"``).
    cls : object
        The class ``k`` for one-vs-rest components (``None`` for accuracy and costs).
    group_a, group_b : object
        The groups compared (``group_b`` may be ``"rest"`` for each-vs-rest).
    a, b : GroupStats or None
        Sufficient statistics behind the numbers (``None`` for the ``max`` component).
    estimate, low, high : float
        Cost gap and its interval (NaN when not estimable).
    confidence_level : float
        The requested (family-wise) level.
    interval_level : float
        The level of this interval itself (higher for simultaneous components).
    method, guarantee : str
        Interval method and what it promises.
    verdict : str
        ``"A disadvantaged"``, ``"B disadvantaged"``, ``"not enough evidence"``,
        ``"no meaningful gap"`` (the interval lies within ``+/- tolerance``), ``"unequal"``
        (``max`` component) or ``"not estimable"``.
    required_n : float
        Total annotated examples (A + B, at the current group shares) the method would need
        to show a gap if the observed gap were the true one (``inf`` for a zero gap, NaN if
        unknown).  Never below the examples already there when there is no verdict.
    note : str
        Why a value is not estimable, small-group warnings, and similar.
    tolerance : float or None
        The band (on the rate scale) within which a gap counts as no meaningful gap.
    required_n_parity : float
        With a tolerance: total examples needed to show that the gap lies within the band
        if the observed gap were the true one (``inf`` when the observed gap is outside the
        band: no sample size can show parity then).
    """

    metric: str
    component: str
    rate: str
    cls: Any
    group_a: Any
    group_b: Any
    a: GroupStats | None
    b: GroupStats | None
    estimate: float
    low: float
    high: float
    confidence_level: float
    interval_level: float
    method: str
    guarantee: str
    verdict: str
    required_n: float
    note: str = ""
    rate_is_cost: bool = False
    seed: int = 0
    options: tuple[tuple[str, Any], ...] = field(default=(), repr=False)
    tolerance: float | None = None
    required_n_parity: float = math.nan

    def confidence_interval(self, confidence_level: float | None = None
                            ) -> ConfidenceInterval:
        """The interval for the cost gap: the one shown, or at another level.

        Parameters
        ----------
        confidence_level : float, optional
            ``None`` (default): the interval shown, at ``interval_level`` (adjusted for the
            audit's error control).  A level: this comparison's interval at that level on
            its own, from the stored statistics (no multiplicity adjustment).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``, a named tuple.
        """
        if confidence_level is None:
            return ConfidenceInterval(self.low, self.high)
        c = self.recompute(confidence_level=confidence_level)
        return ConfidenceInterval(c.low, c.high)

    def __repr__(self) -> str:
        from fairbound._render import fmt_level, fmt_num

        return (f"Comparison({self.label} {_jsonable(self.group_a)} vs "
                f"{_jsonable(self.group_b)}: gap {fmt_num(self.estimate)} "
                f"[{fmt_num(self.low)}, {fmt_num(self.high)}] at "
                f"{fmt_level(self.interval_level)}, {self.verdict})")

    @property
    def estimable(self) -> bool:
        """Whether the gap could be estimated."""
        return self.verdict != NOT_ESTIMABLE

    def _rate(self, s: GroupStats | None) -> float:
        if s is None or s.n <= 0:
            return math.nan
        m = s.mean / s.cost_max
        return m if self.rate_is_cost else 1.0 - m

    @property
    def rate_a(self) -> float:
        """Group A's rate (TPR, selection rate, ...)."""
        return self._rate(self.a)

    @property
    def rate_b(self) -> float:
        """Group B's rate."""
        return self._rate(self.b)

    @property
    def rate_gap(self) -> tuple[float, float, float]:
        """``(rate_A - rate_B, low, high)`` on the rate scale."""
        if self.component == "max" or self.a is None:
            return (math.nan, math.nan, math.nan)
        C = self.a.cost_max
        if self.rate_is_cost:
            return (self.estimate / C, self.low / C, self.high / C)
        return (-self.estimate / C, -self.high / C, -self.low / C)

    @property
    def disadvantaged(self) -> Any:
        """The disadvantaged group, or ``None`` without a verdict."""
        return disadvantaged(self.verdict, self.group_a, self.group_b)

    @property
    def label(self) -> str:
        """Short label such as ``equal_opportunity[tpr, k=1]``."""
        try:
            several = get_metric(self.metric).simultaneous
        except FairboundError:
            several = False
        parts = [self.component] if several else []
        if self.cls is not None:
            parts.append(f"k={self.cls}")
        return f"{self.metric}[{', '.join(parts)}]" if parts else self.metric

    def summary(self) -> str:
        """A plain-language sentence about this comparison (the report's wording)."""
        from fairbound.report.audit_report import comparison_sentence

        return comparison_sentence(self.to_dict())

    def recompute(
        self, *, confidence_level: float | None = None, method: str | None = None,
        seed: int | None = None, **options
    ) -> Comparison:
        """The same comparison with another method, level or seed, from the stored statistics.

        Parameters
        ----------
        confidence_level : float, optional
            New level (the interval's own level; no multiplicity adjustment is applied).
        method : str, optional
            New interval method.
        seed : int, optional
            New seed for randomised methods.
        **options
            Method options (replace the stored ones).

        Returns
        -------
        Comparison
        """
        if self.component == "max" or self.a is None:
            raise FairboundError("recompute: the 'max' component is derived from its "
                                 "components; recompute those instead", param="component")
        from fairbound.audits.gaps.build import _compare

        rho = check_confidence_level(self.interval_level if confidence_level is None
                                     else confidence_level)
        m = get_method(self.method if method is None else method)
        opts = options if (options or method) else dict(self.options)
        return _compare(
            self.metric, self.component, self.rate, self.rate_is_cost, self.cls,
            self.group_a, self.group_b, self.a, self.b, method=m,
            family_level=rho, interval_level=rho,
            seed=self.seed if seed is None else check_seed(seed), options=opts,
            tolerance=self.tolerance,
        )

    def plot(self, *, confidence_level: float | None = None):
        """Draw both groups' rates and the gap with their intervals (needs matplotlib).

        Parameters
        ----------
        confidence_level : float, optional
            Level of the per-group Wilson intervals (default: this comparison's level).

        Returns
        -------
        matplotlib.figure.Figure
        """
        from fairbound.viz.audit import plot_comparison

        return plot_comparison(self, confidence_level=confidence_level)

    def to_dict(self) -> dict:
        """Plain dictionary (JSON-ready) of every field and the rate view."""
        g, glo, ghi = self.rate_gap
        return {
            "metric": self.metric, "component": self.component, "rate": self.rate,
            "class": _jsonable(self.cls), "group_a": _jsonable(self.group_a),
            "group_b": _jsonable(self.group_b),
            "n_a": None if self.a is None else _jsonable(self.a.n),
            "n_b": None if self.b is None else _jsonable(self.b.n),
            "cost_sum_a": None if self.a is None else _jsonable(self.a.total),
            "cost_sum_b": None if self.b is None else _jsonable(self.b.total),
            "rate_a": _jsonable(self.rate_a), "rate_b": _jsonable(self.rate_b),
            "rate_gap": _jsonable(g), "rate_gap_low": _jsonable(glo),
            "rate_gap_high": _jsonable(ghi),
            "estimate": _jsonable(self.estimate), "low": _jsonable(self.low),
            "high": _jsonable(self.high), "verdict": self.verdict,
            "disadvantaged": _jsonable(self.disadvantaged),
            "required_n": _jsonable(self.required_n), "method": self.method,
            "guarantee": self.guarantee, "confidence_level": self.confidence_level,
            "interval_level": self.interval_level, "note": self.note,
            "tolerance": self.tolerance,
            "required_n_parity": _jsonable(self.required_n_parity),
        }


@dataclass(frozen=True)
class AuditResult:
    """Everything an audit found, with the statistics to recompute it.

    Attributes
    ----------
    comparisons : tuple of Comparison
        One per metric component, class and pair of groups.
    groups : tuple of (group, rows)
        Annotated rows per group.
    classes : tuple
        Label values; ``positive`` is the class audited for binary labels.
    task : str
        ``"binary"``, ``"multiclass"`` or ``"cost"``.
    n_rows : int
        Rows scanned.
    excluded : dict
        Reason -> rows left out (missing group = not annotated, missing label, ...).
    engine, source : str
        What read the data and what was read.
    metrics : tuple of str
        Metrics audited.
    comparison : str
        ``"pairwise"``, ``"vs-rest"`` or ``"vs-reference"``.
    method : str
        Interval method (``"auto"``: each comparison records the method that ran).
    confidence_level : float
        Requested level: family-wise over all comparisons with ``error_control="family"``.
    seed : int
        Seed for randomised methods.
    version, created : str
        fairbound version and UTC timestamp.
    error_control : str
        ``"family"``, ``"fdr"`` or ``"none"``: which error the verdicts control.
    n_tests : int
        Number of estimable comparisons the control is taken over.
    favourable : str
        ``"positive"`` (the positive class is the favourable outcome) or ``"negative"``.
    tolerance : float or None
        Band for "no meaningful gap" verdicts (rate scale).
    kind : str
        What was audited, the ``kind`` of the JSON: ``"gaps"`` (:func:`fairbound.audit`)
        or ``"disagreement"`` (:func:`~fairbound.audits.disagreement.audit.disagreement_audit`).
    """

    comparisons: tuple[Comparison, ...]
    groups: tuple[tuple[Any, int], ...]
    classes: tuple
    positive: Any
    task: str
    n_rows: int
    excluded: dict
    engine: str
    source: str
    metrics: tuple[str, ...]
    comparison: str
    reference: Any
    method: str
    confidence_level: float
    seed: int
    version: str
    created: str
    columns: dict = field(default_factory=dict)
    confusion: np.ndarray | None = field(default=None, repr=False, compare=False)
    error_control: str = "family"
    n_tests: int = 0
    favourable: str = "positive"
    tolerance: float | None = None
    kind: str = "gaps"

    def __len__(self) -> int:
        return len(self.comparisons)

    def __repr__(self) -> str:
        from fairbound._render import fmt_level

        found = sum(1 for c in self.comparisons if c.verdict in GAP_VERDICTS)
        control = {"family": "family-wise", "fdr": "FDR", "none": "per comparison"}.get(
            self.error_control, self.error_control)
        return (f"AuditResult({len(self.comparisons)} comparisons of {len(self.groups)} "
                f"groups, method {self.method!r}, {control} at "
                f"{fmt_level(self.confidence_level)}; {found} with a gap)")

    def confidence_interval(self, confidence_level: float | None = None
                            ) -> ConfidenceInterval:
        """Every comparison's interval, as arrays in the order of ``comparisons``.

        ``None`` (default): the intervals shown.  A level: the whole audit recomputed at
        that level under its error control (see :meth:`recompute`).
        """
        from fairbound.audits.contract import result_intervals

        return result_intervals(self, confidence_level)

    def __iter__(self):
        return iter(self.comparisons)

    def select(self, *, metric: str | None = None, verdict: str | None = None) -> tuple:
        """Comparisons filtered by metric name and/or verdict."""
        name = None if metric is None else get_metric(metric).name
        return select(self.comparisons, metric=name, verdict=verdict)

    @property
    def biased(self) -> tuple[Comparison, ...]:
        """Comparisons whose interval excludes zero."""
        return tuple(c for c in self.comparisons
                     if c.verdict in GAP_VERDICTS)

    def recompute(
        self, *, confidence_level: float | None = None, method: str | None = None,
        seed: int | None = None, error_control: str | None = None,
        tolerance: float | None = None, **options
    ) -> AuditResult:
        """The whole audit under another method, level, seed or error control.

        Works on the stored statistics, without re-reading the data.  Arguments left out
        keep their values in this result.

        Parameters
        ----------
        confidence_level : float, optional
            New level (family-wise under ``error_control="family"``).
        method : str, optional
            New interval method.
        seed : int, optional
            New seed for randomised methods.
        error_control : {'family', 'fdr', 'none'}, optional
            Which error the verdicts control.
        tolerance : float, optional
            New band for "no meaningful gap" verdicts.
        **options
            Method options.

        Returns
        -------
        AuditResult
        """
        from fairbound.audits.gaps.build import _build_from_stats

        rho = check_confidence_level(self.confidence_level if confidence_level is None
                                     else confidence_level)
        m = get_method(self.method if method is None else method)
        seed = self.seed if seed is None else check_seed(seed)
        control = self.error_control if error_control is None else \
            check_error_control(error_control)
        tol = self.tolerance if tolerance is None else check_tolerance(tolerance)
        comps, n_tests = _build_from_stats(
            self._stat_rows(), method=m, confidence_level=rho, seed=seed,
            options=options, error_control=control, tolerance=tol)
        return replace(self, comparisons=comps, method=m.name, confidence_level=rho,
                       seed=seed, error_control=control, n_tests=n_tests, tolerance=tol)

    def _stat_rows(self):
        rows = []
        for c in self.comparisons:
            if c.component != "max":
                rows.append(c)
        return rows

    def to_frame(self):
        """One row per comparison (pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame([c.to_dict() for c in self.comparisons])

    def groups_frame(self):
        """Rows per group (pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame(
            [{"group": _jsonable(g), "rows": n} for g, n in self.groups]
        )

    def to_dict(self) -> dict:
        """JSON-ready dictionary with a versioned schema name and the result's ``kind``."""
        return {
            "schema": SCHEMA,
            "kind": self.kind,
            "fairbound_version": self.version,
            "created": self.created,
            "source": self.source,
            "engine": self.engine,
            "columns": self.columns,
            "n_rows": self.n_rows,
            "excluded": dict(self.excluded),
            "groups": [{"group": _jsonable(g), "rows": n} for g, n in self.groups],
            "classes": [_jsonable(c) for c in self.classes],
            "positive": _jsonable(self.positive),
            "task": self.task,
            "metrics": list(self.metrics),
            "comparison": self.comparison,
            "reference": _jsonable(self.reference),
            "method": self.method,
            "guarantee": get_method(self.method).guarantee,
            "confidence_level": self.confidence_level,
            "error_control": self.error_control,
            "n_tests": self.n_tests,
            "favourable": self.favourable,
            "tolerance": self.tolerance,
            "seed": self.seed,
            "comparisons": [c.to_dict() for c in self.comparisons],
        }

    def to_json(self, path=None, *, indent: int = 2) -> str:
        """The result as JSON text; also written to ``path`` when given."""
        from fairbound._io import json_text

        return json_text(self.to_dict(), path, indent=indent)

    def bootstrap(
        self,
        *,
        n_resamples: int = 1000,
        confidence_level: float | None = None,
        method: str = "percentile",
        seed: int | None = None,
    ):
        """Vectorised stratified bootstrap of every gap, with the max-|t| simultaneous band.

        See :func:`fairbound.audits.gaps.bootstrap.bootstrap_audit`; needs an audit of labels and
        predictions.

        Returns
        -------
        fairbound.stats.bootstrap.BootstrapResult
        """
        from fairbound.audits.gaps.bootstrap import bootstrap_audit

        return bootstrap_audit(self, n_resamples=n_resamples, confidence_level=confidence_level,
                               method=method, seed=seed)

    def adjust(
        self,
        *,
        method: str = "holm",
        test: str | None = None,
        confidence_level: float | None = None,
        seed: int | None = None,
    ):
        """Which gaps can be declared at once: a test per comparison, adjusted.

        See :func:`fairbound.audits.gaps.multiplicity.adjust_comparisons` (``method`` one of
        ``'holm'``, ``'bonferroni'``, ``'bh'``, ``'e-holm'``, ``'e-bh'``).

        Returns
        -------
        fairbound.stats.multiplicity.MultiplicityResult
        """
        from fairbound.audits.gaps.multiplicity import adjust_comparisons

        return adjust_comparisons(
            self, method=method, test=test,
            confidence_level=self.confidence_level if confidence_level is None
            else confidence_level,
            seed=self.seed if seed is None else seed)

    def summary(self) -> list[str]:
        """Plain-language sentences, biased comparisons first."""
        from fairbound.report.audit_report import comparison_sentence, sentence_context

        order = sorted(self.comparisons, key=lambda c: (c.verdict in (NO_EVIDENCE,
                                                                      NOT_ESTIMABLE),))
        ctx = sentence_context(self)  # column names, positive class, favourable outcome
        return [comparison_sentence(c.to_dict(), result=ctx) for c in order]

    def plot(self, kind: str = "forest", **options):
        """Draw a figure of this audit (needs matplotlib: ``pip install "fairbound[plot]"``).

        Parameters
        ----------
        kind : {'forest', 'rates', 'sample-size'}
            Every gap with its interval; each group's rates with Wilson intervals; or the
            annotated examples needed vs the gap, with the current n marked.
        **options
            Passed to :func:`fairbound.viz.audit.plot_forest`, ``plot_group_rates`` or
            ``plot_sample_size`` (e.g. ``ax=``).

        Returns
        -------
        matplotlib.figure.Figure
        """
        from fairbound.viz.audit import plot_audit

        return plot_audit(self, kind, **options)

    def report(self, path, *, title: str | None = None):
        """Write the self-contained HTML report (see :func:`fairbound.report.write_audit_report`).

        Parameters
        ----------
        path : str or Path
            Output ``.html`` file.
        title : str, optional
            Report title.

        Returns
        -------
        Path
        """
        from fairbound.report import write_audit_report

        return write_audit_report([self], path, title=title)
