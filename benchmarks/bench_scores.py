"""Score audit with every default vs what a user would do instead, and vs a bare DuckDB scan.

Generates (once) Parquet files under ``benchmarks/_data/`` with 4 groups of unequal size,
a 0/1 label ``y`` (40 % positive) and a continuous probability score ``score`` (nearly every
value distinct) whose separation and calibration differ by group, then, at every size:

* **time**, in this process, alternating, ``--repeat`` times (medians of the wall time and
  of the CPU time, ``time.process_time``: every thread of the process, the robust figure
  on a shared machine, where waiting for a core inflates the wall time):
  ``fairbound.score_audit(path, group="g", label="y", score="score")`` with every default
  (``bins=None``: exact AUCs, DeLong intervals, calibration, three threshold sweeps per pair
  on the default grid of at most 1,000 thresholds, 6 pairs, 36 rows) against reading the
  file with pandas and calling scikit-learn's ``roc_auc_score`` per group (what a user would
  do instead, for the AUCs alone); the AUCs are checked equal (largest difference printed);
* **peak memory** (Linux ``VmHWM``), each job in a fresh child process, imports included:
  the score audit, the pandas + scikit-learn job, and a bare DuckDB process that imports
  only ``duckdb`` and runs the ``(group, score, label)`` ``GROUP BY`` the audit needs,
  fetching its result as an Arrow table::

      SELECT g, y, score, count(*) AS n FROM read_parquet(path) GROUP BY ALL

(the issue's yardstick; the audit itself reads an exact input of at most
``fairbound.engines.scores.ROWS_READ`` rows row by row instead, and runs this ``GROUP BY``,
without score sums, on larger ones).

Ratios are of numbers measured in the same run; the load average is printed with them.
Targets (issue 26): time at most 2x the scikit-learn job, peak RSS at most 1.5x the bare
DuckDB process.

Usage::

    python benchmarks/bench_scores.py                 # 100k and 1M rows
    python benchmarks/bench_scores.py --big           # also 10M rows
    python benchmarks/bench_scores.py --rows 1000000 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
import warnings
from pathlib import Path

from _common import peak_rss_mib, run_child, write_parquet_once

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
BARE = "SELECT g, y, score, count(*) AS n FROM read_parquet('{path}') GROUP BY ALL"
SIZES = (100_000, 1_000_000)
BIG = 10_000_000


def make_parquet(rows: int, *, path: Path | None = None) -> Path:
    """Write (once) the benchmark file with ``rows`` rows; return its path.

    Values are functions of the row number through DuckDB's ``hash``, so the file is the
    same on every run.  Groups a/b/c/d hold 40/30/20/10 % of the rows; the score is
    ``1 / (1 + exp(-(x + m_g y - 1)))`` with ``x`` approximately standard normal (a sum of
    three uniforms on a grid of 1e-6) and separations ``m_g`` of 2.0/1.8/1.6/1.2.
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


def run_audit(path: Path):
    """``fairbound.score_audit`` with every default."""
    import fairbound

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fairbound.score_audit(str(path), group="g", label="y", score="score")


def run_sklearn(path: Path) -> dict:
    """Read the file with pandas and call scikit-learn's ``roc_auc_score`` per group."""
    import pandas as pd
    from sklearn.metrics import roc_auc_score

    df = pd.read_parquet(path, columns=["g", "y", "score"])
    return {g: roc_auc_score(d["y"], d["score"]) for g, d in df.groupby("g")}


def run_bare(path: Path):
    """The ``(group, score, label)`` ``GROUP BY`` alone, fetched as Arrow."""
    import duckdb

    con = duckdb.connect()
    try:
        return con.sql(BARE.format(path=path)).to_arrow_table()
    finally:
        con.close()


JOBS = {"audit": run_audit, "sklearn": run_sklearn, "bare": run_bare}


