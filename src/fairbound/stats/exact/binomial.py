"""Binomial building blocks of the exact-inversion engines (difference and ratio).

Both exact unconditional intervals (:mod:`fairbound.stats.exact` for ``p_A - p_B`` and
:mod:`fairbound.stats.ratio` for ``p_A / p_B``) sum binomial probabilities over windows
of counts and restrict the nuisance parameter to Clopper-Pearson sets.  The pieces they
share live here under public names:

* :func:`bernstein_radius` and :func:`count_window`: the window of counts outside which a
  binomial has at most ``2 exp(-tail_log)`` of its mass (Bernstein's inequality);
* :func:`clopper_pearson`: the Clopper-Pearson interval, without scipy up to
  :data:`NATIVE_CP` examples;
* :func:`log_comb`, :func:`log_comb_window`, :func:`binom_pmf`: log binomial coefficients
  and the pmf over a window for many probabilities at once;
* :func:`ndtri`: the standard normal quantile without scipy;
* :func:`window_table` (a window with its log binomial coefficients) and
  :func:`dense_runs` (the accepted tables of small windows, for any statistic);
* :func:`nuisance_boxes`: the Berger-Boos confidence set of both rates;
* :func:`arcsine_grid`: the nuisance grid of a null (steps of equal standard error) and
  :func:`count_spread`, how much a group's counts vary.

The old private names (``_clopper_pearson``, ``_log_comb``, ``_radius``, ``_window``, ...)
stay importable from :mod:`fairbound.stats.exact`.

Examples
--------
>>> lo, hi = clopper_pearson(3, 10, 0.05)
>>> round(lo, 4), round(hi, 4)
(0.0667, 0.6525)
>>> count_window(100, 0.3, 0.3)
(0, 77)
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

import numpy as np

__all__ = ["NATIVE_CP", "TAIL_LOG", "arcsine_grid", "bernstein_radius", "binom_pmf",
           "clopper_pearson", "count_spread", "count_window", "dense_runs", "log_comb",
           "log_comb_window", "ndtri", "nuisance_boxes", "window_table"]

#: Default ``tail_log``: windows drop at most ``2 exp(-30) ~ 2e-13`` of a binomial's mass.
TAIL_LOG = 30.0
_TAIL_LOG = TAIL_LOG


def _radius(n: float, p: float, tail_log: float = _TAIL_LOG) -> float:
    # Bernstein: P(|X - n p| >= r) <= 2 exp(-r^2 / (2 (n p q + r / 3))) = 2 exp(-tail_log)
    v = n * p * (1.0 - p)
    return tail_log / 3.0 + math.sqrt(tail_log**2 / 9.0 + 2.0 * v * tail_log)


def _window(n: int, plo: float, phi: float, tail_log: float = _TAIL_LOG) -> tuple[int, int]:
    r = _radius(n, min(max(0.5, plo), phi), tail_log)
    return max(0, math.floor(n * plo - r)), min(n, math.ceil(n * phi + r))


# scipy.special is imported only where a large group needs it (the tail bound, and the
# Clopper-Pearson bounds of groups above _NATIVE_CP): a small audit runs without scipy.
_NORMAL = NormalDist()
#: Groups up to this size get their Clopper-Pearson bounds without scipy.
_NATIVE_CP = 10_000


def _ndtri(q: float) -> float:
    """Standard normal quantile (``scipy.special.ndtri``), ``+-inf`` at 1 and 0."""
    if q >= 1.0:
        return math.inf
    if q <= 0.0:
        return -math.inf
    return _NORMAL.inv_cdf(q)


@functools.lru_cache(maxsize=4096)
def _clopper_pearson(k: int, n: int, miss: float) -> tuple[float, float]:
    """Clopper-Pearson interval for ``k`` of ``n`` missing with probability ``miss``."""
    if n > _NATIVE_CP:
        from fairbound.stats.exact._special import ufuncs

        special = ufuncs()
        lo = 0.0 if k == 0 else float(special.betaincinv(k, n - k + 1, miss / 2.0))
        hi = 1.0 if k == n else float(special.betaincinv(k + 1, n - k, 1.0 - miss / 2.0))
        return lo, hi
    lo = 0.0 if k == 0 else _binomial_rate(k, n, miss / 2.0, upper=True)
    hi = 1.0 if k == n else _binomial_rate(k, n, miss / 2.0, upper=False)
    return lo, hi


def _binomial_rate(k: int, n: int, q: float, *, upper: bool) -> float:
    """The rate ``p`` with ``P(X >= k) = q`` (``upper``) or ``P(X <= k) = q``, ``X ~ Bin(n, p)``.

    The lower (``upper=True``) and upper Clopper-Pearson bounds: ``betaincinv(k, n - k + 1,
    q)`` and ``betaincinv(k + 1, n - k, 1 - q)``.  The tail is ``pmf(k)`` times a sum of
    ratios ``pmf(j) / pmf(k)`` (cumulated logarithms of one-step ratios), with ``log C(n,
    k)`` summed exactly (``math.fsum``); Newton's method on ``log P - log q`` (the tail's
    derivative in ``p`` is a multiple of ``pmf(k)``) inside a bisection bracket, to a
    relative step of ``1e-15``.
    """
    log_ck = _log_choose(k, n)
    if upper:   # j = k, k + 1, ..., n: pmf(j + 1) / pmf(j) = (n - j) / (j + 1) * p / (1 - p)
        j = np.arange(k, n, dtype=float)
        steps = np.log((n - j) / (j + 1.0))
    else:       # j = k, k - 1, ..., 0: pmf(j - 1) / pmf(j) = j / (n - j + 1) * (1 - p) / p
        j = np.arange(k, 0, -1, dtype=float)
        steps = np.log(j / (n - j + 1.0))
    base = np.concatenate([[0.0], np.cumsum(steps)])
    count = np.arange(base.size, dtype=float)
    sign = 1.0 if upper else -1.0
    log_q = math.log(q)

    def g(p):
        # log(tail / q) at p and its derivative in p
        odds = math.log(p) - math.log1p(-p)
        lr = base + count * (sign * odds)
        top = float(lr.max())
        log_sum = top + math.log(float(np.exp(lr - top).sum()))
        log_pk = log_ck + k * math.log(p) + (n - k) * math.log1p(-p)
        slope = (k / p if upper else -(n - k) / (1.0 - p)) * math.exp(-log_sum)
        return log_pk + log_sum - log_q, slope

    # start from the normal approximation (Wilson score bound, continuity-corrected)
    z = _ndtri(1.0 - q) * (-1.0 if upper else 1.0)
    c = k + (-0.5 if upper else 0.5)
    p = (c + z * z / 2.0 + z * math.sqrt(max(c - c * c / n, 0.0) + z * z / 4.0)) / (n + z * z)
    p = min(max(p, 1e-300), 1.0 - 1e-16)
    lo, hi = 0.0, 1.0
    for _ in range(200):
        val, slope = g(p)
        if val == 0.0:
            return p
        # the tail grows with p for upper=True and shrinks otherwise
        if (val > 0.0) == upper:
            hi = p
        else:
            lo = p
        new = p - val / slope if slope != 0.0 and math.isfinite(slope) else math.nan
        if not lo < new < hi:
            new = 0.5 * (lo + hi)
        if abs(new - p) <= 1e-15 * p:
            return new
        p = new
    return p


@functools.lru_cache(maxsize=4096)
def _log_choose(k: int, n: int) -> float:
    """``log C(n, k)`` summed exactly: ``fsum`` of ``log((n - m + i) / i)``, ``m = min(k, n - k)``.

    Both Clopper-Pearson bounds of a group need it; the ratios are formed by numpy (exact
    integers divided, correctly rounded like Python's ``/``) and logged by ``math.log``.
    """
    m = min(k, n - k)
    ratios = np.arange(n - m + 1, n + 1, dtype=float) / np.arange(1, m + 1, dtype=float)
    return math.fsum(map(math.log, ratios.tolist()))


def _log_comb(n: int, ks: np.ndarray) -> np.ndarray:
    """``log C(n, k)`` for every ``k`` in ``ks`` (no scipy).

    ``lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)``, each term from
    :func:`_log_factorial`.
    """
    ks = np.asarray(ks, dtype=float)
    return _log_factorial(np.float64(n)) - _log_factorial(ks) - _log_factorial(n - ks)


def _log_comb_window(n: int, lo: int, hi: int) -> np.ndarray:
    """``_log_comb(n, ks)`` for ``ks = lo, ..., hi``: the same table entries, as slices."""
    if n > _FACTORIAL_TABLE:
        return _log_comb(n, np.arange(lo, hi + 1, dtype=float))
    top = _log_factorial(np.float64(n))     # grows the table to cover n
    lf = _LOG_FACTORIALS
    return top - lf[lo:hi + 1] - lf[n - hi:n - lo + 1][::-1]


#: Counts up to this have their log factorial in a table (``math.lgamma``, built as needed).
_FACTORIAL_TABLE = 1 << 17
_LOG_FACTORIALS = np.zeros(1)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _log_factorial(k) -> np.ndarray:
    """``log k! = lgamma(k + 1)`` for whole numbers ``k >= 0`` (array or number).

    Up to :data:`_FACTORIAL_TABLE` from a cached table of ``math.lgamma`` values (grown by
    doubling as larger counts come); above it Stirling's series ``(x - 1/2) log x - x +
    log(2 pi) / 2 + 1 / (12 x) - 1 / (360 x^3)`` at ``x = k + 1``, whose next term is below
    ``1e-38`` there, far under the rounding of the result.
    """
    global _LOG_FACTORIALS
    k = np.asarray(k, dtype=float)
    top = float(np.max(k)) if k.size else 0.0
    need = int(min(top, _FACTORIAL_TABLE))
    have = _LOG_FACTORIALS.size
    if have <= need:
        size = min(max(2 * have, need + 1, 1024), _FACTORIAL_TABLE + 1)
        lg = math.lgamma
        more = np.array([lg(i + 1.0) for i in range(have, size)], dtype=float)
        _LOG_FACTORIALS = np.concatenate([_LOG_FACTORIALS, more])
    if top <= _FACTORIAL_TABLE:
        return _LOG_FACTORIALS[k.astype(np.int64)]
    small = k <= _FACTORIAL_TABLE
    x = np.where(small, 1.0, k + 1.0)
    big = (x - 0.5) * np.log(x) - x + _HALF_LOG_2PI + 1.0 / (12.0 * x) - 1.0 / (360.0 * x**3)
    return np.where(small, _LOG_FACTORIALS[np.where(small, k, 0.0).astype(np.int64)], big)


def _binom_pmf(ks: np.ndarray, logc: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Binomial pmf over a window for every probability in ``p`` (shape ``p.shape + (W,)``).

    ``ks`` holds the counts and the non-counts as two rows ``(2, W)``: one matrix product
    forms ``k log p + (n - k) log(1 - p)`` for every probability at once.
    """
    p = np.minimum(np.maximum(p, 1e-300), 1.0 - 1e-16)
    lp = np.empty(p.shape + (2,))           # np.stack([log p, log(1 - p)], axis=-1)
    lp[..., 0] = np.log(p)
    lp[..., 1] = np.log1p(-p)
    out = lp @ ks
    out += logc
    return np.exp(out, out=out)


