"""Anytime-valid monitoring of a fairness gap as annotated rows arrive.

Rows come in batches (a file that grows, standard input, or any iterable of frames).  After
every batch the current interval for ``delta = E_A[cost] - E_B[cost]`` is reported, and
monitoring stops as soon as a verdict is reached.  The intervals are betting confidence
sequences, so the probability that *any* of them misses the true gap is at most
``1 - confidence_level``: looking after every batch and stopping early is allowed.  (A
fixed-n interval such as Wald recomputed after every batch does not have this property; see
:func:`fairbound.evaluation.simulate.peeking_error`.)

Two constructions:

* ``method="betting"`` - online pairs: the i-th example of group A that arrives is paired
  with the i-th example of group B, ``Z_i = c_A,i - c_B,i`` has mean ``delta``, and the
  betting confidence sequence of ``(Z + C) / (2C)`` is mapped back.  Unpaired examples wait
  for a partner.
* ``method="betting-union"`` - a confidence sequence per group at ``alpha / 2``; uses every
  example at once, better when one group arrives much more often than the other.

The rows must arrive in an order unrelated to their costs (e.g. as they are annotated, or
shuffled once), with a stable distribution.

References
----------
I. Waudby-Smith and A. Ramdas, JRSS-B 86 (2024) 1-27 (betting confidence sequences).
B. Chugg, S. Cortes-Gomez, B. Wilder and A. Ramdas, "Auditing Fairness by Betting",
NeurIPS 2023 (sequential fairness audits with paired bets).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from fairbound._validate import check_choice, check_float
from fairbound._words import A_DISADVANTAGED, B_DISADVANTAGED, NO_EVIDENCE, WITHIN_TOLERANCE
from fairbound.errors import FairboundError
from fairbound.stats.base import check_confidence_level, check_positive

_METHODS = ("betting", "betting-union")


@dataclass(frozen=True)
class MonitorStep:
    """The state after one batch.

    Attributes
    ----------
    batch : int
        Batch number (1-based).
    n_a, n_b : int
        Annotated examples of each group so far.
    n_pairs : int
        Pairs formed so far (``method="betting"``; 0 for the union method).
    estimate : float
        Current estimate of the gap (NaN before any data).
    low, high : float
        Confidence-sequence bounds: all of them cover the gap at once with the stated
        probability.
    verdict : str
        ``"A disadvantaged"``, ``"B disadvantaged"``, ``"within tolerance"`` or
        ``"not enough evidence"``.
    stop : bool
        Whether a verdict was reached (monitoring stops).
    """

    batch: int
    n_a: int
    n_b: int
    n_pairs: int
    estimate: float
    low: float
    high: float
    verdict: str
    stop: bool

    def to_dict(self) -> dict:
        """Plain-Python form."""
        return {k: (None if isinstance(v, float) and math.isnan(v) else v)
                for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class MonitorResult:
    """All the steps of a monitoring run.

    Attributes
    ----------
    steps : tuple of MonitorStep
        One per batch, the last one with the final verdict.
    group_a, group_b : object
        The groups compared.
    method : str
        ``"betting"`` or ``"betting-union"``.
    confidence_level : float
        Probability that every reported interval covers the gap simultaneously.
    """

    steps: tuple
    group_a: object
    group_b: object
    method: str
    confidence_level: float

    @property
    def final(self) -> MonitorStep | None:
        """The last step (``None`` when no batch arrived)."""
        return self.steps[-1] if self.steps else None

    def to_frame(self):
        """Return one row per batch as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame([s.to_dict() for s in self.steps])

    def to_dict(self) -> dict:
        """Plain-Python form, e.g. for JSON."""
        return {"group_a": _plain(self.group_a), "group_b": _plain(self.group_b),
                "method": self.method, "confidence_level": self.confidence_level,
                "steps": [s.to_dict() for s in self.steps]}


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def _validate_monitor(group_a, group_b, cost_max, confidence_level, method, horizon, tolerance):
    if group_a is None or group_b is None or group_a == group_b:
        raise FairboundError(
            f"group_a and group_b must be two different groups; got {group_a!r} and "
            f"{group_b!r}", param="group_a")
    C = check_positive(cost_max, "cost_max")
    rho = check_confidence_level(confidence_level)
    m = check_choice(method, _METHODS, "method", fold=True)
    if horizon is not None and not (isinstance(horizon, int | np.integer) and horizon >= 1):
        raise FairboundError(f"horizon must be a positive integer; got {horizon!r}",
                             param="horizon")
    if tolerance is not None:
        tolerance = check_float(tolerance, "tolerance", low=0.0, high=C, low_open=True)
    return C, rho, m, horizon, tolerance


