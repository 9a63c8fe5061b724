"""``fairbound proxies``: the CLI front of :func:`fairbound.audits.proxies.audit.proxy_audit`."""

from __future__ import annotations

from typing import Annotated

import typer

from fairbound._render import check_format, fmt_int, fmt_num, plain
from fairbound.cli import _common as common
from fairbound.cli._common import (
    VERDICT_STYLE,
    excluded_text,
    interval_text,
    print_machine,
    table_heading,
)
from fairbound.errors import FairboundError


def parse_group_probs(values: list[str]) -> dict[str, str]:
    """``["white=p_white", ...]`` as ``{"white": "p_white", ...}``, or a one-line error.

    Examples
    --------
    >>> parse_group_probs(["white=p_white", "black = p_black"])
    {'white': 'p_white', 'black': 'p_black'}
    >>> parse_group_probs(["p_white"])
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: --group-prob: 'p_white' is not GROUP=COLUMN ...
    """
    out: dict[str, str] = {}
    for v in values or []:
        name, sep, col = str(v).partition("=")
        if not sep or not name.strip() or not col.strip():
            raise FairboundError(f"--group-prob: {v!r} is not GROUP=COLUMN (e.g. "
                                 "--group-prob black=p_black)", param="group_probabilities")
        if name.strip() in out:
            raise FairboundError(f"--group-prob: group {name.strip()!r} is given twice",
                                 param="group_probabilities")
        out[name.strip()] = col.strip()
    return out


def print_proxies(result, *, fmt: str = "table") -> None:
    """Print a :class:`~fairbound.audits.proxies.audit.ProxyAuditResult`."""
    if print_machine(result, fmt):
        return
    from rich.table import Table

    from fairbound.report.audit_report import error_control_sentence, favourable_sentence

    con, d = table_heading(result, "proxies")
    cols = d["columns"]
    probs = ", ".join(f"{g}: {c}" for g, c in cols["group_probabilities"].items())
    con.print(plain(f"group probabilities: {probs}; label: {cols['label']}; prediction: "
                    f"{cols['prediction']}"))
    con.print(f"rows scanned: {d['n_rows']:,}; excluded: {plain(excluded_text(d['excluded']))}")
    groups = ", ".join(f"{plain(g['group'])} (expected {fmt_int(g['expected_rows'])} rows, "
                       f"{g['annotated']:,} annotated)" for g in d["groups"])
    con.print(f"groups: {groups}")
    if d["mode"] == "ppi":
        con.print(f"prediction-powered intervals from {d['n_annotated']:,} annotated rows "
                  "(asymptotic); annotated-only interval beside each")
    else:
        con.print(f"no annotated row: bounds from {d['n_cells']:,} proxy cells (every "
                  "distribution consistent with the proxies), widened for sampling")
    con.print(error_control_sentence(d))
    con.print(favourable_sentence(d))
    con.print(f"[bold]assumption:[/] {plain(d['assumption'])}")
    table = Table(show_lines=False, header_style="bold")
    side = "annotated-only CI" if d["mode"] == "ppi" else "identified set"
    for col, just in (("metric", "left"), ("A vs B", "left"), ("gap", "right"),
                      ("CI" if d["mode"] == "ppi" else "set", "center"), (side, "center"),
                      ("weighted (biased)", "right"), ("verdict", "left"),
                      ("annotated needed", "right")):
        table.add_column(col, justify=just)
    for c in result.comparisons:
        other = (interval_text(c.labeled_low, c.labeled_high) if c.mode == "ppi"
                 else interval_text(c.identified_low, c.identified_high))
        needed = "-"
        if c.annotated_needed == c.annotated_needed:
            needed = (f"{fmt_int(c.annotated_needed)} / "
                      f"{fmt_int(c.annotated_needed_labeled_only)}")
        verdict = c.verdict if c.disadvantaged is None else f"{c.disadvantaged} disadvantaged"
        table.add_row(f"{c.metric} ({c.rate})", f"{c.group_a} vs {c.group_b}",
                      fmt_num(c.estimate), interval_text(c.low, c.high), other,
                      fmt_num(c.weighted_estimate),
                      f"[{VERDICT_STYLE.get(c.verdict, 'yellow')}]{plain(verdict)}[/]", needed)
    con.print(table)
    for c in result.comparisons:
        if c.note:
            con.print(f"[dim]note: {c.metric} {c.group_a} vs {c.group_b}: {plain(c.note)}[/]")
    for note in result.notes:
        con.print(f"[dim]note: {plain(note)}[/]")
    if d["mode"] == "ppi":
        con.print("[dim]annotated needed (prediction-powered / annotated-only): annotated "
                  "rows, drawn as these were, at which the interval would exclude 0 if the "
                  "estimate were the truth (inf: not even annotating every row).[/]")


def proxies_command(
    data: common.DataArg,
    group_prob: Annotated[list[str], typer.Option(
        "--group-prob", help="GROUP=COLUMN: the column holding P(group | proxies) "
                             "(repeat for every group; they must sum to 1).")],
    label: Annotated[str, typer.Option("--label", "-y", help="Outcome label column.")],
    pred: Annotated[str, typer.Option("--prediction", "--pred", "-p",
                                      help="The audited prediction column (or a checked "
                                           "expression).")],
    group: Annotated[str | None, typer.Option(
        "--group", "-g", help="The true group where annotated (empty elsewhere), spelt as "
                              "the --group-prob names.")] = None,
    cell: Annotated[str | None, typer.Option(
        "--cell", help="Proxy cell column (e.g. surname x tract): bounds when no row is "
                       "annotated.")] = None,
    sampling_probability: Annotated[str | None, typer.Option(
        "--sampling-probability", help="Probability each annotated row was drawn with "
                                       "(fairbound sample records fairbound_probability).")
    ] = None,
    metric: common.MetricsOpt = None,
    comparison: common.ComparisonOpt = "pairwise",
    reference: common.ReferenceOpt = None,
    confidence: common.ConfidenceOpt = 0.95,
    error_control: common.ErrorControlOpt = "family",
    favourable: common.FavourableOpt = "positive",
    tolerance: Annotated[float | None, typer.Option(
        help="Band for 'no meaningful gap' on the rate scale.")] = None,
    pos_label: common.PosLabelOpt = None,
    where: common.WhereOpt = None,
    engine: common.EngineOpt = "auto",
    fmt: common.FormatOpt = "table",
    json_out: common.JsonOut = None,
    html_out: common.HtmlOut = None,
) -> None:
    """Audit gaps when the protected attribute is missing: group probabilities per row."""
    from fairbound.audits.proxies.audit import proxy_audit

    fmt = check_format(fmt)
    probs = parse_group_probs(group_prob)
    inputs = common.check_outputs(data, ("--json", json_out),
                                  ("--html", html_out, (".html", ".htm")))
    result = proxy_audit(data, group_probabilities=probs, label=label, prediction=pred,
                         group=group, cell=cell, sampling_probability=sampling_probability,
                         metrics=metric or None, comparison=comparison, reference=reference,
                         confidence_level=confidence, error_control=error_control,
                         favourable=favourable, tolerance=tolerance, pos_label=pos_label,
                         where=where, engine=engine)
    common.write_outputs(inputs, ("--json", json_out, result.to_json),
                         ("--html", html_out, lambda: _html_report(result)))
    print_proxies(result, fmt=fmt)


def _html_report(result) -> str:
    from fairbound.report.proxies_report import render_proxy_report

    return render_proxy_report(result)


def register(app: typer.Typer) -> None:
    """Add ``proxies`` to the CLI."""
    app.command("proxies")(proxies_command)
