"""Prediction-powered fairness audits: gaps from few gold labels and a proxy labeler.

Most rows of an audit have no gold label, but a cheaper labeler - a stronger model, an LLM
judge, a crowd majority - has labeled them all.  :func:`ppi_audit` uses both: for every
gap between groups it reports the prediction-powered (PPI++) interval of
:mod:`fairbound.stats.ppi` - the proxy's rates on all rows, corrected by the proxy's
errors measured on the gold-labeled rows, with the power-tuning ``lambda`` that makes a
useless proxy cost (almost) nothing - and, side by side, the interval from the gold-labeled
rows alone, with the ratio of their widths and the gold labels each would need to settle
the gap.

Metrics (the main audit's names): ``demographic_parity`` (selection rate; it needs no gold
label and is computed on all rows directly), ``equal_opportunity`` (TPR),
``false_positive_rate``, ``false_negative_rate``, ``equalized_odds`` (its TPR and FPR
gaps), ``predictive_parity`` (precision) and ``accuracy_parity``.  TPR, FPR, FNR and
precision are ratios of means (delta method with the joint covariance of numerator and
denominator); accuracy is a mean.

Verdicts, error control and the orientation of harms are the main audit's
(:mod:`fairbound.audits.verdicts`): an interval of the cost gap above 0 is "A
disadvantaged", below 0 "B disadvantaged", otherwise "not enough evidence"; Bonferroni over
every estimable comparison by default (``error_control="family"``).

**Assumption.**  Within each group, the rows with a gold label are a uniformly random
sample of the group's rows (labeled and unlabeled rows come from the same distribution).
The proxy may be biased or often wrong - that costs width, never validity - but the rows
sent to annotators must not have been chosen by the proxy, the prediction or anything
related to the label.  What can be checked is checked: the proxy's and the prediction's
distributions on labeled and unlabeled rows are compared per group
(:func:`fairbound.stats.ppi.proxy_shift_pvalue`), and a clear difference gives a
:class:`SamplingWarning` and a note.

**Rows chosen for annotation on purpose.**  With ``sampling_probability=`` (and ``batch=``)
the gold labels may come from :func:`fairbound.audits.ppi.sampling.sample_for_annotation`, which
draws the rows the proxy is unsure about more often and records each row's probability:
every labeled row is then weighted by ``1 / pi`` (:mod:`fairbound.stats.ppi_ipw`), batches
drawn one after another combine validly, and ``looks=K`` splits the error over ``K``
planned looks so that a team can annotate in batches until a verdict is reached.  The
sampling check then compares, per batch, the weighted rates of the drawn rows with those
of the rows they were drawn from.

Guarantees.  By default (``guaranteed=False``) the intervals are asymptotic (CLT, with a
jackknife standard error that counts the noise of the tuned ``lambda``).  With
``guaranteed=True`` every verdict rests on an interval valid at every sample size: the
finite-sample PPI interval (``lambda = 1``) for accuracy, the exact interval of the main
audit on all rows for demographic parity, and - no guaranteed prediction-powered interval
exists yet for ratio metrics - the exact interval on the gold-labeled rows for TPR, FPR,
FNR and precision.
"""

from __future__ import annotations

import datetime as _dt
import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairbound._docs import fill
from fairbound._validate import check_bool
from fairbound.audits.contract import ResultFields, ResultMethods, gap_row_dict, kept_interval
from fairbound.audits.contract import json_value as _jsonable
from fairbound.audits.control import (
    bonferroni_level,
    controlled_rows,
    recompute_rows,
    with_inputs,
)
from fairbound.audits.pairing import REST, check_comparison, pairs, resolve_reference
from fairbound.audits.verdicts import (
    DISADVANTAGED,
    NOT_ESTIMABLE,
    check_error_control,
    disadvantaged,
    verdict,
    verdict_counts,
)
from fairbound.errors import FairboundError
from fairbound.metrics import check_favourable, oriented, supported_metrics
from fairbound.stats.base import ConfidenceInterval, check_confidence_level

SCHEMA = "fairbound.ppi_audit/1"

#: The assumption every interval of a prediction-powered audit rests on.
ASSUMPTION = ("gold labels are a uniformly random sample of the rows within each group "
              "(labeled and unlabeled rows from the same distribution); the proxy may be "
              "wrong or biased, but the rows sent to annotators must not be chosen by the "
              "proxy, the prediction or anything related to the label")

#: What the intervals assume when gold labels were drawn with recorded probabilities.
WEIGHTED_ASSUMPTION = (
    "each gold-labeled row was drawn for annotation with the recorded probability, in the "
    "recorded batch, independently of its own gold label (Poisson sampling among the rows "
    "not labeled before; probabilities may depend on the proxy, the prediction and earlier "
    "batches' labels); every drawn row was annotated; labels without a probability are a "
    "uniformly random sample of their group")

#: Family-wise level of the check that labeled and unlabeled rows look alike.
SHIFT_ALPHA = 0.01

#: Metrics audited when none are named.
DEFAULT_PPI_METRICS = ("demographic_parity", "equal_opportunity", "false_positive_rate",
                       "predictive_parity", "accuracy_parity")

#: Fewer gold labels than this in a denominator get a note (CLT intervals may under-cover).
SMALL_LABELED = 30

#: Fewer gold labels than this in a denominator leave the asymptotic labeled-only interval
#: not estimable: one row has no spread, so its variance reads as 0 and the interval would
#: be a band around the other group's rate alone.
MIN_LABELED_CLT = 2

# component name -> (kind, key of fairbound.stats.ppi)
_KINDS = {
    "selection_rate": ("selection", None),
    "tpr": ("ratio", "tpr"),
    "fpr": ("ratio", "fpr"),
    "fnr": ("ratio", "fnr"),
    "precision": ("ratio", "precision"),
    "accuracy": ("mean", "error"),
}
_ONES = ((1.0, 1.0), (1.0, 1.0))
# rate = sum(num * counts) / sum(den * counts) over cells [y, pred]
_RATE_TABLES = {
    "selection_rate": (((0.0, 1.0), (0.0, 1.0)), _ONES),
    "accuracy": (((1.0, 0.0), (0.0, 1.0)), _ONES),
}


