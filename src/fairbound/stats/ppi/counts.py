"""What the prediction-powered estimators read, and what they return.

The checks of their input, the sums of one group (:class:`PPIStats`), the counts of a 0/1
classifier's cells (:class:`PPICounts`) and the result types (:class:`PPIInterval`,
:class:`LabelPlan`).

Part of :mod:`fairbound.stats.ppi`; its docstring describes the estimators.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np
from scipy import stats as _st

from fairbound._validate import check_bool, check_choice, check_vector
from fairbound.errors import FairboundError
from fairbound.stats.base import check_confidence_level

#: Ratio metrics ``E[num(Y, pred)] / E[den(Y, pred)]``: 2x2 tables indexed ``[y, pred]``.
RATIO_METRICS: dict[str, tuple[tuple[tuple[int, int], tuple[int, int]], ...]] = {
    "tpr": (((0, 0), (0, 1)), ((0, 0), (1, 1))),   # P(pred = 1 | y = 1)
    "fnr": (((0, 0), (1, 0)), ((0, 0), (1, 1))),   # P(pred = 0 | y = 1)
    "fpr": (((0, 1), (0, 0)), ((1, 1), (0, 0))),   # P(pred = 1 | y = 0)
    "tnr": (((1, 0), (0, 0)), ((1, 1), (0, 0))),   # P(pred = 0 | y = 0)
    "precision": (((0, 0), (0, 1)), ((0, 1), (0, 1))),  # P(y = 1 | pred = 1)
    "fdr": (((0, 1), (0, 0)), ((0, 1), (0, 1))),   # P(y = 0 | pred = 1)
    "npv": (((1, 0), (0, 0)), ((1, 0), (1, 0))),   # P(y = 0 | pred = 0)
    "for": (((0, 0), (1, 0)), ((1, 0), (1, 0))),   # P(y = 1 | pred = 0)
}
_RATIO_ALIASES = {"recall": "tpr", "sensitivity": "tpr", "specificity": "tnr", "ppv": "precision",
                  "equal-opportunity": "tpr", "equal_opportunity": "tpr"}

#: Mean costs of ``(y, pred)`` for :meth:`PPICounts.mean_stats`, 2x2 tables ``[y, pred]``.
MEAN_COSTS: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "error": ((0.0, 1.0), (1.0, 0.0)),
    "base-rate": ((0.0, 0.0), (1.0, 1.0)),
    "false-positive": ((0.0, 1.0), (0.0, 0.0)),
    "false-negative": ((0.0, 0.0), (1.0, 0.0)),
}

#: Why a ratio is not estimable when its denominator's estimate is not positive.
_DENOMINATOR_AT_ZERO = ("the metric's denominator is estimated at 0 or below (too few rows "
                        "in its condition)")

#: Share of ``alpha`` given to the unlabeled mean in the guaranteed intervals (the rest to
#: the rectifier, which is usually the wider piece).
UNLABELED_ALPHA_SHARE = 0.2


# --------------------------------------------------------------------------- validation
def _number(value, param: str) -> float:
    if isinstance(value, bool):
        raise FairboundError(f"{param} must be a finite number; got {value!r}", param=param)
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise FairboundError(f"{param} must be a finite number; got {value!r}",
                             param=param) from None
    if not math.isfinite(x):
        raise FairboundError(f"{param} must be a finite number; got {value!r}", param=param)
    return x


def _count(value, param: str) -> int:
    x = _number(value, param)
    if x < 0 or x != int(x):
        raise FairboundError(f"{param} must be a non-negative whole number; got {value!r}",
                             param=param)
    return int(x)


def _array(values, param: str, cost_max: float) -> np.ndarray:
    a = check_vector(values, param, "numbers in [0, cost_max]")
    bad = a[~((a >= 0) & (a <= cost_max))]  # NaN and inf fail too
    if bad.size:
        raise FairboundError(f"{param} must be finite numbers in [0, {cost_max:g}]; got "
                             f"{float(bad[0])!r}", param=param)
    return a


def _level(confidence_level) -> tuple[float, float]:
    rho = check_confidence_level(confidence_level)
    return rho, float(_st.norm.ppf(0.5 + rho / 2.0))


def _check_tuned(tuned) -> bool:
    return check_bool(tuned, "tuned")


def _check_type(obj, cls, param: str):
    if not isinstance(obj, cls):
        raise FairboundError(f"{param} must be a {cls.__name__}; got {type(obj).__name__}",
                             param=param)
    return obj


def _floats(value, param: str, must: str) -> np.ndarray:
    """``value`` as a float array, or a one-line error saying what ``param`` must be."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise FairboundError(f"{param} must be {must}; got {value!r:.60}",
                             param=param) from None


