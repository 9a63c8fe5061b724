"""Finite-sample bounds for many slices at once: is a slice's rate above the rest's.

Subgroup discovery (:func:`fairbound.discover`) compares each candidate slice ``S`` with
its complement on one 0/1 cost: ``k_S`` of ``n_S`` rows of the slice bear the cost, ``k_C``
of ``n_C`` rows outside it.  The gap is ``p_S - p_C``; a slice is *harmed* when it is
positive.  Everything here works on those four counts, on arrays of any length (tens of
thousands of slices take milliseconds), and imports nothing from the engines or audits.

The bound.  A one-sided lower confidence bound for ``p_S - p_C`` at miss probability
``a`` is the difference of two one-sided Clopper-Pearson bounds (Clopper & Pearson 1934),
``a`` split between them by the group sizes only:

    L(a) = CP_lower(k_S, n_S; s a) - CP_upper(k_C, n_C; (1 - s) a),
    s = sqrt(n_C) / (sqrt(n_S) + sqrt(n_C)),

so the smaller group (whose bound is wider) gets the larger share.  By the union bound,
``P(p_S - p_C < L(a)) <= s a + (1 - s) a = a`` for every ``n_S, n_C >= 1`` and every pair of
rates: the guarantee holds at every sample size, with no asymptotics.  ``L(a)`` increases
with ``a``, so the smallest ``a`` at which ``L(a) > 0`` is a valid p-value for the null
``p_S <= p_C`` (:func:`harm_pvalue`); it is used to rank slices, never to decide.

Multiplicity over a lattice.  :func:`depth_weights` gives each of the ``M_d`` candidate
slices of depth ``d`` (conjunctions of ``d`` conditions) the weight ``1 / (D M_d)``, where
``D`` is the number of depths searched: weighted Bonferroni (a slice at depth ``d`` is
tested at ``alpha w``) controls the family-wise error under any dependence, because the
weights sum to one and are fixed by the features before any outcome is read.  Plain
Bonferroni gives every slice ``alpha / M``; since ``M_1 << M_2 << M_3`` (the lattice grows
geometrically with depth), the weights give shallow slices many times more of ``alpha``
and cost the deepest ones only a factor ``M / (D M_D)`` (about 1.2 to 3 here), i.e. a few
tenths of a standard error.

Pruning.  :func:`best_refinement_bound` bounds ``L`` over every refinement ``T`` of a slice
(``T`` inside ``S``): ``k_T <= k_S`` and ``k_T <= n_T``, and ``CP_lower(k, n)`` rises with
``k`` and falls with ``n``, so ``CP_lower(k_T, n_T; a) <= CP_lower(k_S, k_S; a) =
a ** (1 / k_S)``; outside ``T`` there are at least ``K - k_S`` costs among at most ``N``
rows, so ``CP_upper(k_C', n_C'; a) >= CP_upper(K - k_S, N; a) >= (K - k_S) / N``.  A
slice whose bound is not above 0 at the largest ``a`` any slice is tested at (at most
1/2) can be dropped with all its refinements (SliceLine's pruning, Sagadeeva & Boehm
2021, with a bound in place of a score); the dropped slices still count in ``M``, so the
error control is unchanged.

References
----------
C. J. Clopper and E. S. Pearson. "The use of confidence or fiducial limits illustrated in
the case of the binomial." Biometrika 26 (1934) 404-413.

R. Rosenthal and D. B. Rubin. "Multiple hypothesis testing: a weighted Bonferroni
procedure" (see also B. Holm, "A simple sequentially rejective multiple test procedure",
Scandinavian Journal of Statistics 6 (1979) 65-70, for weighted Bonferroni's validity).

Y. Benjamini and D. Yekutieli. "The control of the false discovery rate in multiple testing
under dependency." Annals of Statistics 29 (2001) 1165-1188; G. Blanchard and E. Roquain.
"Two simple sufficient conditions for FDR control." Electronic Journal of Statistics 2
(2008) 963-992 (weighted step-up with the BY shape, any dependence).

S. Sagadeeva and M. Boehm. "SliceLine: fast, linear-algebra-based slice finding for ML
model debugging." SIGMOD 2021.

Examples
--------
A slice of 200 rows with 60 errors against 2,000 rows with 300:

>>> lo = gap_lower_bound(60, 200, 300, 2000, 0.05)
>>> round(float(lo), 4)
0.0739
>>> p = harm_pvalue(60, 200, 300, 2000)
>>> bool(p < 0.05), bool(gap_lower_bound(60, 200, 300, 2000, float(p) * 1.01) > 0)
(True, True)
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["alpha_share", "best_refinement_bound", "cp_lower", "cp_upper", "depth_weights",
           "detectable_gap", "discrete_scale", "exact_harm_pvalue", "exact_min_log_pvalue",
           "exact_detectable_gap", "exact_refinement_log_pvalue", "exact_required_total_n",
           "gap_lower_bound", "harm_pvalue", "harmonic",
           "required_total_n", "tarone_depth_weights"]


def _arrays(*xs):
    return [np.asarray(x, dtype=float) for x in xs]


def cp_lower(k, n, miss):
    """One-sided Clopper-Pearson lower bound of a rate, missing with probability ``miss``.

    ``k`` of ``n``; 0 when ``k = 0``; NaN when ``n = 0``.  Vectorised.

    Examples
    --------
    >>> round(float(cp_lower(5, 5, 0.05)), 4)  # 0.05 ** (1 / 5)
    0.5493
    """
    from scipy.special import betaincinv

    k, n, miss = _arrays(k, n, miss)
    k, n, miss = np.broadcast_arrays(k, n, miss)
    out = np.zeros(k.shape)
    ok = k > 0
    with np.errstate(all="ignore"):
        out[ok] = betaincinv(k[ok], n[ok] - k[ok] + 1.0, miss[ok])
    out[n <= 0] = np.nan
    return out


def cp_upper(k, n, miss):
    """One-sided Clopper-Pearson upper bound of a rate (1 when ``k = n``; NaN when ``n = 0``).

    Examples
    --------
    >>> round(float(cp_upper(0, 10, 0.05)), 4)  # 1 - 0.05 ** (1 / 10)
    0.2589
    """
    k, n, miss = _arrays(k, n, miss)
    return 1.0 - cp_lower(n - k, n, miss)


def alpha_share(n_s, n_c):
    """The slice's share ``s`` of the miss probability: ``sqrt(n_C) / (sqrt(n_S) + sqrt(n_C))``.

    Examples
    --------
    >>> float(alpha_share(100, 100)), round(float(alpha_share(100, 10_000)), 4)
    (0.5, 0.9091)
    """
    n_s, n_c = _arrays(n_s, n_c)
    with np.errstate(all="ignore"):
        a, b = np.sqrt(np.maximum(n_s, 0)), np.sqrt(np.maximum(n_c, 0))
        return np.where(a + b > 0, b / np.where(a + b > 0, a + b, 1.0), 0.5)


def gap_lower_bound(k_s, n_s, k_c, n_c, miss):
    """Lower confidence bound of ``p_S - p_C`` that misses with probability at most ``miss``.

    Parameters
    ----------
    k_s, n_s, k_c, n_c : array_like
        Costs and rows in the slice and outside it.
    miss : array_like
        Miss probability in (0, 1) (``alpha`` of a one-sided ``1 - alpha`` bound).

    Returns
    -------
    numpy.ndarray
        The bound; NaN where a side has no rows.

    Examples
    --------
    >>> round(float(gap_lower_bound(30, 50, 100, 500, 0.05)), 4)
    0.2212
    """
    k_s, n_s, k_c, n_c, miss = _arrays(k_s, n_s, k_c, n_c, miss)
    s = alpha_share(n_s, n_c)
    return cp_lower(k_s, n_s, s * miss) - cp_upper(k_c, n_c, (1.0 - s) * miss)


def harm_pvalue(k_s, n_s, k_c, n_c, *, iterations: int = 64):
    """The smallest miss probability at which :func:`gap_lower_bound` is above 0.

    A valid p-value for ``p_S <= p_C`` (the bound is a valid bound at every level); 1 where
    the bound is not above 0 even at miss probability 1, NaN where a side has no rows.
    Found by bisection on ``log10`` (to about ``1e-3`` relative).

    Examples
    --------
    >>> float(harm_pvalue(0, 50, 100, 500))
    1.0
    >>> bool(harm_pvalue(30, 50, 100, 500) < 1e-4)
    True
    """
    k_s, n_s, k_c, n_c = _arrays(k_s, n_s, k_c, n_c)
    shape = np.broadcast_shapes(k_s.shape, n_s.shape, k_c.shape, n_c.shape)
    k_s, n_s, k_c, n_c = (np.atleast_1d(np.broadcast_to(x, shape)).astype(float)
                          for x in (k_s, n_s, k_c, n_c))
    bad = (n_s <= 0) | (n_c <= 0)
    top = gap_lower_bound(k_s, n_s, k_c, n_c, np.full(k_s.shape, 1.0 - 1e-12))
    lo = np.full(k_s.shape, -300.0)   # log10 of a level at which it is not above 0
    hi = np.zeros(k_s.shape)          # ... and one at which it is
    ok = ~bad & (top > 0)
    if ok.any():
        ks, ns, kc, nc = k_s[ok], n_s[ok], k_c[ok], n_c[ok]
        a, b = lo[ok], hi[ok]
        floor = gap_lower_bound(ks, ns, kc, nc, np.full(ks.shape, 1e-300)) > 0
        b[floor] = -300.0
        for _ in range(iterations):
            mid = 0.5 * (a + b)
            above = gap_lower_bound(ks, ns, kc, nc, 10.0 ** mid) > 0
            b = np.where(above, mid, b)
            a = np.where(above, a, mid)
            if np.all(b - a < 1e-3):
                break
        hi[ok] = b
    p = np.where(ok, 10.0 ** hi, 1.0)
    p[bad] = np.nan
    return p.reshape(shape)


def harmonic(m: int) -> float:
    """``1 + 1/2 + ... + 1/m``: the Benjamini-Yekutieli factor for ``m`` hypotheses.

    Examples
    --------
    >>> round(harmonic(4), 4)
    2.0833
    """
    m = max(int(m), 1)
    if m < 100_000:
        return float(np.sum(1.0 / np.arange(1, m + 1)))
    return math.log(m) + 0.5772156649015329 + 1.0 / (2 * m)


def depth_weights(depths, counts: dict[int, int] | None = None):
    """Weighted-Bonferroni weights: ``1 / (D M_d)`` for a slice of depth ``d``.

    Parameters
    ----------
    depths : array_like of int
        The depth of each slice the weights are wanted for.
    counts : dict, optional
        ``M_d``, the number of candidate slices of each depth (the whole lattice searched);
        default: counted from ``depths``.

    Returns
    -------
    numpy.ndarray
        The weights; over a whole lattice they sum to 1.

    Examples
    --------
    >>> w = depth_weights([1, 1, 2, 2, 2, 2])
    >>> w.tolist(), float(w.sum())
    ([0.25, 0.25, 0.125, 0.125, 0.125, 0.125], 1.0)
    """
    d = np.asarray(depths, dtype=int)
    if counts is None:
        values, times = np.unique(d, return_counts=True)
        counts = {int(v): int(t) for v, t in zip(values, times, strict=True)}
    present = {k: v for k, v in counts.items() if v > 0}
    n_depths = max(len(present), 1)
    return np.array([1.0 / (n_depths * present[int(x)]) if present.get(int(x)) else 0.0
                     for x in d.tolist()])


def best_refinement_bound(k_s, total_k, total_n, miss):
    """An upper bound of :func:`gap_lower_bound` over a slice and all its refinements.

    Parameters
    ----------
    k_s : array_like
        Costs in the slice.
    total_k, total_n : float
        Costs and rows in the whole population (the slice's denominator rows and the rest).
    miss : float
        The largest miss probability any slice is tested at (at most 1/2).

    Returns
    -------
    numpy.ndarray
        ``miss ** (1 / k_S) - (K - k_S) / N`` (the first term is 0 when ``k_S = 0``): since
        ``CP_upper(K - k_S, N; miss) >= (K - k_S) / N`` for ``miss <= 1/2``, it is at least
        the bound of the module's description, and a slice whose value is not above 0
        cannot be flagged, nor can any refinement of it.  No quantile is computed, so it is
        cheap on every candidate.

    Examples
    --------
    >>> b = best_refinement_bound([0, 1, 40], 400, 4000, 0.05)
    >>> (b[:2] <= 0).tolist(), bool(b[2] > 0)
    ([True, True], True)
    """
    k = np.asarray(k_s, dtype=float)
    with np.errstate(all="ignore"):
        top = np.where(k > 0, float(miss) ** (1.0 / np.where(k > 0, k, 1.0)), 0.0)
    return top - np.maximum(float(total_k) - k, 0.0) / float(total_n)


def required_total_n(k_s, n_s, k_c, n_c, miss, *, iterations: int = 60):
    """Rows (slice + rest, at the current shares) at which the bound would be above 0.

    The observed rates are taken as the truth and both groups scaled by one factor; ``inf``
    where the observed gap is not positive, NaN where a side has no rows.

    Examples
    --------
    >>> need = required_total_n(9, 40, 100, 1000, 0.05)
    >>> bool(1040 < need < 20_000), bool(gap_lower_bound(9, 40, 100, 1000, 0.05) <= 0)
    (True, True)
    """
    def above(f, k_s, n_s, k_c, n_c, miss):
        return gap_lower_bound(np.round(k_s * f), np.round(n_s * f), np.round(k_c * f),
                               np.round(n_c * f), miss) > 0

    return _required_n(above, k_s, n_s, k_c, n_c, miss, iterations=iterations)


def detectable_gap(n_s, n_c, rate, miss):
    """The smallest observed gap a slice of ``n_S`` rows would need to be flagged.

    With the rest at ``rate`` (its observed rate) and the slice at ``rate + g``, the
    smallest ``g`` (on a grid of 0.001) at which :func:`gap_lower_bound` is above 0; NaN
    when no gap up to ``1 - rate`` would do.

    Examples
    --------
    >>> g = detectable_gap(500, 5000, 0.1, 0.05 / 1000)
    >>> bool(0.05 < g < 0.2)
    True
    """
    grid = np.arange(0.001, 1.0 - float(rate) + 1e-9, 0.001)
    if grid.size == 0:
        return math.nan
    ks = np.round((float(rate) + grid) * n_s)
    kc = np.round(float(rate) * n_c)
    ok = gap_lower_bound(ks, n_s, kc, n_c, miss) > 0
    return float(grid[np.argmax(ok)]) if ok.any() else math.nan


# --------------------------------------------------------------------------- exact test
# Fisher's exact test of a slice against its complement, conditional on the margins, and
# Tarone's (1990) count of the testable slices.  With ``N`` denominator rows of which ``K``
# bear the cost, the slice's ``k_S`` of ``n_S`` is hypergeometric under the null (the cost
# is unrelated to slice membership), so the one-sided p-value ``P(X >= k_S)`` is exact
# given ``(n_S, N, K)``, and the smallest p-value the slice could ever reach,
# ``P(X = min(n_S, K))``, is a function of those margins alone.
#
# R. E. Tarone. "A modified Bonferroni method for discrete data." Biometrics 46 (1990)
# 515-522.  A. Terada, M. Okada-Hatakeyama, K. Tsuda and J. Sese. "Statistical significance
# of combinatorial regulations." PNAS 110 (2013) 12996-13001 (LAMP: Tarone's count over an
# itemset lattice).  P. H. Westfall and R. D. Wolfinger. "Multiple tests with discrete
# distributions." The American Statistician 51 (1997) 3-8 (the attainable sizes of each
# discrete test in place of its level in Bonferroni's sum: :func:`discrete_scale`).


def exact_harm_pvalue(k_s, n_s, total_k, total_n):
    """One-sided Fisher exact p-value that a slice bears more cost than the rest.

    ``P(X >= k_S)`` for ``X`` hypergeometric: ``n_S`` draws from ``N`` rows of which ``K``
    bear the cost (conditional on the margins ``n_S``, ``N``, ``K``).  NaN where the slice
    or the rest has no rows.

    Examples
    --------
    A slice of 200 rows with 60 errors against 2,000 rows with 300 (the same as
    ``scipy.stats.fisher_exact([[60, 140], [300, 1700]], alternative="greater")``):

    >>> p = exact_harm_pvalue(60, 200, 360, 2200)
    >>> f"{float(p):.3e}"
    '2.939e-07'
    """
    from scipy.stats import hypergeom

    k, n = _arrays(k_s, n_s)
    N, K = float(total_n), float(total_k)
    k, n = (np.atleast_1d(x) for x in np.broadcast_arrays(k, n))
    out = np.asarray(hypergeom.sf(k - 1, N, K, n), dtype=float).reshape(k.shape)
    out = np.clip(out, 0.0, 1.0)
    out[(n <= 0) | (n >= N)] = np.nan
    return out.reshape(np.broadcast_shapes(np.shape(k_s), np.shape(n_s)))


def exact_min_log_pvalue(n_s, total_k, total_n):
    """``log`` of the smallest p-value :func:`exact_harm_pvalue` can reach for a slice.

    ``log P(X = min(n_S, K))``: all the slice's rows bearing the cost (or all the costs in
    the slice).  A function of the margins only, never of where the costs fall; ``+inf``
    (never testable) where the slice or the rest has no rows or no row bears the cost.

    Examples
    --------
    >>> import math
    >>> round(math.exp(float(exact_min_log_pvalue(3, 100, 1000))), 6)  # C(100,3)/C(1000,3)
    0.000973
    """
    from scipy.stats import hypergeom

    n = np.atleast_1d(np.asarray(n_s, dtype=float))
    N, K = float(total_n), float(total_k)
    with np.errstate(all="ignore"):
        out = np.asarray(hypergeom.logpmf(np.minimum(n, K), N, K, n), dtype=float)
    out[(n <= 0) | (n >= N) | (K <= 0) | ~np.isfinite(out)] = np.inf
    return out.reshape(np.shape(n_s))


def exact_refinement_log_pvalue(k_s, total_k, total_n):
    """``log`` of a lower bound of :func:`exact_harm_pvalue` over a slice's refinements.

    A refinement ``T`` of the slice has ``k_T <= k_S`` costs and ``n_T >= k_T`` rows, and
    ``P(X >= k; n)`` rises with ``n`` and falls with ``k``, so its p-value is at least
    ``P(X = k_S; n = k_S) = C(K, k_S) / C(N, k_S)`` (1 when ``k_S = 0``).  A slice whose
    value is above every level in use can be pruned with all its refinements.

    Examples
    --------
    >>> b = exact_refinement_log_pvalue([0, 1, 40], 400, 4000)
    >>> [round(float(x), 3) for x in b[:2]], bool(b[2] < -50)
    ([0.0, -2.303], True)
    """
    from scipy.stats import hypergeom

    k = np.atleast_1d(np.asarray(k_s, dtype=float))
    with np.errstate(all="ignore"):
        out = np.asarray(hypergeom.logpmf(k, float(total_n), float(total_k), k), dtype=float)
    out[k <= 0] = 0.0
    return out


def tarone_depth_weights(depths, log_min_p, alpha, *, fdr: bool = False):
    """Depth weights over the *testable* slices only (weighted Tarone).

    Parameters
    ----------
    depths : array_like of int
        Each candidate's depth.
    log_min_p : array_like
        Each candidate's :func:`exact_min_log_pvalue` (``inf``: never testable).
    alpha : float
        The error rate.
    fdr : bool
        Testability for the Benjamini-Yekutieli step-up (a slice is testable when its
        smallest p-value is below the largest threshold it could be given,
        ``alpha w m_T / H_{m_T}``) instead of Bonferroni (``alpha w``).

    Returns
    -------
    weights : numpy.ndarray
        ``1 / (D_T M_{d,T})`` for a testable slice of depth ``d`` (``M_{d,T}`` testable
        slices of that depth, ``D_T`` depths with any), 0 for the rest; they sum to 1 (or
        0 when none is testable).
    m_testable : int
        The number of testable slices ``m_T``.

    Notes
    -----
    Starting from every slice with a finite ``log_min_p``, the slices whose smallest
    p-value is above the level their weight would give are dropped and the weights
    recomputed (they only grow) until none is dropped.  The weights depend on the margins
    alone, and a dropped slice can never reach a p-value below its level, so weighted
    Bonferroni with these weights controls the family-wise error at ``alpha`` whenever the
    p-values are valid conditional on the margins (Tarone 1990; the argument is
    ``P(any false flag | margins) <= sum_T alpha w_i = alpha``).

    Examples
    --------
    Four depth-1 slices, three of depth 2, one of which (tiny) can never reach its level:

    >>> import math
    >>> w, m = tarone_depth_weights([1, 1, 1, 1, 2, 2, 2],
    ...                             [-30, -30, -30, -30, -30, -30, math.log(0.2)], 0.05)
    >>> w.round(3).tolist(), m
    ([0.125, 0.125, 0.125, 0.125, 0.25, 0.25, 0.0], 6)
    """
    d = np.asarray(depths, dtype=int)
    lmp = np.asarray(log_min_p, dtype=float)
    keep = np.isfinite(lmp)
    la = math.log(alpha) if alpha > 0 else -np.inf
    while True:
        counts = {int(v): int(t) for v, t in zip(*np.unique(d[keep], return_counts=True),
                                                  strict=True)}
        w = np.where(keep, depth_weights(d, counts) if counts else 0.0, 0.0)
        m = int(keep.sum())
        scale = m / harmonic(m) if fdr and m else 1.0
        with np.errstate(divide="ignore"):
            drop = keep & (lmp > la + np.log(w * scale))
        if not drop.any():
            return w, m
        keep &= ~drop


#: Slices whose count has a standard deviation above this get no discrete size (the bound
#: ``F(c) <= c`` is used for them): their tails are nearly continuous (the scale they could
#: add is a few percent) and long to tabulate.
DISCRETE_SD = 30.0
_REL = 1e-9     # relative error allowed for a tail sum of :func:`_tails` (measured < 1e-12)


def _null_sd(n, total_k, total_n):
    """Standard deviation of a slice's count under the hypergeometric null."""
    N, K = float(total_n), float(total_k)
    return np.sqrt(np.maximum(n * (K / N) * (1 - K / N) * (N - n) / max(N - 1.0, 1.0), 0.0))