class SamplingWarning(UserWarning):
    """Labeled and unlabeled rows of a group differ: gold labels may not be a random sample."""


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class PPIComparison:
    """One gap between two groups with its prediction-powered and labeled-only intervals.

    Gaps are on the rate scale, ``rate_A - rate_B`` (TPR, selection rate, precision,
    accuracy, FPR, FNR); the verdict follows the main audit's orientation of harms
    (``rate_is_cost`` says whether a higher rate is the heavier burden).

    Attributes
    ----------
    metric, component, rate : str
        Metric, component (``"tpr"``) and the rate's name (``"TPR"``).
    group_a, group_b : object
        The groups compared (``group_b`` is ``"rest"`` for each-vs-rest).
    rows_a, rows_b : int
        Rows of each side (labeled and unlabeled).
    labeled_a, labeled_b : int
        Rows with a gold label.
    rate_a, rate_b : float
        Each side's rate as the deciding method estimates it.
    estimate, low, high : float
        The gap and the interval that decides the verdict (prediction-powered unless
        ``method`` says otherwise).
    labeled_estimate, labeled_low, labeled_high : float
        The gap and interval from the gold-labeled rows alone (same level).
    lam : tuple of float
        PPI++'s ``lambda`` per side (NaN where no proxy is used).
    confidence_level, interval_level : float
        The audit's (family-wise) level and this interval's own level.
    method, labeled_method : str
        What computed each interval.
    guarantee : str
        ``"asymptotic"`` or ``"finite-sample"`` (the deciding interval).
    verdict : str
        The main audit's vocabulary (:mod:`fairbound.audits.verdicts`).
    gold_labels_needed, gold_labels_needed_labeled_only : float
        Total gold labels (both sides, Neyman-allocated, at least those there now) with
        which the PPI++ / labeled-only interval at ``interval_level`` would exclude 0 if
        the observed gap were the truth (:func:`fairbound.stats.ppi.labels_needed`); ``inf``
        when even labeling every row would not; NaN for demographic parity (no label
        needed) or when not estimable.
    rate_is_cost : bool
        Whether a higher rate is the heavier burden (precision; FPR with a harmful
        positive class).
    note : str
        Why something is not estimable, few gold labels, and similar.
    inputs : object
        The per-group counts of both sides the intervals were computed from (kept so that
        :meth:`confidence_interval` and :meth:`PPIAuditResult.recompute` need no data;
        ``None`` for a row built by hand).
    """

    metric: str
    component: str
    rate: str
    group_a: Any
    group_b: Any
    rows_a: int
    rows_b: int
    labeled_a: int
    labeled_b: int
    rate_a: float
    rate_b: float
    estimate: float
    low: float
    high: float
    labeled_estimate: float
    labeled_low: float
    labeled_high: float
    lam: tuple[float, float]
    confidence_level: float
    interval_level: float
    method: str
    labeled_method: str
    guarantee: str
    verdict: str
    gold_labels_needed: float
    gold_labels_needed_labeled_only: float
    rate_is_cost: bool = False
    note: str = ""
    inputs: Any = field(default=None, repr=False, compare=False)

    @fill
    def confidence_interval(self, confidence_level: float | None = None
                            ) -> ConfidenceInterval:
        """The deciding interval of the gap ``rate_A - rate_B``: shown, or at another level.

        {{row_interval_sections}}
        """
        finite = self.guarantee == "finite-sample"
        return kept_interval(self, confidence_level,
                             lambda inputs, rho: _compare(inputs, rho, rho, finite, False),
                             kept="counts", audit="ppi_audit")

    @property
    def width(self) -> float:
        """Width of the deciding interval."""
        return self.high - self.low

    @property
    def labeled_width(self) -> float:
        """Width of the labeled-only interval."""
        return self.labeled_high - self.labeled_low

    @property
    def width_ratio(self) -> float:
        """Deciding width over labeled-only width (below 1: the proxy helped)."""
        w = self.labeled_width
        return self.width / w if w > 0 else math.nan

    @property
    def estimable(self) -> bool:
        """Whether the gap could be estimated."""
        return self.verdict != NOT_ESTIMABLE

    @property
    def disadvantaged(self) -> Any:
        """The disadvantaged group, or ``None`` without such a verdict."""
        return disadvantaged(self.verdict, self.group_a, self.group_b)

    def to_dict(self, *, numbers: bool = False) -> dict:
        """Plain dictionary, JSON-ready (``numbers=True``: floats kept, NaN and inf too).

        In the JSON-ready form a missing number is ``None`` and an infinite one (gold
        labels that even labeling every row would not reach) the text ``"inf"``.
        """
        return gap_row_dict(
            self, numbers,
            sizes=[("rows_a", self.rows_a), ("rows_b", self.rows_b),
                   ("labeled_a", self.labeled_a), ("labeled_b", self.labeled_b)],
            intervals=[("lambda_a", self.lam[0]), ("lambda_b", self.lam[1])],
            needed=[("gold_labels_needed", self.gold_labels_needed),
                    ("gold_labels_needed_labeled_only", self.gold_labels_needed_labeled_only)],
            method=[("labeled_method", self.labeled_method), ("guarantee", self.guarantee)])


@dataclass(frozen=True)
class GroupCheck:
    """One group's rows, gold labels, proxy agreement and sampling check.

    Attributes
    ----------
    group : object
        The group.
    rows, labeled : int
        Rows, and rows with a gold label.
    agreement : float
        Share of the labeled rows where the proxy agrees with the gold label.
    proxy_pvalue, prediction_pvalue : float
        Two-sided p-values that the proxy's (the prediction's) positive rate is the same on
        labeled and unlabeled rows (NaN with fewer than 2 rows on a side).
    """

    group: Any
    rows: int
    labeled: int
    agreement: float
    proxy_pvalue: float
    prediction_pvalue: float

    def to_dict(self) -> dict:
        """Plain dictionary (JSON-ready)."""
        return {"group": _jsonable(self.group), "rows": self.rows, "labeled": self.labeled,
                "agreement": _jsonable(self.agreement),
                "proxy_pvalue": _jsonable(self.proxy_pvalue),
                "prediction_pvalue": _jsonable(self.prediction_pvalue)}


