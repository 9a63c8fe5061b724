"""Score audits: AUC, calibration and threshold sweeps per group, with verdicts.

:func:`score_audit` is the front end of :mod:`fairbound.stats.scores` for a model that
outputs a score (a probability, a 1-10 risk decile, a logit) rather than a hard label.  One
``GROUP BY`` (:func:`fairbound.engines.scores.score_histograms`) reduces the data to a
histogram per group; everything else is computed from the histograms, so
:meth:`ScoreAuditResult.recompute` changes the level, the error control or the band without
reading the data again.

Per group: ``n``, positives, the AUC with DeLong's interval (exact when the bins are the
distinct scores; approximate, with its error bound, when binned) and, for scores in
``[0, 1]`` only, calibration-in-the-large and a reliability table.  For scores outside
``[0, 1]`` (risk deciles, logits) calibration is not computed and
:attr:`ScoreAuditResult.calibration_note` says why; no calibration number is ever 0 by
default.

Per pair of groups (:func:`fairbound.audits.pairing.pairs`), one row per claim
(:data:`METRICS`):

* ``auc`` - ``AUC_A - AUC_B`` (DeLong, asymptotic); the verdict names the group the scores
  rank worse ("B disadvantaged" when the interval lies above 0);
* ``calibration_in_the_large`` - the gap in ``mean(score) - mean(label)`` (CLT, asymptotic);
  "unequal" when the interval excludes 0 (which side a miscalibration hurts depends on the
  use, so no group is named; the note says which group's scores over-predict);
* ``calibration_ece`` - ``ECE_A - ECE_B`` from per-bin intervals simultaneous over the bins
  (asymptotic); the verdict names the group whose scores are less well calibrated;
* ``selection_rate_sweep``, ``tpr_sweep``, ``fpr_sweep`` - the rate of ``score >= t`` per
  group at every threshold ``t`` (every distinct score, or a grid of at most
  ``sweep_thresholds`` of them, 1,000 by default) and the gap with a band simultaneous over
  all thresholds (DKW: finite-sample; or sup-t: asymptotic).  The row's estimate is
  ``max_t |gap(t)|`` with an interval for it (as for equalized odds' ``max |gap|``);
  "unequal" when the band excludes 0 at some threshold.

With ``error_control="family"`` (default) every row of every pair is one member of a
Bonferroni family: each interval is at level ``1 - alpha / m`` (``m``: the estimable rows),
so with probability at least ``confidence_level`` (asymptotically, where a row's guarantee
is asymptotic) no verdict of the audit is a false claim.
"""

from __future__ import annotations

import datetime as _dt
import math
import numbers
import warnings
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from fairbound._validate import check_choice, check_columns, check_seed

# SMALL_GROUP: groups with fewer rows in a denominator get a note and a warning
from fairbound._words import SMALL_GROUP
from fairbound.audits.contract import (
    ComparisonRows,
    JsonMethod,
    LegacyResultInterval,
    ResultFields,
    TupleCompatibleMethod,
    row_intervals,
    shown_interval,
)
from fairbound.audits.control import (
    ERROR_CONTROLS,
    SHORT_NAMES,
    check_error_control,
    controlled,
)
from fairbound.audits.pairing import (
    MAX_COMPARISONS,
    REST,
    check_comparison,
    check_groups,
    group_name,
    pairs,
    resolve_reference,
)
from fairbound.audits.verdicts import (
    GAP_VERDICTS,
    NO_EVIDENCE,
    NOT_ESTIMABLE,
    UNEQUAL,
    select,
    verdict,
)
from fairbound.errors import FairboundError, SmallGroupWarning
from fairbound.stats.base import ConfidenceInterval, NotEstimable, check_confidence_level
from fairbound.stats.scores import (
    BANDS,
    DEFAULT_MAX_THRESHOLDS,
    GUARANTEE_ASYMPTOTIC,
    GUARANTEE_FINITE,
    TRANSFORMS,
    AUCResult,
    BinnedCalibration,
    CalibrationInTheLarge,
    ScoreHistogram,
    auc,
    auc_gap,
    binned_calibration,
    binned_calibration_gap,
    calibration_in_the_large,
    calibration_in_the_large_gap,
    check_bins,
    roc_curve,
    threshold_sweep,
)

SCHEMA = "fairbound.scores/1"
#: The rows of each pair, in order (calibration rows only for scores in [0, 1]).
METRICS = ("auc", "calibration_in_the_large", "calibration_ece", "selection_rate_sweep",
           "tpr_sweep", "fpr_sweep")
SWEEP_RATES = {"selection_rate_sweep": "selection_rate", "tpr_sweep": "tpr",
               "fpr_sweep": "fpr"}
#: ``error_control`` values of a score audit: the one set every audit takes
#: (:data:`fairbound.audits.control.ERROR_CONTROLS`); this name is kept for one release.
SCORE_ERROR_CONTROLS = ERROR_CONTROLS
#: Calibration bins when the scores are exact (equal-width bins on [0, 1]).
DEFAULT_CALIBRATION_BINS = 10


# ----------------------------------------------------------------------------- results


def _clean(v):
    """A JSON-ready scalar (NaN and infinities as ``None``)."""
    if isinstance(v, tuple):
        return " & ".join(map(str, v))
    if isinstance(v, np.bool_ | bool):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, float | np.floating):
        f = float(v)
        return f if math.isfinite(f) else None
    if isinstance(v, np.generic):
        return v.item()
    return v


def _list(a) -> list:
    return [_clean(x) for x in np.asarray(a).tolist()]


