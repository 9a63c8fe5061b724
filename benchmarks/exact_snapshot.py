"""Saved-output gate for the exact intervals: ``save`` today's intervals, ``check`` them later.

Numerical code keeps a "bit-identical on saved outputs" gate: before a change to
:mod:`fairbound.stats.exact` or :mod:`fairbound.stats.ratio`, save the intervals of a broad
grid of tables (small and large counts, several levels, alpha 0.1 / 0.05 / 0.01, Berger-Boos
``gamma`` default and 0, the batched tail-bound path, p-values and ratio intervals), and
after every change compare them bit for bit::

    python benchmarks/exact_snapshot.py save /tmp/exact_before.npz
    python benchmarks/exact_snapshot.py check /tmp/exact_before.npz
"""

from __future__ import annotations

import sys

import numpy as np


def tables():
    """(k_a, n_a, k_b, n_b) of the grid: small, medium, large and group-vs-rest tables."""
    out = []
    for na, nb in [(1, 1), (1, 5), (3, 4), (7, 13), (10, 10), (12, 30), (25, 25)]:
        for ka in sorted({0, na // 3, na // 2, na}):
            for kb in sorted({0, nb // 4, nb - 1 if nb > 1 else 0, nb}):
                out.append((ka, na, kb, nb))
    rng = np.random.default_rng(7)
    for na, nb in [(100, 100), (200, 50), (500, 1500), (2000, 2000), (5000, 20000)]:
        for _ in range(4):
            pa, pb = rng.uniform(0.02, 0.6, 2)
            out.append((int(na * pa), na, int(nb * pb), nb))
    # large counts: the tail-bound regime and the switch between the regimes
    for na, nb, pa, pb in [(20_000, 20_000, 0.3, 0.32), (100_000, 300_000, 0.1, 0.11),
                           (250_000, 750_000, 0.5, 0.48), (1_000_000, 1_000_000, 0.01, 0.012),
                           (12_000, 9_000_000, 0.5, 0.5), (10_000, 9_990_000, 0.5, 0.5),
                           (100, 9_999_900, 0.5, 0.5), (9_800, 9_990_200, 0.2, 0.21),
                           (60_000, 400_000, 0.002, 0.003)]:
        out.append((int(na * pa), na, int(nb * pb), nb))
    return out


def ratio_tables():
    """(k_a, n_a, k_b, n_b) for the ratio intervals (fewer: each costs more)."""
    out = [(0, 5, 3, 5), (3, 10, 0, 10), (7, 34, 1, 34), (2, 7, 6, 13), (10, 10, 9, 10),
           (30, 100, 50, 100), (60, 200, 100, 200), (12, 400, 30, 350), (500, 5000, 700, 5200),
           (3000, 10_000, 3100, 10_000), (40, 1000, 5000, 99_000)]
    return out


LEVELS = (0.9, 0.95, 0.99)


def compute() -> dict[str, np.ndarray]:
    from fairbound.stats import exact as E
    from fairbound.stats import ratio as R
    from fairbound.stats.auto import prefetch_intervals
    from fairbound.stats.base import GroupStats, difference_interval

    res: dict[str, np.ndarray] = {}
    tabs = tables()
    res["tables"] = np.array(tabs, dtype=np.int64)
    for rho in LEVELS:
        res[f"exact_{rho}"] = np.array([E.exact_interval(*t, rho) for t in tabs])
    small = [t for t in tabs if t[1] <= 30 and t[3] <= 30]
    res["small"] = np.array(small, dtype=np.int64)
    res["exact_g0"] = np.array([E.exact_interval(*t, 0.95, gamma=0) for t in small])
    res["exact_tol"] = np.array([E.exact_interval(*t, 0.95, tol=1e-2) for t in small])
    res["pvalue"] = np.array([E.exact_pvalue(*t, np.array([-0.2, 0.0, 0.1]))
                              for t in small])
    # the batched path (prefetch, the audit's route) for every table, then the registry
    E.clear_cache()
    items = [(GroupStats.from_counts(na, ka), GroupStats.from_counts(nb, kb), rho)
             for ka, na, kb, nb in tabs for rho in LEVELS]
    prefetch_intervals(items, "auto")
    res["batched"] = np.array([difference_interval(a, b, method="exact", confidence_level=r)
                               for a, b, r in items])
    E.clear_cache()
    rt = ratio_tables()
    res["ratio_tables"] = np.array(rt, dtype=np.int64)
    for rho in LEVELS:
        res[f"ratio_{rho}"] = np.array([R.exact_ratio_interval(*t, rho) for t in rt])
    res["ratio_pvalue"] = np.array([R.exact_ratio_pvalue(*t, np.array([0.5, 0.8, 1.25]))
                                    for t in rt[:6]])
    res["bonferroni"] = np.array([R.bonferroni_ratio_interval(*t) for t in rt])
    res["required_n"] = np.array([E.approximate_required_n(
        GroupStats.from_counts(na, ka), GroupStats.from_counts(nb, kb), 0.95)
        for ka, na, kb, nb in tabs if ka + kb > 0])
    return res


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] not in ("save", "check"):
        print(__doc__)
        return 2
    res = compute()
    if argv[0] == "save":
        np.savez(argv[1], **res)
        print(f"saved {sum(v.size for v in res.values()):,} numbers to {argv[1]}")
        return 0
    old = np.load(argv[1])
    bad = 0
    for key in old.files:
        a, b = old[key], res.get(key)
        if b is None or a.shape != b.shape or a.tobytes() != b.tobytes():
            bad += 1
            if b is None or a.shape != b.shape:
                print(f"DIFFERENT: {key} (missing or reshaped)")
                continue
            d = np.abs(a.astype(float) - b.astype(float))
            moved = (a.tobytes() != b.tobytes()) and int((d > 0).sum())
            way = ""
            if key.startswith(("exact_", "batched")) and a.ndim == 2 and a.shape[1] == 2:
                # intervals: how many ends moved outwards (lower down, upper up)
                out = int((b[:, 0] < a[:, 0]).sum() + (b[:, 1] > a[:, 1]).sum())
                way = f" ({out} outwards)"
            print(f"DIFFERENT: {key}: {moved} of {a.size} numbers{way}, by at most "
                  f"{float(np.nanmax(d)):.2g}")
    print("bit-identical" if not bad else f"{bad} arrays differ")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