@dataclass(frozen=True)
class PPIAuditResult(ResultFields, ResultMethods):
    """Everything a prediction-powered audit found.

    Attributes
    ----------
    comparisons : tuple of PPIComparison
        One per metric component and pair of groups.
    groups : tuple of GroupCheck
        Rows, gold labels, proxy agreement and the sampling check, per group.
    n_rows : int
        Rows scanned.
    excluded : dict
        Reason -> rows left out (rows without a gold label are not excluded).
    engine, source : str
        What read the data and what was read.
    columns : dict
        Group, label, proxy and prediction columns.
    classes : tuple
        ``(negative, positive)`` as the label column holds them.
    metrics : tuple of str
        Metrics audited.
    comparison : str
        ``"pairwise"``, ``"vs-rest"`` or ``"vs-reference"``.
    reference : object
        The reference group (``vs-reference``).
    confidence_level : float
        Requested level (family-wise with ``error_control="family"``).
    error_control : str
        ``"family"``, ``"fdr"`` or ``"none"``.
    n_tests : int
        Estimable comparisons the error control is taken over.
    guaranteed : bool
        Whether every verdict rests on a finite-sample interval.
    favourable : str
        ``"positive"`` or ``"negative"``: whether the positive prediction is favourable.
    assumption : str
        What every interval assumes (:data:`ASSUMPTION`, or :data:`WEIGHTED_ASSUMPTION`
        with recorded sampling probabilities).
    batches : tuple of int or None
        With recorded sampling probabilities: the annotation batches found (0: labels
        without a probability, a uniform sample); ``None`` otherwise.
    looks : int
        Planned looks (annotation batches) the error is split over (1: a single look).
    notes : tuple of str
        Warnings and explanations (sampling check, demographic parity on all rows, ...).
    version, created : str
        fairbound version and UTC timestamp.
    planned : bool
        Whether the gold labels needed were computed (``plan=`` of
        :func:`ppi_audit_counts`).
    """

    comparisons: tuple[PPIComparison, ...]
    comparison: str
    classes: tuple
    metrics: tuple[str, ...]
    guaranteed: bool
    favourable: str
    assumption: str = ASSUMPTION
    notes: tuple[str, ...] = ()
    batches: tuple | None = None
    looks: int = 1
    planned: bool = field(default=True, repr=False)

    def __repr__(self) -> str:
        gold = sum(g.labeled for g in self.groups)
        rows = sum(g.rows for g in self.groups)
        verdicts = verdict_counts(self.comparisons)
        kind = "guaranteed" if self.guaranteed else "asymptotic"
        if self.batches is not None:
            kind += f", weighted ({len(self.batches)} batches, {self.looks} looks)"
        return (f"<PPIAuditResult: {len(self.comparisons)} comparisons of "
                f"{len(self.groups)} groups, {gold:,} gold labels of {rows:,} rows, "
                f"{kind}, {self.confidence_level:g} {self.error_control}; {verdicts}>")

    def to_dict(self) -> dict:
        """JSON-ready dictionary: schema ``"fairbound.ppi_audit/1"``, ``kind`` ``"ppi"``."""
        return {
            "schema": SCHEMA, "kind": "ppi", "fairbound_version": self.version,
            "created": self.created,
            "source": self.source, "engine": self.engine, "columns": self.columns,
            "n_rows": self.n_rows, "excluded": dict(self.excluded),
            "task": "binary", "classes": [_jsonable(c) for c in self.classes],
            "positive": _jsonable(self.classes[1]) if self.classes else None,
            "groups": [g.to_dict() for g in self.groups],
            "metrics": list(self.metrics), "comparison": self.comparison,
            "reference": _jsonable(self.reference),
            "confidence_level": self.confidence_level, "error_control": self.error_control,
            "n_tests": self.n_tests, "guaranteed": self.guaranteed,
            "favourable": self.favourable, "assumption": self.assumption,
            "batches": None if self.batches is None else list(self.batches),
            "looks": self.looks, "notes": list(self.notes),
            "comparisons": [c.to_dict() for c in self.comparisons],
        }

    def recompute(self, *, confidence_level: float | None = None,
                  error_control: str | None = None) -> PPIAuditResult:
        """The whole audit at another level or error control, from the stored counts.

        No data is read again.  Arguments left out keep their values in this result.

        Parameters
        ----------
        confidence_level : float, optional
            New level (family-wise under ``error_control="family"``).
        error_control : {'family', 'fdr', 'none'}, optional
            Which error the verdicts control.

        Returns
        -------
        PPIAuditResult
        """
        return recompute_rows(
            self, confidence_level, error_control,
            lambda rows, rho, control: _build(rows, confidence_level=rho,
                                              error_control=control,
                                              guaranteed=self.guaranteed, plan=self.planned,
                                              looks=self.looks),
            kept="counts", audit="ppi_audit")

    def summary(self) -> list[str]:
        """Plain-language sentences, gaps found first (the report's wording)."""
        from fairbound.report.ppi_report import ppi_sentence

        order = sorted(self.comparisons, key=lambda c: c.verdict not in DISADVANTAGED)
        d = self.to_dict()
        return [ppi_sentence(c.to_dict(), result=d) for c in order]

    def plot(self, kind: str = "forest", **options):
        """Forest plot of every gap with its interval (needs matplotlib).

        Parameters
        ----------
        kind : {'forest'}
            The only figure: each gap ``rate_A - rate_B`` with its deciding interval.
        **options
            Passed to :func:`fairbound.viz.ppi.plot_ppi_forest` (``ax=``, ``max_rows=``).

        Returns
        -------
        matplotlib.figure.Figure
        """
        from fairbound._validate import check_choice
        from fairbound.viz.ppi import plot_ppi_forest

        check_choice(kind, ("forest",), "kind")
        return plot_ppi_forest(self, **options)

    @fill
    def report(self, path, *, title: str | None = None):
        """Write a self-contained HTML page (:func:`fairbound.report.ppi_report.write_ppi_report`).

        {{report_sections}}
        """
        from fairbound.report.ppi_report import write_ppi_report

        return write_ppi_report(self, path, title=title)


# --------------------------------------------------------------------------- arithmetic
def _rate_counts(c, tables, labeled_only: bool) -> tuple[int, int]:
    """``(denominator rows, numerator rows)`` of a rate from a group's counts."""
    num, den = (np.asarray(t, dtype=float) for t in tables)
    lab = np.asarray(c.labeled).sum(axis=1)        # [y, pred]
    n, k = float((lab * den).sum()), float((lab * num).sum())
    if not labeled_only:   # only for rates without the label (selection): pred alone
        unl = np.asarray(c.unlabeled).sum(axis=0)  # [pred]
        n += float((unl * den[0]).sum())
        k += float((unl * num[0]).sum())
    return int(round(n)), int(round(k))


def _tables_of(component: str):
    if component in _RATE_TABLES:
        return _RATE_TABLES[component]
    from fairbound.stats.ppi import RATIO_METRICS

    return RATIO_METRICS[_KINDS[component][1]]


def _exact_like(ca, cb, component, level, method, labeled_only):
    """Rate gap, interval and rates from counts with one of the main audit's methods."""
    from fairbound.stats import GroupStats, difference_interval

    tables = _tables_of(component)
    sa = GroupStats.from_counts(*_rate_counts(ca, tables, labeled_only))
    sb = GroupStats.from_counts(*_rate_counts(cb, tables, labeled_only))
    if sa.n <= 0 or sb.n <= 0:
        from fairbound.stats.base import NotEstimable

        raise NotEstimable("a group has no rows in this rate's denominator")
    lo, hi = difference_interval(sa, sb, method=method, confidence_level=level)
    return sa.mean - sb.mean, lo, hi, sa.mean, sb.mean


@dataclass(frozen=True)
class _ScoreSide:
    """One side of a comparison with a score proxy.

    Counts by ``score >= 0.5`` (for the checks and the label-free selection rate) and the
    score sums (for the intervals).
    """

    counts: Any   # PPICounts
    score: Any    # ScorePPICounts

    @property
    def labeled(self):
        return self.counts.labeled

    @property
    def unlabeled(self):
        return self.counts.unlabeled

    @property
    def n(self) -> int:
        return self.counts.n

    @property
    def n_unlabeled(self) -> int:
        return self.counts.n_unlabeled


def _score_gap(ca, cb, component, level, proxy: bool):
    """(estimate, low, high, rate_a, rate_b, lam, std_error) with a score proxy."""
    from fairbound.stats.ppi_score import ppi_score_ratio_gap_interval, ppi_score_ratio_interval

    return _rate_gap(ppi_score_ratio_gap_interval, ppi_score_ratio_interval, ca.score,
                     cb.score, component, level, proxy)


