"""Score-based audits from per-group score histograms: AUC, calibration, threshold sweeps.

A model that outputs a score ``s`` (a probability, a 1-10 risk decile, a logit) is audited
per group from one small table: for each distinct score value (or score bin), the number
of positive and negative examples and the sums of the scores (:class:`ScoreHistogram`).
The engines build it with one ``GROUP BY group, score_bin, label``
(:func:`fairbound.engines.scores.score_histograms`); :func:`histograms_from_counts` turns
their output into histograms.  Everything here is computed from histograms alone.

What each result estimates and what its interval guarantees
-----------------------------------------------------------
``auc`` - the Mann-Whitney AUC ``P(s+ > s-) + P(s+ = s-) / 2``; exact (equal to
    :func:`sklearn.metrics.roc_auc_score`) when the bins are the distinct scores.  DeLong's
    (1988) variance from the structural components, one per distinct value (ties count
    1/2).  Interval: Wald on the AUC or on ``logit(AUC)``; **asymptotic** (normal
    approximation of a U-statistic).  Binned scores give the binned AUC, labelled
    approximate, with the bound ``|AUC_binned - AUC_exact| <= 0.5 sum_b pos_b neg_b / (P N)``
    (only pairs inside one bin can be ordered differently, and each moves by at most 1/2).
``auc_gap`` - ``AUC_a - AUC_b`` for two independent groups: DeLong variances added
    (Wald), or the MOVER combination (Zou & Donner 2008) of the two logit intervals;
    **asymptotic**.
``calibration_in_the_large`` - ``mean(score) - mean(label)`` (positive: the scores
    over-predict); CLT interval from the sample variance of ``s - y``; **asymptotic**.
    ``calibration_in_the_large_gap`` - its difference between two groups, variances added.
``binned_calibration`` - per calibration bin ``j`` the target ``c_j = E[s | bin j] -
    P(y = 1 | bin j)`` with intervals that hold **simultaneously over the bins**
    (Bonferroni): a Wilson interval for the label rate and, when the scores vary within
    the bin, a CLT interval for the mean score (intersected with the bin's edges), joined
    by the union bound; **asymptotic** (Wilson and the CLT are).  The expected calibration
    error ``ECE = sum_j (n_j / n) |c_j|`` (weights: the observed shares) gets the interval
    implied by the per-bin family (the range of ``sum_j w_j |c_j|`` over the box of
    per-bin intervals), valid whenever the family is.  ``binned_calibration_gap``
    compares two groups bin by bin: both families at level ``1 - alpha / 2``, so every
    per-bin gap interval and the ECE-gap interval hold together with probability at least
    ``1 - alpha`` (asymptotically).
``threshold_sweep`` - at every threshold ``t`` (each distinct score or bin edge) the rate
    of ``s >= t`` per group (selection rate, TPR or FPR) and the gap between two groups,
    with a band **simultaneous over all thresholds**:

    * ``band="dkw"`` (default): the Dvoretzky-Kiefer-Wolfowitz inequality with Massart's
      (1990) constant, ``P(sup_t |S^(t) - S(t)| > eps) <= 2 exp(-2 n eps^2)``, holds for
      any distribution (ties and discrete scores included); with ``alpha / 2`` per group,
      both empirical survival functions lie within ``eps_g`` of the truth at every
      threshold at once, and the band is the interval arithmetic of the two (clipped to
      ``[0, 1]`` per rate).  **Finite-sample** valid at every threshold, observed or not.
    * ``band="sup-t"``: the studentized gap's maximum over the thresholds, its critical
      value simulated from the joint normal limit of the cumulative counts (the
      multinomial covariance estimated from the histogram).  Narrower in the middle of the
      score range; **asymptotic**, and only computed at thresholds where every group has
      at least ``min_count`` examples on each side (the normal approximation fails in the
      tails), elsewhere the band is NaN.

    ``established`` marks the thresholds whose band excludes 0: there, with the stated
    joint confidence, the rates differ.

Histograms with a bin of width zero (exact) or of known edges (binned) are the only
input; the engines never return rows.
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from fairbound._validate import check_bins, check_bool, check_choice, describe_bins
from fairbound.errors import DegenerateDataWarning, FairboundError
from fairbound.stats.base import NotEstimable, check_confidence_level

GUARANTEE_ASYMPTOTIC = "asymptotic"
GUARANTEE_FINITE = "finite-sample"
RATES = ("selection_rate", "tpr", "fpr")
BANDS = ("dkw", "sup-t")
TRANSFORMS = ("none", "logit")
#: Most edges accepted for explicit bins (each is one comparison per row in the engine).


@functools.lru_cache(maxsize=256)
def _z(confidence_level: float) -> float:
    return float(special.ndtri(0.5 + confidence_level / 2.0))


def _show(values, k: int = 6) -> str:
    vals = [v.item() if isinstance(v, np.generic) else v for v in list(values)[:k]]
    return str(vals)


# ----------------------------------------------------------------------------- binning


def binning_description(bins) -> str:
    """How scores were binned, in words (stored on each histogram).

    Examples
    --------
    >>> binning_description(None), binning_description(10)
    ('distinct values', 'floor(score * 10) / 10')
    >>> binning_description([0, 0.5, 1])
    'edges [0.0, 0.5, 1.0]'
    """
    return describe_bins(check_bins(bins))


def assign_bins(scores, bins):
    """Bin index of each score, and each bin's lower and upper end.

    The rule the engines print as SQL, so that a file and an array give the same bins:

    * ``None``: each distinct value is its own bin (``lower = upper = value``);
    * an int ``k``: bin ``floor(score * k)``, from ``i / k`` to ``(i + 1) / k``
      (a grid of width ``1 / k`` anchored at 0; any score range);
    * edges ``e_0 < ... < e_m``: bin ``i`` holds ``e_i <= score < e_{i+1}`` (the last bin
      also holds ``e_m``); a score outside ``[e_0, e_m]`` is an error.

    Parameters
    ----------
    scores : array of float
        Finite scores.
    bins : None, int or sequence of float

    Returns
    -------
    index : numpy.ndarray of int
        Position of each score's bin in ``lower`` (bins without scores are left out).
    lower, upper : numpy.ndarray
        Ascending lower and upper ends of the non-empty bins.

    Examples
    --------
    >>> idx, lo, hi = assign_bins([0.05, 0.31, 0.35, 0.99], 10)
    >>> idx.tolist(), lo.tolist(), hi.tolist()
    ([0, 1, 1, 2], [0.0, 0.3, 0.9], [0.1, 0.4, 1.0])
    """
    bins = check_bins(bins)
    s = np.asarray(scores, dtype=float)
    if bins is None:
        lower, index = np.unique(s, return_inverse=True)
        return index.reshape(-1), lower, lower.copy()
    if isinstance(bins, int):
        with np.errstate(over="ignore", invalid="ignore"):
            raw = np.floor(s * bins)
        if len(raw) and not np.all(np.abs(raw) < 2.0**62):
            raise FairboundError(f"bins: scores such as {float(np.max(np.abs(s)))!r} are too large "
                                 f"for bins={bins}; give fewer bins or explicit edges",
                                 param="bins")
        codes, index = np.unique(raw.astype(np.int64), return_inverse=True)
        return index.reshape(-1), codes / bins, (codes + 1) / bins
    edges = bins
    m = len(edges)
    if len(s):
        lo_bad = s < edges[0]
        hi_bad = s > edges[-1]
        if lo_bad.any() or hi_bad.any():
            x = float(s[lo_bad][0] if lo_bad.any() else s[hi_bad][0])
            raise FairboundError(f"bins: score {x!r} lies outside the edges "
                                 f"[{float(edges[0])!r}, {float(edges[-1])!r}]; widen the edges",
                                 param="bins")
    j = np.searchsorted(edges, s, side="right") - 1
    j = np.minimum(j, m - 2)  # the last edge belongs to the last bin
    codes, index = np.unique(j, return_inverse=True)
    return index.reshape(-1), edges[codes], edges[codes + 1]


def _labels_to_bool(labels, pos_label, n: int) -> np.ndarray:
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise FairboundError(f"labels must be 1-D; got shape {arr.shape}", param="labels")
    if len(arr) != n:
        raise FairboundError(f"labels: has {len(arr)} entries, scores has {n}", param="labels")
    if pos_label is not None:
        try:
            hit = np.asarray(arr == pos_label, dtype=bool)
        except (TypeError, ValueError):
            hit = np.array([v == pos_label for v in arr.tolist()], dtype=bool)
        if hit.shape != arr.shape:
            hit = np.array([v == pos_label for v in arr.tolist()], dtype=bool)
        if n and not hit.any():
            raise FairboundError(f"pos_label: {pos_label!r} matches no label; labels are "
                                 f"{_show(_distinct(arr))}", param="pos_label")
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            raise FairboundError("labels: NaN found; drop the rows with a missing label first",
                                 param="labels")
        if arr.dtype == object and any(v is None for v in arr.tolist()):
            raise FairboundError("labels: None found; drop the rows with a missing label "
                                 "first", param="labels")
        return hit
    if arr.dtype.kind == "b":
        return arr.astype(bool)
    if arr.dtype.kind in "iuf":
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            raise FairboundError("labels: NaN found; drop the rows with a missing label first",
                                 param="labels")
        ok = (arr == 0) | (arr == 1)
        if not ok.all():
            raise FairboundError(f"labels must be 0/1 or True/False (or give pos_label); got "
                                 f"{_show(_distinct(arr[~ok]))}", param="labels")
        return arr == 1
    values = arr.tolist()
    missing = [v for v in values if v is None or (isinstance(v, float) and math.isnan(v))
               or type(v).__name__ in ("NAType", "NaTType")]
    if missing:
        raise FairboundError(f"labels: {len(missing)} missing values such as {missing[0]!r}; "
                             "drop the rows with a missing label first", param="labels")
    if all(isinstance(v, bool | np.bool_) or (isinstance(v, numbers.Real) and v in (0, 1))
           for v in values):
        return np.array([bool(v) for v in values], dtype=bool)
    bad = [v for v in values if not (isinstance(v, numbers.Real) and v in (0, 1))]
    raise FairboundError(f"labels must be 0/1 or True/False (or give pos_label); got "
                         f"{_show(_distinct(bad))}", param="labels")


def _distinct(values) -> list:
    out: list = []
    for v in np.asarray(values, dtype=object).tolist():
        if v not in out:
            out.append(v)
        if len(out) > 6:
            break
    return out


# ----------------------------------------------------------------------------- histogram


def _as_vector(x, name: str) -> np.ndarray:
    """``x`` as a 1-D float array; errors name ``name``."""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise FairboundError(f"{name} must be numbers; got {_show(np.ravel(x))}",
                             param=name) from None
    if arr.ndim != 1:
        raise FairboundError(f"{name} must be 1-D; got shape {arr.shape}", param=name)
    return arr


def _as_values(x) -> np.ndarray:
    """A histogram's ``values``: a 1-D array of finite numbers."""
    values = _as_vector(x, "values")
    if not np.all(np.isfinite(values)):
        raise FairboundError(f"values must be finite; got "
                             f"{float(values[~np.isfinite(values)][0])!r}", param="values")
    return values


