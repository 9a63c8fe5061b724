"""``fairbound simulate``: coverage, width and power of interval methods by simulation.

The simulation itself is :mod:`fairbound.evaluation.simulate`; this module is its typer
front end (heavy imports happen inside the command).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from fairbound._validate import check_seed
from fairbound.cli import _common as common
from fairbound.cli._common import check_output_file, split_list
from fairbound.errors import FairboundError

_SIMULATE_OUTPUTS = {
    "markdown": ("a Markdown page", "--markdown", (".md", ".markdown")),
    "json": ("JSON", "--format json", (".json",)),
    "csv": ("CSV", "--format csv", (".csv",)),
    "table": ("text tables", "--format table", ()),
}


def _check_simulate_output(output: Path | None, kind: str) -> None:
    """The --out file fits what is written (plain .txt always does), checked first."""
    if output is None:
        return
    known = {"", ".txt"} | {s for _, _, sx in _SIMULATE_OUTPUTS.values() for s in sx}
    check_output_file("--out", output, tuple(sorted(known)),
                      "use .txt, or .json with --format json, .csv with --format csv, .md "
                      "with --markdown")
    what, how, suffixes = _SIMULATE_OUTPUTS[kind]
    if output.suffix.lower() not in {"", ".txt", *suffixes}:
        name = " or ".join([*suffixes, ".txt"])
        raise FairboundError(f"--out: {str(output)!r} would hold {what} ({how}); name it "
                             f"{name}", param="output")


def simulate_command(
    methods: Annotated[str | None, typer.Option(
        help="Comma-separated interval methods (default: all registered; resampling "
             "methods then run on Beta costs at the smallest --n only).")] = None,
    scenarios: Annotated[str, typer.Option(
        help="Comma-separated scenarios: binary, rare, beta, null-binary, null-rare, "
             "null-beta.")] = "binary,rare,beta,null-binary,null-beta",
    n: Annotated[str, typer.Option("--n", help="Comma-separated total sizes (A + B).")] =
    "100,1000,10000",
    share: Annotated[str, typer.Option(help="Comma-separated shares of group A.")] = "0.1,0.5",
    reps: Annotated[int, typer.Option(help="Data sets per cell.")] = 400,
    confidence_level: Annotated[float, typer.Option(
        "--confidence-level", "--confidence", help="Nominal level.")] = 0.95,
    seed: Annotated[int, typer.Option(help="Seed of the whole run.")] = 0,
    power: Annotated[bool, typer.Option(
        help="Also solve required n for 80% power (0/1 costs 0.15 vs 0.10 and Beta costs) "
             "per method.")] = False,
    peeking: Annotated[bool, typer.Option(
        help="Also measure how often a recomputed Wald interval ever misses (2,500-pair "
             "null streams) next to the betting confidence sequence.")] = False,
    markdown: Annotated[bool, typer.Option(
        help="Write the methods comparison page (implies --power and --peeking).")] = False,
    output: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write to this file instead.")] = None,
    fmt: common.FormatOpt = "table",
) -> None:
    """Measure coverage, width and power of interval methods by seeded simulation."""
    from fairbound._render import check_format
    from fairbound.evaluation.simulate import methods_page, peeking_error, power_table, simulate

    fmt = check_format(fmt)
    check_seed(seed)
    _check_simulate_output(output, "markdown" if markdown else fmt)
    kw = dict(share=split_list(share, "share", float), n_reps=reps,
              confidence_level=confidence_level, seed=seed)
    scen, sizes = split_list(scenarios, "scenarios"), split_list(n, "n", int)
    if methods is None:
        sim = _simulate_default(scen, sizes, kw)
    else:
        sim = simulate(split_list(methods, "methods"), scenarios=scen, n_total=sizes, **kw)
    # resampling methods bootstrap every distinct fractional cost: too slow to plan on Beta
    slow = [r["method"] for r in sim.rows if r["guarantee"] == "resampling"]
    pw = power_table(sim, seed=seed, skip_beta=slow) if (power or markdown) else None
    pk = peeking_error(confidence_level=confidence_level, seed=seed) \
        if (peeking or markdown) else None
    if markdown:
        cmd = (f"fairbound simulate --markdown{f' --methods {methods}' if methods else ''} "
               f"--scenarios {scenarios} --n {n} --share {share} --reps {reps} "
               f"--confidence-level {confidence_level:g} --seed {seed}")
        text = methods_page(sim, pw, pk, command=cmd)
    elif fmt == "json":
        out = sim.to_dict()
        if pw is not None:
            out["power"] = pw.to_dict("records")
        if pk is not None:
            out["peeking"] = pk.to_dict()
        text = json.dumps(out, indent=2, default=float) + "\n"
    elif fmt == "csv":
        from fairbound._io import csv_text

        text = csv_text(sim.to_frame())
    else:
        text = _tables(sim, pw, pk)
    if output is not None:
        from fairbound._io import write_all_atomic

        write_all_atomic([("--out", output, text.encode())])
        typer.echo(f"written to {output}")
    else:
        typer.echo(text, nl=False)


def _tables(sim, pw, pk) -> str:
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_rows", 10_000,
                           "display.max_columns", 50):
        cols = ["scenario", "n_total", "share", "method", "guarantee", "reps", "coverage",
                "p_value", "mean_width", "excludes_zero"]
        parts = [sim.to_frame()[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}"),
                 "", sim.summary().to_string(index=False, float_format=lambda v: f"{v:.4f}")]
        if pw is not None:
            parts += ["", pw.to_string(index=False, float_format=lambda v: f"{v:.3f}")]
        if pk is not None:
            parts += ["", pk.to_frame().to_string(index=False)]
    return "\n".join(parts) + "\n"


def _simulate_default(scen, sizes, kw):
    """All methods; resampling methods on Beta costs at the smallest size only.

    Their bootstrap over distinct fractional cost values takes seconds per interval at
    n = 10,000, which would make a default run last hours; name them in ``--methods`` to
    run them everywhere.
    """
    from fairbound.evaluation.simulate import SCENARIOS, SimulationResult, simulate
    from fairbound.stats.base import INTERVAL_METHODS

    if any(sc not in SCENARIOS for sc in scen):
        return simulate(None, scenarios=scen, n_total=sizes, **kw)  # reports the bad name
    everything = sorted(INTERVAL_METHODS)
    slow = [m for m in everything if INTERVAL_METHODS[m].guarantee == "resampling"]
    beta = tuple(sc for sc in scen if SCENARIOS[sc].kind == "beta")
    other = tuple(sc for sc in scen if sc not in beta)
    runs = []
    if other:
        runs.append(simulate(everything, scenarios=other, n_total=sizes, **kw))
    if beta:
        runs.append(simulate([m for m in everything if m not in slow], scenarios=beta,
                             n_total=sizes, **kw))
        if slow:
            runs.append(simulate(slow, scenarios=beta, n_total=min(sizes), **kw))
    rows = tuple(r for run in runs for r in run.rows)
    return SimulationResult(rows, runs[0].confidence_level, runs[0].n_reps, runs[0].seed)


def register(app: typer.Typer) -> None:
    """Add ``simulate`` to the CLI."""
    app.command("simulate")(simulate_command)
