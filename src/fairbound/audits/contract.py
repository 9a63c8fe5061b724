"""The contract every audit result and every comparison row follows.

Rows (:class:`~fairbound.audits.Comparison`,
:class:`~fairbound.audits.ppi.audit.PPIComparison`,
:class:`~fairbound.audits.scores.audit.ScoreComparison`,
:class:`~fairbound.audits.ratios.audit.ImpactRatio`) expose ``group_a``, ``group_b``,
``estimate``, ``low``, ``high``, ``interval_level``, ``verdict``, ``note`` and
``confidence_interval(confidence_level=None)``, which returns a
:class:`~fairbound.stats.ConfidenceInterval`: the interval as computed, or at another level
from the row's own statistics (a one-line :class:`~fairbound.errors.FairboundError` saying
why when the row does not hold them).

Results (:class:`~fairbound.audits.AuditResult`, ``PPIAuditResult``, ``ScoreAuditResult``,
``ImpactRatioResult``, ``LL144Audit``) expose ``comparisons`` (the rows, in order),
``select(...)``, ``to_frame()``, ``to_dict()``, ``to_json(path=None, indent=2)``,
``summary()``, ``report(path)``, ``plot()``, ``recompute(...)`` (no data read) and
``confidence_interval(confidence_level=None)`` (a ``ConfidenceInterval`` of arrays over
the rows).  Their JSON carries a ``schema`` version string and a ``kind`` (one of
:data:`KINDS`); readers accept files without ``kind`` (written before it was added).
``tests/test_result_contract.py`` runs every result type through these checks.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairbound.stats.base import ConfidenceInterval

#: The ``kind`` of each result's JSON.
KINDS = ("gaps", "disagreement", "ppi", "scores", "impact_ratios", "ll144", "proxies",
         "discover")

#: The attributes every comparison row has.
ROW_FIELDS = ("group_a", "group_b", "estimate", "low", "high", "interval_level", "verdict",
              "note")


def json_value(v):
    """``v`` as JSON takes it (a group, a class, a number of a result's dictionary).

    A tuple group is joined by ``" & "``, a numpy scalar becomes Python, NaN ``None`` and
    an infinity ``"inf"`` / ``"-inf"``.

    Examples
    --------
    >>> json_value(("a", 1)), json_value(np.float64(0.5)), json_value(float("nan"))
    ('a & 1', 0.5, None)
    >>> json_value(float("-inf"))
    '-inf'
    """
    if isinstance(v, tuple):
        return " & ".join(map(str, v))
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def plain_value(v):
    """``v`` with a numpy scalar turned into the Python value it holds (NaN, inf kept).

    Examples
    --------
    >>> plain_value(np.float64("nan")), plain_value("a")
    (nan, 'a')
    """
    return v.item() if isinstance(v, np.generic) else v


def gap_row_dict(row, numbers: bool, *, sizes=(), intervals=(), needed=(),
                 method=()) -> dict:
    """The dictionary of a gap row with a prediction-powered and a labeled-only interval.

    The keys the prediction-powered and proxy rows share, in this order: ``metric``,
    ``component``, ``rate``, ``group_a``, ``group_b``, then ``sizes``; ``rate_a``,
    ``rate_b``, ``gap``, ``low``, ``high``, ``labeled_gap``, ``labeled_low``,
    ``labeled_high``, ``width_ratio``, then ``intervals``; ``verdict``,
    ``disadvantaged``, then ``needed``; ``method``, then ``method``'s pairs;
    ``confidence_level``, ``interval_level``, ``rate_is_cost``, ``note``.  Each of
    ``sizes``, ``intervals``, ``needed``, ``method`` is a sequence of ``(key, value)``.
    Values are :func:`json_value` (JSON-ready) or, with ``numbers=True``,
    :func:`plain_value` (floats kept, NaN and inf too); groups are always
    :func:`json_value`.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> row = SimpleNamespace(metric="m", component="tpr", rate="TPR", group_a=("a", 1),
    ...                       group_b="b", rate_a=0.5, rate_b=0.4, estimate=0.1, low=0.0,
    ...                       high=0.2, labeled_estimate=0.1, labeled_low=-0.1,
    ...                       labeled_high=float("inf"), width_ratio=0.5,
    ...                       verdict="not enough evidence", disadvantaged=None,
    ...                       method="ppi++", confidence_level=0.95, interval_level=0.95,
    ...                       rate_is_cost=False, note="")
    >>> d = gap_row_dict(row, False, sizes=[("rows_a", 10)])
    >>> d["group_a"], d["rows_a"], d["labeled_high"], list(d)[-1]
    ('a & 1', 10, 'inf', 'note')
    """
    j = plain_value if numbers else json_value
    items = [("metric", row.metric), ("component", row.component), ("rate", row.rate),
             *sizes, ("rate_a", row.rate_a), ("rate_b", row.rate_b),
             ("gap", row.estimate), ("low", row.low), ("high", row.high),
             ("labeled_gap", row.labeled_estimate), ("labeled_low", row.labeled_low),
             ("labeled_high", row.labeled_high), ("width_ratio", row.width_ratio),
             *intervals, ("verdict", row.verdict), ("disadvantaged", None), *needed,
             ("method", row.method), *method, ("confidence_level", row.confidence_level),
             ("interval_level", row.interval_level), ("rate_is_cost", row.rate_is_cost),
             ("note", row.note)]
    out = {key: j(value) for key, value in items[:3]}
    out["group_a"], out["group_b"] = json_value(row.group_a), json_value(row.group_b)
    out.update((key, j(value)) for key, value in items[3:])
    out["disadvantaged"] = json_value(row.disadvantaged)
    return out


class JsonMethod:
    """``to_json`` of the contract, from the result's ``to_dict()``: a mix-in."""

    __slots__ = ()

    def to_json(self, path=None, *, indent: int = 2) -> str:
        """The result as JSON text; also written to ``path`` when given."""
        from fairbound._io import json_text

        return json_text(self.to_dict(), path, indent=indent)


class IntervalsMethod:
    """``confidence_interval`` of the contract, by :func:`result_intervals`: a mix-in."""

    __slots__ = ()

    def confidence_interval(self, confidence_level: float | None = None
                            ) -> ConfidenceInterval:
        """Every comparison's deciding interval, as arrays in the order of ``comparisons``.

        ``None`` (default): the intervals shown.  A level: the whole result recomputed at
        that level under its error control (see ``recompute``; no data is read).
        """
        return result_intervals(self, confidence_level)


class ComparisonRows:
    """``len(result)`` and ``iter(result)``: the result's ``comparisons``; a mix-in."""

    __slots__ = ()

    def __len__(self) -> int:
        return len(self.comparisons)

    def __iter__(self):
        return iter(self.comparisons)


class ResultMethods(JsonMethod, ComparisonRows, IntervalsMethod):
    """The contract methods that results write alike: mixed into the result dataclasses.

    A result that mixes it in has ``comparisons`` (rows with ``metric`` and ``verdict``)
    and ``to_dict()``; ``len``, iteration and ``confidence_interval`` go over
    ``comparisons``.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> from types import SimpleNamespace
    >>> @dataclass(frozen=True)
    ... class Result(ResultMethods):
    ...     comparisons: tuple
    ...     def to_dict(self):
    ...         return {"n": len(self.comparisons)}
    >>> r = Result((SimpleNamespace(metric="demographic_parity", verdict="no meaningful gap"),))
    >>> len(r.select(metric="dp")), r.to_json(indent=None), len(r)
    (1, '{"n": 1}', 1)
    """

    __slots__ = ()

    def to_frame(self):
        """One row per comparison (pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame([c.to_dict(numbers=True) for c in self.comparisons])

    def select(self, *, metric: str | None = None, verdict: str | None = None) -> tuple:
        """Comparisons filtered by metric name and/or verdict."""
        from fairbound.audits.verdicts import select
        from fairbound.metrics import get_metric

        name = None if metric is None else get_metric(metric).name
        return select(self.comparisons, metric=name, verdict=verdict)


@dataclass(frozen=True)
class ResultFields:
    """The fields the prediction-powered, proxy, score and impact-ratio results share: a base.

    A result type declares its own fields after these (dataclass order), documents them
    all with its own words, and writes its dictionary key by key; build one by keyword.

    Attributes
    ----------
    groups : tuple
        The per-group summaries.
    reference, confidence_level, error_control, n_tests
        The reference group, the requested level, the error control (``"family"``,
        ``"fdr"`` or ``"none"``) and how many comparisons it is taken over.
    columns, n_rows, excluded, engine, source
        What was read: the columns by role, the rows scanned, the rows left out (reason
        -> count), what read them and from where.
    version, created : str
        fairbound version and UTC timestamp.

    Examples
    --------
    >>> @dataclass(frozen=True)
    ... class Result(ResultFields):
    ...     band: str
    >>> r = Result(groups=(), reference=None, confidence_level=0.95, error_control="family",
    ...            n_tests=0, columns={}, n_rows=0, excluded={}, engine="pandas",
    ...            source="df", version="1", created="", band="none")
    >>> r.error_control, r.band
    ('family', 'none')
    """

    groups: tuple
    reference: Any
    confidence_level: float
    error_control: str
    n_tests: int
    columns: dict
    n_rows: int
    excluded: dict
    engine: str
    source: str
    version: str
    created: str


def shown_interval(row, confidence_level: float | None, why: str) -> ConfidenceInterval:
    """A row's interval as shown, for a row that cannot recompute it at another level.

    ``confidence_level`` ``None``: ``(row.low, row.high)``; a valid level: a one-line
    error ``"confidence_level: <why>"`` (an invalid one: the level's own error).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> shown_interval(SimpleNamespace(low=0.1, high=0.3), None, "use recompute")
    ConfidenceInterval(low=0.1, high=0.3)
    >>> shown_interval(SimpleNamespace(low=0.1, high=0.3), 0.9, "use recompute")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: confidence_level: use recompute
    """
    from fairbound.errors import FairboundError
    from fairbound.stats.base import check_confidence_level

    if confidence_level is not None:
        check_confidence_level(confidence_level)
        raise FairboundError(f"confidence_level: {why}", param="confidence_level")
    return ConfidenceInterval(row.low, row.high)


def kept_interval(row, confidence_level: float | None, compute, *, kept: str,
                  audit: str) -> ConfidenceInterval:
    """A row's interval as shown, or recomputed at a level from the ``inputs`` it keeps.

    ``confidence_level`` ``None``: ``(row.low, row.high)``; a level: ``compute(row.inputs,
    level)`` (anything with ``low`` and ``high``), this comparison on its own.  A row
    without inputs (built by hand) is a one-line error: it keeps no ``kept``, run
    ``audit`` again.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> row = SimpleNamespace(low=0.1, high=0.3, inputs=(1, 2))
    >>> kept_interval(row, None, None, kept="counts", audit="a")
    ConfidenceInterval(low=0.1, high=0.3)
    >>> kept_interval(row, 0.9, lambda s, lvl: SimpleNamespace(low=-lvl, high=lvl),
    ...               kept="counts", audit="a")
    ConfidenceInterval(low=-0.9, high=0.9)
    """
    from fairbound.errors import FairboundError
    from fairbound.stats.base import check_confidence_level

    if confidence_level is None:
        return ConfidenceInterval(row.low, row.high)
    rho = check_confidence_level(confidence_level)
    if row.inputs is None:
        raise FairboundError(f"confidence_level: this comparison keeps no {kept} (built by "
                             f"hand), so its interval cannot be recomputed; run {audit} again",
                             param="confidence_level")
    c = compute(row.inputs, rho)
    return ConfidenceInterval(c.low, c.high)


def row_intervals(rows) -> ConfidenceInterval:
    """Every row's ``(low, high)`` as two float arrays, in row order."""
    rows = list(rows)
    return ConfidenceInterval(np.array([float(r.low) for r in rows], dtype=float),
                              np.array([float(r.high) for r in rows], dtype=float))


def result_intervals(result, confidence_level: float | None = None) -> ConfidenceInterval:
    """A result's ``confidence_interval``: every row's interval as arrays, in row order.

    ``None``: the intervals shown; a level: the result recomputed at it under its error
    control (``result.recompute(confidence_level=...)``, no data read).
    """
    res = result if confidence_level is None else result.recompute(
        confidence_level=confidence_level)
    return row_intervals(res.comparisons)


class LegacyResultInterval(ConfidenceInterval):
    """Arrays of intervals that also answer, deprecated, as the recomputed result.

    ``ScoreAuditResult.confidence_interval(confidence_level=...)`` used to return a whole
    result.  It now returns the intervals (as every result's ``confidence_interval``
    does); reading a result attribute from it still works for one release, with a
    :class:`DeprecationWarning` naming :meth:`recompute` as the replacement.
    """

    def __new__(cls, low, high, result, replacement: str):  # noqa: D102
        self = super().__new__(cls, low, high)
        object.__setattr__(self, "_legacy", (result, replacement))
        return self

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        result, replacement = self.__dict__["_legacy"]
        value = getattr(result, name)   # AttributeError stays one
        warnings.warn(f"confidence_interval(confidence_level=...) now returns the intervals "
                      f"(low, high arrays); use {replacement} for the result",
                      DeprecationWarning, stacklevel=2)
        return value


class TupleCompatibleMethod:
    """``row.confidence_interval``: a method that, deprecated, still unpacks as ``(low, high)``.

    ``ScoreComparison.confidence_interval`` used to be a property holding the tuple; it is
    now a method, as on every row.  Unpacking, indexing or comparing the bound method itself
    still gives the tuple for one release, with a :class:`DeprecationWarning`.
    """

    def __init__(self, func):
        self._func = func
        self.__doc__ = func.__doc__
        self.__name__ = func.__name__

    def __set_name__(self, owner, name):
        self._owner = owner.__name__

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self._func
        return _BoundInterval(self._func, obj, getattr(self, "_owner", type(obj).__name__))


class _BoundInterval:
    __slots__ = ("_func", "_obj", "_owner")

    def __init__(self, func, obj, owner):
        self._func, self._obj, self._owner = func, obj, owner

    def __call__(self, confidence_level: float | None = None) -> ConfidenceInterval:
        return self._func(self._obj, confidence_level)

    def _tuple(self) -> ConfidenceInterval:
        warnings.warn(f"{self._owner}.confidence_interval is a method now; call it: "
                      "row.confidence_interval() (the attribute read as a tuple goes in the "
                      "next release)", DeprecationWarning, stacklevel=3)
        return self._func(self._obj, None)

    def __iter__(self):
        return iter(self._tuple())

    def __getitem__(self, i):
        return self._tuple()[i]

    def __len__(self) -> int:
        return len(self._tuple())

    def __eq__(self, other):
        if isinstance(other, tuple):
            return tuple(self._tuple()) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<bound method {self._owner}.confidence_interval of {self._obj!r}>"


__all__ = ["KINDS", "ROW_FIELDS", "LegacyResultInterval", "TupleCompatibleMethod",
           "result_intervals", "row_intervals"]
