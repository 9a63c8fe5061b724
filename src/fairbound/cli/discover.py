"""``fairbound discover``: the CLI front of :func:`fairbound.discover`."""

from __future__ import annotations

from typing import Annotated

import typer

from fairbound._render import check_format, fmt_int, fmt_level, fmt_num, plain
from fairbound.cli import _common as common
from fairbound.cli._common import excluded_text, print_machine, table_heading


def print_discover(result, *, fmt: str = "table") -> None:
    """Print a :class:`~fairbound.audits.discover.DiscoverResult` as a table, JSON or CSV."""
    if print_machine(result, fmt):
        return
    from rich.table import Table

    con, d = table_heading(result, "discover")
    con.print(f"rows scanned: {d['n_rows']:,}; excluded: {plain(excluded_text(d['excluded']))}")
    lattice = ", ".join(f"depth {k}: {v:,}" for k, v in d["lattice"].items())
    con.print(f"candidates: {d['n_candidates']:,} ({lattice}); evaluated {d['n_evaluated']:,}, "
              f"pruned {d['n_pruned']:,}, not estimable {d['n_not_estimable']:,}")
    con.print(plain(result.statement()))
    table = Table(show_lines=False, header_style="bold")
    for col, just in (("slice", "left"), ("rows", "right"), ("rate", "right"),
                      ("rest", "right"), ("gap", "right"), ("interval", "center"),
                      ("level", "right"), ("verdict", "left"), ("n needed", "right")):
        table.add_column(col, justify=just)
    rows = list(result.flagged) + [c for c in result.comparisons if not c.flagged]
    for c in rows:
        g, lo, hi = c.rate_gap
        style = "bold red" if c.flagged else "yellow"
        name = c.slice + (f" (+{len(c.merged)} alike)" if c.merged else "")
        table.add_row(plain(name), fmt_int(c.rows), fmt_num(c.rate_a), fmt_num(c.rate_b),
                      fmt_num(g), f"[{fmt_num(lo)}, {fmt_num(hi)}]",
                      fmt_level(c.interval_level), f"[{style}]{c.verdict}[/]",
                      fmt_int(c.required_n))
    con.print(table)
    con.print("[dim]gap = slice rate - rate of the "
              f"{d['comparison']}; verdicts from Fisher's exact test (testable slices: "
              f"{d['n_testable']:,}, levels x{d['discrete_scale']:.2f} by their attainable "
              "sizes); one-sided intervals hold jointly (a "
              "flagged slice's may still reach 0); n needed: rows at these shares at "
              "which the test would flag it.[/]")


def discover_command(
    data: common.DataArg,
    feature: Annotated[list[str], typer.Option(
        "--feature", "-f", help="Feature column slices are built from (repeat, or a "
        "comma-separated list).")],
    label: Annotated[str | None, typer.Option("--label", "-y", help="True label column.")] = None,
    pred: Annotated[str | None, typer.Option(
        "--prediction", "--pred", "-p", help="Predicted label column or a checked expression "
        "such as \"score >= 0.5\".")] = None,
    metric: Annotated[str, typer.Option("--metric", "-m", help="One metric with one rate.")
                      ] = "accuracy_parity",
    depth: Annotated[int, typer.Option(help="Most conditions in a slice.")] = 2,
    min_support: Annotated[float, typer.Option(
        "--min-support", help="Rows a slice needs: a share of all rows if below 1, else a "
        "count.")] = 0.01,
    max_candidates: Annotated[int, typer.Option(
        "--max-candidates", help="Refuse a search of more candidate slices.")] = 100_000,
    comparison: Annotated[str, typer.Option(
        help="complement (the rows outside the slice) | population (all rows)")
    ] = "complement",
    favourable: Annotated[str, typer.Option(
        "--favourable", help="positive | negative (the positive prediction harms)")
    ] = "positive",
    error_control: Annotated[str, typer.Option(
        "--error-control", help="family (no false flag, jointly: Fisher's exact test, "
        "Tarone-weighted Bonferroni raised by the tests' attainable sizes) | fdr (weighted "
        "Benjamini-Yekutieli) | none")] = "family",
    confidence: common.ConfidenceOpt = 0.95,
    pos_label: Annotated[str | None, typer.Option(
        "--pos-label", help="Positive class of label and prediction when not 0/1.")] = None,
    bins: Annotated[int, typer.Option(help="Quantile bins for numeric features.")] = 4,
    max_rows: Annotated[int, typer.Option("--max-rows",
                                          help="Slices shown besides the flagged ones.")] = 20,
    engine: common.EngineOpt = "auto",
    fmt: common.FormatOpt = "table",
    json_out: common.JsonOut = None,
    html_out: common.HtmlOut = None,
) -> None:
    """Search every slice of up to DEPTH feature conditions for one that is harmed."""
    from fairbound.audits.discover import discover

    fmt = check_format(fmt)
    inputs = common.check_outputs(data, ("--json", json_out), ("--html", html_out))
    features = [f.strip() for item in feature for f in item.split(",") if f.strip()]
    result = discover(data, features, label=label, prediction=pred, metric=metric,
                      depth=depth, min_support=min_support if min_support < 1
                      else _whole(min_support), max_candidates=max_candidates,
                      comparison=comparison, favourable=favourable,
                      error_control=error_control, confidence_level=confidence,
                      pos_label=_label_value(pos_label), bins=bins, max_rows=max_rows,
                      engine=engine)
    common.write_outputs(inputs, ("--json", json_out, result.to_json),
                         ("--html", html_out, lambda: _html_report(result)))
    print_discover(result, fmt=fmt)


def _html_report(result) -> str:
    from fairbound.audits.discover.report import render_discover_report

    return render_discover_report(result)


def _whole(x: float):
    return int(x) if float(x).is_integer() else x


def _label_value(text: str | None):
    """``--pos-label 1`` as the number 1 (labels are often numbers), other text as text."""
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return text


def register(app: typer.Typer) -> None:
    """Add ``discover`` to the CLI."""
    app.command("discover")(discover_command)
