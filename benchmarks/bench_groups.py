"""Audits of many groups: 1,000, 10,000 and 100,000 groups, vs-rest, vs a bare GROUP BY.

Generates (once) Parquet files under ``benchmarks/_data/`` with ``--rows`` rows spread
evenly (by hash) over G groups, binary ``y`` and ``p`` (positive rates 0.45 to 0.55 by
group), then times, in this process,

* ``fairbound.audit(path, group="g", label="y", prediction="p",
  metrics="demographic_parity", comparison="vs-rest", method=M, max_comparisons=10**7)``:
  one interval, verdict and "n needed" per group (group vs all other rows);
* the bare scan ``SELECT g, y, p, count(*) FROM read_parquet(path) GROUP BY ALL``.

Closed-form methods (``newcombe``, ``wald``, ``agresti-caffo``, ``welch``) and the named
finite-sample method ``exact-union`` (Clopper-Pearson of the group and of the rest joined by
a union bound, ``fairbound.stats.exact.union``) compute the intervals and plans of all
groups on arrays (``fairbound.stats.vectorised``).  The default ``auto`` runs
``exact-union`` when one side is at least 3,000 times the other
(``fairbound.stats.auto.UNION_RATIO``; G equal groups against the rest: G >= 3,001) and
otherwise the two-sample exact interval, which searches each small-vs-rest table on its own,
about 10-50 ms each: that case is timed only up to ``--auto-max-groups`` groups.  The
method column shows what ``auto`` ran.

Usage::

    python benchmarks/bench_groups.py                       # 1k, 10k, 100k groups, 10M rows
    python benchmarks/bench_groups.py --groups 1000 --rows 1000000 --methods newcombe
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"


def make_parquet(groups: int, rows: int) -> Path:
    """Write (once) the file; values are hashes of the row number (same on every run).

    Group ``j`` (about ``rows / groups`` rows) has positive predictions at the rate
    ``0.45 + 0.01 (j mod 11)`` and labels at 0.40.  Each column hashes its own multiple of
    the row number: DuckDB's ``hash(i, k)`` shares its low bits across ``k``, so the
    first version of this file (``groups_*``), built from ``hash(i, 1) % groups`` and
    ``hash(i, 3) % 2``, had the prediction constant within every group (rates 0 or 1).
    """
    import duckdb

    path = DATA / f"groupsv2_{groups}_{rows}.parquet"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    duckdb.sql(f"""COPY (SELECT 'g' || j AS g,
                          CAST(hash(4 * i + 2) % 1000 < 400 AS TINYINT) AS y,
                          CAST(hash(4 * i + 3) % 1000 < 450 + 10 * (j % 11) AS TINYINT) AS p
                   FROM (SELECT i, hash(4 * i + 1) % {int(groups)} AS j
                         FROM range({int(rows)}) t(i))) TO '{tmp}' (FORMAT parquet)""")
    tmp.rename(path)
    return path


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--groups", default="1000,10000,100000")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--methods", default="newcombe,exact-union,auto")
    ap.add_argument("--auto-max-groups", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    import duckdb

    import fairbound
    from fairbound.stats.auto import union_applies
    from fairbound.stats.exact import clear_cache

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"fairbound {fairbound.__version__}, duckdb {duckdb.__version__}, python "
          f"{platform.python_version()}, {os.cpu_count()} cores, load average {load}; "
          f"{args.rows:,} rows, vs-rest, minimum of {args.repeat}")
    print("| groups | method | comparisons | audit (s) | bare GROUP BY (s) | ratio |")
    print("|---|---|---|---|---|---|")
    for g in [int(x) for x in args.groups.split(",") if x.strip()]:
        path = make_parquet(g, args.rows)
        duckdb.sql(f"SELECT count(*) FROM read_parquet('{path}')").fetchall()  # warm
        for method in [m.strip() for m in args.methods.split(",") if m.strip()]:
            per = args.rows / g
            if (method == "auto" and g > args.auto_max_groups
                    and not union_applies(per, args.rows - per)):
                print(f"| {g:,} | {method} | {g:,} | skipped (--auto-max-groups) | | |")
                continue
            audit_t, bare_t = [], []
            for _ in range(args.repeat):
                clear_cache()
                t = time.perf_counter()
                res = fairbound.audit(str(path), group="g", label="y", prediction="p",
                                      metrics="demographic_parity", comparison="vs-rest",
                                      method=method, max_comparisons=10**7)
                audit_t.append(time.perf_counter() - t)
                t = time.perf_counter()
                duckdb.sql(f"SELECT g, y, p, count(*) FROM read_parquet('{path}') "
                           "GROUP BY ALL").fetchall()
                bare_t.append(time.perf_counter() - t)
            a, b = min(audit_t), min(bare_t)
            ran = sorted({c.method for c in res.comparisons})
            label = method if ran == [method] else f"{method} ({', '.join(ran)})"
            print(f"| {g:,} | {label} | {len(res.comparisons):,} | {a:.2f} | {b:.2f} | "
                  f"{a / b:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
