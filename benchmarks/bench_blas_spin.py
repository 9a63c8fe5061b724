"""What OpenBLAS's idle spin costs a short process, and what the command line's setting saves.

OpenBLAS's worker threads spin for a while after they start (and after each call) before
they sleep; ``OPENBLAS_THREAD_TIMEOUT`` sets how long, and the ``fairbound`` command sets it
to OpenBLAS's least while a command runs (:data:`fairbound.cli.BLAS_SPIN`).  This times,
as separate processes (median of ``--repeats`` rounds, every round running each case once
in turn; CPU = user + sys of the child), with the default spin and with the setting:

* ``import numpy`` (numpy's copy of OpenBLAS loads);
* ``import numpy`` then SciPy's special functions the tail bound uses, loaded as the exact
  method loads them (:func:`fairbound.stats.exact._special.ufuncs`, which maps SciPy's own
  copy of OpenBLAS), then 0.3 s idle: the CPU the new threads burn meanwhile;
* matrix products: one of 1,500 x 1,500 five times, one of 200 x 200 2,000 times and a
  3,000 x 300 matrix-vector product 5,000 times (wall and CPU), to show that the threads
  work as before.

Nothing is asserted (machines differ).

Usage::

    python benchmarks/bench_blas_spin.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_startup import environment

from fairbound.cli import BLAS_SPIN

LOAD = ("import time, numpy\n"
        "from fairbound.stats.exact._special import ufuncs\n"
        "ufuncs()\n"
        "time.sleep(0.3)\n")

PRODUCTS = """
import resource, time
import numpy as np
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
rng = np.random.default_rng(0)
a, b = rng.random((1500, 1500)), rng.random((200, 200))
v, x = rng.random((3000, 300)), rng.random(300)
a @ a
out = []
for f, reps in ((lambda: a @ a, 5), (lambda: b @ b, 2000), (lambda: v @ x, 5000)):
    t, c = time.perf_counter(), cpu()
    for _ in range(reps):
        f()
    out += [time.perf_counter() - t, cpu() - c]
print(" ".join(f"{x:.4f}" for x in out))
"""


def _cpu(cmd: list[str], env: dict[str, str]) -> float:
    before = os.times()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    after = os.times()
    return (after.children_user - before.children_user
            + after.children_system - before.children_system)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args(argv)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} "
          f"cores; median of {args.repeats} rounds; load average {load} at the start")
    name, value = BLAS_SPIN
    with tempfile.TemporaryDirectory() as tmp:
        base = environment(Path(tmp) / "pycache")
        base.pop(name, None)
        envs = {"default spin": base, f"{name}={value}": dict(base, **{name: value})}
        cases = {"import numpy": [sys.executable, "-c", "import numpy"],
                 "numpy + SciPy's special functions, 0.3 s idle": [sys.executable, "-c", LOAD]}
        for cmd in cases.values():          # warm the bytecode cache
            subprocess.run(cmd, check=True, capture_output=True, env=base)
        times: dict = {}
        for _ in range(args.repeats):
            for case, cmd in cases.items():
                for label, env in envs.items():
                    times.setdefault((case, label), []).append(_cpu(cmd, env))
        print(f"{'CPU (user + sys), median':<48} " + "  ".join(f"{k:>26}" for k in envs))
        for case in cases:
            print(f"{case:<48} " + "  ".join(
                f"{statistics.median(times[(case, k)]):25.3f}s" for k in envs))
        rows = {k: [] for k in envs}
        for _ in range(3):
            for label, env in envs.items():
                out = subprocess.run([sys.executable, "-c", PRODUCTS], check=True,
                                     capture_output=True, text=True, env=env).stdout
                rows[label].append([float(x) for x in out.split()])
        print("matrix products, median of 3 processes (wall / CPU, s):")
        names = ("1,500 x 1,500, 5 times", "200 x 200, 2,000 times",
                 "3,000 x 300 by a vector, 5,000 times")
        for i, what in enumerate(names):
            parts = []
            for label in envs:
                w = statistics.median(r[2 * i] for r in rows[label])
                c = statistics.median(r[2 * i + 1] for r in rows[label])
                parts.append(f"{label}: {w:.3f} / {c:.3f}")
            print(f"  {what:<38} " + "; ".join(parts))
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end")


if __name__ == "__main__":
    main()
