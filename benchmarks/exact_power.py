"""Power, speed and width of the ``exact`` interval, computed exactly (no simulation).

1. Power to exclude 0 at true rates 0.15 vs 0.10, equal groups, 95%: the sum over every
   table ``(x, y)`` with non-negligible probability (``+-`` about 8 standard deviations) of
   its probability times whether the interval excludes 0.  The interval excludes 0 when
   the exact test of ``d = 0`` rejects (``p(0) <= alpha``) and the accepted set lies on one
   side of 0; the script checks the second part on the tables next to the rejection
   boundary.  The same sum for the Wald interval.  Then the smallest total ``n`` reaching
   80% power for each (target for ``exact``: at most 1,420; Wald needs about 1,354).
2. Time per interval at 50, 500, 5,000, 50,000 and 5,000,000 examples per group.
3. Width relative to Wald at several sizes and rates, on both sides of the switch from the
   exact test to the tail bound (simple nulls whose binomial variances exceed
   ``EXACT_VARIANCE``; groups of more than 10,000 examples with common rates).

Usage::

    python benchmarks/exact_power.py            # everything (a few minutes)
    python benchmarks/exact_power.py --quick    # power at 1,400 only, fewer widths
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import stats

from fairbound.stats import exact as E

ALPHA = 0.05
Z = float(stats.norm.ppf(1 - ALPHA / 2))


def _p_at_zero(x: int, ys: np.ndarray, n: int, gamma: float) -> np.ndarray:
    """p-values of ``d = 0`` for the tables ``(x, y)``, ``y`` in ``ys`` (groups of ``n``).

    Decided exactly: grid suprema above alpha accept, others near alpha are refined (the
    same rule as the interval search).
    """
    yf = ys.astype(float)
    d = np.zeros(ys.size)
    thr = np.abs(E.score_statistic(float(x), yf, n, n, d)) * (1 - E._TIE)
    la, ua = E._clopper_pearson(int(x), n, gamma / 4)
    cb = np.array([E._clopper_pearson(int(y), n, gamma / 4) for y in ys])
    lo, hi = np.maximum(la, cb[:, 0]), np.minimum(ua, cb[:, 1])
    p = np.full(ys.size, gamma)
    p[thr <= 0] = 1.0
    rows = np.flatnonzero((thr > 0) & (lo <= hi))
    if rows.size:
        batch = E._ExactBatch(n, n, d[rows], thr[rows], lo[rows], hi[rows])
        nu, r = batch.coarse()
        g = r.max(axis=1) + gamma
        need = np.flatnonzero((g <= ALPHA) & (g > ALPHA - E._SETTLED))
        if need.size:
            g[need] = batch.refine(nu, r, need) + gamma
        p[rows] = g
    return p


def _support(n: int, p: float) -> np.ndarray:
    r = E._radius(n, p)
    return np.arange(max(0, math.floor(n * p - r)), min(n, math.ceil(n * p + r)) + 1)


def power_exact(n: int, pa: float, pb: float, check: bool = False) -> float:
    """P(the exact interval excludes 0) with ``n`` examples per group, summed exactly."""
    gamma = ALPHA * E.GAMMA_SHARE
    xs, ys = _support(n, pa), _support(n, pb)
    fa, fb = stats.binom.pmf(xs, n, pa), stats.binom.pmf(ys, n, pb)
    total = 0.0
    edge = []
    for i, x in enumerate(xs):
        rej = _p_at_zero(int(x), ys, n, gamma) <= ALPHA
        total += fa[i] * fb[rej].sum()
        flip = np.flatnonzero(np.diff(rej.astype(int)) != 0)
        edge += [(int(x), int(ys[j])) for j in flip] + [(int(x), int(ys[j + 1])) for j in flip]
    if check:
        # the interval excludes 0 exactly when the test at 0 rejects (boundary tables)
        rng = np.random.default_rng(0)
        pick = rng.choice(len(edge), size=min(12, len(edge)), replace=False)
        for k in pick:
            x, y = edge[k]
            lo, hi = E.exact_interval(x, n, y, n, 1 - ALPHA)
            p0 = E.exact_pvalue(x, n, y, n, 0.0, gamma=gamma)
            assert (lo > 0 or hi < 0) == (p0 <= ALPHA), (x, y, lo, hi, p0)
        print(f"  checked {len(pick)} boundary tables: interval excludes 0 <=> p(0) <= alpha")
    return float(total)


def power_wald(n: int, pa: float, pb: float) -> float:
    """P(the Wald interval excludes 0) with ``n`` examples per group, summed exactly."""
    xs, ys = _support(n, pa), _support(n, pb)
    fa, fb = stats.binom.pmf(xs, n, pa), stats.binom.pmf(ys, n, pb)
    a, b = xs[:, None] / n, ys[None, :] / n
    se = np.sqrt(a * (1 - a) / n + b * (1 - b) / n)
    excl = np.abs(a - b) > Z * se
    return float(fa @ excl @ fb)


def smallest_n(power, lo: int, hi: int, target: float = 0.8) -> tuple[int, float]:
    """Smallest per-group ``n`` in ``[lo, hi]`` with ``power(n) >= target`` (bisection)."""
    cache = {}

    def f(n):
        if n not in cache:
            cache[n] = power(n)
        return cache[n]

    while hi - lo > 1:
        mid = (lo + hi) // 2
        if f(mid) >= target:
            hi = mid
        else:
            lo = mid
    # the power is not exactly monotone in n: step back while the level still holds
    n = hi
    while n - 1 > 0 and f(n - 1) >= target and n - 1 >= hi - 6:
        n -= 1
    return n, f(n)


def timing(n: int, reps: int = 5) -> float:
    ka, kb = round(0.15 * n), round(0.10 * n)
    best = math.inf
    for _ in range(reps):
        E.clear_cache()                 # time the search, not a cache hit
        t = time.perf_counter()
        E.exact_interval(ka, n, kb, n, 1 - ALPHA)
        best = min(best, time.perf_counter() - t)
    return best


def wald_width(ka, na, kb, nb) -> float:
    a, b = ka / na, kb / nb
    return 2 * Z * math.sqrt(a * (1 - a) / na + b * (1 - b) / nb)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    pa, pb = 0.15, 0.10

    print("1. power to exclude 0, rates 0.15 vs 0.10, equal groups, 95% (exact sums)")
    t = time.perf_counter()
    p700 = power_exact(700, pa, pb, check=True)
    print(f"  exact, 700 + 700 = 1,400: power {p700:.4f} ({time.perf_counter() - t:.1f} s)")
    print(f"  Wald,  700 + 700 = 1,400: power {power_wald(700, pa, pb):.4f}")
    if not args.quick:
        n_w, pw = smallest_n(lambda n: power_wald(n, pa, pb), 500, 900)
        print(f"  Wald : smallest total n with power >= 0.8: {2 * n_w} (power {pw:.4f})")
        n_e, pe = smallest_n(lambda n: power_exact(n, pa, pb), 600, 720)
        print(f"  exact: smallest total n with power >= 0.8: {2 * n_e} (power {pe:.4f}); "
              f"target <= 1420")

    print("\n2. time per interval (rates 0.15 vs 0.10, best of 5)")
    for n in (50, 500, 5_000, 50_000, 5_000_000):
        regime = "exact" if n <= 4 * E.EXACT_VARIANCE else "tail bound (common rates)"
        print(f"  {n:>9,} per group: {timing(n) * 1e3:7.1f} ms   [{regime}]")

    print("\n3. width / Wald width (observed rates = the rates below)")
    sizes = (1_000, 10_000, 20_000, 100_000, 1_000_000, 5_000_000)
    if args.quick:
        sizes = (1_000, 20_000, 1_000_000)
    rates = ((0.5, 0.45), (0.15, 0.10), (0.01, 0.005), (0.001, 0.0005), (0.0001, 0.00005))
    print("  n per group " + "".join(f"{f'{a:g}/{b:g}':>14}" for a, b in rates))
    for n in sizes:
        cells = []
        for a, b in rates:
            ka, kb = round(a * n), round(b * n)
            if kb == 0:
                cells.append(f"{'-':>14}")
                continue
            lo, hi = E.exact_interval(ka, n, kb, n, 1 - ALPHA)
            cells.append(f"{(hi - lo) / wald_width(ka, n, kb, n):>14.3f}")
        side = "exact" if n <= 4 * E.EXACT_VARIANCE else "mixed"
        print(f"  {n:>11,} " + "".join(cells) + f"   [{side}]")
    print("  (above 10,000 per group, nulls with n p q > "
          f"{E.EXACT_VARIANCE:g} use the tail bound; rare rates stay exact)")


if __name__ == "__main__":
    main()
