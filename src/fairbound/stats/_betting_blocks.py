"""Fast betting capital for long sequences with few distinct values (all 0/1-cost audits).

The per-example betting capital costs ``O(n)`` work for every candidate mean, which makes a
100M-row audit slow.  When the sequence takes few distinct values (0/1 costs give two for a
per-group interval and a handful for blocked pairs) the bets can be held constant over
blocks of consecutive examples: within a block the log capital then depends only on how many
times each value occurs there, so every candidate costs ``O(blocks x values)`` instead of
``O(n)``.

Validity is unchanged.  A block's bet is the plug-in bet at the block's first example, which
uses only earlier data, so it is predictable; the capital is still a product of factors with
conditional mean 1 under the candidate mean (a test martingale); and the running maximum is
only taken at block ends, a subset of the times the per-example version looks at, which can
only keep more candidates (a wider, still valid interval).  The first examples are their own
blocks and later blocks grow with ``t`` (a block starting at ``t`` holds about ``t/256``
examples), so the bets adapt as quickly as the per-example ones where it matters and the
intervals agree to a small fraction of their width.

Blocked pairs of fractional costs that bet on both groups (v2, ``betting._pair_final_capital``)
are summarised the same way: the log of their factor is a sum of a term in A's cost and a
term in B's, so a block needs the counts of each group's distinct costs, with the bet, the
centre and the choice of factor taken at the block's first pair (:func:`pair_block_summary`).

Written by hand because it is the hot path of every default audit and no library offers a
betting capital, let alone a blocked one.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

#: Sequences shorter than this use the per-example capital.
MIN_LENGTH = 20_000
#: Sequences with more distinct values than this use the per-example capital.
MAX_VALUES = 64
#: Examples that are blocks of their own before blocks start to grow.
SINGLETONS = 2048
#: A block starting at ``t`` holds about ``t / GROWTH`` examples.
GROWTH = 256


def block_starts(n: int) -> np.ndarray:
    """Start index of every block: singletons first, then blocks growing with ``t``.

    Examples
    --------
    >>> s = block_starts(100_000)
    >>> int(s[0]), int(s[2048]), bool(np.all(np.diff(s) >= 1)), len(s) < 2048 + 1100
    (0, 2048, True, True)
    """
    head = np.arange(min(n, SINGLETONS))
    starts = [head]
    t = SINGLETONS
    rest = []
    while t < n:
        rest.append(t)
        t += max(1, t // GROWTH)
    if rest:
        starts.append(np.asarray(rest))
    return np.concatenate(starts).astype(np.int64)


def _few_values(x: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Distinct values of ``x`` and each element's index, or ``None`` if there are many.

    A binary search against the values of a prefix, then a check, instead of sorting all of
    ``x`` (``np.unique``), which dominated the time on long sequences.
    """
    values = np.unique(x[:4096])
    if values.size > MAX_VALUES:
        return None
    inverse = np.minimum(np.searchsorted(values, x), values.size - 1)
    if not np.array_equal(values[inverse], x):
        values, inverse = np.unique(x, return_inverse=True)
        if values.size > MAX_VALUES:
            return None
    return values, inverse