def _cells(raw, name: str, shape: tuple, *, whole: bool) -> np.ndarray:
    """``raw`` as a read-only float array of ``shape`` with finite non-negative cells.

    ``whole``: the cells must also be whole numbers (counts).  Errors name ``name``.
    """
    a = _floats(raw, name, "an array of numbers").copy()
    if a.shape != shape:
        raise FairboundError(f"{name} must have shape {shape}; got {a.shape}", param=name)
    bad = a[~((a >= 0) & np.isfinite(a))]   # NaN fails too
    if bad.size:
        raise FairboundError(f"{name} must hold finite non-negative numbers; got "
                             f"{float(bad[0])!r}", param=name)
    fractional = a[a != np.round(a)] if whole else ()
    if len(fractional):
        raise FairboundError(f"{name} must hold whole numbers (counts); got "
                             f"{float(fractional[0])!r}", param=name)
    a.setflags(write=False)
    return a


# --------------------------------------------------------------------------- statistics
@dataclass(frozen=True)
class PPIStats:
    """Sufficient statistics of a cost in ``[0, cost_max]`` with a proxy, for one group.

    Parameters
    ----------
    n : int
        Number of labeled rows (gold cost ``Y`` and proxy cost ``f`` both known).
    sum_y, sum_y_sq : float
        Sum and sum of squares of ``Y`` over the labeled rows.
    sum_f, sum_f_sq : float
        Sum and sum of squares of ``f`` over the labeled rows.
    sum_yf : float
        Sum of ``Y f`` over the labeled rows.
    n_unlabeled : int
        Number of unlabeled rows (proxy only).
    sum_f_unlabeled, sum_f_unlabeled_sq : float
        Sum and sum of squares of ``f`` over the unlabeled rows.
    cost_max : float
        The declared maximum cost ``C`` (costs and proxy costs lie in ``[0, C]``).

    Raises
    ------
    FairboundError
        Naming the field, when the numbers are not finite, counts are not whole and
        non-negative, or the sums are impossible for costs in ``[0, C]`` (a sum above
        ``C n``, squares below ``sum^2 / n`` or above ``C sum``, a cross-product outside
        Cauchy-Schwarz).

    Examples
    --------
    >>> s = PPIStats.from_arrays([1, 0, 1, 1], [1, 0, 0, 1], [1, 1, 0])
    >>> s.n, s.n_unlabeled, s.mean_y, round(s.mean_f_unlabeled, 4)
    (4, 3, 0.75, 0.6667)
    """

    n: int
    sum_y: float
    sum_y_sq: float
    sum_f: float
    sum_f_sq: float
    sum_yf: float
    n_unlabeled: int
    sum_f_unlabeled: float
    sum_f_unlabeled_sq: float
    cost_max: float = 1.0

    def __post_init__(self) -> None:
        for fld in fields(self):
            v = getattr(self, fld.name)
            if fld.name in ("n", "n_unlabeled"):
                object.__setattr__(self, fld.name, _count(v, fld.name))
            else:
                object.__setattr__(self, fld.name, _number(v, fld.name))
        C = self.cost_max
        if C <= 0:
            raise FairboundError(f"cost_max must be a positive number; got {C!r}",
                                 param="cost_max")
        for cnt, s, sq, name in ((self.n, self.sum_y, self.sum_y_sq, "sum_y"),
                                 (self.n, self.sum_f, self.sum_f_sq, "sum_f"),
                                 (self.n_unlabeled, self.sum_f_unlabeled,
                                  self.sum_f_unlabeled_sq, "sum_f_unlabeled")):
            tol = 1e-9 * max(1.0, C * C * cnt)
            if s < -tol or s > C * cnt + tol:
                raise FairboundError(f"{name} must be in [0, cost_max * count] = [0, "
                                     f"{C * cnt:g}]; got {s!r}", param=name)
            lo = s * s / cnt if cnt else 0.0
            if sq < lo - tol or sq > C * s + tol:
                raise FairboundError(f"{name}_sq = {sq!r} is impossible for costs in [0, {C:g}] "
                                     f"with {name} = {s!r} over {cnt} rows", param=f"{name}_sq")
        tol = 1e-9 * max(1.0, C * C * self.n)
        if self.sum_yf < -tol or self.sum_yf > C * min(self.sum_y, self.sum_f) + tol:
            raise FairboundError(f"sum_yf = {self.sum_yf!r} is impossible with sum_y = "
                                 f"{self.sum_y!r}, sum_f = {self.sum_f!r}", param="sum_yf")
        if self.n:
            n = self.n
            c = self.sum_yf * n - self.sum_y * self.sum_f
            vy = max(self.sum_y_sq * n - self.sum_y**2, 0.0)
            vf = max(self.sum_f_sq * n - self.sum_f**2, 0.0)
            if c * c > vy * vf + 1e-9 * max(1.0, (C * n) ** 4):
                raise FairboundError("sum_yf is inconsistent with the sums of squares "
                                     "(covariance above Cauchy-Schwarz)", param="sum_yf")

    @classmethod
    def from_arrays(cls, y, f_labeled, f_unlabeled, *, cost_max: float = 1.0) -> PPIStats:
        """Statistics of gold costs ``y``, their proxies ``f_labeled`` and ``f_unlabeled``.

        ``y`` and ``f_labeled`` are paired (the labeled rows, same length); booleans are
        read as 0/1.

        Raises
        ------
        FairboundError
            For values outside ``[0, cost_max]``, NaN, or unpaired lengths.
        """
        C = _number(cost_max, "cost_max")
        if C <= 0:
            raise FairboundError(f"cost_max must be a positive number; got {cost_max!r}",
                                 param="cost_max")
        y = _array(y, "y", C)
        f = _array(f_labeled, "f_labeled", C)
        u = _array(f_unlabeled, "f_unlabeled", C)
        if y.size != f.size:
            raise FairboundError(f"f_labeled must pair with y: {f.size} values for {y.size}",
                                 param="f_labeled")
        return cls(n=int(y.size), sum_y=float(y.sum()), sum_y_sq=float(y @ y),
                   sum_f=float(f.sum()), sum_f_sq=float(f @ f), sum_yf=float(y @ f),
                   n_unlabeled=int(u.size), sum_f_unlabeled=float(u.sum()),
                   sum_f_unlabeled_sq=float(u @ u), cost_max=C)

    # plug-in moments (ddof=0 unless said otherwise)
    @property
    def mean_y(self) -> float:
        """Mean gold cost on the labeled rows (NaN without labeled rows)."""
        return self.sum_y / self.n if self.n else math.nan

    @property
    def mean_f(self) -> float:
        """Mean proxy cost on the labeled rows."""
        return self.sum_f / self.n if self.n else math.nan

    @property
    def mean_f_unlabeled(self) -> float:
        """Mean proxy cost on the unlabeled rows."""
        return self.sum_f_unlabeled / self.n_unlabeled if self.n_unlabeled else math.nan

    @property
    def var_y(self) -> float:
        """Plug-in variance of the gold cost on the labeled rows."""
        return _var(self.n, self.sum_y, self.sum_y_sq)

    @property
    def var_f(self) -> float:
        """Plug-in variance of the proxy cost on the labeled rows."""
        return _var(self.n, self.sum_f, self.sum_f_sq)

    @property
    def var_f_unlabeled(self) -> float:
        """Plug-in variance of the proxy cost on the unlabeled rows."""
        return _var(self.n_unlabeled, self.sum_f_unlabeled, self.sum_f_unlabeled_sq)

    @property
    def var_f_pooled(self) -> float:
        """Variance (``ddof=1``) of the proxy cost over labeled and unlabeled rows together."""
        m = self.n + self.n_unlabeled
        if m < 2:
            return math.nan
        return _var(m, self.sum_f + self.sum_f_unlabeled,
                    self.sum_f_sq + self.sum_f_unlabeled_sq) * m / (m - 1)

    @property
    def cov_yf(self) -> float:
        """Plug-in covariance of gold and proxy costs on the labeled rows."""
        if not self.n:
            return math.nan
        return self.sum_yf / self.n - self.mean_y * self.mean_f

    @property
    def binary(self) -> bool:
        """Whether every gold and proxy cost is 0 or ``cost_max``."""
        C = self.cost_max
        tol = 1e-9 * max(1.0, C * C * (self.n + self.n_unlabeled))
        return (abs(self.sum_y_sq - C * self.sum_y) <= tol
                and abs(self.sum_f_sq - C * self.sum_f) <= tol
                and abs(self.sum_f_unlabeled_sq - C * self.sum_f_unlabeled) <= tol
                and all(abs(s / C - round(s / C)) <= 1e-6
                        for s in (self.sum_y, self.sum_f, self.sum_yf, self.sum_f_unlabeled)))


