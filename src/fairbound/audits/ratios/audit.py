"""Impact ratios (the four-fifths rule, NYC Local Law 144) with valid intervals and verdicts.

:func:`impact_ratios` reads the data once through an engine (DuckDB for files and frames,
Spark for Spark DataFrames) into per-group counts, and reports each group's favourable
rate divided by the highest group's rate (``versus="highest"``, the rule's definition), by
a reference group's, or for every pair, each with an interval for the ratio of two
proportions (:mod:`fairbound.stats.ratio`) and a verdict relative to a threshold (0.8):

* ``"evidence of adverse impact"`` - the interval lies entirely below the threshold;
* ``"evidence of no adverse impact"`` - it lies entirely above (for ``pairwise``, between
  the threshold and its inverse: neither group of the pair is adversely impacted);
* ``"not enough evidence"`` - it contains the threshold; ``required_n`` says about how many
  examples of the two groups would settle it if the observed rates were the truth.

Groups holding less than ``min_share`` of the rows (2% by default, the share below which
Local Law 144 lets an auditor leave a category out of the impact ratios) are listed apart
with their counts and rates, never dropped silently.  :func:`ll144_audit` runs
:func:`impact_ratios` for each group column (category) and their intersection, with the
data's date range, for the report of :mod:`fairbound.report.ll144`.

Not legal advice: the numbers are what the rule and the law ask for, plus the intervals
that say whether the data can show them.
"""

from __future__ import annotations

import datetime as _dt
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from fairbound._validate import check_choice, check_columns, check_where
from fairbound.audits.contract import IntervalsMethod, JsonMethod, ResultFields
from fairbound.audits.control import (  # noqa: F401
    ERROR_CONTROLS,
    SHORT_NAMES,
    check_error_control,
    controlled,
    recompute_settings,
)
from fairbound.audits.gaps.result import _jsonable
from fairbound.audits.pairing import check_groups, resolve_reference, same_group
from fairbound.audits.verdicts import ADVERSE, NO_ADVERSE, NO_EVIDENCE, NOT_ESTIMABLE, REFERENCE
from fairbound.engines import AggregateSpec, aggregate
from fairbound.engines.assemble import MISSING_GROUP
from fairbound.errors import FairboundError
from fairbound.metrics import check_favourable

SCHEMA = "fairbound.impact/1"
LL144_SCHEMA = "fairbound.ll144/1"

#: Verdicts of an impact-ratio row.
VERDICTS = (ADVERSE, NO_ADVERSE, NO_EVIDENCE, NOT_ESTIMABLE, REFERENCE)

VERSUS = ("highest", "reference", "pairwise")
METHODS = ("exact", "koopman", "katz")
GUARANTEES = {"exact": "finite-sample", "koopman": "asymptotic", "katz": "asymptotic"}

#: Rate name -> which rows form its denominator (``"all"``, ``"pos"``: y = positive class,
#: ``"neg"``: y != positive class).  The numerator is always the favourable prediction.
RATES = {"selection_rate": "all", "scoring_rate": "all", "tpr": "pos", "fnr": "pos",
         "fpr": "neg", "tnr": "neg"}
_RATE_ALIASES = {"selection": "selection_rate", "sr": "selection_rate",
                 "demographic_parity": "selection_rate", "scoring": "scoring_rate",
                 "true_positive_rate": "tpr", "false_positive_rate": "fpr",
                 "true_negative_rate": "tnr", "false_negative_rate": "fnr",
                 "equal_opportunity": "tpr"}
#: (rows, favourable) -> the name of the rate compared.
_RATE_NAMES = {("all", "positive"): "selection rate",
               ("all", "negative"): "favourable-outcome rate (1 - selection rate)",
               ("pos", "positive"): "TPR", ("pos", "negative"): "FNR",
               ("neg", "positive"): "FPR", ("neg", "negative"): "TNR"}
_ROWS_TEXT = {"all": "all rows", "pos": "rows with y = {k}", "neg": "rows with y != {k}"}