def _per_bin(x, name: str, n: int, not_numbers: str) -> np.ndarray:
    """``x`` as a float array with one entry per bin (``n``).

    ``not_numbers`` is the error's wording when ``x`` does not convert to numbers.
    """
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise FairboundError(f"{name}: {not_numbers}; got {_show(np.ravel(x))}",
                             param=name) from None
    if arr.ndim != 1 or len(arr) != n:
        raise FairboundError(f"{name}: has shape {arr.shape}, values has {n} entries",
                             param=name)
    return arr


def _as_counts(x, name: str, n: int) -> np.ndarray:
    arr = _per_bin(x, name, n, "counts must be numbers")
    bad = ~np.isfinite(arr) | (arr < 0) | (arr != np.round(arr))
    if bad.any():
        raise FairboundError(f"{name}: counts must be non-negative whole numbers; got "
                             f"{float(arr[bad][0])!r}", param=name)
    return arr.astype(np.int64)


def _as_sums(x, name: str, n: int) -> np.ndarray | None:
    if x is None:
        return None
    arr = _per_bin(x, name, n, "must be numbers")
    if not np.all(np.isfinite(arr)):
        raise FairboundError(f"{name}: must be finite; got {float(arr[~np.isfinite(arr)][0])!r}",
                             param=name)
    return arr


