"""The default audit of Parquet files of 1M, 10M and 100M rows vs a bare DuckDB GROUP BY.

Generates (once) Parquet files under ``benchmarks/_data/`` with 4 groups of unequal size,
binary ``y``/``y_hat`` with group-dependent error rates and a fractional ``cost`` column,
then times, alternating, in this process, at every size given with ``--rows``:

* ``fairbound.audit(path, group="g", label="y", prediction="y_hat", metrics=METRICS)``
  with every default (method ``auto``: the exact interval for these 0/1 costs; family-wise
  error control; intervals, verdicts and sample-size plans for every comparison);
* the bare scan ``SELECT g, y, y_hat, count(*) FROM read_parquet(path) GROUP BY ALL`` that
  any audit must at least do.

``--with-cost`` adds the fractional ``cost`` metric (betting on per-group cost samples) and
its sums to the bare scan.  Several sizes are run because one size can hide a switch-over
between code paths.  Peak memory (max RSS) of each, in a fresh child process, is measured at
every size given with ``--memory-rows``.  Ratios are computed from numbers measured in the
same run.

Usage::

    python benchmarks/bench_scale.py                                  # 1M, 10M, 100M
    python benchmarks/bench_scale.py --rows 1000000,2000000 --memory-rows ""   # quick
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from _common import fetch_all, peak_rss_mib, run_child, write_parquet_once

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
METRICS = ["demographic_parity", "equal_opportunity", "false_positive_rate",
           "predictive_parity", "accuracy_parity"]
BARE = "SELECT g, y, y_hat, count(*) AS n FROM read_parquet('{path}') GROUP BY ALL"
BARE_COST = ("SELECT g, y, y_hat, count(*) AS n, sum(cost) AS s, sum(cost * cost) AS ss "
             "FROM read_parquet('{path}') GROUP BY ALL")


def make_parquet(rows: int, *, path: Path | None = None) -> Path:
    """Write (once) the benchmark file with ``rows`` rows; return its path.

    Values are functions of the row number through DuckDB's ``hash``, so the file is the
    same on every run.  Groups a/b/c/d hold 40/30/20/10 % of the rows; the positive rate is
    40 %; TPR is 0.85/0.80/0.75/0.70 and FPR 0.10/0.12/0.15/0.20 by group; the cost is
    0.5 * [y != y_hat] + 0.5 * u with u uniform on [0, 1).
    """
    path = path or DATA / f"preds_{rows}.parquet"
    u = "((hash(i, {k}) % 1000000) / 1000000.0)"
    return write_parquet_once(path, f"""
      WITH base AS (
        SELECT
          CASE WHEN {u.format(k=1)} < 0.4 THEN 'a' WHEN {u.format(k=1)} < 0.7 THEN 'b'
               WHEN {u.format(k=1)} < 0.9 THEN 'c' ELSE 'd' END AS g,
          CAST({u.format(k=2)} < 0.4 AS TINYINT) AS y,
          {u.format(k=3)} AS u3, {u.format(k=4)} AS u4
        FROM range({int(rows)}) t(i)
      ), pred AS (
        SELECT g, y, u4,
          CAST(CASE WHEN y = 1 THEN u3 < (CASE g WHEN 'a' THEN 0.85 WHEN 'b' THEN 0.80
                                                 WHEN 'c' THEN 0.75 ELSE 0.70 END)
                    ELSE u3 < (CASE g WHEN 'a' THEN 0.10 WHEN 'b' THEN 0.12
                                      WHEN 'c' THEN 0.15 ELSE 0.20 END) END AS TINYINT) AS y_hat
        FROM base
      )
      SELECT g, y, y_hat, 0.5 * CAST(y <> y_hat AS DOUBLE) + 0.5 * u4 AS cost FROM pred
    """)


def run_audit(path: Path, method: str = "auto", with_cost: bool = False):
    import fairbound
    from fairbound.stats.exact import clear_cache

    clear_cache()  # every run computes its intervals afresh, as a new process would

    if with_cost:
        return fairbound.audit(str(path), group="g", label="y", prediction="y_hat",
                               cost="cost", metrics=[*METRICS, "cost"], method=method)
    return fairbound.audit(str(path), group="g", label="y", prediction="y_hat",
                           metrics=METRICS, method=method)


def run_bare(path: Path, with_cost: bool = False):
    return fetch_all((BARE_COST if with_cost else BARE).format(path=path))


def child(kind: str, path: str, method: str, with_cost: bool) -> None:
    """Run one job and print its wall time and peak RSS (MiB) as JSON."""
    import duckdb  # noqa: F401  (imports are not part of the timing)

    if kind == "audit":
        import fairbound  # noqa: F401
    t = time.perf_counter()
    out = (run_audit(Path(path), method, with_cost) if kind == "audit"
           else run_bare(Path(path), with_cost))
    wall = time.perf_counter() - t
    rss = peak_rss_mib()
    print(json.dumps({"kind": kind, "wall_s": wall, "peak_rss_mib": rss,
                      "result_rows": len(out)}))


def measure_child(kind: str, path: Path, method: str, with_cost: bool) -> dict:
    return run_child(__file__, ["--child", kind, "--path", str(path), "--method", method]
                     + (["--with-cost"] if with_cost else []))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", default="1000000,10000000,100000000",
                    help="comma-separated file sizes to time")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--method", default="auto", help="interval method of the audit")
    ap.add_argument("--with-cost", action="store_true",
                    help="also audit the fractional cost column")
    ap.add_argument("--memory-rows", default="10000000,100000000",
                    help="comma-separated sizes for the peak-memory comparison ('' for none)")
    ap.add_argument("--child", choices=["audit", "bare"], help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.path, args.method, args.with_cost)
        return
    import duckdb

    import fairbound

    print(f"fairbound {fairbound.__version__}, duckdb {duckdb.__version__}, "
          f"python {platform.python_version()}, {os.cpu_count()} cores; method "
          f"{args.method}{', with the cost metric' if args.with_cost else ''}")
    print("| rows | comparisons | audit (median s) | bare GROUP BY (median s) | difference (s) "
          "| ratio |")
    print("|---|---|---|---|---|---|")
    for rows in [int(s) for s in args.rows.split(",") if s.strip()]:
        path = make_parquet(rows)
        run_bare(path, args.with_cost)  # warm the page cache once for both
        audit_t, bare_t = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            res = run_audit(path, args.method, args.with_cost)
            audit_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            run_bare(path, args.with_cost)
            bare_t.append(time.perf_counter() - t)
        a, b = statistics.median(audit_t), statistics.median(bare_t)
        print(f"| {rows:,} | {len(res)} | {a:.3f} | {b:.3f} | {a - b:+.3f} | {a / b:.2f}x |",
              flush=True)
    sizes = [int(s) for s in args.memory_rows.split(",") if s.strip()]
    for n in sizes:
        p = make_parquet(n)
        au = measure_child("audit", p, args.method, args.with_cost)
        ba = measure_child("bare", p, args.method, args.with_cost)
        print(f"peak RSS at {n:>12,} rows: audit {au['peak_rss_mib']:7.0f} MiB "
              f"({au['wall_s']:.2f} s), bare scan {ba['peak_rss_mib']:7.0f} MiB "
              f"({ba['wall_s']:.2f} s)")


if __name__ == "__main__":
    main()
