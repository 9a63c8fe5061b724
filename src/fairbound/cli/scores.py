"""``fairbound scores``: the CLI front of :func:`fairbound.score_audit`."""

from __future__ import annotations

from typing import Annotated

import typer

from fairbound._render import check_format, console, fmt_int, fmt_level, fmt_num
from fairbound._words import UNEQUAL
from fairbound.cli import _common as common
from fairbound.cli._common import (
    VERDICT_STYLE,
    excluded_text,
    print_machine,
    split_list,
)


def parse_bins(text: str | None):
    """``--bins``: ``None``, a whole number ``k`` or comma-separated ascending edges.

    Examples
    --------
    >>> parse_bins("20"), parse_bins("0, 0.5, 1"), parse_bins(None)
    (20, (0.0, 0.5, 1.0), None)
    """
    from fairbound.errors import FairboundError

    if text is None:
        return None
    t = str(text).strip()
    if "," not in t:
        try:
            return int(t)
        except ValueError:
            raise FairboundError(f"--bins must be a whole number or comma-separated edges "
                                 f"such as 0,0.5,1; got {text!r}", param="bins") from None

    return split_list(t, "--bins", float)


def _short_note(c: dict) -> str:
    """A comparison's note, shortened for the table (sweeps: where the gap is largest)."""
    note = c.get("note") or ""
    if c["metric"].endswith("_sweep") and c["verdict"] != UNEQUAL and c.get("threshold"):
        return f"largest at t = {c['threshold']:g}"
    return note.replace("gap established at ", "established at ")


def print_scores(result, *, fmt: str = "table") -> None:
    """Print a :class:`~fairbound.audits.scores.audit.ScoreAuditResult` as a table, JSON or CSV."""
    if print_machine(result, fmt):
        return
    from rich.markup import escape
    from rich.table import Table

    from fairbound.audits.control import bonferroni_level
    from fairbound.audits.pairing import group_name

    con = console()
    d = result.to_dict()
    excluded = excluded_text(d["excluded"])
    con.print(f"[bold]fairbound scores[/] of {escape(str(d['source']))}  "
              f"(engine: {d['engine']})")
    con.print(f"rows scanned: {d['n_rows']:,}; excluded: {escape(excluded)}")
    cols = d["columns"]
    con.print(escape(f"label: {cols.get('label')} (positive: {d['positive']}); score: "
                     f"{cols.get('score')}; "
                     + ("exact (each distinct score a bin)" if d["exact"]
                        else f"binned: {d['binning']} (AUCs approximate)")))
    if result.comparison == "vs-reference":
        con.print(escape(f"reference group: {group_name(result.reference)}"))
    level = fmt_level(d["confidence_level"])
    if d["error_control"] == "family":
        each = fmt_level(bonferroni_level(d["confidence_level"], d["n_tests"]))
        con.print(f"error control: family-wise {level} over {d['n_tests']} comparisons "
                  f"(each interval at {each}, Bonferroni); band: {d['band']}")
    elif d["error_control"] == "fdr":
        rows = d["comparisons"]
        each = fmt_level(rows[0]["interval_level"]) if rows else level
        con.print(f"error control: false discovery rate {fmt_level(1 - d['confidence_level'])}"
                  f" over {d['n_tests']} comparisons (Benjamini-Hochberg; each interval at "
                  f"{each}); band: {d['band']}")
    else:
        con.print(f"error control: none (each interval at {level}); band: {d['band']}")
    if d["calibration_note"]:
        con.print(f"[yellow]note:[/] {escape(d['calibration_note'])}")
    groups = Table(show_lines=False, header_style="bold")
    heads = [("group", "left"), ("n", "right"), ("positives", "right"), ("AUC", "right"),
             (f"{level} CI", "center")]
    if not d["exact"]:
        heads.append(("AUC bound", "right"))
    if d["calibration"]:
        heads += [("mean score", "right"), ("rate", "right"), ("calib.", "right"),
                  ("calib. CI", "center")]
    for h, just in heads:
        groups.add_column(h, justify=just)
    for g in d["groups"]:
        row = [escape(str(g["group"])), fmt_int(g["n"]), fmt_int(g["positives"]),
               fmt_num(g["auc"]), f"[{fmt_num(g['auc_low'])}, {fmt_num(g['auc_high'])}]"]
        if not d["exact"]:
            row.append(fmt_num(g["auc_error_bound"], 4))
        if d["calibration"]:
            row += [fmt_num(g["mean_score"]), fmt_num(g["mean_label"]),
                    fmt_num(g["calibration_in_the_large"]),
                    f"[{fmt_num(g['calibration_low'])}, {fmt_num(g['calibration_high'])}]"]
        groups.add_row(*row)
    con.print(groups)
    table = Table(show_lines=False, header_style="bold")
    for col, just in (("metric", "left"), ("A vs B", "left"), ("A", "right"), ("B", "right"),
                      ("gap", "right"), ("CI", "center"), ("verdict", "left"),
                      ("note", "left")):
        table.add_column(col, justify=just)
    for c in d["comparisons"]:
        table.add_row(
            c["metric"], escape(f"{c['group_a']} vs {c['group_b']}"),
            fmt_num(c["value_a"]), fmt_num(c["value_b"]), fmt_num(c["estimate"]),
            f"[{fmt_num(c['low'])}, {fmt_num(c['high'])}]",
            f"[{VERDICT_STYLE.get(c['verdict'], '')}]{c['verdict']}[/]",
            escape(_short_note(c)))
    con.print(table)
    con.print("[dim]gap = A - B. AUC: a gap above 0 means the scores rank B worse. Sweeps: "
              "max over thresholds of |rate_A(t) - rate_B(t)| with an interval; 'unequal' "
              "when the band excludes 0 at some threshold.[/]")


