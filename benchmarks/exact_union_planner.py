"""``exact-union``'s "n needed" on arrays: its own planner against the shared bisection.

For ``--groups`` groups of 60 to 140 examples (rate 0.5) each against the rest of a
``--rows`` table (rate 0.5), at the Bonferroni level ``1 - 0.05 / groups`` (what a
family-wise vs-rest audit uses), times side by side, alternating, ``--repeat`` times:

* ``union_required_n_many`` (``fairbound.stats.exact.union``): only the two
  Clopper-Pearson ends that decide, from the normal approximation, Illinois regula falsi;
* the shared bisection of ``fairbound.stats.vectorised.required_n_many`` (36 rounds, all
  four ends), which ``exact-union`` used before;
* the intervals themselves (``intervals_many``), for scale;

and checks that the plans agree to within one example or ``1e-8`` of the plan.

Usage::

    python benchmarks/exact_union_planner.py --groups 100000 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    import numpy as np

    import fairbound
    import fairbound.stats.exact.union as union
    from fairbound.stats.vectorised import StatsArrays, intervals_many, required_n_many

    g = args.groups
    rng = np.random.default_rng(0)
    n = rng.integers(60, 141, g).astype(float)
    k = rng.binomial(n.astype(int), 0.5).astype(float)
    a = StatsArrays(n, k, k, np.ones(g), True)
    rest_k = args.rows // 2
    b = StatsArrays(args.rows - n, rest_k - k, rest_k - k, np.ones(g), True)
    level = 1 - 0.05 / g
    own = union._union_many.required_n_many

    def shared():
        del union._union_many.required_n_many
        try:
            return required_n_many("exact-union", a, b, level)
        finally:
            union._union_many.required_n_many = own

    times = {"own planner": [], "shared bisection": [], "intervals": []}
    for _ in range(args.repeat):
        for name, f in (("own planner", lambda: own(a, b, level)),
                        ("shared bisection", shared),
                        ("intervals", lambda: intervals_many("exact-union", a, b, level))):
            t = time.perf_counter()
            out = f()
            times[name].append(time.perf_counter() - t)
            if name == "own planner":
                mine = out
            elif name == "shared bisection":
                ref = out
    fin = np.isfinite(ref)
    assert np.array_equal(fin, np.isfinite(mine)) and np.array_equal(mine[~fin], ref[~fin])
    worst = float(np.max(np.abs(mine[fin] - ref[fin]) / np.maximum(1.0, 1e-8 * ref[fin])))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# fairbound {fairbound.__version__}, numpy {np.__version__}, python "
          f"{platform.python_version()}, {os.cpu_count()} cores, load average {load}")
    print(f"# {g:,} groups vs the rest of {args.rows:,} rows, level 1 - 0.05/{g:,}; "
          f"median of {args.repeat}, alternating")
    print()
    print("| computation | seconds (median) | min | max |")
    print("|---|---|---|---|")
    for name, ts in times.items():
        print(f"| {name} | {statistics.median(ts):.2f} | {min(ts):.2f} | {max(ts):.2f} |")
    speed = statistics.median(times["shared bisection"]) / statistics.median(
        times["own planner"])
    print()
    print(f"own planner {speed:.1f}x faster than the shared bisection; "
          f"{int(fin.sum()):,} finite plans, largest difference {worst:.2f} "
          "(in units of max(1 example, 1e-8 of the plan)); "
          f"{int((~fin).sum()):,} infinite in both")


if __name__ == "__main__":
    main()