def _rate_gap(gap_interval, rate_interval, ca, cb, component, level, proxy: bool):
    """(estimate, low, high, rate_a, rate_b, lam, std_error) from a design's interval pair.

    ``gap_interval(a, b, level, metric=, proxy=)`` and ``rate_interval(a, level, ...)``
    are the weighted or the score estimator's; the error rate's interval is read as
    accuracy.
    """
    kind, key = _KINDS[component]
    r = gap_interval(ca, cb, level, metric=key, proxy=proxy)
    ra = rate_interval(ca, level, metric=key, proxy=proxy).estimate
    rb = rate_interval(cb, level, metric=key, proxy=proxy).estimate
    if kind == "mean":
        return -r.estimate, -r.high, -r.low, 1 - ra, 1 - rb, r.lam, r.std_error
    return r.estimate, r.low, r.high, ra, rb, r.lam, r.std_error


def _weighted(c) -> bool:
    from fairbound.stats.ppi_ipw import WeightedPPICounts

    return isinstance(c, WeightedPPICounts)


def _ipw_gap(ca, cb, component, level, proxy: bool):
    """(estimate, low, high, rate_a, rate_b, lam, std_error) with recorded sampling weights."""
    from fairbound.stats.ppi_ipw import ipw_ratio_gap_interval, ipw_ratio_interval

    return _rate_gap(ipw_ratio_gap_interval, ipw_ratio_interval, ca, cb, component, level,
                     proxy)


def _ppi_gap(ca, cb, component, level, guaranteed):
    """(estimate, low, high, rate_a, rate_b, lam, method, guarantee, note) for the proxy side."""
    from fairbound.stats import ppi as P
    from fairbound.stats.base import NotEstimable

    kind, key = _KINDS[component]
    if kind == "selection":   # no label needed: every row counts
        method = "exact" if guaranteed else "newcombe"
        est, lo, hi, ra, rb = _exact_like(ca, cb, component, level, method, False)
        guarantee = "finite-sample" if guaranteed else "asymptotic"
        return (est, lo, hi, ra, rb, (math.nan, math.nan), f"{method} (all rows)",
                guarantee, "")
    if _weighted(ca):
        est, lo, hi, ra, rb, lam, _ = _ipw_gap(ca, cb, component, level, True)
        return (est, lo, hi, ra, rb, lam, "ppi++ (weighted by 1 / sampling probability)",
                "asymptotic", "")
    if isinstance(ca, _ScoreSide):
        if guaranteed:
            est, lo, hi, ra, rb = _exact_like(ca, cb, component, level, "exact", True)
            return (est, lo, hi, ra, rb, (math.nan, math.nan), "exact (gold-labeled rows)",
                    "finite-sample", "no guaranteed prediction-powered interval with a score "
                    "proxy: the exact interval on the gold-labeled rows decides")
        est, lo, hi, ra, rb, lam, _ = _score_gap(ca, cb, component, level, True)
        return (est, lo, hi, ra, rb, lam, "ppi++ (score proxy, plugin)", "asymptotic", "")
    if kind == "ratio":
        if guaranteed:
            est, lo, hi, ra, rb = _exact_like(ca, cb, component, level, "exact", True)
            return (est, lo, hi, ra, rb, (math.nan, math.nan), "exact (gold-labeled rows)",
                    "finite-sample", "no guaranteed prediction-powered interval for ratio "
                    "metrics yet: the exact interval on the gold-labeled rows decides")
        r = P.ppi_ratio_gap_interval(ca, cb, level, metric=key)
        ra = P.ppi_ratio_interval(ca, level, metric=key, variance="plugin").estimate
        rb = P.ppi_ratio_interval(cb, level, metric=key, variance="plugin").estimate
        return (r.estimate, r.low, r.high, ra, rb, r.lam, f"ppi++ ({r.variance})",
                "asymptotic", "")
    sa, sb = ca.mean_stats(key), cb.mean_stats(key)   # error rate; accuracy = 1 - error
    if guaranteed:
        # The finite-sample PPI interval (lambda = 1) and the exact labeled-only interval,
        # each at alpha / 2, intersected (a union bound: both hold together with
        # probability >= 1 - alpha).  So a proxy too weak for the finite-sample PPI
        # interval to pay off costs only the split of alpha, and a near-perfect one helps.
        half = bonferroni_level(level, 2)
        try:
            g = P.ppi_guaranteed_gap_interval(sa, sb, half, lam=1.0)
            pa = P.ppi_mean_interval(sa, level, tuned=False)
            pb = P.ppi_mean_interval(sb, level, tuned=False)
        except NotEstimable:   # a side without unlabeled rows: the exact interval alone
            est, lo, hi, ra, rb = _exact_like(ca, cb, component, level, "exact", True)
            return (est, lo, hi, ra, rb, (math.nan, math.nan), "exact (gold-labeled rows)",
                    "finite-sample", "a group has no unlabeled rows: the exact interval on "
                    "the gold-labeled rows decides")
        _, elo, ehi, _, _ = _exact_like(ca, cb, component, half, "exact", True)
        lo, hi = max(-g.high, elo), min(-g.low, ehi)
        if lo > hi:   # the two disagree (an event of probability <= alpha): their hull
            lo, hi = min(-g.high, elo), max(-g.low, ehi)
        return (pb.estimate - pa.estimate, lo, hi, 1 - pa.estimate, 1 - pb.estimate,
                g.lam, "ppi (finite-sample, lambda = 1) and exact, alpha split",
                "finite-sample", "")
    r = P.ppi_gap_interval(sa, sb, level)
    pa = P.ppi_mean_interval(sa, level, variance="plugin").estimate
    pb = P.ppi_mean_interval(sb, level, variance="plugin").estimate
    return (-r.estimate, -r.high, -r.low, 1 - pa, 1 - pb, r.lam, f"ppi++ ({r.variance})",
            "asymptotic", "")


def _labeled_gap(ca, cb, component, level, guaranteed):
    """(estimate, low, high, method) from the gold-labeled rows alone."""
    from fairbound.stats import ppi as P

    kind, key = _KINDS[component]
    if _weighted(ca) and kind != "selection":
        est, lo, hi, _, _, _, _ = _ipw_gap(ca, cb, component, level, False)
        return est, lo, hi, "hajek (weighted by 1 / sampling probability)"
    if isinstance(ca, _ScoreSide) and kind != "selection" and not guaranteed:
        est, lo, hi, _, _, _, _ = _score_gap(ca, cb, component, level, False)
        return est, lo, hi, "delta method (wald)" if kind == "ratio" else "wald"
    if guaranteed or kind == "selection":
        method = "exact" if guaranteed else "newcombe"
        est, lo, hi, _, _ = _exact_like(ca, cb, component, level, method, True)
        return est, lo, hi, method
    if kind == "ratio":
        r = P.classical_ratio_gap_interval(ca, cb, level, metric=key)
        return r.estimate, r.low, r.high, "delta method (wald)"
    r = P.classical_gap_interval(ca.mean_stats(key), cb.mean_stats(key), level)
    return -r.estimate, -r.high, -r.low, "wald"