def scores_command(
    data: common.DataArg,
    group: common.GroupOpt,
    label: Annotated[str, typer.Option("--label", "-y", help="True label column.")],
    score: Annotated[str, typer.Option("--score", "-s",
                                       help="Score column (or a checked expression).")],
    bins: Annotated[str | None, typer.Option(
        help="Score bins: a whole number k (floor(score * k)) or comma-separated edges; "
             "default: each distinct score (exact AUC).")] = None,
    comparison: common.ComparisonOpt = "pairwise",
    reference: common.ReferenceOpt = None,
    confidence: common.ConfidenceOpt = 0.95,
    error_control: Annotated[str, typer.Option(
        "--error-control", help="family (every verdict holds jointly, Bonferroni) | fdr "
        "(false discovery rate, Benjamini-Hochberg) | none (each comparison on its own)")
    ] = "family",
    pos_label: Annotated[str | None, typer.Option(
        "--pos-label", help="Positive class as the label column holds it; default 1/True "
        "for 0/1 and True/False labels.")] = None,
    where: common.WhereOpt = None,
    band: Annotated[str, typer.Option(
        help="Threshold-sweep band: dkw (finite-sample) | sup-t (asymptotic)")] = "dkw",
    sweep_thresholds: Annotated[str, typer.Option(
        "--sweep-thresholds", help="Most thresholds per sweep (a grid of each group's "
        "quantiles beyond), or 'all' for every distinct score.")] = "1000",
    max_comparisons: Annotated[int, typer.Option(
        "--max-comparisons", help="Refuse audits with more comparisons than this.")
    ] = 10_000,
    engine: common.EngineOpt = "auto",
    fmt: common.FormatOpt = "table",
    json_out: common.JsonOut = None,
    html_out: common.HtmlOut = None,
) -> None:
    """Audit scores by group: AUC, calibration and threshold sweeps with verdicts."""
    from fairbound.audits.scores.audit import score_audit

    fmt = check_format(fmt)
    parsed_bins = parse_bins(bins)
    inputs = common.check_outputs(data, ("--json", json_out),
                                  ("--html", html_out, (".html", ".htm"), "use .html"))
    result = score_audit(
        data, group=group if len(group) > 1 else group[0], label=label, score=score,
        bins=parsed_bins, comparison=comparison, reference=reference,
        confidence_level=confidence, error_control=error_control, pos_label=pos_label,
        where=where, band=band, max_comparisons=max_comparisons, engine=engine,
        sweep_thresholds=sweep_thresholds)
    common.write_outputs(inputs, ("--json", json_out, result.to_json),
                         ("--html", html_out, lambda: _html_report(result)))
    print_scores(result, fmt=fmt)


def _html_report(result) -> str:
    from fairbound.report.score_report import render_score_report

    return render_score_report(result)


def register(app: typer.Typer) -> None:
    """Add ``scores`` to the CLI."""
    app.command("scores")(scores_command)