def _var(n, s, sq) -> float:
    if not n:
        return math.nan
    m = s / n
    return max(sq / n - m * m, 0.0)


def _ratio_tables(metric) -> tuple[np.ndarray, np.ndarray, str]:
    if isinstance(metric, str):
        key = metric.strip().lower()
        key = _RATIO_ALIASES.get(key, key)
        key = check_choice(key, RATIO_METRICS, "metric", note="or a pair of 2x2 tables")
        num, den = RATIO_METRICS[key]
        return np.asarray(num, dtype=float), np.asarray(den, dtype=float), key
    try:
        num, den = (np.asarray(t, dtype=float) for t in metric)
    except (TypeError, ValueError):
        raise FairboundError(f"metric must be a name or a pair of 2x2 tables [y, pred]; got "
                             f"{metric!r:.60}", param="metric") from None
    if num.shape != (2, 2) or den.shape != (2, 2) or not (
            np.all(np.isfinite(num)) and np.all(np.isfinite(den)) and np.all(den >= 0)):
        raise FairboundError("metric tables must be 2x2 [y, pred] of finite numbers, the "
                             "denominator's non-negative", param="metric")
    return num, den, "custom"


class _UnlabeledCells:
    """The rows without a gold label by ``[f, pred]``, as a group's cells keep them.

    What :class:`PPICounts` and :class:`~fairbound.stats.ppi_ipw.WeightedPPICounts` share.
    """

    unlabeled: np.ndarray

    @property
    def n_unlabeled(self) -> int:
        """Number of unlabeled rows."""
        return int(self.unlabeled.sum())


