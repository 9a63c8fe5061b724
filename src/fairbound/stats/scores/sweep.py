"""Threshold sweeps: each group's rate of ``score >= t`` and the gap, with a band."""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from fairbound._validate import check_choice
from fairbound.errors import DegenerateDataWarning, FairboundError
from fairbound.stats.base import NotEstimable, check_confidence_level
from fairbound.stats.scores._common import (
    BANDS,
    GUARANTEE_ASYMPTOTIC,
    GUARANTEE_FINITE,
    RATES,
    _show,
)
from fairbound.stats.scores.histogram import (
    ScoreHistogram,
    _check_hist,
)

#: Default most thresholds of a sweep: every distinct score up to this many, else a grid
#: (:func:`sweep_grid`).  A sweep is read as a curve and a table; a thousand points resolve
#: each group's rate to about 0.2 % (two quantile grids of 499 points each), while a sweep
#: over a million distinct scores costs memory and time in proportion and shows no reader
#: more.  ``max_thresholds=None`` sweeps every distinct score.
DEFAULT_MAX_THRESHOLDS = 1000

# ----------------------------------------------------------------------------- thresholds


@dataclass(frozen=True)
class ThresholdSweep:
    """A rate of ``score >= t`` per group at every threshold, and its gap with a band.

    Attributes
    ----------
    thresholds : numpy.ndarray
        Ascending thresholds (every distinct score or bin edge of either group, or the grid
        of :func:`sweep_grid` when there are more than ``max_thresholds``).
    rate : str
        ``'selection_rate'``, ``'tpr'`` or ``'fpr'``.
    rate_a, rate_b : numpy.ndarray
        Each group's rate at each threshold.
    gap, low, high : numpy.ndarray
        ``rate_a - rate_b`` and the band, simultaneous over the thresholds (NaN where the
        band is not computed, see ``band``).
    n_a, n_b : int
        The rates' denominators (examples, positives or negatives).
    band : str
        ``'dkw'`` or ``'sup-t'``.
    critical : float
        ``eps_a + eps_b`` (DKW) or the simulated max-|t| quantile (sup-t).
    guarantee : str
        ``'finite-sample'`` (DKW) or ``'asymptotic'`` (sup-t).
    resolution : float
        0 when ``thresholds`` holds every distinct score of both groups; on a grid, the
        largest change of either group's rate from one grid threshold to the next (and past
        the last): at any threshold ``t`` at all, ``|gap(t)|`` is at most
        ``max |gap|`` over the grid plus ``resolution`` (the rates are monotone in ``t``).
    grid : bool
        Whether ``thresholds`` is a grid of :func:`sweep_grid` (fewer than the distinct
        scores of the two groups) rather than every distinct score or the thresholds asked.
    """

    thresholds: np.ndarray
    rate: str
    rate_a: np.ndarray
    rate_b: np.ndarray
    gap: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n_a: int
    n_b: int
    band: str
    critical: float
    confidence_level: float
    guarantee: str
    resolution: float = 0.0
    grid: bool = False

    @property
    def established(self) -> np.ndarray:
        """Thresholds at which the band excludes 0 (a gap is shown there)."""
        with np.errstate(invalid="ignore"):
            return (self.low > 0) | (self.high < 0)

    def to_frame(self):
        """One row per threshold, as a :class:`pandas.DataFrame`."""
        import pandas as pd

        return pd.DataFrame({"threshold": self.thresholds, "rate_a": self.rate_a,
                             "rate_b": self.rate_b, "gap": self.gap, "low": self.low,
                             "high": self.high, "established": self.established})


def _cumulative(h: ScoreHistogram, rate: str) -> np.ndarray:
    """Running count of the rate's examples up to each bin (once per histogram and rate)."""
    return h._cached(("cumulative", rate), lambda: np.cumsum(_rate_counts(h, rate)))


def _tail_at(h: ScoreHistogram, rate: str, idx: np.ndarray) -> np.ndarray:
    """Count of the rate's examples in bins ``idx`` and above (0 past the last; exact)."""
    cum = _cumulative(h, rate)
    total = cum[-1] if len(cum) else 0
    below = np.where(idx > 0, cum[np.maximum(idx - 1, 0)] if len(cum) else 0, 0)
    return total - below


def _rate_total(h: ScoreHistogram, rate: str) -> int:
    """The rate's denominator: positives, negatives or all examples (counted once)."""
    return h.n_pos if rate == "tpr" else h.n_neg if rate == "fpr" else h.n