def _needed(ca, cb, component, gap, level) -> tuple[float, float]:
    """Gold labels needed (PPI++, labeled-only) to exclude 0 if ``gap`` were the truth."""
    from fairbound.stats import ppi as P
    from fairbound.stats.base import NotEstimable

    kind, key = _KINDS[component]
    if kind == "selection" or not math.isfinite(gap):
        return math.nan, math.nan
    if gap == 0:
        return math.inf, math.inf
    if _weighted(ca):
        return _scaled_needed(ca, cb, component, gap, level, _ipw_gap,
                              ca.n_labeled + cb.n_labeled)
    if isinstance(ca, _ScoreSide):
        return _scaled_needed(ca, cb, component, gap, level, _score_gap, ca.n + cb.n)
    if kind == "ratio":
        a, b, opts = ca, cb, {"metric": key}
    else:
        a, b, opts = ca.mean_stats(key), cb.mean_stats(key), {}
    out = []
    for proxy in (True, False):
        try:
            plan = P.labels_needed(a, b, abs(gap), level, proxy=proxy, **opts)
        except (NotEstimable, FairboundError):
            out.append(math.nan)
            continue
        out.append(math.inf if plan is None else float(plan.total))
    return out[0], out[1]


def _scaled_needed(ca, cb, component, gap, level, gap_fn, now) -> tuple[float, float]:
    """Gold labels needed with labels drawn as now: variance scaled as 1 / labels.

    With ``n`` labels drawn as the current ones were, the standard error scales as
    ``sqrt(n_now / n)``; the labels at which ``z se`` reaches ``|gap|`` (at least those
    there now).  A plan for the design as it stands (weighted sampling, or a score proxy,
    whose sums the Neyman planner of :mod:`fairbound.stats.ppi` does not take), ignoring
    the shrinking unlabeled pool.
    """
    from statistics import NormalDist

    from fairbound.stats.base import NotEstimable

    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    now = float(now)
    out = []
    for proxy in (True, False):
        try:
            se = gap_fn(ca, cb, component, level, proxy)[6]
        except NotEstimable:
            out.append(math.nan)
            continue
        out.append(max(now, math.ceil(now * (z * se / abs(gap)) ** 2)))
    return out[0], out[1]


# --------------------------------------------------------------------------- building
@dataclass(frozen=True)
class _Row:
    metric: str
    component: str
    rate: str
    rate_is_cost: bool
    group_a: Any
    group_b: Any
    a: Any   # PPICounts
    b: Any


def _labeled_denominator(c, component) -> int:
    if component == "selection_rate":
        return int(np.asarray(c.labeled).sum()) + int(np.asarray(c.unlabeled).sum())
    return _rate_counts(c, _tables_of(component), True)[0]


def _compare(r: _Row, level: float, confidence_level: float, guaranteed: bool,
             plan: bool) -> PPIComparison:
    from fairbound.stats.base import NotEstimable

    rows_a, rows_b = r.a.n + r.a.n_unlabeled, r.b.n + r.b.n_unlabeled
    common = dict(metric=r.metric, component=r.component, rate=r.rate, group_a=r.group_a,
                  group_b=r.group_b, rows_a=rows_a, rows_b=rows_b, labeled_a=r.a.n,
                  labeled_b=r.b.n, confidence_level=confidence_level, interval_level=level,
                  rate_is_cost=r.rate_is_cost)
    notes = []
    kind = _KINDS[r.component][0]
    lone = [] if guaranteed or kind == "selection" else [
        (_jsonable(g), n) for g, c in ((r.group_a, r.a), (r.group_b, r.b))
        if (n := _labeled_denominator(c, r.component)) < MIN_LABELED_CLT]
    lone_reason = "; ".join(
        f"{g!r} has {n} gold-labeled row{'s' * (n != 1)} in the {r.rate} denominator"
        for g, n in lone) + (f"; an asymptotic interval needs at least {MIN_LABELED_CLT} "
                             "(guaranteed=True gives the exact one)")
    try:
        if lone:   # the proxy's correction is estimated from these rows alone
            raise NotEstimable(f"not estimable: {lone_reason}")
        est, lo, hi, ra, rb, lam, method, guarantee, note = _ppi_gap(
            r.a, r.b, r.component, level, guaranteed)
    except NotEstimable as exc:
        nan = math.nan
        return PPIComparison(rate_a=nan, rate_b=nan, estimate=nan, low=nan, high=nan,
                             labeled_estimate=nan, labeled_low=nan, labeled_high=nan,
                             lam=(nan, nan), method="-", labeled_method="-", guarantee="-",
                             verdict=NOT_ESTIMABLE, gold_labels_needed=nan,
                             gold_labels_needed_labeled_only=nan, note=str(exc), **common)
    if note:
        notes.append(note)
    try:
        lest, llo, lhi, lmethod = _labeled_gap(r.a, r.b, r.component, level, guaranteed)
    except NotEstimable as exc:
        lest = llo = lhi = math.nan
        lmethod = "-"
        notes.append(f"labeled-only: {exc}")
    clo, chi = (lo, hi) if r.rate_is_cost else (-hi, -lo)
    v = verdict(clo, chi)
    need = need_lab = math.nan
    if plan:
        need, need_lab = _needed(r.a, r.b, r.component, est, level)
    if kind != "selection":
        few = [(_jsonable(g), n) for g, c in ((r.group_a, r.a), (r.group_b, r.b))
               if (n := _labeled_denominator(c, r.component)) < SMALL_LABELED]
        if few:
            shown = ", ".join(f"{g!r} (n={n})" for g, n in few)
            notes.append(f"few gold labels in the denominator: {shown}; "
                         + ("the exact interval holds at any n" if guaranteed else
                            "the CLT interval may under-cover (guaranteed=True for one "
                            "that holds at any n)"))
    return PPIComparison(rate_a=ra, rate_b=rb, estimate=est, low=lo, high=hi,
                         labeled_estimate=lest, labeled_low=llo, labeled_high=lhi,
                         lam=tuple(float(x) for x in lam) if len(lam) == 2 else
                         (math.nan, math.nan),
                         method=method, labeled_method=lmethod, guarantee=guarantee,
                         verdict=v, gold_labels_needed=need,
                         gold_labels_needed_labeled_only=need_lab, note="; ".join(notes),
                         **common)


def _build(rows: Sequence[_Row], *, confidence_level, error_control, guaranteed,
           plan=True, looks: int = 1):
    """Comparisons at the levels ``error_control`` sets (as the main audit's builder).

    ``looks`` splits the error over planned looks (Bonferroni across annotation batches).
    """
    # the levels as the main audit sets them (fairbound.audits.control); the last build
    # also plans the gold labels each comparison needs
    return controlled_rows(
        rows, lambda r, level, final: _compare(r, level, confidence_level, guaranteed,
                                               final and plan),
        confidence_level=confidence_level, error_control=error_control, looks=looks)


