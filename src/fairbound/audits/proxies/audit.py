"""Audits when the protected attribute is missing for most rows: group probabilities.

Every row carries ``P(group = g | proxies)`` for every group (BISG from surname and address,
a name classifier, an LLM, the user's own model); some rows may carry the true group
(annotated), and rows may name their proxy cell (e.g. surname x tract).  The label and
the audited prediction are known on every row.  :func:`proxy_audit` answers in one of two
ways:

* **annotated rows** (a random sample, uniform or drawn by ``fairbound sample`` with
  recorded probabilities): prediction-powered intervals for every gap - the probabilities
  are the proxy, the annotated rows correct its bias (:func:`fairbound.stats.proxy_groups.
  ppi_gap`; delta method over numerator and denominator, PPI++ power tuning) - with the
  annotated-only interval beside it, the annotated rows each gap would need, and a
  calibration check of the probabilities on the annotated rows;
* **no annotated row**: partial-identification bounds from the proxy cells (every joint of
  group and outcome consistent with ``P(group | cell)`` and the outcomes observed in the
  cell), widened for sampling uncertainty so that the reported set covers the identified
  set at the audit's level (Imbens & Manski 2004); the verdict says whether a gap holds
  under every distribution consistent with the proxies, parity does (with a
  ``tolerance``), or the gap's sign is not identified from these proxies.

The probability-weighted estimate (``sum p_g c / sum p_g d``) is shown beside the answer
(``weighted_estimate``), never as it: it is biased whenever the outcome and the group are
dependent given the proxies (Chen, Kallus, Mao, Svacha & Udell 2019).  So is assigning each
row its most likely group (see ``benchmarks/proxies_simulation.py``).

Verdicts, pairings, error control (family-wise by default) and ``favourable`` are the main
audit's (:mod:`fairbound.audits.verdicts`, :mod:`fairbound.audits.pairing`,
:mod:`fairbound.audits.control`).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairbound._docs import fill
from fairbound.audits.contract import ResultFields, ResultMethods, gap_row_dict, kept_interval
from fairbound.audits.contract import json_value as _jsonable
from fairbound.audits.control import controlled_rows, recompute_rows, with_inputs
from fairbound.audits.pairing import (
    REST,
    check_comparison,
    check_comparison_limit,
    check_max_comparisons,
    pairs,
    resolve_reference,
)
from fairbound.audits.verdicts import (
    DISADVANTAGED,
    NO_EVIDENCE,
    NO_GAP,
    NOT_ESTIMABLE,
    check_error_control,
    check_tolerance,
    disadvantaged,
    verdict,
    verdict_counts,
)
from fairbound.errors import FairboundError
from fairbound.metrics import check_favourable, oriented, supported_metrics
from fairbound.stats.base import ConfidenceInterval, NotEstimable, check_confidence_level

SCHEMA = "fairbound.proxy_audit/1"

#: The verdict of bounds whose identified set holds gaps of both signs (more rows of the
#: same kind cannot settle it; annotations or sharper proxies can).
NOT_IDENTIFIED = "not identified from these proxies"

#: Metrics audited when none are named.
DEFAULT_PROXY_METRICS = ("demographic_parity", "equal_opportunity", "false_positive_rate",
                         "predictive_parity", "accuracy_parity")

#: Annotated rows of a group below which a note says the CLT interval may under-cover.
SMALL_ANNOTATED = 30

#: What the prediction-powered intervals assume.
PPI_ASSUMPTION = (
    "the annotated rows are a random sample of all rows (uniform, or drawn with the recorded "
    "sampling probabilities, independently of the true group); the group probabilities may "
    "be miscalibrated or weak - that costs width, not validity; intervals are asymptotic "
    "(central limit theorem and delta method)")

#: What the bounds assume.
BOUNDS_ASSUMPTION = (
    "P(group | proxy cell) is the true share of each group in each proxy cell (as BISG's "
    "census tables claim); nothing is assumed about how the group and the outcome are "
    "related within a cell.  The reported set covers the identified set (every gap "
    "consistent with the proxies) with probability at least the interval level, "
    "asymptotically, and so the true gap")

# component -> (numerator, denominator) over outcome cells 2 y + y_hat
_SUPPORTED = ("selection_rate", "tpr", "fpr", "fnr", "precision", "accuracy", "zero_one")


def _tables(comp) -> tuple[np.ndarray, np.ndarray]:
    """``(num, den)`` of a component's rate over the four outcome cells ``2 y + y_hat``."""
    num, den = np.zeros(4), np.zeros(4)
    for k in range(4):
        conf = np.zeros((1, 2, 2))
        conf[0, k // 2, k % 2] = 1.0
        n, cost = comp.counts(conf, 1)
        den[k] = float(n[0])
        num[k] = float(cost[0]) if comp.rate_is_cost else float(n[0] - cost[0])
    return num, den


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class ProxyComparison:
    """One gap ``rate_A - rate_B`` between two groups seen only through probabilities.

    Attributes
    ----------
    metric, component, rate : str
        Metric, component (``"tpr"``) and the rate's name (``"TPR"``).
    group_a, group_b : object
        The groups (``group_b`` is ``"rest"`` for each-vs-rest).
    mode : str
        ``"ppi"`` (annotated rows) or ``"bounds"`` (none).
    rate_a, rate_b : float
        Prediction-powered rates (NaN for bounds).
    estimate, low, high : float
        The deciding gap and interval: the prediction-powered estimate and interval, or
        (bounds) NaN and the widened identified set.
    labeled_estimate, labeled_low, labeled_high : float
        From the annotated rows alone (NaN for bounds).
    identified_low, identified_high : float
        The estimated identified set (bounds; NaN for ppi).
    weighted_estimate : float
        The probability-weighted gap, biased in general (shown, never the answer).
    lam : float
        PPI++'s power-tuning ``lambda`` (NaN for bounds).
    confidence_level, interval_level : float
        The audit's level and this interval's own.
    method : str
        What computed the deciding interval.
    verdict : str
        The main audit's vocabulary, or :data:`NOT_IDENTIFIED`.
    annotated_needed, annotated_needed_labeled_only : float
        Annotated rows (drawn as these were) with which the interval would exclude 0 if
        the estimate were the truth (prediction-powered / annotated-only); ``inf`` when
        annotating every row would not; NaN for bounds.
    sharp : bool
        Bounds: whether the identified set is sharp (complementary sides).
    rate_is_cost : bool
        Whether a higher rate is the heavier burden.
    note : str
        Why something is not estimable, small groups, what an interval is.
    inputs : object
        What the interval was computed from (for :meth:`confidence_interval` at another
        level and :meth:`ProxyAuditResult.recompute`).
    """

    metric: str
    component: str
    rate: str
    group_a: Any
    group_b: Any
    mode: str
    rate_a: float
    rate_b: float
    estimate: float
    low: float
    high: float
    labeled_estimate: float
    labeled_low: float
    labeled_high: float
    identified_low: float
    identified_high: float
    weighted_estimate: float
    lam: float
    confidence_level: float
    interval_level: float
    method: str
    verdict: str
    annotated_needed: float
    annotated_needed_labeled_only: float
    sharp: bool = False
    rate_is_cost: bool = False
    note: str = ""
    inputs: Any = field(default=None, repr=False, compare=False)

    @fill
    def confidence_interval(self, confidence_level: float | None = None
                            ) -> ConfidenceInterval:
        """The deciding interval, as shown or at another level (this row on its own).

        {{row_interval_sections}}

        Examples
        --------
        >>> r = ProxyComparison("m", "tpr", "TPR", "a", "b", "ppi", .5, .4, .1, .0, .2,
        ...                     .1, -.1, .3, math.nan, math.nan, .1, .5, .95, .95, "ppi++",
        ...                     "not enough evidence", 10, 20)
        >>> tuple(r.confidence_interval())
        (0.0, 0.2)
        """
        return kept_interval(self, confidence_level,
                             lambda inputs, rho: _compare(inputs, rho, rho, False),
                             kept="statistics", audit="proxy_audit")

    @property
    def estimable(self) -> bool:
        """Whether the gap could be estimated or bounded."""
        return self.verdict != NOT_ESTIMABLE

    @property
    def width_ratio(self) -> float:
        """Prediction-powered width over annotated-only width (below 1: the proxy helped)."""
        w = self.labeled_high - self.labeled_low
        return (self.high - self.low) / w if w > 0 else math.nan

    @property
    def disadvantaged(self) -> Any:
        """The disadvantaged group, or ``None``."""
        return disadvantaged(self.verdict, self.group_a, self.group_b)

    def to_dict(self, *, numbers: bool = False) -> dict:
        """Plain dictionary, JSON-ready (``numbers=True``: floats kept, NaN and inf too)."""
        return gap_row_dict(
            self, numbers, sizes=[("mode", self.mode)],
            intervals=[("identified_low", self.identified_low),
                       ("identified_high", self.identified_high),
                       ("weighted_gap", self.weighted_estimate), ("lambda", self.lam)],
            needed=[("annotated_needed", self.annotated_needed),
                    ("annotated_needed_labeled_only", self.annotated_needed_labeled_only)],
            method=[("sharp", self.sharp)])


@dataclass(frozen=True)
class ProxyGroup:
    """One group: its expected size, annotations and the calibration of its probability.

    Attributes
    ----------
    group : str
        The group.
    expected_rows : float
        Sum of its probability over all rows.
    annotated : int
        Rows annotated as this group.
    mean_probability, observed_share : float
        On the annotated rows: mean probability of the group, and share annotated as it.
    calibration_pvalue : float
        Hosmer-Lemeshow p-value over tenths of the probability (NaN without annotations).
    """

    group: str
    expected_rows: float
    annotated: int
    mean_probability: float
    observed_share: float
    calibration_pvalue: float

    def to_dict(self) -> dict:
        """Plain dictionary (JSON-ready)."""
        return {"group": self.group, "expected_rows": _jsonable(self.expected_rows),
                "annotated": self.annotated,
                "mean_probability": _jsonable(self.mean_probability),
                "observed_share": _jsonable(self.observed_share),
                "calibration_pvalue": _jsonable(self.calibration_pvalue)}


@dataclass(frozen=True)
class ProxyAuditResult(ResultFields, ResultMethods):
    """Everything a proxy-group audit found.

    Attributes
    ----------
    comparisons : tuple of ProxyComparison
        One per metric component and pair of groups.
    groups : tuple of ProxyGroup
        Expected size, annotations and calibration per group.
    mode : str
        ``"ppi"`` or ``"bounds"``.
    n_rows, n_annotated, n_cells : int
        Rows scanned, annotated rows, proxy cells (bounds).
    excluded : dict
        Reason -> rows left out.
    engine, source : str
        What read the data and what was read.
    columns : dict
        Columns read.
    classes : tuple
        ``(negative, positive)``.
    metrics : tuple of str
        Metrics audited.
    comparison : str
        ``"pairwise"``, ``"vs-rest"`` or ``"vs-reference"``.
    reference : object
        The reference group.
    confidence_level : float
        The audit's level (family-wise under ``error_control="family"``).
    error_control : str
        ``"family"``, ``"fdr"`` or ``"none"``.
    n_tests : int
        Estimable comparisons the error control covers.
    favourable : str
        Whether the positive prediction is favourable.
    tolerance : float or None
        The "no meaningful gap" band.
    weighted : bool
        Whether annotated rows were weighted by ``1 / sampling probability``.
    assumption : str
        What the intervals assume.
    notes : tuple of str
        Explanations and warnings.
    version, created : str
        fairbound version and UTC timestamp.
    """

    comparisons: tuple[ProxyComparison, ...]
    comparison: str
    classes: tuple
    metrics: tuple[str, ...]
    favourable: str
    mode: str
    n_annotated: int
    n_cells: int
    tolerance: float | None = None
    weighted: bool = False
    assumption: str = PPI_ASSUMPTION
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        verdicts = verdict_counts(self.comparisons)
        how = (f"{self.n_annotated:,} annotated rows" if self.mode == "ppi"
               else f"bounds from {self.n_cells:,} proxy cells")
        return (f"<ProxyAuditResult: {len(self.comparisons)} comparisons of "
                f"{len(self.groups)} groups, {self.n_rows:,} rows, {how}, "
                f"{self.confidence_level:g} {self.error_control}; {verdicts}>")

    def to_dict(self) -> dict:
        """JSON-ready dictionary: schema ``"fairbound.proxy_audit/1"``, kind ``"proxies"``."""
        return {
            "schema": SCHEMA, "kind": "proxies", "fairbound_version": self.version,
            "created": self.created, "source": self.source, "engine": self.engine,
            "columns": self.columns, "n_rows": self.n_rows,
            "n_annotated": self.n_annotated, "n_cells": self.n_cells,
            "excluded": dict(self.excluded), "mode": self.mode,
            "classes": [_jsonable(c) for c in self.classes],
            "groups": [g.to_dict() for g in self.groups], "metrics": list(self.metrics),
            "comparison": self.comparison, "reference": _jsonable(self.reference),
            "confidence_level": self.confidence_level, "error_control": self.error_control,
            "n_tests": self.n_tests, "favourable": self.favourable,
            "tolerance": self.tolerance, "weighted": self.weighted,
            "assumption": self.assumption, "notes": list(self.notes),
            "comparisons": [c.to_dict() for c in self.comparisons],
        }

    def recompute(self, *, confidence_level: float | None = None,
                  error_control: str | None = None) -> ProxyAuditResult:
        """The audit at another level or error control, from the stored sums (no data read).

        Returns
        -------
        ProxyAuditResult
        """
        return recompute_rows(
            self, confidence_level, error_control,
            lambda rows, rho, control: _build(rows, confidence_level=rho,
                                              error_control=control),
            kept="statistics", audit="proxy_audit")

    def summary(self) -> list[str]:
        """Plain-language sentences, gaps found first."""
        from fairbound.report.proxies_report import proxy_sentence

        order = sorted(self.comparisons, key=lambda c: c.verdict not in DISADVANTAGED)
        return [proxy_sentence(c.to_dict(), mode=self.mode) for c in order]

    def plot(self, kind: str = "forest", **options):
        """Forest plot of every gap and its deciding interval (needs matplotlib).

        Parameters
        ----------
        kind : {'forest'}
            The only figure.
        **options
            ``ax=`` (an axes to draw on), ``max_rows=`` (default 40).

        Returns
        -------
        matplotlib.figure.Figure
        """
        from fairbound._validate import check_choice
        from fairbound.report.proxies_report import plot_proxy_forest

        check_choice(kind, ("forest",), "kind")
        return plot_proxy_forest(self.to_dict(), **options)

    @fill
    def report(self, path, *, title: str | None = None):
        """Write a self-contained HTML page (:mod:`fairbound.report.proxies_report`).

        {{report_sections}}
        """
        from fairbound.report.proxies_report import write_proxy_report

        return write_proxy_report(self, path, title=title)


# --------------------------------------------------------------------------- building
@dataclass(frozen=True)
class _Data:
    """What every row of one audit reads (shared)."""

    moments: Any
    cell_counts: Any
    cell_probs: Any
    mode: str
    tolerance: float | None
    boot: int
    seed: int


@dataclass(frozen=True)
class _Row:
    metric: str
    component: str
    rate: str
    rate_is_cost: bool
    group_a: Any
    group_b: Any
    ua: tuple
    ub: tuple
    num: tuple
    den: tuple
    small: str
    data: _Data = field(repr=False)

    @property
    def complement(self) -> bool:
        return bool(np.all(np.asarray(self.ua) + np.asarray(self.ub) == 1))


def _bounds_verdict(clo, chi, ilo, ihi, tolerance) -> str:
    v = verdict(clo, chi, tolerance)
    if v != NO_EVIDENCE:
        return v
    edges = (0.0,) if tolerance is None else (-tolerance, tolerance)
    if any(ilo < e < ihi for e in edges) or (tolerance is None and ilo <= 0 <= ihi):
        return NOT_IDENTIFIED
    return NO_EVIDENCE


def _compare(r: _Row, level: float, confidence_level: float, final: bool) -> ProxyComparison:
    from fairbound.stats import proxy_groups as S

    d = r.data
    nan = math.nan
    common = dict(metric=r.metric, component=r.component, rate=r.rate, group_a=r.group_a,
                  group_b=r.group_b, mode=d.mode, confidence_level=confidence_level,
                  interval_level=level, rate_is_cost=r.rate_is_cost)
    wgap = S.weighted_gap(d.moments, r.ua, r.ub, r.num, r.den)[0]
    try:
        if d.mode == "ppi":
            g = S.ppi_gap(d.moments, r.ua, r.ub, r.num, r.den, level)
        else:
            qa = d.cell_probs @ np.asarray(r.ua, float)
            qb = d.cell_probs @ np.asarray(r.ub, float)
            b = S.cell_bounds(d.cell_counts, qa, qb, r.num, r.den, level,
                              complement=r.complement, boot=d.boot, seed=d.seed)
    except NotEstimable as exc:
        return ProxyComparison(rate_a=nan, rate_b=nan, estimate=nan, low=nan, high=nan,
                               labeled_estimate=nan, labeled_low=nan, labeled_high=nan,
                               identified_low=nan, identified_high=nan,
                               weighted_estimate=wgap, lam=nan, method="-",
                               verdict=NOT_ESTIMABLE, annotated_needed=nan,
                               annotated_needed_labeled_only=nan, note=str(exc), **common)
    notes = [r.small] if r.small else []
    if d.mode == "ppi":
        notes.append("asymptotic interval (CLT and delta method)")
        clo, chi = (g.low, g.high) if r.rate_is_cost else (-g.high, -g.low)
        v = verdict(clo, chi, d.tolerance)
        return ProxyComparison(
            rate_a=g.rate_a, rate_b=g.rate_b, estimate=g.estimate, low=g.low, high=g.high,
            labeled_estimate=g.labeled_estimate, labeled_low=g.labeled_low,
            labeled_high=g.labeled_high, identified_low=nan, identified_high=nan,
            weighted_estimate=wgap, lam=g.lam, method="ppi++ (delta method)", verdict=v,
            annotated_needed=g.needed if final else nan,
            annotated_needed_labeled_only=g.needed_labeled_only if final else nan,
            note="; ".join(notes), **common)
    clo, chi = (b.low_widened, b.high_widened) if r.rate_is_cost else \
        (-b.high_widened, -b.low_widened)
    ilo, ihi = (b.low, b.high) if r.rate_is_cost else (-b.high, -b.low)
    v = _bounds_verdict(clo, chi, ilo, ihi, d.tolerance)
    if v in DISADVANTAGED:
        notes.append("a gap under every distribution consistent with the proxies")
    elif v == NO_GAP:
        notes.append("parity (within the tolerance) under every distribution consistent "
                     "with the proxies")
    if not b.sharp:
        notes.append("outer bounds (each rate's own bounds combined): valid, possibly "
                     "wider than the sharp set")
    return ProxyComparison(
        rate_a=nan, rate_b=nan, estimate=nan, low=b.low_widened, high=b.high_widened,
        labeled_estimate=nan, labeled_low=nan, labeled_high=nan, identified_low=b.low,
        identified_high=b.high, weighted_estimate=wgap, lam=nan,
        method=("sharp bounds" if b.sharp else "outer bounds")
        + f", widened by {d.boot} bootstrap draws",
        verdict=v, annotated_needed=nan, annotated_needed_labeled_only=nan,
        sharp=b.sharp, note="; ".join(notes), **common)


def _build(rows: Sequence[_Row], *, confidence_level, error_control):
    return controlled_rows(
        rows, lambda r, level, final: _compare(r, level, confidence_level, final),
        confidence_level=confidence_level, error_control=error_control)


def _resolve_metrics(metrics) -> tuple:
    return supported_metrics(
        metrics, DEFAULT_PROXY_METRICS, _SUPPORTED,
        audit="a proxy-group audit (it needs a rate of label and prediction)",
        hint=f"use e.g. {', '.join(DEFAULT_PROXY_METRICS)}")


def proxy_audit_statistics(table, *, metrics=None, comparison: str = "pairwise",
                           reference=None, confidence_level: float = 0.95,
                           error_control: str = "family", favourable: str = "positive",
                           tolerance: float | None = None,
                           max_comparisons: int = 10_000, boot: int = 200,
                           seed: int = 0) -> ProxyAuditResult:
    """A proxy-group audit from a :class:`~fairbound.engines.proxies.ProxyTable`.

    What :func:`proxy_audit` runs after the scan (simulations call it directly).  The
    arguments are :func:`proxy_audit`'s.

    Returns
    -------
    ProxyAuditResult
    """
    from fairbound._version import __version__
    from fairbound.stats.proxy_groups import ProxyMoments, calibration

    metric_objs = _resolve_metrics(metrics)
    comparison = check_comparison(comparison, reference)
    rho = check_confidence_level(confidence_level)
    error_control = check_error_control(error_control)
    favourable = check_favourable(favourable)
    tolerance = check_tolerance(tolerance)
    limit = check_max_comparisons(max_comparisons)
    groups = list(table.groups)
    m = table.moments if isinstance(table.moments, ProxyMoments) else \
        ProxyMoments(**table.moments)
    expected = {g: float(m.p_all[:, i].sum()) for i, g in enumerate(groups)}
    reference = resolve_reference(groups, reference, comparison, "group_probabilities",
                                  expected, where="the probability columns' groups")
    from fairbound.audits.pairing import per_pair

    check_comparison_limit(len(groups), comparison, per_pair(metric_objs, 2), limit,
                           column="group_probabilities")
    mode = "ppi" if m.n_labeled > 0 else "bounds"
    notes: list[str] = []
    if mode == "bounds":
        if table.cell_counts is None:
            raise FairboundError("group: no row is annotated and no proxy cell column is "
                                 "given; give cell= (--cell) for bounds from the proxies, or "
                                 "annotate a random sample of rows", param="group")
        if table.cell_source == "probabilities":
            notes.append(
                f"no cell column: each distinct probability vector is a proxy cell "
                f"({len(table.cell_counts):,} cells); when nearly every row has its own, the "
                "bounds shrink to the probability-weighted estimate, which assumes the "
                "outcome and the group independent given the probabilities - give the "
                "proxy cells (cell=) for bounds that assume nothing of the kind")
        if table.cell_spread > 1e-6:
            notes.append(f"group probabilities differ within a proxy cell (by up to "
                         f"{table.cell_spread:.3g}): each cell's mean is used as "
                         "P(group | cell)")
    elif m.n_labeled < 2:
        raise FairboundError(f"group: {m.n_labeled} annotated row; prediction-powered "
                             "intervals need at least 2 (or none, for bounds)", param="group")
    data = _Data(moments=m, cell_counts=table.cell_counts, cell_probs=table.cell_probs,
                 mode=mode, tolerance=tolerance, boot=int(boot), seed=int(seed))
    k = len(groups)
    eye = np.eye(k)

    def side(a, b):
        ua = eye[groups.index(a)]
        ub = 1.0 - ua if b == REST else eye[groups.index(b)]
        return tuple(ua), tuple(ub)

    def small_note(a, b):
        if mode != "ppi":
            return ""
        few = [(g, table.annotated[g]) for g in (a, b) if g != REST and
               table.annotated[g] < SMALL_ANNOTATED]
        if not few:
            return ""
        shown = ", ".join(f"{g!r} (n={n})" for g, n in few)
        return f"few annotated rows: {shown}; the asymptotic interval may under-cover"

    rows = []
    for mm in metric_objs:
        for comp in mm.components:
            num, den = _tables(comp)
            oc = oriented(comp, favourable)
            for ga, gb in pairs(groups, comparison, reference):
                ua, ub = side(ga, gb)
                rows.append(_Row(mm.name, comp.name, comp.rate, oc.rate_is_cost, ga, gb,
                                 ua, ub, tuple(num), tuple(den), small_note(ga, gb), data))
    comps, n_tests = _build(rows, confidence_level=rho, error_control=error_control)
    checks = []
    for i, g in enumerate(groups):
        mean_p, share, p = calibration(*(table.calibration[i, :, j] for j in range(3)))
        checks.append(ProxyGroup(g, expected[g], int(table.annotated.get(g, 0)), mean_p,
                                 share, p))
    if mode == "ppi":
        bad = [c for c in checks if math.isfinite(c.calibration_pvalue)
               and c.calibration_pvalue * k < 0.01]
        for c in bad:
            notes.append(f"group {c.group!r}: its probabilities are not calibrated on the "
                         f"annotated rows (mean {c.mean_probability:.3f}, share annotated as "
                         f"it {c.observed_share:.3f}, Hosmer-Lemeshow p = "
                         f"{c.calibration_pvalue:.2g}); the intervals stay valid (the "
                         "annotated rows correct the bias) but are wider")
        notes.append("prediction-powered intervals are asymptotic (CLT and delta method); "
                     "the annotated-only interval is beside each")
        if table.weighted:
            notes.append("annotated rows weighted by 1 / sampling probability")
    notes.append("weighted_gap is the probability-weighted estimate: biased whenever the "
                 "outcome and the group are dependent given the proxies (Chen et al. 2019); "
                 "shown for comparison, never the answer")
    return ProxyAuditResult(
        comparisons=with_inputs(comps, rows), groups=tuple(checks), mode=mode,
        n_rows=int(table.n_rows), n_annotated=int(m.n_labeled),
        n_cells=0 if table.cell_counts is None else int(len(table.cell_counts)),
        excluded=dict(table.excluded), engine=table.engine, source=table.source,
        columns=dict(table.columns), classes=tuple(table.classes),
        metrics=tuple(mm.name for mm in metric_objs), comparison=comparison,
        reference=reference, confidence_level=rho, error_control=error_control,
        n_tests=n_tests, favourable=favourable, tolerance=tolerance,
        weighted=bool(table.weighted),
        assumption=PPI_ASSUMPTION if mode == "ppi" else BOUNDS_ASSUMPTION,
        notes=tuple(notes), version=__version__,
        created=_dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))