@dataclass(frozen=True)
class GroupScores:
    """One group's score summary.

    Attributes
    ----------
    group : object
        The group (a tuple for intersections).
    n, positives, negatives : int
        Examples, positive and negative examples.
    auc : AUCResult or None
        The AUC with DeLong's interval at the audit's ``confidence_level`` (each group on
        its own); ``None`` when the group lacks a class (see ``note``).
    calibration : CalibrationInTheLarge or None
        ``mean(score) - mean(label)`` with its interval; ``None`` unless the scores lie in
        ``[0, 1]``.
    reliability : BinnedCalibration or None
        Per calibration bin: mean score, rate of positives and the gap, with intervals
        simultaneous over the bins (the reliability diagram).
    note : str or None
        Why a quantity is missing.
    """

    group: Any
    n: int
    positives: int
    negatives: int
    auc: AUCResult | None
    calibration: CalibrationInTheLarge | None = None
    reliability: BinnedCalibration | None = field(default=None, repr=False)
    note: str | None = None

    @property
    def name(self) -> str:
        """The group as text (intersections joined with ``" & "``)."""
        return group_name(self.group)

    @property
    def approximate(self) -> bool:
        """Whether the AUC is of binned scores (within ``error_bound`` of the exact one)."""
        return bool(self.auc is not None and not self.auc.exact)

    @property
    def error_bound(self) -> float:
        """Bound on ``|AUC_binned - AUC_exact|`` (0 when exact, NaN without an AUC)."""
        return math.nan if self.auc is None else self.auc.error_bound

    def to_dict(self) -> dict:
        """JSON-ready fields (the reliability table as lists)."""
        a, c, r = self.auc, self.calibration, self.reliability
        out = {"group": _clean(self.group), "n": self.n, "positives": self.positives,
               "negatives": self.negatives,
               "auc": None if a is None else _clean(a.estimate),
               "auc_low": None if a is None else _clean(a.low),
               "auc_high": None if a is None else _clean(a.high),
               "auc_se": None if a is None else _clean(a.se),
               "auc_approximate": self.approximate,
               "auc_error_bound": _clean(self.error_bound),
               "calibration_in_the_large": None if c is None else _clean(c.estimate),
               "calibration_low": None if c is None else _clean(c.low),
               "calibration_high": None if c is None else _clean(c.high),
               "mean_score": None if c is None else _clean(c.mean_score),
               "mean_label": _clean(self.positives / self.n) if self.n else None,
               "note": self.note}
        if r is not None:
            out["reliability"] = {
                "lower": _list(r.lower), "upper": _list(r.upper), "n": _list(r.n),
                "mean_score": _list(r.mean_score), "label_rate": _list(r.label_rate),
                "gap": _list(r.gap), "low": _list(r.low), "high": _list(r.high),
                "ece": _clean(r.ece), "ece_low": _clean(r.ece_low),
                "ece_high": _clean(r.ece_high), "confidence_level": r.confidence_level}
        else:
            out["reliability"] = None
        return out


@dataclass(frozen=True)
class ScoreComparison:
    """One claim about a pair of groups: an AUC gap, a calibration gap or a sweep.

    Attributes
    ----------
    group_a, group_b : object
        The pair (B is ``"rest"`` for an each-vs-rest comparison).
    metric : str
        One of :data:`METRICS`.
    estimate, low, high : float
        The gap (A minus B) and its interval; for sweeps ``max_t |gap(t)|`` and an interval
        for it.
    interval_level : float
        The level of this row's interval (``1 - alpha / m`` under family-wise control).
    verdict : str
        In the main audit's vocabulary (:mod:`fairbound.audits.verdicts`).
    guarantee : str
        ``'asymptotic'`` or ``'finite-sample'``.
    method : str
        How the interval was computed.
    approximate : bool
        An AUC of binned scores (see ``error_bound``).
    error_bound : float
        Bound on the binning error of an AUC gap (0 when exact; NaN for other rows).
    threshold : float
        Sweeps: the threshold of the largest ``|gap|``.
    note : str or None
        Direction, established thresholds, or why the row is not estimable.
    detail : object
        The core's result (:class:`~fairbound.stats.scores.AUCGapResult`,
        :class:`~fairbound.stats.scores.CalibrationGap`,
        :class:`~fairbound.stats.scores.BinnedCalibrationGap` or
        :class:`~fairbound.stats.scores.ThresholdSweep`), or ``None``.
    """

    group_a: Any
    group_b: Any
    metric: str
    estimate: float
    low: float
    high: float
    interval_level: float
    verdict: str
    guarantee: str
    method: str
    approximate: bool = False
    error_bound: float = math.nan
    threshold: float = math.nan
    note: str | None = None
    detail: Any = field(default=None, repr=False, compare=False)

    @property
    def estimable(self) -> bool:
        """Whether the row has an interval."""
        return self.verdict != NOT_ESTIMABLE

    @TupleCompatibleMethod
    def confidence_interval(self, confidence_level: float | None = None
                            ) -> ConfidenceInterval:
        """The row's interval: ``(low, high)`` as computed, at ``interval_level``.

        Parameters
        ----------
        confidence_level : float, optional
            ``None`` (default): the interval shown.  Another level cannot be had from the
            row alone (it keeps no histograms): use
            :meth:`ScoreAuditResult.recompute` with ``confidence_level=``.

        Returns
        -------
        ConfidenceInterval

        Notes
        -----
        This was a property holding the tuple; reading it without calling it still gives
        the tuple for one release, with a :class:`DeprecationWarning`.
        """
        return shown_interval(
            self, confidence_level, "a score comparison keeps no histograms, so its interval "
            "cannot be recomputed on its own; use ScoreAuditResult.recompute("
            "confidence_level=...)")

    @property
    def sweep(self):
        """The :class:`~fairbound.stats.scores.ThresholdSweep` of a sweep row (else None)."""
        return self.detail if self.metric in SWEEP_RATES else None

    @property
    def label(self) -> str:
        """``metric: A vs B``."""
        return f"{self.metric}: {group_name(self.group_a)} vs {group_name(self.group_b)}"

    def to_dict(self) -> dict:
        """JSON-ready fields; sweeps carry their thresholds, rates and band."""
        out = {"group_a": _clean(self.group_a), "group_b": _clean(self.group_b),
               "metric": self.metric, "estimate": _clean(self.estimate),
               "low": _clean(self.low), "high": _clean(self.high),
               "interval_level": self.interval_level, "verdict": self.verdict,
               "guarantee": self.guarantee, "method": self.method,
               "approximate": self.approximate, "error_bound": _clean(self.error_bound),
               "threshold": _clean(self.threshold), "note": self.note}
        d = self.detail
        if self.metric in ("auc", "calibration_in_the_large") and d is not None:
            out["value_a"] = _clean(d.a.estimate)
            out["value_b"] = _clean(d.b.estimate)
        elif self.metric == "calibration_ece" and d is not None:
            out["value_a"] = _clean(d.a.ece)
            out["value_b"] = _clean(d.b.ece)
        else:
            out["value_a"] = out["value_b"] = None
        if self.metric in SWEEP_RATES:
            out["sweep"] = None if d is None else {
                "rate": d.rate, "band": d.band, "critical": _clean(d.critical),
                "n_a": int(d.n_a), "n_b": int(d.n_b), "thresholds": _list(d.thresholds),
                "rate_a": _list(d.rate_a), "rate_b": _list(d.rate_b), "gap": _list(d.gap),
                "low": _list(d.low), "high": _list(d.high),
                "established": _list(d.established),
                "grid": bool(getattr(d, "grid", False)),
                "resolution": _clean(getattr(d, "resolution", 0.0))}
        return out


