"""``fairbound ppi``: the CLI front of :func:`fairbound.audits.ppi.audit.ppi_audit`."""

from __future__ import annotations

from typing import Annotated

import typer

from fairbound._render import check_format, fmt_int, fmt_num, plain
from fairbound.cli import _common as common
from fairbound.cli._common import VERDICT_STYLE, excluded_text, print_machine, table_heading


def _name(g) -> str:
    return plain(" & ".join(map(str, g)) if isinstance(g, tuple) else str(g))


def _interval(lo, hi) -> str:
    from fairbound.audits.verdicts import NOT_ESTIMABLE
    from fairbound.cli._common import interval_text

    return interval_text(lo, hi, NOT_ESTIMABLE)


def print_ppi(result, *, fmt: str = "table") -> None:
    """Print a :class:`~fairbound.audits.ppi.audit.PPIAuditResult` as a table, JSON or CSV."""
    if print_machine(result, fmt):
        return
    from rich.table import Table

    from fairbound.report.audit_report import error_control_sentence, favourable_sentence

    con, d = table_heading(result, "ppi")
    excluded = excluded_text(d["excluded"])
    cols = d["columns"]
    con.print(plain(f"gold label: {cols['label']}; proxy: {cols['proxy']}; prediction: "
                    f"{cols['prediction']}"))
    con.print(f"rows scanned: {d['n_rows']:,}; excluded: {plain(excluded)}")
    groups = ", ".join(
        f"{_name(g['group'])} ({g['rows']:,} rows, {g['labeled']:,} gold, proxy agrees "
        f"{fmt_num(g['agreement'], 2)})" for g in d["groups"])
    con.print(f"groups: {groups}")
    if d["comparison"] == "vs-reference" and d["reference"] is not None:
        con.print(f"reference group: {_name(d['reference'])}")
    kind = ("guaranteed (finite-sample) intervals" if d["guaranteed"] else
            "prediction-powered PPI++ intervals (asymptotic)")
    con.print(f"{kind}; gap = rate_A - rate_B; labeled-only = the gold-labeled rows alone")
    con.print(error_control_sentence(d))
    if d.get("looks", 1) > 1:
        levels = sorted({c.interval_level for c in result.comparisons})
        each = " or ".join(f"{100 * x:.4g}%" for x in levels)
        con.print(f"Over {d['looks']} planned looks (annotation batches) the error is split "
                  f"once more: each interval at {each}, so stopping at the first decisive "
                  "look keeps every verdict's error within the level.")
    con.print(favourable_sentence(d))
    con.print(f"[bold]assumption:[/] {d['assumption']}")
    table = Table(show_lines=False, header_style="bold")
    for col, just in (("metric", "left"), ("A vs B", "left"), ("rate A", "right"),
                      ("rate B", "right"), ("gap", "right"), ("CI", "center"),
                      ("labeled-only CI", "center"), ("width", "right"), ("verdict", "left"),
                      ("gold needed", "right")):
        table.add_column(col, justify=just)
    for c in result.comparisons:
        verdict = c.verdict
        if c.disadvantaged is not None:
            verdict = f"{_name(c.disadvantaged)} disadvantaged"
        metric = c.metric if c.metric != "equalized_odds" else f"{c.metric} ({c.rate})"
        needed = "-"
        if c.gold_labels_needed == c.gold_labels_needed:   # not NaN
            needed = (f"{fmt_int(c.gold_labels_needed)} / "
                      f"{fmt_int(c.gold_labels_needed_labeled_only)}")
        table.add_row(
            metric, f"{_name(c.group_a)} vs {_name(c.group_b)}", fmt_num(c.rate_a),
            fmt_num(c.rate_b), fmt_num(c.estimate), _interval(c.low, c.high),
            _interval(c.labeled_low, c.labeled_high), fmt_num(c.width_ratio, 2),
            f"[{VERDICT_STYLE.get(c.verdict, '')}]{verdict}[/]", needed)
    con.print(table)
    for c in result.comparisons:
        if c.note:
            con.print(f"[dim]note: {c.metric} {_name(c.group_a)} vs {_name(c.group_b)}: "
                      f"{plain(c.note)}[/]")
    for note in result.notes:
        con.print(f"[dim]note: {plain(note)}[/]")
    how = ("drawn as these were" if d.get("batches") is not None else "Neyman-allocated")
    con.print("[dim]width: CI width / labeled-only width. gold needed (PPI++ / labeled-only): "
              f"total gold labels (A + B, {how}, at least those there now) at which "
              "the interval would exclude 0 if the observed gap were the true one (inf: not "
              "even with every row labeled).[/]")