def proxy_audit(
    data,
    *,
    group_probabilities: dict,
    label: str,
    prediction: str,
    group: str | None = None,
    cell: str | None = None,
    sampling_probability: str | None = None,
    metrics: str | Iterable[str] | None = None,
    comparison: str = "pairwise",
    reference: Any = None,
    confidence_level: float = 0.95,
    error_control: str = "family",
    favourable: str = "positive",
    tolerance: float | None = None,
    pos_label: Any = None,
    where: str | None = None,
    sum_tolerance: float = 1e-3,
    max_comparisons: int = 10_000,
    engine: str = "auto",
) -> ProxyAuditResult:
    """Audit fairness gaps when the protected attribute is missing for most rows.

    Parameters
    ----------
    data : DataFrame, Table, path, dict or Spark DataFrame
        pandas, polars or pyarrow data, a dict of arrays, a CSV / Parquet / JSON-lines file
        (read by DuckDB), or a Spark DataFrame (read by Spark SQL).
    group_probabilities : dict
        ``{group: column}``: each row's ``P(group | proxies)``; the columns must sum to 1
        on every row (within ``sum_tolerance``), with no missing or negative value.
    label, prediction : str
        Outcome label and the audited prediction (binary classes; columns or checked
        expressions).
    group : str, optional
        The true group where it was annotated (missing elsewhere), spelt as the keys of
        ``group_probabilities``.  With annotated rows the audit is prediction-powered.
    cell : str, optional
        Each row's proxy cell (e.g. surname x tract): with no annotated row, the bounds are
        computed from the cells.
    sampling_probability : str, optional
        The probability each annotated row was drawn with (``fairbound sample``); the
        annotated rows are then weighted by its inverse.
    metrics : str or list of str, optional
        Rate metrics of the main audit (default :data:`DEFAULT_PROXY_METRICS`).
    comparison : {'pairwise', 'vs-rest', 'vs-reference'}
        Which pairs of groups to compare.
    reference : object, optional
        Reference group (implies ``vs-reference``).
    confidence_level : float
        The audit's level (family-wise under ``error_control="family"``).
    error_control : {'family', 'fdr', 'none'}
        As in :func:`fairbound.audit`.
    favourable : {'positive', 'negative'}
        Whether the positive prediction is favourable.
    tolerance : float, optional
        The "no meaningful gap" band (rate scale).
    pos_label : object, optional
        Positive class when the labels are not 0/1 or booleans.
    where : str, optional
        A checked SQL condition selecting rows.
    sum_tolerance : float
        Largest accepted distance of a row's probabilities' sum from 1.
    max_comparisons : int
        Refuse audits with more comparisons than this.
    engine : {'auto', 'duckdb', 'spark'}
        As in :func:`fairbound.audits.ppi.audit.ppi_audit`.

    Returns
    -------
    ProxyAuditResult

    Raises
    ------
    FairboundError
        One line naming the parameter or column at fault.

    References
    ----------
    N. Kallus, X. Mao and A. Zhou. "Assessing algorithmic fairness with unobserved
    protected class using data combination." Management Science 68 (2022).

    J. Chen, N. Kallus, X. Mao, G. Svacha and M. Udell. "Fairness under unawareness."
    FAccT 2019.

    A. N. Angelopoulos, J. C. Duchi and T. Zrnic. "PPI++." arXiv:2311.01453 (2023).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> n = 6000
    >>> g = rng.random(n) < 0.5
    >>> p_b = np.clip(np.where(g, 0.7, 0.3) + rng.normal(0, 0.1, n), 0, 1)
    >>> y = rng.random(n) < 0.4
    >>> pred = rng.random(n) < np.where(y, np.where(g, 0.6, 0.8), 0.2)
    >>> ann = np.where(rng.random(n) < 0.2, np.where(g, "b", "a"), None)
    >>> df = pd.DataFrame({"p_a": 1 - p_b, "p_b": p_b, "y": y, "pred": pred, "race": ann})
    >>> res = proxy_audit(df, group_probabilities={"a": "p_a", "b": "p_b"}, label="y",
    ...                   prediction="pred", group="race", metrics="equal_opportunity")
    >>> c = res.comparisons[0]
    >>> res.mode, c.verdict, bool(c.width_ratio < 1)
    ('ppi', 'B disadvantaged', True)
    """
    from fairbound.engines import engine_input
    from fairbound.engines.proxies import proxy_statistics

    _resolve_metrics(metrics)
    check_comparison(comparison)
    check_confidence_level(confidence_level)
    check_error_control(error_control)
    check_favourable(favourable)
    check_tolerance(tolerance)
    table = proxy_statistics(engine_input(data, engine),
                             group_probabilities=group_probabilities, label=label,
                             prediction=prediction, group=group, cell=cell,
                             sampling_probability=sampling_probability,
                             pos_label=pos_label, where=where, tolerance=sum_tolerance)
    return proxy_audit_statistics(table, metrics=metrics, comparison=comparison,
                                  reference=reference, confidence_level=confidence_level,
                                  error_control=error_control, favourable=favourable,
                                  tolerance=tolerance, max_comparisons=max_comparisons)


__all__ = ["BOUNDS_ASSUMPTION", "DEFAULT_PROXY_METRICS", "NOT_IDENTIFIED", "PPI_ASSUMPTION",
           "SCHEMA", "ProxyAuditResult", "ProxyComparison", "ProxyGroup", "proxy_audit",
           "proxy_audit_statistics"]