def _resolve_metrics(metrics) -> tuple:
    supported = ", ".join(("demographic_parity", "equal_opportunity", "false_positive_rate",
                           "false_negative_rate", "equalized_odds", "predictive_parity",
                           "accuracy_parity"))
    return supported_metrics(metrics, DEFAULT_PPI_METRICS, _KINDS,
                             audit="a prediction-powered audit", hint=f"use one of {supported}")


def _group_checks(table) -> tuple[tuple[GroupCheck, ...], list[str]]:
    """Per-group agreement and sampling check, and the notes the check gives."""
    from fairbound.stats.ppi import PPICounts, proxy_shift_pvalue

    pred_cost = ((0.0, 1.0), (0.0, 1.0))   # cost [y, pred] = pred: the prediction's rate
    checks, tests = [], []
    for i, g in enumerate(table.groups):
        c = PPICounts(labeled=table.labeled[i], unlabeled=table.unlabeled[i])
        n = c.n
        agree = float(c.labeled[0, 0].sum() + c.labeled[1, 1].sum()) / n if n else math.nan
        sp, sq = c.mean_stats("base-rate"), c.mean_stats(pred_cost)
        pp, pq = proxy_shift_pvalue(sp), proxy_shift_pvalue(sq)
        checks.append(GroupCheck(g, n + c.n_unlabeled, n, agree, pp, pq))
        for what, s, p in (("proxy", sp, pp), ("prediction", sq, pq)):
            if math.isfinite(p):
                tests.append((g, what, s, p))
    notes = []
    k = max(len(tests), 1)
    for g, what, s, p in tests:
        if p * k < SHIFT_ALPHA:
            notes.append(
                f"group {_jsonable(g)!r}: the {what}'s positive rate is "
                f"{s.mean_f:.3f} on gold-labeled rows and {s.mean_f_unlabeled:.3f} on the "
                f"others (p = {p:.2g}, {k} checks): the gold labels may not be a random "
                "sample of the group, which every interval here assumes")
    return tuple(checks), notes


def _rest_note(table, compared) -> str | None:
    """A note when each-vs-rest pools groups labeled at clearly different rates."""
    if not any(b == REST for _, b in compared):
        return None
    from scipy import stats as st

    lab = table.labeled.sum(axis=(1, 2, 3))
    unl = table.unlabeled.sum(axis=(1, 2))
    if len(lab) < 2 or lab.sum() == 0 or unl.sum() == 0:
        return None
    p = st.chi2_contingency(np.stack([lab, unl]))[1]
    if p < SHIFT_ALPHA:
        return ("the groups are labeled at different rates (chi-square p = "
                f"{p:.2g}): the pooled 'rest' is then not a uniform sample of its rows, and "
                "its intervals lean towards the groups labeled most; prefer pairwise or "
                "vs-reference comparisons")
    return None


def _check_looks(looks) -> int:
    from fairbound._validate import check_int

    return check_int(looks, "looks", low=1)


def _weighted_counts(table, i: int):
    """Group ``i``'s :class:`~fairbound.stats.ppi_ipw.WeightedPPICounts` (its own batches)."""
    from fairbound.stats.ppi_ipw import WeightedPPICounts

    W = table.weights[:, i]
    keep = [k for k in range(len(table.batches)) if W[0, k].sum() > 0]
    return WeightedPPICounts(unlabeled=table.unlabeled[i],
                             batches=tuple(table.batches[k] for k in keep),
                             n=W[0, keep], w=W[1, keep], w2=W[2, keep])


def _design_checks(table) -> tuple[tuple[GroupCheck, ...], list[str]]:
    """Per group and batch, whether the recorded probabilities reproduce the rows drawn from.

    In batch ``j`` the ``1 / pi``-weighted positive rate of the proxy (and of the
    prediction) over the drawn rows estimates that rate over the rows not labeled before
    ``j``, which are all known; a z-test (Bonferroni over every test) flags probabilities
    that do not match how the rows were drawn.
    """
    from statistics import NormalDist

    checks, tests = [], []
    for i, g in enumerate(table.groups):
        c = _weighted_counts(table, i)
        n = c.n_labeled
        lab = c.labeled
        agree = float(lab[0, 0].sum() + lab[1, 1].sum()) / n if n else math.nan
        all_rows = lab.sum(axis=0) + c.unlabeled                   # [f, pred]
        before = np.zeros((2, 2))
        worst = {"proxy": math.nan, "prediction": math.nan}
        for k, b in enumerate(c.batches):
            rest = all_rows - before
            before = before + c.n[k].sum(axis=0)
            if b == 0 or c.n[k].sum() < 2:
                continue
            m_rest = float(rest.sum())
            for what, axis in (("proxy", 0), ("prediction", 1)):
                value = np.zeros((2, 2, 2))
                value[(slice(None), 1, slice(None)) if axis == 0 else (Ellipsis, 1)] = 1.0
                sw = float(c.w[k].sum())
                hajek = float((c.w[k] * value).sum()) / sw
                true = float(rest.sum(axis=1 - axis)[1]) / m_rest
                var = float((np.maximum(c.w2[k] - c.w[k], 0) * (value - hajek) ** 2).sum())
                var /= m_rest**2
                if var <= 0:
                    continue
                p = 2.0 * (1.0 - NormalDist().cdf(abs(hajek - true) / math.sqrt(var)))
                tests.append((g, b, what, hajek, true, p))
                worst[what] = p if math.isnan(worst[what]) else min(worst[what], p)
        checks.append(GroupCheck(g, c.rows, n, agree, worst["proxy"], worst["prediction"]))
    notes = []
    k = max(len(tests), 1)
    for g, b, what, hajek, true, p in tests:
        if p * k < SHIFT_ALPHA:
            notes.append(
                f"group {_jsonable(g)!r}, batch {b}: the {what}'s positive rate weighted by "
                f"1 / probability is {hajek:.3f} on the drawn rows but {true:.3f} on the rows "
                f"they were drawn from (p = {p:.2g}, {k} checks): the recorded probabilities "
                "may not be those the rows were drawn with, which every interval here assumes")
    return tuple(checks), notes


