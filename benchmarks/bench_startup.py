"""Whole-process start-up: the fairbound command line next to a bare DuckDB query process.

Times, as separate processes (median of ``--repeats`` rounds after one warm-up each; each
round runs every command once, in turn):

* ``fairbound --help`` and ``fairbound --version``;
* ``fairbound audit`` of a 2,000-row CSV (binary label and prediction, two groups, the
  default metrics and method, ``--format json``);
* a bare ``python -c "import duckdb; duckdb.sql('select count(*) from read_csv(...)')"``
  process on the same file: the floor any command that reads the file with DuckDB pays;
* the same process after ``import numpy, typer``: the floor of any command line built on
  the two libraries every fairbound command needs, before it does any work of its own;
* with ``--parquet-rows`` (default 1M, 10M and 100M rows): ``fairbound audit`` of the
  Parquet file of ``benchmarks/bench_scale.py`` (4 groups, the default five metrics, every
  default: exact intervals, family-wise control) next to a bare
  ``python -c "import duckdb; ..."`` process that runs the ``GROUP BY`` any audit must at
  least do (``SELECT g, y, y_hat, count(*) ... GROUP BY ALL``) on the same file.

and prints each fairbound time with its ratio to the bare process, in wall time and in CPU
time (user + sys of the child process, from ``resource.getrusage(RUSAGE_CHILDREN)``,
median of the rounds).  For each Parquet size it also times the floor process (``import
numpy, typer`` and the same bare query) and prints the audit's CPU time above it.  It
asserts nothing about time (machines differ); the targets are ``--help`` <= 0.3 s (issue
13) and, for the default audit of 4 groups (issue 26), at 2,000, 1M and 10M rows at most
0.15 s of CPU above the floor process, and at 100M rows at most 1.3x the bare process
(``benchmarks/bench_cli.py`` times those audits alone, optionally next to another source
tree in the same rounds).

Every process runs from compiled bytecode, as an installed package does: bytecode is
written to (and read from) a temporary ``PYTHONPYCACHEPREFIX`` during the warm-up runs,
whatever ``PYTHONDONTWRITEBYTECODE`` says (with it set and no cache, every run would compile
fairbound from source, which an install does once).  ``--as-is`` keeps the environment's
setting instead.  The script also names the heavy packages the audit process loads (scipy,
pydantic, pyarrow, pandas), none of which a 2,000-row audit needs.

Usage::

    python benchmarks/bench_startup.py [--rows 2000] [--repeats 5] [--as-is]
                                       [--parquet-rows 2000,1000000,10000000,100000000]

(``--parquet-rows ""`` times the CSV cases only; the files are written once, under
``benchmarks/_data/``, by ``bench_scale.make_parquet``.)
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_scale import BARE, METRICS, make_parquet


def fairbound_command() -> list[str]:
    """The installed ``fairbound`` script beside this interpreter (no shell shims)."""
    script = Path(sys.executable).with_name("fairbound")
    return [str(script)] if script.exists() else [sys.executable, "-m", "fairbound"]


def write_csv(path: Path, rows: int, seed: int = 0) -> None:
    """``rows`` rows of group, label and prediction (a gap between the two groups)."""
    rng = random.Random(seed)
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["g", "y", "p"])
        for _ in range(rows):
            g = "a" if rng.random() < 0.5 else "b"
            y = int(rng.random() < 0.4)
            p = int(rng.random() < (0.7 if y else 0.2) + (0.05 if g == "a" else 0.0))
            w.writerow([g, y, p])


def environment(pycache: Path | None) -> dict[str, str]:
    """The processes' environment: warnings off, bytecode cached under ``pycache``."""
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def tree_cases(label: str, cmd_args: list[str], env: dict[str, str],
               compare_src: str | None) -> list[tuple[str, list[str], dict[str, str]]]:
    """``python -m fairbound CMD_ARGS`` from this tree and from ``compare_src``.

    Both through ``PYTHONPATH``, so that two trees are timed like for like; ``[]`` without
    ``compare_src``.  Each case is ``(name, command, environment)`` for :func:`timed_cpu`.
    """
    if not compare_src:
        return []
    return [(f"{label} ({name}, -m)", [sys.executable, "-m", "fairbound", *cmd_args],
             dict(env, PYTHONPATH=str(src)))
            for name, src in (("this tree", Path(__file__).resolve().parents[1] / "src"),
                              ("--compare-src", Path(compare_src).resolve()))]


def timed_cases(cases: list[tuple[str, list[str], dict[str, str] | None]], repeats: int,
                env: dict[str, str]) -> list[tuple[str, list[str], dict[str, str], float, float]]:
    """:func:`timed_cpu` of ``(name, command, environment or None)`` cases.

    Returns ``(name, command, environment, median wall, median CPU)`` per case, in order.
    """
    walls, cpus = timed_cpu([c for _, c, _ in cases], repeats, env,
                            envs=[e for _, _, e in cases])
    return [(name, cmd, e if e is not None else env, w, c)
            for (name, cmd, e), w, c in zip(cases, walls, cpus, strict=True)]