@dataclass(frozen=True)
class ScoreHistogram:
    """One group's scores as counts by score value (or bin) and gold label.

    Parameters
    ----------
    values : numpy.ndarray
        Ascending, distinct: the score values (exact) or each bin's lower end (binned).
        A threshold ``t = values[b]`` selects the bins ``b, b + 1, ...`` (``score >= t``).
    pos, neg : numpy.ndarray of int
        Positive and negative examples in each bin.
    upper : numpy.ndarray, optional
        Each bin's upper end (exclusive, except the last edge of explicit edges); equal to
        ``values`` for exact histograms (the default when ``exact``).
    score_sum, pos_score_sum, score_sq_sum : numpy.ndarray, optional
        Per bin, the sum of the scores, the sum over positive examples only, and the sum of
        squared scores (needed for calibration).  Computed from ``values`` when ``exact``
        and not given.
    exact : bool
        ``True`` when every bin is one distinct score value (the AUC is then exact).
    binning : str
        How the scores were binned, in words.

    Examples
    --------
    >>> h = ScoreHistogram.from_arrays([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1])
    >>> h.values.tolist(), h.pos.tolist(), h.neg.tolist(), h.exact
    ([0.1, 0.4, 0.8], [0, 1, 1], [1, 1, 0], True)
    >>> h.n_pos, h.n_neg
    (2, 2)
    >>> ScoreHistogram(values=np.array([0.2, 0.1]), pos=np.array([1, 1]), neg=np.array([0, 1]))
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: values must be strictly increasing; got 0.2 then 0.1
    """

    values: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    upper: np.ndarray | None = None
    score_sum: np.ndarray | None = field(default=None, repr=False)
    pos_score_sum: np.ndarray | None = field(default=None, repr=False)
    score_sq_sum: np.ndarray | None = field(default=None, repr=False)
    exact: bool = True
    binning: str = "distinct values"

    def __post_init__(self) -> None:
        values = _as_values(self.values)
        n = len(values)
        bad = np.flatnonzero(np.diff(values) <= 0)
        if len(bad):
            i = int(bad[0])
            raise FairboundError(f"values must be strictly increasing; got "
                                 f"{float(values[i])!r} then {float(values[i + 1])!r}",
                                 param="values")
        exact = check_bool(self.exact, "exact")
        pos = _as_counts(self.pos, "pos", n)
        neg = _as_counts(self.neg, "neg", n)
        upper = _as_sums(self.upper, "upper", n)
        if upper is None:
            upper = values.copy()
        if np.any(upper < values):
            i = int(np.flatnonzero(upper < values)[0])
            raise FairboundError(f"upper: each bin's upper end must be >= its value; got "
                                 f"{float(upper[i])!r} below {float(values[i])!r}", param="upper")
        if exact and np.any(upper != values):
            raise FairboundError("upper: an exact histogram's bins are single values "
                                 "(upper == values); set exact=False for bins", param="upper")
        if n > 1 and np.any(upper[:-1] > values[1:]):
            i = int(np.flatnonzero(upper[:-1] > values[1:])[0])
            raise FairboundError(f"upper: bins overlap ({float(upper[i])!r} above the next bin's "
                                 f"value {float(values[i + 1])!r})", param="upper")
        sums = [_as_sums(self.score_sum, "score_sum", n),
                _as_sums(self.pos_score_sum, "pos_score_sum", n),
                _as_sums(self.score_sq_sum, "score_sq_sum", n)]
        if exact:
            count = (pos + neg).astype(float)
            computed = [values * count, values * pos, values * values * count]
            sums = [c if s is None else s for s, c in zip(sums, computed, strict=True)]
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "pos", pos)
        object.__setattr__(self, "neg", neg)
        object.__setattr__(self, "upper", upper)
        object.__setattr__(self, "score_sum", sums[0])
        object.__setattr__(self, "pos_score_sum", sums[1])
        object.__setattr__(self, "score_sq_sum", sums[2])
        object.__setattr__(self, "exact", exact)
        object.__setattr__(self, "binning", str(self.binning))

    # -- construction --------------------------------------------------------------------

    @classmethod
    def from_arrays(cls, scores, labels, bins=None, *, pos_label=None) -> ScoreHistogram:
        """Histogram of one group's scores and 0/1 labels.

        Parameters
        ----------
        scores : array of float
            Finite scores (no missing values).
        labels : array
            0/1 or True/False; any values when ``pos_label`` names the positive one.
        bins : None, int or sequence of float
            ``None``: each distinct score is a bin (exact); an int ``k``: bins
            ``floor(score * k)``; ascending edges.  See :func:`assign_bins`.
        pos_label : object, optional
            The label value of the positive class (the others are negative).

        Examples
        --------
        >>> h = ScoreHistogram.from_arrays([0.12, 0.18, 0.55], [0, 1, 1], bins=10)
        >>> h.values.tolist(), h.upper.tolist(), h.pos.tolist(), h.exact
        ([0.1, 0.5], [0.2, 0.6], [1, 1], False)
        """
        s = _as_vector(scores, "scores")
        if not np.all(np.isfinite(s)):
            i = int(np.flatnonzero(~np.isfinite(s))[0])
            raise FairboundError(f"scores: {float(s[i])!r} at position {i}; scores must be finite "
                                 "(drop rows with a missing score first)", param="scores")
        y = _labels_to_bool(labels, pos_label, len(s))
        bins = check_bins(bins)
        index, lower, upper = assign_bins(s, bins)
        k = len(lower)
        pos = np.bincount(index[y], minlength=k)
        neg = np.bincount(index[~y], minlength=k)
        score_sum = np.bincount(index, weights=s, minlength=k)
        pos_score_sum = np.bincount(index[y], weights=s[y], minlength=k)
        score_sq_sum = np.bincount(index, weights=s * s, minlength=k)
        return cls(values=lower, pos=pos, neg=neg, upper=upper, score_sum=score_sum,
                   pos_score_sum=pos_score_sum, score_sq_sum=score_sq_sum,
                   exact=bins is None, binning=binning_description(bins))

    @classmethod
    def from_counts(cls, values, pos, neg, *, upper=None, score_sum=None, pos_score_sum=None,
                    score_sq_sum=None, exact: bool = True,
                    binning: str | None = None) -> ScoreHistogram:
        """Histogram from counts in any order (sorted here; repeated values merged).

        Examples
        --------
        >>> h = ScoreHistogram.from_counts([3, 1, 3], [1, 0, 2], [0, 4, 1])
        >>> h.values.tolist(), h.pos.tolist(), h.neg.tolist()
        ([1.0, 3.0], [0, 3], [4, 1])
        """
        v = _as_values(values)
        n = len(v)
        p = _as_counts(pos, "pos", n)
        q = _as_counts(neg, "neg", n)
        u = _as_sums(upper, "upper", n)
        sums = [_as_sums(score_sum, "score_sum", n), _as_sums(pos_score_sum, "pos_score_sum", n),
                _as_sums(score_sq_sum, "score_sq_sum", n)]
        uniq, inv = np.unique(v, return_inverse=True)
        inv = inv.reshape(-1)
        k = len(uniq)

        def merge(x):
            return None if x is None else np.bincount(inv, weights=x, minlength=k)

        if u is not None:
            up = np.full(k, -np.inf)
            np.maximum.at(up, inv, u)
            lo_up = np.full(k, np.inf)
            np.minimum.at(lo_up, inv, u)
            if np.any(up != lo_up):
                raise FairboundError("upper: one value has two different upper ends",
                                     param="upper")
            u = up
        return cls(values=uniq, pos=np.round(merge(p)).astype(np.int64),
                   neg=np.round(merge(q)).astype(np.int64), upper=u,
                   score_sum=merge(sums[0]), pos_score_sum=merge(sums[1]),
                   score_sq_sum=merge(sums[2]), exact=exact,
                   binning=binning if binning is not None else
                   ("distinct values" if exact else "bins"))

    # -- summaries -----------------------------------------------------------------------

    @property
    def n_pos(self) -> int:
        """Positive examples."""
        return int(self.pos.sum())

    @property
    def n_neg(self) -> int:
        """Negative examples."""
        return int(self.neg.sum())

    @property
    def n(self) -> int:
        """All examples."""
        return self.n_pos + self.n_neg

    @property
    def counts(self) -> np.ndarray:
        """Examples per bin."""
        return self.pos + self.neg

    def has_sums(self) -> bool:
        """Whether the score sums needed for calibration are known."""
        return (self.score_sum is not None and self.pos_score_sum is not None
                and self.score_sq_sum is not None)

    def rebin(self, edges) -> ScoreHistogram:
        """Merge the bins into coarser bins with the given edges (for calibration).

        Each of this histogram's bins must lie inside one new bin (always true for an exact
        histogram); a score outside ``[edges[0], edges[-1]]`` is an error.

        Examples
        --------
        >>> h = ScoreHistogram.from_arrays([0.05, 0.3, 0.35, 0.9], [0, 1, 0, 1])
        >>> c = h.rebin([0, 0.5, 1])
        >>> c.values.tolist(), c.pos.tolist(), c.neg.tolist(), c.exact
        ([0.0, 0.5], [1, 1], [2, 0], False)
        """
        e = check_bins(edges)
        if e is None or isinstance(e, int):
            raise FairboundError(f"edges: give ascending edges; got {edges!r}", param="edges")
        if not self.has_sums():
            raise FairboundError("rebin: this histogram has no score sums (score_sum, "
                                 "pos_score_sum, score_sq_sum)", param="histogram")
        if len(self.values) == 0:
            return ScoreHistogram(values=np.empty(0), pos=np.empty(0), neg=np.empty(0),
                                  upper=np.empty(0), score_sum=np.empty(0),
                                  pos_score_sum=np.empty(0), score_sq_sum=np.empty(0),
                                  exact=False, binning=binning_description(e))
        upper = _effective_upper(self)
        if self.values[0] < e[0] or upper[-1] > e[-1]:
            raise FairboundError(f"edges: scores range over [{float(self.values[0])!r}, "
                                 f"{float(upper[-1])!r}], outside the edges [{float(e[0])!r}, "
                                 f"{float(e[-1])!r}]", param="edges")
        tol = 1e-12 * max(1.0, float(np.max(np.abs(e))))
        # a binned histogram's lower ends are edges of a grid: one that falls a rounding
        # error short of a new edge (30 / 100 against 0.30000000000000004) starts there
        start = self.values if self.exact else self.values + tol
        j = np.clip(np.searchsorted(e, start, side="right") - 1, 0, len(e) - 2)
        if not self.exact and np.any(upper > e[j + 1] + tol):
            i = int(np.flatnonzero(upper > e[j + 1] + tol)[0])
            raise FairboundError(f"edges: the histogram's bin [{float(self.values[i])!r}, "
                                 f"{float(upper[i])!r}) straddles the edge "
                                 f"{float(e[j[i] + 1])!r}; give edges that the histogram's "
                                 "bins nest in", param="edges")
        nonempty = self.counts > 0
        codes, inv = np.unique(j[nonempty], return_inverse=True)
        inv = inv.reshape(-1)
        k = len(codes)

        def merge(x):
            return np.bincount(inv, weights=x[nonempty], minlength=k)

        return ScoreHistogram(values=e[codes], pos=np.round(merge(self.pos)).astype(np.int64),
                              neg=np.round(merge(self.neg)).astype(np.int64), upper=e[codes + 1],
                              score_sum=merge(self.score_sum),
                              pos_score_sum=merge(self.pos_score_sum),
                              score_sq_sum=merge(self.score_sq_sum), exact=False,
                              binning=binning_description(e))