# ----------------------------------------------------------------------------- results
def _clean(v):
    """A JSON-ready scalar (tuples of an intersection joined with `` & ``)."""
    v = _jsonable(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _label(g) -> str:
    return "missing" if g is None else str(_jsonable(g))


@dataclass(frozen=True)
class GroupRate:
    """One group's counts: rows, the rate's denominator and favourable outcomes.

    Attributes
    ----------
    group : object
        The group (a tuple for an intersection).
    rows : int
        Rows of the group (applicants), whatever the rate's denominator.
    share : float
        ``rows`` over all rows with a group.
    n : int
        Rows in the rate's denominator (``rows`` for the selection rate).
    count : int
        Of those, rows with the favourable prediction.
    """

    group: Any
    rows: int
    share: float
    n: int
    count: int

    @property
    def rate(self) -> float:
        """``count / n`` (NaN for an empty denominator)."""
        return self.count / self.n if self.n > 0 else math.nan

    def to_dict(self) -> dict:
        """JSON-ready dictionary."""
        return {"group": _clean(self.group), "rows": self.rows, "share": self.share,
                "n": self.n, "count": self.count, "rate": _clean(self.rate)}


@dataclass(frozen=True)
class ImpactRatio:
    """One impact ratio: a group's rate over another's, with its interval and verdict.

    Attributes
    ----------
    group, versus : object
        The group and the group it is compared with (the observed highest, the reference,
        or the other group of a pair, whose rate is then the higher one).
    n, count, n_versus, count_versus : int
        Denominators and favourable counts of the two groups.
    ratio : float
        ``rate(group) / rate(versus)``.
    low, high : float
        The interval.  For ``versus="highest"`` it bounds the ratio of the group's rate to
        the highest *true* rate, whichever group has it (see :func:`impact_ratios`), and it
        contains ``ratio``.
    pair_low, pair_high : float
        The interval for ``rate(group) / rate(versus)`` alone, from the same family (NaN for
        the highest group itself).
    interval_level : float
        Level of each pairwise interval (Bonferroni-adjusted under family-wise control).
    verdict : str
        One of :data:`VERDICTS`.
    required_n : float
        Total examples of the two groups (at their current shares) at which the interval
        would exclude the threshold if the observed rates were the truth (approximate;
        NaN when the verdict is settled).
    note : str
        Why a row is not estimable, or remarks on the plan.

    Notes
    -----
    As every comparison row of fairbound, it also answers to ``group_a`` (``group``),
    ``group_b`` (``versus``), ``estimate`` (``ratio``) and ``confidence_interval()``.
    """

    group: Any
    versus: Any
    n: int
    count: int
    n_versus: int
    count_versus: int
    ratio: float
    low: float
    high: float
    pair_low: float
    pair_high: float
    interval_level: float
    verdict: str
    required_n: float
    note: str = ""

    @property
    def rate(self) -> float:
        """The group's rate."""
        return self.count / self.n if self.n > 0 else math.nan

    @property
    def rate_versus(self) -> float:
        """The rate of the group it is compared with."""
        return self.count_versus / self.n_versus if self.n_versus > 0 else math.nan

    @property
    def group_a(self) -> Any:
        """The group (``group``; the row contract's name)."""
        return self.group

    @property
    def group_b(self) -> Any:
        """The group it is compared with (``versus``)."""
        return self.versus

    @property
    def estimate(self) -> float:
        """The impact ratio (``ratio``)."""
        return self.ratio

    def confidence_interval(self, confidence_level: float | None = None):
        """The interval of the ratio as computed: ``(low, high)``.

        Parameters
        ----------
        confidence_level : float, optional
            ``None`` (default): the interval shown, at ``interval_level``.  Another level
            cannot be had from the row alone (with ``versus="highest"`` the interval is a
            minimum over every pair of groups, and the row does not record the method): use
            :meth:`ImpactRatioResult.recompute` with ``confidence_level=``.

        Returns
        -------
        ConfidenceInterval
        """
        from fairbound.audits.contract import shown_interval

        return shown_interval(
            self, confidence_level, "an impact ratio's interval depends on the other groups "
            "and the method, which the row does not hold; use ImpactRatioResult."
            "recompute(confidence_level=...)")

    def to_dict(self) -> dict:
        """JSON-ready dictionary (``None`` for NaN and infinite values)."""
        return {"group": _clean(self.group), "versus": _clean(self.versus), "n": self.n,
                "count": self.count, "rate": _clean(self.rate), "n_versus": self.n_versus,
                "count_versus": self.count_versus, "rate_versus": _clean(self.rate_versus),
                "ratio": _clean(self.ratio), "low": _clean(self.low),
                "high": _clean(self.high), "high_infinite": self.high == math.inf,
                "pair_low": _clean(self.pair_low), "pair_high": _clean(self.pair_high),
                "interval_level": self.interval_level, "verdict": self.verdict,
                "required_n": _clean(self.required_n), "note": self.note}


class _RatioOutputs(JsonMethod, IntervalsMethod):
    """The methods an impact-ratio result and a Local Law 144 audit share: a mix-in.

    ``to_json``; ``confidence_interval`` (every row's interval in the order of
    ``comparisons``; a level recomputes every category at it under its error control);
    ``plot`` and ``report``.
    """

    __slots__ = ()

    def plot(self, **options):
        """Forest plot of the impact ratios with the threshold line (needs matplotlib)."""
        from fairbound.viz.ratios import plot_impact_ratios

        return plot_impact_ratios(self, **options)

    def report(self, path, *, title: str | None = None):
        """Write the bias-audit HTML report (:mod:`fairbound.report.ll144`)."""
        from fairbound.report.ll144 import write_ll144_report

        return write_ll144_report(self, path, title=title)


@dataclass(frozen=True)
class ImpactRatioResult(ResultFields, _RatioOutputs):
    """Impact ratios of one category (a group column or an intersection), with verdicts.

    Attributes
    ----------
    ratios : tuple of ImpactRatio
        One per group (``highest``, ``reference``; the highest or reference group itself
        has ratio 1) or per pair (``pairwise``), for groups holding at least ``min_share``
        of the rows.
    groups : tuple of GroupRate
        Every group, in the engine's order.
    small_groups : tuple of GroupRate
        Groups under ``min_share``: counted and listed, left out of the ratios.
    category : str
        The group column(s), joined with `` & ``.
    rate, rate_name, rows : str
        The rate asked for (``"selection_rate"``), the rate compared (``"selection
        rate"``, ``"FNR"`` ...) and its denominator in words.
    favourable : str
        ``"positive"`` or ``"negative"``.
    positive : object
        The positive class of the prediction (and label).
    threshold : float
        The ratio the verdicts are relative to.
    versus : str
        ``"highest"``, ``"reference"`` or ``"pairwise"``.
    highest, reference : object
        The observed highest group (``highest``) and the reference group (``reference``).
    confidence_level : float
        Family-wise under ``error_control="family"``.
    interval_level : float
        Level of each pairwise interval.
    error_control : str
        ``"family"`` or ``"none"``.
    n_tests : int
        Pairwise intervals in the family.
    method, guarantee : str
        Interval method and what it guarantees.
    min_share : float
        Groups under this share of the rows are listed apart.
    columns : dict
        ``group``, ``label``, ``prediction`` as given.
    n_rows : int
        Rows scanned.
    excluded : dict
        Reason -> rows left out.
    engine, source, version, created : str
        What read the data, what it read, fairbound's version and the UTC time.
    """

    ratios: tuple[ImpactRatio, ...]
    small_groups: tuple[GroupRate, ...]
    category: str
    rate: str
    rate_name: str
    rows: str
    favourable: str
    positive: Any
    threshold: float
    versus: str
    highest: Any
    interval_level: float
    method: str
    guarantee: str
    min_share: float
    score_median: float | None = None

    def __repr__(self) -> str:
        counts = {v: sum(1 for r in self.ratios if r.verdict == v) for v in VERDICTS}
        parts = [f"{counts[v]} {v}" for v in (ADVERSE, NO_ADVERSE, NO_EVIDENCE, NOT_ESTIMABLE)
                 if counts[v]]
        vs = {"highest": f"vs the highest ({_label(self.highest)})",
              "reference": f"vs {_label(self.reference)}", "pairwise": "pairwise"}[self.versus]
        small = (f"; {len(self.small_groups)} under {self.min_share:.0%} listed apart"
                 if self.small_groups else "")
        control = f"{SHORT_NAMES[self.error_control]} {_pct(self.confidence_level)}"
        return (f"ImpactRatioResult({self.category}: {self.rate_name}, "
                f"{len(self.groups) - len(self.small_groups)} groups {vs}, threshold "
                f"{self.threshold:g}: {', '.join(parts) or 'no rows'}{small}; {control}, "
                f"{self.method})")

    def __len__(self) -> int:
        return len(self.ratios)

    def __iter__(self):
        return iter(self.ratios)

    @property
    def unknown(self) -> int:
        """Rows whose category is unknown (a missing group value): counted, not compared."""
        return int(self.excluded.get(MISSING_GROUP, 0))

    @property
    def adverse(self) -> tuple[ImpactRatio, ...]:
        """Rows with evidence of adverse impact."""
        return tuple(r for r in self.ratios if r.verdict == ADVERSE)

    def ratio(self, group, versus=None) -> ImpactRatio:
        """The row of ``group`` (and ``versus``, for pairwise), given as itself or as text."""
        for r in self.ratios:
            if _same_group(r.group, group) and (versus is None or _same_group(r.versus,
                                                                               versus)):
                return r
        raise FairboundError(f"group {group!r} has no impact ratio; groups are "
                             f"{[_label(r.group) for r in self.ratios][:20]}", param="group")

    @property
    def comparisons(self) -> tuple[ImpactRatio, ...]:
        """The rows (``ratios``), under the name every result uses."""
        return self.ratios

    def select(self, *, verdict: str | None = None, group: Any = None) -> tuple:
        """Rows filtered by verdict (one of :data:`VERDICTS`) and/or group.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"g": ["a"] * 200 + ["b"] * 200,
        ...                    "hired": [1] * 100 + [0] * 100 + [1] * 50 + [0] * 150})
        >>> res = impact_ratios(df, group="g", prediction="hired")
        >>> [r.group for r in res.select(verdict="evidence of adverse impact")]
        ['b']
        """
        return _select(self.ratios, verdict=verdict, group=group)

    def recompute(self, *, confidence_level: float | None = None,
                  error_control: str | None = None, threshold: float | None = None,
                  method: str | None = None) -> ImpactRatioResult:
        """The ratios at another level, error control, threshold or method, from the counts.

        No data is read again.  Arguments left out keep their values in this result.

        Returns
        -------
        ImpactRatioResult
        """
        rho, control = recompute_settings(self, confidence_level, error_control)
        thr = self.threshold if threshold is None else _check_threshold(threshold)
        meth = self.method if method is None else _choice(method, METHODS, "method")
        kept = [s for s in self.groups if s not in self.small_groups]
        rows, level, m, highest = _ratios(kept, versus=self.versus, reference=self.reference,
                                          threshold=thr, confidence_level=rho,
                                          error_control=control, method=meth)
        return replace(self, ratios=tuple(rows), interval_level=level, n_tests=m,
                       highest=highest, confidence_level=rho, error_control=control,
                       threshold=thr, method=meth, guarantee=GUARANTEES[meth])

    def summary(self) -> list[str]:
        """Plain-language sentences (the report's wording), adverse impact first."""
        from fairbound.report.ll144 import ratio_sentence

        d = self.to_dict()
        order = sorted(d["ratios"], key=lambda r: r["verdict"] != ADVERSE)
        return [ratio_sentence(d, r) for r in order]

    def to_frame(self):
        """One row per impact ratio, then one per group under ``min_share`` (pandas)."""
        import pandas as pd

        rows = []
        for r in self.ratios:
            d = r.to_dict()
            d.pop("high_infinite")
            if r.high == math.inf:
                d["high"] = math.inf
            rows.append({"category": self.category, **d, "in_ratios": True,
                         "share": self._share(r.group)})
        for g in self.small_groups:
            rows.append({"category": self.category, "group": _clean(g.group), "n": g.n,
                         "count": g.count, "rate": _clean(g.rate), "verdict":
                         f"under {self.min_share:.0%} of the rows: not in the ratios",
                         "in_ratios": False, "share": g.share})
        return pd.DataFrame(rows)

    def _share(self, group) -> float:
        for g in self.groups:
            if g.group == group:
                return g.share
        return math.nan

    def to_dict(self) -> dict:
        """JSON-ready dictionary: schema ``"fairbound.impact/1"``, kind ``"impact_ratios"``."""
        return {
            "schema": SCHEMA, "kind": "impact_ratios", "fairbound_version": self.version,
            "created": self.created,
            "source": self.source, "engine": self.engine, "category": self.category,
            "columns": dict(self.columns), "rate": self.rate, "rate_name": self.rate_name,
            "rows": self.rows, "favourable": self.favourable,
            "positive": _clean(self.positive), "threshold": self.threshold,
            "versus": self.versus, "highest": _clean(self.highest),
            "reference": _clean(self.reference), "confidence_level": self.confidence_level,
            "interval_level": self.interval_level, "error_control": self.error_control,
            "n_tests": self.n_tests, "method": self.method, "guarantee": self.guarantee,
            "min_share": self.min_share, "score_median": self.score_median,
            "n_rows": self.n_rows, "unknown": self.unknown, "excluded": dict(self.excluded),
            "groups": [g.to_dict() for g in self.groups],
            "small_groups": [g.to_dict() for g in self.small_groups],
            "ratios": [r.to_dict() for r in self.ratios],
        }



@dataclass(frozen=True)
class LL144Audit(_RatioOutputs):
    """A bias audit in the Local Law 144 layout: one :class:`ImpactRatioResult` per category.

    Attributes
    ----------
    categories : tuple of ImpactRatioResult
        Each group column, then their intersection (when there are several).
    data_source : str
        Where the data came from, in words (``source=``), or the file read.
    date_column : str or None
        The column the date range was read from.
    date_range : tuple of str or None
        First and last date (ISO format) of the rows audited.
    """

    categories: tuple[ImpactRatioResult, ...]
    data_source: str
    date_column: str | None = None
    date_range: tuple[str, str] | None = None

    def __repr__(self) -> str:
        dates = f", {self.date_range[0]} to {self.date_range[1]}" if self.date_range else ""
        n_adv = sum(len(c.adverse) for c in self.categories)
        return (f"LL144Audit({len(self.categories)} categories "
                f"({', '.join(c.category for c in self.categories)}){dates}: {n_adv} with "
                "evidence of adverse impact)")

    def to_dict(self) -> dict:
        """JSON-ready dictionary (``"fairbound.ll144/1"``), each category's inside."""
        first = self.categories[0]
        return {"schema": LL144_SCHEMA, "kind": "ll144", "fairbound_version": first.version,
                "created": first.created, "data_source": self.data_source,
                "date_column": self.date_column,
                "date_range": list(self.date_range) if self.date_range else None,
                "categories": [c.to_dict() for c in self.categories]}

    @property
    def comparisons(self) -> tuple[ImpactRatio, ...]:
        """Every category's rows, in category order."""
        return tuple(r for c in self.categories for r in c.ratios)

    def select(self, *, verdict: str | None = None, group: Any = None,
               category: str | None = None) -> tuple:
        """Rows filtered by verdict, group and/or category (a group column, or ``a & b``)."""
        cats = self.categories
        if category is not None:
            cats = tuple(c for c in cats if c.category == category)
            if not cats:
                raise FairboundError(f"category: {category!r} not found; categories are "
                                     f"{[c.category for c in self.categories]}",
                                     param="category")
        return _select([r for c in cats for r in c.ratios], verdict=verdict, group=group)

    def recompute(self, **changes) -> LL144Audit:
        """Every category recomputed (:meth:`ImpactRatioResult.recompute`), no data read.

        Parameters
        ----------
        **changes
            ``confidence_level``, ``error_control``, ``threshold``, ``method``.

        Returns
        -------
        LL144Audit
        """
        return replace(self, categories=tuple(c.recompute(**changes)
                                              for c in self.categories))

    def summary(self) -> list[str]:
        """Every category's sentences (:meth:`ImpactRatioResult.summary`), in order."""
        return [s for c in self.categories for s in c.summary()]

    def to_frame(self):
        """Every category's rows in one pandas DataFrame."""
        import pandas as pd

        return pd.concat([c.to_frame() for c in self.categories], ignore_index=True)

    def to_csv(self, path=None) -> str:
        """The Local Law 144 table as CSV text (:func:`fairbound.report.ll144.render_ll144_csv`)."""
        from fairbound.report.ll144 import render_ll144_csv

        text = render_ll144_csv(self)
        if path is not None:
            from fairbound._io import write_text_atomic

            write_text_atomic(path, text)
        return text



def _pct(level: float) -> str:
    from fairbound._render import fmt_level

    return fmt_level(level)


def _select(rows, *, verdict, group) -> tuple:
    if verdict is not None:
        check_choice(verdict, VERDICTS, "verdict")
    return tuple(r for r in rows if (verdict is None or r.verdict == verdict)
                 and (group is None or _same_group(r.group, group)))


# how a group is named (its value, its text, its parts): the one rule of every kind
_same_group = same_group


# ----------------------------------------------------------------------------- checks
def _choice(value, allowed, param: str, aliases: dict | None = None) -> str:
    return check_choice(value, allowed, param, fold=True, sep="_", aliases=aliases)


def _check_threshold(threshold) -> float:
    try:
        t = float(threshold)
    except (TypeError, ValueError):
        t = math.nan
    if not (0.0 < t <= 1.0):
        raise FairboundError(f"threshold must be a ratio in (0, 1] (0.8: the four-fifths "
                             f"rule); got {threshold!r}", param="threshold")
    return t


def _check_min_share(min_share) -> float:
    try:
        s = float(min_share)
    except (TypeError, ValueError):
        s = math.nan
    if isinstance(min_share, bool) or not (0.0 <= s < 1.0):
        raise FairboundError(f"min_share must be a share in [0, 1) (0.02: categories under "
                             f"2% of the data are listed apart); got {min_share!r}",
                             param="min_share")
    return s


def _check_columns(group, label, prediction, where, score=None) -> tuple[str, ...]:
    groups = check_columns(group)
    if score is not None:
        if prediction is not None:
            raise FairboundError("prediction: give either prediction= (a decision) or score= "
                                 "(a score, compared with its median), not both",
                                 param="prediction")
        if not (isinstance(score, str) and score.strip()):
            raise FairboundError(f"score must be a column name or a SQL expression (text); "
                                 f"got {score!r:.60}", param="score")
    elif not (isinstance(prediction, str) and prediction.strip()):
        raise FairboundError(f"prediction must be a column name or a SQL expression (text); "
                             f"got {prediction!r:.60}", param="prediction")
    if label is not None and not (isinstance(label, str) and label.strip()):
        raise FairboundError(f"label must be a column name or a SQL expression (text); got "
                             f"{label!r:.60}", param="label")
    check_where(where)
    return groups


# ----------------------------------------------------------------------------- intervals
def _interval(method: str, ka: int, na: int, kb: int, nb: int, level: float):
    from fairbound.stats.ratio import exact_ratio_interval, katz_log_interval, koopman_interval

    fn = {"exact": exact_ratio_interval, "koopman": koopman_interval,
          "katz": katz_log_interval}[method]
    lo, hi = fn(ka, na, kb, nb, level)
    return float(lo), float(hi)


def _verdict(lo: float, hi: float, threshold: float, *, two_sided: bool = False) -> str:
    if hi < threshold:
        return ADVERSE
    if lo > threshold and (not two_sided or hi < 1.0 / threshold):
        return NO_ADVERSE
    return NO_EVIDENCE


def _ratio(ka, na, kb, nb) -> float:
    pa, pb = ka / na, kb / nb
    if pb == 0:
        return math.nan if pa == 0 else math.inf
    return pa / pb


def _plan(a: GroupRate, b: GroupRate, level: float, threshold: float, method: str,
          verdict: str) -> tuple[float, str]:
    """``(required_n, note)`` for a row whose interval contains the threshold."""
    from fairbound.stats.ratio import ratio_required_n

    if verdict != NO_EVIDENCE:
        return math.nan, ""
    need = float(ratio_required_n(a.count, a.n, b.count, b.n, level, threshold=threshold,
                                  method=method))
    if math.isfinite(need):
        need = float(math.ceil(need))
        if need <= a.n + b.n:
            return math.nan, ("the planned n is not above the current n (the observed ratio "
                              "is at the edge of what these data resolve)")
    return need, ""


def _ratios(stats: list[GroupRate], *, versus: str, reference, threshold: float,
            confidence_level: float, error_control: str, method: str):
    """The rows of one category from its groups' counts (groups under min_share removed).

    Returns ``(rows, interval_level, n_tests, highest)``.
    """
    ok = [s for s in stats if s.n > 0]
    if len(ok) < 2:
        raise FairboundError(
            "group: impact ratios need two groups that hold at least min_share of the rows "
            "and have rows in the rate's denominator; only "
            f"{[_label(s.group) for s in ok]} do (lower min_share to include smaller "
            "groups)", param="group")
    G = len(ok)
    if versus == "reference":
        ref = next(s for s in stats if s.group == reference)
        if ref.n <= 0:
            raise FairboundError(f"reference: group {_label(reference)!r} has no rows in the "
                                 "rate's denominator", param="reference")
        m, k = G - 1, 1
    else:
        # under "none" each row on its own: a pair for pairwise; for highest, the G - 1
        # pairs a row depends on hold together at confidence_level
        m, k = G * (G - 1) // 2, (1 if versus == "pairwise" else G - 1)

    def build(level_of):
        rows, level, highest = _ratio_rows(stats, ok, level_of(k), versus=versus,
                                           reference=reference, threshold=threshold,
                                           method=method)
        return rows, level, m, highest

    rows, level, m, highest = controlled(
        build, error_control=error_control, confidence_level=confidence_level, m=m,
        discoveries=lambda b: sum(1 for r in b[0] if r.verdict == ADVERSE))
    return rows, level, m, highest


def _ratio_rows(stats: list[GroupRate], ok: list[GroupRate], level: float, *, versus: str,
                reference, threshold: float, method: str):
    """``(rows, level, highest)``: every row of one category with its intervals at ``level``."""
    G = len(ok)
    rows: list[ImpactRatio] = []
    highest = None
    if versus == "reference":
        ref = next(s for s in stats if s.group == reference)
        for s in stats:
            if s.group == reference:
                rows.append(ImpactRatio(s.group, s.group, s.n, s.count, s.n, s.count, 1.0,
                                        math.nan, math.nan, math.nan, math.nan, level,
                                        REFERENCE, math.nan))
                continue
            if s.n <= 0:
                rows.append(_empty_row(s, ref, level))
                continue
            lo, hi = _interval(method, s.count, s.n, ref.count, ref.n, level)
            v = _verdict(lo, hi, threshold)
            need, note = _plan(s, ref, level, threshold, method, v)
            rows.append(ImpactRatio(s.group, ref.group, s.n, s.count, ref.n, ref.count,
                                    _ratio(s.count, s.n, ref.count, ref.n), lo, hi, lo, hi,
                                    level, v, need, note))
        return rows, level, None
    pair: dict[tuple[int, int], tuple[float, float]] = {}
    for i in range(G):
        for j in range(i + 1, G):
            a, b = ok[i], ok[j]
            pair[(i, j)] = _interval(method, a.count, a.n, b.count, b.n, level)
            lo, hi = pair[(i, j)]
            pair[(j, i)] = (0.0 if hi == math.inf else 1.0 / hi,
                            math.inf if lo == 0.0 else 1.0 / lo)
    if versus == "pairwise":
        for i in range(G):
            for j in range(i + 1, G):
                a, b = (i, j) if ok[i].rate <= ok[j].rate else (j, i)
                sa, sb = ok[a], ok[b]
                lo, hi = pair[(a, b)]
                v = _verdict(lo, hi, threshold, two_sided=True)
                need, note = _plan(sa, sb, level, threshold, method, v)
                rows.append(ImpactRatio(sa.group, sb.group, sa.n, sa.count, sb.n, sb.count,
                                        _ratio(sa.count, sa.n, sb.count, sb.n), lo, hi, lo,
                                        hi, level, v, need, note))
        return rows, level, None
    # versus highest: every pair at the family's level; a group's ratio to the highest true
    # rate is min(1, min_b p_a / p_b), bounded by the same min over the pair intervals
    h = max(range(G), key=lambda i: (ok[i].rate, -i))
    highest = ok[h].group
    second = max((i for i in range(G) if i != h), key=lambda i: (ok[i].rate, -i))
    ptr = {id(s): i for i, s in enumerate(ok)}
    for s in stats:
        if s.n <= 0:
            rows.append(_empty_row(s, ok[h], level))
            continue
        i = ptr[id(s)]
        lo = min(1.0, min(pair[(i, j)][0] for j in range(G) if j != i))
        hi = min(1.0, min(pair[(i, j)][1] for j in range(G) if j != i))
        est = 1.0 if i == h else _ratio(s.count, s.n, ok[h].count, ok[h].n)
        if ok[h].count == 0:
            est = math.nan
        plo, phi = (math.nan, math.nan) if i == h else pair[(i, h)]
        v = _verdict(lo, hi, threshold)
        other = ok[second] if i == h else ok[h]
        need, note = _plan(s, other, level, threshold, method, v)
        if i == h:   # the rule's reference: its ratio is 1 by definition
            v, need = REFERENCE, math.nan
            note = ("the highest observed rate, the one every other group is compared "
                    "with (ratio 1 by the rule's definition)")
            if lo < threshold:   # the truly highest group may be another one
                note += (f"; its ratio to the highest true rate is in [{lo:.3f}, {hi:.3f}], "
                         f"so it may itself fall under {threshold:g} if another group's "
                         "true rate is higher")
        if ok[h].count == 0:
            note = "no group has the favourable outcome: the ratios are undefined"
        rows.append(ImpactRatio(s.group, ok[h].group, s.n, s.count, ok[h].n, ok[h].count,
                                est, lo, hi, plo, phi, level, v, need, note))
    return rows, level, highest


def _empty_row(s: GroupRate, other: GroupRate, level: float) -> ImpactRatio:
    return ImpactRatio(s.group, other.group, s.n, s.count, other.n, other.count, math.nan,
                       math.nan, math.nan, math.nan, math.nan, level, NOT_ESTIMABLE, math.nan,
                       f"group {_label(s.group)!r} has no rows in the rate's denominator")


# ----------------------------------------------------------------------------- counts
def _counts(agg, *, rows_kind: str, favourable: str, pos_label, label_given: str | None,
            prediction: str):
    """Per-group ``(rows, n, count)`` arrays and the positive class, from engine output."""
    from fairbound.labels import label_setup

    setup = label_setup(agg.label_values, agg.prediction_values, pos_label,
                        label=label_given if label_given is not None else prediction,
                        prediction=prediction)
    if setup.positive is None:
        raise FairboundError(
            f"pos_label: prediction {prediction!r} has the values "
            f"{[_jsonable(c) for c in setup.classes][:8]}; say which one is the positive "
            "outcome (the selection) with pos_label= / --pos-label", param="pos_label")
    conf = setup.confusion(agg.confusion, list(agg.classes))
    k = setup.index(setup.positive)
    total = conf.sum(axis=(1, 2))
    pred_pos = conf[:, :, k].sum(axis=1)
    if rows_kind == "all":
        n, pos = total, pred_pos
    elif rows_kind == "pos":
        n, pos = conf[:, k, :].sum(axis=1), conf[:, k, k]
    else:
        n = total - conf[:, k, :].sum(axis=1)
        pos = pred_pos - conf[:, k, k]
    count = pos if favourable == "positive" else n - pos
    return (np.asarray(total, dtype=np.int64), np.asarray(n, dtype=np.int64),
            np.asarray(count, dtype=np.int64), setup.positive)


def impact_ratios(
    data,
    *,
    group: str | Sequence[str],
    prediction: str | None = None,
    label: str | None = None,
    rate: str = "selection_rate",
    versus: str = "highest",
    reference: Any = None,
    threshold: float = 0.8,
    confidence_level: float = 0.95,
    error_control: str = "family",
    method: str = "exact",
    favourable: str = "positive",
    pos_label: Any = None,
    where: str | None = None,
    min_share: float = 0.02,
    score: str | None = None,
    engine: str = "auto",
) -> ImpactRatioResult:
    """Impact ratios by group with intervals and verdicts relative to a threshold (0.8).

    Parameters
    ----------
    data : DataFrame, Table, path or Spark DataFrame
        Anything :func:`fairbound.engines.aggregate` reads: pandas, polars or pyarrow data,
        a dict of arrays, CSV / Parquet / JSON-lines files or globs, a DuckDB database, or
        a Spark DataFrame.
    group : str or list of str
        The category: one column, or several whose combinations (intersections) are the
        groups.  Rows with a missing group value are counted as excluded.
    prediction : str
        The decision column, or a checked expression such as ``"score >= 0.5"`` or
        ``"score_text != 'Low'"``; 0/1 and True/False are read with positive class 1/True,
        other values need ``pos_label`` (the value that means "selected").
    label : str, optional
        The true label, for ``rate="tpr"``, ``"fpr"``, ``"tnr"`` or ``"fnr"``; ignored for
        the selection rate (so a missing label never drops a row from it).
    rate : str
        Which rows the rate is taken over: ``"selection_rate"`` (all rows; the rule's and
        the law's rate; ``"scoring_rate"`` is the same with the law's name for a
        prediction such as ``"score > <median>"``), ``"tpr"`` / ``"fnr"`` (rows whose
        label is the positive class) or ``"fpr"`` / ``"tnr"`` (the other rows).  The rate
        compared is always the share of those rows with the *favourable* prediction, so
        with ``favourable="negative"`` the selection rate becomes one minus it, TPR becomes
        FNR and FPR becomes TNR (``rate_name`` says which).
    versus : {'highest', 'reference', 'pairwise'}
        Divide by the highest group's rate (the four-fifths rule and Local Law 144), by
        ``reference``'s, or compare every pair (lower rate over higher).
    reference : object, optional
        The reference group (implies ``versus="reference"``); an intersection as a tuple
        or as ``"a & b"`` text.
    threshold : float
        The ratio verdicts are relative to, in (0, 1] (0.8: four-fifths).
    confidence_level : float
        With ``error_control="family"``, the probability that every verdict of the
        category holds together is at least this.
    error_control : {'family', 'fdr', 'none'}
        ``"family"`` (default): Bonferroni over every pairwise interval computed.
        ``"fdr"``: Benjamini-Hochberg over the same ``m``, counting the rows with evidence
        of adverse impact as discoveries, every interval at the false-coverage-rate level
        ``1 - R alpha / m`` (:mod:`fairbound.audits.control`).
        ``"none"``: each row on its own at ``confidence_level`` (for ``highest``, the
        ``G - 1`` pairs a row depends on are still adjusted together).
    method : {'exact', 'koopman', 'katz'}
        Interval for a ratio of two proportions (:mod:`fairbound.stats.ratio`): exact
        unconditional (finite-sample guarantee, default), Koopman's score interval or
        Katz's log interval (asymptotic).
    favourable : {'positive', 'negative'}
        Whether the positive prediction is the favourable outcome (selected, hired) or a
        harmful one (flagged, high risk); the ratio is taken on the favourable outcome's
        rate.
    pos_label : object, optional
        The positive class when the values are not 0/1 or True/False.
    where : str, optional
        A checked SQL condition selecting the rows.
    min_share : float
        Groups with fewer than this share of the rows (0.02) are listed apart with their
        counts and rates and left out of the ratios (Local Law 144 allows this); 0 keeps
        every group.
    score : str, optional
        Instead of ``prediction``, a numeric score column (or checked expression): the
        positive outcome is then a score above the median score of every row ``where``
        selects (rows with a missing group included), and the selection rate becomes Local
        Law 144's *scoring rate*.  One extra scan, grouped by the score (one row per
        distinct score comes back: round a continuous score, e.g. ``"round(p, 2)"``).
    engine : {'auto', 'duckdb', 'spark'}
        Engine that reads the data.

    Returns
    -------
    ImpactRatioResult
        Frozen: ``.ratios``, ``.small_groups``, ``.to_frame()``, ``.to_dict()``,
        ``.plot()``, ``.report(path)``.

    Notes
    -----
    **The highest group is chosen from the data.**  The rule divides by the rate of the
    group with the highest rate; which group that is, is itself estimated.  So for
    ``versus="highest"`` an interval is computed for *every* pair of groups at the
    Bonferroni level ``1 - alpha / m`` over all ``m = G (G - 1) / 2`` pairs: with
    probability at least ``1 - alpha`` every pairwise interval holds together.  Each row
    reports the estimate ``rate(group) / rate(observed highest)`` (the rule's number) and
    the interval ``[min(1, min_b lo(group, b)), min(1, min_b hi(group, b))]`` over the other
    groups ``b``: on that event it contains ``rate(group) / max_b rate(b)``, the ratio to
    the highest *true* rate, whichever group has it (``p_a / max_b p_b = min(1, min_b
    p_a / p_b)``); it also contains the estimate.  So the verdicts hold whichever group
    turns out highest, and the highest group's own row can say that its ratio may be under
    the threshold (a close second group of uncertain rank).  ``pair_low`` and
    ``pair_high`` keep the interval against the observed highest group alone, from the
    same family.  A claim of adverse impact needs the upper end below the threshold:
    ``rate(group) < threshold * rate(b)`` for some group ``b``; a claim of no adverse
    impact needs the lower end above it against every group.

    The exact method's guarantee is finite-sample (coverage at least the nominal level for
    every sample size); Koopman's and Katz's are asymptotic.  Every interval covers
    sampling error only, for rows that are independent draws with one rate per group.
    ``required_n`` is planned with :func:`fairbound.stats.ratio.ratio_required_n` for the
    pair (group, observed highest; for the highest group, the second highest): an
    approximation, and for ``highest`` a lower bound on what the min over all pairs needs.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a"] * 200 + ["b"] * 200,
    ...                    "hired": [1] * 100 + [0] * 100 + [1] * 50 + [0] * 150})
    >>> res = impact_ratios(df, group="g", prediction="hired")
    >>> r = res.ratio("b")
    >>> r.ratio, r.verdict
    (0.5, 'evidence of adverse impact')
    >>> round(r.low, 3), round(r.high, 3)
    (0.377, 0.658)
    """
    groups = _check_columns(group, label, prediction, where, score)
    rate_key = _choice(rate, tuple(RATES), "rate", _RATE_ALIASES)
    rows_kind = RATES[rate_key]
    if score is not None and rate_key == "selection_rate":
        rate_key = "scoring_rate"
    if reference is not None and versus == "highest":
        versus = "reference"
    versus = _choice(versus, VERSUS, "versus")
    if versus == "reference" and reference is None:
        raise FairboundError("reference: versus='reference' needs a reference group",
                             param="reference")
    thr = _check_threshold(threshold)
    from fairbound.stats.base import check_confidence_level

    rho = check_confidence_level(confidence_level)
    control = check_error_control(error_control)
    meth = _choice(method, METHODS, "method")
    fav = check_favourable(favourable)
    share_min = _check_min_share(min_share)
    if rows_kind != "all" and label is None:
        raise FairboundError(f"label: rate {rate_key!r} is taken over rows by their true "
                             "label; give the label column", param="label")
    median = None
    candidates = [prediction]
    if score is not None:
        median, candidates = _above_median(data, score, where=where, engine=engine)
    for i, prediction in enumerate(candidates):
        use_label = label if rows_kind != "all" else prediction
        spec = AggregateSpec(group=groups, label=use_label, prediction=prediction,
                             where=where)
        try:
            agg = aggregate(data, spec, engine=engine)
            break
        except FairboundError as exc:
            # score= names no column: read it as an expression (checked before any scan)
            if i + 1 == len(candidates) or exc.param not in ("label", "prediction"):
                raise
    excluded = dict(agg.excluded)
    if rows_kind == "all" and "missing label" in excluded:
        # the label role read the prediction: its missing values are missing predictions
        excluded["missing prediction"] = (excluded.pop("missing label")
                                          + excluded.get("missing prediction", 0))
    category = " & ".join(groups)
    # the one check of every kind; a single group is refused by _ratios (min_share)
    check_groups(agg.n_rows, agg.source, agg.groups or [], where=where, excluded=agg.excluded,
                 gname=category, two=False,
                 usable=bool(agg.groups) and agg.confusion is not None
                 and int(agg.confusion.sum()) != 0,
                 empty=f"no row has a value of {category!r} and a prediction "
                       f"({agg.n_rows:,} rows scanned; excluded: {excluded})")
    total, n, count, positive = _counts(agg, rows_kind=rows_kind, favourable=fav,
                                        pos_label=pos_label, label_given=label,
                                        prediction=prediction)
    all_rows = int(total.sum())
    stats = [GroupRate(g, int(t), float(t) / all_rows, int(nn), int(c))
             for g, t, nn, c in zip(agg.groups, total, n, count, strict=True)]
    ref = None
    if versus == "reference":
        ref = resolve_reference([s.group for s in stats], reference, "vs-reference",
                                category, where=repr(category), name=_label)
    small = tuple(s for s in stats if s.share < share_min and s.group != ref)
    kept = [s for s in stats if not (s.share < share_min and s.group != ref)]
    rows, level, m, highest = _ratios(kept, versus=versus, reference=ref, threshold=thr,
                                      confidence_level=rho, error_control=control,
                                      method=meth)
    from fairbound._version import __version__

    k_text = _clean(positive)
    return ImpactRatioResult(
        ratios=tuple(rows), groups=tuple(stats), small_groups=small, category=category,
        rate=rate_key, rate_name=("scoring rate" if rate_key == "scoring_rate" and
                                  fav == "positive" else _RATE_NAMES[(rows_kind, fav)]),
        rows=_ROWS_TEXT[rows_kind].format(k=k_text), favourable=fav, positive=positive,
        threshold=thr, versus=versus, highest=highest, reference=ref, confidence_level=rho,
        interval_level=level, error_control=control, n_tests=m, method=meth,
        guarantee=GUARANTEES[meth], min_share=share_min,
        columns={"group": list(groups), "label": label if rows_kind != "all" else None,
                 "prediction": prediction, "score": score}, score_median=median,
        n_rows=agg.n_rows, excluded=excluded, engine=agg.engine, source=agg.source,
        version=__version__,
        created=_dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))


