"""``exact-union``: exact one-sample intervals of both groups joined by a union bound.

For a group against a much larger "rest" (``comparison="vs-rest"`` over thousands of
groups) the two-sample search of :mod:`fairbound.stats.exact` spends its time on the
rest's nuisance parameter, which the rest's own data pin down far more tightly than the
group's.  This named method splits ``alpha`` between the two groups instead,

    alpha_B = alpha * s,   alpha_A = alpha - alpha_B,
    s = clip(sqrt(n_A) / (sqrt(n_A) + sqrt(n_B)), 0.01, 0.99),

takes the Clopper-Pearson interval ``[L_A, U_A]`` of group A at level ``1 - alpha_A`` and
``[L_B, U_B]`` of group B at level ``1 - alpha_B``, and reports

    C [L_A - U_B, U_A - L_B]

for the difference of the mean costs ``C (p_A - p_B)``.  Everything is a closed form on
arrays (``scipy.special.betaincinv``), so 100,000 comparisons take milliseconds.

Coverage proof.  Let ``E_A`` be the event ``L_A <= p_A <= U_A`` and ``E_B`` the event
``L_B <= p_B <= U_B``.  The Clopper-Pearson interval at level ``1 - a`` covers for every
``n >= 1`` and every true rate: ``P(not E_A) <= alpha_A`` and ``P(not E_B) <= alpha_B``
(each end is the inversion of an exact one-sided binomial test at level ``a / 2``;
Clopper & Pearson 1934).  On ``E_A and E_B``, ``p_A - p_B >= L_A - U_B`` and
``p_A - p_B <= U_A - L_B``, so the interval covers.  By the union bound (Boole's
inequality; no independence needed)

    P(not covered) <= P(not E_A) + P(not E_B) <= alpha_A + alpha_B = alpha.

The split ``s`` depends on the group sizes only, never on the counts, so ``alpha_A`` and
``alpha_B`` are fixed before the data are seen and the bound holds as stated.  Coverage is
checked by enumerating every table on grids of sizes and true rates in
``tests/stats/test_exact_union.py`` (``-m slow`` for the larger grids).

Decision.  ``auto`` runs this method for 0/1 costs when one group has at least
``fairbound.stats.auto.UNION_RATIO`` (3,000) times the examples of the other, and the
two-sample ``exact`` otherwise; the rule reads the sizes only, so each branch's coverage
holds conditionally on the sizes.  ``exact-union`` is wider than ``exact`` when the groups
are of similar size (both Clopper-Pearson intervals are paid in full: about 1.64 times as
wide at equal sizes), and from a size ratio of 3,000 on it is at most 1.05 times as wide
anywhere on the grid of ``benchmarks/exact_union_widths.py`` and usually narrower
(``exact`` then tests the rest's nuisance values with the tail bound, whose Berry-Esseen
term is loose for the small group); figures in ``docs/which_interval.md``.  It can also be
named for any audit of 0/1 costs.

References
----------
C. J. Clopper and E. S. Pearson. "The use of confidence or fiducial limits illustrated in
the case of the binomial." Biometrika 26 (1934) 404-413.

Examples
--------
>>> from fairbound.stats.base import GroupStats, difference_interval
>>> a, b = GroupStats.from_counts(100, 30), GroupStats.from_counts(1_000_000, 250_000)
>>> lo, hi = difference_interval(a, b, method="exact-union")
>>> round(lo, 4), round(hi, 4)
(-0.0393, 0.1515)
"""

from __future__ import annotations

import numpy as np

from fairbound.stats.base import GroupStats, NotEstimable, register_interval

__all__ = ["union_interval_many", "union_required_n_many", "union_split"]

_SHARE_MIN = 0.01


def union_split(n_a, n_b):
    """Share ``s`` of ``alpha`` given to group B (from the sizes only; arrays broadcast).

    Examples
    --------
    >>> float(union_split(100, 100)), float(union_split(100, 10**7))
    (0.5, 0.01)
    """
    ra, rb = np.sqrt(np.asarray(n_a, float)), np.sqrt(np.asarray(n_b, float))
    return np.clip(ra / (ra + rb), _SHARE_MIN, 1.0 - _SHARE_MIN)


def _cp_lower(special, k, n, miss):
    """Clopper-Pearson lower end (float arrays already broadcast)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(k <= 0, 0.0,
                        special.betaincinv(np.maximum(k, 1e-300), n - k + 1.0, miss / 2.0))


def _cp_upper(special, k, n, miss):
    """Clopper-Pearson upper end (float arrays already broadcast)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(k >= n, 1.0,
                        special.betaincinv(k + 1.0, np.maximum(n - k, 1e-300),
                                           1.0 - miss / 2.0))


def _clopper_pearson_many(k, n, miss):
    """Clopper-Pearson ends for counts ``k`` of ``n`` missing with probability ``miss``."""
    from fairbound.stats.exact._special import ufuncs

    special = ufuncs()

    k, n, miss = np.broadcast_arrays(np.asarray(k, float), np.asarray(n, float),
                                     np.asarray(miss, float))
    return _cp_lower(special, k, n, miss), _cp_upper(special, k, n, miss)


