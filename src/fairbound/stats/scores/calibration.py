"""Calibration from the histogram: in the large, and per bin with simultaneous intervals."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from fairbound._validate import check_bins
from fairbound.errors import FairboundError
from fairbound.stats.base import NotEstimable, check_confidence_level
from fairbound.stats.scores._common import (
    GUARANTEE_ASYMPTOTIC,
    _clean,
    _GapOfTwo,
    _z,
)
from fairbound.stats.scores.histogram import (
    ScoreHistogram,
    _check_hist,
    _effective_upper,
)

# ----------------------------------------------------------------------------- calibration


def _need_sums(h: ScoreHistogram) -> None:
    if not h.has_sums():
        raise FairboundError("calibration needs the histogram's score sums (score_sum, "
                             "pos_score_sum, score_sq_sum)", param="histogram")


def _need_probabilities(h: ScoreHistogram) -> None:
    top = _effective_upper(h)[-1] if len(h.values) else 0.0
    if len(h.values) and (h.values[0] < 0 or top > 1):
        raise FairboundError(f"calibration needs probability scores in [0, 1]; the scores "
                             f"range over [{float(h.values[0])!r}, {float(top)!r}]", param="score")


@dataclass(frozen=True)
class CalibrationInTheLarge:
    """``mean(score) - mean(label)`` of one group with a CLT interval (asymptotic).

    Positive: the scores over-predict the rate of positives.
    """

    estimate: float
    se: float
    low: float
    high: float
    mean_score: float
    mean_label: float
    n: int
    confidence_level: float
    guarantee: str = GUARANTEE_ASYMPTOTIC

    def to_dict(self) -> dict:
        """JSON-ready fields."""
        return {k: _clean(v) for k, v in self.__dict__.items()}


def calibration_in_the_large(h: ScoreHistogram, *,
                             confidence_level: float = 0.95) -> CalibrationInTheLarge:
    """Calibration-in-the-large of one group: mean score minus mean label.

    The interval is ``d +- z sd(s - y) / sqrt(n)`` with the sample standard deviation of
    ``s - y`` (from the score sums); asymptotic (CLT; ``s - y`` is bounded for
    probability scores).

    Examples
    --------
    >>> h = ScoreHistogram.from_arrays([0.2, 0.2, 0.6, 0.9], [0, 1, 1, 1])
    >>> r = calibration_in_the_large(h)
    >>> round(r.estimate, 4), r.mean_label
    (-0.275, 0.75)
    """
    h = _check_hist(h)
    rho = check_confidence_level(confidence_level)
    _need_sums(h)
    _need_probabilities(h)
    n = h.n
    if n == 0:
        raise NotEstimable("calibration: the group has no examples", param="histogram")
    s1 = float(h.score_sum.sum())
    ss = float(h.score_sq_sum.sum())
    sy = float(h.pos_score_sum.sum())
    P = h.n_pos
    d = (s1 - P) / n
    if n > 1:
        sum_d2 = ss - 2 * sy + P
        var = max(sum_d2 - n * d * d, 0.0) / (n - 1)
        se = math.sqrt(var / n)
    else:
        se = math.nan
    z = _z(rho)
    return CalibrationInTheLarge(estimate=d, se=se, low=d - z * se, high=d + z * se,
                                 mean_score=s1 / n, mean_label=P / n, n=n, confidence_level=rho)


@dataclass(frozen=True)
class CalibrationGap(_GapOfTwo):
    """Difference of two groups' calibration-in-the-large (a minus b), asymptotic."""

    estimate: float
    se: float
    low: float
    high: float
    a: CalibrationInTheLarge
    b: CalibrationInTheLarge
    confidence_level: float
    guarantee: str = GUARANTEE_ASYMPTOTIC


def calibration_in_the_large_gap(h_a: ScoreHistogram, h_b: ScoreHistogram, *,
                                 confidence_level: float = 0.95) -> CalibrationGap:
    """Gap in calibration-in-the-large between two independent groups (variances added).

    Examples
    --------
    >>> ha = ScoreHistogram.from_arrays([0.2, 0.4, 0.6, 0.8] * 50, [0, 0, 1, 1] * 50)
    >>> hb = ScoreHistogram.from_arrays([0.2, 0.4, 0.6, 0.8] * 50, [0, 1, 1, 1] * 50)
    >>> g = calibration_in_the_large_gap(ha, hb)
    >>> round(g.estimate, 3), g.excludes_zero
    (0.25, True)
    """
    rho = check_confidence_level(confidence_level)
    a = calibration_in_the_large(h_a, confidence_level=rho)
    b = calibration_in_the_large(h_b, confidence_level=rho)
    d = a.estimate - b.estimate
    se = math.sqrt(a.se ** 2 + b.se ** 2)
    z = _z(rho)
    return CalibrationGap(estimate=d, se=se, low=d - z * se, high=d + z * se, a=a, b=b,
                          confidence_level=rho)