def ppi_audit_counts(table, *, metrics=None, comparison: str = "pairwise", reference=None,
                     confidence_level: float = 0.95, error_control: str = "family",
                     guaranteed: bool = False, favourable: str = "positive",
                     plan: bool = True, looks: int = 1) -> PPIAuditResult:
    """A prediction-powered audit from per-group counts (what :func:`ppi_audit` runs).

    Parameters
    ----------
    table : fairbound.engines.ppi.PPITable
        Counts per group of (labeled, gold, proxy, prediction), from
        :func:`fairbound.engines.ppi.ppi_counts` or built directly (simulations).
    metrics, comparison, reference, confidence_level, error_control, guaranteed, favourable
        As in :func:`ppi_audit`.
    plan : bool
        Whether to compute the gold labels needed (``False`` leaves them NaN and skips the
        planner, most of the time of a small audit: simulations).
    looks : int
        As in :func:`ppi_audit`.

    Returns
    -------
    PPIAuditResult
    """
    from fairbound._version import __version__
    from fairbound.stats.ppi import PPICounts

    metric_objs = _resolve_metrics(metrics)
    comparison = check_comparison(comparison, reference)
    rho = check_confidence_level(confidence_level)
    error_control = check_error_control(error_control)
    guaranteed = check_bool(guaranteed, "guaranteed")
    favourable = check_favourable(favourable)
    looks = _check_looks(looks)
    weighted = bool(getattr(table, "batches", None) is not None)
    if weighted and guaranteed:
        raise FairboundError("guaranteed: no finite-sample interval is available with "
                             "recorded sampling probabilities; use guaranteed=False (the "
                             "weighted PPI++ interval) or uniformly drawn gold labels",
                             param="guaranteed")
    if weighted:
        drawn = [b for b in table.batches if b > 0]
        if len(drawn) > looks:
            raise FairboundError(f"looks: the data hold {len(drawn)} annotation batches "
                                 f"({drawn}) but looks={looks}; plan at least one look per "
                                 "batch (the error is split over the looks)", param="looks")
    groups = list(table.groups)
    gname = " & ".join(table.columns.get("group", ["group"]))
    if len(groups) < 2:
        raise FairboundError(
            f"group: column {gname!r} has {len(groups)} group"
            f"{'' if len(groups) == 1 else 's'} with rows; at least two are needed to "
            "compare", param="group")
    reference = resolve_reference(groups, reference, comparison, gname, table.group_rows())
    scored = getattr(table, "scores", None) is not None
    if weighted:
        counts = {g: _weighted_counts(table, i) for i, g in enumerate(groups)}
    elif scored:
        from fairbound.stats.ppi_score import ScorePPICounts

        counts = {g: _ScoreSide(PPICounts(labeled=table.labeled[i],
                                          unlabeled=table.unlabeled[i]),
                                ScorePPICounts(labeled=table.scores[0][i],
                                               unlabeled=table.scores[1][i]))
                  for i, g in enumerate(groups)}
    else:
        counts = {g: PPICounts(labeled=table.labeled[i], unlabeled=table.unlabeled[i])
                  for i, g in enumerate(groups)}
    compared = pairs(groups, comparison, reference)

    def side(a, b):
        if b != REST:
            return counts[b]
        others = [i for i, g in enumerate(groups) if g != a]
        if weighted:
            first, *more = (counts[groups[i]] for i in others)
            return first.pooled(*more)
        if scored:
            first, *more = (counts[groups[i]] for i in others)
            return _ScoreSide(
                PPICounts(labeled=table.labeled[others].sum(axis=0),
                          unlabeled=table.unlabeled[others].sum(axis=0)),
                first.score.pooled(*(m.score for m in more)))
        return PPICounts(labeled=table.labeled[others].sum(axis=0),
                         unlabeled=table.unlabeled[others].sum(axis=0))

    rows = []
    for mm in metric_objs:
        for comp in mm.components:
            oc = oriented(comp, favourable)
            for ga, gb in compared:
                rows.append(_Row(mm.name, comp.name, comp.rate, oc.rate_is_cost, ga, gb,
                                 counts[ga], side(ga, gb)))
    comps, n_tests = _build(rows, confidence_level=rho, error_control=error_control,
                            guaranteed=guaranteed, plan=check_bool(plan, "plan"),
                            looks=looks)
    checks, notes = _design_checks(table) if weighted else _group_checks(table)
    for text in notes:
        warnings.warn(text, SamplingWarning, stacklevel=3)
    if not int(np.asarray(table.unlabeled).sum()):
        notes.append("no row is without a gold label: the intervals are the labeled-only "
                     "ones (the proxy has nothing to add)")
    if weighted:
        shown = ", ".join(map(str, table.batches))
        zero = ("; batch 0: labels without a probability, taken as a uniform sample of "
                "their group" if 0 in table.batches else "")
        notes.append(f"gold labels weighted by 1 / sampling probability (batch {shown}{zero}); "
                     "gold labels needed assume further labels drawn as these were")
    if scored:
        notes.append("score proxy: the proxy's probability is used as it is (PPI++ with the "
                     "plug-in standard error, which can under-cover with few gold labels); "
                     "agreement and the sampling check read score >= 0.5; gold labels "
                     "needed assume further labels drawn as these were")
    if looks > 1:
        notes.append(f"looks: each interval is at level 1 - alpha / {looks} so that the "
                     f"verdicts hold over all {looks} planned looks (stop annotating once a "
                     "verdict is reached)")
    rest = None if weighted else _rest_note(table, compared)
    if rest:
        notes.append(rest)
    if any(mm.name == "demographic_parity" for mm in metric_objs):
        notes.append("demographic parity needs no gold label: it is computed on all rows "
                     f"({'exact' if guaranteed else 'newcombe'} interval); the labeled-only "
                     "interval uses the gold-labeled rows alone")
    if guaranteed:
        notes.append("gold labels needed are planned for the asymptotic PPI++ and "
                     "labeled-only intervals (no planner for the guaranteed ones)")
    return PPIAuditResult(
        comparisons=with_inputs(comps, rows), groups=checks, n_rows=int(table.n_rows),
        excluded=dict(table.excluded), engine=table.engine, source=table.source,
        columns=dict(table.columns), classes=tuple(table.classes),
        metrics=tuple(mm.name for mm in metric_objs), comparison=comparison,
        reference=reference, confidence_level=rho, error_control=error_control,
        n_tests=n_tests, guaranteed=guaranteed, favourable=favourable,
        notes=tuple(notes), version=__version__,
        created=_dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        assumption=WEIGHTED_ASSUMPTION if weighted else ASSUMPTION,
        batches=tuple(table.batches) if weighted else None, looks=looks,
        planned=bool(plan),
    )