def union_interval_many(k_a, n_a, k_b, n_b, confidence_level):
    """``[L_A - U_B, U_A - L_B]`` for the rates ``k / n`` of every pair (arrays broadcast).

    Examples
    --------
    >>> lo, hi = union_interval_many([3, 30], [10, 100], [400, 2500], [10_000, 10_000], 0.95)
    >>> np.round(lo, 4), np.round(hi, 4)
    (array([ 0.0194, -0.0517]), array([0.6203, 0.164 ]))
    """
    alpha = 1.0 - float(confidence_level)
    share = union_split(n_a, n_b)
    la, ua = _clopper_pearson_many(k_a, n_a, alpha * (1.0 - share))
    lb, ub = _clopper_pearson_many(k_b, n_b, alpha * share)
    return la - ub, ua - lb


def _union_many(a, b, rho):
    C = np.maximum(a.cost_max, b.cost_max)
    lo, hi = union_interval_many(a.total / C, a.n, b.total / C, b.n, rho)
    return lo * C, hi * C


#: Range of scales the planner searches, and its relative precision: those of the shared
#: bisection of :func:`fairbound.stats.vectorised.required_n_many`.
_SCALE_MIN, _SCALE_MAX, _SCALE_TOL = 1e-6, 1e12, 2e-10