def _rate_counts(h: ScoreHistogram, rate: str) -> np.ndarray:
    if rate == "tpr":
        return h.pos
    if rate == "fpr":
        return h.neg
    return h.counts


def sweep_grid(h_a: ScoreHistogram, h_b: ScoreHistogram, *, rate: str = "selection_rate",
               max_thresholds: int | None = DEFAULT_MAX_THRESHOLDS) -> tuple[np.ndarray, bool]:
    """The thresholds of a sweep: every distinct score, or a grid of at most ``max_thresholds``.

    With ``max_thresholds=None``, or when the two groups have at most ``max_thresholds``
    distinct scores together, every distinct score of either group (the full sweep).
    Otherwise the smallest score of the two groups (where both rates are 1) and, for each
    group, the scores at which its count of the rate's examples (all, positives or
    negatives) reaches ``j / (k + 1)`` of its total, ``j = 1..k``, ``k =
    (max_thresholds - 1) // 2``: between two consecutive grid thresholds each group's rate
    moves by at most ``1 / (k + 1)`` plus the share of one score value.  Every grid
    threshold is a score of one of the groups, so the sweep's rates and band at a grid
    threshold are those of the full sweep there.  Cost: two cumulative sums and searches,
    never a sort of the two groups' scores together.

    Parameters
    ----------
    h_a, h_b : ScoreHistogram
    rate : {'selection_rate', 'tpr', 'fpr'}
        Whose quantiles place the grid.
    max_thresholds : int or None
        At most this many thresholds (at least 3); ``None``: all.

    Returns
    -------
    thresholds : numpy.ndarray
        Ascending.
    full : bool
        Whether they are every distinct score of the two groups.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> ha = ScoreHistogram.from_arrays(rng.random(5000), rng.random(5000) < 0.5)
    >>> hb = ScoreHistogram.from_arrays(rng.random(3000), rng.random(3000) < 0.5)
    >>> t, full = sweep_grid(ha, hb, max_thresholds=101)
    >>> len(t) <= 101, full, bool(t[0] == min(ha.values[0], hb.values[0]))
    (True, False, True)
    >>> len(sweep_grid(ha, hb, max_thresholds=None)[0])
    8000
    """
    check_choice(rate, RATES, "rate")
    if max_thresholds is not None:
        if (not isinstance(max_thresholds, numbers.Integral) or isinstance(max_thresholds, bool)
                or max_thresholds < 3):
            raise FairboundError(f"max_thresholds must be a whole number >= 3 or None; got "
                                 f"{max_thresholds!r}", param="max_thresholds")
        max_thresholds = int(max_thresholds)
    va, vb = h_a.values, h_b.values
    if max_thresholds is None or len(va) + len(vb) <= max_thresholds:
        return np.union1d(va, vb), True
    if max(len(va), len(vb)) <= max_thresholds:  # few enough to count them exactly
        t = np.union1d(va, vb)
        if len(t) <= max_thresholds:
            return t, True
    k = (max_thresholds - 1) // 2
    picks = [np.array([min(va[0], vb[0]) if len(va) and len(vb) else
                       (va[0] if len(va) else vb[0])])]
    for h in (h_a, h_b):
        c = _rate_counts(h, rate)
        if not len(c):
            continue
        cum = _cumulative(h, rate)
        total = cum[-1]
        if total <= 0:
            continue
        # the first bin whose running count reaches total * j / (k + 1): running counts are
        # whole numbers, so the level rounded up (integers: no float copy of ``cum``)
        levels = -(-int(total) * np.arange(1, k + 1, dtype=np.int64) // (k + 1))
        idx = np.searchsorted(cum, levels, side="left")
        picks.append(h.values[idx[idx < len(c)]])
    return np.unique(np.concatenate(picks)), False


def dkw_epsilon(n: int, alpha: float) -> float:
    """Massart's DKW half-width: ``P(sup |F^ - F| > eps) <= alpha`` for ``n`` examples.

    Examples
    --------
    >>> round(dkw_epsilon(200, 0.025), 4)
    0.1047
    """
    return math.sqrt(math.log(2.0 / alpha) / (2.0 * n))


def threshold_sweep(h_a: ScoreHistogram, h_b: ScoreHistogram, *,
                    rate: str = "selection_rate", band: str = "dkw",
                    confidence_level: float = 0.95, thresholds=None, n_sim: int = 10_000,
                    min_count: int = 5, seed: int = 0,
                    max_thresholds: int | None = None) -> ThresholdSweep:
    """Each group's rate of ``score >= t`` and the gap, with a simultaneous band over ``t``.

    Parameters
    ----------
    h_a, h_b : ScoreHistogram
        The two groups (binned alike when binned).
    rate : {'selection_rate', 'tpr', 'fpr'}
        Share selected among all examples, among positives, or among negatives.
    band : {'dkw', 'sup-t'}
        Finite-sample DKW band (default) or the asymptotic sup-t band; see the module notes.
    confidence_level : float
        Joint level over all thresholds.
    thresholds : array of float, optional
        Thresholds to report (default: every value of either histogram, or the grid of
        :func:`sweep_grid` under ``max_thresholds``).  The DKW band holds at every
        threshold whatever the grid; the sup-t critical value depends on it.
    n_sim : int
        Simulations for the sup-t critical value.
    min_count : int
        Sup-t only: each group needs this many examples selected and not selected at a
        threshold for the band to be computed there.
    seed : int
        Seed of the sup-t simulation.
    max_thresholds : int, optional
        Without ``thresholds``: sweep at most this many thresholds (:func:`sweep_grid`;
        the score audit's default is :data:`DEFAULT_MAX_THRESHOLDS`); ``None`` (default
        here): every distinct score.  On a grid, the sup-t simulation draws the Gaussian
        limit on the cells between grid thresholds (the same law at the grid, fewer draws).

    Examples
    --------
    >>> rng = np.random.default_rng(4)
    >>> ya, yb = rng.random(1000) < 0.5, rng.random(1000) < 0.5
    >>> ha = ScoreHistogram.from_arrays(np.round(rng.normal(size=1000) + ya, 1), ya)
    >>> hb = ScoreHistogram.from_arrays(np.round(rng.normal(size=1000) + yb + 0.5, 1), yb)
    >>> sw = threshold_sweep(ha, hb)
    >>> sw.guarantee, round(sw.critical, 3), bool(sw.established.any())
    ('finite-sample', 0.094, True)
    """
    h_a = _check_hist(h_a, "h_a")
    h_b = _check_hist(h_b, "h_b")
    rho = check_confidence_level(confidence_level)
    check_choice(rate, RATES, "rate")
    check_choice(band, BANDS, "band")
    if h_a.exact != h_b.exact or (not h_a.exact and h_a.binning != h_b.binning):
        raise FairboundError(f"h_b: the groups are binned differently ({h_a.binning!r} and "
                             f"{h_b.binning!r})", param="h_b")
    ca, cb = _rate_counts(h_a, rate), _rate_counts(h_b, rate)
    n_a, n_b = _rate_total(h_a, rate), _rate_total(h_b, rate)
    if n_a == 0 or n_b == 0:
        who = "h_a" if n_a == 0 else "h_b"
        what = {"tpr": "positive examples", "fpr": "negative examples",
                "selection_rate": "examples"}[rate]
        raise NotEstimable(f"threshold sweep: {who} has no {what}", param=who)
    grid = False
    if thresholds is None:
        t, full = sweep_grid(h_a, h_b, rate=rate, max_thresholds=max_thresholds)
        grid = not full
    else:
        try:
            t = np.asarray(thresholds, dtype=float)
        except (TypeError, ValueError):
            raise FairboundError(f"thresholds must be numbers; got {thresholds!r}",
                                 param="thresholds") from None
        if t.ndim != 1 or len(t) == 0 or not np.all(np.isfinite(t)):
            raise FairboundError(f"thresholds must be a non-empty 1-D list of finite numbers; "
                                 f"got {_show(np.ravel(t))}", param="thresholds")
        t = np.unique(t)

    def survival(h, c):
        # selected at threshold t: bins with value >= t (integer counts, exact)
        return _tail_at(h, rate, np.searchsorted(h.values, t, side="left"))

    ka, kb = survival(h_a, ca), survival(h_b, cb)
    ra, rb = ka / n_a, kb / n_b
    gap = ra - rb
    resolution = 0.0
    if grid:
        resolution = float(max(np.max(ra - np.append(ra[1:], 0.0)),
                               np.max(rb - np.append(rb[1:], 0.0))))
    extra = {"resolution": resolution, "grid": grid}
    alpha = 1 - rho
    if band == "dkw":
        ea, eb = dkw_epsilon(n_a, alpha / 2), dkw_epsilon(n_b, alpha / 2)
        low = np.clip(ra - ea, 0, 1) - np.clip(rb + eb, 0, 1)
        high = np.clip(ra + ea, 0, 1) - np.clip(rb - eb, 0, 1)
        return ThresholdSweep(thresholds=t, rate=rate, rate_a=ra, rate_b=rb, gap=gap, low=low,
                              high=high, n_a=n_a, n_b=n_b, band=band, critical=ea + eb,
                              confidence_level=rho, guarantee=GUARANTEE_FINITE, **extra)
    if not isinstance(n_sim, numbers.Integral) or isinstance(n_sim, bool) or n_sim < 100:
        raise FairboundError(f"n_sim must be a whole number >= 100; got {n_sim!r}",
                             param="n_sim")
    if (not isinstance(min_count, numbers.Integral) or isinstance(min_count, bool)
            or min_count < 1):
        raise FairboundError(f"min_count must be a whole number >= 1; got {min_count!r}",
                             param="min_count")
    use = ((np.minimum(ka, n_a - ka) >= min_count) & (np.minimum(kb, n_b - kb) >= min_count))
    low = np.full(len(t), np.nan)
    high = np.full(len(t), np.nan)
    if not use.any():
        warnings.warn(f"sup-t band: no threshold has {min_count} examples on each side in "
                      "both groups; the band is not computed", DegenerateDataWarning,
                      stacklevel=2)
        return ThresholdSweep(thresholds=t, rate=rate, rate_a=ra, rate_b=rb, gap=gap, low=low,
                              high=high, n_a=n_a, n_b=n_b, band=band, critical=math.nan,
                              confidence_level=rho, guarantee=GUARANTEE_ASYMPTOTIC, **extra)
    se = np.sqrt(ra * (1 - ra) / n_a + rb * (1 - rb) / n_b)
    crit = _sup_t_critical(h_a, ca, h_b, cb, t[use], se[use], alpha, int(n_sim), int(seed),
                           cells=t if grid else None)
    low[use] = gap[use] - crit * se[use]
    high[use] = gap[use] + crit * se[use]
    return ThresholdSweep(thresholds=t, rate=rate, rate_a=ra, rate_b=rb, gap=gap, low=low,
                          high=high, n_a=n_a, n_b=n_b, band=band, critical=crit,
                          confidence_level=rho, guarantee=GUARANTEE_ASYMPTOTIC, **extra)


def _gaussian_survival(rng, h: ScoreHistogram, c: np.ndarray, t: np.ndarray, reps: int,
                       cells: np.ndarray | None = None):
    """``reps`` draws of the limit of ``sqrt(n) (S^(t) - S(t))`` at thresholds ``t``.

    With ``cells`` (a grid of thresholds holding ``t``), the scores are first merged into
    the cells between consecutive grid thresholds: the limit at the grid is a sum of
    independent normals per score, so per cell one normal with the cell's summed variance
    has the same law (draws over the cells, not over every distinct score).
    """
    n = c.sum()
    p = c / n
    vals = h.values
    if cells is not None:
        j = np.searchsorted(cells, vals, side="right")  # 0: below the grid
        p = np.bincount(j, weights=p, minlength=len(cells) + 1)
        vals = np.concatenate([[-np.inf], cells])
    keep = p > 0
    p = p[keep]
    vals = vals[keep]
    w = rng.standard_normal((reps, len(p))) * np.sqrt(p)
    total = w.sum(axis=1)
    tail = np.concatenate([np.cumsum(w[:, ::-1], axis=1)[:, ::-1],
                           np.zeros((reps, 1))], axis=1)
    pos = np.searchsorted(vals, t, side="left")
    surv = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])[pos]
    return tail[:, pos] - surv[None, :] * total[:, None]


def _sup_t_critical(h_a, ca, h_b, cb, t, se, alpha, n_sim, seed, cells=None) -> float:
    """``1 - alpha`` quantile of ``max_t |G_a / sqrt(n_a) - G_b / sqrt(n_b)| / se(t)``."""
    rng = np.random.default_rng(seed)
    na, nb = ca.sum(), cb.sum()
    width = (max(len(t), int(np.count_nonzero(ca)), int(np.count_nonzero(cb)), 1)
             if cells is None else len(cells) + 1)
    chunk = max(1, min(n_sim, 4_000_000 // width))
    maxima = []
    done = 0
    while done < n_sim:
        r = min(chunk, n_sim - done)
        ga = _gaussian_survival(rng, h_a, ca, t, r, cells) / math.sqrt(na)
        gb = _gaussian_survival(rng, h_b, cb, t, r, cells) / math.sqrt(nb)
        maxima.append(np.max(np.abs(ga - gb) / se[None, :], axis=1))
        done += r
    return float(np.quantile(np.concatenate(maxima), 1 - alpha))


__all__ = ["DEFAULT_MAX_THRESHOLDS", "ThresholdSweep", "dkw_epsilon", "sweep_grid",
           "threshold_sweep"]