@dataclass
class Monitor:
    """Accumulates batches of (group, cost) and reports anytime-valid intervals.

    Parameters
    ----------
    group_a, group_b : object
        The two groups compared (``delta = E_A[cost] - E_B[cost]``).
    cost_max : float, default 1.0
        Largest possible cost ``C``.
    confidence_level : float, default 0.95
        Probability that all the intervals cover the gap at once.
    method : {'betting', 'betting-union'}, default 'betting'
        Online pairs or per-group sequences with a union bound.
    horizon : int, optional
        Tune the bets for this many pairs (or examples per group): tighter near it, still
        valid beyond it (any predictable bets are).  ``None`` uses the open-ended schedule.
    tolerance : float, optional
        Also stop, with verdict ``"within tolerance"``, once the interval lies inside
        ``[-tolerance, tolerance]``.

    Notes
    -----
    Guarantee: for rows arriving independently from a fixed distribution (in an order
    unrelated to cost), ``P(some reported interval misses delta) <= 1 - confidence_level``
    whatever the batch sizes and whenever monitoring stops.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> mon = Monitor(group_a="f", group_b="m", confidence_level=0.95)
    >>> for _ in range(40):
    ...     g = rng.choice(["f", "m"], size=100)
    ...     c = rng.binomial(1, np.where(g == "f", 0.3, 0.1))
    ...     step = mon.update(g, c)
    ...     if step.stop:
    ...         break
    >>> step.verdict
    'A disadvantaged'
    """

    group_a: object
    group_b: object
    cost_max: float = 1.0
    confidence_level: float = 0.95
    method: str = "betting"
    horizon: int | None = None
    tolerance: float | None = None
    _a: list = field(default_factory=list, init=False, repr=False)
    _b: list = field(default_factory=list, init=False, repr=False)
    _steps: list = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        (self.cost_max, self.confidence_level, self.method, self.horizon,
         self.tolerance) = _validate_monitor(self.group_a, self.group_b, self.cost_max,
                                             self.confidence_level, self.method, self.horizon,
                                             self.tolerance)

    @property
    def steps(self) -> tuple:
        """Steps so far."""
        return tuple(self._steps)

    def result(self) -> MonitorResult:
        """Return the steps so far as a :class:`MonitorResult`."""
        return MonitorResult(tuple(self._steps), self.group_a, self.group_b, self.method,
                             self.confidence_level)

    def update(self, groups, costs) -> MonitorStep:
        """Add one batch and return the new state.

        Parameters
        ----------
        groups : array_like
            Group of each row; rows of other groups are ignored.
        costs : array_like
            Cost of each row in ``[0, cost_max]`` (NaN rows are ignored: not in the
            metric's denominator).

        Returns
        -------
        MonitorStep
            Interval and verdict after this batch.

        Examples
        --------
        >>> mon = Monitor(group_a="a", group_b="b")
        >>> step = mon.update(["a", "b", "a", "b"], [1, 0, 1, 0])
        >>> step.n_pairs, step.estimate, step.verdict
        (2, 1.0, 'not enough evidence')
        """
        g = np.asarray(groups, dtype=object)
        c = np.asarray(costs, dtype=float)
        if g.shape != c.shape or g.ndim != 1:
            raise FairboundError(
                f"groups and costs must be 1-D of the same length; got {g.shape} and {c.shape}",
                param="costs")
        keep = ~np.isnan(c)
        bad = keep & ((c < 0) | (c > self.cost_max))
        if bad.any():
            raise FairboundError(
                f"costs must lie in [0, {self.cost_max:g}]; got {float(c[bad][0])!r}",
                param="costs")
        self._a.extend(c[keep & (g == self.group_a)].tolist())
        self._b.extend(c[keep & (g == self.group_b)].tolist())
        step = self._step()
        self._steps.append(step)
        return step

    def _step(self) -> MonitorStep:
        from fairbound.stats._betting_blocks import blocked_capital
        from fairbound.stats.betting import DEFAULT_TRUNCATION, _search_bound, predictable_bets

        C, rho = self.cost_max, self.confidence_level
        alpha = 1.0 - rho
        xa, xb = np.asarray(self._a), np.asarray(self._b)
        n_a, n_b = xa.size, xb.size
        est = xa.mean() - xb.mean() if n_a and n_b else math.nan

        def cs_bounds(x: np.ndarray, a: float) -> tuple[float, float]:
            if x.size == 0:
                return 0.0, 1.0
            lam = predictable_bets(x, alpha=a, horizon=self.horizon)
            thr = math.log(2.0 / a)
            # long 0/1-cost streams: bets constant over blocks (still predictable), much faster
            cap = blocked_capital(x, lam, DEFAULT_TRUNCATION)
            lo = _search_bound(x, lam, thr, upper=False, truncation=DEFAULT_TRUNCATION,
                               tol=1e-6, capital=cap)
            hi = _search_bound(x, lam, thr, upper=True, truncation=DEFAULT_TRUNCATION,
                               tol=1e-6, capital=cap)
            return lo, hi

        if self.method == "betting":
            m = min(n_a, n_b)
            z = (xa[:m] - xb[:m] + C) / (2.0 * C)
            lo, hi = cs_bounds(z, alpha)
            low, high = 2.0 * C * lo - C, 2.0 * C * hi - C
            pairs = m
        else:
            la, ua = cs_bounds(xa / C, alpha / 2.0)
            lb, ub = cs_bounds(xb / C, alpha / 2.0)
            low, high = C * (la - ub), C * (ua - lb)
            pairs = 0
        if self._steps:  # running intersection across batches
            low = max(low, self._steps[-1].low)
            high = min(high, self._steps[-1].high)
        if low > 0:
            verdict = A_DISADVANTAGED
        elif high < 0:
            verdict = B_DISADVANTAGED
        elif self.tolerance is not None and -self.tolerance <= low and high <= self.tolerance:
            verdict = WITHIN_TOLERANCE
        else:
            verdict = NO_EVIDENCE
        return MonitorStep(batch=len(self._steps) + 1, n_a=int(n_a), n_b=int(n_b),
                           n_pairs=int(pairs), estimate=float(est), low=float(low),
                           high=float(high), verdict=verdict, stop=verdict != NO_EVIDENCE)