def _wilson(k: np.ndarray, n: np.ndarray, z: float | np.ndarray):
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        den = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    lo = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
    hi = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    return lo, hi


def _calibration_edges(bins) -> np.ndarray:
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        if int(bins) < 1:
            raise FairboundError(f"bins must be a whole number >= 1 or ascending edges; got "
                                 f"{bins!r}", param="bins")
        return np.arange(int(bins) + 1) / int(bins)  # i / k, as the engines' grid
    e = check_bins(bins)
    if e is None or isinstance(e, int):
        raise FairboundError(f"bins must be a whole number >= 1 or ascending edges; got "
                             f"{bins!r}", param="bins")
    return e


@dataclass(frozen=True)
class BinnedCalibration:
    """Per-bin calibration of one group, with intervals simultaneous over the bins.

    Attributes
    ----------
    lower, upper : numpy.ndarray
        Each non-empty bin's edges.
    n : numpy.ndarray
        Examples per bin.
    mean_score, label_rate : numpy.ndarray
        Mean score and share of positives per bin (the reliability diagram's points).
    gap, low, high : numpy.ndarray
        ``mean_score - label_rate`` and the simultaneous intervals for
        ``E[s | bin] - P(y = 1 | bin)``.
    ece, ece_low, ece_high : float
        ``sum_j (n_j / n) |gap_j|`` and the interval implied by the per-bin family.
    """

    lower: np.ndarray
    upper: np.ndarray
    n: np.ndarray
    mean_score: np.ndarray
    label_rate: np.ndarray
    gap: np.ndarray
    low: np.ndarray
    high: np.ndarray
    ece: float
    ece_low: float
    ece_high: float
    confidence_level: float
    guarantee: str = GUARANTEE_ASYMPTOTIC
    method: str = "Wilson + CLT per bin, Bonferroni over bins"

    def to_frame(self):
        """One row per bin, as a :class:`pandas.DataFrame`."""
        import pandas as pd

        return pd.DataFrame({"lower": self.lower, "upper": self.upper, "n": self.n,
                             "mean_score": self.mean_score, "label_rate": self.label_rate,
                             "gap": self.gap, "low": self.low, "high": self.high})


def _bin_family(c: ScoreHistogram, alpha_bin: float):
    """Per-bin point estimates and intervals for ``E[s | bin] - P(y = 1 | bin)``."""
    n = c.counts.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = c.score_sum / n
        o = c.pos / n
        var_s = np.where(n > 1, (c.score_sq_sum - n * m * m) / np.maximum(n - 1, 1), np.inf)
    var_s = np.maximum(var_s, 0.0)
    var_s[var_s <= 1e-12 * m * m + 1e-300] = 0.0  # constant scores in a bin (rounding)
    varies = var_s > 0
    # Wilson for the label rate: level alpha_bin, or alpha_bin / 2 when the mean score also
    # needs an interval (union bound within the bin)
    z_y = np.where(varies, _z(1 - alpha_bin / 2), _z(1 - alpha_bin))
    lo_y, hi_y = _wilson(c.pos.astype(float), n, z_y)
    z_s = _z(1 - alpha_bin / 2)
    with np.errstate(invalid="ignore"):
        half_s = np.where(varies, z_s * np.sqrt(var_s / n), 0.0)
    lo_s = np.where(varies, np.maximum(c.values, m - half_s), m)
    hi_s = np.where(varies, np.minimum(c.upper, m + half_s), m)
    return n, m, o, m - o, lo_s - hi_y, hi_s - lo_y


def _ece_range(w, lo, hi):
    """Range of ``sum w_j |c_j|`` over the box ``lo_j <= c_j <= hi_j``."""
    least = np.where((lo <= 0) & (hi >= 0), 0.0, np.minimum(np.abs(lo), np.abs(hi)))
    most = np.maximum(np.abs(lo), np.abs(hi))
    return float(np.dot(w, least)), float(np.dot(w, most))


