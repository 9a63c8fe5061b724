"""Whole-process ``fairbound plan --method auto`` against the floor of its imports.

Issue 26's target: ``fairbound plan --method auto --bias 0.05 --rate-b 0.10 --power 0.8``
(0/1 costs; n = 1,377) in under 1 s of CPU.  This times, as separate processes from
compiled bytecode (median of ``--repeats`` rounds after one untimed warm-up of each, every
round running each once in turn; CPU = user + sys of the child):

* **floor**: ``python -c "import numpy, typer"``, what any command line built on the two
  libraries the CLI needs pays before it does anything;
* **plan**: the command above, installed (``fairbound``), and with ``--compare-src DIR`` the
  same command run as ``python -m fairbound`` from this tree and from another source tree
  (``git archive <commit> src | tar -x -C /tmp/before``), through ``PYTHONPATH``, in the
  same rounds;

and prints each one's n, so that a change is seen to keep the answer.  Nothing is
asserted (machines differ).

With ``--grid`` it also solves 128 plans of ``exact`` (rates 0.02, 0.1, 0.3, 0.5; gaps
0.02, 0.05, 0.1, 0.2; shares 0.5, 0.2; powers 0.8, 0.9; levels 0.95, 0.995) in process,
with the interval registry's ``accepts`` check and without it (every size's interval
searched), and prints the plans whose n differ, with the table behind each difference:
the reported interval's lower end and the values below it that the test accepts.

Usage::

    python benchmarks/bench_plan.py [--repeats 7] [--compare-src /tmp/before/src] [--grid]
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_startup import environment, fairbound_command, timed_cases, tree_cases

PLAN = ["plan", "--method", "auto", "--bias", "0.05", "--rate-b", "0.10", "--power", "0.8"]


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def _n(cmd: list[str], env: dict[str, str]) -> str:
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return out.split("n = ", 1)[1].split(" ", 1)[0] if "n = " in out else "?"


def grid() -> None:
    """The 128 plans with and without the ``accepts`` check, and where they differ."""
    import numpy as np

    from fairbound.planning import power as pw
    from fairbound.stats.base import INTERVAL_METHODS
    from fairbound.stats.exact import clear_cache, exact_interval, exact_pvalue

    exact = INTERVAL_METHODS["exact"]
    plans = [p for p in itertools.product((0.02, 0.1, 0.3, 0.5), (0.02, 0.05, 0.1, 0.2),
                                          (0.5, 0.2), (0.8, 0.9), (0.95, 0.995))
             if p[0] + p[1] < 1]
    found = {}
    for entry in (exact, dataclasses.replace(exact, accepts=None)):
        INTERVAL_METHODS["exact"] = entry
        try:
            for rb, gap, share, power, level in plans:
                clear_cache()
                found.setdefault((rb, gap, share, power, level), []).append(pw.solve_power(
                    "exact", gap=gap, power=power, rate_b=rb, share=share,
                    confidence_level=level).n_total)
        finally:
            INTERVAL_METHODS["exact"] = exact
    diff = {k: v for k, v in found.items() if v[0] != v[1]}
    print(f"{len(plans)} plans of exact: n the same with and without the accepts check in "
          f"{len(plans) - len(diff)}")
    for (rb, gap, share, power, level), (fast, slow) in diff.items():
        n = min(fast, slow)
        a, b, _ = pw._table(exact, n, gap, rb, share, "binary", 2.0)
        ka, na, kb, nb = a.count, int(a.n), b.count, int(b.n)
        lo, _ = exact_interval(ka, na, kb, nb, level)
        ds = lo - 0.0001 * np.arange(1, 201)          # 0.0001 to 0.02 below the end
        p = exact_pvalue(ka, na, kb, nb, ds, gamma=(1 - level) / 50)
        acc = np.sort(ds[p > 1 - level])
        print(f"  rate_b {rb}, gap {gap}, share {share}, power {power}, level {level}: "
              f"n = {fast} with the check, {slow} without; at n = {n} the table {ka} of {na} "
              f"against {kb} of {nb} has the interval's lower end {lo:.5f} and the test "
              f"accepts {', '.join(f'{x:.5f}' for x in acc)} below it (steps of 0.0001 "
              f"down from the end)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--compare-src", default=None,
                    help="another source tree's src/ folder, timed in the same rounds")
    ap.add_argument("--grid", action="store_true",
                    help="also compare 128 plans with and without the accepts check")
    args = ap.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} "
          f"cores; median of {args.repeats} rounds; load average {_load()} at the start")
    with tempfile.TemporaryDirectory() as tmp:
        env = environment(Path(tmp) / "pycache")
        cases = [("floor (import numpy, typer)", [sys.executable, "-c", "import numpy, typer"],
                  None),
                 ("fairbound plan", fairbound_command() + PLAN, None)]
        cases += tree_cases("fairbound plan", PLAN, env, args.compare_src)
        timed = timed_cases(cases, args.repeats, env)
        floor = timed[0][4]
        print(f"{'':<34} {'wall':>8}  {'CPU':>7}  {'CPU - floor':>11}  {'n':>6}")
        for name, cmd, e, w, c in timed:
            extra = f"{c - floor:+10.3f}s  {_n(cmd, e):>6}" if name.startswith("fair") else ""
            print(f"{name:<34} {w:7.3f}s  {c:6.3f}s  {extra}")
    print(f"load average {_load()} at the end")
    if args.grid:
        grid()


if __name__ == "__main__":
    main()
