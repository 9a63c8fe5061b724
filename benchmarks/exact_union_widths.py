"""Width study: ``exact-union`` against ``exact`` over group sizes, size ratios, rates, levels.

For every group size ``n_A``, size ratio ``r = n_B / n_A``, true rate ``p`` (both groups at
the same rate: the observed counts are ``round(p n)``) and interval level, computes the
interval of ``p_A - p_B`` with ``method="exact"`` (the two-sample exact search) and with
``method="exact-union"`` (Clopper-Pearson of each group joined by the union bound), both
through :func:`fairbound.stats.difference_interval` as an audit calls them, and prints the
width ratio ``union / exact`` of every cell, then the largest ratio at each size ratio.

The rule that ``auto`` uses (:mod:`fairbound.stats.auto`) depends on the sizes only: it
runs ``exact-union`` when ``max(n_A, n_B) >= K min(n_A, n_B)``.  ``K`` is the smallest
size ratio of the grid from which on (that ratio and every larger one) the largest width
ratio over all sizes, rates and levels is at most ``--tolerance`` (default 1.05: at most
5% wider than ``exact`` anywhere on the grid; no ratio keeps groups of 10 at or below
1.0).  Also printed: ``K`` at tolerances 1.0 and 1.02, over every ``n_A`` and over
``n_A >= 30``.  Deterministic: the numbers do not depend on the machine.

Usage::

    python benchmarks/exact_union_widths.py > benchmarks/results/exact_union_widths.txt
    python benchmarks/exact_union_widths.py --sizes 10,100 --ratios 10,1000 --quick
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

LEVELS = (0.95, 1 - 0.05 / 30, 1 - 0.05 / 1000)
LEVEL_NAMES = {0.95: "95%", 1 - 0.05 / 30: "1-0.05/30", 1 - 0.05 / 1000: "1-0.05/1000"}


def widths(n_a: int, n_b: int, p: float, level: float) -> tuple[float, float]:
    """``(exact width, exact-union width)`` for counts ``round(p n)`` of both groups."""
    from fairbound.stats import GroupStats, difference_interval

    a = GroupStats.from_counts(n_a, int(round(p * n_a)))
    b = GroupStats.from_counts(n_b, int(round(p * n_b)))
    e = difference_interval(a, b, method="exact", confidence_level=level)
    u = difference_interval(a, b, method="exact-union", confidence_level=level)
    return e[1] - e[0], u[1] - u[0]


def smallest_k(ratios, sizes, by_size, tolerance, floor):
    """Smallest grid ratio from which on every cell with ``n_A >= floor`` is within tolerance."""
    for i, r in enumerate(ratios):
        if all(by_size[s, n] <= tolerance for s in ratios[i:] for n in sizes if n >= floor):
            return r
    return None


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10,30,100,1000,10000", help="group sizes n_A")
    ap.add_argument("--ratios", default="1,10,30,100,300,1000,1500,2000,3000,10000,30000,100000",
                    help="size ratios n_B / n_A")
    ap.add_argument("--rates", default="0.02,0.1,0.3,0.5")
    ap.add_argument("--tolerance", type=float, default=1.05,
                    help="largest width ratio union / exact allowed from K on")
    ap.add_argument("--quick", action="store_true", help="95%% level only")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    ratios = [int(x) for x in args.ratios.split(",")]
    rates = [float(x) for x in args.rates.split(",")]
    levels = LEVELS[:1] if args.quick else LEVELS

    import fairbound

    t0 = time.perf_counter()
    print(f"# fairbound {fairbound.__version__}, python {platform.python_version()}, "
          f"{os.cpu_count()} cores, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("# deterministic: every number below is the same on every machine")
    print("# counts round(p n) in both groups; ratio = width(exact-union) / width(exact)")
    print()
    print("| n_A | n_B / n_A | rate | level | exact width | exact-union width | ratio |")
    print("|---|---|---|---|---|---|---|")
    worst: dict[int, tuple[float, str]] = {}
    cells: list[tuple[int, float]] = []
    by_size: dict[tuple[int, int], float] = {}
    for r in ratios:
        for n_a in sizes:
            for p in rates:
                for lv in levels:
                    we, wu = widths(n_a, n_a * r, p, lv)
                    q = wu / we
                    print(f"| {n_a:,} | {r:,} | {p:g} | {LEVEL_NAMES[lv]} | {we:.4f} | "
                          f"{wu:.4f} | {q:.3f} |", flush=True)
                    cell = f"n_A={n_a:,}, rate {p:g}, {LEVEL_NAMES[lv]}"
                    cells.append((r, q))
                    by_size[r, n_a] = max(by_size.get((r, n_a), 0.0), q)
                    if r not in worst or q > worst[r][0]:
                        worst[r] = (q, cell)
    print()
    print("Largest width ratio at each size ratio (rows) and group size n_A (columns), over "
          "every rate and level:")
    print()
    print("| n_B / n_A | " + " | ".join(f"n_A={n:,}" for n in sizes) + " | all | where |")
    print("|---" * (len(sizes) + 3) + "|")
    for r in ratios:
        row = " | ".join(f"{by_size[r, n]:.3f}" for n in sizes)
        print(f"| {r:,} | {row} | {worst[r][0]:.3f} | {worst[r][1]} |")
    print()
    for tol in sorted({1.0, 1.02, args.tolerance}):
        for floor in (sizes[0], sizes[1]) if len(sizes) > 1 else (sizes[0],):
            k = smallest_k(ratios, sizes, by_size, tol, floor)
            where = "every n_A" if floor == sizes[0] else f"n_A >= {floor:,}"
            print(f"K at tolerance {tol:g} ({where}): "
                  + ("none in the grid" if k is None else f"{k:,}"))
    k = smallest_k(ratios, sizes, by_size, args.tolerance, sizes[0])
    print()
    if k is None:
        print(f"K: none (no size ratio of the grid keeps every width ratio <= "
              f"{args.tolerance:g})")
    else:
        print(f"K = {k:,}: from this size ratio on every width ratio is <= "
              f"{args.tolerance:g} (rule: max(n_A, n_B) >= K min(n_A, n_B))")
        for name, inside in (("at or above K", lambda r: r >= k),
                             ("below K", lambda r: r < k)):
            qs = sorted(q for r, q in cells if inside(r))
            if qs:
                print(f"{name}: {len(qs)} cells, width ratio min {qs[0]:.3f}, median "
                      f"{statistics.median(qs):.3f}, max {qs[-1]:.3f}; "
                      f"{sum(q <= 1.0 for q in qs)} of {len(qs)} at most 1.0")
    print(f"# {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
