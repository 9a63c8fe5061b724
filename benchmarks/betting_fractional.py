"""Benchmark: sample size for 80% power, guaranteed betting vs Wald, on fractional costs.

Groups A and B have equal sizes and Beta-distributed costs (default Beta(1.5, 8.5) vs
Beta(1, 9): means 0.15 and 0.10, a gap of 0.05).  For a per-group size ``n`` the power of a
method is the share of simulated data sets whose 95% interval excludes 0.  The ``n`` at
which the power reaches the target is found by bisection over ``n`` (the same data-set seeds
at every ``n``, so power is nearly monotone in ``n``), then refined by interpolating the
power between the two sizes that bracket the target.  Prints both sizes (total ``2 n``) and
their ratio:

    python benchmarks/betting_fractional.py --reps 300

Samples are passed sorted, as the engines return them, and the betting interval is called
as the audit calls it (``method="betting"`` with the default seed 0).

``--methods wald,betting,betting-v1`` adds v1 of the blocked pairs, which bets on the
difference of the two costs at every pair (v2 bets on each group's cost once a fractional
cost has been seen; ``fairbound.stats.betting._pair_final_capital``).  Measured with the
defaults (300 data sets per size; Wald 63.2 per group):

    betting (v2)   121.8 per group, 1.93 x Wald's total n
    betting-v1     135.8 per group, 2.15 x Wald's total n

With ``--reps 1000`` (Wald 62.9): v2 121.0, 1.92 x.
"""

from __future__ import annotations

import argparse
import contextlib
import time

import numpy as np


@contextlib.contextmanager
def _v1():
    """Within the block, ``method="betting"`` bets on the cost difference at every pair (v1)."""
    from fairbound.stats import betting

    def difference_only(seqs, pairs, alpha, truncation, stop):
        return betting._final_capital(seqs, alpha, truncation, stop)

    v2 = betting.intervals._pair_final_capital  # looked up where the gap interval calls it
    betting.intervals._pair_final_capital = difference_only
    try:
        yield
    finally:
        betting.intervals._pair_final_capital = v2


def power(method: str, n: int, reps: int, args, **options) -> float:
    from fairbound.stats import GroupStats, difference_interval

    hits = 0
    for r in range(reps):
        rng = np.random.default_rng([args.seed, r, n])
        a = GroupStats.from_costs(np.sort(rng.beta(args.a1, args.b1, n)))
        b = GroupStats.from_costs(np.sort(rng.beta(args.a2, args.b2, n)))
        lo, hi = difference_interval(a, b, method=method, confidence_level=args.level,
                                     rng=0, **options)
        hits += lo > 0 or hi < 0
    return hits / reps


def required_n(method: str, args, **options) -> tuple[float, dict[int, float]]:
    """Per-group ``n`` reaching ``args.power`` (bisection, then linear interpolation)."""
    seen: dict[int, float] = {}

    def pw(n: int) -> float:
        if n not in seen:
            seen[n] = power(method, n, args.reps, args, **options)
        return seen[n]

    lo, hi = 4, 16
    while pw(hi) < args.power:
        lo, hi = hi, 2 * hi
    while hi - lo > max(2, lo // 50):
        mid = (lo + hi) // 2
        if pw(mid) >= args.power:
            hi = mid
        else:
            lo = mid
    p_lo, p_hi = pw(lo), pw(hi)
    n = lo + (hi - lo) * (args.power - p_lo) / (p_hi - p_lo) if p_hi > p_lo else float(hi)
    return n, seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=300, help="data sets per n")
    ap.add_argument("--power", type=float, default=0.8)
    ap.add_argument("--level", type=float, default=0.95)
    ap.add_argument("--a1", type=float, default=1.5)
    ap.add_argument("--b1", type=float, default=8.5)
    ap.add_argument("--a2", type=float, default=1.0)
    ap.add_argument("--b2", type=float, default=9.0)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--methods", default="wald,betting")
    args = ap.parse_args()

    result = {}
    for method in args.methods.split(","):
        t0 = time.perf_counter()
        with _v1() if method == "betting-v1" else contextlib.nullcontext():
            n, seen = required_n("betting" if method == "betting-v1" else method, args)
        result[method] = n
        curve = ", ".join(f"{k}:{v:.2f}" for k, v in sorted(seen.items()))
        print(f"{method:>10}: n per group {n:7.1f}  (total {2 * n:7.1f})  "
              f"[{time.perf_counter() - t0:.0f}s; power by n: {curve}]")
    if "wald" in result:
        for method, n in result.items():
            if method != "wald":
                print(f"{method} / wald total-n ratio: {n / result['wald']:.2f}")


if __name__ == "__main__":
    main()