def bet_caps(grid, upper: bool, truncation: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Candidates ``grid`` as a float array, the caps of the bets on them, and the bets' sign.

    The caps are ``truncation / m`` for ``K+`` (``upper=False``, sign ``+1``) and
    ``truncation / (1 - m)`` for ``K-`` (``upper=True``, sign ``-1``), ``inf`` at the end
    where ``m`` (or ``1 - m``) is 0.
    """
    grid = np.atleast_1d(np.asarray(grid, dtype=float))
    with np.errstate(divide="ignore"):
        cap = truncation / (1.0 - grid) if upper else truncation / grid
    return grid, cap, -1.0 if upper else 1.0


def _capital_on_blocks(values: np.ndarray, counts: np.ndarray, block_lam: np.ndarray,
                       truncation: float, *, stop: float | None = None
                       ) -> Callable[[np.ndarray, bool], np.ndarray]:
    """``capital(grid, upper)``: log capital per candidate, from per-block value counts.

    ``counts`` is ``(blocks, values)`` and ``block_lam`` ``(blocks,)`` for one sequence, or
    ``(arrangements, blocks, values)`` and ``(arrangements, blocks)`` for several
    arrangements of one sequence.  ``stop=None`` (one sequence only): the maximum over
    block ends of the log capital, as a confidence sequence uses it.  Otherwise a
    fixed-horizon e-value for each arrangement, averaged (see :func:`stopped_mean`).
    """
    if counts.ndim == 2:
        counts, block_lam = counts[None], block_lam[None]
    if stop is None and counts.shape[0] != 1:
        raise ValueError("a running maximum needs a single arrangement")
    n_arr = counts.shape[0]

    def capital(grid: np.ndarray, upper: bool) -> np.ndarray:
        grid, cap, sign = bet_caps(grid, upper, truncation)
        # (arrangements, blocks, candidates)
        bets = np.minimum(block_lam[:, :, None], cap[None, None, :])
        # log capital of one block: sum over values of count * log(1 + sign * bet * (v - m))
        diff = values[:, None] - grid[None, :]  # (values, candidates)
        logk = np.zeros((n_arr, bets.shape[1], grid.size))
        for v in range(values.size):
            logk += counts[:, :, v, None] * np.log1p(sign * bets * diff[v])
        np.cumsum(logk, axis=1, out=logk)
        best = np.maximum(logk.max(axis=1), 0.0)
        if stop is None:
            return best[0]
        return stopped_mean(logk[:, -1], best, stop)

    return capital


def stopped_mean(final: np.ndarray, best: np.ndarray, stop: float) -> np.ndarray:
    """Log of the mean over arrangements of the capital stopped at level ``exp(stop)``.

    For each arrangement (rows) and candidate (columns): ``exp(stop)`` if the log capital
    ever reached ``stop`` (``best`` is its running maximum), else the final capital
    (``final``).  That is ``min(K_{tau ^ n}, e^stop)`` for the first time ``tau`` the capital
    reaches the level: by optional stopping an e-value for each arrangement, and so is
    their mean.  ``stop=inf`` gives the mean final capital.
    """
    e = np.where(best >= stop, stop, final)
    return _log_mean_exp(e)


def _log_mean_exp(logk: np.ndarray) -> np.ndarray:
    """``log(mean(exp(logk), axis=0))`` without overflow."""
    top = logk.max(axis=0)
    return top + np.log(np.exp(logk - top).mean(axis=0))


def block_summary(
    x: np.ndarray, lam: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(values, counts, block_lam)`` of a long few-valued sequence, else ``None``.

    ``counts[b, v]`` is how often ``values[v]`` occurs in block ``b`` and ``block_lam[b]``
    the (untruncated) bet at the block's first example.
    """
    n = x.size
    if n < MIN_LENGTH:
        return None
    found = _few_values(x)
    if found is None:
        return None
    values, inverse = found
    starts = block_starts(n)
    n_blocks = starts.size
    block_of = np.repeat(np.arange(n_blocks), np.diff(np.append(starts, n)))
    counts = np.bincount(block_of * values.size + inverse.ravel(),
                         minlength=n_blocks * values.size).reshape(n_blocks, values.size)
    return values, counts.astype(float), lam[starts]


def blocked_capital(
    x: np.ndarray, lam: np.ndarray, truncation: float
) -> Callable[[np.ndarray, bool], np.ndarray] | None:
    """A capital function on blocks, or ``None`` when the sequence does not qualify.

    Parameters
    ----------
    x : numpy.ndarray
        Observations in ``[0, 1]``.
    lam : numpy.ndarray
        Untruncated predictable bets, one per observation.
    truncation : float
        Bet truncation constant ``c``.

    Returns
    -------
    callable or None
        ``capital(grid, upper)`` returning the maximum over block ends of the log capital
        for every candidate mean in ``grid`` (``upper=False``: bets that the mean is above
        the candidate, ``K+``; ``upper=True``: ``K-``).
    """
    summary = block_summary(x, lam)
    if summary is None:
        return None
    values, counts, block_lam = summary
    keep = counts.sum(axis=1) > 0
    return _capital_on_blocks(values, counts[keep], block_lam[keep], truncation)


def stacked_final_capital(
    summaries: list[tuple[np.ndarray, np.ndarray, np.ndarray]], truncation: float,
    stop: float,
) -> Callable[[np.ndarray, bool], np.ndarray]:
    """``capital(grid, upper)``: averaged fixed-horizon e-values (:func:`stopped_mean`).

    ``summaries`` are :func:`block_summary` results of several arrangements of one
    sequence (same length, so the same blocks); their value sets are merged.
    """
    values = np.unique(np.concatenate([s[0] for s in summaries]))
    counts = np.zeros((len(summaries), summaries[0][1].shape[0], values.size))
    for j, (v, c, _) in enumerate(summaries):
        counts[j][:, np.searchsorted(values, v)] = c
    block_lam = np.stack([s[2] for s in summaries])
    return _capital_on_blocks(values, counts, block_lam, truncation, stop=stop)


# ------------------------------------------------ blocked pairs betting on both groups
def _counts(x: np.ndarray, block_of: np.ndarray, n_blocks: int
            ) -> tuple[np.ndarray, np.ndarray] | None:
    """Distinct values of ``x`` and ``counts[b, v]`` per block, or ``None`` if many."""
    if x.size == 0:
        return np.zeros(0), np.zeros((n_blocks, 0))
    found = _few_values(x)
    if found is None:
        return None
    values, inverse = found
    counts = np.bincount(block_of * values.size + inverse.ravel(),
                         minlength=n_blocks * values.size).reshape(n_blocks, values.size)
    return values, counts.astype(float)


def pair_block_summary(
    u: np.ndarray, v: np.ndarray, y: np.ndarray, lam: np.ndarray, center: np.ndarray,
    both: np.ndarray,
) -> tuple | None:
    """Per-block summary of one arrangement of blocked pairs, else ``None``.

    ``u`` and ``v`` are the two groups' costs in each pair (in ``[0, 1]``), ``y = (1 + u -
    v) / 2``, ``lam`` the untruncated bets on the difference, ``center`` the predictable
    estimate of the mean of ``(u + v) / 2`` and ``both`` whether a step bets on the two groups
    separately (``False`` for a prefix, then ``True``).  Blocks take ``lam``, ``center`` and
    ``both`` from their first step, so every choice stays predictable.  Blocks before the
    first that bets on both groups are summarised by counts of ``y``, the others by counts of
    ``u`` and of ``v``; ``None`` when the sequence is short or one of these takes many values.

    Returns
    -------
    tuple or None
        ``(y values, y counts, u values, u counts, v values, v counts, block bets,
        block centres, b0)``: counts are ``(blocks, values)``, and the first ``b0`` blocks
        bet on the difference.

    Examples
    --------
    >>> n = MIN_LENGTH
    >>> u = np.tile([0.0, 0.5], n // 2)
    >>> v = np.tile([0.25, 0.25, 1.0, 0.0], n // 4)
    >>> both = np.arange(n) > 0  # from the second pair on
    >>> s = pair_block_summary(u, v, (1 + u - v) / 2, np.ones(n), np.full(n, 0.3), both)
    >>> s[0].tolist(), s[2].tolist(), s[4].tolist(), s[-1]
    ([0.375], [0.0, 0.5], [0.0, 0.25, 1.0], 1)
    """
    n = y.size
    if n < MIN_LENGTH:
        return None
    starts = block_starts(n)
    n_blocks = starts.size
    block_of = np.repeat(np.arange(n_blocks), np.diff(np.append(starts, n)))
    b0 = int(np.count_nonzero(~both[starts]))  # blocks betting on the difference
    t0 = int(starts[b0]) if b0 < n_blocks else n
    cy = _counts(y[:t0], block_of[:t0], n_blocks)
    cu = _counts(u[t0:], block_of[t0:], n_blocks)
    cv = _counts(v[t0:], block_of[t0:], n_blocks)
    if cy is None or cu is None or cv is None:
        return None
    return (*cy, *cu, *cv, lam[starts], center[starts], b0)


def _merge(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Stack per-arrangement ``(values, counts)`` on the union of their values."""
    values = np.unique(np.concatenate([v for v, _ in parts]))
    counts = np.zeros((len(parts), parts[0][1].shape[0], values.size))
    for j, (v, c) in enumerate(parts):
        counts[j][:, np.searchsorted(values, v)] = c
    return values, counts


def stacked_pair_capital(
    summaries: list[tuple], truncation: float, pair_truncation: float, stop: float,
) -> Callable[[np.ndarray, bool], np.ndarray]:
    """``capital(grid, upper)`` of :func:`pair_block_summary` results: averaged e-values.

    The capital of each arrangement is stopped at level ``exp(stop)`` and the results are
    averaged (:func:`stopped_mean`).  A block that bets on the difference uses the factor
    ``1 + lam_Y (y - m)`` with ``lam_Y = min(2 lam, truncation / m)``; one that bets on both
    groups, ``(1 + lam (p - m)) (1 + lam (r - m))`` with ``p = u - s + 1/2``,
    ``r = 1/2 + s - v`` and ``lam = min(lam, pair_truncation / (m + |s - 1/2|))``
    (``betting._pair_final_capital`` explains both; ``upper=True`` mirrors them).
    """
    vy, cy = _merge([(s[0], s[1]) for s in summaries])
    vu, cu = _merge([(s[2], s[3]) for s in summaries])
    vv, cv = _merge([(s[4], s[5]) for s in summaries])
    lam = np.stack([s[6] for s in summaries])[:, :, None]
    center = np.stack([s[7] for s in summaries])[:, :, None]
    shift = np.abs(center - 0.5)
    head = max(s[8] for s in summaries)  # blocks that may bet on the difference

    def capital(grid: np.ndarray, upper: bool) -> np.ndarray:
        grid = np.atleast_1d(np.asarray(grid, dtype=float))
        mm = 1.0 - grid if upper else grid
        sign = -1.0 if upper else 1.0
        logk = np.zeros((lam.shape[0], lam.shape[1], grid.size))
        if head:
            with np.errstate(divide="ignore"):
                cap = truncation / mm
            bets = sign * np.minimum(2.0 * lam[:, :head], cap)
            for j, val in enumerate(vy):
                logk[:, :head] += cy[:, :head, j, None] * np.log1p(bets * (val - grid))
        bets = sign / np.maximum((mm + shift) / pair_truncation, 1.0 / lam)
        for j, val in enumerate(vu):
            logk += cu[:, :, j, None] * np.log1p(bets * (val + 0.5 - center - grid))
        for j, val in enumerate(vv):
            logk += cv[:, :, j, None] * np.log1p(bets * (0.5 + center - val - grid))
        np.cumsum(logk, axis=1, out=logk)
        best = np.maximum(logk.max(axis=1), 0.0)
        return stopped_mean(logk[:, -1], best, stop)

    return capital


# ------------------------------------------------------------- 0/1 sequences from counts
#: ``method="betting"`` computes per-group intervals from counts alone (no sequence in
#: memory) when both groups hold 0/1 costs and the smaller one has at least this many.
COUNTS_ABOVE = 1_000_000

# numpy's hypergeometric sampler needs fewer than 10**9 items of each kind, and its
# multivariate one fewer than 10**9 items in all.
_NUMPY_HG_LIMIT = 10**9
_SEGMENT = 400_000_000


def hypergeometric(ngood: int, nbad: int, nsample: int, rng: np.random.Generator) -> int:
    """Exact hypergeometric draw (ones among ``nsample`` drawn from ``ngood`` + ``nbad``).

    numpy's sampler handles fewer than ``10**9`` items of each kind.  Larger urns are sampled
    exactly by Bernoulli thinning: keep every item independently with probability ``p``
    slightly above ``nsample / N``; given how many were kept, the kept set is a uniformly
    random subset of that size, so removing the surplus uniformly at random (a much smaller
    hypergeometric draw) leaves a uniformly random subset of size ``nsample``.  A draw that
    keeps too few is discarded (rejection on the kept count, which keeps exactness).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = hypergeometric(1_500_000_000, 1_500_000_000, 1_000_000, rng)
    >>> abs(x - 500_000) < 5_000
    True
    """
    ngood, nbad, nsample = int(ngood), int(nbad), int(nsample)
    total = ngood + nbad
    if not 0 <= nsample <= total:
        raise ValueError("nsample must lie in [0, ngood + nbad]")
    if nsample == 0 or ngood == 0:
        return 0
    if nbad == 0:
        return nsample
    if 2 * nsample > total:  # sample the complement: fewer items to place
        return ngood - hypergeometric(ngood, nbad, total - nsample, rng)
    if ngood < _NUMPY_HG_LIMIT and nbad < _NUMPY_HG_LIMIT:
        return int(rng.hypergeometric(ngood, nbad, nsample))
    p = (nsample + 6.0 * math.sqrt(nsample) + 10.0) / total
    if p > 0.75:  # a small urn (only when the limit is lowered): draw the subset itself
        return int((rng.choice(total, nsample, replace=False) < ngood).sum())
    while True:
        kept_good = int(rng.binomial(ngood, p))
        kept_bad = int(rng.binomial(nbad, p))
        surplus = kept_good + kept_bad - nsample
        if surplus >= 0:
            return kept_good - hypergeometric(kept_good, kept_bad, surplus, rng)


def ones_per_block(sizes: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Ones in each block of a uniformly random arrangement of ``k`` ones among ``sum(sizes)``.

    One multivariate-hypergeometric draw over the block sizes; beyond numpy's limit of
    ``10**9`` items the blocks are grouped into consecutive segments of at most 400 million
    examples, the ones are first split among the segments (sequential exact hypergeometric
    draws, :func:`hypergeometric`) and then among each segment's blocks.  A segment that
    would be the whole input (every start in one window, the last block holding more than
    600 million examples, from about ``10**11`` examples on) is split before its last block,
    and a single block gets all the ones, so the recursion always ends.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> sizes = np.diff(np.append(block_starts(2**40), 2**40))
    >>> ones = ones_per_block(sizes, 2**39, rng)
    >>> int(ones.sum()) == 2**39, bool(np.all((0 <= ones) & (ones <= sizes)))
    (True, True)
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    n = int(sizes.sum())
    if n < _NUMPY_HG_LIMIT:
        return rng.multivariate_hypergeometric(sizes, int(k), method="marginals")
    if sizes.size == 1:
        return np.array([int(k)], dtype=np.int64)
    # segment of a block: which 400M-example window its start falls in (a segment then
    # holds at most 400M examples plus one block, far below 10**9 unless blocks are huge)
    seg_of = (np.cumsum(sizes) - sizes) // _SEGMENT
    cuts = np.flatnonzero(np.diff(seg_of)) + 1
    cuts = [0, *cuts.tolist(), sizes.size]
    if len(cuts) == 2:  # one segment, the whole input: the earlier blocks, then the last
        cuts = [0, sizes.size - 1, sizes.size]
    out = np.empty(sizes.size, dtype=np.int64)
    ones_left, rest = int(k), n
    for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
        seg = sizes[lo:hi]
        m = int(seg.sum())
        ones = hypergeometric(ones_left, rest - ones_left, m, rng) if hi < sizes.size else ones_left
        out[lo:hi] = ones_per_block(seg, ones, rng)
        ones_left -= ones
        rest -= m
    return out


def binary_capital(
    n: int, k: int, *, alpha: float, truncation: float, rng: np.random.Generator,
    arrangements: int = 1, stop: float | None = None,
) -> tuple[Callable[[np.ndarray, bool], np.ndarray], tuple[float, float, int]]:
    """Blocked betting capital of random arrangements of ``k`` ones among ``n``, from counts.

    The number of ones in each block of a uniformly random arrangement is one
    multivariate-hypergeometric draw over the block sizes (:func:`ones_per_block`, exact for
    any ``n``), so neither time nor memory grows with ``n`` beyond the number of blocks
    (about ``2048 + 256 log(n / 2048)``).  The bet of a block is the plug-in bet of
    Waudby-Smith & Ramdas from the blocks before it, with the running mean of a block's
    examples taken as the mean at the block's end; any predictable bet keeps the guarantee.

    Parameters
    ----------
    n, k : int
        Sequence length and number of ones.
    alpha : float
        Error level of this interval.
    truncation : float
        Bet truncation constant ``c``.
    rng : numpy.random.Generator
        Draws the arrangements.
    arrangements : int, default 1
        Number of independent arrangements.
    stop : float, optional
        ``None`` (one arrangement): the capital function returns the running maximum over
        block ends of the log capital, as a confidence sequence uses it.  Otherwise the log
        of the mean over arrangements of the capital stopped at level ``exp(stop)``
        (:func:`stopped_mean`, a fixed-horizon e-value).

    Returns
    -------
    (callable, (mean, var, n))
        The capital function ``capital(grid, upper)`` and the moments that seed the search.
    """
    starts = block_starts(n)
    sizes = np.diff(np.append(starts, n))
    ones = np.stack([ones_per_block(sizes, k, rng) for _ in range(arrangements)]).astype(float)
    zeros = sizes[None, :] - ones
    t_end = np.cumsum(sizes).astype(float)
    mu_end = (0.5 + np.cumsum(ones, axis=1)) / (t_end + 1.0)
    sq = np.cumsum(ones * (1.0 - mu_end) ** 2 + zeros * mu_end**2, axis=1)
    sig2_end = (0.25 + sq) / (t_end + 1.0)
    sig2_start = np.concatenate((np.full((arrangements, 1), 0.25), sig2_end[:, :-1]), axis=1)
    block_lam = np.sqrt(2.0 * np.log(2.0 / alpha) / (n * sig2_start))
    counts = np.stack([zeros, ones], axis=2)
    capital = _capital_on_blocks(np.array([0.0, 1.0]), counts, block_lam, truncation,
                                 stop=stop)
    p = k / n if n else 0.0
    return capital, (p, p * (1.0 - p), n)


__all__ = ["COUNTS_ABOVE", "GROWTH", "MAX_VALUES", "MIN_LENGTH", "SINGLETONS", "bet_caps",
           "binary_capital", "block_starts", "block_summary", "blocked_capital", "hypergeometric",
           "ones_per_block", "pair_block_summary", "stacked_final_capital",
           "stacked_pair_capital", "stopped_mean"]