@dataclass(frozen=True)
class ScoreAuditResult(ResultFields, JsonMethod, ComparisonRows):
    """What a score audit found, with the histograms to recompute it.

    Attributes
    ----------
    groups : tuple of GroupScores
        One per group, in group order.
    comparisons : tuple of ScoreComparison
        For each pair of groups, one row per metric of :data:`METRICS` (calibration rows
        only when ``calibration``).
    comparison : str
        ``'pairwise'``, ``'vs-rest'`` or ``'vs-reference'``.
    reference : object
        The reference group (``vs-reference``).
    confidence_level : float
        Family-wise over every row under ``error_control="family"``.
    error_control : str
        ``'family'`` (Bonferroni over every estimable row) or ``'none'``.
    n_tests : int
        Estimable rows the family-wise control is taken over.
    band : str
        ``'dkw'`` or ``'sup-t'`` (threshold sweeps).
    transform : str
        ``'none'`` or ``'logit'`` (AUC intervals).
    exact : bool
        Whether the bins are the distinct scores (exact AUC).
    binning : str
        The binning rule in words.
    calibration : bool
        Whether calibration was computed (scores in ``[0, 1]``).
    calibration_note : str or None
        Why it was not.
    calibration_bins : object
        The calibration bins (an int or edges) when computed.
    columns : dict
        ``group``, ``label`` and ``score`` as given.
    positive : object
        The label value counted as positive.
    n_rows : int
        Rows scanned.
    excluded : dict
        Reason -> rows left out.
    engine, source : str
        What read the data and what was read.
    seed : int
        Seed of the sup-t simulation.
    version, created : str
        fairbound version and UTC time.
    histograms : dict
        Group -> :class:`~fairbound.stats.scores.ScoreHistogram`.
    sweep_thresholds : int or None
        Most thresholds per sweep (a grid beyond; :func:`~fairbound.stats.scores.sweep_grid`),
        or ``None``: every distinct score (asked for as ``sweep_thresholds="all"``).
    """

    comparisons: tuple[ScoreComparison, ...]
    comparison: str
    band: str
    transform: str
    exact: bool
    binning: str
    calibration: bool
    calibration_note: str | None
    calibration_bins: Any
    positive: Any
    seed: int
    histograms: dict = field(default_factory=dict, repr=False, compare=False)
    sweep_thresholds: int | None = DEFAULT_MAX_THRESHOLDS

    def __repr__(self) -> str:
        n_gap = len(self.biased)
        control = (f"{_pct(self.confidence_level)} each" if self.error_control == "none"
                   else f"{SHORT_NAMES[self.error_control]} {_pct(self.confidence_level)}")
        kind = "exact AUC" if self.exact else f"binned AUC ({self.binning})"
        return (f"ScoreAuditResult({len(self.groups)} groups, {len(self.comparisons)} "
                f"comparisons ({self.comparison}), {n_gap} with a gap; {control}; {kind})")

    @property
    def biased(self) -> tuple[ScoreComparison, ...]:
        """Rows whose verdict claims a gap."""
        return tuple(c for c in self.comparisons if c.verdict in GAP_VERDICTS)

    def group(self, name) -> GroupScores:
        """The :class:`GroupScores` of a group (given as itself or as text)."""
        for g in self.groups:
            if g.group == name or g.name == str(name):
                return g
        raise FairboundError(f"group {name!r} not found; groups are "
                             f"{[g.name for g in self.groups][:20]}", param="group")

    def select(self, *, metric: str | None = None, verdict: str | None = None) -> tuple:
        """Rows filtered by metric and/or verdict."""
        if metric is not None:
            check_choice(metric, METRICS, "metric")
        return select(self.comparisons, metric=metric, verdict=verdict)

    def recompute(self, *, confidence_level: float | None = None,
                  error_control: str | None = None, band: str | None = None,
                  transform: str | None = None, seed: int | None = None,
                  sweep_thresholds: int | str | None = None) -> ScoreAuditResult:
        """The audit at another level, error control, band or transform, from the histograms.

        Arguments left out keep their values in this result (``sweep_thresholds="all"``
        sweeps every distinct score; a whole number, at most that many thresholds).

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> y = rng.random(600) < 0.4
        >>> df = pd.DataFrame({"g": rng.choice(["a", "b"], 600), "y": y.astype(int),
        ...                    "s": np.round(rng.normal(size=600) + y, 1)})
        >>> r = score_audit(df, group="g", label="y", score="s")
        >>> r.recompute(confidence_level=0.9).confidence_level
        0.9
        """
        rho = check_confidence_level(self.confidence_level if confidence_level is None
                                     else confidence_level)
        control = self.error_control if error_control is None else \
            _check_error_control(error_control)
        b = self.band if band is None else _check_choice(band, BANDS, "band")
        t = self.transform if transform is None else _check_choice(transform, TRANSFORMS,
                                                                   "transform")
        s = self.seed if seed is None else check_seed(seed)
        k = (self.sweep_thresholds if sweep_thresholds is None
             else check_sweep_thresholds(sweep_thresholds))
        groups, comps, n_tests = _build(
            self.histograms, [g.group for g in self.groups], self.comparison, self.reference,
            confidence_level=rho, error_control=control, band=b, transform=t, seed=s,
            calibration_bins=self.calibration_bins if self.calibration else None,
            sweep_thresholds=k)
        return replace(self, groups=groups, comparisons=comps, n_tests=n_tests,
                       confidence_level=rho, error_control=control, band=b, transform=t,
                       seed=s, sweep_thresholds=k)

    def confidence_interval(self, confidence_level: float | None = None
                            ) -> ConfidenceInterval:
        """Every row's interval, as arrays in the order of ``comparisons``.

        Parameters
        ----------
        confidence_level : float, optional
            ``None`` (default): the intervals shown.  A level: the whole audit recomputed at
            that level under its error control (see :meth:`recompute`), from the
            histograms.

        Returns
        -------
        ConfidenceInterval
            ``low`` and ``high`` arrays, one entry per comparison.

        Notes
        -----
        With a level this used to return the recomputed :class:`ScoreAuditResult`.  Reading
        a result's attribute from what it returns still works for one release, with a
        :class:`DeprecationWarning`; use :meth:`recompute` for the result.
        """
        if confidence_level is None:
            return row_intervals(self.comparisons)
        res = self.recompute(confidence_level=confidence_level)
        lo, hi = row_intervals(res.comparisons)
        return LegacyResultInterval(lo, hi, res,
                                    "ScoreAuditResult.recompute(confidence_level=...)")

    def to_frame(self):
        """One row per comparison (pandas DataFrame; sweeps summarised)."""
        import pandas as pd

        rows = []
        for c in self.comparisons:
            d = c.to_dict()
            d.pop("sweep", None)
            rows.append(d)
        return pd.DataFrame(rows)

    def groups_frame(self):
        """One row per group (pandas DataFrame; reliability tables left out)."""
        import pandas as pd

        rows = []
        for g in self.groups:
            d = g.to_dict()
            d.pop("reliability")
            rows.append(d)
        return pd.DataFrame(rows)

    def roc(self, group) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """ROC points ``(fpr, tpr, thresholds)`` of a group (from its histogram)."""
        g = self.group(group)
        return roc_curve(self.histograms[g.group])

    def to_dict(self) -> dict:
        """JSON-ready dictionary: schema ``"fairbound.scores/1"``, ``kind`` ``"scores"``.

        Each group carries its ROC points and reliability table; each sweep row its
        thresholds, rates and band, so figures and reports need only this dictionary.
        """
        groups = []
        for g in self.groups:
            d = g.to_dict()
            h = self.histograms.get(g.group)
            if h is not None and h.n_pos > 0 and h.n_neg > 0:
                fpr, tpr, thr = roc_curve(h)
                d["roc"] = {"fpr": _list(fpr), "tpr": _list(tpr), "thresholds": _list(thr)}
            else:
                d["roc"] = None
            groups.append(d)
        return {
            "schema": SCHEMA, "kind": "scores", "fairbound_version": self.version,
            "created": self.created, "source": self.source, "engine": self.engine,
            "columns": dict(self.columns), "positive": _clean(self.positive),
            "n_rows": self.n_rows,
            "excluded": dict(self.excluded), "comparison": self.comparison,
            "reference": _clean(self.reference), "confidence_level": self.confidence_level,
            "error_control": self.error_control, "n_tests": self.n_tests, "band": self.band,
            "transform": self.transform, "exact": self.exact, "binning": self.binning,
            "calibration": self.calibration, "calibration_note": self.calibration_note,
            "calibration_bins": (self.calibration_bins if isinstance(self.calibration_bins,
                                                                     int | None)
                                 else _list(self.calibration_bins)),
            "seed": self.seed,
            "sweep_thresholds": ("all" if self.sweep_thresholds is None
                                 else self.sweep_thresholds),
            "groups": groups,
            "comparisons": [c.to_dict() for c in self.comparisons],
        }

    def summary(self) -> list[str]:
        """Plain-language sentences, claimed gaps first."""
        from fairbound.report.score_report import score_sentence

        order = sorted(self.comparisons, key=lambda c: c.verdict not in GAP_VERDICTS)
        return [score_sentence(c.to_dict()) for c in order]

    def plot(self, kind: str = "roc", **options):
        """Draw a figure (needs matplotlib: ``pip install "fairbound[plot]"``).

        Parameters
        ----------
        kind : {'roc', 'reliability', 'sweep'}
            ROC curves by group, reliability diagrams by group, or the threshold-sweep gaps
            with their simultaneous bands.
        **options
            Passed to :func:`fairbound.viz.scores.plot_roc`, ``plot_reliability`` or
            ``plot_threshold_sweep``.

        Returns
        -------
        matplotlib.figure.Figure
        """
        from fairbound.viz.scores import plot_scores

        return plot_scores(self, kind, **options)

    def report(self, path, *, title: str | None = None):
        """Write the self-contained HTML report (:func:`fairbound.report.score_report`)."""
        from fairbound.report.score_report import write_score_report

        return write_score_report(self, path, title=title)