def binned_calibration(h: ScoreHistogram, *, bins=10, confidence_level: float = 0.95,
                       _alpha: float | None = None) -> BinnedCalibration:
    """Reliability of one group's probability scores by bin, with simultaneous intervals.

    Parameters
    ----------
    h : ScoreHistogram
        Scores in [0, 1] (an exact histogram, or a binned one whose bins nest in these).
    bins : int or sequence of float
        ``k`` equal-width bins on [0, 1] (default 10), or ascending edges.
    confidence_level : float
        Joint level of the per-bin intervals (and so of the ECE interval).

    Examples
    --------
    >>> rng = np.random.default_rng(2)
    >>> s = rng.random(2000)
    >>> y = rng.random(2000) < s
    >>> r = binned_calibration(ScoreHistogram.from_arrays(s, y), bins=5)
    >>> bool(np.all((r.low <= 0) & (r.high >= 0))), r.ece_low <= 0.05 <= r.ece_high
    (True, True)
    """
    h = _check_hist(h)
    rho = check_confidence_level(confidence_level)
    _need_sums(h)
    _need_probabilities(h)
    edges = _calibration_edges(bins)
    c = h.rebin(edges)
    k = len(c.values)
    if k == 0:
        raise NotEstimable("calibration: the group has no examples", param="histogram")
    alpha = (1 - rho) if _alpha is None else _alpha
    n, m, o, gap, lo, hi = _bin_family(c, alpha / k)
    w = n / n.sum()
    ece = float(np.dot(w, np.abs(gap)))
    ece_lo, ece_hi = _ece_range(w, lo, hi)
    return BinnedCalibration(lower=c.values, upper=c.upper, n=c.counts, mean_score=m,
                             label_rate=o, gap=gap, low=lo, high=hi, ece=ece, ece_low=ece_lo,
                             ece_high=ece_hi, confidence_level=rho)


@dataclass(frozen=True)
class BinnedCalibrationGap:
    """Per-bin calibration gap between two groups (a minus b), simultaneous intervals.

    Attributes
    ----------
    lower, upper : numpy.ndarray
        Edges of the bins where both groups have examples.
    gap, low, high : numpy.ndarray
        ``(mean_score - label_rate)_a - (...)_b`` per bin and intervals that hold together
        (and with the ECE-gap interval) with probability at least ``confidence_level``.
    ece_gap, ece_gap_low, ece_gap_high : float
        ``ECE_a - ECE_b`` over all of each group's bins, with its interval.
    a, b : BinnedCalibration
        Each group's per-bin calibration at level ``1 - alpha / 2``.
    """

    lower: np.ndarray
    upper: np.ndarray
    gap: np.ndarray
    low: np.ndarray
    high: np.ndarray
    ece_gap: float
    ece_gap_low: float
    ece_gap_high: float
    a: BinnedCalibration
    b: BinnedCalibration
    confidence_level: float
    guarantee: str = GUARANTEE_ASYMPTOTIC

    @property
    def established(self) -> np.ndarray:
        """Bins whose gap interval excludes 0."""
        return (self.low > 0) | (self.high < 0)

    def to_frame(self):
        """One row per shared bin, as a :class:`pandas.DataFrame`."""
        import pandas as pd

        return pd.DataFrame({"lower": self.lower, "upper": self.upper, "gap": self.gap,
                             "low": self.low, "high": self.high,
                             "established": self.established})


def binned_calibration_gap(h_a: ScoreHistogram, h_b: ScoreHistogram, *, bins=10,
                           confidence_level: float = 0.95) -> BinnedCalibrationGap:
    """Compare two groups' calibration bin by bin, with jointly valid intervals.

    Each group's per-bin family is built at level ``1 - alpha / 2`` (Bonferroni over its
    bins), so with probability at least ``1 - alpha`` (asymptotically) every per-bin
    target of both groups lies in its interval; on that event the per-bin gaps lie in
    ``[lo_a - hi_b, hi_a - lo_b]`` and the ECE gap in the difference of the ECE ranges.

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> s = rng.random(3000)
    >>> ya, yb = rng.random(3000) < s, rng.random(3000) < 0.6 * s
    >>> g = binned_calibration_gap(ScoreHistogram.from_arrays(s, ya),
    ...                            ScoreHistogram.from_arrays(s, yb), bins=5)
    >>> g.established.tolist()
    [False, True, True, True, True]
    """
    rho = check_confidence_level(confidence_level)
    alpha = 1 - rho
    a = binned_calibration(h_a, bins=bins, confidence_level=rho, _alpha=alpha / 2)
    b = binned_calibration(h_b, bins=bins, confidence_level=rho, _alpha=alpha / 2)
    shared, ia, ib = np.intersect1d(a.lower, b.lower, return_indices=True)
    gap = a.gap[ia] - b.gap[ib]
    low = a.low[ia] - b.high[ib]
    high = a.high[ia] - b.low[ib]
    return BinnedCalibrationGap(lower=shared, upper=a.upper[ia], gap=gap, low=low, high=high,
                                ece_gap=a.ece - b.ece, ece_gap_low=a.ece_low - b.ece_high,
                                ece_gap_high=a.ece_high - b.ece_low, a=a, b=b,
                                confidence_level=rho)
