"""Betting confidence intervals and sequences for bounded means, and the betting gap interval.

A mean ``mu`` of variables in ``[0, 1]`` is estimated by betting against every candidate
value ``m``: a gambler starts with capital 1 and, before seeing ``x_t``, bets a predictable
fraction ``lambda_t`` that ``x_t > m`` (capital ``K+``) or that ``x_t < m`` (capital ``K-``).
When ``m`` is the true mean both capitals are non-negative martingales, so by Ville's
inequality the hedged capital ``max(K+ / 2, K- / 2)`` ever reaching ``1 / alpha`` has
probability at most ``alpha``.  The values ``m`` at which neither capital has ever reached
``2 / alpha`` form the interval; it is valid for every sample size and, because it uses the
running maximum of the capital, it is also a confidence sequence (valid when the data are
looked at after every example).

Bets follow the hedged-capital construction of Waudby-Smith & Ramdas (2024), with the
predictable plug-in empirical-Bernstein bets

    lambda_t = sqrt(2 log(2 / alpha) / (n sigma2_{t-1}))          (fixed horizon n)
    lambda_t = sqrt(2 log(2 / alpha) / (t log(1 + t) sigma2_{t-1}))  (open-ended sequence)

from running estimates ``mu_t = (1/2 + sum x) / (t + 1)`` and
``sigma2_t = (1/4 + sum (x_i - mu_i)^2) / (t + 1)``, truncated at ``c / m`` for ``K+`` and
``c / (1 - m)`` for ``K-`` (``c = 3/4`` for data in a given order, ``0.9`` for the
fixed-horizon intervals below, ``0.99`` for the v2 bets of blocked pairs on both groups) so
that every factor stays above ``1 - c``.

Each factor of ``K+`` decreases in ``m`` and each factor of ``K-`` increases, so the kept set
is an interval ``[L, U]``; both ends are found by a search that evaluates the capital on a
grid of candidates at once.  The capital loop is written here by hand with numpy because no
dependency provides it (the reference implementation, ``confseq``, is not a dependency of
fairbound) and because it is the hot path of every betting interval: the loop over examples
is a cumulative sum of logarithms, vectorised over the candidate grid and processed in
chunks so that memory stays bounded for millions of examples.

Two uses, with different guarantees
-----------------------------------
*Data in a given order* (:func:`betting_mean_interval`, :func:`betting_confidence_sequence`,
and the monitor): the running maximum of one capital, valid by Ville's inequality at every
sample size and when looking after every example.

*Data summarised by group* (:func:`group_mean_interval` and ``method="betting"`` /
``"betting-union"``): the order is ours to choose, and one fixed choice is not enough.  The
first version rebuilt each group's sequence from counts and shuffled it with the caller's
fixed seed, so every data set of a given size had its ones at the same nested positions; the
sequences were not exchangeable and the default audit claimed a gap on null data in up to
71% of data sets.  These intervals therefore:

1. draw :data:`ARRANGEMENTS` (16) arrangements of each group's costs from a generator
   seeded by the user's seed (``None`` is 0) together with a hash of the group's sufficient
   statistics (and, for fractional costs, of its sorted sample).  Data sets thus get their
   own arrangements, and the same data and seed always give the same interval;
2. run the bets on each arrangement with the horizon ``n`` and stop each capital when it
   first reaches :data:`STOP_FACTOR` ``x 2 / alpha`` (``e_j = min(K_{tau ^ n}, level)``);
   for blocked pairs of fractional costs the bets are placed on each group's cost rather
   than on their difference (:func:`_pair_final_capital`, below);
3. reject a candidate when the *average* of the stopped ``K+`` (or of the stopped ``K-``)
   over the arrangements reaches ``2 / alpha``.  Both averages are monotone in the
   candidate, so the ends are still found separately, by a bracketed root search.

What is exact: for one arrangement drawn uniformly at random independently of exchangeable
data (e.g. i.i.d. examples within each group, groups independent), the arranged sequence is
distributed like the data, the capital at the true mean is a non-negative martingale (a
supermartingale when the bets are placed on each group's cost), and by optional stopping
each stopped capital ``e_j`` has expectation at most 1 (an e-value).
An average of e-values is an e-value whatever their dependence, so by Markov's inequality
``P(average K+ >= 2 / alpha) <= alpha / 2``, the same for ``K-``, and the interval misses
the truth with probability at most ``alpha``.  No running maximum over the average is used
(it would not be valid), only each arrangement's own stopping time.

What the hash seeding assumes: the arrangements are a deterministic function of the data and
the seed.  Averaged over seeds the guarantee above is exact; for one fixed seed it treats the
hash as a random function unrelated to the data-generating distribution (the usual
random-oracle assumption).  The average over 16 arrangements also makes each decision close
to that of the exact e-value averaged over *all* arrangements (a function of the data
alone), so that no single arrangement decides: near a verdict boundary the ends vary across
seeds about 4 times less than with one arrangement (e.g. 12/60 vs 4/60: the lower end's
standard deviation over seeds is 0.008 instead of 0.031), and null data sets with a fixed
seed claim a gap at or below the nominal rate in every checked cell (tests).  Not claimed:
validity when examples within a group are not exchangeable (drifting rates, clusters), and
looking at the interval as data arrive (use the monitor's confidence sequences for that).

The price of removing the seed's influence is width: about 5-15% wider than one random
arrangement with a running maximum (which is valid only with a fresh random seed per data
set).  The fixed-horizon intervals truncate bets at :data:`FIXED_TRUNCATION` (0.9, factors
>= 0.1) rather than 0.75, which narrows low-variance intervals (fractional costs, rare
events against a large group) by about 10%.

Gap intervals
-------------
* ``betting-union`` - a betting interval for each group at ``alpha / 2`` and the difference
  of the bounds (union bound).  Works for any group sizes; the building block for many groups.
* ``betting`` - blocked pairs (Chugg et al. 2023): the smaller group S (``m`` examples) is
  paired with ``m`` consecutive blocks of the larger group L; ``Z_j = s (c_S,j - mean of block
  j)`` has mean ``delta`` and lies in ``[-C, C]``; the betting interval of
  ``(Z + C) / (2C)`` is mapped back.  :func:`choose_variant` switches to ``betting-union``
  by group sizes only (a small group against a much larger one).

  v2, fractional costs: from the pair after the first cost strictly between 0 and its
  maximum (a predictable switch, so 0/1 costs are unchanged), each pair's factor bets on
  the two costs separately, ``(1 + lam (u - a)) (1 - lam (v - b))`` with centres
  ``a - b = delta`` around a running estimate of the groups' common level.  At the true gap
  its conditional mean is ``1 - lam^2 (mu_A - a)^2 <= 1``, and it allows bets up to
  :data:`PAIR_TRUNCATION` ``/ (1/2 + |s - 1/2|)`` (in units of ``1 / C``) instead of about
  ``truncation``, which is what low-variance fractional costs need: 1.93 instead of 2.15
  times Wald's total n for 80% power on Beta(1.5, 8.5) vs Beta(1, 9) costs
  (``benchmarks/betting_fractional.py --reps 300``).  Details in
  :func:`_pair_final_capital`.

Nothing is ordered or paired by cost: the arrangements are uniformly random given the data.

References
----------
I. Waudby-Smith and A. Ramdas. "Estimating means of bounded random variables by betting."
Journal of the Royal Statistical Society, Series B 86(1) (2024) 1-27.

B. Chugg, S. Cortes-Gomez, B. Wilder and A. Ramdas. "Auditing Fairness by Betting."
NeurIPS 2023.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from fairbound._validate import check_choice, fail
from fairbound.errors import FairboundError
from fairbound.stats._betting_blocks import (
    COUNTS_ABOVE,
    MIN_LENGTH,
    bet_caps,
    binary_capital,
    block_summary,
    blocked_capital,
    ones_per_block,
    pair_block_summary,
    stacked_final_capital,
    stacked_pair_capital,
    stopped_mean,
)
from fairbound.stats.base import (
    GroupStats,
    NotEstimable,
    check_confidence_level,
    register_interval,
)

#: Truncation ``c`` of the bets (``lambda <= c / m``): every capital factor stays >= 1 - c.
DEFAULT_TRUNCATION = 0.75


# Number of interior candidates evaluated per refinement step of the interval search, and
# the largest number of (example, candidate) pairs held in memory at once.
_GRID = 16
_CHUNK_CELLS = 1 << 17

_VARIANTS = ("auto", "blocked", "union")


# --------------------------------------------------------------------------- validation
def _check_sequence(x, param: str = "x") -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise FairboundError(f"{param} must be a sequence of numbers in [0, 1]; got {x!r:.60}",
                             param=param) from None
    if arr.ndim != 1:
        raise FairboundError(f"{param} must be one-dimensional; got shape {arr.shape}",
                             param=param)
    if arr.size and not np.all(np.isfinite(arr)):
        bad = arr[~np.isfinite(arr)][0]
        raise FairboundError(f"{param} must be finite; got {float(bad)!r}", param=param)
    if arr.size and (arr.min() < 0.0 or arr.max() > 1.0):
        bad = arr[(arr < 0.0) | (arr > 1.0)][0]
        raise FairboundError(f"{param} must lie in [0, 1]; got {float(bad)!r}", param=param)
    return arr


def _check_number(value, param: str, convert, ok, must: str, must_convert: str):
    """``convert(value)`` when ``ok`` accepts it, else the error "<param> must be ...".

    ``must_convert`` is said when ``convert`` refuses the value, ``must`` when ``ok`` does.
    """
    try:
        x = convert(value)
    except (TypeError, ValueError):
        raise FairboundError(f"{param} must be {must_convert}; got {value!r}",
                             param=param) from None
    if not ok(x):
        raise FairboundError(f"{param} must be {must}; got {value!r}", param=param)
    return x


def _check_truncation(truncation) -> float:
    return _check_number(truncation, "truncation", float, lambda c: 0.0 < c < 1.0,
                         "in (0, 1)", "a number in (0, 1)")


def _check_horizon(horizon, n: int) -> int | None:
    if horizon is None:
        return None
    return _check_number(horizon, "horizon", int, lambda h: h >= 1 and h == horizon,
                         "a positive integer", "a positive integer")


def _check_tol(tol) -> float:
    return _check_number(tol, "tol", float, lambda t: 0.0 < t <= 0.01,
                         "in (0, 0.01]", "a number in (0, 0.01]")


def _validate_mean_interval(x, confidence_level, truncation, horizon, tol=1e-6):
    arr = _check_sequence(x)
    rho = check_confidence_level(confidence_level)
    c = _check_truncation(truncation)
    h = _check_horizon(horizon, arr.size)
    _check_tol(tol)
    return arr, rho, c, h


# --------------------------------------------------------------------------- core loop
def predictable_bets(
    x: np.ndarray, *, alpha: float, horizon: int | None
) -> np.ndarray:
    """Untruncated predictable plug-in bets ``lambda_t`` (Waudby-Smith & Ramdas, eq. 26-27).

    ``lambda_t`` uses only ``x_1 .. x_{t-1}``.  With ``horizon=None`` the open-ended
    schedule ``t log(1 + t)`` replaces the horizon.

    Parameters
    ----------
    x : numpy.ndarray
        Observations in ``[0, 1]``.
    alpha : float
        ``1 - confidence_level``.
    horizon : int or None
        Sample size the bets are tuned for; ``None`` for the open-ended schedule.

    Returns
    -------
    numpy.ndarray
        ``lambda_1 .. lambda_n`` before truncation.

    Examples
    --------
    >>> lam = predictable_bets(np.array([0.0, 1.0, 0.5]), alpha=0.05, horizon=100)
    >>> round(float(lam[0]), 4)  # sqrt(2 log 40 / (100 / 4))
    0.5432
    """
    n = x.size
    t = np.arange(1, n + 1, dtype=float)
    mu = (0.5 + np.cumsum(x)) / (t + 1.0)
    sig2 = (0.25 + np.cumsum((x - mu) ** 2)) / (t + 1.0)
    sig2_prev = np.concatenate(([0.25], sig2[:-1]))
    scale = float(horizon) if horizon is not None else t * np.log1p(t)
    return np.sqrt(2.0 * math.log(2.0 / alpha) / (scale * sig2_prev))


def _max_log_capital(
    x: np.ndarray, lam: np.ndarray, grid: np.ndarray, *, upper: bool, truncation: float,
    running_threshold: float | None = None,
) -> np.ndarray:
    """Max over time of the log capital for every candidate mean in ``grid``.

    ``upper=False`` bets that the mean is above the candidate (``K+``, which rejects
    candidates below the mean); ``upper=True`` bets on the other side (``K-``).  With
    ``running_threshold`` returns instead, for every time ``t``, how many candidates have
    been rejected by then (running maximum of the log capital at or above the threshold).
    """
    grid, cap, sign = bet_caps(grid, upper, truncation)
    n, g = x.size, grid.size
    carry = np.zeros(g)
    best = np.zeros(g)  # capital starts at 1 (log 0)
    chunk = max(1, _CHUNK_CELLS // max(g, 1))
    running = running_threshold is not None
    out = np.empty(n, dtype=np.int64) if running else None
    for start in range(0, n, chunk):
        xs = x[start:start + chunk, None]
        bets = np.minimum(lam[start:start + chunk, None], cap[None, :])
        logk = np.log1p(sign * bets * (xs - grid[None, :]))
        np.cumsum(logk, axis=0, out=logk)
        logk += carry
        carry = logk[-1].copy()
        if running:
            np.maximum.accumulate(logk, axis=0, out=logk)
            np.maximum(logk, best, out=logk)
            out[start:start + chunk] = (logk >= running_threshold).sum(axis=1)
            best = logk[-1].copy()
        else:
            np.maximum(best, logk.max(axis=0), out=best)
    return out if running else best


def _search_bound(
    x: np.ndarray, lam: np.ndarray, threshold: float, *, upper: bool, truncation: float,
    tol: float, capital=None, moments: tuple[float, float, int] | None = None,
) -> float:
    """Conservative end of the kept set, to within ``tol``.

    For the lower end, candidates below ``L`` are rejected and those above kept; the search
    keeps a bracket ``[rejected, kept]`` and refines it on a grid of :data:`_GRID` interior
    points per step.  The returned value is the bracket's outer end, so the reported
    interval always contains the exact one.

    The first step looks where the end usually is (within a few large-sample half-widths
    ``w = sqrt(2 var log(2 / alpha) / n)`` of the mean), which saves about two steps for
    large samples; wherever the end really is, the bracket update stays correct.
    """
    lo, hi = 0.0, 1.0  # for the lower end: lo rejected (or 0), hi kept (or 1)
    mu, var, size = moments if moments is not None else (float(x.mean()), float(x.var()),
                                                          x.size)
    w = math.sqrt(2.0 * var * threshold / size) + 1.0 / size
    first = (mu + w * np.array([-4.0, 1.0])) if not upper else (mu + w * np.array([-1.0, 4.0]))
    first = np.clip(first, 0.0, 1.0)
    step = 0
    while hi - lo > tol:
        grid = np.empty(0)
        if step == 0 and first[1] - first[0] < 0.25:
            grid = np.linspace(first[0], first[1], _GRID)
            grid = grid[(grid > lo) & (grid < hi)]
        if grid.size == 0:
            grid = np.linspace(lo, hi, _GRID + 2)[1:-1]
        step += 1
        if capital is not None:  # blocked capital for long, few-valued sequences
            logk = capital(grid, upper)
        else:
            logk = _max_log_capital(x, lam, grid, upper=upper, truncation=truncation)
        rejected = logk >= threshold
        # K- rejects candidates above U: kept grid points come first, and the bracket
        # [lo, hi] is [kept, rejected]; K+ the reverse.  Either way it closes on the first
        # grid point of the second kind.
        idx = np.flatnonzero(rejected if upper else ~rejected)
        if idx.size == 0:
            lo = grid[-1]
        else:
            j = idx[0]
            hi = grid[j]
            lo = grid[j - 1] if j > 0 else lo
    if upper:
        return float(hi)
    return float(lo)


def _bounds(x, alpha, truncation, horizon, tol):
    if x.size == 0:
        return 0.0, 1.0
    lam = predictable_bets(x, alpha=alpha, horizon=horizon if horizon is not None else x.size)
    thr = math.log(2.0 / alpha)
    capital = blocked_capital(x, lam, truncation)
    low = _search_bound(x, lam, thr, upper=False, truncation=truncation, tol=tol,
                        capital=capital)
    high = _search_bound(x, lam, thr, upper=True, truncation=truncation, tol=tol,
                         capital=capital)
    return low, high


# --------------------------------------------------------------------------- public API
def betting_mean_interval(
    x,
    *,
    confidence_level: float = 0.95,
    truncation: float = DEFAULT_TRUNCATION,
    horizon: int | None = None,
    tol: float = 1e-6,
) -> tuple[float, float]:
    """Hedged-capital betting confidence interval for the mean of values in ``[0, 1]``.

    Parameters
    ----------
    x : array_like
        Observations in ``[0, 1]``, in the order they were drawn (or a random order).
    confidence_level : float, default 0.95
        In (0, 1).
    truncation : float, default 0.75
        The constant ``c`` of the bet truncation ``lambda <= c / m``; in (0, 1).
    horizon : int, optional
        The sample size the bets are tuned for (default ``len(x)``).  Give the planned size
        to look at a growing sample: the intervals at every ``t`` then form one confidence
        sequence (tightest near the horizon; any predictable bets keep the guarantee).
    tol : float, default 1e-6
        Precision of the ends; the interval is widened (never narrowed) to this precision.

    Returns
    -------
    (float, float)
        Lower and upper bound, within ``[0, 1]``.

    Notes
    -----
    Guarantee: for independent observations with common mean ``mu`` (or, more generally,
    whenever ``E[x_t | past] = mu``), ``P(mu not in interval) <= 1 - confidence_level`` for
    every sample size, with no assumption on the variance.  Because the capital's running
    maximum is used, the interval is the running intersection of a confidence sequence: it
    stays valid if the data were inspected after every observation.  It is not an interval
    for a median or for non-exchangeable data whose conditional mean drifts.

    For long sequences with few distinct values (at least 20,000 observations, e.g. 0/1
    costs) the bets are held constant over blocks of consecutive observations and the
    running maximum is taken at block ends (``fairbound.stats._betting_blocks``): still
    predictable bets, so the same guarantee, at a small fraction of the cost.

    An empty ``x`` gives ``(0, 1)``.

    References
    ----------
    I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random variables by
    betting", JRSS-B 86 (2024) 1-27, Theorem 3 and Section 4 (hedged capital, predictable
    plug-in bets).

    Examples
    --------
    >>> rng = np.random.default_rng(2)
    >>> x = rng.binomial(1, 0.3, size=400)
    >>> lo, hi = betting_mean_interval(x, confidence_level=0.95)
    >>> bool(lo < 0.3 < hi), bool(hi - lo < 0.15)
    (True, True)
    """
    arr, rho, c, h = _validate_mean_interval(x, confidence_level, truncation, horizon, tol)
    return _bounds(arr, 1.0 - rho, c, h, float(tol))


@dataclass(frozen=True)
class ConfidenceSequence:
    """Running betting intervals for a mean: ``low[i] <= mu <= high[i]`` for all ``i`` at once.

    Attributes
    ----------
    times : numpy.ndarray
        Number of observations behind each interval.
    low, high : numpy.ndarray
        Bounds at each time; nested (each interval lies inside the previous one).
    confidence_level : float
        Probability that every interval covers the mean simultaneously.
    horizon : int or None
        The horizon the bets were tuned for (``None``: open-ended).
    """

    times: np.ndarray
    low: np.ndarray
    high: np.ndarray
    confidence_level: float
    horizon: int | None

    def to_frame(self):
        """Return the sequence as a pandas DataFrame with columns ``t``, ``low``, ``high``."""
        import pandas as pd

        return pd.DataFrame({"t": self.times, "low": self.low, "high": self.high})

    def to_dict(self) -> dict:
        """Plain-Python form (lists), e.g. for JSON."""
        return {
            "times": [int(t) for t in self.times],
            "low": [float(v) for v in self.low],
            "high": [float(v) for v in self.high],
            "confidence_level": self.confidence_level,
            "horizon": self.horizon,
        }


def _validate_sequence(x, confidence_level, truncation, horizon, times, tol, grid_size):
    arr, rho, c, h = _validate_mean_interval(x, confidence_level, truncation, horizon, tol)
    if isinstance(grid_size, bool) or not (isinstance(grid_size, int | np.integer)
                                           and grid_size >= 2):
        raise FairboundError(f"grid_size must be an integer >= 2; got {grid_size!r}",
                             param="grid_size")
    if times is None:
        t = np.arange(1, arr.size + 1)
    else:
        t = np.asarray(times)
        if t.ndim != 1 or t.size == 0 or not np.issubdtype(t.dtype, np.integer):
            raise FairboundError(f"times must be a non-empty list of integers; got {times!r:.60}",
                                 param="times")
        if t.min() < 1 or t.max() > arr.size or np.any(np.diff(t) <= 0):
            raise FairboundError(
                f"times must increase strictly within 1..{arr.size}; got {times!r:.60}",
                param="times",
            )
    return arr, rho, c, h, t


def betting_confidence_sequence(
    x,
    *,
    confidence_level: float = 0.95,
    truncation: float = DEFAULT_TRUNCATION,
    horizon: int | None = None,
    times=None,
    tol: float = 1e-6,
    grid_size: int = 1024,
) -> ConfidenceSequence:
    """Betting confidence sequence: an interval for the mean after every observation.

    Parameters
    ----------
    x : array_like
        Observations in ``[0, 1]`` in arrival order.
    confidence_level : float, default 0.95
        Probability that all the intervals cover the mean at once.
    truncation : float, default 0.75
        Bet truncation constant ``c`` in (0, 1).
    horizon : int, optional
        Tune the bets for this many observations (tightest near it, valid at every
        ``t <= horizon``).  ``None`` uses the open-ended ``t log(1 + t)`` schedule, valid
        for ever.
    times : sequence of int, optional
        Report only after these numbers of observations; each end is then searched to
        ``tol``.  By default every ``t`` is reported, with ends on a grid of ``grid_size``
        points (rounded outwards, so still valid).
    tol : float, default 1e-6
        Precision of the ends when ``times`` is given.
    grid_size : int, default 1024
        Candidate grid when every time is reported.

    Returns
    -------
    ConfidenceSequence
        ``times``, ``low`` and ``high`` arrays.

    Notes
    -----
    Guarantee: ``P(exists t: mu not in [low_t, high_t]) <= 1 - confidence_level`` (Ville's
    inequality), so one may stop as soon as the interval excludes a value of interest.
    The price is width: at a fixed ``t`` the interval is wider than
    :func:`betting_mean_interval` tuned for that ``t``.

    References
    ----------
    I. Waudby-Smith and A. Ramdas, JRSS-B 86 (2024) 1-27, Section 4 (hedged capital,
    predictable plug-in confidence sequence, eq. 27).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> cs = betting_confidence_sequence(rng.uniform(size=2000), times=[100, 1000, 2000])
    >>> bool(np.all(np.diff(cs.high - cs.low) < 0)), bool(cs.low[-1] < 0.5 < cs.high[-1])
    (True, True)
    """
    arr, rho, c, h, t = _validate_sequence(x, confidence_level, truncation, horizon, times,
                                           tol, grid_size)
    alpha = 1.0 - rho
    thr = math.log(2.0 / alpha)
    lam_full = predictable_bets(arr, alpha=alpha, horizon=h)
    if times is not None:
        lows = np.empty(t.size)
        highs = np.empty(t.size)
        for i, ti in enumerate(t):
            xs, lam = arr[:ti], lam_full[:ti]
            lows[i] = _search_bound(xs, lam, thr, upper=False, truncation=c, tol=tol)
            highs[i] = _search_bound(xs, lam, thr, upper=True, truncation=c, tol=tol)
        # running intersection (each search already uses the running maximum; this only
        # removes differences of the search precision)
        lows = np.maximum.accumulate(lows)
        highs = np.minimum.accumulate(highs)
        return ConfidenceSequence(t, lows, highs, rho, h)
    grid = np.linspace(0.0, 1.0, int(grid_size) + 2)[1:-1]
    # rejected candidates form a prefix of the grid for the lower end ...
    n_rej = _max_log_capital(arr, lam_full, grid, upper=False, truncation=c,
                             running_threshold=thr)
    lows = np.where(n_rej > 0, grid[np.maximum(n_rej - 1, 0)], 0.0)
    # ... and a suffix for the upper end
    n_rej = _max_log_capital(arr, lam_full, grid, upper=True, truncation=c,
                             running_threshold=thr)
    highs = np.where(n_rej > 0, grid[np.minimum(grid.size - n_rej, grid.size - 1)], 1.0)
    return ConfidenceSequence(t, np.maximum.accumulate(lows), np.minimum.accumulate(highs),
                              rho, h)


# --------------------------------------------------------------------------- fixed horizon
# The intervals from GroupStats (group_mean_interval, method="betting" and "betting-union")
# average the final capital over several arrangements of each group's costs; see the module
# docstring for what this guarantees.

#: Arrangements of each group's costs whose capitals are averaged (fixed horizon).
ARRANGEMENTS = 16
#: Default bet truncation of the fixed-horizon intervals (the bets of the confidence
#: sequences keep :data:`DEFAULT_TRUNCATION`).
FIXED_TRUNCATION = 0.9

# At most this many (arrangement, example) cells are kept for the per-example capital;
# fewer arrangements are used for samples so long that 16 would not fit.
_MAX_CELLS = 1 << 22
# Version tag hashed into every arrangement seed (change it and every arrangement changes).
_SALT = b"fairbound.betting.arrangements.v1"
#: Each arrangement's capital is stopped at ``STOP_FACTOR`` times the rejection level.
STOP_FACTOR = 2.0


def _seed_words(rng) -> list[int]:
    """The user's seed as 32-bit words: the same words for the same seed, whatever the state.

    An integer (or ``None``, read as 0) is the seed itself.  A generator is keyed by the seed
    it was created from (its ``SeedSequence`` entropy and spawn key), not by its current
    state, so that the same data and seed give the same interval at every call
    (:func:`fairbound.stats.difference_interval` turns ``rng=None`` into seed 0).
    """
    if isinstance(rng, np.random.Generator):
        seq = getattr(rng.bit_generator, "seed_seq", None)
        entropy = getattr(seq, "entropy", None)
        if entropy is None:
            return [0]
        ent = [int(e) for e in np.atleast_1d(np.asarray(entropy, dtype=object))]
        key = [int(s) for s in getattr(seq, "spawn_key", ())]
        words = ent + ([0xFFFFFFFF, *key] if key else [])
    elif rng is None or isinstance(rng, bool):
        words = [0]
    else:
        try:
            words = [int(e) for e in np.atleast_1d(np.asarray(rng, dtype=object))]
        except (TypeError, ValueError):
            raise FairboundError(f"rng must be a numpy Generator, an integer or None; got "
                                 f"{rng!r:.60}", param="rng") from None
    out = []
    for w in words:
        if w < 0:
            raise FairboundError(f"rng must be a non-negative seed; got {w}", param="rng")
        out.extend(_split_words(w))
    return out


def _split_words(value: int) -> list[int]:
    words = [value & 0xFFFFFFFF]
    value >>= 32
    while value:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
    return words


def _sorted_costs(g: GroupStats) -> np.ndarray | None:
    """The group's costs scaled to ``[0, 1]`` and sorted; ``None`` for 0/1 costs."""
    if g.binary:
        return None
    if g.sample is None:
        g.costs(np.random.default_rng(0))  # raises the NotEstimable message
    return np.sort(np.clip(np.asarray(g.sample, dtype=float) / g.cost_max, 0.0, 1.0))


