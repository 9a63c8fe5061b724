"""Rebinning a score histogram (:meth:`fairbound.stats.scores.ScoreHistogram.rebin`)."""

from __future__ import annotations

import numpy as np
import pytest

from fairbound.errors import FairboundError
from fairbound.stats.scores import ScoreHistogram


def _reference_rebin(h: ScoreHistogram, e: np.ndarray):
    """Each bin placed by searching its start among the edges, merged by ``np.bincount``."""
    tol = 1e-12 * max(1.0, float(np.max(np.abs(e))))
    start = h.values if h.exact else h.values + tol
    j = np.clip(np.searchsorted(e, start, side="right") - 1, 0, len(e) - 2)
    keep = h.counts > 0
    codes = np.flatnonzero(np.bincount(j[keep], minlength=len(e) - 1))

    def merge(x):
        return np.bincount(j[keep], weights=x[keep], minlength=len(e) - 1)[codes]

    return (e[codes], np.round(merge(h.pos)).astype(np.int64),
            np.round(merge(h.neg)).astype(np.int64),
            [merge(x) for x in (h.score_sum, h.pos_score_sum, h.score_sq_sum)])


@pytest.mark.parametrize("bins", [None, 40, [0.0, 0.05, 0.3, 0.31, 0.7, 1.0]])
@pytest.mark.parametrize("seed", range(4))
def test_rebin_equals_searching_each_bin_among_the_edges(bins, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    s = rng.random(n) ** rng.uniform(0.3, 3)
    s[rng.random(n) < 0.05] = 1.0
    s[rng.random(n) < 0.05] = 0.0
    if seed % 2:
        s = np.round(s, 2)  # ties, and values on the edges
    h = ScoreHistogram.from_arrays(s, rng.random(n) < s, bins=bins)
    if seed == 3:  # empty bins (with sums) are left out
        h = ScoreHistogram(values=h.values, pos=np.where(np.arange(len(h.values)) % 3, h.pos, 0),
                           neg=np.where(np.arange(len(h.values)) % 3, h.neg, 0),
                           upper=h.upper, score_sum=h.score_sum, pos_score_sum=h.pos_score_sum,
                           score_sq_sum=h.score_sq_sum, exact=h.exact, binning=h.binning)
    for edges in ([0.0, 0.5, 1.0], np.linspace(0, 1, 11), [0.0, 0.05, 0.3, 0.31, 0.7, 1.0]):
        e = np.asarray(edges, dtype=float)
        if bins is not None and not isinstance(bins, int) and len(e) == 3:
            continue
        try:
            got = h.rebin(e)
        except FairboundError:  # an int grid's bin straddles an edge: refused either way
            assert bins is not None
            continue
        values, pos, neg, sums = _reference_rebin(h, e)
        assert got.values.tobytes() == values.tobytes()
        assert got.pos.tolist() == pos.tolist() and got.neg.tolist() == neg.tolist()
        for a, b in zip((got.score_sum, got.pos_score_sum, got.score_sq_sum), sums, strict=True):
            assert a.tobytes() == b.tobytes()


def test_counts_of_whole_number_arrays_are_checked_and_copied():
    pos = np.array([1, 2], dtype=np.int32)
    h = ScoreHistogram(values=np.array([0.1, 0.2]), pos=pos, neg=np.array([0, 1]))
    pos[0] = 5
    assert h.pos.tolist() == [1, 2] and h.pos.dtype == np.int64
    with pytest.raises(FairboundError, match=r"^neg: counts must be non-negative whole "
                                             r"numbers; got -1.0$"):
        ScoreHistogram(values=np.array([0.1, 0.2]), pos=pos, neg=np.array([0, -1]))