def ppi_audit(
    data,
    *,
    group: str | Sequence[str],
    label: str,
    proxy: str,
    prediction: str,
    metrics: str | Iterable[str] | None = None,
    comparison: str = "pairwise",
    reference: Any = None,
    confidence_level: float = 0.95,
    error_control: str = "family",
    guaranteed: bool = False,
    favourable: str = "positive",
    pos_label: Any = None,
    where: str | None = None,
    sampling_probability: str | None = None,
    batch: str | None = None,
    looks: int = 1,
    proxy_kind: str = "label",
    engine: str = "auto",
) -> PPIAuditResult:
    """Audit a classifier's fairness gaps from few gold labels and a proxy labeler.

    Every row has the audited prediction and a proxy label (a stronger model, an LLM
    judge, a crowd majority); some rows also have the gold label.  A missing gold label
    means "unlabeled", not "excluded".  Each gap gets the prediction-powered (PPI++)
    interval and, side by side, the interval from the gold-labeled rows alone, with the
    gold labels each would need to settle it.

    **Assumption:** within each group, the gold-labeled rows are a uniformly random sample
    of the group's rows.  The proxy may be biased or often wrong (that only widens the
    interval), but the rows sent to annotators must not have been chosen by the proxy,
    the prediction or anything related to the label.  The part that can be checked is
    checked: when the proxy's or the prediction's positive rate differs between labeled
    and unlabeled rows of a group (p below 0.01 after Bonferroni over the checks), a
    :class:`SamplingWarning` is raised and a note added.

    Parameters
    ----------
    data : DataFrame, Table, path or dict
        pandas, polars or pyarrow data, a dict of arrays, a CSV / Parquet / JSON-lines file
        or glob, or a DuckDB database (read by DuckDB in one ``GROUP BY``).
    group : str or list of str
        Protected-attribute column(s); several give intersectional groups.
    label : str
        Gold label column (or checked expression); missing where no gold label was
        collected.
    proxy : str
        Proxy label column, in the label's values, or a checked expression such as
        ``"judge_score >= 0.5"``.  Rows without one are excluded (and counted).
    prediction : str
        The audited classifier's prediction column (or expression).
    metrics : str or list of str, optional
        ``demographic_parity`` (computed on all rows: it needs no gold label),
        ``equal_opportunity``, ``false_positive_rate``, ``false_negative_rate``,
        ``equalized_odds`` (TPR and FPR gaps), ``predictive_parity``,
        ``accuracy_parity``.  Default: :data:`DEFAULT_PPI_METRICS`.
    comparison : {'pairwise', 'vs-rest', 'vs-reference'}
        Which pairs of groups to compare.
    reference : object, optional
        Reference group (B side; implies ``vs-reference``).
    confidence_level : float
        Level of the audit (family-wise under ``error_control="family"``).
    error_control : {'family', 'fdr', 'none'}
        As in :func:`fairbound.audit`: Bonferroni over every estimable comparison
        (default), Benjamini-Hochberg, or each comparison at ``confidence_level`` (the
        components of equalized odds adjusted together).
    guaranteed : bool
        ``False`` (default): asymptotic PPI++ intervals.  ``True``: every verdict rests on
        an interval valid at every sample size (finite-sample PPI for accuracy, exact on all
        rows for demographic parity, exact on the gold-labeled rows for ratio metrics).
    favourable : {'positive', 'negative'}
        Whether the positive prediction is the favourable outcome (decides which group a
        verdict names as disadvantaged, as in the main audit).
    pos_label : object, optional
        Positive class when the labels are not 0/1 or booleans.
    where : str, optional
        A checked SQL condition selecting the rows to audit.
    sampling_probability : str, optional
        Column with the probability each gold-labeled row was drawn with for annotation
        (recorded by :func:`fairbound.audits.ppi.sampling.sample_for_annotation`, e.g.
        ``"fairbound_probability"``).  The intervals then weight each labeled row by
        ``1 / pi`` (:mod:`fairbound.stats.ppi_ipw`), so rows chosen by the proxy's
        uncertainty are allowed; labels without a probability are taken as a uniform
        sample of their group.  Not with ``guaranteed=True``.
    batch : str, optional
        Column with the annotation batch of each labeled row (``"fairbound_batch"``);
        batches drawn one after another, each among the rows not labeled before, are
        combined validly even when a batch's probabilities used earlier labels.
    looks : int
        Planned looks at the audit (one per annotation batch, stopping once a verdict is
        reached): every interval is built at ``1 - alpha / looks`` so that the verdicts
        hold over all of them (default 1).
    proxy_kind : {'label', 'score'}
        ``'score'``: ``proxy`` is the proxy's probability of the positive class, in
        ``[0, 1]``, used as it is (:mod:`fairbound.stats.ppi_score`) rather than
        thresholded; the agreement and sampling checks read ``score >= 0.5``.
    engine : {'auto', 'duckdb', 'spark'}
        ``auto``: Spark for a Spark DataFrame, DuckDB otherwise; ``spark`` with a file
        path reads it with the active Spark session (``docs/engines.md``).

    Returns
    -------
    PPIAuditResult
        Frozen: ``.comparisons``, ``.groups`` (agreement and sampling check per group),
        ``.notes``, ``.to_dict()``, ``.to_frame()``, ``.to_json()``.

    Raises
    ------
    FairboundError
        One line naming the parameter or column at fault.

    Notes
    -----
    Intervals for TPR, FPR, FNR and precision treat numerator and denominator as PPI means
    with one ``lambda`` and use the delta method (:func:`fairbound.stats.ppi.
    ppi_ratio_gap_interval`); accuracy is a PPI mean of the error.  Each-vs-rest pools the
    other groups' counts, which assumes they were labeled at about the same rate (a note
    says when they clearly were not).

    References
    ----------
    A. N. Angelopoulos, J. C. Duchi and T. Zrnic. "PPI++: Efficient prediction-powered
    inference." arXiv:2311.01453 (2023).

    J. Gao and J. Gronsbell. "Reliable fairness auditing with semi-supervised inference."
    (2025).

    Examples
    --------
    Gold labels on a quarter of the rows, a proxy that agrees with them on 90%:

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> n = 4000
    >>> g = np.where(rng.random(n) < 0.5, "a", "b")
    >>> y = (rng.random(n) < np.where(g == "a", 0.4, 0.3)).astype(float)
    >>> proxy = np.where(rng.random(n) < 0.9, y, 1 - y)
    >>> pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    >>> gold = np.where(rng.random(n) < 0.25, y, np.nan)
    >>> df = pd.DataFrame({"g": g, "gold": gold, "judge": proxy, "pred": pred})
    >>> res = ppi_audit(df, group="g", label="gold", proxy="judge", prediction="pred",
    ...                 metrics="equal_opportunity")
    >>> c = res.comparisons[0]
    >>> c.labeled_a + c.labeled_b, c.rows_a + c.rows_b, c.verdict
    (954, 4000, 'not enough evidence')
    >>> bool(c.width_ratio < 0.9)
    True
    """
    from fairbound.engines.ppi import ppi_counts

    # cheap checks before the scan
    _resolve_metrics(metrics)
    check_comparison(comparison)
    check_confidence_level(confidence_level)
    check_error_control(error_control)
    check_bool(guaranteed, "guaranteed")
    check_favourable(favourable)
    _check_looks(looks)
    if guaranteed and sampling_probability is not None:
        raise FairboundError("guaranteed: no finite-sample interval is available with "
                             "recorded sampling probabilities; use guaranteed=False (the "
                             "weighted PPI++ interval) or uniformly drawn gold labels",
                             param="guaranteed")
    from fairbound.engines import engine_input

    table = ppi_counts(engine_input(data, engine), group=group, label=label, proxy=proxy,
                       prediction=prediction,
                       pos_label=pos_label, where=where,
                       sampling_probability=sampling_probability, batch=batch,
                       proxy_kind=proxy_kind)
    return ppi_audit_counts(table, metrics=metrics, comparison=comparison,
                            reference=reference, confidence_level=confidence_level,
                            error_control=error_control, guaranteed=guaranteed,
                            favourable=favourable, looks=looks)


__all__ = ["ASSUMPTION", "DEFAULT_PPI_METRICS", "SCHEMA", "WEIGHTED_ASSUMPTION", "GroupCheck",
           "PPIAuditResult", "PPIComparison", "SamplingWarning", "ppi_audit",
           "ppi_audit_counts"]