def row_costs(label, prediction, *, metric: str, pos_label=None, favourable: str = "positive",
              setup=None) -> np.ndarray:
    """Per-row cost of a single-component metric (NaN: row not counted).

    Labels and predictions are read exactly as :func:`fairbound.audit` reads them (see
    :mod:`fairbound.labels`): 0/1 and True/False are binary with positive class 1; other
    values need ``pos_label`` when there are two of them; a value set that does not match
    (0/1 labels against raw scores, three labels against True/False) is an error.  The
    costs come from the metric registry's definitions (one one-hot confusion cell per
    row), so they are exactly those an audit would count.

    Parameters
    ----------
    label, prediction : array_like
        True and predicted labels; missing values (None, NaN, empty text) make the row
        not counted, as an audit excludes them.
    metric : str
        A registered metric with one component (e.g. ``"equal_opportunity"``).
    pos_label : object, optional
        The positive class, as a value or as text (``"1"``, ``"yes"`` for ``True``).  For
        multi-class labels, the class monitored one-vs-rest.
    favourable : {'positive', 'negative'}, default 'positive'
        Whether the positive prediction is the favourable outcome (as in
        :func:`fairbound.audit`); ``"negative"`` when it harms (flagged, high risk).
    setup : fairbound.labels.LabelSetup, optional
        A fixed interpretation (e.g. one built from every value seen so far in a stream);
        ``pos_label`` is then ignored.

    Returns
    -------
    numpy.ndarray
        0/1 cost per row, NaN where the row is outside the metric's denominator.

    Examples
    --------
    >>> row_costs([1, 1, 0, 0], [1, 0, 1, 0], metric="equal_opportunity").tolist()
    [0.0, 1.0, nan, nan]
    >>> row_costs(["yes", "no"], ["yes", "yes"], metric="accuracy_parity",
    ...           pos_label="yes").tolist()
    [0.0, 1.0]
    """
    from fairbound.labels import is_missing, label_setup
    from fairbound.metrics import get_metric, oriented

    m = get_metric(metric)
    if len(m.components) != 1:
        raise FairboundError(
            f"metric must have one component to be monitored; got {m.name!r} with "
            f"{len(m.components)} (monitor its components one at a time)", param="metric")
    comp = oriented(m.components[0], favourable)
    y = np.asarray(label, dtype=object)
    yhat = np.asarray(prediction, dtype=object)
    if y.shape != yhat.shape or y.ndim != 1:
        raise FairboundError(f"label and prediction must be 1-D of the same length; got "
                             f"{y.shape} and {yhat.shape}", param="prediction")
    out = np.full(y.size, np.nan)
    keep = np.array([not (is_missing(a) or is_missing(b)) for a, b in zip(y, yhat,
                                                                          strict=True)],
                    dtype=bool)
    if not keep.any():
        return out
    if setup is None:
        setup = label_setup(y[keep].tolist(), yhat[keep].tolist(), pos_label)
    kk = 0
    if comp.per_class:
        if setup.positive is None:
            raise FairboundError(
                f"pos_label: the labels have classes {list(setup.classes)[:8]}; monitor one "
                "class at a time with pos_label= / --pos-label", param="pos_label")
        kk = setup.index(setup.positive)
    cache: dict = {}

    def index(v, role):
        key = (role, type(v), v)
        if key not in cache:
            cache[key] = setup.index(v, role)
        return cache[key]

    cells: dict[tuple[int, int], list[int]] = {}
    for i in np.flatnonzero(keep):
        yi, pi = index(y[i], "label"), index(yhat[i], "prediction")
        if yi is None or pi is None:
            role, v = ("label", y[i]) if yi is None else ("prediction", yhat[i])
            raise FairboundError(
                f"{role}: value {v!r} is not one of the classes {list(setup.classes)[:8]}",
                param=role)
        cells.setdefault((yi, pi), []).append(i)
    k = len(setup.classes)
    conf = np.zeros((len(cells), 1, k, k))
    for c, (yi, pi) in enumerate(cells):
        conf[c, 0, yi, pi] = 1.0
    n, cnt = comp.counts(conf, kk)
    for c, rows in enumerate(cells.values()):
        out[rows] = cnt[c, 0] if n[c, 0] > 0 else np.nan
    return out