def _effective_upper(h: ScoreHistogram) -> np.ndarray:
    """Upper ends, with a bin whose scores all equal its lower end shrunk to that point.

    A score of exactly 1.0 binned by ``floor(score * k)`` opens the bin ``[1, 1 + 1/k)``;
    its mean shows that it holds only 1.0, so it fits the last calibration bin.
    """
    upper = h.upper.copy()
    if h.exact or h.score_sum is None:
        return upper
    n = h.counts
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = h.score_sum / n
    point = (n > 0) & (np.abs(mean - h.values) <= 1e-12 * np.maximum(1.0, np.abs(h.values)))
    upper[point] = h.values[point]
    return upper


def histograms_from_counts(counts) -> dict:
    """Per-group :class:`ScoreHistogram` from an engine's output.

    Parameters
    ----------
    counts : ScoreCounts or mapping
        What :func:`fairbound.engines.scores.score_histograms` returns (its ``cells`` and
        ``exact``/``binning`` are read), or a plain mapping ``group -> mapping`` with keys
        ``values``, ``pos``, ``neg`` and optionally ``upper``, ``score_sum``,
        ``pos_score_sum``, ``score_sq_sum``, ``exact``, ``binning``, or ``group -> (values,
        pos, neg[, score_sum])`` tuples (exact histograms).

    Returns
    -------
    dict
        Group -> histogram, in the input's group order.

    Examples
    --------
    >>> hs = histograms_from_counts({"a": ([0.2, 0.7], [1, 3], [4, 1])})
    >>> hs["a"].n_pos, hs["a"].exact
    (4, True)
    """
    exact_default = True
    binning_default = None
    cells = counts
    if hasattr(counts, "cells"):
        cells = counts.cells
        exact_default = bool(getattr(counts, "exact", True))
        binning_default = getattr(counts, "binning", None)
    if not isinstance(cells, Mapping):
        raise FairboundError(f"counts must be an engine's ScoreCounts or a mapping of groups; "
                             f"got {type(counts).__name__}", param="counts")
    out = {}
    for g, c in cells.items():
        if isinstance(c, Mapping):
            exact = bool(c.get("exact", exact_default))
            out[g] = ScoreHistogram.from_counts(
                c["values"], c["pos"], c["neg"], upper=None if exact else c.get("upper"),
                score_sum=c.get("score_sum"), pos_score_sum=c.get("pos_score_sum"),
                score_sq_sum=c.get("score_sq_sum"), exact=exact,
                binning=c.get("binning", binning_default))
        elif isinstance(c, Sequence) and len(c) in (3, 4):
            out[g] = ScoreHistogram.from_counts(c[0], c[1], c[2],
                                                score_sum=c[3] if len(c) == 4 else None,
                                                exact=True, binning=binning_default)
        else:
            raise FairboundError(f"counts: group {g!r} must map to a dict of arrays or a "
                                 f"(values, pos, neg[, score_sum]) tuple; got "
                                 f"{type(c).__name__}", param="counts")
    return out