def heavy_modules(cmd_args: list[str], env: dict[str, str]) -> list[str]:
    """Which of scipy, pydantic, pyarrow, pandas a ``fairbound`` command line loads."""
    code = ("import contextlib, io, sys\nfrom fairbound.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main({cmd_args!r})\n"
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env=env).stdout.split()
    return [m for m in ("scipy", "pydantic", "pyarrow", "pandas") if m in out]


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_cpu(cmds: list[list[str]], repeats: int, env: dict[str, str],
              envs: list[dict[str, str] | None] | None = None
              ) -> tuple[list[float], list[float]]:
    """Median wall time and median CPU time (user + sys) of each command.

    One untimed warm-up of each first; then every round runs each command once, in turn,
    so that a change in the machine's load falls on all of them alike.  CPU time is the
    growth of ``getrusage(RUSAGE_CHILDREN)`` across the (waited-for) child process.
    ``envs`` gives a command its own environment (``None``: ``env``).
    """
    envs = [e if e is not None else env for e in (envs or [None] * len(cmds))]
    for cmd, e in zip(cmds, envs, strict=True):
        subprocess.run(cmd, check=True, capture_output=True, env=e)
    walls: list[list[float]] = [[] for _ in cmds]
    cpus: list[list[float]] = [[] for _ in cmds]
    for _ in range(repeats):
        for cmd, e, wall, cpu in zip(cmds, envs, walls, cpus, strict=True):
            c0, t0 = _children_cpu(), time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, env=e)
            wall.append(time.perf_counter() - t0)
            cpu.append(_children_cpu() - c0)
    return [statistics.median(t) for t in walls], [statistics.median(c) for c in cpus]


def timed(cmds: list[list[str]], repeats: int, env: dict[str, str]) -> list[float]:
    """Median wall time of each command over ``repeats`` rounds (see :func:`timed_cpu`)."""
    return timed_cpu(cmds, repeats, env)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--as-is", action="store_true",
                    help="keep the environment's bytecode setting (no temporary cache)")
    ap.add_argument("--parquet-rows", default="2000,1000000,10000000,100000000",
                    help="comma-separated Parquet sizes to audit as whole processes")
    args = ap.parse_args()
    sizes = [int(r) for r in args.parquet_rows.split(",") if r.strip()]
    fb = fairbound_command()
    with tempfile.TemporaryDirectory() as tmp:
        env = environment(None if args.as_is else Path(tmp) / "pycache")
        data = Path(tmp) / "preds.csv"
        write_csv(data, args.rows)
        bare_cmd = [sys.executable, "-c",
                    "import duckdb; duckdb.sql(\"select count(*) from read_csv("
                    f"'{data.as_posix()}')\").fetchall()"]
        audit_args = ["audit", str(data), "--group", "g", "--label", "y", "--prediction",
                      "p", "--format", "json"]
        # the same query after importing the two libraries every fairbound command needs:
        # the floor of any numpy + typer command line, before it does any work of its own
        floor_cmd = [sys.executable, "-c", "import numpy, typer; " + bare_cmd[2]]
        cases = [
            ("floor: the same + import numpy, typer", floor_cmd),
            ("fairbound --help", fb + ["--help"]),
            ("fairbound --version", fb + ["--version"]),
            (f"fairbound audit ({args.rows:,} rows)", fb + audit_args),
        ]
        walls, cpus = timed_cpu([bare_cmd] + [cmd for _, cmd in cases], args.repeats, env)
        bare, *times = walls
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"python {platform.python_version()} on {platform.machine()}, "
              f"{os.cpu_count()} cores, load average {load:.1f}; median of {args.repeats} "
              f"runs; {'bytecode as the environment says' if args.as_is else 'from bytecode'}")
        print(f"{'':<40} {'wall':>9}  {'ratio':>5}   {'CPU':>7}")
        print(f"{'bare duckdb query process':<40} {bare:7.3f} s   1.00x   {cpus[0]:5.3f} s")
        for (name, _), t, c in zip(cases, times, cpus[1:], strict=True):
            print(f"{name:<40} {t:7.3f} s  {t / bare:5.2f}x   {c:5.3f} s")
        heavy = heavy_modules(audit_args, env)
        print(f"the audit process loads: {', '.join(heavy) if heavy else 'none of'} "
              f"{'' if heavy else 'scipy, pydantic, pyarrow, pandas'}".rstrip())
        for rows in sizes:
            path = make_parquet(rows).as_posix()
            bare_pq = [sys.executable, "-c",
                       f"import duckdb; duckdb.sql(\"{BARE.format(path=path)}\").fetchall()"]
            audit_pq = fb + ["audit", path, "--group", "g", "--label", "y", "--prediction",
                             "y_hat", "--format", "json"]
            for metric in METRICS:
                audit_pq += ["--metric", metric]
            floor_pq = [sys.executable, "-c", "import numpy, typer; " + bare_pq[2]]
            (b, f, t), (cb, cf, ct) = timed_cpu([bare_pq, floor_pq, audit_pq], args.repeats,
                                                env)
            print(f"{'bare GROUP BY process, ' + f'{rows:,} rows':<40} {b:7.3f} s   1.00x   "
                  f"{cb:5.3f} s")
            print(f"{'floor (+ import numpy, typer)':<40} {f:7.3f} s  {f / b:5.2f}x   "
                  f"{cf:5.3f} s")
            print(f"{'fairbound audit, ' + f'{rows:,} rows':<40} {t:7.3f} s  {t / b:5.2f}x   "
                  f"{ct:5.3f} s  (CPU {ct - cf:+.3f} s above the floor, {ct / cb:.2f}x the "
                  f"bare process)")


if __name__ == "__main__":
    main()