def csv_column_kind(cells: Iterable) -> str:
    """The type DuckDB's CSV reader gives a column of these cells: bool, number or text.

    :func:`fairbound.audit` of the file reads the column so: as a whole, never cell by
    cell.  ``true``/``false``/``yes``/``no`` cells make a boolean column, numbers a numeric
    one, and a column holding anything else (a ``yes`` among 0/1, a ``true`` among numbers)
    is text, every cell as written.  Empty cells (missing) do not count; a column with
    nothing else is text.

    Parameters
    ----------
    cells : iterable of str
        The column's cells (distinct ones suffice).

    Returns
    -------
    str

    Examples
    --------
    >>> csv_column_kind(["0", "1", ""]), csv_column_kind(["yes", "No"])
    ('number', 'bool')
    >>> csv_column_kind(["0", "1", "yes"]), csv_column_kind(["true", "1"])
    ('text', 'text')
    """
    from fairbound.labels import kind, parse_text_value

    kinds: set[str] = set()
    for text in cells:
        v = parse_text_value(text)
        if v is None:
            continue
        kinds.add(kind(v))
        if "text" in kinds or len(kinds) > 1:
            return "text"
    return kinds.pop() if kinds else "text"


def csv_cell_value(text, column_kind: str):
    """One CSV cell as the value DuckDB reads in a column of ``column_kind``.

    Parameters
    ----------
    text : str
        The cell.
    column_kind : {'bool', 'number', 'text'}
        The column's type (see :func:`csv_column_kind`).

    Returns
    -------
    bool, int, float, str or None
        ``None`` for an empty cell; the text as written in a text column; else the cell
        read as a boolean or a number (:func:`fairbound.labels.parse_text_value`).

    Examples
    --------
    >>> csv_cell_value("1", "number"), csv_cell_value("1", "text"), csv_cell_value("", "text")
    (1, '1', None)
    """
    from fairbound.labels import parse_text_value

    if column_kind == "text":
        return None if text is None or text == "" else str(text)
    return parse_text_value(text)


def monitor(
    batches: Iterable,
    *,
    group_a,
    group_b,
    cost_max: float = 1.0,
    confidence_level: float = 0.95,
    method: str = "betting",
    horizon: int | None = None,
    tolerance: float | None = None,
) -> MonitorResult:
    """Monitor a stream of ``(groups, costs)`` batches until a verdict is reached.

    Parameters
    ----------
    batches : iterable of (array_like, array_like)
        Batches of group labels and costs, in arrival order.
    group_a, group_b : object
        Groups compared.
    cost_max, confidence_level, method, horizon, tolerance
        As in :class:`Monitor`.

    Returns
    -------
    MonitorResult
        The steps up to and including the first with a verdict (or all of them).

    Notes
    -----
    Stops reading ``batches`` at the first verdict, so it can drive an open-ended stream.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> def stream():
    ...     while True:
    ...         g = rng.choice(["a", "b"], size=200)
    ...         yield g, rng.binomial(1, np.where(g == "a", 0.1, 0.25))
    >>> r = monitor(stream(), group_a="a", group_b="b")
    >>> r.final.verdict, r.final.high < 0
    ('B disadvantaged', True)
    """
    mon = Monitor(group_a=group_a, group_b=group_b, cost_max=cost_max,
                  confidence_level=confidence_level, method=method, horizon=horizon,
                  tolerance=tolerance)
    for groups, costs in batches:
        if mon.update(groups, costs).stop:
            break
    return mon.result()
