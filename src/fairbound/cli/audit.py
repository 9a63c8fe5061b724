"""``fairbound audit``: the CLI front of :func:`fairbound.audit`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairbound._render import check_format, fmt_int, fmt_num, plain
from fairbound.cli import _common as common
from fairbound.cli._common import VERDICT_STYLE, excluded_text, print_machine, table_heading


def _need(c) -> str:
    """The "n needed" cell: the planned total, or "not reachable" (the reports' rule)."""
    from fairbound.report._common import unreachable

    have = (c.a.n if c.a else 0) + (c.b.n if c.b else 0)
    return "not reachable" if unreachable(c.required_n, have) else fmt_int(c.required_n)


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

    con, d = table_heading(result, "audit")
    excluded = excluded_text(d["excluded"])
    groups = ", ".join(f"{plain(g['group'])} ({g['rows']:,})" for g in d["groups"])
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
    far = False
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
            f"[{VERDICT_STYLE.get(c.verdict, '')}]{verdict}[/]", _need(c),
        )
        far = far or _need(c) == "not reachable"
    con.print(table)
    notes = [f"{c.label} {c.group_a} vs {c.group_b}: {c.note}" for c in result.comparisons
             if c.note and c.component != "max"]
    for n in notes[:10]:
        con.print(f"[dim]note: {plain(n)}[/]")
    con.print("[dim]n needed: total annotated examples (A + B, at the current group shares) at "
              "which the interval, at the level shown, would exclude 0 if the observed gap were "
              "the true one.[/]")
    if far:
        from fairbound.report._common import MORE_DATA_FACTOR, UNREACHABLE_FACTOR

        con.print(f"[dim]not reachable: over {UNREACHABLE_FACTOR} times the examples compared; "
                  f"the summary gives the smallest gap {MORE_DATA_FACTOR} times as many could "
                  "show.[/]")


def audit_command(
    data: common.DataArg,
    group: common.GroupOpt,
    label: Annotated[str | None, typer.Option("--label", "-y", help="True label column.")] = None,
    pred: Annotated[str | None, typer.Option("--prediction", "--pred", "-p",
                                             help="Predicted label column or a checked "
                                                  "expression such as \"score >= 0.5\".")
                                             ] = None,
    metric: Annotated[list[str] | None, typer.Option(
        "--metric", "-m", help="Metric (repeatable): demographic_parity, equal_opportunity, "
        "false_positive_rate, false_negative_rate, equalized_odds, equalized_odds_cost "
        "(Ethayarajh's zero-one cost over all rows: the error-rate gap, the same as "
        "accuracy_parity; over rows with y = 1 it would be equal_opportunity; for equalized "
        "odds use equalized_odds), predictive_parity, accuracy_parity, cost (with --cost). "
        "Default: "
        "demographic_parity, equal_opportunity, false_positive_rate, predictive_parity, "
        "accuracy_parity.")] = None,
    cost: Annotated[str | None, typer.Option(help="Per-row cost column in [0, C].")] = None,
    cost_max: Annotated[float | None, typer.Option("--cost-max",
                                                   help="Declared maximum cost C.")] = None,
    comparison: common.ComparisonOpt = "pairwise",
    reference: common.ReferenceOpt = None,
    method: Annotated[str, typer.Option(
        help="Interval method (auto: exact for 0/1 costs, exact-union when one group is "
             "3,000+ times the other, betting for fractional costs).")
    ] = "auto",
    confidence: common.ConfidenceOpt = 0.95,
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
    fmt: common.FormatOpt = "table",
    json_out: common.JsonOut = None,
    where: common.WhereOpt = None,
    engine: common.EngineOpt = "auto",
    html_out: common.HtmlOut = None,
    markdown_out: Annotated[Path | None, typer.Option(
        "--markdown", help="Also write the findings as Markdown (model cards).")] = None,
) -> None:
    """Audit predictions: every gap with an interval, a verdict and the n that settles it."""
    import warnings

    from fairbound.audits import audit
    from fairbound.cli._common import check_outputs
    from fairbound.errors import SmallGroupWarning

    fmt = check_format(fmt)
    inputs = check_outputs(data, ("--json", json_out), ("--html", html_out),
                           ("--markdown", markdown_out))
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
    from fairbound.cli._common import write_outputs

    write_outputs(inputs, ("--json", json_out, result.to_json),
                  ("--html", html_out, lambda: _report(result, "html")),
                  ("--markdown", markdown_out, lambda: _report(result, "markdown")))
    print_audit(result, fmt=fmt, reference_given=reference is not None)


def _report(result, kind: str) -> str:
    """The HTML or Markdown report of ``result`` (the report package loads only here)."""
    from fairbound.report import render_audit_report, to_markdown

    return render_audit_report([result]) if kind == "html" else to_markdown(result)


def register(app: typer.Typer) -> None:
    """Add ``audit`` to the CLI."""
    app.command("audit")(audit_command)