def _above_median(data, score: str, *, where, engine) -> tuple[float, list[str]]:
    """The median of ``score`` over the rows ``where`` selects, and ``score > median`` texts.

    Local Law 144's scoring rate is the share of a category scoring above the sample's
    median.  One scan grouped by the score (one row per distinct score comes back: fine for
    deciles or rounded scores; round a continuous score, e.g. ``"round(p, 3)"``).
    """
    from fairbound.engines.expr import quote_identifier

    spec = AggregateSpec(group=(score,), cost="1", where=where)
    try:
        agg = aggregate(data, spec, engine=engine)
    except FairboundError as exc:
        if exc.param != "group":
            raise
        raise FairboundError(str(exc).replace("group:", "score:", 1), param="score") from None
    values = list(agg.groups)
    if not values:
        raise FairboundError(f"score: no row has a value of {score!r}", param="score")
    bad = [v for v in values if isinstance(v, bool) or not isinstance(v, numbers.Number)]
    if bad:
        raise FairboundError(_not_numeric(score, bad), param="score")
    counts = np.asarray(agg.cost.n, dtype=float)
    order = np.argsort(np.asarray([float(v) for v in values]), kind="stable")
    vals = np.asarray([float(v) for v in values])[order]
    cum = np.cumsum(counts[order])
    total = cum[-1]
    lo = vals[int(np.searchsorted(cum, (total + 1) // 2))]   # the lower middle value
    hi = vals[int(np.searchsorted(cum, total // 2 + 1))]     # the upper middle value
    median = float((lo + hi) / 2.0)
    literal = repr(median)
    # as the engine resolves a role: an existing column name first, else an expression
    return median, [f"{quote_identifier(score)} > {literal}", f"({score}) > {literal}"]


def _finite_number_text(v) -> bool:
    """Whether ``v`` is text that reads as a finite number (``'0.5'``; not ``'inf'``)."""
    try:
        return isinstance(v, str) and math.isfinite(float(v))
    except ValueError:
        return False


def _not_numeric(score: str, bad: list) -> str:
    """The message for a score column holding values that are not numbers.

    A column of text is text because of some value: the first one that is not a finite
    number in writing (``'inf'``, ``'n/a'``) is named, not a good value such as ``'0.0'``.
    """
    culprit = next((v for v in bad if not _finite_number_text(v)), None)
    if culprit is None:  # every value is a number written as text
        return f"score: {score!r} must be numeric; it holds text such as {bad[0]!r}"
    if isinstance(culprit, str):
        return (f"score: {score!r} must be numeric; it holds {culprit!r}, which is not a "
                "finite number")
    return f"score: {score!r} must be numeric; it holds {culprit!r}"


# ----------------------------------------------------------------------------- LL144
def _iso(v) -> str:
    if isinstance(v, _dt.datetime):
        return v.isoformat(sep=" ")
    if isinstance(v, _dt.date):
        return v.isoformat()
    return str(v)


def date_range(data, column: str, *, where: str | None = None,
               engine: str = "auto") -> tuple[str, str] | None:
    """First and last value of a date column over the rows ``where`` selects.

    One scan through the engine, grouped by the column (one row per distinct value comes
    back, so give a date rather than a timestamp per row).  Dates and timestamps are read
    as such; text is parsed by pandas; ``None`` when no row has a value.  A numeric column
    is refused (its values are no dates: ``0`` to ``1`` is not a date range).

    Examples
    --------
    >>> import pandas as pd
    >>> date_range(pd.DataFrame({"d": ["2023-03-01", "2023-01-15", None]}), "d")
    ('2023-01-15', '2023-03-01')
    """
    if not (isinstance(column, str) and column.strip()):
        raise FairboundError(f"date_column must be a column name; got {column!r}",
                             param="date_column")
    try:
        agg = aggregate(data, AggregateSpec(group=(column,), where=where), engine=engine)
    except FairboundError as exc:
        raise FairboundError(f"date_column: {exc}", param="date_column") from None
    values = list(agg.groups)
    if not values:
        return None
    if all(isinstance(v, _dt.date) for v in values):
        return _iso(min(values)), _iso(max(values))
    number = next((v for v in values if isinstance(v, numbers.Number)), None)
    if number is not None:  # numbers (and booleans) are no dates, whatever their range
        raise FairboundError(f"date_column must be a column of dates, timestamps or date "
                             f"text; got {column!r}, which holds {number!r} (a number)",
                             param="date_column")
    import pandas as pd

    parsed = pd.to_datetime(pd.Series([str(v) for v in values]), errors="coerce",
                            format="mixed")
    if parsed.isna().any():
        bad = values[int(np.flatnonzero(parsed.isna().to_numpy())[0])]
        raise FairboundError(f"date_column: {column!r} holds {bad!r}, which is not a date",
                             param="date_column")
    lo, hi = parsed.min(), parsed.max()
    fmt = (lambda t: t.date().isoformat()) if (parsed.dt.normalize() == parsed).all() \
        else (lambda t: t.isoformat(sep=" "))
    return fmt(lo), fmt(hi)


def ll144_audit(
    data,
    *,
    group: str | Sequence[str],
    prediction: str | None = None,
    label: str | None = None,
    rate: str = "selection_rate",
    versus: str = "highest",
    reference: Any = None,
    threshold: float = 0.8,
    confidence_level: float = 0.95,
    error_control: str = "family",
    method: str = "exact",
    favourable: str = "positive",
    pos_label: Any = None,
    where: str | None = None,
    min_share: float = 0.02,
    score: str | None = None,
    date_column: str | None = None,
    source: str | None = None,
    engine: str = "auto",
) -> LL144Audit:
    """Impact ratios for each category and their intersection, as Local Law 144 lays out.

    :func:`impact_ratios` is run for each group column (e.g. sex, race/ethnicity) and,
    with several columns, for their intersection; each category is its own family (its
    verdicts hold together at ``confidence_level``).  Parameters are those of
    :func:`impact_ratios`, plus:

    Parameters
    ----------
    score : str, optional
        Instead of ``prediction``: a score column (or checked expression); the rate is then
        the law's *scoring rate*, the share of a group scoring above the median score of all
        rows (the same median for every category).
    reference : object or dict, optional
        With one group column, the reference group; with several, a dict from column to
        its reference value (the intersection's reference is their combination).
    date_column : str, optional
        A column whose first and last value give the data's date range.
    source : str, optional
        Where the data came from, in words (shown in the report); the file read otherwise.

    Returns
    -------
    LL144Audit

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["F", "M"] * 200, "race": ["x"] * 200 + ["y"] * 200,
    ...                    "hired": [1, 1, 0, 1] * 100})
    >>> a = ll144_audit(df, group=["sex", "race"], prediction="hired")
    >>> [c.category for c in a.categories]
    ['sex', 'race', 'sex & race']
    """
    groups = _check_columns(group, label, prediction, where, score)
    refs: dict[str, Any] = {}
    if reference is not None:
        if isinstance(reference, dict):
            unknown = [k for k in reference if k not in groups]
            if unknown:
                raise FairboundError(f"reference: {unknown[0]!r} is not a group column "
                                     f"({', '.join(groups)})", param="reference")
            refs = dict(reference)
        elif len(groups) == 1:
            refs = {groups[0]: reference}
        else:
            raise FairboundError("reference: with several group columns give one reference "
                                 "per column (a dict, or COLUMN=VALUE on the command line)",
                                 param="reference")
    cats: list[tuple[Any, Any]] = [(g, refs.get(g)) for g in groups]
    if len(groups) > 1:
        inter = tuple(refs[g] for g in groups) if all(g in refs for g in groups) else None
        cats.append((list(groups), inter))
    dates = None
    if date_column is not None:  # first: a bad date column fails before any interval
        dates = date_range(data, date_column, where=where, engine=engine)
    results = []
    for cat, ref in cats:
        vs = versus
        if _choice(versus, VERSUS, "versus") == "reference" and ref is None:
            raise FairboundError(f"reference: versus='reference' needs a reference for "
                                 f"{' & '.join(cat) if isinstance(cat, list) else cat!r}",
                                 param="reference")
        if ref is not None and vs == "highest":
            vs = "reference"
        results.append(impact_ratios(
            data, group=cat, prediction=prediction, label=label, rate=rate, versus=vs,
            reference=ref, threshold=threshold, confidence_level=confidence_level,
            error_control=error_control, method=method, favourable=favourable,
            pos_label=pos_label, where=where, min_share=min_share, score=score,
            engine=engine))
    if source is not None and not isinstance(source, str):
        raise FairboundError(f"source must be text; got {source!r}", param="source")
    text = " ".join(source.split()) if source else results[0].source
    return LL144Audit(categories=tuple(results), data_source=text, date_column=date_column,
                      date_range=dates)


__all__ = ["ADVERSE", "LL144_SCHEMA", "NOT_ESTIMABLE", "NO_ADVERSE", "NO_EVIDENCE", "RATES",
           "REFERENCE", "SCHEMA", "VERDICTS", "VERSUS", "GroupRate", "ImpactRatio",
           "ImpactRatioResult", "LL144Audit", "date_range", "impact_ratios", "ll144_audit"]