def _distinct(a: np.ndarray) -> np.ndarray:
    """Sorted distinct values of ``a`` (``np.unique``, which would import ``numpy.ma``)."""
    a = np.sort(np.asarray(a).ravel())
    return a[np.concatenate([[True], a[1:] != a[:-1]])] if a.size else a


@functools.lru_cache(maxsize=1024)
def _unit(k: int) -> np.ndarray:
    """``np.linspace(0.0, 1.0, k)``, read-only and built once per ``k`` (saves its overhead)."""
    u = np.linspace(0.0, 1.0, k)
    u.flags.writeable = False
    return u


def arcsine_grid(n_a: int, n_b: int, a: np.ndarray, b: np.ndarray, rate_a,
                 spacing: float) -> np.ndarray:
    """Nuisance grid per null, evenly spaced in the combined arcsine scale, shape (m, G).

    Null ``r`` has the nuisance ``nu = p_B`` in ``[a[r], b[r]]`` and ``p_A = rate_a(nu)``
    (``nu + d`` for a difference, ``theta nu`` for a ratio).  The scale
    ``2 sqrt(n_A) asin(sqrt(p_A)) + 2 sqrt(n_B) asin(sqrt(p_B))`` grows at least as fast as
    the square root of the Fisher information for ``nu``, so steps of ``spacing`` in it are
    at most ``spacing`` standard errors; ``G >= 6`` is the same for every null.

    Examples
    --------
    >>> a, b = np.array([0.2]), np.array([0.4])
    >>> g = arcsine_grid(100, 100, a, b, lambda nu: nu + 0.1, 0.8)
    >>> g.shape, float(g[0, 0]), float(g[0, -1])
    ((1, 12), 0.2, 0.4)
    """
    u = _unit(65)
    nu = a[:, None] + (b - a)[:, None] * u
    scale = (2.0 * math.sqrt(n_a) * np.arcsin(np.sqrt(np.clip(rate_a(nu), 0.0, 1.0)))
             + 2.0 * math.sqrt(n_b) * np.arcsin(np.sqrt(np.clip(nu, 0.0, 1.0))))
    span = scale[:, -1] - scale[:, 0]
    k = max(6, int(math.ceil(float(np.max(span)) / spacing)) + 1)
    target = scale[:, :1] + span[:, None] * _unit(k)
    # invert the (increasing) scale by linear interpolation on the fine grid
    j = np.minimum((scale[:, None, :] <= target[:, :, None]).sum(axis=-1), u.size - 1)
    j = np.maximum(j, 1)
    ix = np.arange(a.size)[:, None]
    s0, s1 = scale[ix, j - 1], scale[ix, j]
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(s1 > s0, (target - s0) / (s1 - s0), 0.0)
    out = nu[ix, j - 1] + w * (nu[ix, j] - nu[ix, j - 1])
    return np.minimum(np.maximum(out, a[:, None]), b[:, None])


