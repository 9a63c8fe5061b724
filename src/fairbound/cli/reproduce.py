"""``fairbound reproduce bbu``: the MultiNLI experiment of Ethayarajh (2020).

The experiment itself (reading MultiNLI, the genre table, the coverage study) is
:mod:`fairbound.evaluation.reproduce`; this module is its typer front end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairbound._validate import check_choice
from fairbound.errors import FairboundError


def _parse_grid(text: str, name: str, cast):
    try:
        vals = [cast(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise FairboundError(f"{name} must be a comma-separated list of numbers; got {text!r}",
                             param=name) from None
    if not vals:
        raise FairboundError(f"{name} must not be empty", param=name)
    return vals


def bbu_command(
    files: Annotated[list[Path] | None, typer.Argument(help="More MNLI dev files.")] = None,
    mnli: Annotated[list[Path] | None, typer.Option(
        help="MultiNLI dev file (.jsonl or GLUE .tsv); repeatable.")] = None,
    ns: Annotated[str, typer.Option("--n", help="Sample sizes, comma-separated.")] =
    "100,200,500,1000,2000",
    gammas: Annotated[str, typer.Option("--gamma", help="Genre shares, comma-separated.")] =
    "0.1,0.25,0.5",
    runs: Annotated[int, typer.Option(help="Samples per cell.")] = 20,
    confidence: Annotated[float, typer.Option(help="Confidence level.")] = 0.95,
    method: Annotated[str, typer.Option(help="Interval method.")] = "bbu",
    seed: Annotated[int, typer.Option(help="Seed.")] = 0,
    figure: Annotated[Path | None, typer.Option(
        help="Write Figure 1 (.png, .svg or .pdf).")] = None,
    figure_kind: Annotated[str, typer.Option(
        help="paper: the estimate and its interval vs n and vs gamma (the paper's Figure "
             "1); coverage: mean half-width vs n per gamma, labelled with the "
             "coverage.")] = "paper",
    figure_genre: Annotated[list[str] | None, typer.Option(
        help="Genre of the paper figure, repeatable (default: government, as in the "
             "paper).")] = None,
    figure_gamma: Annotated[float | None, typer.Option(
        help="Share gamma of the left panels (default: the paper's 0.1).")] = None,
    figure_n: Annotated[int | None, typer.Option(
        help="Sample size n of the right panels (default: the paper's 500).")] = None,
    csv: Annotated[Path | None, typer.Option(help="Write every interval as CSV.")] = None,
) -> None:
    """Reproduce the MNLI genre experiment (Table 1 and the Figure 1 coverage study)."""
    from rich.table import Table

    from fairbound._render import console, fmt_num
    from fairbound.evaluation.reproduce import coverage_study, genre_table, load_mnli
    from fairbound.stats.base import check_confidence_level, get_method

    paths = list(mnli or []) + list(files or [])
    if not paths:
        raise FairboundError("mnli: give the MultiNLI dev file(s) with --mnli", param="mnli")
    if runs < 1:
        raise FairboundError(f"runs must be >= 1; got {runs}", param="runs")
    check_confidence_level(confidence, "confidence")
    get_method(method)
    n_grid = _parse_grid(ns, "n", int)
    g_grid = _parse_grid(gammas, "gamma", float)
    if any(not (0 < g < 1) for g in g_grid):
        raise FairboundError(f"gamma values must be in (0, 1); got {gammas!r}", param="gamma")
    check_choice(figure_kind, ("paper", "coverage"), "figure_kind")
    if figure is not None and figure.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise FairboundError(f"figure must end in .png, .svg or .pdf; got {str(figure)!r}",
                             param="figure")
    df = load_mnli(paths)
    con = console()
    t1 = genre_table(df)
    table = Table("genre", "n in", "cost in genre", "cost out of genre", "gap",
                  title=f"Mean annotator disagreement per genre ({len(df):,} examples)",
                  header_style="bold")
    for r in t1.itertuples():
        table.add_row(str(r.genre), f"{r.n_in:,}", fmt_num(r.cost_in), fmt_num(r.cost_out),
                      f"{r.gap:+.3f}")
    con.print(table)
    study = coverage_study(df, ns=n_grid, gammas=g_grid, runs=runs,
                           confidence_level=confidence, seed=seed, method=method)
    s = study.summary()
    t2 = Table("n", "gamma", "coverage", "mean half-width", "intervals",
               title=f"How often the {confidence:.0%} {method} interval contains the full-data "
                     f"gap (seed {seed})", header_style="bold")
    for r in s.itertuples():
        t2.add_row(f"{r.n:,}", f"{r.gamma:g}", f"{r.coverage:.1%}", fmt_num(r.mean_half_width),
                   f"{r.intervals:,}")
    con.print(t2)
    if csv is not None:
        from fairbound._io import csv_text, input_files, write_text_atomic

        write_text_atomic(csv, csv_text(study.table), param="--csv",
                          inputs=input_files(paths))
    if figure is not None:
        import io

        from fairbound._io import input_files, write_bytes_atomic
        from fairbound.evaluation.reproduce import figure1, figure1_settings
        from fairbound.viz.coverage import plot_coverage

        if figure_kind == "paper":
            # the same code path as the Python API: the paper's panels by default
            kw = {"genres": figure_genre or None, "gamma": figure_gamma, "n": figure_n}
            fig = figure1(study, **kw)
            st = figure1_settings(study, **kw)
            con.print(f"Figure 1 panels: genres {', '.join(st['genres'] or ['all'])}; "
                      f"gamma {st['gamma'] if st['gamma'] is not None else 'nearest 0.5'} "
                      f"(left), n {st['n'] if st['n'] is not None else 'largest'} (right)"
                      + ("" if st["paper"] else " (not all of them the paper's: the "
                         "paper's are government, 0.1 and 500)"))
        else:
            fig = plot_coverage(study)
        buf = io.BytesIO()
        fig.savefig(buf, format=figure.suffix.lower().lstrip("."), dpi=120)
        write_bytes_atomic(figure, buf.getvalue(), param="--figure",
                           inputs=input_files(paths))
        con.print(f"figure written to {figure}")


def register(app: typer.Typer) -> None:
    """Add ``reproduce`` with the ``bbu`` experiment."""
    from fairbound.cli._common import add_sub_app

    add_sub_app(app, "reproduce", "Reproduce published experiments.", bbu=bbu_command)
