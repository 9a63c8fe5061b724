"""Benchmark: a stability study on the bundled dialect tweets, killed half-way and resumed.

The acceptance study is 4 sizes x 50 runs x TF-IDF + logistic regression on a 2-core
machine in at most 15 minutes, resuming after a kill with no lost or duplicated run:

    python benchmarks/bench_stability.py --jobs 2 --report /tmp/stability-report

It starts ``fairbound stability run tweets`` in a child process, kills the child's whole
process group (workers included) with SIGKILL once ``--kill-at`` of the runs are stored,
then runs the same command again, which resumes.  It prints the wall times, checks that the
store holds every run exactly once, and prints the standard deviation of each gap per size.
Use smaller ``--sizes``/``--repeats`` for a quick check.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2000,5000,10000,20000")
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--store", type=Path, default=None)
    ap.add_argument("--kill-at", type=float, default=0.5,
                    help="share of runs after which the study is killed (0: no kill)")
    ap.add_argument("--report", type=Path, default=None)
    ap.add_argument("--method", default="auto",
                    help="single-run interval method (docs/stability.md: agresti-caffo)")
    ap.add_argument("--json", type=Path, default=None, help="write the numbers here")
    args = ap.parse_args()

    from fairbound.stability import RunStore, load_study

    store = args.store or Path(tempfile.mkdtemp(prefix="fairbound-stability-")) / "study"
    sizes = [int(s) for s in args.sizes.split(",")]
    total = len(sizes) * args.repeats
    cmd = [sys.executable, "-m", "fairbound", "stability", "run", "tweets", "--store",
           str(store), "--sizes", args.sizes, "--repeats", str(args.repeats), "--jobs",
           str(args.jobs), "--method", args.method, "--no-progress"]
    rs = RunStore(store)
    before = len(rs.done())
    t0 = time.perf_counter()
    killed_at = None
    if args.kill_at > 0:
        target = int(args.kill_at * total)
        child = subprocess.Popen(cmd, start_new_session=True)
        while child.poll() is None and len(rs.done()) < target:
            time.sleep(0.2)
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            killed_at = len(rs.done())
            print(f"killed after {killed_at} of {total} runs "
                  f"({time.perf_counter() - t0:.1f} s)", flush=True)
    t1 = time.perf_counter()
    subprocess.run(cmd, check=True)
    t2 = time.perf_counter()

    res = load_study(store)
    keys = res.runs[["condition", "size", "repeat"]]
    assert len(res.runs) == total, (len(res.runs), total)
    assert not keys.duplicated().any(), "duplicated runs"
    per_size = res.runs.groupby("size")["seconds"].agg(["mean", "sum"]).round(3)
    numbers = {
        "sizes": sizes, "repeats": args.repeats, "jobs": args.jobs, "runs": total,
        "runs_already_stored": before, "killed_at": killed_at,
        "wall_seconds_total": round(t2 - t0, 1),
        "wall_seconds_before_kill": round(t1 - t0, 1),
        "wall_seconds_resume": round(t2 - t1, 1),
        "run_seconds_per_size": per_size["mean"].to_dict(),
        "cpu_count": os.cpu_count(),
    }
    print(json.dumps(numbers, indent=2))
    s = res.summary()
    s = s[(s["group_a"] == "aa") & (s["group_b"] == "white")]
    s = s.assign(gap=s["metric"].map({"demographic_parity": "GP", "equal_opportunity": "TPR",
                                      "predictive_parity": "PP"}))
    print("\nSD of the aa - white gaps across runs, by size:")
    print(s.pivot_table(index=["gap", "class"], columns="size", values="sd").round(4)
          .to_string())
    print("\nshare of runs whose interval covers the mean over runs:")
    print(s.pivot_table(index=["gap", "class"], columns="size", values="ci_covers_mean")
          .round(2).to_string())
    if args.report is not None:
        t3 = time.perf_counter()
        path = res.write_report(args.report)
        print(f"\nreport: {path} ({time.perf_counter() - t3:.1f} s)")
    if args.json is not None:
        args.json.write_text(json.dumps(numbers, indent=2))


if __name__ == "__main__":
    main()