def child(kind: str, path: str) -> None:
    """Run one job in this fresh process; print its wall time and peak RSS (MiB) as JSON."""
    t = time.perf_counter()
    JOBS[kind](Path(path))
    wall = time.perf_counter() - t
    print(json.dumps({"kind": kind, "wall_s": wall, "peak_rss_mib": peak_rss_mib()}))


def machine() -> str:
    """CPU model, cores and memory, in words."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next(line.split(":", 1)[1].strip() for line in fh
                         if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as fh:
            kb = int(next(line.split()[1] for line in fh if line.startswith("MemTotal")))
        mem = f", {kb / 2**20:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    return f"{model}, {os.cpu_count()} cores{mem}"


def load() -> str:
    """The 1, 5 and 15-minute load averages (how busy the machine was), in words."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover  (not on every platform)
        return "unknown"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", default=",".join(str(n) for n in SIZES),
                    help="comma-separated file sizes (default 100000,1000000)")
    ap.add_argument("--big", action="store_true", help="also 10,000,000 rows")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-memory", action="store_true", help="skip the peak-RSS children")
    ap.add_argument("--child", choices=sorted(JOBS), help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.path)
        return
    import duckdb
    import numpy as np
    import sklearn

    import fairbound

    sizes = [int(s) for s in args.rows.split(",") if s.strip()]
    if args.big and BIG not in sizes:
        sizes.append(BIG)
    print(f"fairbound {fairbound.__version__}, duckdb {duckdb.__version__}, scikit-learn "
          f"{sklearn.__version__}, python {platform.python_version()}; {machine()}")
    print(f"load average at start: {load()}")
    print("| rows | score_audit, every default (median s) | read + sklearn roc_auc_score "
          "per group (median s) | ratio | CPU s (audit / sklearn) | CPU ratio "
          "| max abs AUC difference | sweep thresholds |")
    print("|---|---|---|---|---|---|---|---|")
    for rows in sizes:
        path = make_parquet(rows)
        run_bare(path)  # warm the page cache once for all
        audit_t, sk_t, audit_c, sk_c = [], [], [], []
        for _ in range(args.repeat):
            t, c = time.perf_counter(), time.process_time()
            res = run_audit(path)
            audit_t.append(time.perf_counter() - t)
            audit_c.append(time.process_time() - c)
            t, c = time.perf_counter(), time.process_time()
            ref = run_sklearn(path)
            sk_t.append(time.perf_counter() - t)
            sk_c.append(time.process_time() - c)
        a, s = statistics.median(audit_t), statistics.median(sk_t)
        ac, sc = statistics.median(audit_c), statistics.median(sk_c)
        diff = max(abs(res.group(g).auc.estimate - v) for g, v in ref.items())
        sweeps = sorted({len(c.sweep.thresholds) for c in res.comparisons
                         if c.sweep is not None})
        print(f"| {rows:,} | {a:.3f} | {s:.3f} | {a / s:.2f}x | {ac:.3f} / {sc:.3f} | "
              f"{ac / sc:.2f}x | {diff:.1e} | {sweeps[0]}-{sweeps[-1]} |", flush=True)
        del res
    print(f"load average at the end of the timings: {load()}")
    if args.no_memory:
        return
    print()
    print("| rows | score_audit peak RSS (MiB) | bare DuckDB GROUP BY process (MiB) | ratio "
          "| pandas + sklearn process (MiB) |")
    print("|---|---|---|---|---|")
    for rows in sizes:
        path = make_parquet(rows)
        got = {k: run_child(__file__, ["--child", k, "--path", str(path)])
               for k in ("audit", "bare", "sklearn")}
        au, ba, sk = (got[k]["peak_rss_mib"] for k in ("audit", "bare", "sklearn"))
        print(f"| {rows:,} | {au:.0f} | {ba:.0f} | {au / ba:.2f}x | {sk:.0f} |", flush=True)
    _ = np  # numpy is imported above so that its import is not timed


if __name__ == "__main__":
    main()
