"""Whole-process default CLI audit against the floor process, at several file sizes.

For each size (Parquet files of ``benchmarks/bench_scale.py``: groups a/b/c/d, binary
label and prediction) this times three processes side by side, every round running each
once in turn (median of ``--repeats`` rounds after one untimed warm-up of each):

* **bare**: ``python -c "import duckdb; duckdb.sql(GROUP BY).fetchall()"`` running the
  ``SELECT g, y, y_hat, count(*) ... GROUP BY ALL`` any audit must at least do;
* **floor**: the same after ``import numpy, typer`` (the floor of any command line built
  on the two libraries every fairbound command needs), and the same again with OpenBLAS's
  idle spin as short as the ``fairbound`` command sets it while it runs
  (:data:`fairbound.cli.BLAS_SPIN`), so that the audit's own cost can be told from that
  setting's saving (the last column);
* **audit**: ``fairbound audit FILE --group g --label y --prediction y_hat --format json``
  with every default (the five default metrics, 4 groups, 30 pairwise comparisons, method
  ``auto``: exact intervals, family-wise error control);

and, with ``--compare-src DIR``, the same audit run as ``python -m fairbound`` from this
tree and from another source tree (for example ``git archive <commit> src | tar -x -C
/tmp/before`` and ``--compare-src /tmp/before/src``), both through ``PYTHONPATH``, in the
same rounds, so that a change is measured side by side and like for like.

It prints wall and CPU time (user + sys of the child, ``getrusage(RUSAGE_CHILDREN)``), the
audit's CPU time above the floor and its ratio to the bare process, and the load average
before and after.  Targets (issue 26): at most 0.15 s of CPU above the floor at 2,000, 1M
and 10M rows, and at most 1.3x the bare process at 100M rows.  Nothing is asserted
(machines differ).  Processes run from compiled bytecode, as an installed package does
(see ``benchmarks/bench_startup.py``).

Usage::

    python benchmarks/bench_cli.py [--rows 2000,1000000,10000000] [--repeats 5]
                                   [--compare-src /tmp/before/src]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

from bench_scale import BARE, make_parquet
from bench_startup import environment, fairbound_command, timed_cases, tree_cases

from fairbound.cli import BLAS_SPIN


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="2000,1000000,10000000",
                    help="comma-separated file sizes (100000000 for the 100M case)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--compare-src", default=None,
                    help="another source tree's src/ folder, timed in the same rounds")
    args = ap.parse_args(argv)
    sizes = [int(r) for r in args.rows.split(",") if r.strip()]
    fb = fairbound_command()
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} "
          f"cores; median of {args.repeats} rounds; load average {_load()} at the start")
    print(f"{'':<34} {'wall':>8}  {'CPU':>7}  {'CPU - floor':>11}  {'CPU / bare':>10}  "
          f"{'CPU - floor, same spin':>22}")
    with tempfile.TemporaryDirectory() as tmp:
        env = environment(Path(tmp) / "pycache")
        for rows in sizes:
            path = make_parquet(rows).as_posix()
            query = f"duckdb.sql(\"{BARE.format(path=path)}\").fetchall()"
            bare = [sys.executable, "-c", f"import duckdb; {query}"]
            floor = [sys.executable, "-c", f"import numpy, typer, duckdb; {query}"]
            audit_args = ["audit", path, "--group", "g", "--label", "y", "--prediction",
                          "y_hat", "--format", "json"]
            name, value = BLAS_SPIN
            cases = [("bare GROUP BY process", bare, None),
                     ("floor (+ import numpy, typer)", floor, None),
                     ("floor, OpenBLAS spin as the CLI", floor, dict(env, **{name: value})),
                     ("fairbound audit", fb + audit_args, None)]
            cases += tree_cases("fairbound audit", audit_args, env, args.compare_src)
            timed = timed_cases(cases, args.repeats, env)
            bare_cpu, floor_cpu, same_spin_cpu = (t[4] for t in timed[:3])
            print(f"-- {rows:,} rows")
            for name, _, _, w, c in timed:
                extra = (f"{c - floor_cpu:+10.3f}s  {c / bare_cpu:9.2f}x  "
                         f"{c - same_spin_cpu:+21.3f}s" if name.startswith("fairbound") else "")
                print(f"{name:<34} {w:7.3f}s  {c:6.3f}s  {extra}")
    print(f"load average {_load()} at the end")


if __name__ == "__main__":
    main()