def _pct(level: float) -> str:
    from fairbound._render import fmt_level

    return fmt_level(level)


# ----------------------------------------------------------------------------- validation


def _check_choice(value, allowed, param: str) -> str:
    return check_choice(value, allowed, param, fold=True)


def _check_error_control(error_control) -> str:
    return check_error_control(error_control)


def _check_calibration_bins(value):
    if value is None:
        return None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        if int(value) < 1:
            raise FairboundError(f"calibration_bins must be a whole number >= 1 or ascending "
                                 f"edges; got {value!r}", param="calibration_bins")
        return int(value)
    try:
        edges = check_bins(value)
    except FairboundError as exc:
        raise FairboundError(str(exc).replace("bins", "calibration_bins", 1),
                             param="calibration_bins") from None
    if edges is None:
        raise FairboundError(f"calibration_bins must be a whole number >= 1 or ascending "
                             f"edges; got {value!r}", param="calibration_bins")
    return edges


def _validate(group, label, score, bins, comparison, reference, confidence_level,
              error_control, band, transform, calibration_bins, seed, where):
    """Every argument of :func:`score_audit`, normalised (one place, one-line errors)."""
    groups = check_columns(group)
    for name, value in (("label", label), ("score", score)):
        if not isinstance(value, str) or not value.strip():
            raise FairboundError(f"{name} must be a column name; got {value!r}", param=name)
    if where is not None and (not isinstance(where, str) or not where.strip()):
        raise FairboundError(f"where must be a SQL condition (text); got {where!r}",
                             param="where")
    bins = check_bins(bins)
    return (tuple(groups), bins, *_check_options(comparison, reference, confidence_level,
                                                 error_control, band, transform,
                                                 calibration_bins, seed))


