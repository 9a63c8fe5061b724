"""Score-based audit (AUC, calibration, threshold sweep) of big Parquet files vs a bare scan.

Generates (once) Parquet files under ``benchmarks/_data/`` with 4 groups of unequal size,
a 0/1 label ``y`` (40 % positive) and a probability score ``score`` whose separation and
calibration differ by group, then times, alternating, in this process, at every size given
with ``--rows``:

* the score audit: :func:`fairbound.engines.scores.score_histograms` with ``bins=100``
  (one ``GROUP BY g, y, floor(score * 100)`` with the score sums), then per group the AUC
  with DeLong's interval and calibration in the large, the binned calibration (10 bins) and
  the AUC gap, calibration gap and TPR threshold sweep (DKW band) of every group against
  the largest;
* the bare scan ``SELECT g, y, CAST(floor(score * 100) AS BIGINT) AS b, count(*) FROM
  read_parquet(path) GROUP BY ALL`` that any binned score audit must at least do.

Peak memory (max RSS) of each, in a fresh child process, is measured at every size given
with ``--memory-rows``.  Ratios are computed from numbers measured in the same run.

Usage::

    python benchmarks/bench_scores.py                                   # 1M, 10M
    python benchmarks/bench_scores.py --rows 100000000 --memory-rows 100000000
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
BINS = 100
BARE = ("SELECT g, y, CAST(floor(score * 100) AS BIGINT) AS b, count(*) AS n "
        "FROM read_parquet('{path}') GROUP BY ALL")


def make_parquet(rows: int, *, path: Path | None = None) -> Path:
    """Write (once) the benchmark file with ``rows`` rows; return its path.

    Values are functions of the row number through DuckDB's ``hash``, so the file is the
    same on every run.  Groups a/b/c/d hold 40/30/20/10 % of the rows; the score is
    ``1 / (1 + exp(-(x + m_g y - 1)))`` with ``x`` approximately standard normal (a sum of
    three uniforms) and separations ``m_g`` of 2.0/1.8/1.6/1.2.
    """
    path = path or DATA / f"scores_{rows}.parquet"
    u = "((hash(i, {k}) % 1000000) / 1000000.0)"
    x = f"(({u.format(k=3)} + {u.format(k=4)} + {u.format(k=5)} - 1.5) * 2.0)"
    return write_parquet_once(path, f"""
      WITH base AS (
        SELECT
          CASE WHEN {u.format(k=1)} < 0.4 THEN 'a' WHEN {u.format(k=1)} < 0.7 THEN 'b'
               WHEN {u.format(k=1)} < 0.9 THEN 'c' ELSE 'd' END AS g,
          CAST({u.format(k=2)} < 0.4 AS TINYINT) AS y, {x} AS x
        FROM range({int(rows)}) t(i)
      )
      SELECT g, y, 1.0 / (1.0 + exp(-(x + y * (CASE g WHEN 'a' THEN 2.0 WHEN 'b' THEN 1.8
                                                     WHEN 'c' THEN 1.6 ELSE 1.2 END) - 1.0)))
             AS score
      FROM base
    """)


def run_audit(path: Path) -> dict:
    """Histograms in one scan, then every score metric from them; returns the results."""
    from fairbound.engines.scores import score_histograms
    from fairbound.stats import scores as sc

    counts = score_histograms(str(path), group="g", label="y", score="score", bins=BINS)
    hs = sc.histograms_from_counts(counts)
    ref = max(hs, key=lambda g: hs[g].n)
    out: dict = {}
    for g, h in hs.items():
        out[g] = {"auc": sc.auc(h), "citl": sc.calibration_in_the_large(h),
                  "binned": sc.binned_calibration(h, bins=10)}
        if g != ref:
            out[g]["auc_gap"] = sc.auc_gap(h, hs[ref])
            out[g]["calibration_gap"] = sc.binned_calibration_gap(h, hs[ref], bins=10)
            out[g]["tpr_sweep"] = sc.threshold_sweep(h, hs[ref], rate="tpr")
    return out


def run_bare(path: Path):
    return fetch_all(BARE.format(path=path))


def child(kind: str, path: str) -> None:
    """Run one job and print its wall time and peak RSS (MiB) as JSON."""
    import duckdb  # noqa: F401  (imports are not part of the timing)

    if kind == "audit":
        import fairbound.engines.scores  # noqa: F401
        import fairbound.stats.scores  # noqa: F401
    t = time.perf_counter()
    (run_audit if kind == "audit" else run_bare)(Path(path))
    wall = time.perf_counter() - t
    print(json.dumps({"kind": kind, "wall_s": wall, "peak_rss_mib": peak_rss_mib()}))


def measure_child(kind: str, path: Path) -> dict:
    return run_child(__file__, ["--child", kind, "--path", str(path)])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", default="1000000,10000000",
                    help="comma-separated file sizes to time")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--memory-rows", default="1000000,10000000",
                    help="comma-separated sizes for the peak-memory comparison ('' for none)")
    ap.add_argument("--child", choices=["audit", "bare"], help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.path)
        return
    import duckdb

    print(f"duckdb {duckdb.__version__}, python {platform.python_version()}, "
          f"{os.cpu_count()} cores; bins={BINS}")
    print("| rows | score audit (median s) | bare binned GROUP BY (median s) | difference (s) "
          "| ratio |")
    print("|---|---|---|---|---|")
    for rows in [int(s) for s in args.rows.split(",") if s.strip()]:
        path = make_parquet(rows)
        run_bare(path)  # warm the page cache once for both
        audit_t, bare_t = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            run_audit(path)
            audit_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            run_bare(path)
            bare_t.append(time.perf_counter() - t)
        a, b = statistics.median(audit_t), statistics.median(bare_t)
        print(f"| {rows:,} | {a:.3f} | {b:.3f} | {a - b:+.3f} | {a / b:.2f}x |", flush=True)
    for n in [int(s) for s in args.memory_rows.split(",") if s.strip()]:
        p = make_parquet(n)
        au, ba = measure_child("audit", p), measure_child("bare", p)
        print(f"peak RSS at {n:>12,} rows: score audit {au['peak_rss_mib']:7.0f} MiB "
              f"({au['wall_s']:.2f} s), bare scan {ba['peak_rss_mib']:7.0f} MiB "
              f"({ba['wall_s']:.2f} s)", flush=True)


if __name__ == "__main__":
    main()