def _tails(n, total_k, total_n):
    """Upper tails ``P(X >= k)`` of each slice's hypergeometric null, from its mean up.

    One row per slice (``n`` draws, ``K`` of ``N`` rows bear the cost), ``k`` from
    ``floor(mean)`` (a tail of at least 1/2: the median is the mean's floor or ceiling)
    over ``8 sd + 40`` values or to ``min(n, K)``; NaN past a row's end.  Each row is
    built from ``P(X = k0)`` (:func:`scipy.stats.hypergeom.logpmf`) and the ratios of
    successive probabilities, cumulated in log space, then summed from the far end
    (smallest first).  Also returns each row's first ``k`` and a bound of the mass past the
    row, Bernstein's ``exp(-t^2 / (2 (sd^2 + t / 3)))`` at ``t`` from the mean (sampling
    without replacement obeys the bounds of sampling with it: Hoeffding 1963, section 6).
    """
    from scipy.stats import hypergeom

    N, K = float(total_n), float(total_k)
    n = np.asarray(n, dtype=float)
    mean = n * K / N
    sd = _null_sd(n, K, N)
    k0 = np.floor(mean)
    top = np.minimum(n, K)
    length = np.minimum(top - k0, np.ceil(8.0 * sd + 40.0)) + 1.0
    width = int(length.max(initial=1.0))
    k = k0[:, None] + np.arange(width)[None, :]
    inside = k <= (k0 + length - 1.0)[:, None]
    with np.errstate(all="ignore"):
        # log P(X = k + 1) - log P(X = k) = log((K - k)(n - k)) - log((k + 1)(N - K - n + k + 1))
        step = (np.log((K - k[:, :-1]) * (n[:, None] - k[:, :-1]))
                - np.log((k[:, :-1] + 1.0) * (N - K - n[:, None] + k[:, :-1] + 1.0)))
        logp = np.empty(k.shape)
        logp[:, 0] = hypergeom.logpmf(k0, N, K, n)
        logp[:, 1:] = logp[:, :1] + np.cumsum(step, axis=1)
        pmf = np.where(inside, np.exp(logp), 0.0)
    tail = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
    tail[~inside] = np.nan
    t = k0 + length - mean          # the first value past the row, from the mean
    with np.errstate(all="ignore"):
        rest = np.where(k0 + length > top, 0.0,
                        np.exp(-t * t / (2.0 * (sd * sd + t / 3.0))))
    return tail, k0, rest


