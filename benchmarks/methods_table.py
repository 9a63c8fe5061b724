"""Regenerate docs/methods.md: every interval method on one table.

Coverage and mean width over a grid of scenarios (0/1, rare, Beta and null costs; group
share 0.1 and 0.5; n from 100 to 10,000), required n for 80% power at 0.15 vs 0.10, and the
error of looking after every pair.  Same seed, same page.

    python benchmarks/methods_table.py            # the published page
    python benchmarks/methods_table.py --quick    # a small grid for a smoke run

It writes the page and its source: ``benchmarks/results/methods_table.txt`` (the command,
the machine and the page as generated), and the page with a ``<!-- fairbound:cites results
benchmarks/results/methods_table.txt -->`` marker on every paragraph and table that holds a
number, so that ``python docs/regenerate.py --census`` finds each number in its source.

Resampling methods on fractional (Beta) costs are run at the smallest size only: their
bootstrap over distinct cost values takes seconds per interval at n = 10,000.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import time
from pathlib import Path

from fairbound.evaluation.simulate import (
    SimulationResult,
    methods_page,
    peeking_error,
    power_table,
    simulate,
)
from fairbound.stats import INTERVAL_METHODS

ROOT = Path(__file__).resolve().parents[1]
BINARY = ("binary", "rare", "null-binary", "null-rare")
BETA = ("beta", "null-beta")
RESULTS = "benchmarks/results/methods_table.txt"
CITE = f"<!-- fairbound:cites results {RESULTS} -->"


def cite_numbers(page: str, marker: str = CITE) -> str:
    """``page`` with ``marker`` above every paragraph or table (outside code) with a digit.

    A paragraph is a run of non-blank lines; headings, code fences and paragraphs that
    already open with a marker are left as they are.

    Examples
    --------
    >>> print(cite_numbers("# Title 1\\n\\nSome 0.95 text.\\n\\nNo numbers.\\n", "<!-- m -->"))
    # Title 1
    <BLANKLINE>
    <!-- m -->
    Some 0.95 text.
    <BLANKLINE>
    No numbers.
    <BLANKLINE>
    """
    out, fence = [], False
    for block in re.split(r"(\n\s*\n)", page):
        first = block.lstrip("\n").split("\n", 1)[0].strip()
        opens = fence
        fence ^= block.count("```") % 2 == 1
        if (block.strip() and not opens and not first.startswith(("#", "<!--", "```"))
                and re.search(r"\d", block)):
            block = marker + "\n" + block
        out.append(block)
    return "".join(out)


def machine() -> str:
    """One line naming the machine and its load, for the results file."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return f"{platform.machine()}, {os.cpu_count()} cores, load {load}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=400, help="data sets per cell")
    p.add_argument("--n", default="100,1000,10000", help="total sizes, comma-separated")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--power-sims", type=int, default=400)
    p.add_argument("--streams", type=int, default=200, help="streams for the peeking table")
    p.add_argument("--quick", action="store_true", help="tiny grid (smoke run)")
    p.add_argument("--output", type=Path, default=ROOT / "docs" / "methods.md")
    p.add_argument("--results", type=Path, default=ROOT / RESULTS,
                   help="where the page's source (command, machine, page) is written")
    a = p.parse_args(argv)
    if a.quick:
        a.reps, a.n, a.power_sims, a.streams = 30, "100,1000", 50, 10
    sizes = tuple(int(v) for v in a.n.split(","))
    methods = sorted(INTERVAL_METHODS)
    resampling = [m for m in methods if INTERVAL_METHODS[m].guarantee == "resampling"]
    others = [m for m in methods if m not in resampling]
    t0 = time.perf_counter()
    kw = dict(share=(0.1, 0.5), n_reps=a.reps, seed=a.seed)
    runs = [simulate(methods, scenarios=BINARY, n_total=sizes, **kw),
            simulate([m for m in others if not INTERVAL_METHODS[m].binary_only],
                     scenarios=BETA, n_total=sizes, **kw)]
    if resampling:
        runs.append(simulate(resampling, scenarios=BETA, n_total=sizes[:1], **kw))
    rows = tuple(r for run in runs for r in run.rows)
    sim = SimulationResult(rows, runs[0].confidence_level, a.reps, a.seed)
    t1 = time.perf_counter()
    pw = power_table(methods, n_sims=a.power_sims, seed=a.seed, skip_beta=resampling)
    t2 = time.perf_counter()
    pk = peeking_error(n_pairs=2500, n_streams=a.streams, seed=a.seed)
    t3 = time.perf_counter()
    cmd = "python benchmarks/methods_table.py" + (
        " " + " ".join(argv if argv is not None else sys.argv[1:])
        if (argv if argv is not None else sys.argv[1:]) else "")
    page = methods_page(sim, pw, pk, command=cmd)
    if resampling:
        page += (f"\nResampling methods ({', '.join(resampling)}) were run on Beta costs at "
                 f"n = {sizes[0]} only (their bootstrap over distinct fractional cost values "
                 "takes seconds per interval at n = 10,000); their Beta-cost power was not "
                 "planned.\n")
    a.output.parent.mkdir(parents=True, exist_ok=True)
    a.results.parent.mkdir(parents=True, exist_ok=True)
    a.results.write_text(f"# Command: {cmd} (seed {a.seed})\n# machine: {machine()}; seeded, "
                         f"so the numbers do not depend on the machine\n\n{page}")
    a.output.write_text(cite_numbers(page))
    print(f"wrote {a.output} (coverage {t1 - t0:.0f} s, power {t2 - t1:.0f} s, "
          f"peeking {t3 - t2:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
