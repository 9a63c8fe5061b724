"""Per-group score histograms: binning rules, :class:`ScoreHistogram`, engine output."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from fairbound._validate import check_bins, check_bool, describe_bins
from fairbound.errors import FairboundError
from fairbound.stats.scores._common import (
    _show,
)

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


def _numbers(x, name: str, not_numbers: str) -> np.ndarray:
    """``x`` as a float array, or the error ``"<not_numbers>; got <x>"`` naming ``name``."""
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise FairboundError(f"{not_numbers}; got {_show(np.ravel(x))}", param=name) from None


def _as_vector(x, name: str) -> np.ndarray:
    """``x`` as a 1-D float array; errors name ``name``."""
    arr = _numbers(x, name, f"{name} must be numbers")
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
    arr = _numbers(x, name, f"{name}: {not_numbers}")
    if arr.ndim != 1 or len(arr) != n:
        raise FairboundError(f"{name}: has shape {arr.shape}, values has {n} entries",
                             param=name)
    return arr


def _as_counts(x, name: str, n: int) -> np.ndarray:
    """``x`` as a fresh int64 array of counts, one per bin; errors name ``name``."""
    if isinstance(x, np.ndarray) and x.dtype.kind in "iu" and x.ndim == 1 and len(x) == n:
        # whole numbers already (an engine's counts): only the sign to check, no float copy
        if x.dtype.kind == "i" and n and x.min() < 0:
            raise FairboundError(f"{name}: counts must be non-negative whole numbers; got "
                                 f"{float(x[x < 0][0])!r}", param=name)
        return x.astype(np.int64)
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
        if exact and any(s is None for s in sums):
            count = (pos + neg).astype(float)
            computed = [lambda: values * count, lambda: values * pos,
                        lambda: values * values * count]
            sums = [c() if s is None else s for s, c in zip(sums, computed, strict=True)]
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "pos", pos)
        object.__setattr__(self, "neg", neg)
        object.__setattr__(self, "upper", upper)
        object.__setattr__(self, "score_sum", sums[0])
        object.__setattr__(self, "pos_score_sum", sums[1])
        object.__setattr__(self, "score_sq_sum", sums[2])
        object.__setattr__(self, "exact", exact)
        object.__setattr__(self, "binning", str(self.binning))
        # derived arrays and numbers, computed once (a histogram is frozen); not a field
        object.__setattr__(self, "_memo", {})

    def _cached(self, key, make):
        """``make()``, computed once per histogram under ``key``."""
        memo = self.__dict__.setdefault("_memo", {})
        if key not in memo:
            memo[key] = make()
        return memo[key]

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
        if n and np.all(v[1:] > v[:-1]):
            # already ascending and distinct (an engine's output): nothing to sort or merge;
            # the same arrays the merge below would give
            uniq, inv, k = v.copy(), None, n
        else:
            uniq, inv = np.unique(v, return_inverse=True)
            inv = inv.reshape(-1)
            k = len(uniq)

        def merge(x):
            if x is None:
                return None
            if inv is None:
                return np.asarray(x, dtype=float).copy()
            return np.bincount(inv, weights=x, minlength=k)

        if u is not None and inv is None:
            u = u.copy()
        elif u is not None:
            up = np.full(k, -np.inf)
            np.maximum.at(up, inv, u)
            lo_up = np.full(k, np.inf)
            np.minimum.at(lo_up, inv, u)
            if np.any(up != lo_up):
                raise FairboundError("upper: one value has two different upper ends",
                                     param="upper")
            u = up
        if inv is None:  # whole numbers already (checked above), in fresh arrays
            pos_k, neg_k = p, q
        else:
            pos_k, neg_k = np.round(merge(p)).astype(np.int64), np.round(merge(q)).astype(np.int64)
        return cls(values=uniq, pos=pos_k, neg=neg_k, upper=u,
                   score_sum=merge(sums[0]), pos_score_sum=merge(sums[1]),
                   score_sq_sum=merge(sums[2]), exact=exact,
                   binning=binning if binning is not None else
                   ("distinct values" if exact else "bins"))

    # -- summaries -----------------------------------------------------------------------

    @property
    def n_pos(self) -> int:
        """Positive examples."""
        return self._cached("n_pos", lambda: int(self.pos.sum()))

    @property
    def n_neg(self) -> int:
        """Negative examples."""
        return self._cached("n_neg", lambda: int(self.neg.sum()))

    @property
    def n(self) -> int:
        """All examples."""
        return self.n_pos + self.n_neg

    @property
    def counts(self) -> np.ndarray:
        """Examples per bin (read-only)."""
        def make():
            c = self.pos + self.neg
            c.flags.writeable = False
            return c

        return self._cached("counts", make)

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
        # the audit rebins each group to the same calibration edges many times: once here
        return self._cached(("rebin", e.tobytes()), lambda: self._rebin(e))

    def _rebin(self, e: np.ndarray) -> ScoreHistogram:
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
        # the values ascend: where each edge falls among them places every value at once
        # (the same bins as searching each value among the edges, in one pass)
        cut = np.searchsorted(start, e, side="left")
        above = np.repeat(np.arange(len(e) + 1),
                          np.diff(np.concatenate(([0], cut, [len(start)]))))
        j = np.clip(above - 1, 0, len(e) - 2)
        if not self.exact and np.any(upper > e[j + 1] + tol):
            i = int(np.flatnonzero(upper > e[j + 1] + tol)[0])
            raise FairboundError(f"edges: the histogram's bin [{float(self.values[i])!r}, "
                                 f"{float(upper[i])!r}) straddles the edge "
                                 f"{float(e[j[i] + 1])!r}; give edges that the histogram's "
                                 "bins nest in", param="edges")
        nonempty = self.counts > 0
        every = bool(nonempty.all())  # (an engine's histogram: no empty bin to drop)
        jn = j if every else j[nonempty]
        # the new bins holding examples, ascending; each sum in input order per bin (the
        # same sums as merging through np.unique's inverse), without sorting
        width = len(e) - 1
        codes = np.flatnonzero(np.bincount(jn, minlength=width))
        # ``jn`` ascends: each new bin's old bins are one run, whose counts add exactly
        runs = np.searchsorted(jn, codes, side="left")

        def merge(x):
            return np.bincount(jn, weights=x if every else x[nonempty], minlength=width)[codes]

        def count(x):
            return np.add.reduceat(x if every else x[nonempty], runs).astype(np.int64)

        return ScoreHistogram(values=e[codes], pos=count(self.pos),
                              neg=count(self.neg), upper=e[codes + 1],
                              score_sum=merge(self.score_sum),
                              pos_score_sum=merge(self.pos_score_sum),
                              score_sq_sum=merge(self.score_sq_sum), exact=False,
                              binning=binning_description(e))


def _effective_upper(h: ScoreHistogram) -> np.ndarray:
    """Upper ends, with a bin whose scores all equal its lower end shrunk to that point.

    A score of exactly 1.0 binned by ``floor(score * k)`` opens the bin ``[1, 1 + 1/k)``;
    its mean shows that it holds only 1.0, so it fits the last calibration bin.  Computed
    once per histogram (read-only).
    """
    if h.exact or h.score_sum is None:
        return h.upper  # nothing to shrink (callers only read it)

    def make():
        upper = _effective_upper_of(h)
        upper.flags.writeable = False
        return upper

    return h._cached("effective_upper", make)


def _effective_upper_of(h: ScoreHistogram) -> np.ndarray:
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