def _check_hist(h, param: str = "histogram") -> ScoreHistogram:
    if not isinstance(h, ScoreHistogram):
        raise FairboundError(f"{param} must be a ScoreHistogram; got {type(h).__name__}",
                             param=param)
    return h


# ----------------------------------------------------------------------------- AUC


def _auc_parts(h: ScoreHistogram):
    """AUC (correctly rounded), and the structural components per bin."""
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
    return _auc_parts(h)[0]


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
    auc, v10, v01, P, N = _auc_parts(h)
    if P < 2 or N < 2:
        warnings.warn(f"DeLong variance needs two examples of each class; got {P} positive "
                      f"and {N} negative", DegenerateDataWarning, stacklevel=2)
        return math.nan
    s10 = float(np.dot(h.pos, (v10 - auc) ** 2)) / (P - 1)
    s01 = float(np.dot(h.neg, (v01 - auc) ** 2)) / (N - 1)
    return s10 / P + s01 / N


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


def _clean(v):
    if isinstance(v, float | np.floating):
        return None if not math.isfinite(float(v)) else float(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


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
    est = _auc_parts(h)[0]
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


class _GapOfTwo:
    """What a gap between groups ``a`` and ``b`` with one interval ``[low, high]`` offers."""

    @property
    def excludes_zero(self) -> bool:
        """Whether the interval lies on one side of 0."""
        return bool(self.low > 0 or self.high < 0)

    def to_dict(self) -> dict:
        """JSON-ready fields (each group's result as its own dict)."""
        out = {k: _clean(v) for k, v in self.__dict__.items() if k not in ("a", "b")}
        out["a"] = self.a.to_dict()
        out["b"] = self.b.to_dict()
        return out


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


# ----------------------------------------------------------------------------- thresholds


@dataclass(frozen=True)
class ThresholdSweep:
    """A rate of ``score >= t`` per group at every threshold, and its gap with a band.

    Attributes
    ----------
    thresholds : numpy.ndarray
        Ascending thresholds (every distinct score or bin edge of either group).
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


def _rate_counts(h: ScoreHistogram, rate: str) -> np.ndarray:
    if rate == "tpr":
        return h.pos
    if rate == "fpr":
        return h.neg
    return h.counts


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
                    min_count: int = 5, seed: int = 0) -> ThresholdSweep:
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
        Thresholds to report (default: every value of either histogram).  The DKW band
        holds at every threshold whatever the grid; the sup-t critical value depends on it.
    n_sim : int
        Simulations for the sup-t critical value.
    min_count : int
        Sup-t only: each group needs this many examples selected and not selected at a
        threshold for the band to be computed there.
    seed : int
        Seed of the sup-t simulation.

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
    n_a, n_b = int(ca.sum()), int(cb.sum())
    if n_a == 0 or n_b == 0:
        who = "h_a" if n_a == 0 else "h_b"
        what = {"tpr": "positive examples", "fpr": "negative examples",
                "selection_rate": "examples"}[rate]
        raise NotEstimable(f"threshold sweep: {who} has no {what}", param=who)
    if thresholds is None:
        t = np.union1d(h_a.values, h_b.values)
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
        # selected at threshold t: bins with value >= t
        tail = np.concatenate([np.cumsum(c[::-1])[::-1], [0]])
        return tail[np.searchsorted(h.values, t, side="left")]

    ka, kb = survival(h_a, ca), survival(h_b, cb)
    ra, rb = ka / n_a, kb / n_b
    gap = ra - rb
    alpha = 1 - rho
    if band == "dkw":
        ea, eb = dkw_epsilon(n_a, alpha / 2), dkw_epsilon(n_b, alpha / 2)
        low = np.clip(ra - ea, 0, 1) - np.clip(rb + eb, 0, 1)
        high = np.clip(ra + ea, 0, 1) - np.clip(rb - eb, 0, 1)
        return ThresholdSweep(thresholds=t, rate=rate, rate_a=ra, rate_b=rb, gap=gap, low=low,
                              high=high, n_a=n_a, n_b=n_b, band=band, critical=ea + eb,
                              confidence_level=rho, guarantee=GUARANTEE_FINITE)
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
                              confidence_level=rho, guarantee=GUARANTEE_ASYMPTOTIC)
    se = np.sqrt(ra * (1 - ra) / n_a + rb * (1 - rb) / n_b)
    crit = _sup_t_critical(h_a, ca, h_b, cb, t[use], se[use], alpha, int(n_sim), int(seed))
    low[use] = gap[use] - crit * se[use]
    high[use] = gap[use] + crit * se[use]
    return ThresholdSweep(thresholds=t, rate=rate, rate_a=ra, rate_b=rb, gap=gap, low=low,
                          high=high, n_a=n_a, n_b=n_b, band=band, critical=crit,
                          confidence_level=rho, guarantee=GUARANTEE_ASYMPTOTIC)


def _gaussian_survival(rng, h: ScoreHistogram, c: np.ndarray, t: np.ndarray, reps: int):
    """``reps`` draws of the limit of ``sqrt(n) (S^(t) - S(t))`` at thresholds ``t``."""
    n = c.sum()
    p = c / n
    keep = p > 0
    p = p[keep]
    vals = h.values[keep]
    w = rng.standard_normal((reps, len(p))) * np.sqrt(p)
    total = w.sum(axis=1)
    tail = np.concatenate([np.cumsum(w[:, ::-1], axis=1)[:, ::-1],
                           np.zeros((reps, 1))], axis=1)
    pos = np.searchsorted(vals, t, side="left")
    surv = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])[pos]
    return tail[:, pos] - surv[None, :] * total[:, None]


def _sup_t_critical(h_a, ca, h_b, cb, t, se, alpha, n_sim, seed) -> float:
    """``1 - alpha`` quantile of ``max_t |G_a / sqrt(n_a) - G_b / sqrt(n_b)| / se(t)``."""
    rng = np.random.default_rng(seed)
    na, nb = ca.sum(), cb.sum()
    width = max(len(t), int(np.count_nonzero(ca)), int(np.count_nonzero(cb)), 1)
    chunk = max(1, min(n_sim, 4_000_000 // width))
    maxima = []
    done = 0
    while done < n_sim:
        r = min(chunk, n_sim - done)
        ga = _gaussian_survival(rng, h_a, ca, t, r) / math.sqrt(na)
        gb = _gaussian_survival(rng, h_b, cb, t, r) / math.sqrt(nb)
        maxima.append(np.max(np.abs(ga - gb) / se[None, :], axis=1))
        done += r
    return float(np.quantile(np.concatenate(maxima), 1 - alpha))


__all__ = ["BANDS", "RATES", "TRANSFORMS", "AUCGapResult", "AUCResult", "BinnedCalibration",
           "BinnedCalibrationGap", "CalibrationGap", "CalibrationInTheLarge", "ScoreHistogram",
           "ThresholdSweep", "assign_bins", "auc", "auc_error_bound", "auc_gap", "auc_value",
           "binned_calibration", "binned_calibration_gap", "binning_description",
           "calibration_in_the_large", "calibration_in_the_large_gap", "check_bins",
           "delong_variance", "dkw_epsilon", "histograms_from_counts", "roc_curve",
           "threshold_sweep"]
