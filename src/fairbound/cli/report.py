"""``fairbound report``: render the HTML report (and Markdown) from saved audits or a new one."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def report_command(
    inputs: Annotated[list[Path] | None, typer.Argument(
        help="Audit JSON files written by 'fairbound audit --json' or AuditResult.to_json().",
        show_default=False)] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="HTML file to write.")] =
    Path("fairbound-report.html"),
    title: Annotated[str | None, typer.Option(help="Report title.")] = None,
    markdown: Annotated[Path | None, typer.Option(
        "--markdown", help="Also write the findings as Markdown (for a model card).")] = None,
    json_out: Annotated[Path | None, typer.Option(
        "--json", help="With --data: also write the audit JSON here.")] = None,
    no_figures: Annotated[bool, typer.Option("--no-figures",
                                             help="Leave the figures out.")] = False,
    data: Annotated[str | None, typer.Option(
        help="Run a new audit on this CSV / Parquet / JSON-lines file instead.")] = None,
    group: Annotated[list[str] | None, typer.Option(
        "--group", "-g", help="With --data: protected-attribute column (repeatable).")] = None,
    label: Annotated[str | None, typer.Option("--label", "-y",
                                              help="With --data: true label column.")] = None,
    pred: Annotated[str | None, typer.Option("--prediction", "--pred", "-p",
                                             help="With --data: predicted label column.")] =
    None,
    metric: Annotated[list[str] | None, typer.Option("--metric", "-m",
                                                     help="With --data: metric (repeatable).")]
    = None,
    reference: Annotated[str | None, typer.Option(help="With --data: reference group.")] =
    None,
    method: Annotated[str, typer.Option(
        help="With --data: interval method (the audit's default: auto, exact for 0/1 "
             "costs, exact-union when one group is 3,000+ times the other).")] = "auto",
    confidence: Annotated[float, typer.Option(
        "--confidence-level", "--confidence", help="With --data: confidence level.")] = 0.95,
    pos_label: Annotated[str | None, typer.Option(
        "--pos-label", help="With --data: positive class as the label column holds it (1, "
        "true, yes, High).")] = None,
    seed: Annotated[int, typer.Option(help="With --data: seed.")] = 0,
) -> None:
    """Write one self-contained HTML report from saved audit JSON files (or a new audit)."""
    from fairbound._io import input_files, write_all_atomic
    from fairbound.cli._common import check_output_file
    from fairbound.errors import FairboundError
    from fairbound.report import render_audit_report
    from fairbound.report._common import check_path

    check_path(out, (".html", ".htm"), param="out")
    if markdown is not None:
        check_path(markdown, (".md", ".markdown"), param="markdown")
    inputs = list(inputs or [])
    read = input_files(inputs, data)
    for option, path in (("--out", out), ("--markdown", markdown), ("--json", json_out)):
        if path is not None:
            check_output_file(option, path, inputs=read)
    if data is None and not inputs:
        raise FairboundError("report: give audit JSON files, or --data with --group to run "
                             "an audit", param="inputs")
    if data is not None and inputs:
        raise FairboundError(f"report: give either audit JSON files or --data, not both; got "
                             f"{[str(p) for p in inputs][:3]} and --data {data!r}",
                             param="data")
    if json_out is not None and data is None:
        raise FairboundError("json: --json only applies with --data (the inputs already are "
                             "JSON)", param="json")
    if data is not None:
        from fairbound.audits import audit

        if not group:
            raise FairboundError("group: --data needs at least one --group column",
                                 param="group")
        result = audit(data, group=group, label=label, prediction=pred, metrics=metric or None,
                       reference=reference, method=method, confidence_level=confidence,
                       pos_label=pos_label, seed=seed)
        results = [result]
    else:
        results = inputs
    # every output rendered first, then written all or none
    files = [("--out", out, render_audit_report(results, title=title,
                                                figures=not no_figures).encode("utf-8"))]
    if markdown is not None:
        from fairbound.report.markdown import markdown_text

        files.append(("--markdown", markdown,
                      markdown_text(results).encode("utf-8")))
    if json_out is not None:
        files.append(("--json", json_out, results[0].to_json().encode("utf-8")))
    write_all_atomic(files, inputs=read)
    typer.echo(f"HTML report written to {out}")
    if markdown is not None:
        typer.echo(f"Markdown written to {markdown}")


def register(app: typer.Typer) -> None:
    """Add ``report`` to the CLI."""
    app.command("report")(report_command)