def ppi_command(
    data: common.DataArg,
    group: common.GroupOpt,
    label: Annotated[str, typer.Option("--label", "-y",
                                       help="Gold label column; empty where no gold label "
                                            "was collected.")],
    proxy: Annotated[str, typer.Option("--proxy", "-f",
                                       help="Proxy label column (a stronger model, a judge, "
                                            "a crowd majority) or a checked expression.")],
    pred: Annotated[str, typer.Option("--prediction", "--pred", "-p",
                                      help="The audited prediction column or a checked "
                                           "expression such as \"score >= 0.5\".")],
    metric: common.MetricsOpt = None,
    comparison: common.ComparisonOpt = "pairwise",
    reference: common.ReferenceOpt = None,
    confidence: common.ConfidenceOpt = 0.95,
    error_control: common.ErrorControlOpt = "family",
    guaranteed: Annotated[bool, typer.Option(
        "--guaranteed", help="Verdicts from intervals valid at every sample size.")] = False,
    favourable: common.FavourableOpt = "positive",
    pos_label: common.PosLabelOpt = None,
    where: common.WhereOpt = None,
    sampling_probability: Annotated[str | None, typer.Option(
        "--sampling-probability", help="Column with the probability each gold-labeled row "
        "was drawn with (fairbound sample records it in fairbound_probability); labeled "
        "rows are then weighted by 1 / probability.")] = None,
    batch: Annotated[str | None, typer.Option(
        "--batch", help="Column with each labeled row's annotation batch "
        "(fairbound_batch).")] = None,
    proxy_kind: Annotated[str, typer.Option(
        "--proxy-kind", help="label (the proxy holds classes) | score (the proxy's "
                             "probability of the positive class, in [0, 1], used as it is)")
    ] = "label",
    looks: Annotated[int, typer.Option(
        help="Planned looks (annotation batches): each interval at 1 - alpha / looks so "
             "that stopping at the first decisive look keeps the error below alpha.")] = 1,
    engine: common.EngineOpt = "auto",
    fmt: common.FormatOpt = "table",
    json_out: common.JsonOut = None,
) -> None:
    """Audit gaps from few gold labels and a proxy labeler (prediction-powered intervals)."""
    from fairbound.audits.ppi.audit import ppi_audit

    fmt = check_format(fmt)
    inputs = common.check_outputs(data, ("--json", json_out))
    result = ppi_audit(data, group=group, label=label, proxy=proxy, prediction=pred,
                       metrics=metric or None, comparison=comparison, reference=reference,
                       confidence_level=confidence, error_control=error_control,
                       guaranteed=guaranteed, favourable=favourable, pos_label=pos_label,
                       where=where, sampling_probability=sampling_probability, batch=batch,
                       looks=looks, proxy_kind=proxy_kind, engine=engine)
    if json_out is not None:
        from fairbound._io import write_all_atomic

        write_all_atomic([("--json", json_out, result.to_json().encode("utf-8"))],
                         inputs=inputs)
    print_ppi(result, fmt=fmt)


def register(app: typer.Typer) -> None:
    """Add ``ppi`` to the CLI."""
    app.command("ppi")(ppi_command)
