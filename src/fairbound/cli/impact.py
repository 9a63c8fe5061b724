"""``fairbound impact``: impact ratios (four-fifths rule, NYC Local Law 144) with intervals.

The command front of :func:`fairbound.audits.ratios.audit.ll144_audit`: one category per
``--group`` column and, with several, their intersection; each impact ratio with an
interval and a verdict relative to ``--threshold``; output as a table, JSON or CSV, and
optionally written (all or none) as JSON, HTML (:mod:`fairbound.report.ll144`) and CSV.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairbound._render import check_format, console, fmt_int, fmt_num, plain
from fairbound._words import ADVERSE, NO_ADVERSE, NO_EVIDENCE, NOT_ESTIMABLE, REFERENCE
from fairbound.cli._common import (
    ConfidenceOpt,
    DataArg,
    EngineOpt,
    FormatOpt,
    JsonOut,
    check_outputs,
    interval_text,
    print_machine,
)

VERDICT_STYLE = {ADVERSE: "bold red",
                 NO_ADVERSE: "green", NO_EVIDENCE: "yellow",
                 NOT_ESTIMABLE: "dim", REFERENCE: "dim"}
#: How the header names each error control.
_CONTROL_WORDS = {"family": "family-wise per category", "fdr": "false-discovery-rate "
                  "controlled per category", "none": "each"}


def _references(values: list[str] | None, groups: list[str]):
    """``--reference`` values: one bare value with one group, else ``COLUMN=VALUE`` each."""
    from fairbound.errors import FairboundError

    if not values:
        return None
    if len(groups) == 1 and len(values) == 1 and not values[0].startswith(f"{groups[0]}="):
        return values[0]
    out = {}
    for v in values:
        col, sep, val = v.partition("=")
        if not sep or col not in groups:
            raise FairboundError(
                f"reference: with --group {' --group '.join(groups)} give each reference as "
                f"COLUMN=VALUE (COLUMN one of {', '.join(groups)}); got {v!r}",
                param="reference")
        out[col] = val
    return out


def _ci(r) -> str:
    return interval_text(r.low, r.high)


def print_impact(result, *, fmt: str = "table") -> None:
    """Print an :class:`~fairbound.audits.ratios.audit.LL144Audit` as a table, JSON or CSV."""
    if print_machine(result, fmt, result.to_csv() if fmt == "csv" else None):
        return
    from rich.table import Table

    from fairbound._render import fmt_level
    from fairbound.audits.gaps.result import _jsonable
    from fairbound.audits.verdicts import REFERENCE

    con = console()
    first = result.categories[0]
    con.print(f"[bold]fairbound impact[/] of {plain(result.data_source)}  "
              f"(engine: {first.engine})")
    dates = (f"; dates {result.date_range[0]} to {result.date_range[1]}"
             if result.date_range else "")
    con.print(f"rows scanned: {first.n_rows:,}{plain(dates)}")
    pos = _jsonable(first.positive)
    what = (f"score {first.columns['score']} above its median ({first.score_median:g})"
            if first.columns.get("score") else
            f"{first.columns['prediction']} "
            + ("is 1 / true" if pos is True or pos == 1 else f"= {pos}"))
    con.print(f"{first.rate_name} over {first.rows}; outcome: {plain(what)} "
              f"({'favourable' if first.favourable == 'positive' else 'harmful'})")
    con.print(f"threshold {first.threshold:g}; method {first.method} ({first.guarantee}); "
              f"{fmt_level(first.confidence_level)} "
              f"{_CONTROL_WORDS.get(first.error_control, 'each')}")
    for c in result.categories:
        table = Table(show_lines=False, header_style="bold",
                      title=f"{plain(c.category)}  (intervals at {fmt_level(c.interval_level)}; "
                            f"{c.n_tests} pairwise)", title_justify="left")
        for col, just in (("group", "left"), ("vs", "left"), ("n", "right"),
                          (c.rate_name, "right"), ("impact ratio", "right"),
                          ("interval", "center"), ("verdict", "left"),
                          ("n needed", "right")):
            table.add_column(col, justify=just)
        for r in c.ratios:
            vs = ("(reference)" if r.verdict == REFERENCE
                  else plain(_jsonable(r.versus)))
            table.add_row(plain(_jsonable(r.group)), vs, fmt_int(r.n),
                          fmt_num(r.rate), fmt_num(r.ratio), _ci(r),
                          f"[{VERDICT_STYLE.get(r.verdict, '')}]{r.verdict}[/]",
                          fmt_int(r.required_n))
        con.print(table)
        for g in c.small_groups:
            con.print(f"[dim]under {c.min_share:.0%} (not in the ratios): "
                      f"{plain(_jsonable(g.group))}"
                      f", {g.rows:,} applicants, {c.rate_name} {fmt_num(g.rate)}[/]")
        if c.unknown:
            con.print(f"[dim]unknown {plain(c.category)} (missing): {c.unknown:,} applicants[/]")
        for r in c.ratios:
            if r.note:
                con.print(f"[dim]note: {plain(_jsonable(r.group))}: {plain(r.note)}[/]")
    con.print("[dim]n needed: applicants in the group and its comparison group (at their "
              "current shares) at which the interval would exclude the threshold if the "
              "observed rates were the truth. Not legal advice.[/]")


def impact_command(
    data: DataArg,
    group: Annotated[list[str], typer.Option(
        "--group", "-g", help="Category column (repeat: each column, then their "
        "intersection).")],
    pred: Annotated[str | None, typer.Option(
        "--prediction", "--pred", "-p", help="Decision column or a checked expression such "
        "as \"score >= 0.5\".")] = None,
    score: Annotated[str | None, typer.Option(
        help="Instead of --prediction: a score; the rate is the scoring rate (share above "
             "the median score).")] = None,
    label: Annotated[str | None, typer.Option(
        "--label", "-y", help="True label column (for --rate tpr, fpr, tnr, fnr).")] = None,
    rate: Annotated[str, typer.Option(
        help="selection_rate | tpr | fpr | tnr | fnr (the rows the favourable rate is taken "
             "over)")] = "selection_rate",
    versus: Annotated[str, typer.Option(
        "--comparison", help="highest (the four-fifths rule) | reference | pairwise")] =
    "highest",
    reference: Annotated[list[str] | None, typer.Option(
        help="Reference group (implies --comparison reference); with several --group, "
             "COLUMN=VALUE for each.")] = None,
    threshold: Annotated[float, typer.Option(help="Impact-ratio threshold in (0, 1].")] = 0.8,
    confidence: ConfidenceOpt = 0.95,
    error_control: Annotated[str, typer.Option(
        "--error-control", help="family (every verdict of a category holds jointly) | "
        "fdr (false discovery rate, Benjamini-Hochberg) | none")] = "family",
    method: Annotated[str, typer.Option(
        help="exact (finite-sample) | koopman | katz (asymptotic)")] = "exact",
    favourable: Annotated[str, typer.Option(
        help="positive (the positive prediction is favourable: selected) | negative (it "
             "harms: flagged)")] = "positive",
    pos_label: Annotated[str | None, typer.Option(
        "--pos-label", help="The positive (selected) value when not 1/True.")] = None,
    where: Annotated[str | None, typer.Option(
        help="SQL condition selecting rows, e.g. \"year = 2023\" (checked).")] = None,
    min_share: Annotated[float, typer.Option(
        "--min-share", help="Groups under this share of the rows are listed apart.")] = 0.02,
    date_column: Annotated[str | None, typer.Option(
        "--date-column", help="Column giving the data's date range.")] = None,
    source: Annotated[str | None, typer.Option(
        help="Where the data came from, in words (shown in the report).")] = None,
    engine: EngineOpt = "auto",
    fmt: FormatOpt = "table",
    json_out: JsonOut = None,
    html_out: Annotated[Path | None, typer.Option(
        "--html", help="Also write the self-contained HTML report here.")] = None,
    csv_out: Annotated[Path | None, typer.Option("--csv", help="Also write CSV here.")] =
    None,
) -> None:
    """Impact ratios by category with intervals and verdicts (four-fifths rule, LL144)."""
    fmt = check_format(fmt)
    inputs = check_outputs(data, ("--json", json_out, (".json",), "use .json"),
                           ("--html", html_out, (".html", ".htm"), "use .html"),
                           ("--csv", csv_out, (".csv",), "use .csv"))
    from fairbound.audits.ratios.audit import ll144_audit

    result = ll144_audit(
        data, group=list(group), prediction=pred, label=label, rate=rate, versus=versus,
        reference=_references(reference, list(group)), threshold=threshold,
        confidence_level=confidence, error_control=error_control, method=method,
        favourable=favourable, pos_label=pos_label, where=where, min_share=min_share,
        score=score, date_column=date_column, source=source, engine=engine)
    # render every output first, then write them all or none
    files = []
    if json_out is not None:
        files.append(("--json", json_out, result.to_json().encode("utf-8")))
    if html_out is not None:
        from fairbound.report.ll144 import render_ll144_report

        files.append(("--html", html_out, render_ll144_report(result).encode("utf-8")))
    if csv_out is not None:
        files.append(("--csv", csv_out, result.to_csv().encode("utf-8")))
    if files:
        from fairbound._io import write_all_atomic

        write_all_atomic(files, inputs=inputs)
    print_impact(result, fmt=fmt)


def register(app: typer.Typer) -> None:
    """Add ``impact`` to the CLI."""
    app.command("impact")(impact_command)