def check_sweep_thresholds(value) -> int | None:
    """``sweep_thresholds`` normalised: a whole number >= 3, or ``None`` for ``"all"``.

    Examples
    --------
    >>> check_sweep_thresholds("all"), check_sweep_thresholds(500), check_sweep_thresholds("200")
    (None, 500, 200)
    """
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "all":
            return None
        if text.isdigit():
            value = int(text)
    if (isinstance(value, numbers.Integral) and not isinstance(value, bool)
            and int(value) >= 3):
        return int(value)
    raise FairboundError(f"sweep_thresholds must be a whole number >= 3 or 'all'; got "
                         f"{value!r}", param="sweep_thresholds")


def _check_options(comparison, reference, confidence_level, error_control, band, transform,
                   calibration_bins, seed) -> tuple:
    """The options a score audit from data and one from histograms share, normalised."""
    comparison = check_comparison(comparison)
    if reference is not None and comparison == "pairwise":
        comparison = "vs-reference"
    return (comparison, check_confidence_level(confidence_level),
            _check_error_control(error_control), _check_choice(band, BANDS, "band"),
            _check_choice(transform, TRANSFORMS, "transform"),
            _check_calibration_bins(calibration_bins), check_seed(seed))


# ----------------------------------------------------------------------------- building


def _check_limit(n_groups: int, comparison: str, limit: int, *, calibration: bool,
                 column: str | None) -> int:
    """The rows of a score audit (pairs times metrics), or the one-line error above limit.

    The main audit's check and message (:func:`fairbound.audits.pairing.check_comparison_limit`).
    """
    from fairbound.audits.pairing import check_comparison_limit

    per_pair = sum(1 for m in METRICS if calibration or not m.startswith("calibration"))
    return check_comparison_limit(n_groups, comparison, per_pair, limit, column=column)


def _pool(hs: list[ScoreHistogram]) -> ScoreHistogram:
    """Several groups' histograms merged into one (the ``"rest"`` side)."""
    first = hs[0]
    cat = np.concatenate
    return ScoreHistogram.from_counts(
        cat([h.values for h in hs]), cat([h.pos for h in hs]), cat([h.neg for h in hs]),
        upper=None if first.exact else cat([h.upper for h in hs]),
        score_sum=cat([h.score_sum for h in hs]),
        pos_score_sum=cat([h.pos_score_sum for h in hs]),
        score_sq_sum=cat([h.score_sq_sum for h in hs]), exact=first.exact,
        binning=first.binning)


def _calibration_edges(hists: dict, requested):
    """Calibration bins, or ``(None, note)`` when the scores are not in ``[0, 1]``."""
    lows = [float(h.values[0]) for h in hists.values() if len(h.values)]
    highs = []
    for h in hists.values():
        if not len(h.values):
            continue
        top = float(h.upper[-1])
        if not h.exact and h.score_sum is not None and h.counts[-1] > 0:
            top = max(float(h.values[-1]), float(h.score_sum[-1] / h.counts[-1]))
        highs.append(top)
    lo, hi = min(lows), max(highs)
    if lo < 0 or hi > 1 + 1e-12:
        shown_hi = max(float(h.values[-1]) for h in hists.values() if len(h.values))
        return None, (f"calibration not computed: the scores range over [{lo:g}, "
                      f"{max(shown_hi, lo):g}], not probabilities in [0, 1] (calibration "
                      "compares a predicted probability with the rate of positives)")
    if requested is not None:
        return requested, None
    first = next(iter(hists.values()))
    if first.exact:
        return DEFAULT_CALIBRATION_BINS, None
    k = first.binning
    if k.startswith("floor(score * "):
        width = int(k[len("floor(score * "):].split(")")[0])
        return (DEFAULT_CALIBRATION_BINS if width % DEFAULT_CALIBRATION_BINS == 0
                else width), None
    if k.startswith("edges"):
        edges = np.unique(np.concatenate([np.concatenate([h.values, h.upper])
                                          for h in hists.values()]))
        return edges, None
    return DEFAULT_CALIBRATION_BINS, None


def _quietly(fn, *args, **kwargs):
    from fairbound.errors import DegenerateDataWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return fn(*args, **kwargs)


def _group_results(hists, order, rho, transform, cal_bins) -> tuple[GroupScores, ...]:
    out = []
    for g in order:
        h = hists[g]
        notes = []
        try:
            a = auc(h, confidence_level=rho, transform=transform)
        except NotEstimable as exc:
            a = None
            notes.append(f"AUC not estimable: {exc}")
        c = r = None
        if cal_bins is not None:
            c = calibration_in_the_large(h, confidence_level=rho)
            r = binned_calibration(h, bins=cal_bins, confidence_level=rho)
        out.append(GroupScores(group=g, n=h.n, positives=h.n_pos, negatives=h.n_neg, auc=a,
                               calibration=c, reliability=r,
                               note="; ".join(notes) or None))
    return tuple(out)


def _estimable(metric: str, ha: ScoreHistogram, hb: ScoreHistogram) -> str | None:
    """Why a row cannot be computed (``None`` when it can)."""
    for side, h in (("A", ha), ("B", hb)):
        if metric == "auc" and (h.n_pos < 2 or h.n_neg < 2):
            return (f"group {side} has {h.n_pos} positive and {h.n_neg} negative examples; "
                    "DeLong's interval needs two of each")
        if metric == "calibration_in_the_large" and h.n < 2:
            return f"group {side} has {h.n} example(s); the interval needs two"
        if metric == "tpr_sweep" and h.n_pos == 0:
            return f"group {side} has no positive examples"
        if metric == "fpr_sweep" and h.n_neg == 0:
            return f"group {side} has no negative examples"
        if h.n == 0:
            return f"group {side} has no examples"
    return None


