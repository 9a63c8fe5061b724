"""The betting intervals of groups: one group's mean and the gap between two groups.

The gap by blocked pairs or by the union of the groups' intervals, the choice between them,
the n they need, and their entries in the registry of interval methods (``betting``,
``betting-union``).

Part of :mod:`fairbound.stats.betting`; its docstring describes the method.
"""

from __future__ import annotations

import math

import numpy as np

from fairbound._validate import check_choice
from fairbound.errors import FairboundError
from fairbound.stats._betting_blocks import (
    COUNTS_ABOVE,
)
from fairbound.stats.base import (
    GroupStats,
    NotEstimable,
    check_confidence_level,
    register_interval,
)
from fairbound.stats.betting.arrangements import (
    ARRANGEMENTS,
    FIXED_TRUNCATION,
    STOP_FACTOR,
    _Arranger,
    _check_count_n,
    _digest,
    _final_capital,
    _fixed_bounds,
    _group_bounds,
    _n_arrangements,
    _pair_final_capital,
    _seed_words,
    _stop_level,
)
from fairbound.stats.betting.sequence import _check_truncation

_VARIANTS = ("auto", "blocked", "union")


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