def window_table(n: int, plo: float, phi: float, tail_log: float = _TAIL_LOG):
    """The window of :func:`count_window` with its counts and their log binomial coefficients.

    Returns
    -------
    (int, int, numpy.ndarray, numpy.ndarray)
        ``lo``, ``hi``, the counts ``lo, ..., hi`` as floats and ``log C(n, k)`` of each.

    Examples
    --------
    >>> lo, hi, ks, logc = window_table(10, 0.5, 0.5, 3.0)
    >>> lo, hi, ks.size == logc.size == hi - lo + 1
    (0, 10, True)
    """
    lo, hi = _window(n, plo, phi, tail_log)
    return lo, hi, np.arange(lo, hi + 1, dtype=float), _log_comb_window(n, lo, hi)


def dense_runs(statistic, xs: np.ndarray, ys: np.ndarray, n_a: int, n_b: int,
               nulls: np.ndarray, thr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per null and column ``x``, how many ``ys`` have ``T >= thr`` and how many ``T > -thr``.

    ``statistic(x, y, n_a, n_b, null)`` (decreasing in ``y``) is evaluated on every table of
    the window at once, so for small windows the accepted tables ``|T| < thr`` of column
    ``x`` are rows ``first .. last - 1`` with ``(first, last)`` the two counts returned.

    Examples
    --------
    >>> def stat(x, y, n_a, n_b, null):
    ...     return x / n_a - y / n_b - null
    >>> first, last = dense_runs(stat, np.arange(3.0), np.arange(3.0), 2, 2,
    ...                          np.array([0.0]), np.array([0.4]))
    >>> first.tolist(), last.tolist()
    ([[0, 1, 2]], [[1, 2, 3]])
    """
    t = statistic(xs[None, :, None], ys[None, None, :], n_a, n_b, nulls[:, None, None])
    th = thr[:, None, None]
    return (t >= th).sum(axis=-1), (t > -th).sum(axis=-1)


def nuisance_boxes(k_a: int, n_a: int, k_b: int, n_b: int, gamma: float):
    """The Berger-Boos confidence set of both rates: a Clopper-Pearson box per group.

    Each at level ``1 - gamma/4``, so together they miss the true rates with probability
    at most ``gamma/2`` (the other ``gamma/2`` is the margin for a numerically computed
    supremum); ``gamma = 0``: every rate, ``(0, 1)`` for both.

    Examples
    --------
    >>> nuisance_boxes(3, 10, 0, 10, 0.0)
    ((0.0, 1.0), (0.0, 1.0))
    >>> (lo, hi), _ = nuisance_boxes(3, 10, 0, 10, 0.001)
    >>> round(lo, 4), round(hi, 4)
    (0.0103, 0.8517)
    """
    if gamma > 0:
        return _clopper_pearson(k_a, n_a, gamma / 4.0), _clopper_pearson(k_b, n_b, gamma / 4.0)
    return (0.0, 1.0), (0.0, 1.0)


def count_spread(k: int, n: int) -> float:
    """``n``-free variance factor ``q (1 - q)`` of ``k`` of ``n``, with ``q = (k + 1/2) / (n + 1)``.

    ``n * count_spread(k, n)`` says how much the counts vary; the searches for the ends
    pick how far past an end to scan for islands of acceptance from it.

    Examples
    --------
    >>> count_spread(0, 1)
    0.1875
    """
    q = (k + 0.5) / (n + 1.0)
    return q * (1.0 - q)


#: Groups up to this size get their Clopper-Pearson bounds without scipy.
NATIVE_CP = _NATIVE_CP

# public names of the engine helpers (the same functions)
bernstein_radius = _radius
count_window = _window
ndtri = _ndtri
clopper_pearson = _clopper_pearson
log_comb = _log_comb
log_comb_window = _log_comb_window
binom_pmf = _binom_pmf