def _abs_bounds(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Range of ``|x|`` over each ``[lo, hi]``: its least and its largest value (arrays)."""
    lo_abs, hi_abs = np.abs(lo), np.abs(hi)
    most = np.maximum(lo_abs, hi_abs)
    least = np.where((lo <= 0) & (hi >= 0), 0.0, np.minimum(lo_abs, hi_abs))
    return least, most


def _sweep_row(sw, ga, gb, metric, level) -> ScoreComparison:
    ok = np.isfinite(sw.low) & np.isfinite(sw.high)
    band = "DKW (Massart)" if sw.band == "dkw" else "sup-t (simulated)"
    grid = bool(getattr(sw, "grid", False))
    method = (f"{band} band over a grid of {len(sw.thresholds)} thresholds" if grid
              else f"{band} band over {len(sw.thresholds)} thresholds")
    if not ok.any():
        return ScoreComparison(ga, gb, metric, math.nan, math.nan, math.nan, level,
                               NOT_ESTIMABLE, sw.guarantee, method, note="the band is not "
                               "computed at any threshold (too few examples on each side)",
                               detail=sw)
    gaps = np.abs(sw.gap[ok])
    i = int(np.argmax(gaps))
    # max_t |gap(t)| lies between the largest least |x| and the largest most |x| over the
    # thresholds' band intervals (whenever the band holds at every one of them)
    least, most = _abs_bounds(sw.low[ok], sw.high[ok])
    lo = float(np.max(least))
    hi = float(np.max(most))
    est = float(gaps[i])
    t_star = float(sw.thresholds[ok][i])
    est_t = sw.established & ok
    if est_t.any():
        ts = sw.thresholds[est_t]
        up = int(np.count_nonzero(sw.low[est_t] > 0))
        side = ("A higher" if up == len(ts) else "B higher" if up == 0
                else f"A higher at {up}, B higher at {len(ts) - up}")
        where = (f"at {float(ts[0]):g}" if len(ts) == 1
                 else f"from {float(ts[0]):g} to {float(ts[-1]):g}")
        note = (f"gap established at {len(ts)} of {len(sw.thresholds)} thresholds, {where} "
                f"({side})")
        v = UNEQUAL
    else:
        note = f"no threshold established; largest |gap| {est:.3f} at threshold {t_star:g}"
        v = NO_EVIDENCE
    if grid:
        note += (f"; on a grid of {len(sw.thresholds)} thresholds: |gap| at any other "
                 f"threshold is at most {sw.resolution:.4f} above the grid's largest")
    return ScoreComparison(ga, gb, metric, est, lo, hi, level, v, sw.guarantee, method,
                           threshold=t_star, note=note, detail=sw)


def _pair_rows(ga, gb, ha, hb, metrics, level, live, transform, band, cal_bins,
               seed, max_thresholds=DEFAULT_MAX_THRESHOLDS) -> list[ScoreComparison]:
    rows = []
    for metric in metrics:
        why = live.get(metric)
        if why is not None:
            guarantee = (GUARANTEE_FINITE if metric in SWEEP_RATES and band == "dkw"
                         else GUARANTEE_ASYMPTOTIC)
            rows.append(ScoreComparison(ga, gb, metric, math.nan, math.nan, math.nan, level,
                                        NOT_ESTIMABLE, guarantee, "-", note=why))
            continue
        if metric == "auc":
            g = _quietly(auc_gap, ha, hb, confidence_level=level, transform=transform)
            eb = g.error_bound
            if not (math.isfinite(g.low) and math.isfinite(g.high)):
                rows.append(ScoreComparison(ga, gb, metric, g.estimate, math.nan, math.nan,
                                            level, NOT_ESTIMABLE, g.guarantee, "DeLong",
                                            note="DeLong's interval is not estimable",
                                            detail=g))
                continue
            # cost scale: 1 - AUC, so the cost gap is AUC_B - AUC_A; binned scores widen
            # the interval by the binning bound so the verdict holds for the raw scores too
            v = verdict(-(g.high + eb), -(g.low - eb))
            notes = []
            if g.a.variance == 0.0 or g.b.variance == 0.0:
                notes.append("a group's DeLong variance is 0 (AUC of 0 or 1, or one distinct "
                             "score): the interval understates the uncertainty")
            if not g.exact:
                notes.append(f"AUC of binned scores (approximate): the raw scores' AUC gap "
                             f"is within +/-{eb:.4f} of the estimate; the verdict allows "
                             "for it")
            method = "DeLong, Wald" if transform == "none" else "DeLong, MOVER on logit"
            rows.append(ScoreComparison(ga, gb, metric, g.estimate, g.low, g.high, level, v,
                                        g.guarantee, method, approximate=not g.exact,
                                        error_bound=eb, note="; ".join(notes) or None,
                                        detail=g))
        elif metric == "calibration_in_the_large":
            g = calibration_in_the_large_gap(ha, hb, confidence_level=level)
            v = UNEQUAL if g.excludes_zero else NO_EVIDENCE
            over = "A" if g.estimate > 0 else "B"
            note = (f"{over}'s scores over-predict relative to the other group's "
                    "(mean score minus rate of positives)") if v == UNEQUAL else None
            rows.append(ScoreComparison(ga, gb, metric, g.estimate, g.low, g.high, level, v,
                                        g.guarantee, "CLT, variances added", note=note,
                                        detail=g))
        elif metric == "calibration_ece":
            g = binned_calibration_gap(ha, hb, bins=cal_bins, confidence_level=level)
            v = verdict(g.ece_gap_low, g.ece_gap_high)
            k = int(np.count_nonzero(g.established))
            note = (f"per-bin gap established in {k} of {len(g.gap)} shared bins"
                    if k else None)
            rows.append(ScoreComparison(ga, gb, metric, g.ece_gap, g.ece_gap_low,
                                        g.ece_gap_high, level, v, g.guarantee,
                                        "Wilson + CLT per bin, Bonferroni over bins",
                                        note=note, detail=g))
        else:
            sw = threshold_sweep(ha, hb, rate=SWEEP_RATES[metric], band=band,
                                 confidence_level=level, seed=seed,
                                 max_thresholds=max_thresholds)
            rows.append(_sweep_row(sw, ga, gb, metric, level))
    return rows


def _build(hists: dict, order: list, comparison: str, reference, *, confidence_level: float,
           error_control: str, band: str, transform: str, seed: int, calibration_bins,
           sweep_thresholds=DEFAULT_MAX_THRESHOLDS):
    """Per-group results and every row, under the error control."""
    compared = pairs(order, comparison, reference)
    metrics = [m for m in METRICS if calibration_bins is not None
               or not m.startswith("calibration")]
    rest_cache: dict = {}

    def hist(g, other):
        if g != REST or REST in hists:
            return hists[g]
        if other not in rest_cache:
            rest_cache[other] = _pool([hists[x] for x in order if x != other])
        return rest_cache[other]

    plan = []
    for ga, gb in compared:
        ha, hb = hist(ga, gb), hist(gb, ga)
        live = {m: _estimable(m, ha, hb) for m in metrics}
        plan.append((ga, gb, ha, hb, live))
    m = sum(1 for *_, live in plan for why in live.values() if why is None)

    def build(level_of):
        # every row is its own comparison (k = 1) under "none"
        level = level_of(1)
        rows: list[ScoreComparison] = []
        for ga, gb, ha, hb, live in plan:
            rows.extend(_pair_rows(ga, gb, ha, hb, metrics, level, live, transform, band,
                                   calibration_bins, seed, sweep_thresholds))
        return rows

    rows = controlled(build, error_control=error_control, confidence_level=confidence_level,
                      m=m, discoveries=lambda b: sum(1 for c in b
                                                     if c.verdict in GAP_VERDICTS))
    groups = _group_results(hists, order, confidence_level, transform, calibration_bins)
    return groups, tuple(rows), m


def score_audit_histograms(histograms, *, comparison: str = "pairwise", reference=None,
                           confidence_level: float = 0.95, error_control: str = "family",
                           band: str = "dkw", transform: str = "none",
                           calibration_bins=None, seed: int = 0, source: str = "histograms",
                           columns: dict | None = None, positive: Any = 1,
                           n_rows: int | None = None, excluded: dict | None = None,
                           engine: str = "none",
                           max_comparisons: int = MAX_COMPARISONS,
                           sweep_thresholds: int | str | None = DEFAULT_MAX_THRESHOLDS
                           ) -> ScoreAuditResult:
    """A score audit from per-group histograms (what :func:`score_audit` runs after its scan).

    Parameters
    ----------
    histograms : mapping
        Group -> :class:`~fairbound.stats.scores.ScoreHistogram` (all binned alike), in the
        order the groups are to be reported.
    comparison, reference, confidence_level, error_control, band, transform, calibration_bins, seed
        As for :func:`score_audit`.
    source, columns, positive, n_rows, excluded, engine
        Provenance recorded in the result.
    max_comparisons, sweep_thresholds : int
        As for :func:`score_audit`.

    Returns
    -------
    ScoreAuditResult

    Examples
    --------
    >>> from fairbound.stats.scores import ScoreHistogram
    >>> hs = {"a": ScoreHistogram.from_arrays([1, 2, 3, 4] * 20, [0, 0, 1, 1] * 20),
    ...       "b": ScoreHistogram.from_arrays([1, 2, 3, 4] * 20, [0, 1, 0, 1] * 20)}
    >>> r = score_audit_histograms(hs)
    >>> r.comparisons[0].metric, round(r.comparisons[0].estimate, 3), r.comparisons[0].verdict
    ('auc', 0.25, 'B disadvantaged')
    """
    from fairbound._version import __version__

    if not isinstance(histograms, dict) or not histograms:
        raise FairboundError(f"histograms must be a non-empty dict of group -> ScoreHistogram; "
                             f"got {type(histograms).__name__}", param="histograms")
    bad = [g for g, h in histograms.items() if not isinstance(h, ScoreHistogram)]
    if bad:
        raise FairboundError(f"histograms: group {bad[0]!r} is not a ScoreHistogram",
                             param="histograms")
    kinds = {(h.exact, h.binning) for h in histograms.values()}
    if len(kinds) > 1:
        raise FairboundError(f"histograms: the groups are binned differently ({sorted(kinds)})",
                             param="histograms")
    comparison, rho, control, band, transform, cal, seed = _check_options(
        comparison, reference, confidence_level, error_control, band, transform,
        calibration_bins, seed)
    sweep_k = check_sweep_thresholds(sweep_thresholds)
    from fairbound.audits.pairing import check_max_comparisons

    limit = check_max_comparisons(max_comparisons)
    order = list(histograms)
    if len(order) < 2:
        raise FairboundError(f"group: a single group ({_clean(order[0])!r}); at least two are "
                             "needed to compare", param="group")
    reference = resolve_reference(order, reference, comparison, "group",
                                  {g: histograms[g].n for g in order}, where="", name=_clean)
    cal_bins, note = _calibration_edges(histograms, cal)
    _check_limit(len(order), comparison, limit, calibration=cal_bins is not None,
                 column=" & ".join(map(str, (columns or {}).get("group") or [])) or None)
    small = [group_name(g) for g in order if histograms[g].n < SMALL_GROUP]
    if small:
        warnings.warn(f"small groups (fewer than {SMALL_GROUP} rows): {', '.join(small[:10])}",
                      SmallGroupWarning, stacklevel=3)
    groups, comps, m = _build(histograms, order, comparison, reference,
                              confidence_level=rho, error_control=control, band=band,
                              transform=transform, seed=seed, calibration_bins=cal_bins,
                              sweep_thresholds=sweep_k)
    first = histograms[order[0]]
    return ScoreAuditResult(
        groups=groups, comparisons=comps, comparison=comparison, reference=reference,
        confidence_level=rho, error_control=control, n_tests=m, band=band,
        transform=transform, exact=first.exact, binning=first.binning,
        calibration=cal_bins is not None, calibration_note=note,
        calibration_bins=cal_bins, columns=dict(columns or {}), positive=positive,
        n_rows=sum(h.n for h in histograms.values()) if n_rows is None else int(n_rows),
        excluded=dict(excluded or {}), engine=engine, source=source, seed=seed,
        version=__version__,
        created=_dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        histograms=dict(histograms), sweep_thresholds=sweep_k)


def score_audit(data, *, group, label: str, score: str, bins=None,
                comparison: str = "pairwise", reference=None, confidence_level: float = 0.95,
                error_control: str = "family", pos_label=None, where: str | None = None,
                band: str = "dkw", transform: str = "none", calibration_bins=None,
                seed: int = 0, max_comparisons: int = MAX_COMPARISONS,
                engine: str = "auto",
                sweep_thresholds: int | str | None = DEFAULT_MAX_THRESHOLDS) -> ScoreAuditResult:
    """Audit a model's scores by group: AUC, calibration and threshold sweeps, with verdicts.

    Parameters
    ----------
    data : path, glob, DataFrame, Table, dict or array
        Anything :func:`fairbound.engines.scores.score_histograms` reads (CSV, Parquet,
        JSON-lines files and globs, DuckDB databases, pandas / polars / pyarrow data).
    group : str or list of str
        Protected-attribute column(s); several form intersections.
    label : str
        The gold label column (0/1, True/False, or any values with ``pos_label``).
    score : str
        The numeric score column (or a checked expression such as ``"1 - p"``).
    bins : None, int or sequence of float
        ``None`` (default): each distinct score is a bin and the AUC is exact (equal to
        :func:`sklearn.metrics.roc_auc_score`); an int ``k``: bins ``floor(score * k)``;
        or ascending edges.  Binned AUCs are labelled approximate, with an error bound.
    comparison : {'pairwise', 'vs-rest', 'vs-reference'}
        Which pairs are compared (:func:`fairbound.audits.pairing.pairs`).
    reference : object, optional
        The B side of every comparison (implies ``vs-reference``); ``vs-reference`` without
        one uses the largest group.
    confidence_level : float
        Family-wise over every row with ``error_control="family"``.
    error_control : {'family', 'fdr', 'none'}
        ``'family'`` (default): Bonferroni over every estimable row of every pair, so all
        verdicts hold together; ``'fdr'``: Benjamini-Hochberg over the same rows (the rows
        claiming a gap are the discoveries), every interval at the false-coverage-rate
        level ``1 - R alpha / m`` (:mod:`fairbound.audits.control`); ``'none'``: each row at
        ``confidence_level``.
    pos_label : object, optional
        The positive label value (needed unless the labels are 0/1 or True/False).
    where : str, optional
        A checked SQL filter.
    band : {'dkw', 'sup-t'}
        The threshold sweeps' simultaneous band: DKW (finite-sample, default) or sup-t
        (asymptotic, narrower in the middle of the score range).
    transform : {'none', 'logit'}
        AUC intervals: Wald on the AUC (default, as pROC) or on ``logit(AUC)`` (MOVER for
        gaps).
    calibration_bins : int or sequence of float, optional
        Calibration bins on [0, 1] (default 10, or the engine's bins when they do not nest
        in tenths).
    seed : int
        Seed of the sup-t simulation.
    max_comparisons : int
        Refuse audits with more rows than this (pairs of groups times the metrics of a
        pair), as :func:`fairbound.audits.audit` does: counted as soon as the scan's groups
        are known, before any histogram or interval is computed (pairwise comparisons grow
        with the square of the number of groups).
    engine : {'auto', 'duckdb', 'spark'}
        ``auto``: Spark for a Spark DataFrame, DuckDB otherwise; ``spark`` with a file
        path reads it with the active Spark session (``docs/engines.md``).
    sweep_thresholds : int or 'all'
        Most thresholds per threshold sweep (default 1,000): when the two groups of a row
        have more distinct scores than this, the sweep runs on a grid of each group's
        quantiles (:func:`~fairbound.stats.scores.sweep_grid`), and the row's note gives the
        grid's resolution.  ``'all'``: every distinct score (the JSON and the
        report then carry a point per distinct score).  Exact AUCs and calibration do not
        depend on it.

    Returns
    -------
    ScoreAuditResult

    Notes
    -----
    Guarantees: DeLong's AUC intervals, the CLT calibration intervals and the Wilson/CLT
    per-bin calibration intervals are asymptotic; the DKW band is finite-sample.  Family-wise
    control (Bonferroni) holds at the stated level when each row's interval does.  All of
    them cover sampling error only, for rows that are independent draws from the population
    audited.  Calibration is computed only for scores in ``[0, 1]``; otherwise
    ``calibration_note`` says so.

    References
    ----------
    E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson. "Comparing the areas under two or more
    correlated receiver operating characteristic curves." Biometrics 44 (1988).
    P. Massart. "The tight constant in the Dvoretzky-Kiefer-Wolfowitz inequality." Annals
    of Probability 18 (1990).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> g = rng.choice(["a", "b"], 2000)
    >>> y = rng.random(2000) < 0.4
    >>> s = np.round(rng.normal(size=2000) + np.where(g == "a", 1.5, 0.3) * y, 1)
    >>> r = score_audit(pd.DataFrame({"g": g, "y": y.astype(int), "s": s}),
    ...                 group="g", label="y", score="s")
    >>> c = r.select(metric="auc")[0]
    >>> c.verdict, r.calibration
    ('B disadvantaged', False)
    """
    from fairbound.audits.pairing import check_max_comparisons
    from fairbound.engines.scores import score_histograms
    from fairbound.stats.scores import histograms_from_counts

    groups, bins, comparison, rho, control, band, transform, cal, seed = _validate(
        group, label, score, bins, comparison, reference, confidence_level, error_control,
        band, transform, calibration_bins, seed, where)
    limit = check_max_comparisons(max_comparisons)
    sweep_k = check_sweep_thresholds(sweep_thresholds)
    gname = " & ".join(groups)
    # the limit, as soon as the scan's groups are known (without the calibration rows,
    # which need the score range: the exact count follows before any interval)
    from fairbound.engines import engine_input

    counts = score_histograms(engine_input(data, engine),
                              group=list(groups) if len(groups) > 1 else groups[0],
                              label=label, score=score, bins=bins, pos_label=pos_label,
                              where=where,
                              check_groups=lambda n: _check_limit(
                                  n, comparison, limit, calibration=False, column=gname))
    check_groups(counts.n_rows, counts.source, counts.groups, where=where,
                 excluded=counts.excluded, gname=gname,
                 empty=f"column {gname!r} has no rows with a group, label and score "
                       f"({counts.n_rows:,} rows scanned; excluded: {dict(counts.excluded)})")
    hists = histograms_from_counts(counts)
    # the histograms hold their own arrays: the engine's are freed before the audit runs
    provenance = {"source": counts.source, "positive": counts.pos_label,
                  "n_rows": counts.n_rows, "excluded": counts.excluded,
                  "engine": counts.engine}
    del counts
    return score_audit_histograms(
        hists, comparison=comparison, reference=reference, confidence_level=rho,
        error_control=control, band=band, transform=transform, calibration_bins=cal,
        seed=seed, columns={"group": list(groups), "label": label, "score": score},
        max_comparisons=limit, sweep_thresholds=sweep_k, **provenance)


__all__ = ["METRICS", "SCHEMA", "SCORE_ERROR_CONTROLS", "GroupScores", "ScoreAuditResult",
           "ScoreComparison", "score_audit", "score_audit_histograms"]
