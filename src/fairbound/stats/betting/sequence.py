"""Betting on data in a given order: predictable bets, running capital, sequences.

The interval and the confidence sequence of the running capital are valid at every sample
size.

Part of :mod:`fairbound.stats.betting`; its docstring describes the method.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fairbound._validate import check_vector
from fairbound.errors import FairboundError
from fairbound.stats._betting_blocks import (
    bet_caps,
    blocked_capital,
)
from fairbound.stats.base import (
    check_confidence_level,
)

DEFAULT_TRUNCATION = 0.75


# Number of interior candidates evaluated per refinement step of the interval search, and
# the largest number of (example, candidate) pairs held in memory at once.
_GRID = 16
_CHUNK_CELLS = 1 << 17

# --------------------------------------------------------------------------- validation
def _check_sequence(x, param: str = "x") -> np.ndarray:
    arr = check_vector(x, param, "a sequence of numbers in [0, 1]")
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