def _digest(g: GroupStats, values: np.ndarray | None) -> list[int]:
    """32-bit words of a hash of the group's sufficient statistics (and sorted sample)."""
    h = hashlib.blake2b(_SALT, digest_size=16)
    if values is None:
        h.update(b"counts" + np.array([round(g.n), g.count], dtype=np.int64).tobytes())
    else:
        # costs in units of cost_max, rounded to 12 decimals: the same data at another scale
        # (or with last-bit rounding differences) get the same arrangements
        h.update(b"sample" + np.ascontiguousarray(np.round(values, 12)).tobytes())
    return np.frombuffer(h.digest(), dtype=np.uint32).tolist()


class _Arranger:
    """Independent uniformly random arrangements of one group's costs (in ``[0, 1]``).

    Seeded from the user's seed, a hash of the group's statistics (and its sorted sample)
    and ``stream``: different data sets get different arrangements, the same data and seed
    always the same ones.
    """

    def __init__(self, g: GroupStats, seed: list[int], stream: int = 0):
        self.values = _sorted_costs(g)
        self.n = int(round(g.n)) if self.values is None else self.values.size
        self.k = g.count if self.values is None else 0
        words = [*seed, 0xA5A5A5A5, *_digest(g, self.values), stream]
        self.gen = np.random.default_rng(np.random.SeedSequence(words))

    def draw(self) -> np.ndarray:
        """One arrangement of the costs."""
        if self.values is None:
            flags = np.zeros(self.n, dtype=np.int8)
            flags[:self.k] = 1
            self.gen.shuffle(flags)
            return flags.astype(float)
        return self.gen.permutation(self.values)

    def draw_flagged(self) -> tuple[np.ndarray, np.ndarray]:
        """One arrangement (as :meth:`draw`) and which of its costs lie strictly in (0, 1)."""
        x = self.draw()
        if self.values is None:
            return x, np.zeros(x.size, dtype=bool)
        return x, (x > 0.0) & (x < 1.0)

    def draw_block_means(self, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """Means over consecutive blocks of one arrangement (0/1 costs: from counts)."""
        return self.draw_block_means_flagged(starts, sizes)[0]

    def draw_block_means_flagged(self, starts: np.ndarray, sizes: np.ndarray
                                 ) -> tuple[np.ndarray, np.ndarray]:
        """Block means (as :meth:`draw_block_means`) and which blocks hold a cost in (0, 1)."""
        if sizes.size == self.n:
            return self.draw_flagged()
        none = np.zeros(sizes.size, dtype=bool)
        if self.values is None and self.n > 32 * sizes.size:
            # ones per block of a random arrangement, from counts: O(blocks), not O(n)
            return ones_per_block(sizes, self.k, self.gen) / sizes, none
        if self.values is None:
            return np.add.reduceat(self.draw(), starts) / sizes, none
        x = self.gen.permutation(self.values)
        inside = (x > 0.0) & (x < 1.0)
        return np.add.reduceat(x, starts) / sizes, np.logical_or.reduceat(inside, starts)


#: 0/1 costs are rebuilt from counts held in 64-bit integers: fewer examples than this.
MAX_COUNT_N = 2**63


def _check_count_n(g: GroupStats, param: str) -> None:
    """Refuse 0/1 statistics with ``2**63`` or more examples (one line, not an overflow)."""
    if g.binary and g.n >= MAX_COUNT_N:
        fail(f"{param}.n", "below 2**63 for the betting methods (0/1 costs are rebuilt from "
             "64-bit counts)", g.n)


def _n_arrangements(requested: int, length: int) -> int:
    return max(1, min(int(requested), _MAX_CELLS // max(int(length), 1)))


def _final_capital(seqs: list[np.ndarray], alpha: float, truncation: float, stop: float):
    """``capital(grid, upper)``: averaged fixed-horizon e-values of several arrangements.

    Every sequence is one arrangement of the same data (same length); each contributes its
    capital stopped at level ``exp(stop)`` (``_betting_blocks.stopped_mean``).  Long
    few-valued sequences use bets constant over blocks (``_betting_blocks``); others the
    per-example capital.
    """
    n = seqs[0].size
    lams = [predictable_bets(y, alpha=alpha, horizon=n) for y in seqs]
    summaries = [block_summary(y, lam) for y, lam in zip(seqs, lams, strict=True)]
    if all(s is not None for s in summaries):
        return stacked_final_capital(summaries, truncation, stop)
    ys, lam = np.stack(seqs), np.stack(lams)
    n_arr = ys.shape[0]

    def capital(grid: np.ndarray, upper: bool) -> np.ndarray:
        grid, cap, sign = bet_caps(grid, upper, truncation)
        carry = np.zeros((n_arr, grid.size))
        best = np.zeros((n_arr, grid.size))
        chunk = max(1, _CHUNK_CELLS // (n_arr * grid.size))
        for start in range(0, n, chunk):
            y = ys[:, start:start + chunk, None]
            bets = np.minimum(lam[:, start:start + chunk, None], cap)
            logk = np.log1p(sign * bets * (y - grid))
            np.cumsum(logk, axis=1, out=logk)
            logk += carry[:, None, :]
            np.maximum(best, logk.max(axis=1), out=best)
            carry = logk[:, -1]
        return stopped_mean(carry, best, stop)

    # candidates per call of the search: several where numpy's per-call overhead dominates
    capital.points = int(min(15, max(1, (1 << 16) // (n_arr * n))))
    return capital


#: Truncation of the bets on both groups (fractional costs): every factor stays >= 0.01.
PAIR_TRUNCATION = 0.99


def _pair_steps(y: np.ndarray, u: np.ndarray, v: np.ndarray, fractional: np.ndarray,
                alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predictable quantities of one arrangement of blocked pairs.

    Returns the bets on the difference in units of ``C`` (half the plug-in bets on
    ``y = (1 + u - v) / 2``), the centre ``s_{t-1} = (1/2 + sum_{i<t} (u_i + v_i) / 2) / t``
    and whether step ``t`` bets on both groups: from the step after the first pair holding
    a cost strictly between 0 and its maximum (never for 0/1 costs).
    """
    n = y.size
    lam = predictable_bets(y, alpha=alpha, horizon=n) / 2.0
    s = (0.5 + np.cumsum(0.5 * (u + v))) / np.arange(2.0, n + 2.0)
    center = np.concatenate(([0.5], s[:-1]))
    first = int(np.argmax(fractional)) if fractional.any() else n
    return lam, center, np.arange(n) > first


def _pair_final_capital(seqs: list[np.ndarray], pairs: list[tuple], alpha: float,
                        truncation: float, stop: float):
    """``capital(grid, upper)`` for blocked pairs that bet on each group's cost (v2).

    ``seqs`` are the sequences ``y = (1 + u - v) / 2`` of :func:`_blocked_interval` and
    ``pairs`` the matching ``(u, v, fractional)``: A's and B's costs in each pair, in units
    of ``C``, and whether the pair holds a cost strictly between 0 and its maximum.  A
    candidate ``m`` for the mean of ``y`` is the gap ``delta = 2 m - 1``.

    Each step ``t`` multiplies the capital ``K+`` (which rejects gaps below the true one)
    by one of two factors, chosen from the past only (:func:`_pair_steps`):

    * until a fractional cost has been seen, the factor on the difference of v1,
      ``1 + lam_Y (y - m)`` with ``lam_Y = min(2 lam, truncation / m)``, so 0/1 costs give
      exactly the v1 interval;
    * afterwards a factor that bets on the two groups separately, centred at
      ``a = s + delta / 2`` for A and ``b = s - delta / 2`` for B, where ``s`` estimates
      ``(mu_A + mu_B) / 2`` from the past:

          (1 + lam (u - a)) (1 - lam (v - b)) = (1 + lam (p - m)) (1 + lam (r - m)),
          p = u - s + 1/2,  r = 1/2 + s - v,  lam = min(lam_t, c / (m + |s - 1/2|)),

      with ``c =`` :data:`PAIR_TRUNCATION`.  When ``delta`` is the true gap,
      ``mu_A - a = mu_B - b =: e`` and, A's and B's costs being independent, the factor has
      conditional mean ``(1 + lam e) (1 - lam e) = 1 - lam^2 e^2 <= 1``: the capital is a
      non-negative supermartingale whatever ``s``, so a stopped capital is an e-value.  The
      cap keeps both factors >= ``1 - c`` for all costs in ``[0, 1]``, and each factor
      decreases in ``m`` (for ``s <= 1/2`` the cap binds on B's factor, whose minimum is at
      ``v = 1``; above on A's), so the rejected candidates still form an interval.

    Betting on the difference alone must keep ``1 + lam (u - v - delta) >= 0`` at ``u = 0,
    v = 1``, which caps ``lam`` at about 1 on the gap scale ``C``; for costs of small
    variance (Beta(1.5, 8.5) vs Beta(1, 9): the plug-in bet is about 1.7 at 120 pairs)
    that cap binds at nearly every step.  The product bets up to ``c / (m + |s - 1/2|)``,
    1.13 there instead of 0.9: the total n for 80% power falls from 2.15 to 1.93 times
    Wald's (``benchmarks/betting_fractional.py --reps 300``).  Each of the two factors is
    the betting factor of Waudby-Smith & Ramdas (JRSS-B 2024, Sec. 4) for one group's mean
    at a hypothesised value, with their fixed-horizon plug-in bet; the common bet and the
    plugged-in level ``s`` are what make the product a supermartingale for the composite
    null "gap = delta" (the calculation above: a wrong ``s`` costs the ``lam^2 e^2``, not
    the validity).  Chugg et al. (NeurIPS 2023) bet on the difference, as v1 does.
    ``upper=True`` gives ``K-``, the mirror image: ``(1 - lam (p - m)) (1 - lam (r - m))``
    with ``lam = min(lam_t, c / (1 - m + |s - 1/2|))``.

    The guarantee is that of the module docstring (exchangeable examples within each group,
    independent groups); the switch between the two factors, the bets, the centre and the
    caps use past pairs only.  Long sequences with few distinct values use the same factors
    with bets, centres and the switch held constant over blocks
    (:func:`fairbound.stats._betting_blocks.stacked_pair_capital`).
    """
    n, n_arr = seqs[0].size, len(seqs)
    summaries = []
    for y, (u, v, f) in zip(seqs, pairs, strict=True):
        summary = (pair_block_summary(u, v, y, *_pair_steps(y, u, v, f, alpha))
                   if n >= MIN_LENGTH else None)
        if summary is None:
            break
        summaries.append(summary)
    else:
        return stacked_pair_capital(summaries, truncation, PAIR_TRUNCATION, stop)
    # per example: p and r (y where the step bets on the difference), |s - 1/2|, 1 / lam
    p, r, dist, inv_lam = (np.empty((n_arr, n)) for _ in range(4))
    head = np.empty(n_arr, dtype=np.int64)  # steps that bet on the difference
    for j, (y, (u, v, f)) in enumerate(zip(seqs, pairs, strict=True)):
        lam, center, both = _pair_steps(y, u, v, f, alpha)
        head[j] = k = n - int(np.count_nonzero(both))
        np.subtract(u, center, out=p[j])
        p[j] += 0.5
        np.add(center, 0.5, out=r[j])
        r[j] -= v
        p[j, :k] = r[j, :k] = y[:k]
        np.subtract(center, 0.5, out=dist[j])
        np.abs(dist[j], out=dist[j])
        np.divide(1.0, lam, out=inv_lam[j])
    diff = np.arange(n)[None, :] < head[:, None]  # steps that bet on the difference
    k0 = int(head.max())  # from step k0 on, every arrangement bets on both groups
    ch = PAIR_TRUNCATION
    buffers: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}

    def capital(grid: np.ndarray, upper: bool) -> np.ndarray:
        grid = np.atleast_1d(np.asarray(grid, dtype=float))
        g = grid.size
        mm = (1.0 - grid if upper else grid)[None, :, None]
        gg = grid[None, :, None]
        sg = -1.0 if upper else 1.0
        carry = np.zeros((n_arr, g))
        best = np.zeros((n_arr, g))
        chunk = max(1, _CHUNK_CELLS // (n_arr * g))
        key = (min(chunk, n), g)
        if key not in buffers:  # reused: fresh large arrays cost page faults at every call
            buffers[key] = tuple(np.empty((n_arr, g, key[0])) for _ in range(3))
        # layout (arrangement, candidate, time): numpy's inner loops run along time
        for start in range(0, n, chunk):
            end = min(start + chunk, n)
            sl = slice(start, end)
            bet, x1, x2 = (b[:, :, :end - start] for b in buffers[key])
            np.add(dist[:, None, sl], mm, out=bet)  # 1 / lam_max = (m' + |s - 1/2|) / c
            bet *= 1.0 / ch
            if start < k0:  # ... or 2 m' / truncation where the step bets on the difference
                np.copyto(bet, 2.0 * mm / truncation, where=diff[:, None, sl])
            np.maximum(bet, inv_lam[:, None, sl], out=bet)
            np.divide(sg, bet, out=bet)
            np.subtract(p[:, None, sl], gg, out=x1)
            x1 *= bet
            np.subtract(r[:, None, sl], gg, out=x2)
            x2 *= bet
            if start < k0:  # on the difference: 1 + x1 + x2 = 1 + lam_Y (y - m) (p = r = y)
                np.multiply(x1, x2, out=bet)
                bet *= diff[:, None, sl]
            x1 += 1.0
            x2 += 1.0
            x1 *= x2  # (1 + x1) (1 + x2)
            if start < k0:
                x1 -= bet
            np.log(x1, out=x1)
            np.cumsum(x1, axis=2, out=x1)
            x1 += carry[:, :, None]
            np.maximum(best, x1.max(axis=2), out=best)
            carry = x1[:, :, -1].copy()
        return stopped_mean(carry, best, stop)

    # candidates per call of the search: several where numpy's per-call overhead dominates
    capital.points = int(min(15, max(1, (1 << 16) // (n_arr * n))))
    return capital


def _search_root(capital, threshold: float, *, upper: bool, tol: float,
                 moments: tuple[float, float, int], plateau: float = math.inf,
                 points: int = 1) -> float:
    """Conservative end of the kept set of a monotone capital, to within ``tol``.

    ``capital(grid, upper)`` is the log of an e-value for each candidate: non-increasing in
    the candidate for the lower end (``K+``), non-decreasing for the upper end (``K-``);
    candidates where it reaches ``threshold`` are rejected.  It may jump (an arrangement's
    stopped capital jumps to its stop level) and it is flat at ``plateau`` (every
    arrangement stopped).  A bracket ``[rejected, kept]`` is refined by the Illinois
    variant of regula falsi, with bisection whenever a step fails to halve the bracket or
    an end lies on the plateau (after two failed steps, when the end sits at a jump, only
    bisection), and its rejected end is returned, so the reported interval contains the
    exact one.  With ``points > 1`` (cheap capitals, where a call costs about the same for
    a few candidates as for one) the bracket is first refined on grids of ``points``
    interior candidates per call.
    """
    mu, var, size = moments
    mu = min(max(mu, 0.0), 1.0)
    w = math.sqrt(2.0 * var * threshold / size) + 1.0 / size
    sgn = 1.0 if upper else -1.0  # direction from the mean towards rejected candidates
    edge, inner = (1.0, 0.0) if upper else (0.0, 1.0)

    def h(m):
        return capital(np.asarray(m, dtype=float), upper) - threshold

    def clip(m):
        return min(max(m, 0.0), 1.0)

    # the end is usually 1-1.6 large-sample half-widths from the mean
    p1, p2 = clip(mu + sgn * 1.0 * w), clip(mu + sgn * 1.6 * w)
    h1, h2 = h([p1, p2])
    if h2 < 0:  # both kept: walk outwards until a candidate is rejected
        kept, hk, step = p2, h2, 1.6 * w
        while True:
            if kept == edge:
                return edge  # nothing on this side is rejected
            step *= 2.0
            cand = clip(mu + sgn * step)
            hc = h([cand])[0]
            if hc >= 0:
                rejected, hr = cand, hc
                break
            kept, hk = cand, hc
    elif h1 >= 0:  # both rejected: walk inwards until a candidate is kept
        rejected, hr, step = p1, h1, 1.0 * w
        while True:
            if rejected == inner:
                return inner  # every candidate is rejected on this side
            step = step / 2.0 if step > 0.25 * w else -2.0 * max(abs(step), w)
            cand = clip(mu + sgn * step) if step > 0 else clip(mu - sgn * abs(step))
            if (cand - rejected) * sgn >= 0:  # no progress inwards: jump to the far side
                cand = inner
            hc = h([cand])[0]
            if hc < 0:
                kept, hk = cand, hc
                break
            rejected, hr = cand, hc
    else:
        kept, hk, rejected, hr = p1, h1, p2, h2
    side, guess = 0, None
    bisect, fails = False, 0
    while abs(kept - rejected) > tol and points > 1:  # a grid of candidates per call
        grid = np.linspace(min(kept, rejected), max(kept, rejected), points + 2)[1:-1]
        rej = h(grid) >= 0
        if upper:  # kept candidates first
            i = int(np.argmax(rej)) if rej.any() else grid.size
            kept = grid[i - 1] if i > 0 else kept
            rejected = grid[i] if i < grid.size else rejected
        else:  # rejected candidates first
            i = int(np.argmin(rej)) if not rej.all() else grid.size
            rejected = grid[i - 1] if i > 0 else rejected
            kept = grid[i] if i < grid.size else kept
    while abs(kept - rejected) > tol:
        width = abs(kept - rejected)
        lo, hi = min(kept, rejected), max(kept, rejected)
        if bisect or fails >= 2 or hr >= plateau - 1e-12:
            cand, guess = 0.5 * (lo + hi), None
        else:
            cand = rejected + (kept - rejected) * hr / (hr - hk)
            if guess is not None and abs(cand - guess) < 0.5 * tol:
                # the estimate has settled: step just across it, towards the end that
                # has not moved, to close the bracket
                stale = kept if side == 1 else rejected
                cand += math.copysign(0.5 * tol, stale - cand)
            guess = cand
        cand = min(max(cand, lo + 0.125 * tol), hi - 0.125 * tol)
        hc = h([cand])[0]
        if hc >= 0:
            rejected, hr = cand, hc
            if side == 1:
                hk *= 0.5  # Illinois: the kept end was retained twice
            side = 1
        else:
            kept, hk = cand, hc
            if side == -1:
                hr *= 0.5
            side = -1
        failed = abs(kept - rejected) > 0.5 * width and not bisect
        fails += failed  # twice: the end sits at a jump, where only bisection helps
        bisect = failed
    return float(rejected)


def _stop_level(alpha: float) -> float:
    return math.log(2.0 / alpha) + math.log(STOP_FACTOR)


def _fixed_bounds(capital, alpha: float, moments, tol: float = 1e-6) -> tuple[float, float]:
    thr = math.log(2.0 / alpha)
    top = _stop_level(alpha) - thr  # the averaged stopped capital cannot exceed this
    points = getattr(capital, "points", 1)
    low = _search_root(capital, thr, upper=False, tol=tol, moments=moments, plateau=top,
                       points=points)
    high = _search_root(capital, thr, upper=True, tol=tol, moments=moments, plateau=top,
                        points=points)
    return min(low, high), max(low, high)


def _group_bounds(g: GroupStats, alpha: float, truncation: float, seed: list[int],
                  arrangements: int) -> tuple[float, float]:
    """Fixed-horizon betting interval for one group's mean, in ``[0, 1]`` units."""
    arr = _Arranger(g, seed)
    if arr.values is None and arr.n >= MIN_LENGTH:
        # long 0/1 sequences: from counts, in time and memory independent of n
        capital, moments = binary_capital(arr.n, arr.k, alpha=alpha, truncation=truncation,
                                          rng=arr.gen, arrangements=arrangements,
                                          stop=_stop_level(alpha))
        return _fixed_bounds(capital, alpha, moments)
    k = _n_arrangements(arrangements, arr.n)
    seqs = [arr.draw() for _ in range(k)]
    x = seqs[0]
    capital = _final_capital(seqs, alpha, truncation, _stop_level(alpha))
    return _fixed_bounds(capital, alpha, (float(x.mean()), float(x.var()), x.size))


def group_mean_interval(
    stats: GroupStats,
    *,
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = None,
    truncation: float = FIXED_TRUNCATION,
    arrangements: int = ARRANGEMENTS,
) -> tuple[float, float]:
    """Betting interval for one group's mean cost, in cost units ``[0, C]``.

    Parameters
    ----------
    stats : GroupStats
        The group's statistics; 0/1 costs are rebuilt from counts, other costs need
        ``stats.sample``.
    confidence_level : float, default 0.95
        In (0, 1).
    rng : numpy.random.Generator or int, optional
        Seed of the arrangements (``None`` is seed 0; a generator counts by the seed it was
        made from, so the same input always gives the same interval).
    truncation : float, default 0.75
        Bet truncation constant.
    arrangements : int, default 16
        Number of random arrangements whose final capitals are averaged.

    Returns
    -------
    (float, float)
        Bounds on ``E[cost]``.

    Notes
    -----
    Finite-sample valid for every group size under exchangeability, with the arrangements
    keyed by a hash of the data (see the module docstring).  This is the per-group unit of
    the union-bound and simultaneous intervals.

    Examples
    --------
    >>> lo, hi = group_mean_interval(GroupStats.from_counts(200, 30))
    >>> bool(lo < 0.15 < hi), (lo, hi) == group_mean_interval(GroupStats.from_counts(200, 30))
    (True, True)
    """
    if not isinstance(stats, GroupStats):
        raise FairboundError(f"stats must be a GroupStats; got {type(stats).__name__}",
                             param="stats")
    rho = check_confidence_level(confidence_level)
    c = _check_truncation(truncation)
    k = _check_arrangements(arrangements)
    if stats.n <= 0:
        raise NotEstimable("the group has no annotated examples")
    _check_count_n(stats, "stats")
    lo, hi = _group_bounds(stats, 1.0 - rho, c, _seed_words(rng), k)
    return lo * stats.cost_max, hi * stats.cost_max


def _check_arrangements(arrangements) -> int:
    if isinstance(arrangements, bool) or not (isinstance(arrangements, int | np.integer)
                                              and 1 <= arrangements <= 1024):
        raise FairboundError(f"arrangements must be an integer in 1..1024; got "
                             f"{arrangements!r}", param="arrangements")
    return int(arrangements)


def blocked_pairs(
    a_costs: np.ndarray, b_costs: np.ndarray
) -> tuple[np.ndarray, int]:
    """Blocked-pair differences ``Z_j`` (mean ``delta``) from two shuffled cost arrays.

    The smaller group S (``m`` examples; A on a tie) is paired with ``m`` consecutive blocks
    of the larger group, of sizes ``floor`` or ``ceil(n_L / m)``, so that every example is
    used once.  ``Z_j = s (c_S,j - mean of block j)`` with ``s = +1`` when S is A, else
    ``-1``.

    Parameters
    ----------
    a_costs, b_costs : numpy.ndarray
        Costs of groups A and B, each already in a random order.

    Returns
    -------
    (numpy.ndarray, int)
        The ``m`` differences and ``s``.

    Examples
    --------
    >>> z, s = blocked_pairs(np.array([1.0, 0.0]), np.array([0.0, 1.0, 1.0, 1.0, 0.0]))
    >>> z.tolist(), s  # blocks [0, 1] and [1, 1, 0]
    ([0.5, -0.6666666666666666], 1)
    """
    if a_costs.size <= b_costs.size:
        small, large, s = a_costs, b_costs, 1
    else:
        small, large, s = b_costs, a_costs, -1
    m, n_l = small.size, large.size
    starts = (np.arange(m, dtype=np.int64) * n_l) // m
    sizes = np.diff(np.append(starts, n_l))
    block_means = np.add.reduceat(large, starts) / sizes
    return s * (small - block_means), s


def _union_interval(a, b, rho, seed, truncation, arrangements):
    alpha = 1.0 - rho
    la, ua = _group_bounds(a, alpha / 2.0, truncation, seed, arrangements)
    lb, ub = _group_bounds(b, alpha / 2.0, truncation, seed, arrangements)
    return la * a.cost_max - ub * b.cost_max, ua * a.cost_max - lb * b.cost_max


def _blocked_interval(a, b, rho, seed, truncation, arrangements):
    C = max(a.cost_max, b.cost_max)
    arr_a, arr_b = _Arranger(a, seed), _Arranger(b, seed)
    tie = _digest(a, arr_a.values) == _digest(b, arr_b.values)
    if tie:
        # identical data: draw the two groups from two streams, and swap the pair of
        # arrangements in every other sequence, so the set of sequences is closed under
        # negation (and relabelling the groups mirrors the interval exactly)
        arr_b = _Arranger(b, seed, stream=1)
    # as blocked_pairs: the smaller group S (A on a tie) against blocks of the larger one
    if arr_a.n <= arr_b.n:
        small, large, sign, c_s, c_l = arr_a, arr_b, 1.0, a.cost_max, b.cost_max
    else:
        small, large, sign, c_s, c_l = arr_b, arr_a, -1.0, b.cost_max, a.cost_max
    m, n_l = small.n, large.n
    starts = (np.arange(m, dtype=np.int64) * n_l) // m
    sizes = np.diff(np.append(starts, n_l))
    k = _n_arrangements(arrangements, m)
    seqs, pairs = [], []
    for j in range(k):
        if not (tie and j % 2):
            xs, fs = small.draw_flagged()
            xl, fl = large.draw_block_means_flagged(starts, sizes)
            xs, xl = xs * c_s, xl * c_l
        else:  # the previous pair of arrangements, swapped
            xs, xl, fs, fl = xl, xs, fl, fs
        z = sign * (xs - xl)
        seqs.append(np.clip((z + C) / (2.0 * C), 0.0, 1.0))
        u, v = (xs, xl) if sign > 0 else (xl, xs)
        pairs.append((u / C, v / C, fs | fl) if C != 1.0 else (u, v, fs | fl))
    alpha = 1.0 - rho
    if any(f.any() for _, _, f in pairs):
        capital = _pair_final_capital(seqs, pairs, alpha, truncation, _stop_level(alpha))
    else:  # 0/1 costs only: every step bets on the difference (identical to v1)
        capital = _final_capital(seqs, alpha, truncation, _stop_level(alpha))
    y = seqs[0]
    lo, hi = _fixed_bounds(capital, alpha, (float(y.mean()), float(y.var()), y.size))
    return 2.0 * C * lo - C, 2.0 * C * hi - C


def _check_variant(variant) -> str:
    return check_choice(variant, _VARIANTS, "variant", fold=True)


# Width of 'blocked' / width of 'union' (95%, default seed, mean of 3 data sets per cell;
# equal rates in both groups; p = 0/1 costs at rate p, beta_low = Beta(1, 9), beta_mid =
# Beta(2, 2)), measured to choose the rule below.  ">" marks cells where the union is
# narrower; the rule picks, per (n_S, ratio), the variant whose worst case over these costs
# is smaller (minimax), which no size-only rule can beat everywhere:
#
#   n_S  ratio n_L/n_S:  1     4     8     12    20    30    50    100   200   (worst case:
#   10   p.02         0.89  1.30> 1.43> 1.42> 1.45> 1.61> 1.64> 1.68> 1.50>  blocked/union)
#        p.3          0.74  0.76  0.82  0.96  0.91  0.97  1.04> 1.00  1.06>
#        beta_low     0.78  1.15> 1.25> 1.36> 1.44> 1.43> 1.47> 1.49> 1.49>
#        minimax      B     B     U     U     U     U     U     U     U
#   20   p.02         0.89  1.03> 1.28> 1.38> 1.35> 1.40> 1.45> 1.33> 1.54>
#        p.3          0.69  0.71  0.73  0.76  0.81  0.82  0.84  0.91  0.90
#        beta_low     0.71  1.04> 1.17> 1.21> 1.27> 1.28> 1.30> 1.32> 1.35>
#        minimax      B     B     B     U     U     U     U     U     U
#   30   p.02         0.84  1.18> 1.36> 1.10> 1.31> 1.39> 1.43> 1.50> 1.53>
#        p.3          0.65  0.69  0.72  0.73  0.76  0.78  0.80  0.83  0.86
#        minimax      B     B     B     B     B(tie) U     U     U     U
#   45   p.02         -     -     1.00  1.03> -     1.21> 1.19> -     1.49>
#        minimax                  B     B           B     U(tie)      U
#   60   p.02         0.79  0.92  1.06> 0.92  0.99  1.12> 1.23> 1.35> 1.39>
#        p.1          0.63  0.69  0.73  0.73  0.77  0.77  0.85  0.91  0.86
#        minimax      B     B     B     B     B     B     B(tie) U     U
#   100  p.02 / beta  -     -     0.96/ 0.97/ -     1.01/ 1.11/ -     1.19/1.17 (p.1: 0.80)
#        minimax                  B     B           B     B           B
#   150+ union narrower only at p.02 / beta_low with ratio >= 100, by <= 8%: B everywhere
#   500, 2000: blocked narrower in every cell (0.58-0.91)
#
# Fitted boundary: union exactly when n_L / n_S >= max(8, (n_S / 6)^2).
def choose_variant(n_a: float, n_b: float, variant: str = "auto", *,
                   binary: bool = False) -> str:
    """``'blocked'`` or ``'union'`` for ``method="betting"``, from group sizes only.

    ``'auto'`` gives ``'union'`` when the larger group is at least ``max(8, (n_S / 6)^2)``
    times the smaller one (``n_S`` examples): a small group against a much larger one, where
    the per-group intervals are narrower for rare or low-variance costs and at most about
    20% wider otherwise (the grid above this function).  Otherwise ``'blocked'``, which is
    the narrower one for equal or moderately unequal groups of any size (by 10-35%).  For
    0/1 costs (``binary=True``) with at least ``COUNTS_ABOVE`` (one million) examples in the
    smaller group it also gives ``'union'``, computed from counts in time and memory that do
    not grow with n; this is the one choice made for speed rather than width (blocked pairs
    would be about 20-35% narrower, on intervals already narrower than 0.003).

    The observed costs never enter the choice, which keeps the interval valid.

    Examples
    --------
    >>> choose_variant(20, 5000), choose_variant(20, 100), choose_variant(400, 5000)
    ('union', 'blocked', 'blocked')
    """
    v = _check_variant(variant)
    if v != "auto":
        return v
    small, large = min(n_a, n_b), max(n_a, n_b)
    if small <= 0 or (binary and small >= COUNTS_ABOVE):
        return "union"
    return "union" if large / small >= max(8.0, (small / 6.0) ** 2) else "blocked"


def approximate_required_n(
    a: GroupStats, b: GroupStats, confidence_level: float, *, variant: str = "auto",
    truncation: float = FIXED_TRUNCATION, arrangements: int = ARRANGEMENTS,
) -> float:
    """Approximate total n (same shares) at which the betting interval would exclude 0.

    Parameters
    ----------
    a, b : GroupStats
        Observed statistics; their means, variances and shares are kept.
    confidence_level : float
        Level of the interval.
    variant : {'auto', 'blocked', 'union'}
        As for ``method="betting"``.
    truncation, arrangements
        Accepted for signature compatibility with the method's options (the large-sample
        width does not depend on them).

    Returns
    -------
    float
        Total examples ``n_A + n_B``; ``inf`` when the gap is 0.

    Notes
    -----
    Uses the large-sample half-width of the averaged betting interval with plug-in bets,
    ``sqrt(2 var log(2 s / alpha) / m)`` for ``m`` observations of variance ``var``, where
    ``s =`` :data:`STOP_FACTOR` (the averaged capital of the typical arrangement must reach
    about ``s`` times the rejection level): for blocked pairs ``var = var_S + var_L / k``
    with ``k = n_L / n_S`` examples per block; for the union bound the two groups'
    half-widths at ``alpha / 2`` are added.  The observed gap is taken as the truth (a
    50%-power plan).  For a plan at a target power,
    :func:`fairbound.planning.power.solve_power` simulates.

    Examples
    --------
    >>> a, b = GroupStats.from_counts(500, 75), GroupStats.from_counts(500, 50)
    >>> round(approximate_required_n(a, b, 0.95))
    1525
    """
    rho = check_confidence_level(confidence_level)
    alpha = 1.0 - rho
    d = abs(a.mean - b.mean)
    if not d > 0:
        return math.inf
    n = a.n + b.n
    p = a.n / n
    small, large = (a, b) if a.n <= b.n else (b, a)
    k = large.n / small.n
    var_z = small.var + large.var / k
    # the averaged, stopped capital of the typical arrangement has to reach about
    # STOP_FACTOR times the rejection level
    level = math.log(2.0 * STOP_FACTOR / alpha)
    m = 2.0 * var_z * level / (d * d)
    n_blocked = max(m * n / small.n, 2.0 / min(p, 1 - p))
    spread = math.sqrt(a.var) / math.sqrt(p) + math.sqrt(b.var) / math.sqrt(1 - p)
    n_union = 2.0 * math.log(4.0 * STOP_FACTOR / alpha) * spread * spread / (d * d)
    v = _check_variant(variant)
    if v == "auto":
        n_v = n_blocked
        v = choose_variant(n_v * p, n_v * (1 - p), binary=a.binary and b.binary)
        if v == "union":
            n_v = n_union
            v = choose_variant(n_v * p, n_v * (1 - p), binary=a.binary and b.binary)
    return n_blocked if v == "blocked" else n_union


def _union_required_n(a, b, confidence_level, *, truncation=FIXED_TRUNCATION,
                      arrangements=ARRANGEMENTS):
    return approximate_required_n(a, b, confidence_level, variant="union")


@register_interval(
    "betting",
    random=True,
    guarantee="finite-sample",
    summary="Hedged-capital betting interval on blocked pairs (per-group union when one group "
            "is far larger), capital averaged over 16 arrangements.",
    reference="Waudby-Smith & Ramdas, JRSS-B 2024; Chugg et al., NeurIPS 2023",
    needs_order=True,
    options=("variant", "truncation", "arrangements"),
    required_n=approximate_required_n,
)
def _betting(a, b, rho, *, rng, variant="auto", truncation=FIXED_TRUNCATION,
             arrangements=ARRANGEMENTS):
    c = _check_truncation(truncation)
    k = _check_arrangements(arrangements)
    seed = _seed_words(rng)
    _check_count_n(a, "a")
    _check_count_n(b, "b")
    if choose_variant(a.n, b.n, variant, binary=a.binary and b.binary) == "union":
        return _union_interval(a, b, rho, seed, c, k)
    return _blocked_interval(a, b, rho, seed, c, k)


@register_interval(
    "betting-union",
    random=True,
    guarantee="finite-sample",
    summary="Hedged-capital betting interval per group at alpha/2, difference of the bounds.",
    reference="Waudby-Smith & Ramdas, JRSS-B 2024 (per group); Bonferroni union bound",
    needs_order=True,
    options=("truncation", "arrangements"),
    required_n=_union_required_n,
)
def _betting_union(a, b, rho, *, rng, truncation=FIXED_TRUNCATION,
                   arrangements=ARRANGEMENTS):
    _check_count_n(a, "a")
    _check_count_n(b, "b")
    return _union_interval(a, b, rho, _seed_words(rng), _check_truncation(truncation),
                           _check_arrangements(arrangements))