def union_required_n_many(a, b, confidence_level) -> np.ndarray:
    """Total n (A + B, same shares and rates) at which each ``exact-union`` interval excludes 0.

    The planner of :func:`fairbound.stats.vectorised.required_n_many` for this method, on
    :class:`~fairbound.stats.vectorised.StatsArrays`: both groups are scaled by ``s`` (the
    split of ``alpha`` depends on the ratio of the sizes only, so it does not move) and the
    smallest ``s`` at which the end nearer 0 crosses it, ``L_X(s) - U_Y(s) > 0`` with ``X``
    the group of the higher rate, is found on all comparisons together.  Only the two
    Clopper-Pearson ends that decide are computed (the shared planner computes all four),
    starting from the normal approximation of the crossing and bracketing it, then the
    Illinois variant of regula falsi on ``log s`` (a bisection step where it stalls) to a
    relative ``2e-10``: about 10 evaluations instead of the shared bisection's 36, the same
    plan to within one example or ``1e-9`` of it (``tests/stats/test_vectorised.py``).

    ``inf`` for a zero gap or when no scale up to ``1e12`` excludes 0; NaN where a group
    is empty.

    Examples
    --------
    >>> from fairbound.stats.base import GroupStats
    >>> from fairbound.stats.vectorised import StatsArrays
    >>> a = StatsArrays.from_stats([GroupStats.from_counts(100, 30),
    ...                            GroupStats.from_counts(100, 20)])
    >>> b = StatsArrays.from_stats([GroupStats.from_counts(10_000, 2_000)] * 2)
    >>> union_required_n_many(a, b, 0.95)
    array([10257.,    inf])
    """
    from fairbound.stats.exact._special import ufuncs

    special = ufuncs()
    alpha = 1.0 - float(confidence_level)
    d = a.mean - b.mean
    size = a.n + b.n
    out = np.full(d.shape, np.nan)
    out[np.isfinite(d) & (d == 0)] = np.inf
    todo = np.flatnonzero(np.isfinite(d) & (d != 0))
    if not todo.size:
        return out
    C = np.maximum(a.cost_max, b.cost_max)[todo]
    up = d[todo] > 0                      # X = A (the higher rate), Y = B; else swapped
    na, nb = a.n[todo], b.n[todo]
    ka, kb = a.total[todo] / C, b.total[todo] / C
    share = union_split(na, nb)
    nx, ny = np.where(up, na, nb), np.where(up, nb, na)
    kx, ky = np.where(up, ka, kb), np.where(up, kb, ka)
    mx = alpha * np.where(up, 1.0 - share, share)
    my = alpha * np.where(up, share, 1.0 - share)

    def g(rows, s):
        """``L_X(s) - U_Y(s)``: positive where the interval at scale ``s`` excludes 0."""
        return (_cp_lower(special, kx[rows] * s, nx[rows] * s, mx[rows])
                - _cp_upper(special, ky[rows] * s, ny[rows] * s, my[rows]))

    # start: the normal approximation of the crossing, z_X se_X + z_Y se_Y = |gap|
    px, py = kx / nx, ky / ny
    zx, zy = special.ndtri(1.0 - mx / 2.0), special.ndtri(1.0 - my / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        s0 = ((zx * np.sqrt(np.maximum(px * (1 - px), 1.0 / nx) / nx)
               + zy * np.sqrt(np.maximum(py * (1 - py), 1.0 / ny) / ny)) / (px - py)) ** 2
    s0 = np.clip(np.where(np.isfinite(s0), s0, 1.0), _SCALE_MIN, _SCALE_MAX)
    m = todo.size
    s_lo, s_hi = np.full(m, _SCALE_MIN), np.full(m, _SCALE_MAX)
    g_lo, g_hi = np.full(m, np.nan), np.full(m, np.nan)
    result = np.full(m, np.nan)            # the scale found (inf: none up to 1e12)
    g0 = g(np.arange(m), s0)
    pos = g0 > 0
    s_hi[pos], g_hi[pos] = s0[pos], g0[pos]
    s_lo[~pos], g_lo[~pos] = s0[~pos], g0[~pos]
    # bracket: step by 4 from the start until the sign changes, clamped to the range
    for need_lo in (True, False):
        rows = np.flatnonzero(pos if need_lo else ~pos)
        s = s0[rows]
        while rows.size:
            s = np.clip(s / 4.0 if need_lo else s * 4.0, _SCALE_MIN, _SCALE_MAX)
            v = g(rows, s)
            flip = (v <= 0) if need_lo else (v > 0)
            edge = s <= _SCALE_MIN if need_lo else s >= _SCALE_MAX
            if need_lo:
                s_lo[rows[flip]], g_lo[rows[flip]] = s[flip], v[flip]
                done_edge = edge & ~flip        # excludes 0 already at the smallest scale
                result[rows[done_edge]] = _SCALE_MIN
                s_hi[rows[~flip]], g_hi[rows[~flip]] = s[~flip], v[~flip]
            else:
                s_hi[rows[flip]], g_hi[rows[flip]] = s[flip], v[flip]
                done_edge = edge & ~flip        # no scale up to 1e12 excludes 0
                result[rows[done_edge]] = np.inf
                s_lo[rows[~flip]], g_lo[rows[~flip]] = s[~flip], v[~flip]
            keep = ~flip & ~edge
            rows, s = rows[keep], s[keep]
    # Illinois regula falsi on log s, bisection where the bracket does not halve
    live = np.flatnonzero(np.isnan(result))
    x_lo, x_hi = np.log(s_lo), np.log(s_hi)
    f_lo, f_hi = g_lo.copy(), g_hi.copy()
    side = np.zeros(m, np.int8)            # which end moved last (+1 high, -1 low)
    width0 = x_hi - x_lo
    for it in range(200):
        live = live[~(x_hi[live] - x_lo[live] < _SCALE_TOL)]
        if not live.size:
            break
        xl, xh, fl, fh = x_lo[live], x_hi[live], f_lo[live], f_hi[live]
        with np.errstate(divide="ignore", invalid="ignore"):
            xc = (xl * fh - xh * fl) / (fh - fl)
        stalled = (it % 4 == 3) & (xh - xl > 0.25 * width0[live])
        bad = ~np.isfinite(xc) | (xc <= xl) | (xc >= xh) | stalled
        xc = np.where(bad, 0.5 * (xl + xh), xc)
        if it % 4 == 3:
            width0[live] = xh - xl
        v = g(live, np.exp(xc))
        hi_moves = v > 0
        r_hi, r_lo = live[hi_moves], live[~hi_moves]
        # Illinois: an end kept twice in a row has its value halved
        f_lo[r_hi] = np.where(side[r_hi] == 1, 0.5 * f_lo[r_hi], f_lo[r_hi])
        f_hi[r_lo] = np.where(side[r_lo] == -1, 0.5 * f_hi[r_lo], f_hi[r_lo])
        x_hi[r_hi], f_hi[r_hi] = xc[hi_moves], v[hi_moves]
        x_lo[r_lo], f_lo[r_lo] = xc[~hi_moves], v[~hi_moves]
        side[r_hi], side[r_lo] = 1, -1
    todo_found = np.isnan(result)
    result[todo_found] = np.exp(x_hi[todo_found])
    out[todo] = np.where(np.isinf(result), np.inf, np.ceil(result * size[todo]))
    return out


_union_many.required_n_many = union_required_n_many  # the planner on arrays


@register_interval(
    "exact-union",
    guarantee="finite-sample",
    summary="Clopper-Pearson of each group, alpha split by size (union bound), 0/1 costs; "
            "for groups vs a much larger rest.",
    reference="Clopper & Pearson, Biometrika 26 (1934) 404-413; Boole's inequality",
    binary_only=True,
    aliases=("union-bound",),
    vectorised=_union_many,
)
def _union(a: GroupStats, b: GroupStats, rho, *, rng=None):
    if a.cost_max != b.cost_max:
        raise NotEstimable("method 'exact-union' needs the same cost_max in both groups")
    lo, hi = _union_many(_one(a), _one(b), rho)
    return float(lo[0]), float(hi[0])


class _one:
    """One group's statistics as length-1 arrays (the vectorised form serves both)."""

    def __init__(self, g: GroupStats):
        self.n = np.array([float(g.n)])
        self.total = np.array([float(g.total)])
        self.cost_max = np.array([float(g.cost_max)])