@dataclass(frozen=True, eq=False)
class PPICounts(_UnlabeledCells):
    """Counts of rows by (labeled, gold label, proxy label, prediction) for one group.

    The sufficient statistics of every 0/1 metric with a proxy: ``labeled[y, f, pred]``
    counts the labeled rows, ``unlabeled[f, pred]`` the rows without a gold label.  In SQL
    it is ``SELECT gold IS NOT NULL, gold, proxy, pred, COUNT(*) ... GROUP BY 1, 2, 3, 4``
    (:meth:`from_rows`); :attr:`table` gives the full ``(labeled, y in {0, 1, missing}, f,
    pred)`` table.

    Parameters
    ----------
    labeled : array_like, shape (2, 2, 2)
        Counts of labeled rows indexed ``[y, f, pred]``.
    unlabeled : array_like, shape (2, 2)
        Counts of unlabeled rows indexed ``[f, pred]``.

    Raises
    ------
    FairboundError
        Naming ``labeled`` or ``unlabeled`` when the shape is wrong or a count is not a
        non-negative whole number.

    Examples
    --------
    >>> c = PPICounts.from_arrays(y=[1, 0, None, None], f=[1, 0, 1, 0], pred=[1, 1, 0, 1])
    >>> c.n, c.n_unlabeled
    (2, 2)
    >>> s = c.mean_stats("error")  # error rate as a PPIStats
    >>> s.sum_y, s.sum_f, s.sum_f_unlabeled
    (1.0, 1.0, 2.0)
    """

    labeled: np.ndarray
    unlabeled: np.ndarray

    def __post_init__(self) -> None:
        for name, shape in (("labeled", (2, 2, 2)), ("unlabeled", (2, 2))):
            object.__setattr__(self, name, _cells(getattr(self, name), name, shape, whole=True))

    @classmethod
    def from_table(cls, table) -> PPICounts:
        """From the full table indexed ``[labeled, y (0, 1, 2 = missing), f, pred]``.

        Raises
        ------
        FairboundError
            When the shape is not ``(2, 3, 2, 2)`` or labeled rows have a missing gold label
            (or unlabeled rows a gold label).
        """
        t = _floats(table, "table", "an array of counts")
        if t.shape != (2, 3, 2, 2):
            raise FairboundError(f"table must have shape (2, 3, 2, 2) [labeled, y, f, pred]; "
                                 f"got {t.shape}", param="table")
        if np.any(t[1, 2] != 0) or np.any(t[0, :2] != 0):
            raise FairboundError("table: labeled rows need a gold label and unlabeled rows "
                                 "have none (y = missing exactly when labeled = 0)",
                                 param="table")
        return cls(labeled=t[1, :2], unlabeled=t[0, 2])

    @classmethod
    def from_rows(cls, rows) -> PPICounts:
        """From ``GROUP BY`` rows ``(labeled, y, f, pred, count)``; ``y`` is None when missing.

        Raises
        ------
        FairboundError
            Naming ``rows`` for a malformed row, a value other than 0/1, or a labeled row
            without a gold label.

        Examples
        --------
        >>> c = PPICounts.from_rows([(1, 1, 1, 1, 40), (1, 1, 0, 0, 10), (0, None, 1, 1, 500)])
        >>> int(c.labeled.sum()), int(c.unlabeled[1, 1])
        (50, 500)
        """
        lab = np.zeros((2, 2, 2))
        unl = np.zeros((2, 2))
        for row in rows:
            try:
                labeled, y, f, pred, count = row
            except (TypeError, ValueError):
                raise FairboundError(f"rows must be (labeled, y, f, pred, count); got {row!r}",
                                     param="rows") from None
            missing = y is None or (isinstance(y, float) and math.isnan(y))
            vals = [labeled, f, pred] + ([] if missing else [y])
            if any(isinstance(v, float) and math.isnan(v) for v in vals) or any(
                    v not in (0, 1) for v in vals):
                raise FairboundError(f"rows: labeled, y, f and pred must be 0 or 1 (y None "
                                     f"when missing); got {row!r}", param="rows")
            if bool(labeled) == missing:
                raise FairboundError(f"rows: a labeled row needs a gold label and an "
                                     f"unlabeled row has none; got {row!r}", param="rows")
            k = _count(count, "rows")
            if missing:
                unl[int(f), int(pred)] += k
            else:
                lab[int(y), int(f), int(pred)] += k
        return cls(labeled=lab, unlabeled=unl)

    @classmethod
    def from_arrays(cls, y, f, pred) -> PPICounts:
        """From per-row gold labels (NaN or None when missing), proxy labels, predictions.

        Raises
        ------
        FairboundError
            Naming the array with a value other than 0/1 (or missing, for ``y``) or a
            length different from ``y``'s.
        """
        try:
            ya = np.array([np.nan if v is None else v for v in np.asarray(y, dtype=object)],
                          dtype=float)
        except (TypeError, ValueError):
            raise FairboundError(f"y must be 0/1 or missing; got {y!r:.60}", param="y") from None
        lab_mask = ~np.isnan(ya)
        arrays = {}
        for name, v in (("f", f), ("pred", pred)):
            a = _floats(v, name, "0/1")
            if a.ndim != 1 or a.size != ya.size:
                raise FairboundError(f"{name} must be one-dimensional with {ya.size} values; "
                                     f"got shape {a.shape}", param=name)
            if not np.all((a == 0) | (a == 1)):
                raise FairboundError(f"{name} must be 0/1", param=name)
            arrays[name] = a.astype(np.int64)
        if ya.ndim != 1 or not np.all((ya[lab_mask] == 0) | (ya[lab_mask] == 1)):
            raise FairboundError("y must be one-dimensional 0/1 (NaN or None when missing)",
                                 param="y")
        fi, pi = arrays["f"], arrays["pred"]
        yi = np.where(lab_mask, ya, 0).astype(np.int64)
        lab = np.bincount((yi * 4 + fi * 2 + pi)[lab_mask], minlength=8).reshape(2, 2, 2)
        unl = np.bincount((fi * 2 + pi)[~lab_mask], minlength=4).reshape(2, 2)
        return cls(labeled=lab, unlabeled=unl)

    @property
    def n(self) -> int:
        """Number of labeled rows."""
        return int(self.labeled.sum())

    @property
    def table(self) -> np.ndarray:
        """The full table indexed ``[labeled, y (0, 1, 2 = missing), f, pred]``."""
        t = np.zeros((2, 3, 2, 2))
        t[1, :2] = self.labeled
        t[0, 2] = self.unlabeled
        return t

    def mean_stats(self, cost="error", *, cost_max: float | None = None) -> PPIStats:
        """:class:`PPIStats` of a mean cost ``cost[y, pred]`` (proxy: ``cost[f, pred]``).

        Parameters
        ----------
        cost : str or array_like, shape (2, 2)
            A name (``'error'``, ``'base-rate'``, ``'false-positive'``, ``'false-negative'``)
            or a table of non-negative costs indexed ``[y, pred]``.
        cost_max : float, optional
            The declared maximum (default: the table's maximum, or 1).
        """
        if isinstance(cost, str):
            key = cost.strip().lower().replace("_", "-")
            key = check_choice(key, MEAN_COSTS, "cost", note="or a 2x2 table [y, pred]")
            c = np.asarray(MEAN_COSTS[key], dtype=float)
        else:
            c = _floats(cost, "cost", "a 2x2 table [y, pred]")
            if c.shape != (2, 2) or not (np.all(np.isfinite(c)) and np.all(c >= 0)):
                raise FairboundError("cost must be a 2x2 table [y, pred] of non-negative "
                                     "finite numbers", param="cost")
        if cost_max is None:
            C = float(c.max()) or 1.0
        else:
            C = _number(cost_max, "cost_max")
        L, U = self.labeled, self.unlabeled
        yv = c[:, None, :]          # cost with the gold label, broadcast over f
        fv = c[None, :, :]          # cost with the proxy label, broadcast over y
        return PPIStats(
            n=self.n, sum_y=float((L * yv).sum()), sum_y_sq=float((L * yv**2).sum()),
            sum_f=float((L * fv).sum()), sum_f_sq=float((L * fv**2).sum()),
            sum_yf=float((L * yv * fv).sum()), n_unlabeled=self.n_unlabeled,
            sum_f_unlabeled=float((U * c).sum()), sum_f_unlabeled_sq=float((U * c**2).sum()),
            cost_max=C,
        )


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class PPIInterval:
    """An interval with its estimate; unpacks as ``low, high``.

    Attributes
    ----------
    low, high : float
        The bounds.
    estimate : float
        The point estimate (a mean, or a gap ``A - B``).
    std_error : float
        Its estimated standard error (NaN for guaranteed intervals).
    lam : tuple of float
        The ``lambda`` used, one per group.
    guarantee : {'asymptotic', 'finite-sample'}
        What the interval promises.
    variance : {'plugin', 'jackknife', 'none'}
        How the standard error was estimated ('none' for guaranteed intervals; for a gap,
        'jackknife' when either group's was).
    """

    low: float
    high: float
    estimate: float
    std_error: float
    lam: tuple[float, ...]
    guarantee: str = "asymptotic"
    variance: str = "plugin"

    def __iter__(self):
        """Iterate over ``(low, high)``, so that ``lo, hi = interval`` works."""
        return iter((self.low, self.high))

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low


@dataclass(frozen=True)
class LabelPlan:
    """Gold labels per group, and the gap's predicted standard error with them.

    Attributes
    ----------
    n_a, n_b : int
        Gold labels in groups A and B (already collected ones included).
    total : int
        ``n_a + n_b``.
    std_error : float
        Predicted standard error of the gap estimate (multiply by ``z`` for a half-width).
    """

    n_a: int
    n_b: int
    total: int
    std_error: float
