"""AUC from the histogram (Mann-Whitney on ranks), DeLong variance, gaps, ROC points."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from fairbound._validate import check_choice
from fairbound.errors import DegenerateDataWarning
from fairbound.stats.base import NotEstimable, check_confidence_level
from fairbound.stats.scores._common import (
    GUARANTEE_ASYMPTOTIC,
    TRANSFORMS,
    _clean,
    _GapOfTwo,
    _z,
)
from fairbound.stats.scores.histogram import (
    ScoreHistogram,
    _check_hist,
)

# ----------------------------------------------------------------------------- AUC


def _auc_summary(h: ScoreHistogram) -> tuple[float, float]:
    """``(AUC, DeLong variance or NaN)``, computed once per histogram.

    Only the two numbers are kept, not the per-bin components.
    """

    def make():
        auc, v10, v01, P, N = _auc_parts_of(h)
        if P < 2 or N < 2:
            return auc, math.nan
        s10 = float(np.dot(h.pos, (v10 - auc) ** 2)) / (P - 1)
        s01 = float(np.dot(h.neg, (v01 - auc) ** 2)) / (N - 1)
        return auc, s10 / P + s01 / N

    return h._cached("auc_summary", make)


def _auc_parts_of(h: ScoreHistogram):
    """AUC (correctly rounded), and the structural components per bin.

    The Mann-Whitney statistic on the histogram: ranks by bin, ties counted 1/2, in one pass
    of cumulative sums over the distinct scores (never over rows or pairs).
    """
    p = h.pos
    q = h.neg
    P, N = int(p.sum()), int(q.sum())
    neg_below = np.cumsum(q) - q
    pos_above = P - np.cumsum(p)
    # 2 P N AUC = sum_b p_b (2 neg_below_b + q_b), an integer: summed exactly
    if 2 * P * N < 2**62:
        twice = int(np.dot(p, 2 * neg_below + q))
    else:
        twice = sum(int(a) * (2 * int(b) + int(c)) for a, b, c in zip(p, neg_below, q,
                                                                     strict=True))
    auc = twice / (2 * P * N)
    v10 = (neg_below + 0.5 * q) / N  # per positive in bin b: P(s- < s) + P(s- = s) / 2
    v01 = (pos_above + 0.5 * p) / P  # per negative in bin b
    return auc, v10, v01, P, N


def _need_both(h: ScoreHistogram, what: str) -> None:
    if h.n_pos == 0 or h.n_neg == 0:
        raise NotEstimable(f"{what}: needs positive and negative examples; got "
                           f"{h.n_pos} positive and {h.n_neg} negative", param="histogram")


def auc_value(h: ScoreHistogram) -> float:
    """The Mann-Whitney AUC ``P(s+ > s-) + P(s+ = s-) / 2`` of the histogram.

    Examples
    --------
    >>> auc_value(ScoreHistogram.from_arrays([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1]))
    0.875
    """
    h = _check_hist(h)
    _need_both(h, "AUC")
    return _auc_summary(h)[0]


def delong_variance(h: ScoreHistogram) -> float:
    """DeLong, DeLong & Clarke-Pearson's (1988) variance of the AUC, from the histogram.

    ``S10 / P + S01 / N``, with ``S10`` the sample variance (``ddof=1``) over positives of
    ``V10 = P(s- < s) + P(s- = s) / 2`` and ``S01`` the same over negatives of
    ``V01 = P(s+ > s) + P(s+ = s) / 2``; every example in a bin shares its components, so
    the sums run over bins.  NaN (with a warning) when a class has one example.

    Examples
    --------
    >>> h = ScoreHistogram.from_arrays([0.1, 0.4, 0.4, 0.8, 0.3], [0, 0, 1, 1, 1])
    >>> round(delong_variance(h), 6)
    0.083333
    """
    h = _check_hist(h)
    _need_both(h, "AUC variance")
    P, N = h.n_pos, h.n_neg
    if P < 2 or N < 2:
        warnings.warn(f"DeLong variance needs two examples of each class; got {P} positive "
                      f"and {N} negative", DegenerateDataWarning, stacklevel=2)
        return math.nan
    return _auc_summary(h)[1]


def auc_error_bound(h: ScoreHistogram) -> float:
    """Largest possible ``|AUC_binned - AUC_exact|``: half the within-bin pair share.

    Pairs (positive, negative) in different bins are ordered alike by the binned and the
    raw scores; a pair inside one bin counts 1/2 binned and 0, 1/2 or 1 on the raw scores.
    Hence ``|AUC_binned - AUC_exact| <= 0.5 sum_b pos_b neg_b / (P N)``; 0 when exact.

    Examples
    --------
    >>> h = ScoreHistogram.from_arrays([0.11, 0.12, 0.15, 0.8], [0, 1, 0, 1], bins=10)
    >>> auc_error_bound(h)
    0.25
    """
    h = _check_hist(h)
    _need_both(h, "AUC")
    if h.exact:
        return 0.0
    return 0.5 * float(np.dot(h.pos, h.neg)) / (h.n_pos * h.n_neg)


@dataclass(frozen=True)
class AUCResult:
    """A group's AUC with DeLong's standard error and interval.

    Attributes
    ----------
    estimate : float
        The AUC (ties 1/2).
    variance, se : float
        DeLong's variance and its square root.
    low, high : float
        The interval at ``confidence_level``.
    transform : str
        ``'none'`` (Wald on the AUC) or ``'logit'`` (Wald on ``logit(AUC)``).
    exact : bool
        Whether the bins are the distinct scores.  ``False``: the AUC of binned scores,
        approximate, within ``error_bound`` of the exact one.
    error_bound : float
        Bound on ``|AUC_binned - AUC_exact|`` (0 when exact).
    n_pos, n_neg : int
        Examples of each class.
    guarantee : str
        ``'asymptotic'``.
    method : str
        ``'DeLong'``.
    """

    estimate: float
    variance: float
    se: float
    low: float
    high: float
    confidence_level: float
    transform: str
    exact: bool
    error_bound: float
    n_pos: int
    n_neg: int
    guarantee: str = GUARANTEE_ASYMPTOTIC
    method: str = "DeLong"

    @property
    def approximate(self) -> bool:
        """Whether the AUC is of binned scores (see ``error_bound``)."""
        return not self.exact

    def to_dict(self) -> dict:
        """JSON-ready fields (NaN as ``None``)."""
        return {k: _clean(v) for k, v in self.__dict__.items()}



def _check_transform(transform) -> str:
    return check_choice(transform, TRANSFORMS, "transform")


def _logit_interval(a: float, se: float, z: float) -> tuple[float, float]:
    if not (0.0 < a < 1.0) or not math.isfinite(se):
        return (a, a) if math.isfinite(se) else (math.nan, math.nan)
    lg = math.log(a / (1 - a))
    w = z * se / (a * (1 - a))
    return 1 / (1 + math.exp(-(lg - w))), 1 / (1 + math.exp(-(lg + w)))


def auc(h: ScoreHistogram, *, confidence_level: float = 0.95,
        transform: str = "none") -> AUCResult:
    """AUC of one group with DeLong's interval.

    Parameters
    ----------
    h : ScoreHistogram
        The group's histogram.
    confidence_level : float
        Level of the interval.
    transform : {'none', 'logit'}
        Wald interval on the AUC scale (clipped to [0, 1]) or on the logit scale (stays
        inside (0, 1)).

    Returns
    -------
    AUCResult

    Raises
    ------
    NotEstimable
        When the group lacks positive or negative examples.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(400) < 0.3
    >>> s = rng.normal(size=400) + y
    >>> r = auc(ScoreHistogram.from_arrays(s, y))
    >>> round(r.estimate, 4), round(r.se, 4), r.guarantee
    (0.7629, 0.0269, 'asymptotic')
    """
    h = _check_hist(h)
    rho = check_confidence_level(confidence_level)
    transform = _check_transform(transform)
    _need_both(h, "AUC")
    est = _auc_summary(h)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        var = delong_variance(h)
    if not math.isfinite(var):
        warnings.warn(f"AUC interval not estimable: {h.n_pos} positive and {h.n_neg} "
                      "negative examples (DeLong needs two of each)", DegenerateDataWarning,
                      stacklevel=2)
    elif var == 0.0:
        warnings.warn(f"AUC is {est}: DeLong's variance is 0 and the interval degenerate "
                      "(perfect separation or one distinct score)", DegenerateDataWarning,
                      stacklevel=2)
    se = math.sqrt(var) if math.isfinite(var) else math.nan
    z = _z(rho)
    if transform == "logit":
        low, high = _logit_interval(est, se, z)
    elif math.isfinite(se):
        low, high = max(0.0, est - z * se), min(1.0, est + z * se)
    else:
        low = high = math.nan
    return AUCResult(estimate=est, variance=var, se=se, low=low, high=high,
                     confidence_level=rho, transform=transform, exact=h.exact,
                     error_bound=auc_error_bound(h), n_pos=h.n_pos, n_neg=h.n_neg)



@dataclass(frozen=True)
class AUCGapResult(_GapOfTwo):
    """``AUC_a - AUC_b`` between two independent groups, with an asymptotic interval.

    Attributes
    ----------
    estimate, se, low, high : float
        The gap, its standard error (DeLong variances added) and interval.
    a, b : AUCResult
        Each group's AUC (with intervals of the same transform and level).
    transform : str
        ``'none'``: Wald on the gap; ``'logit'``: MOVER from the two logit intervals.
    exact : bool
        Whether both AUCs are exact.
    error_bound : float
        Bound on the gap's binning error (the two groups' bounds added).
    """

    estimate: float
    se: float
    low: float
    high: float
    a: AUCResult
    b: AUCResult
    confidence_level: float
    transform: str
    exact: bool
    error_bound: float
    guarantee: str = GUARANTEE_ASYMPTOTIC
    method: str = "DeLong"


def auc_gap(h_a: ScoreHistogram, h_b: ScoreHistogram, *, confidence_level: float = 0.95,
            transform: str = "none") -> AUCGapResult:
    """The AUC gap between two independent groups, with an asymptotic interval.

    ``transform="none"``: ``d +- z sqrt(V_a + V_b)`` with DeLong's variances.
    ``transform="logit"``: the MOVER interval (Zou & Donner 2008; Newcombe's method for a
    difference) built from the two groups' logit-scale intervals ``(l, u)``:
    ``d - sqrt((A_a - l_a)^2 + (u_b - A_b)^2)`` to ``d + sqrt((u_a - A_a)^2 + (A_b - l_b)^2)``,
    which respects the [0, 1] range near a perfect AUC.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> ya, yb = rng.random(500) < 0.4, rng.random(500) < 0.4
    >>> ha = ScoreHistogram.from_arrays(rng.normal(size=500) + 1.5 * ya, ya)
    >>> hb = ScoreHistogram.from_arrays(rng.normal(size=500) + 0.5 * yb, yb)
    >>> g = auc_gap(ha, hb)
    >>> round(g.estimate, 3), g.excludes_zero, g.guarantee
    (0.252, True, 'asymptotic')
    """
    h_a = _check_hist(h_a, "h_a")
    h_b = _check_hist(h_b, "h_b")
    rho = check_confidence_level(confidence_level)
    transform = _check_transform(transform)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        ra = auc(h_a, confidence_level=rho, transform=transform)
        rb = auc(h_b, confidence_level=rho, transform=transform)
    d = ra.estimate - rb.estimate
    var = ra.variance + rb.variance
    se = math.sqrt(var) if math.isfinite(var) else math.nan
    if not math.isfinite(se):
        warnings.warn("AUC gap interval not estimable (a group has fewer than two examples "
                      "of a class)", DegenerateDataWarning, stacklevel=2)
    elif ra.variance == 0.0 or rb.variance == 0.0:
        warnings.warn("AUC gap: a group's DeLong variance is 0 (AUC of 0 or 1, or one "
                      "distinct score); the interval understates the uncertainty",
                      DegenerateDataWarning, stacklevel=2)
    if transform == "logit":
        low = d - math.sqrt((ra.estimate - ra.low) ** 2 + (rb.high - rb.estimate) ** 2)
        high = d + math.sqrt((ra.high - ra.estimate) ** 2 + (rb.estimate - rb.low) ** 2)
    else:
        z = _z(rho)
        low, high = ((max(-1.0, d - z * se), min(1.0, d + z * se)) if math.isfinite(se)
                     else (math.nan, math.nan))
    return AUCGapResult(estimate=d, se=se, low=low, high=high, a=ra, b=rb,
                        confidence_level=rho, transform=transform,
                        exact=ra.exact and rb.exact,
                        error_bound=ra.error_bound + rb.error_bound)


def roc_curve(h: ScoreHistogram) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ROC points ``(fpr, tpr, thresholds)`` from the highest threshold down (for figures).

    The first point is ``(0, 0)`` at threshold ``+inf``; then one point per bin, selecting
    ``score >= values[b]``.

    Examples
    --------
    >>> fpr, tpr, thr = roc_curve(ScoreHistogram.from_arrays([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1]))
    >>> fpr.tolist(), tpr.tolist(), thr.tolist()
    ([0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0], [inf, 0.8, 0.4, 0.1])
    """
    h = _check_hist(h)
    _need_both(h, "ROC curve")
    tp = np.concatenate([[0], np.cumsum(h.pos[::-1])])
    fp = np.concatenate([[0], np.cumsum(h.neg[::-1])])
    thr = np.concatenate([[np.inf], h.values[::-1]])
    return fp / h.n_neg, tp / h.n_pos, thr
