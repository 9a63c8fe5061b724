"""Many audits in one process: the fixed cost each audit pays, against a bare GROUP BY.

Stability studies, notebooks and services call :func:`fairbound.audit` again and again on
data of a few thousand rows, where the fixed cost of an audit (opening the engine,
planning the query, building the result) is all there is.  For each case this times, in
one process, the median wall and CPU time of ``--calls`` audits after one untimed call,
and the same number of bare ``GROUP BY`` queries of the same columns through DuckDB's
default connection (the least any engine-backed audit does), and prints the ratio (and
what one new DuckDB connection costs):

* a pandas DataFrame of 2,000 and of 100,000 rows (2 groups, demographic parity,
  ``method="newcombe"``, so that no interval search hides the engine's cost), and
* a 2,000-row Parquet file, the same audit.

With ``--compare-src DIR`` every case is also run by the source tree ``DIR`` (for
example ``git archive <commit> src | tar -x -C /tmp/before`` and ``--compare-src
/tmp/before/src``) in a child process, in the same run, so that a change is measured side
by side.  Nothing is asserted (machines differ).

Usage::

    python benchmarks/bench_repeat.py [--calls 40] [--compare-src /tmp/before/src]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from _common import run_child


def _frame(n: int):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    return pd.DataFrame({"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n),
                         "p": rng.integers(0, 2, n)})


def _median_times(fn, calls: int) -> tuple[float, float]:
    fn()
    wall, cpu = [], []
    for _ in range(calls):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu)


def measure(calls: int, folder: str) -> dict:
    """``{case: (audit wall, audit CPU, bare wall, bare CPU)}`` in this process."""
    import duckdb

    import fairbound

    out = {}
    for name, rows, on_file in (("DataFrame, 2,000 rows", 2_000, False),
                                ("DataFrame, 100,000 rows", 100_000, False),
                                ("Parquet file, 2,000 rows", 2_000, True)):
        df = _frame(rows)
        data = df
        source = "df"
        if on_file:
            data = str(Path(folder) / f"repeat_{rows}.parquet")
            if not os.path.exists(data):
                df.to_parquet(data, index=False)
            source = f"read_parquet('{data}')"

        def audit(data=data):
            fairbound.audit(data, group="g", label="y", prediction="p",
                            metrics="demographic_parity", method="newcombe")

        def bare(source=source, df=df):
            duckdb.sql(f"SELECT g, y, p, count(*) FROM {source} GROUP BY ALL").fetchall()

        out[name] = _median_times(audit, calls) + _median_times(bare, calls)
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--compare-src", default=None,
                    help="another source tree's src/ folder, run in the same session")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.calls, args.child)))
        return
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} "
          f"cores; median of {args.calls} calls per case; load average {load} at the start")
    with tempfile.TemporaryDirectory() as folder:
        trees = {"this tree": measure(args.calls, folder)}
        if args.compare_src:
            env = dict(os.environ, PYTHONPATH=str(Path(args.compare_src).resolve()))
            other = run_child(__file__, ["--calls", str(args.calls), "--child", folder], env)
            trees["--compare-src"] = {k: tuple(v) for k, v in other.items()}
    import duckdb

    def connect():
        duckdb.connect(config={"autoinstall_known_extensions": False}).close()

    wall, cpu = _median_times(connect, args.calls)
    print(f"a new DuckDB connection (duckdb.connect, then close): {wall * 1e3:.1f} ms wall, "
          f"{cpu * 1e3:.1f} ms CPU (median of {args.calls})")
    print(f"{'case':<26} {'tree':<14} {'audit wall':>11} {'audit CPU':>10} "
          f"{'bare GROUP BY':>14} {'audit / bare':>13}")
    for case in trees["this tree"]:
        for tree, res in trees.items():
            aw, ac, bw, _ = res[case]
            print(f"{case:<26} {tree:<14} {aw * 1e3:9.1f}ms {ac * 1e3:8.1f}ms "
                  f"{bw * 1e3:12.1f}ms {aw / bw:12.1f}x")
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average {load} at the end")


if __name__ == "__main__":
    main()
