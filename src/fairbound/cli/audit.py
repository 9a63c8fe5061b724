"""``fairbound audit``: the CLI front of :func:`fairbound.audit`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairbound._render import check_format, console, fmt_int, fmt_num, plain
from fairbound._words import (
    A_DISADVANTAGED,
    B_DISADVANTAGED,
    NO_EVIDENCE,
    NO_GAP,
    NOT_ESTIMABLE,
    UNEQUAL,
)
from fairbound.cli._common import excluded_text, print_machine

VERDICT_STYLE = {
    A_DISADVANTAGED: "bold red", B_DISADVANTAGED: "bold red", UNEQUAL: "bold red",
    NO_EVIDENCE: "yellow", NOT_ESTIMABLE: "dim", NO_GAP: "green",
}


def _method_options(gamma, variance) -> dict:
    out = {}
    if gamma is not None:
        out["gamma"] = gamma
    if variance is not None:
        out["variance"] = variance
    return out


def _name(group) -> str:
    """A group, or an intersection ``("F", "Black")`` as ``"F & Black"``."""
    return " & ".join(map(str, group)) if isinstance(group, tuple) else str(group)


def print_audit(result, *, fmt: str = "table", reference_given: bool = True) -> None:
    """Print an :class:`~fairbound.audits.AuditResult` as a table, JSON or CSV.

    With ``reference_given=False`` a reference group that the audit picked (the largest,
    for ``vs-reference``) is named on standard error for JSON and CSV, and in the table.
    """
    picked = None
    if result.comparison == "vs-reference" and result.reference is not None:
        from fairbound.audits.gaps.result import _jsonable

        ref = _jsonable(result.reference)
        picked = f"reference group: {ref}" + (
            "" if reference_given else " (the largest group; choose another with --reference)")
    if print_machine(result, fmt):
        if picked and not reference_given:
            typer.echo(f"note: {picked}", err=True)
        return
    from rich.table import Table

    con = console()
    d = result.to_dict()
    excluded = excluded_text(d["excluded"])
    groups = ", ".join(f"{plain(g['group'])} ({g['rows']:,})" for g in d["groups"])
    con.print(f"[bold]fairbound audit[/] of {plain(d['source'])}  (engine: {d['engine']})")
    con.print(f"rows scanned: {d['n_rows']:,}; excluded: {plain(excluded)}")
    con.print(f"groups: {groups}")
    if picked:
        con.print(plain(picked))
    from fairbound.report.audit_report import (
        error_control_sentence,
        favourable_sentence,
        tolerance_sentence,
    )

    con.print(f"method: {d['method']} ({d['guarantee']}), seed {d['seed']}; "
              "gap = rate_A - rate_B")
    con.print(error_control_sentence(d))
    con.print(favourable_sentence(d))
    if d.get("tolerance") is not None:
        con.print(tolerance_sentence(d))
    table = Table(show_lines=False, header_style="bold")
    for col, just in (("metric", "left"), ("rate", "left"), ("A vs B", "left"), ("n_A", "right"),
                      ("n_B", "right"), ("rate A", "right"), ("rate B", "right"),
                      ("gap", "right"), ("CI", "center"), ("verdict", "left"),
                      ("n needed", "right")):
        table.add_column(col, justify=just)
    for c in result.comparisons:
        g, lo, hi = c.rate_gap
        if c.component == "max":
            gap, ci = fmt_num(c.estimate), f"[{fmt_num(c.low)}, {fmt_num(c.high)}] |gap|"
        else:
            gap, ci = fmt_num(g), f"[{fmt_num(lo)}, {fmt_num(hi)}]"
        verdict = c.verdict
        if c.disadvantaged is not None:
            verdict = f"{plain(_name(c.disadvantaged))} disadvantaged"
        ga, gb = plain(_name(c.group_a)), plain(_name(c.group_b))
        rate = c.rate if c.cls is None else f"{c.rate} (k={c.cls})"
        table.add_row(
            c.metric, rate, f"{ga} vs {gb}",
            fmt_int(c.a.n if c.a else None), fmt_int(c.b.n if c.b else None),
            fmt_num(c.rate_a), fmt_num(c.rate_b), gap, ci,
            f"[{VERDICT_STYLE.get(c.verdict, '')}]{verdict}[/]", fmt_int(c.required_n),
        )
    con.print(table)
    notes = [f"{c.label} {c.group_a} vs {c.group_b}: {c.note}" for c in result.comparisons
             if c.note and c.component != "max"]
    for n in notes[:10]:
        con.print(f"[dim]note: {plain(n)}[/]")
    con.print("[dim]n needed: total annotated examples (A + B, at the current group shares) at "
              "which the interval, at the level shown, would exclude 0 if the observed gap were "
              "the true one.[/]")


def audit_command(
    data: Annotated[str, typer.Argument(help="CSV, Parquet or JSON-lines file (or glob).")],
    group: Annotated[list[str], typer.Option("--group", "-g",
                                             help="Protected-attribute column (repeat for "
                                                  "intersections).")],
    label: Annotated[str | None, typer.Option("--label", "-y", help="True label column.")] = None,
    pred: Annotated[str | None, typer.Option("--prediction", "--pred", "-p",
                                             help="Predicted label column or a checked "
                                                  "expression such as \"score >= 0.5\".")
                                             ] = None,
    metric: Annotated[list[str] | None, typer.Option("--metric", "-m",
                                                     help="Metric (repeatable).")] = None,
    cost: Annotated[str | None, typer.Option(help="Per-row cost column in [0, C].")] = None,
    cost_max: Annotated[float | None, typer.Option("--cost-max",
                                                   help="Declared maximum cost C.")] = None,
    comparison: Annotated[str, typer.Option(
        help="pairwise | vs-rest | vs-reference (the largest group unless --reference "
             "names one)")] = "pairwise",
    reference: Annotated[str | None, typer.Option(
        help="Reference group (B side; implies vs-reference).")] = None,
    method: Annotated[str, typer.Option(
        help="Interval method (auto: exact for 0/1 costs, betting for fractional costs).")
    ] = "auto",
    confidence: Annotated[float, typer.Option("--confidence-level", "--confidence",
                                              help="Confidence level in (0, 1).")] = 0.95,
    error_control: Annotated[str, typer.Option(
        "--error-control", help="family (every verdict of the audit holds jointly) | fdr "
        "(Benjamini-Hochberg) | none (each comparison on its own)")] = "family",
    favourable: Annotated[str, typer.Option(
        "--favourable", help="positive (the positive prediction is favourable: hired, loan "
        "granted) | negative (it harms: flagged, high risk)")] = "positive",
    tolerance: Annotated[float | None, typer.Option(
        help="Band on the rate scale: a gap whose interval lies within +/- this is 'no "
             "meaningful gap'.")] = None,
    max_comparisons: Annotated[int, typer.Option(
        "--max-comparisons", help="Refuse audits with more comparisons than this.")
    ] = 10_000,
    pos_label: Annotated[str | None, typer.Option(
        "--pos-label", help="Positive class as the label column holds it (1, true, yes, "
        "High); default 1/True for 0/1 and True/False labels.")] = None,
    seed: Annotated[int, typer.Option(help="Seed for randomised methods.")] = 0,
    gamma: Annotated[float | None, typer.Option(help="BBU/Hoeffding group-share bound.")] = None,
    variance: Annotated[float | None, typer.Option(help="BBU variance (bound).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table | json | csv")] = "table",
    json_out: Annotated[Path | None, typer.Option("--json", help="Also write JSON here.")] =
    None,
    where: Annotated[str | None, typer.Option(
        help="SQL condition selecting rows, e.g. \"split = 'test'\" (checked).")] = None,
    engine: Annotated[str, typer.Option(help="auto | duckdb | spark")] = "auto",
    html_out: Annotated[Path | None, typer.Option(
        "--html", help="Also write a self-contained HTML report here.")] = None,
    markdown_out: Annotated[Path | None, typer.Option(
        "--markdown", help="Also write the findings as Markdown (model cards).")] = None,
) -> None:
    """Audit predictions: every gap with an interval, a verdict and the n that settles it."""
    import warnings

    from fairbound._io import input_files
    from fairbound.audits import audit
    from fairbound.cli._common import check_output_file
    from fairbound.errors import SmallGroupWarning

    fmt = check_format(fmt)
    inputs = input_files(data)
    for option, path in (("--json", json_out), ("--html", html_out),
                         ("--markdown", markdown_out)):
        if path is not None:
            check_output_file(option, path, inputs=inputs)
    with warnings.catch_warnings():
        if fmt == "table":  # the table's own notes name every small group
            warnings.simplefilter("ignore", SmallGroupWarning)
        result = audit(
            data, group=group, label=label, prediction=pred, metrics=metric or None,
            cost=cost, cost_max=cost_max, comparison=comparison, reference=reference,
            method=method, confidence_level=confidence, pos_label=pos_label, seed=seed,
            where=where, engine=engine, error_control=error_control, favourable=favourable,
            tolerance=tolerance, max_comparisons=max_comparisons,
            **_method_options(gamma, variance),
        )
    # render every output first, then write them all or none
    outputs = []
    if json_out is not None:
        outputs.append(("--json", json_out, result.to_json().encode("utf-8")))
    if html_out is not None:
        from fairbound.report import render_audit_report

        outputs.append(("--html", html_out, render_audit_report([result]).encode("utf-8")))
    if markdown_out is not None:
        from fairbound.report import to_markdown

        outputs.append(("--markdown", markdown_out, to_markdown(result).encode("utf-8")))
    if outputs:
        from fairbound._io import write_all_atomic

        write_all_atomic(outputs, inputs=inputs)
    print_audit(result, fmt=fmt, reference_given=reference is not None)


def register(app: typer.Typer) -> None:
    """Add ``audit`` to the CLI."""
    app.command("audit")(audit_command)