def discrete_scale(levels, n_s, total_k, total_n, alpha, *, cap: float = 0.5):
    """How far the levels of a Bonferroni test can be raised using the tests' discreteness.

    Weighted Bonferroni tests slice ``i`` at ``c_i`` and bounds the family-wise error by
    ``sum_i c_i``.  Fisher's exact test reaches only a few p-values, so the chance that it
    rejects at ``c`` under its null, given the margins, is its *attainable size*
    ``F_i(c) = max {P(X >= k) : P(X >= k) <= c}``, often well below ``c``.  The error is
    at most ``sum_i F_i(s c_i)`` at levels ``s c_i``, so this returns the largest ``s >=
    1`` (at most ``cap / max c_i``) with ``sum_i F_i(s c_i) <= alpha`` (the discrete
    Bonferroni of Westfall & Wolfinger 1997, here with weights; Tarone's count is its
    special case ``F_i = 0``).  ``s`` depends on the margins alone, so the argument of
    :func:`tarone_depth_weights` holds unchanged: ``P(any false flag | margins) <=
    sum_i F_i(s c_i) <= alpha``.

    Parameters
    ----------
    levels : array_like
        Each slice's level ``c_i`` with ``sum c_i <= alpha`` (0: not tested).
    n_s : array_like
        Each slice's rows in the metric's denominator.
    total_k, total_n : float
        Costly rows and rows of the whole population.
    alpha : float
        The family-wise error rate.
    cap : float
        The largest level any slice may get (the search prunes at 1/2).

    Returns
    -------
    float
        The scale ``s`` (1 where nothing can be gained).

    Notes
    -----
    ``F_i`` is computed from :func:`_tails` for slices whose count's standard deviation
    is at most :data:`DISCRETE_SD` and bounded by ``F_i(c) <= c`` for the others.  Each
    tail is taken ``1e-9`` relatively lower when deciding which values a level reaches
    and higher (plus the mass past its row) when adding sizes, so the sum is an upper
    bound of the true one.

    Examples
    --------
    Twenty slices of 40 of 4,000 rows, 400 of them costly, each at level 0.05 / 20: the
    attainable sizes leave room to almost double every level:

    >>> s = discrete_scale(np.full(20, 0.0025), np.full(20, 40.0), 400, 4000, 0.05)
    >>> round(s, 2)
    1.93
    """
    c = np.asarray(levels, dtype=float).ravel()
    n = np.broadcast_to(np.asarray(n_s, dtype=float), c.shape).ravel()
    N, K = float(total_n), float(total_k)
    live = c > 0
    if not live.any() or K <= 0 or K >= N:
        return 1.0
    s_cap = cap / float(c[live].max())
    if s_cap <= 1.0:
        return 1.0
    exact = live & (_null_sd(n, K, N) <= DISCRETE_SD) & (n > 0) & (n < N)
    linear = float(c[live & ~exact].sum())       # F_i(x) <= x for the rest
    # slices with the same rows and level have the same sizes: tabulate each pair once
    pairs, times = np.unique(np.stack([n[exact], c[exact]], axis=1), axis=0,
                             return_counts=True)
    keys, steps = [], []
    for part in np.array_split(np.arange(len(pairs)), max(1, len(pairs) // 2048 + 1)):
        if not part.size:
            continue
        tail, _, rest = _tails(pairs[part, 0], K, N)
        level = pairs[part, 1][:, None]
        low = tail * (1.0 - _REL) / level            # the scale at which k becomes reachable
        high = tail * (1.0 + _REL) + rest[:, None]   # what it then adds to the size
        ok = np.isfinite(low) & (low <= s_cap)
        # along a row the tails fall, so read it from the far end: each reachable k
        # raises the slice's size from the value of k + 1 (0 past the row) to its own
        prev = np.concatenate([high[:, 1:], np.zeros((part.size, 1))], axis=1)
        prev = np.where(np.isfinite(prev), prev, 0.0)
        keys.append(low[ok])
        steps.append(((high - prev) * times[part, None])[ok])
    key = np.concatenate(keys) if keys else np.zeros(0)
    inc = np.concatenate(steps) if steps else np.zeros(0)
    order = np.argsort(key, kind="stable")
    key, size = key[order], np.cumsum(inc[order])
    # between the j-th and (j + 1)-th key the size is size[j] + s * linear
    start = np.concatenate([[0.0], key])
    fixed = np.concatenate([[0.0], size])
    end = np.concatenate([key, [s_cap]])
    with np.errstate(divide="ignore", invalid="ignore"):
        # (a hair less, so that s * sum(c) never rounds above alpha)
        room = np.where(linear > 0, (alpha - fixed) / linear * (1.0 - 1e-12), np.inf)
    best = np.minimum(np.nextafter(end, 0.0), room)
    fine = (fixed <= alpha) & (best >= start)
    if not fine.any():
        return 1.0
    return float(min(max(1.0, best[fine].max()), s_cap))


def exact_required_total_n(k_s, n_s, k_c, n_c, miss, *, iterations: int = 60):
    """Rows (slice + rest, at the current shares) at which the exact test would reject.

    The observed rates are taken as the truth and both groups scaled by one factor until
    :func:`exact_harm_pvalue` is at most ``miss``; ``inf`` where the observed gap is not
    positive or no factor up to ``10**9`` would do, NaN where a side has no rows.

    Examples
    --------
    >>> need = exact_required_total_n(9, 40, 100, 1000, 0.001)
    >>> bool(1040 < need < 20_000), bool(exact_harm_pvalue(9, 40, 109, 1040) > 0.001)
    (True, True)
    """
    def reject(f, k_s, n_s, k_c, n_c, miss):
        from scipy.stats import hypergeom

        ks, ns = np.round(k_s * f), np.maximum(np.round(n_s * f), 1.0)
        kc, nc = np.round(k_c * f), np.maximum(np.round(n_c * f), 1.0)
        return hypergeom.sf(ks - 1, ns + nc, ks + kc, ns) <= miss

    return _required_n(reject, k_s, n_s, k_c, n_c, miss, iterations=iterations,
                       positive_miss=True)


def exact_detectable_gap(n_s, n_c, rate, miss):
    """The smallest observed gap at which the exact test rejects for a slice of ``n_S`` rows.

    As :func:`detectable_gap`, with :func:`exact_harm_pvalue` at most ``miss`` in place of
    the bound above 0; ``n_s``, ``n_c`` and ``miss`` may be arrays (one answer each).

    Examples
    --------
    >>> g = exact_detectable_gap(500, 5000, 0.1, 0.05 / 1000)
    >>> bool(0.03 < g < detectable_gap(500, 5000, 0.1, 0.05 / 1000))
    True
    """
    from scipy.stats import hypergeom

    n_s, n_c, miss = _arrays(n_s, n_c, miss)
    shape = np.broadcast_shapes(n_s.shape, n_c.shape, miss.shape)
    n_s, n_c, miss = (np.atleast_1d(np.broadcast_to(x, shape)).astype(float)
                      for x in (n_s, n_c, miss))
    grid = np.arange(0.001, 1.0 - float(rate) + 1e-9, 0.001)
    out = np.full(n_s.shape, np.nan)
    if grid.size == 0:
        return out.reshape(shape) if shape else float(out[0])
    kc = np.round(float(rate) * n_c)

    def ok(j):
        ks = np.round((float(rate) + grid[j]) * n_s)
        return (hypergeom.sf(ks - 1, n_s + n_c, ks + kc, n_s) <= miss) & (miss > 0)

    # the p-value falls as the slice's costs rise (the rest fixed): bisect on the grid
    reach = ok(np.full(n_s.shape, grid.size - 1))
    lo, hi = np.full(n_s.shape, -1), np.full(n_s.shape, grid.size - 1)
    while np.any(hi - lo > 1):
        mid = (lo + hi) // 2
        good = ok(np.maximum(mid, 0))
        lo, hi = np.where(good, lo, mid), np.where(good, mid, hi)
    out = np.where(reach, grid[hi], np.nan)
    return out.reshape(shape) if shape else float(out[0])



def _required_n(rejects, k_s, n_s, k_c, n_c, miss, *, iterations, positive_miss=False):
    """Rows (slice + rest, both scaled by one factor ``f``) at which ``rejects`` holds.

    ``rejects(f, k_s, n_s, k_c, n_c, miss)`` on the rows with a positive observed gap is
    monotone in ``f``; bisection on ``log10 f`` in [-4, 9] for every row at once.  ``inf``
    where even ``f = 10**9`` does not reject or the gap is not positive (with
    ``positive_miss``, also where the miss is 0), NaN where a side has no rows.
    """
    k_s, n_s, k_c, n_c, miss = _arrays(k_s, n_s, k_c, n_c, miss)
    shape = np.broadcast_shapes(k_s.shape, n_s.shape, k_c.shape, n_c.shape, miss.shape)
    k_s, n_s, k_c, n_c, miss = (np.atleast_1d(np.broadcast_to(x, shape)).astype(float)
                                for x in (k_s, n_s, k_c, n_c, miss))
    out = np.full(k_s.shape, np.inf)
    bad = (n_s <= 0) | (n_c <= 0)
    with np.errstate(all="ignore"):
        pos = ~bad & (k_s / np.where(n_s > 0, n_s, 1) > k_c / np.where(n_c > 0, n_c, 1))
    if positive_miss:
        pos &= miss > 0
    if pos.any():
        rows = np.flatnonzero(pos)
        args = (k_s[rows], n_s[rows], k_c[rows], n_c[rows], miss[rows])
        lo = np.full(rows.shape, -4.0)
        hi = np.full(rows.shape, 9.0)  # log10 of the factor
        reach = rejects(10.0 ** hi, *args)
        for _ in range(iterations):
            mid = 0.5 * (lo + hi)
            ok = rejects(10.0 ** mid, *args)
            hi = np.where(ok, mid, hi)
            lo = np.where(ok, lo, mid)
            if np.all(hi - lo < 1e-4):
                break
        total = n_s[rows] + n_c[rows]
        out[rows] = np.where(reach, np.ceil(10.0 ** hi * total), np.inf)
    out[bad] = np.nan
    return out.reshape(shape)
