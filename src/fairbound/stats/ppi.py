"""Prediction-powered intervals for a gap between two groups, from sufficient statistics.

Setting.  In each group some rows carry a gold label and a proxy label (a stronger model,
an LLM judge, a crowd majority), the others only the proxy.  For a cost ``Y`` in
``[0, C]`` computed with the gold label and the same cost ``f`` computed with the proxy,
the labeled rows give ``(Y_i, f_i)``, ``i = 1..n``, and the unlabeled rows ``f_j``,
``j = 1..N``.  Prediction-powered inference (PPI) estimates ``E[Y]`` by

    theta(lambda) = lambda mean_j(f_j) + mean_i(Y_i - lambda f_i),

the proxy's mean on the unlabeled rows corrected by the *rectifier* ``Y - lambda f`` measured
on the labeled rows.  Its expectation is ``E[Y]`` for every fixed ``lambda`` and every proxy,
however biased, because the labeled and the unlabeled rows come from the same
distribution.  Its variance is

    Var theta = lambda^2 Var(f) / N + Var(Y - lambda f) / n,

which is smaller than the labeled-only ``Var(Y) / n`` when the proxy tracks the gold cost.
``lambda = 1`` is the original PPI (Angelopoulos et al. 2023); PPI++ (Angelopoulos, Duchi &
Zrnic 2023) minimises the variance over ``lambda``:

    lambda* = Cov(Y, f) / ((1 + n / N) Var(f)),

estimated by plug-in exactly as the reference implementation ``ppi_py`` does
(``ppi_mean_ci(..., lam=None)``: covariance over the labeled rows with ``ddof=0``, variance
of the proxy over labeled and unlabeled rows together with ``ddof=1``), clipped to
``[0, 1]``.  A useless proxy (``Cov = 0``) gets ``lambda`` near 0 and the interval is then
close to the labeled-only one; a constant proxy gets ``lambda = 0``; with no unlabeled rows
the tuned estimate is the labeled-only one.  The interval is ``theta +- z se``.

Standard error.  ``variance='plugin'`` is PPI++'s (and ``ppi_py``'s): the variance above at
the estimated ``lambda`` with ``ddof=0`` moments.  It ignores the noise of the estimated
``lambda``, which is second order but not small with few labels: with 60 labels of 600 rows
and a 98%-agreement 0/1 proxy, ``lambda`` has a standard deviation of about 0.17, the
estimate's spread is 25% above the plug-in standard error and 95% intervals cover about
90% of the time.  ``variance='jackknife'`` is the two-sample jackknife
``sum over parts ((m - 1) / m) sum_i (theta_(-i) - mean theta_(-.))^2`` (parts: labeled and
unlabeled rows), with ``lambda`` re-tuned on every leave-one-out sample, so it includes that
noise; with 0/1 costs the leave-one-out samples are one per non-empty cell of the counts,
so it is exact from the sufficient statistics (4 + 2 cells for a mean, 8 + 4 for a ratio).
The default ``'auto'`` is the jackknife for 0/1 costs and the plug-in otherwise (nine sums
do not determine the leave-one-out estimates).  Measured (``benchmarks/ppi_gain.py``):
coverage back to nominal for good proxies at 60 labels, slightly conservative (0.97) for
a perfect proxy, about the plug-in's width from a few hundred labels on.  The point estimate
is the same either way (``ppi_py``'s).

Everything above is a function of nine numbers per group, :class:`PPIStats`:
``n, sum Y, sum Y^2, sum f, sum f^2, sum Y f`` over the labeled rows and
``N, sum f, sum f^2`` over the unlabeled rows.

Gaps.  Groups are independent, so the gap estimate ``theta_A - theta_B`` has variance
``Var theta_A + Var theta_B`` and each group's ``lambda`` is tuned on its own statistics
(which minimises the sum) -- :func:`ppi_gap_interval`; :func:`classical_gap_interval` is
the labeled-only Wald interval with the same conventions, for comparison.

Ratio metrics.  TPR, FPR, precision... are means conditional on the label,
``R = E[U] / E[V]`` with ``U = num(Y, pred)`` and ``V = den(Y, pred)`` (TPR: ``U = Y pred``,
``V = Y``).  On unlabeled rows the proxy label ``f`` replaces ``Y`` in both.  Numerator and
denominator are PPI means with one common ``lambda``, ``R = theta_U / theta_V``, and the
variance is the delta method with the *joint* covariance of the two estimates,

    Sigma = lambda^2 Cov_unlabeled(U~, V~) / N + Cov_labeled(U - lambda U~, V - lambda V~) / n,
    Var R = g' Sigma g,   g = (1 / theta_V, -theta_U / theta_V^2),

(``U~, V~``: the same with the proxy label).  This is the M-estimator of ``R`` (estimating
equation ``E[U - R V] = 0``) and ``g' Sigma g`` its sandwich variance; PPI++ tunes ``lambda``
on the influence function ``phi = U - R V``: ``lambda* = Cov(phi, phi~) / ((1 + n/N)
Var(phi~))`` with a pilot ``R`` from ``lambda = 1``, as ``ppi_py`` does for its
M-estimators.  For 0/1 gold labels, proxy labels and predictions the sufficient statistics
are the counts of :class:`PPICounts`: per group, rows by (labeled, gold, proxy,
prediction), a ``GROUP BY`` in any engine.

A guaranteed variant.  :func:`ppi_guaranteed_gap_interval` holds for every sample size
(no CLT) with a ``lambda`` fixed in advance (default 1; a tuned ``lambda`` would depend on
the data): confidence intervals for the unlabeled mean of ``f`` and for the rectifier mean
``E[Y - lambda f]`` in each group, combined by a union bound (the error ``alpha`` split
over the pieces) and interval arithmetic.  For 0/1 costs with ``lambda = 1`` the pieces
are exact binomial: Clopper-Pearson for ``E f``, and for the rectifier
``E[Y - f] = pi (2 q - 1)`` (``pi``: probability of disagreement, ``q``: share of the
disagreements where the gold cost is 1) a Clopper-Pearson interval for ``pi`` and one for
``q`` given the number of disagreements, combined over the rectangle.  For other costs each
piece is the intersection of a Hoeffding and a Maurer-Pontil empirical-Bernstein interval.
It is conservative: widths add linearly instead of in quadrature, ``alpha`` is split over
up to six pieces, and the rectangle scales the spread of ``q`` by the upper end of ``pi``.
Measured: 2 to 2.5 times the asymptotic PPI++ width for one mean, 3.5 to 4 times for a
gap; against the guaranteed labeled-only interval (``lam=0``, Clopper-Pearson) it is
narrower only for near-perfect proxies (agreement of 98% or more, with many more unlabeled
than labeled rows: 0.85 of the width at 98% and 1,000 of 21,000 rows labeled, 0.72 at
99%, 1.08 at 95%, 1.4 at 90%).  It is a floor to build on, not yet a useful default.

Planning.  With ``M = n + N`` rows in a group and gold labels drawn from it, the tuned
variance for ``n`` labels is ``min over lambda in [0, 1]`` of
``(Var Y - 2 lambda Cov + lambda^2 Var f) / n + lambda^2 Var f / (M - n)`` (unclipped:
``Var(Y) ((1 - rho^2) / n + rho^2 / M)``), convex in ``n``;
:func:`neyman_allocation` splits a labeling budget between the groups to minimise the gap's
variance (Neyman allocation, ``n_g`` roughly proportional to ``sd(Y_g) sqrt(1 - rho_g^2)``)
and :func:`labels_needed` finds the fewest labels for a target half-width.  The moments are
those measured on the current data, and the variance is the plug-in one (no allowance for
the noise of the estimated ``lambda``), so plans below about a hundred labels per group are
optimistic; with a near-perfect proxy a plan can ask for very few labels, where the CLT
intervals are not to be trusted (use the guaranteed interval there).

Guarantee: the asymptotic intervals are CLT intervals (coverage tends to the level as ``n``
and ``N`` grow; measured in ``tests/stats/test_ppi.py``); the guaranteed ones hold for every
``n`` and ``N``.  Both assume that, within each group, the labeled rows are a uniformly
random sample of the rows (labeled and unlabeled rows from the same distribution; groups
independent); :func:`proxy_shift_pvalue` checks the part that can be checked, the proxy's
distribution on both sides.

Not covered: labels chosen by the proxy's uncertainty or by any other rule than uniform
sampling within a group (inverse-probability weights: :mod:`fairbound.stats.ppi_ipw`);
tuned ``lambda`` in the guaranteed intervals; ratio metrics in the guaranteed intervals;
small labeled sets (the CLT intervals can under-cover when a group has few labeled rows
or a rate near 0 or 1, like Wald: 0.93 at 95% with 60 labels and an 80%-agreement proxy,
where the labeled-only Wald interval also gives 0.93).

References
----------
A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic.
"Prediction-powered inference." Science 382 (2023) 669-674.

A. N. Angelopoulos, J. C. Duchi and T. Zrnic. "PPI++: Efficient prediction-powered
inference." arXiv:2311.01453 (2023).

J. Gao and J. Gronsbell. "Reliable fairness auditing with semi-supervised inference."
(2025) -- the same estimator for fairness metrics.

A. Maurer and M. Pontil. "Empirical Bernstein bounds and sample variance penalization."
COLT 2009.

J. Neyman. "On the two different aspects of the representative method." Journal of the
Royal Statistical Society 97 (1934) 558-625.

Examples
--------
A proxy that agrees with the gold cost on 90% of rows, 200 gold labels and 2,000
unlabeled rows per group:

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> def group(p, n=200, N=2000):
...     y = rng.random(n + N) < p
...     f = np.where(rng.random(n + N) < 0.9, y, ~y)
...     return PPIStats.from_arrays(y[:n], f[:n], f[n:])
>>> a, b = group(0.30), group(0.20)
>>> ppi = ppi_gap_interval(a, b, 0.95)
>>> lab = classical_gap_interval(a, b, 0.95)
>>> round(ppi.low, 3), round(ppi.high, 3), round(ppi.width / lab.width, 2)
(0.029, 0.152, 0.75)
>>> lo, hi = ppi  # unpacks like every interval in fairbound
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np
from scipy import stats as _st

from fairbound._validate import check_bool, check_choice
from fairbound.errors import FairboundError
from fairbound.stats.base import NotEstimable, check_confidence_level

__all__ = [
    "RATIO_METRICS",
    "LabelPlan",
    "PPICounts",
    "PPIInterval",
    "PPIStats",
    "classical_gap_interval",
    "classical_mean_interval",
    "classical_ratio_gap_interval",
    "labels_needed",
    "neyman_allocation",
    "ppi_gap_interval",
    "ppi_guaranteed_gap_interval",
    "ppi_guaranteed_mean_interval",
    "ppi_lambda",
    "ppi_mean_interval",
    "ppi_ratio_gap_interval",
    "ppi_ratio_interval",
    "proxy_shift_pvalue",
]

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
    try:
        a = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise FairboundError(f"{param} must be numbers in [0, cost_max]; got {values!r:.60}",
                             param=param) from None
    if a.ndim != 1:
        raise FairboundError(f"{param} must be one-dimensional; got shape {a.shape}",
                             param=param)
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


def _cells(raw, name: str, shape: tuple, *, whole: bool) -> np.ndarray:
    """``raw`` as a read-only float array of ``shape`` with finite non-negative cells.

    ``whole``: the cells must also be whole numbers (counts).  Errors name ``name``.
    """
    try:
        a = np.array(raw, dtype=float)
    except (TypeError, ValueError):
        raise FairboundError(f"{name} must be an array of numbers; got {raw!r:.60}",
                             param=name) from None
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


@dataclass(frozen=True, eq=False)
class PPICounts:
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
        try:
            t = np.asarray(table, dtype=float)
        except (TypeError, ValueError):
            raise FairboundError(f"table must be an array of counts; got {table!r:.60}",
                                 param="table") from None
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
            try:
                a = np.asarray(v, dtype=float)
            except (TypeError, ValueError):
                raise FairboundError(f"{name} must be 0/1; got {v!r:.60}", param=name) from None
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
    def n_unlabeled(self) -> int:
        """Number of unlabeled rows."""
        return int(self.unlabeled.sum())

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
            try:
                c = np.asarray(cost, dtype=float)
            except (TypeError, ValueError):
                raise FairboundError(f"cost must be a 2x2 table [y, pred]; got {cost!r:.60}",
                                     param="cost") from None
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


# --------------------------------------------------------------------------- means
def _lambda(n, sy, sf, syf, sff, N, su, suu) -> float:
    """PPI++ ``lambda`` from raw sums (``ppi_py``'s plug-in, clipped to [0, 1])."""
    m = n + N
    if N == 0 or n == 0 or m < 2:
        return 0.0
    vp = max((sff + suu) / m - ((sf + su) / m) ** 2, 0.0) * m / (m - 1)
    if not vp > 0:
        return 0.0
    cov = syf / n - (sy / n) * (sf / n)
    return float(min(max(cov / ((1.0 + n / N) * vp), 0.0), 1.0))


def ppi_lambda(stats: PPIStats) -> float:
    """PPI++'s power-tuning ``lambda`` for a mean, clipped to ``[0, 1]``.

    ``Cov(Y, f) / ((1 + n / N) Var(f))`` with the covariance over the labeled rows
    (``ddof=0``) and the proxy's variance over all rows (``ddof=1``), exactly as
    ``ppi_py.ppi_mean_ci(..., lam=None)``.  0 when there are no unlabeled rows or the proxy
    is constant.

    Examples
    --------
    >>> s = PPIStats.from_arrays([0, 1, 1, 0, 1], [0, 1, 1, 1, 1], [0, 1, 1, 0])
    >>> round(ppi_lambda(s), 4)
    0.2133
    """
    _check_type(stats, PPIStats, "stats")
    if stats.n < 2:
        raise NotEstimable("PPI needs at least 2 labeled rows")
    s = stats
    return _lambda(s.n, s.sum_y, s.sum_f, s.sum_yf, s.sum_f_sq, s.n_unlabeled,
                   s.sum_f_unlabeled, s.sum_f_unlabeled_sq)


def _mean_core(raw, tuned: bool) -> tuple[float, float, float]:
    """(estimate, plug-in variance, lambda) from ``(n, sy, syy, sf, sff, syf, N, su, suu)``."""
    n, sy, syy, sf, sff, syf, N, su, suu = raw
    lam = _lambda(n, sy, sf, syf, sff, N, su, suu) if tuned else 1.0
    my, mf = sy / n, sf / n
    vy, vf = max(syy / n - my * my, 0.0), max(sff / n - mf * mf, 0.0)
    cov = syf / n - my * mf
    est = my - lam * mf
    var = max(vy - 2 * lam * cov + lam * lam * vf, 0.0) / n
    if lam:
        mu = su / N
        est += lam * mu
        var += lam * lam * max(suu / N - mu * mu, 0.0) / N
    return est, var, lam


def _jackknife_term(loo: np.ndarray, ks: np.ndarray, size: float) -> float:
    """One part's term of the two-sample jackknife variance.

    ``(m - 1) / m`` times the sum of squares of the leave-one-out estimates ``loo`` about
    their mean, each counted ``ks`` times (the rows of its cell) out of ``m = size``.
    """
    m = float(loo @ ks) / size
    return (size - 1) / size * float(((loo - m) ** 2) @ ks)


def _mean_jackknife(raw, C: float) -> float:
    """Two-sample jackknife variance of the PPI++ mean, 0/1 costs (``lambda`` re-tuned)."""
    n, sy, syy, sf, sff, syf, N, su, suu = raw
    n11 = round(syf / (C * C))
    n10, n01 = round(sy / C) - n11, round(sf / C) - n11
    lab = {(C, C): n11, (C, 0.0): n10, (0.0, C): n01, (0.0, 0.0): n - n11 - n10 - n01}
    k1 = round(su / C)
    unl = {C: k1, 0.0: N - k1}
    total = 0.0
    for size, leave in (
        (n, [((n - 1, sy - y, syy - y * y, sf - f, sff - f * f, syf - y * f, N, su, suu), k)
             for (y, f), k in lab.items() if k > 0]),
        (N, [((n, sy, syy, sf, sff, syf, N - 1, su - f, suu - f * f), k)
             for f, k in unl.items() if k > 0]),
    ):
        if size < 2:
            continue
        ests = np.array([_mean_core(r, True)[0] for r, _ in leave])
        w = np.array([k for _, k in leave], dtype=float)
        total += _jackknife_term(ests, w, size)
    return total


_VARIANCES = ("auto", "jackknife", "plugin")


def _check_variance(variance) -> str:
    return check_choice(variance, _VARIANCES, "variance", fold=True)


def _mean_parts(stats: PPIStats, tuned: bool, variance: str = "plugin"):
    """(estimate, variance, lambda, variance method) of the PPI(++) mean."""
    if stats.n < 2:
        raise NotEstimable("PPI needs at least 2 labeled rows")
    if not tuned and stats.n_unlabeled == 0:
        raise NotEstimable("PPI with lambda = 1 needs unlabeled rows (tuned=True falls "
                           "back to the labeled rows alone)")
    s = stats
    raw = (s.n, s.sum_y, s.sum_y_sq, s.sum_f, s.sum_f_sq, s.sum_yf, s.n_unlabeled,
           s.sum_f_unlabeled, s.sum_f_unlabeled_sq)
    est, var, lam = _mean_core(raw, tuned)
    if variance == "jackknife" and not s.binary:
        raise FairboundError("variance='jackknife' needs 0/1 costs (the rows' values); use "
                             "'plugin' or 'auto'", param="variance")
    if tuned and variance in ("auto", "jackknife") and s.binary:
        return est, _mean_jackknife(raw, s.cost_max), lam, "jackknife"
    return est, var, lam, "plugin"


def ppi_mean_interval(stats: PPIStats, confidence_level: float = 0.95, *,
                      tuned: bool = True, variance: str = "auto") -> PPIInterval:
    """Prediction-powered CLT interval for one group's mean cost ``E[Y]``.

    Parameters
    ----------
    stats : PPIStats
        The group's statistics.
    confidence_level : float
        In (0, 1).
    tuned : bool
        PPI++ power tuning (default); ``False`` is the original PPI (``lambda = 1``).
    variance : {'auto', 'jackknife', 'plugin'}
        Standard error of the tuned estimate: ``'plugin'`` is PPI++'s (and ``ppi_py``'s)
        plug-in variance at the estimated ``lambda``; ``'jackknife'`` the two-sample
        jackknife, which re-tunes ``lambda`` on every leave-one-out sample and so counts
        the noise of the estimated ``lambda`` (computable from the statistics of 0/1 costs
        only); ``'auto'`` (default) is the jackknife for 0/1 costs, the plug-in otherwise.
        With ``tuned=False`` it is always the plug-in (nothing is estimated).

    Returns
    -------
    PPIInterval
        Asymptotic.  With ``variance='plugin'`` it agrees with ``ppi_py.ppi_mean_ci``
        (``alpha = 1 - confidence_level``, ``lam=None`` when tuned, ``lam=1`` otherwise) to
        rounding; the estimate always does.

    Raises
    ------
    NotEstimable
        With fewer than 2 labeled rows (or no unlabeled rows and ``tuned=False``).

    Examples
    --------
    >>> s = PPIStats.from_arrays([0, 1, 1, 0, 1], [0, 1, 1, 1, 1], [0, 1, 1, 0])
    >>> r = ppi_mean_interval(s, 0.9, variance="plugin")
    >>> round(r.estimate, 4), round(r.low, 4), round(r.high, 4)
    (0.536, 0.1987, 0.8733)
    >>> r = ppi_mean_interval(s, 0.9)  # 0/1 costs: jackknife standard error
    >>> r.variance, round(r.low, 4), round(r.high, 4)
    ('jackknife', 0.0941, 0.9779)
    """
    _check_type(stats, PPIStats, "stats")
    _, z = _level(confidence_level)
    return _one_group(z, lambda: _mean_parts(stats, _check_tuned(tuned),
                                             _check_variance(variance)))


def classical_mean_interval(stats: PPIStats, confidence_level: float = 0.95) -> PPIInterval:
    """Labeled-only Wald interval for ``E[Y]`` (plug-in ``ddof=0`` variance, as ``ppi_py``).

    Examples
    --------
    >>> s = PPIStats.from_arrays([0, 1, 1, 0, 1], [0, 1, 1, 1, 1], [0, 1, 1, 0])
    >>> r = classical_mean_interval(s, 0.9)
    >>> round(r.low, 4), round(r.high, 4)
    (0.2396, 0.9604)
    """
    _check_type(stats, PPIStats, "stats")
    _, z = _level(confidence_level)
    if stats.n < 2:
        raise NotEstimable("the labeled-only interval needs at least 2 labeled rows")
    return _wald(stats.mean_y, math.sqrt(stats.var_y / stats.n), z, (0.0,))


def ppi_gap_interval(a: PPIStats, b: PPIStats, confidence_level: float = 0.95, *,
                     tuned: bool = True, variance: str = "auto") -> PPIInterval:
    """Prediction-powered CLT interval for ``E_A[Y] - E_B[Y]`` (independent groups).

    Each group's PPI(++) estimate with its own ``lambda``; the variances add.

    Parameters
    ----------
    a, b : PPIStats
        Statistics of groups A and B.
    confidence_level : float
        In (0, 1).
    tuned : bool
        PPI++ power tuning per group (default); ``False``: ``lambda = 1``.
    variance : {'auto', 'jackknife', 'plugin'}
        Standard error of each group's tuned estimate, as in :func:`ppi_mean_interval`
        (``'auto'``, the default: the jackknife for 0/1 costs, the plug-in otherwise).

    Raises
    ------
    NotEstimable
        When a group has fewer than 2 labeled rows.

    Examples
    --------
    >>> a = PPIStats.from_arrays([1, 1, 0, 1], [1, 1, 0, 0], [1, 1, 1, 0, 1])
    >>> b = PPIStats.from_arrays([0, 1, 0, 0], [0, 1, 0, 1], [0, 0, 1, 0, 0])
    >>> r = ppi_gap_interval(a, b)
    >>> round(r.estimate, 4), [round(x, 4) for x in r.lam]
    (0.6667, [0.2778, 0.2778])
    """
    _check_type(a, PPIStats, "a")
    _check_type(b, PPIStats, "b")
    _, z = _level(confidence_level)
    tuned = _check_tuned(tuned)
    variance = _check_variance(variance)
    return _two_groups(a, b, z, lambda g: _mean_parts(g, tuned, variance))


def _rate_tables(metric) -> tuple[np.ndarray, np.ndarray]:
    """``(num, den)`` of a ratio metric, or ``(error, ones)`` for ``'error'`` (a mean)."""
    if isinstance(metric, str) and metric.strip().lower() == "error":
        return np.array([[0.0, 1.0], [1.0, 0.0]]), np.ones((2, 2))
    num, den, _ = _ratio_tables(metric)
    return num, den


def _wald(est: float, se: float, z: float, lam: tuple[float, ...],
          variance: str = "plugin") -> PPIInterval:
    """The asymptotic interval ``est +- z se``."""
    return PPIInterval(est - z * se, est + z * se, est, se, lam, variance=variance)


def _with_method(result) -> tuple:
    """(estimate, variance, lambda, variance method); a result without the method is plug-in."""
    p = tuple(result)
    return p if len(p) == 4 else (*p, "plugin")


def _each_group(a, b, part) -> list:
    """``[part(a), part(b)]``; a group that is not estimable is named (A or B) in the error."""
    out = []
    for label, g in (("A", a), ("B", b)):
        try:
            out.append(part(g))
        except NotEstimable as exc:
            raise NotEstimable(f"group {label}: {exc}") from None
    return out


def _one_group(z, part) -> PPIInterval:
    """One group's interval from ``part()`` = (estimate, variance, lambda[, variance method])."""
    est, var, lam, how = _with_method(part())
    return _wald(est, math.sqrt(var), z, (lam,), how)


def _two_groups(a, b, z, part) -> PPIInterval:
    """Gap interval from ``part(group)`` = (estimate, variance, lambda[, variance method]).

    A group that is not estimable is named (A or B) in the error.
    """
    pa, pb = (_with_method(p) for p in _each_group(a, b, part))
    how = "jackknife" if "jackknife" in (pa[3], pb[3]) else "plugin"
    return _wald(pa[0] - pb[0], math.sqrt(pa[1] + pb[1]), z, (pa[2], pb[2]), how)


def _rate_interval(counts, cls, confidence_level, metric, part) -> PPIInterval:
    """One group's interval for a rate of :func:`_rate_tables` (a ratio or ``'error'``).

    ``counts`` must be a ``cls``; ``part(counts, num, den)`` returns (estimate, variance,
    lambda) for the metric's tables.
    """
    _check_type(counts, cls, "counts")
    _, z = _level(confidence_level)
    num, den = _rate_tables(metric)
    return _one_group(z, lambda: part(counts, num, den))


def _rate_gap_interval(a, b, cls, confidence_level, metric, part) -> PPIInterval:
    """Gap interval for a rate of :func:`_rate_tables`: :func:`_rate_interval` per group."""
    _check_type(a, cls, "a")
    _check_type(b, cls, "b")
    _, z = _level(confidence_level)
    num, den = _rate_tables(metric)
    return _two_groups(a, b, z, lambda g: part(g, num, den))


def _tuned_ratio(theta, best_lambda, num, den, proxy: bool) -> tuple[float, float, float]:
    """(ratio, denominator, lambda) of ``E[num] / E[den]`` from PPI means with one ``lambda``.

    ``theta(g, lam)`` is the PPI estimate of the mean of the 2x2 table ``g[y, pred]`` at
    ``lam``; ``best_lambda(h)`` the ``lambda`` in ``[0, 1]`` that minimises the variance of
    ``theta(h, .)``.  With ``proxy``, ``lambda`` is tuned on the influence function
    ``h = num - R den`` with a pilot ``R`` from ``lambda = 1`` (0 when the pilot is not
    estimable); without, ``lambda = 0`` (labeled only).

    Raises
    ------
    NotEstimable
        When the denominator is estimated at 0 or below.
    """
    lam = 0.0
    if proxy:
        pilot_v = theta(den, 1.0)
        pilot = theta(num, 1.0) / pilot_v if pilot_v > 0 else math.nan
        lam = best_lambda(num - pilot * den) if math.isfinite(pilot) else 0.0
    tv = theta(den, lam)
    if not tv > 0:
        raise NotEstimable(_DENOMINATOR_AT_ZERO)
    return theta(num, lam) / tv, tv, lam


def classical_gap_interval(a: PPIStats, b: PPIStats,
                           confidence_level: float = 0.95) -> PPIInterval:
    """Labeled-only Wald interval for ``E_A[Y] - E_B[Y]`` (``ddof=0`` variances).

    The comparison for :func:`ppi_gap_interval`: the same conventions without the proxy.

    Examples
    --------
    >>> a = PPIStats.from_arrays([1, 1, 0, 1], [1, 1, 0, 0], [1, 1, 1, 0, 1])
    >>> b = PPIStats.from_arrays([0, 1, 0, 0], [0, 1, 0, 1], [0, 0, 1, 0, 0])
    >>> lo, hi = classical_gap_interval(a, b)
    >>> round(lo, 4), round(hi, 4)
    (-0.1001, 1.1001)
    """
    ra = classical_mean_interval(_check_type(a, PPIStats, "a"), confidence_level)
    rb = classical_mean_interval(_check_type(b, PPIStats, "b"), confidence_level)
    _, z = _level(confidence_level)
    return _wald(ra.estimate - rb.estimate, math.hypot(ra.std_error, rb.std_error), z,
                 (0.0, 0.0))


def proxy_shift_pvalue(stats: PPIStats) -> float:
    """Two-sided p-value that the proxy has the same mean on labeled and unlabeled rows.

    A check of the assumption that gold labels are a random sample of the group: if they
    are, the proxy's distribution is the same on both sides, and a small p-value says they
    are not (a z-test of the two means with ``ddof=1`` variances).  A large p-value does not
    prove random sampling.  NaN when either side has fewer than 2 rows.

    Examples
    --------
    >>> s = PPIStats.from_arrays([1, 0] * 50, [1, 0] * 50, [1, 1, 1, 0] * 100)
    >>> proxy_shift_pvalue(s) < 0.001
    True
    """
    _check_type(stats, PPIStats, "stats")
    n, N = stats.n, stats.n_unlabeled
    if n < 2 or N < 2:
        return math.nan
    v = stats.var_f * n / (n - 1) / n + stats.var_f_unlabeled * N / (N - 1) / N
    d = stats.mean_f - stats.mean_f_unlabeled
    if v <= 0:
        return 1.0 if d == 0 else 0.0
    return float(2 * _st.norm.sf(abs(d) / math.sqrt(v)))


# --------------------------------------------------------------------------- ratios
def _wmean(x, w, tot):
    return float(x @ w) / tot


def _wcov(x, y, w, tot):
    mx, my = _wmean(x, w, tot), _wmean(y, w, tot)
    return float(((x - mx) * (y - my)) @ w) / tot


_LAB_CELLS = tuple(g.ravel() for g in np.indices((2, 2, 2)))   # y, f, pred
_UNL_CELLS = tuple(g.ravel() for g in np.indices((2, 2)))      # f, pred


def _ratio_core(w, wu, num, den, mode: str):
    """Estimates, plug-in variances and lambdas of ``E[num] / E[den]``, vectorised.

    ``w``: labeled counts, shape ``(B, 8)`` over cells ``[y, f, pred]``; ``wu``: unlabeled
    counts ``(B, 4)`` over ``[f, pred]``; ``mode``: 'tuned', 'one' (lambda = 1) or 'zero'
    (labeled only).  Every quantity is a polynomial in the cell means of a few products of
    ``U = num``, ``V = den`` (gold label) and ``U~, V~`` (proxy label), computed by one
    matrix product.  Returns three arrays of length ``B`` (estimate NaN where the
    denominator is estimated at 0 or below).
    """
    w, wu = np.atleast_2d(w).astype(float), np.atleast_2d(wu).astype(float)
    n, N = w.sum(1), wu.sum(1)
    Ns = np.where(N > 0, N, 1.0)
    y, f, p = _LAB_CELLS
    u, v, uh, vh = num[y, p], den[y, p], num[f, p], den[f, p]
    fu, pu = _UNL_CELLS
    a, b = num[fu, pu], den[fu, pu]
    L = (w @ np.column_stack([u, v, uh, vh, u * u, v * v, uh * uh, vh * vh, u * v, u * uh,
                              u * vh, v * uh, v * vh, uh * vh])) / n[:, None]
    (Lu, Lv, Luh, Lvh, Luu, Lvv, Luhuh, Lvhvh, Luv, Luuh, Luvh, Lvuh, Lvvh, Luhvh) = L.T
    U = (wu @ np.column_stack([a, b, a * a, b * b, a * b])) / Ns[:, None]
    Ua, Ub, Uaa, Ubb, Uab = U.T

    if mode == "zero":
        lam = np.zeros_like(n)
    elif mode == "one":
        lam = np.ones_like(n)
    else:
        tu, tv = Lu - Luh + Ua, Lv - Lvh + Ub       # pilot (lambda = 1), as ppi_py
        bad = ~(tv > 0)
        tu, tv = np.where(bad, Lu, tu), np.where(bad, Lv, tv)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(tv > 0, tu / tv, 0.0)
            # influence function phi = U - r V and its proxy version phi~ = U~ - r V~
            cov = (Luuh - r * (Luvh + Lvuh) + r * r * Lvvh) - (Lu - r * Lv) * (Luh - r * Lvh)
            m = n + N
            s1 = n * (Luh - r * Lvh) + N * (Ua - r * Ub)
            s2 = (n * (Luhuh - 2 * r * Luhvh + r * r * Lvhvh)
                  + N * (Uaa - 2 * r * Uab + r * r * Ubb))
            vp = np.maximum(s2 - s1 * s1 / m, 0.0) / np.maximum(m - 1, 1)
            lam = np.where((vp > 1e-15) & (N > 0), cov / ((1 + n / Ns) * vp), 0.0)
        lam = np.clip(lam, 0.0, 1.0)
    lam = np.where(N > 0, lam, 0.0)
    tu = Lu - lam * Luh + lam * Ua
    tv = Lv - lam * Lvh + lam * Ub
    # covariance of the rectifiers (U - lam U~, V - lam V~) on the labeled rows, and of the
    # proxy's (U~, V~) on the unlabeled rows
    mu_u, mu_v = Lu - lam * Luh, Lv - lam * Lvh
    s_uu = np.maximum(Luu - 2 * lam * Luuh + lam * lam * Luhuh - mu_u * mu_u, 0.0) / n
    s_vv = np.maximum(Lvv - 2 * lam * Lvvh + lam * lam * Lvhvh - mu_v * mu_v, 0.0) / n
    s_uv = (Luv - lam * (Luvh + Lvuh) + lam * lam * Luhvh - mu_u * mu_v) / n
    l2 = lam * lam / Ns
    s_uu = s_uu + l2 * np.maximum(Uaa - Ua * Ua, 0.0)
    s_vv = s_vv + l2 * np.maximum(Ubb - Ub * Ub, 0.0)
    s_uv = s_uv + l2 * (Uab - Ua * Ub)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = tv > 0
        g0 = np.where(ok, 1.0 / tv, np.nan)
        g1 = np.where(ok, -tu / (tv * tv), np.nan)
        var = np.maximum(g0 * g0 * s_uu + 2 * g0 * g1 * s_uv + g1 * g1 * s_vv, 0.0)
        est = np.where(ok, tu / tv, np.nan)
    return est, var, lam


def _ratio_parts(c: PPICounts, num, den, tuned: bool, proxy: bool = True,
                 variance: str = "plugin"):
    """(estimate, variance, lambda, variance method) of one group's ratio.

    The jackknife evaluates the full sample and every leave-one-out sample (one per
    non-empty cell, labeled and unlabeled) in one vectorised call.
    """
    if c.n < 2:
        raise NotEstimable("PPI needs at least 2 labeled rows")
    mode = "zero" if not proxy else ("tuned" if tuned else "one")
    if mode == "one" and c.n_unlabeled == 0:
        raise NotEstimable("PPI with lambda = 1 needs unlabeled rows (tuned=True falls "
                           "back to the labeled rows alone)")
    w, wu = c.labeled.ravel(), c.unlabeled.ravel()
    jack = mode == "tuned" and variance in ("auto", "jackknife")
    W, WU = [w[None, :]], [wu[None, :]]
    if jack:
        lab_cells, unl_cells = np.flatnonzero(w), np.flatnonzero(wu)
        drop = np.tile(w, (lab_cells.size, 1))
        drop[np.arange(lab_cells.size), lab_cells] -= 1
        drop_u = np.tile(wu, (unl_cells.size, 1))
        drop_u[np.arange(unl_cells.size), unl_cells] -= 1
        W += [drop, np.tile(w, (unl_cells.size, 1))]
        WU += [np.tile(wu, (lab_cells.size, 1)), drop_u]
    ests, vars_, lams = _ratio_core(np.vstack(W), np.vstack(WU), num, den, mode)
    est, var, lam = float(ests[0]), float(vars_[0]), float(lams[0])
    if not math.isfinite(est):
        raise NotEstimable(_DENOMINATOR_AT_ZERO)
    if not jack or not np.all(np.isfinite(ests)):
        return est, var, lam, "plugin"
    total, first = 0.0, 1
    for counts, cells in ((w, lab_cells), (wu, unl_cells)):
        loo = ests[first:first + cells.size]
        first += cells.size
        size = float(counts.sum())
        if size < 2:
            continue
        total += _jackknife_term(loo, counts[cells].astype(float), size)
    return est, total, lam, "jackknife"


def ppi_ratio_interval(counts: PPICounts, confidence_level: float = 0.95, *,
                       metric="tpr", tuned: bool = True, variance: str = "auto") -> PPIInterval:
    """Prediction-powered CLT interval for one group's ratio metric (TPR, FPR, precision...).

    Parameters
    ----------
    counts : PPICounts
        The group's counts.
    confidence_level : float
        In (0, 1).
    metric : str or (array_like, array_like)
        A name in :data:`RATIO_METRICS` (``'tpr'``, ``'fpr'``, ``'precision'``, ...) or a
        pair of 2x2 tables ``(num[y, pred], den[y, pred])``.
    tuned : bool
        PPI++ power tuning (default); ``False``: ``lambda = 1``.
    variance : {'auto', 'jackknife', 'plugin'}
        Standard error of the tuned ratio: the delta method at the estimated ``lambda``
        (``'plugin'``) or the two-sample jackknife over the count cells, re-tuning
        ``lambda`` each time (``'auto'``, the default, and ``'jackknife'``; the plug-in is
        used when a leave-one-out estimate is not estimable, and ``variance`` of the
        result says which).

    Raises
    ------
    NotEstimable
        With fewer than 2 labeled rows or a denominator estimated at 0.

    Examples
    --------
    >>> c = PPICounts(labeled=[[[40, 5], [4, 1]], [[2, 3], [6, 39]]],
    ...               unlabeled=[[400, 60], [70, 470]])
    >>> r = ppi_ratio_interval(c, metric="tpr")
    >>> round(r.estimate, 4), round(r.low, 4), round(r.high, 4)
    (0.8902, 0.8181, 0.9624)
    """
    _check_type(counts, PPICounts, "counts")
    _, z = _level(confidence_level)
    num, den, _ = _ratio_tables(metric)
    return _one_group(z, lambda: _ratio_parts(counts, num, den, _check_tuned(tuned), True,
                                              _check_variance(variance)))


def _ratio_gap(a, b, confidence_level, metric, tuned, proxy, variance):
    _check_type(a, PPICounts, "a")
    _check_type(b, PPICounts, "b")
    _, z = _level(confidence_level)
    num, den, _ = _ratio_tables(metric)
    tuned = _check_tuned(tuned)
    variance = _check_variance(variance)
    return _two_groups(a, b, z, lambda g: _ratio_parts(g, num, den, tuned, proxy, variance))


def ppi_ratio_gap_interval(a: PPICounts, b: PPICounts, confidence_level: float = 0.95, *,
                           metric="tpr", tuned: bool = True,
                           variance: str = "auto") -> PPIInterval:
    """Prediction-powered CLT interval for the gap of a ratio metric between two groups.

    Per group, numerator and denominator are PPI means with one ``lambda`` (PPI++-tuned on
    the ratio's influence function unless ``tuned=False``); the ratio's variance is the
    delta method with their joint covariance (module docstring); the groups' variances
    add.  ``metric='tpr'`` gives the equal-opportunity gap; ``variance`` as in
    :func:`ppi_ratio_interval`.

    Raises
    ------
    NotEstimable
        When a group has fewer than 2 labeled rows or a denominator estimated at 0.

    Examples
    --------
    >>> a = PPICounts(labeled=[[[40, 5], [4, 1]], [[2, 3], [6, 39]]],
    ...               unlabeled=[[400, 60], [70, 470]])
    >>> b = PPICounts(labeled=[[[45, 2], [3, 0]], [[3, 7], [5, 35]]],
    ...               unlabeled=[[420, 30], [90, 460]])
    >>> r = ppi_ratio_gap_interval(a, b, 0.95, metric="tpr")
    >>> lab = classical_ratio_gap_interval(a, b, 0.95, metric="tpr")
    >>> round(r.estimate, 4), round(r.width / lab.width, 2)
    (0.0415, 0.71)
    """
    return _ratio_gap(a, b, confidence_level, metric, tuned, True, variance)


def classical_ratio_gap_interval(a: PPICounts, b: PPICounts, confidence_level: float = 0.95,
                                 *, metric="tpr") -> PPIInterval:
    """Labeled-only delta-method (Wald) interval for the gap of a ratio metric.

    The comparison for :func:`ppi_ratio_gap_interval` (``lambda = 0``): per group the
    ratio of the labeled means with the delta-method variance.
    """
    return _ratio_gap(a, b, confidence_level, metric, True, False, "plugin")


# --------------------------------------------------------------------------- guaranteed
def _cp(k: float, n: float, delta: float) -> tuple[float, float]:
    """Two-sided Clopper-Pearson interval for a binomial proportion at error ``delta``."""
    if n <= 0:
        return 0.0, 1.0
    lo = 0.0 if k <= 0 else float(_st.beta.ppf(delta / 2, k, n - k + 1))
    hi = 1.0 if k >= n else float(_st.beta.ppf(1 - delta / 2, k + 1, n - k))
    return lo, hi


def _bounded(n: int, mean: float, var0: float, low: float, high: float,
             delta: float) -> tuple[float, float]:
    """Interval at error ``delta`` for a mean of ``n`` i.i.d. values in ``[low, high]``.

    Hoeffding at ``delta / 2`` intersected with Maurer & Pontil's empirical Bernstein at
    ``delta / 2`` (each side at ``delta / 4``), clipped to ``[low, high]``.
    """
    R = high - low
    if n < 2:
        return low, high
    h1 = R * math.sqrt(math.log(4 / delta) / (2 * n))
    s2 = var0 * n / (n - 1)
    ell = math.log(8 / delta)
    h2 = math.sqrt(2 * s2 * ell / n) + 7 * R * ell / (3 * (n - 1))
    h = min(h1, h2)
    return max(mean - h, low), min(mean + h, high)


def _guaranteed_parts(s: PPIStats, lam: float, delta: float) -> tuple[float, float]:
    """Finite-sample interval for ``E[Y]`` at error ``delta`` with a fixed ``lambda``."""
    C, n, N = s.cost_max, s.n, s.n_unlabeled
    if n == 0:
        raise NotEstimable("no labeled rows")
    use_unl = lam > 0 and N > 0
    if lam > 0 and N == 0:
        raise NotEstimable("the guaranteed PPI interval with lambda > 0 needs unlabeled rows "
                           "(lam=0 is the labeled-only interval)")
    d_unl = delta * UNLABELED_ALPHA_SHARE if use_unl else 0.0
    d_rect = delta - d_unl
    binary = s.binary
    if binary and lam in (0.0, 1.0):
        if lam == 0:
            lo, hi = _cp(round(s.sum_y / C), n, d_rect)
            return lo * C, hi * C
        n10 = round((s.sum_y - s.sum_yf) / C)   # gold cost C, proxy 0
        n01 = round((s.sum_f - s.sum_yf) / C)   # gold 0, proxy C
        k = n10 + n01
        pl, ph = _cp(k, n, d_rect / 2)
        ql, qh = _cp(n10, k, d_rect / 2)
        corners = [p * (2 * q - 1) for p in (pl, ph) for q in (ql, qh)]
        r_lo, r_hi = min(corners) * C, max(corners) * C
        ul, uh = _cp(round(s.sum_f_unlabeled / C), N, d_unl)
        return r_lo + ul * C, r_hi + uh * C
    rect_var = s.var_y - 2 * lam * s.cov_yf + lam * lam * s.var_f
    r_lo, r_hi = _bounded(n, s.mean_y - lam * s.mean_f, max(rect_var, 0.0), -lam * C, C,
                          d_rect)
    if not use_unl:
        return r_lo, r_hi
    u_lo, u_hi = _bounded(N, s.mean_f_unlabeled, s.var_f_unlabeled, 0.0, C, d_unl)
    return r_lo + lam * u_lo, r_hi + lam * u_hi


def _guaranteed_bounds(s: PPIStats, lam: float, delta: float) -> tuple[float, float]:
    """:func:`_guaranteed_parts` clipped to the cost range ``[0, cost_max]``."""
    lo, hi = _guaranteed_parts(s, lam, delta)
    return max(lo, 0.0), min(hi, s.cost_max)


def _check_lam(lam) -> float:
    x = _number(lam, "lam")
    if not 0.0 <= x <= 1.0:
        raise FairboundError(f"lam must be in [0, 1], fixed before seeing the data; got "
                             f"{lam!r}", param="lam")
    return x


def ppi_guaranteed_mean_interval(stats: PPIStats, confidence_level: float = 0.95, *,
                                 lam: float = 1.0) -> PPIInterval:
    """Finite-sample prediction-powered interval for one group's mean cost.

    A confidence interval for the rectifier mean ``E[Y - lam f]`` (labeled rows) and one
    for ``E[f]`` (unlabeled rows, :data:`UNLABELED_ALPHA_SHARE` of ``alpha``), added; exact
    binomial pieces for 0/1 costs with ``lam`` 0 or 1, Hoeffding / empirical Bernstein
    otherwise (module docstring).  Valid for every sample size when the labeled rows are a
    random sample of the group; conservative.

    Parameters
    ----------
    stats : PPIStats
        The group's statistics.
    confidence_level : float
        In (0, 1).
    lam : float
        The ``lambda`` in ``[0, 1]``, fixed in advance (not from these data): 1 is PPI,
        0 the labeled-only interval (Clopper-Pearson for 0/1 costs).

    Raises
    ------
    NotEstimable
        Without labeled rows, or with ``lam > 0`` and no unlabeled rows.

    Examples
    --------
    A proxy that agrees with the gold label on 99% of 1,000 labeled rows, 14,000 unlabeled
    rows: 16% narrower than the guaranteed labeled-only interval (with 95% agreement it
    would be about 10% wider), 2.5 times the asymptotic PPI++ interval.

    >>> s = PPICounts(labeled=[[[715, 0], [5, 0]], [[5, 0], [275, 0]]],
    ...               unlabeled=[[10000, 0], [0, 4000]]).mean_stats("base-rate")
    >>> ppi = ppi_guaranteed_mean_interval(s, 0.95)
    >>> lab = ppi_guaranteed_mean_interval(s, 0.95, lam=0)
    >>> round(ppi.low, 4), round(ppi.high, 4), round(ppi.width / lab.width, 2)
    (0.2619, 0.3097, 0.84)
    """
    _check_type(stats, PPIStats, "stats")
    rho, _ = _level(confidence_level)
    lam = _check_lam(lam)
    lo, hi = _guaranteed_bounds(stats, lam, 1.0 - rho)
    return PPIInterval(lo, hi, (lo + hi) / 2, math.nan, (lam,), "finite-sample", "none")


def ppi_guaranteed_gap_interval(a: PPIStats, b: PPIStats, confidence_level: float = 0.95, *,
                                lam: float = 1.0) -> PPIInterval:
    """Finite-sample prediction-powered interval for ``E_A[Y] - E_B[Y]``.

    :func:`ppi_guaranteed_mean_interval` for each group at error ``alpha / 2`` and the
    difference of the bounds (union bound); ``lam`` fixed in advance, the same in both
    groups.  ``estimate`` is the interval's midpoint.

    Examples
    --------
    >>> a = PPICounts(labeled=[[[715, 0], [5, 0]], [[5, 0], [275, 0]]],
    ...               unlabeled=[[10000, 0], [0, 4000]]).mean_stats("base-rate")
    >>> b = PPICounts(labeled=[[[800, 0], [4, 0]], [[6, 0], [190, 0]]],
    ...               unlabeled=[[11000, 0], [0, 3000]]).mean_stats("base-rate")
    >>> lo, hi = ppi_guaranteed_gap_interval(a, b)
    >>> round(lo, 4), round(hi, 4)
    (0.0171, 0.1209)
    """
    _check_type(a, PPIStats, "a")
    _check_type(b, PPIStats, "b")
    rho, _ = _level(confidence_level)
    lam = _check_lam(lam)
    half = (1.0 - rho) / 2
    (a_lo, a_hi), (b_lo, b_hi) = _each_group(a, b, lambda g: _guaranteed_bounds(g, lam, half))
    lo, hi = a_lo - b_hi, a_hi - b_lo
    return PPIInterval(lo, hi, (lo + hi) / 2, math.nan, (lam, lam), "finite-sample", "none")


# --------------------------------------------------------------------------- planning
@dataclass(frozen=True)
class _Moments:
    var_y: float
    var_f: float
    cov: float
    rows: int      # M = labeled + unlabeled
    current: int   # labeled now


def _moments(g, param: str, metric) -> _Moments:
    if isinstance(g, PPIStats):
        if metric is not None:
            raise FairboundError("metric applies to PPICounts; PPIStats is already one mean",
                                 param="metric")
        if g.n < 2:
            raise NotEstimable(f"{param}: planning needs at least 2 labeled rows")
        vf = g.var_f_pooled
        return _Moments(g.var_y, vf if vf == vf else 0.0, g.cov_yf, g.n + g.n_unlabeled, g.n)
    if isinstance(g, PPICounts):
        num, den, _ = _ratio_tables("tpr" if metric is None else metric)
        n, N = g.n, g.n_unlabeled
        if n < 2:
            raise NotEstimable(f"{param}: planning needs at least 2 labeled rows")
        try:
            est = _ratio_parts(g, num, den, True)[0]
        except NotEstimable as exc:
            raise NotEstimable(f"{param}: {exc}") from None
        y, f, p = (x.ravel() for x in np.indices((2, 2, 2)))
        w = g.labeled.ravel()
        fu, pu = (x.ravel() for x in np.indices((2, 2)))
        wu = g.unlabeled.ravel()
        # influence function of the ratio, (U - R V) / E[V], gold and proxy versions
        ev = _wmean(den[y, p], w, n)
        if not ev > 0:
            raise NotEstimable(f"{param}: the metric's denominator is 0 on the labeled rows")
        phi = (num[y, p] - est * den[y, p]) / ev
        phih = (num[f, p] - est * den[f, p]) / ev
        phiu = (num[fu, pu] - est * den[fu, pu]) / ev
        allw = np.concatenate([w, wu])
        allv = np.concatenate([phih, phiu])
        m = n + N
        vf = _wcov(allv, allv, allw, m) * m / (m - 1)
        return _Moments(_wcov(phi, phi, w, n), vf, _wcov(phi, phih, w, n), m, n)
    raise FairboundError(f"{param} must be a PPIStats or PPICounts; got {type(g).__name__}",
                         param=param)


def _group_var(m: _Moments, n, mode: str) -> np.ndarray:
    """Predicted variance of a group's estimate with ``n`` labels (vectorised over n)."""
    n = np.asarray(n, dtype=float)
    N = m.rows - n
    labeled_only = m.var_y / n
    if mode == "classical":
        return labeled_only
    with np.errstate(divide="ignore", invalid="ignore"):
        if mode == "ppi":
            lam = np.ones_like(n)
        elif m.var_f > 0:
            lam = np.clip(m.cov * N / (m.var_f * m.rows), 0.0, 1.0)
        else:
            lam = np.zeros_like(n)
        v = (m.var_y - 2 * lam * m.cov + lam * lam * m.var_f) / n + lam * lam * m.var_f / N
    return np.where(N > 0, np.maximum(v, 0.0), labeled_only)


def _mode(tuned, proxy) -> str:
    tuned = _check_tuned(tuned)
    if not isinstance(proxy, bool | np.bool_):
        raise FairboundError(f"proxy must be True or False; got {proxy!r}", param="proxy")
    return "classical" if not proxy else ("ppi++" if tuned else "ppi")


def _bounds(m: _Moments, respect_current: bool, mode: str) -> tuple[int, int]:
    lo = m.current if respect_current else 2
    # lambda = 1 needs an unlabeled row; the other modes may label every row
    return max(lo, 2), m.rows - 1 if mode == "ppi" else m.rows


def _best_split(ma, mb, budget, mode, respect_current):
    """Integer ``n_a`` minimising the gap variance for ``budget`` labels (convex search)."""
    la, ha = _bounds(ma, respect_current, mode)
    lb, hb = _bounds(mb, respect_current, mode)
    lo, hi = max(la, budget - hb), min(ha, budget - lb)
    if lo > hi:
        return None

    def total(x):
        x = np.asarray(x)
        return _group_var(ma, x, mode) + _group_var(mb, budget - x, mode)

    while hi - lo > 64:   # the variance is convex in n_a (module docstring): ternary search
        m1 = lo + (hi - lo) // 3
        m2 = hi - (hi - lo) // 3
        if total(m1) <= total(m2):
            hi = m2
        else:
            lo = m1
    xs = np.arange(lo, hi + 1)
    vals = total(xs)
    i = int(np.argmin(vals))
    return int(xs[i]), float(vals[i])


def neyman_allocation(stats_a, stats_b, budget: int, *, tuned: bool = True,
                      proxy: bool = True, metric=None,
                      respect_current: bool = True) -> LabelPlan:
    """Split ``budget`` gold labels between two groups to minimise the gap's variance.

    The predicted variance of each group's estimate with ``n`` labels out of its ``M`` rows
    (the others unlabeled) uses the moments measured now (module docstring); the split
    minimises their sum (Neyman allocation; exact integer optimum of a convex function).

    Parameters
    ----------
    stats_a, stats_b : PPIStats or PPICounts
        Current statistics of groups A and B (PPICounts with ``metric``, default ``'tpr'``).
    budget : int
        Total gold labels in both groups, those already collected included.
    tuned, proxy : bool
        PPI++ (default), PPI with ``lambda = 1`` (``tuned=False``) or labeled-only
        (``proxy=False``).
    metric : str, optional
        The ratio metric, for PPICounts.
    respect_current : bool
        Whether each group keeps at least the labels it has (default); otherwise at least 2.

    Returns
    -------
    LabelPlan

    Raises
    ------
    FairboundError
        Naming ``budget`` when it is not a whole number or no split is feasible (below the
        labels already collected, or above the rows available).

    Examples
    --------
    >>> a = PPIStats.from_arrays([0, 1] * 50, [0, 1] * 50, [0, 1] * 2000)
    >>> b = PPIStats.from_arrays([0, 0, 0, 1] * 25, [0, 1, 0, 1] * 25, [0, 1] * 2000)
    >>> plan = neyman_allocation(a, b, 1000)
    >>> plan.n_a, plan.n_b
    (100, 900)
    """
    mode = _mode(tuned, proxy)
    if not isinstance(respect_current, bool | np.bool_):
        raise FairboundError(f"respect_current must be True or False; got {respect_current!r}",
                             param="respect_current")
    budget = _count(budget, "budget")
    ma, mb = _moments(stats_a, "stats_a", metric), _moments(stats_b, "stats_b", metric)
    best = _best_split(ma, mb, budget, mode, bool(respect_current))
    if best is None:
        lo = sum(_bounds(m, bool(respect_current), mode)[0] for m in (ma, mb))
        top = sum(_bounds(m, bool(respect_current), mode)[1] for m in (ma, mb))
        raise FairboundError(f"budget must be between {lo} and {top} (labels "
                             f"already collected, rows available); got {budget}",
                             param="budget")
    n_a, v = best
    return LabelPlan(n_a, budget - n_a, budget, math.sqrt(v))


def labels_needed(stats_a, stats_b, half_width: float, confidence_level: float = 0.95, *,
                  tuned: bool = True, proxy: bool = True, metric=None,
                  respect_current: bool = True) -> LabelPlan | None:
    """Fewest gold labels (Neyman-allocated) for a gap interval of ``half_width``.

    The smallest total ``n_a + n_b`` whose best split (:func:`neyman_allocation`) gives
    ``z * se <= half_width``, by bisection (the best variance does not increase with the
    budget).  The moments are those measured now, so it is an estimate, like every sample
    size.

    Returns
    -------
    LabelPlan or None
        ``None`` when even labeling every row would not reach ``half_width``.

    Raises
    ------
    FairboundError
        Naming ``half_width`` when it is not a positive number.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> y = rng.random(10000) < 0.3
    >>> f = np.where(rng.random(10000) < 0.95, y, ~y)
    >>> s = PPIStats.from_arrays(y[:300], f[:300], f[300:])
    >>> ppi = labels_needed(s, s, 0.03)
    >>> lab = labels_needed(s, s, 0.03, proxy=False)
    >>> ppi.total, lab.total
    (667, 3716)
    """
    mode = _mode(tuned, proxy)
    h = _number(half_width, "half_width")
    if h <= 0:
        raise FairboundError(f"half_width must be a positive number; got {half_width!r}",
                             param="half_width")
    if not isinstance(respect_current, bool | np.bool_):
        raise FairboundError(f"respect_current must be True or False; got {respect_current!r}",
                             param="respect_current")
    _, z = _level(confidence_level)
    target = (h / z) ** 2
    ma, mb = _moments(stats_a, "stats_a", metric), _moments(stats_b, "stats_b", metric)
    rc = bool(respect_current)
    lo = _bounds(ma, rc, mode)[0] + _bounds(mb, rc, mode)[0]
    hi = _bounds(ma, rc, mode)[1] + _bounds(mb, rc, mode)[1]
    def best(budget):
        return _best_split(ma, mb, budget, mode, rc)

    # The best variance is convex in the budget (an infimal convolution of convex
    # functions): non-increasing for PPI++ and labeled-only; with lambda = 1 it rises again
    # when few rows stay unlabeled.  Find its minimum, then the first budget at the target.
    a, top = lo, hi
    while top - a > 64:
        m1, m2 = a + (top - a) // 3, top - (top - a) // 3
        if best(m1)[1] <= best(m2)[1]:
            top = m2
        else:
            a = m1
    hi = min(range(a, top + 1), key=lambda b: best(b)[1])
    best_hi = best(hi)
    if best_hi[1] > target:
        return None
    best_lo = best(lo)
    if best_lo[1] <= target:
        hi, best_hi = lo, best_lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        b = best(mid)
        if b[1] <= target:
            hi, best_hi = mid, b
        else:
            lo = mid
    n_a, v = best_hi
    return LabelPlan(n_a, hi - n_a, hi, math.sqrt(v))
