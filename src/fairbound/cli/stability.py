"""``fairbound stability``: run, resume, summarise and report stability studies.

Kept light at import time: pandas, scikit-learn and matplotlib load inside the commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairbound._validate import check_choice, check_choices
from fairbound.cli._common import add_sub_app, check_output_file, echo_csv
from fairbound.errors import FairboundError

#: the filter of Jourdan et al. (2023): more than 10 per gender, i.e. at least 11
PAPER_MIN_PER_GROUP = 11
_MIN_HELP = ("Report a class as filtered, all its metrics (with the reason, never as "
             "numbers), when, in some run, either group has fewer than this many predictions "
             "of the class (the paper's per-occupation filter). The paper's Fig. 6 'more than "
             "10 per gender' is 11 (its Fig. 5 keeps 'at least one': the variance figures "
             "of the reports use 1). 0: no filter.")
_BUNDLED = {
    # name: (label, group, text column, reference group)
    "tweets": ("label", "dialect", "text", "white"),
    "adult": ("income", "sex", None, "Male"),
    "bios": ("profession", "gender", "text", "male"),  # gaps female - male, as in the paper
}


def _csv_list(value: str | None, param: str, cast=str) -> list | None:
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    try:
        return [cast(v.replace("_", "")) if cast is int else cast(v) for v in items]
    except ValueError:
        raise FairboundError(f"{param} must be a comma-separated list; got {value!r}",
                             param=param) from None


def read_table(source: str, param: str = "data"):
    """Read ``tweets``, ``adult``, ``bios:PATH`` or a CSV / Parquet / JSON-lines file.

    Every problem with the file (a folder, an empty or unparsable file, a ragged CSV line)
    is a one-line :class:`~fairbound.errors.FairboundError` naming ``param``.
    """
    from fairbound.stability.data import read_frame

    if source == "tweets":
        from fairbound.stability.data import load_tweets

        return load_tweets()
    if source == "adult":
        from fairbound.datasets import load_adult

        return load_adult("train")
    if source.startswith("bios:"):
        from fairbound.stability.data import load_bios

        return load_bios(source[5:])
    p = Path(source)
    if not p.exists():
        raise FairboundError(f"{param}: no such file {source!r} (or use tweets, adult, "
                             "bios:PATH)", param=param)
    if p.is_dir():
        raise FairboundError(f"{param}: {source!r} is a folder, not a file (a CSV, Parquet or "
                             "JSON-lines file; bios:FOLDER reads a Bias in Bios folder)",
                             param=param)
    if p.suffix.lower() not in (".csv", ".parquet", ".jsonl", ".json"):
        raise FairboundError(f"{param}: {source!r} must be .csv, .parquet, .jsonl or .json",
                             param=param)
    return read_frame(p, param=param)


def _conditions(specs: list[str] | None, text_column: str | None) -> dict | None:
    if not specs:
        return None
    from fairbound.stability.study import TextDebias

    out: dict = {"original": None}
    for spec in specs:
        name, _, variant = spec.partition("=")
        variant = variant or name
        if variant not in ("female", "male"):
            raise FairboundError(f"condition must be NAME=female or NAME=male; got {spec!r}",
                                 param="condition")
        if text_column is None:
            raise FairboundError("condition: debiasing needs --text-column", param="condition")
        out[name] = TextDebias(text_column, variant)
    return out


def run_command(
    data: Annotated[str, typer.Argument(
        help="tweets | adult | bios:PATH | a CSV, Parquet or JSON-lines file.")],
    store: Annotated[Path, typer.Option(
        help="Study folder: runs are saved there; run again to resume.")],
    label: Annotated[str | None, typer.Option("--label", "-y", help="Class column.")] = None,
    group: Annotated[str | None, typer.Option("--group", "-g",
                                              help="Protected-attribute column.")] = None,
    text_column: Annotated[str | None, typer.Option(help="Text column (text trainers).")]
    = None,
    features: Annotated[str | None, typer.Option(
        help="Comma-separated feature columns (tabular trainer).")] = None,
    trainer: Annotated[str, typer.Option(
        help="tfidf-lr | tabular-lr | transformers")] = "tfidf-lr",
    model_path: Annotated[Path | None, typer.Option(
        help="Local Hugging Face model folder (transformers trainer).")] = None,
    sizes: Annotated[str, typer.Option(help="Comma-separated sample sizes.")]
    = "2000,5000,10000,20000",
    repeats: Annotated[int, typer.Option(help="Samples per size.")] = 50,
    test_size: Annotated[float, typer.Option(help="Test share of each sample.")] = 0.3,
    test_data: Annotated[str | None, typer.Option(
        help="A fixed test set (file) instead of the 70/30 split.")] = None,
    stratify: Annotated[str | None, typer.Option(
        help="Comma-separated strata columns (default: group,label).")] = None,
    condition: Annotated[list[str] | None, typer.Option(
        help="Extra condition NAME=female|male: debiased text (repeatable).")] = None,
    metric: Annotated[list[str] | None, typer.Option(
        "--metric", "-m", help="Audit metric per class (repeatable; default GP, TPR, PP).")]
    = None,
    comparison: Annotated[str, typer.Option(help="pairwise | vs-rest | vs-reference")]
    = "vs-reference",
    reference: Annotated[str | None, typer.Option(help="Reference group (B side).")] = None,
    method: Annotated[str, typer.Option(
        help="Single-run interval method (default: the audit's; a stored study resumes "
             "only with its own).")]
    = "auto",
    confidence: Annotated[float, typer.Option(help="Confidence level in (0, 1).")] = 0.95,
    seed: Annotated[int, typer.Option(help="Study seed.")] = 0,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Parallel runs (-1: all cores).")]
    = 1,
    backend: Annotated[str, typer.Option(help="loky | threading | sequential | ray | spark")]
    = "loky",
    max_runs: Annotated[int | None, typer.Option(help="Stop after this many new runs.")]
    = None,
    report: Annotated[Path | None, typer.Option(help="Write the report to this folder.")]
    = None,
    progress: Annotated[bool, typer.Option(help="Progress bar with ETA.")] = True,
    min_per_group: Annotated[int | None, typer.Option(
        "--min-per-group", "--min-per-gender",
        help=_MIN_HELP + " Kept with the study (default: 11 for bios:, else none).")] = None,
) -> None:
    """Train one model per stratified sample and size, audit each; resumable."""
    from fairbound.stability.study import PAPER_METRICS, check_trainer_columns, run_study
    from fairbound.stability.trainers import make_trainer

    if store.exists() and not store.is_dir():
        raise FairboundError(f"store: {str(store)!r} is a file; give a folder (runs are saved "
                             "there)", param="store")
    if report is not None and report.exists() and not report.is_dir():
        raise FairboundError(f"report: {str(report)!r} is a file; give a folder",
                             param="report")
    df = read_table(data)
    test_df = None if test_data is None else read_table(test_data, "test_data")
    key = "bios" if data.startswith("bios:") else data
    d_label, d_group, d_text, d_ref = _BUNDLED.get(key, (None, None, None, None))
    if group is None or group == d_group:
        reference = reference if reference is not None else d_ref
    label = label or d_label
    group = group or d_group
    text_column = text_column or d_text
    if label is None or group is None:
        raise FairboundError("--label and --group are required for this data", param="label")
    if min_per_group is None and key == "bios":
        min_per_group = PAPER_MIN_PER_GROUP  # the paper's protocol on its own data
    if data == "adult":
        # no text: the tabular trainer, without the protected attribute among the features
        trainer = "tabular-lr" if trainer == "tfidf-lr" else trainer
        features = features or ("age,workclass,education_num,marital_status,occupation,"
                                "relationship,race,capital_gain,capital_loss,hours_per_week")
    tr = make_trainer(trainer, text_column=text_column,
                      columns=_csv_list(features, "features"), model_path=model_path)
    frames = {"data": df} if test_df is None else {"data": df, "test_data": test_df}
    check_trainer_columns(tr, frames)
    result = run_study(
        df, label=label, group=group, trainer=tr, sizes=_csv_list(sizes, "sizes", int),
        n_repeats=repeats, test_size=test_size,
        test_data=test_df,
        stratify=_csv_list(stratify, "stratify"),
        conditions=_conditions(condition, text_column),
        metrics=metric or PAPER_METRICS, comparison=comparison, reference=reference,
        method=method, confidence_level=confidence, seed=seed, n_jobs=jobs, backend=backend,
        store=store, progress=progress, max_runs=max_runs, min_per_group=min_per_group,
    )
    typer.echo(f"{len(result.runs)} runs stored in {store}")
    if report is not None:
        path = result.write_report(report)
        typer.echo(f"report: {path}")


def summary_command(
    store: Annotated[Path, typer.Argument(help="Study folder.")],
    fmt: Annotated[str, typer.Option("--format", help="table | csv | json")] = "table",
    out: Annotated[Path | None, typer.Option(help="Also write the full summary CSV here.")]
    = None,
    min_per_group: Annotated[int | None, typer.Option(
        "--min-per-group", "--min-per-gender",
        help=_MIN_HELP + " Default: the study's own.")] = None,
) -> None:
    """Mean, SD, sign shares and single-run interval checks of each gap per size."""
    from fairbound.stability.study import load_study

    check_choice(fmt, ("table", "csv", "json"), "format")
    if out is not None and out.is_dir():
        raise FairboundError(f"out: {str(out)!r} is a folder; give a file name such as "
                             "summary.csv", param="out")
    from fairbound._io import input_files

    inputs = input_files(store)
    if out is not None:
        check_output_file("out", out, inputs=inputs)
    from fairbound.stability.summary import check_min_per_group

    check_min_per_group(min_per_group, "min_per_group")
    res = load_study(store)
    s = res.summary(min_per_group=min_per_group)
    if out is not None:
        from fairbound._io import csv_text, write_all_atomic

        write_all_atomic([("out", out, csv_text(s).encode("utf-8"))], inputs=inputs)
    if fmt == "csv":
        echo_csv(s)
        return
    if fmt == "json":
        typer.echo(s.to_json(orient="records", indent=2))
        return
    from rich.table import Table

    from fairbound._render import console, plain

    table = Table(header_style="bold")
    cols = [("condition", "condition"), ("size", "size"), ("metric", "metric"),
            ("class", "class"), ("A - B", None), ("runs", "n_runs"), ("mean", "mean"),
            ("sd", "sd"), ("share > 0", "share_positive"), ("n_A", "mean_n_a"),
            ("n_B", "mean_n_b"), ("CI covers mean", "ci_covers_mean"),
            ("opposite verdict", "opposite_verdict")]
    for title, _ in cols:
        table.add_column(title)
    hidden = {"mean", "sd", "share_positive", "ci_covers_mean", "opposite_verdict"}
    for _, r in s.iterrows():
        cells = []
        for _title, c in cols:
            if c is None:
                cells.append(plain(f"{r['group_a']} - {r['group_b']}"))
                continue
            if c in hidden and bool(r.get("filtered", False)):
                cells.append("filtered")  # the reason is in the CSV / JSON output
                continue
            v = r[c]
            cells.append(f"{v:.3f}" if isinstance(v, float) and c not in ("mean_n_a",
                                                                           "mean_n_b")
                         else (f"{v:,.0f}" if isinstance(v, float) else plain(v)))
        table.add_row(*cells)
    import sys

    con = console(width=None if sys.stdout.isatty() else 200)
    con.print(table)
    if "filtered" in s.columns and s["filtered"].astype(bool).any():
        f = s[s["filtered"].astype(bool)]
        con.print(plain(f"{len(f)} of {len(s)} cells filtered; e.g. {f['metric'].iloc[0]} "
                        f"class {f['class'].iloc[0]} at size {f['size'].iloc[0]:,}: "
                        f"{f['filter_reason'].iloc[0]} (--format csv lists every reason)"))


def report_command(
    store: Annotated[Path, typer.Argument(help="Study folder.")],
    out: Annotated[Path | None, typer.Option(
        help="Folder for report.md, CSV tables and figures.")] = None,
    html: Annotated[Path | None, typer.Option(
        help="Also (or only) write one self-contained HTML page here.")] = None,
    formats: Annotated[str, typer.Option(
        "--format", help="Figure formats: png,svg,pdf or none.")] = "png,svg",
    correction: Annotated[str, typer.Option(
        "--error-control",
        help="family (Holm) | fdr (Benjamini-Hochberg) | none; or the correction by name: "
             "holm | bonferroni | bh")] = "holm",
    min_per_group: Annotated[int | None, typer.Option(
        "--min-per-group", "--min-per-gender",
        help=_MIN_HELP + " Default: the study's own.")] = None,
) -> None:
    """Write CSV tables, figures and report.md (--out) and/or an HTML page (--html)."""
    from fairbound.stability.study import load_study

    if out is None and html is None:
        raise FairboundError("report: give --out FOLDER and/or --html FILE.html", param="out")
    # every option is checked before anything is written
    fm = [] if formats == "none" else list(check_choices(
        _csv_list(formats, "format"), ("png", "svg", "pdf"), "format", allow_empty=True))
    from fairbound.stability.summary import CORRECTIONS

    # the words of every command's --error-control, or the correction by name
    correction = check_choice(correction, CORRECTIONS, "error_control",
                              aliases={"family": "holm", "fdr": "bh"},
                              note="or family, read as holm, or fdr, read as bh")
    if out is not None and out.exists() and not out.is_dir():
        raise FairboundError(f"out: {str(out)!r} is a file; give a folder for the report",
                             param="out")
    if html is not None and html.is_dir():
        raise FairboundError(f"html: {str(html)!r} is a folder; give a file name such as "
                             "report.html", param="html")
    if html is not None:
        from fairbound._io import input_files

        check_output_file("html", html, inputs=input_files(store))
    from fairbound.stability.summary import check_min_per_group

    check_min_per_group(min_per_group, "min_per_group")
    result = load_study(store)
    if out is not None:
        path = result.write_report(out, formats=fm, correction=correction,
                                   min_per_group=min_per_group)
        typer.echo(f"report: {path}")
    if html is not None:
        from fairbound.report import write_stability_report

        path = write_stability_report(result, html, correction=correction,
                                      figures=formats != "none",
                                      min_per_group=min_per_group)
        typer.echo(f"html: {path}")


def debias_command(
    source: Annotated[Path, typer.Argument(help="CSV, Parquet or JSON-lines file.")],
    dest: Annotated[Path, typer.Argument(help="Output file (same formats).")],
    column: Annotated[str, typer.Option(help="Text column to rewrite.")] = "text",
    variant: Annotated[str, typer.Option(help="female | male")] = "female",
    name: Annotated[str, typer.Option(help="Neutral first name.")] = "Camille",
    nouns: Annotated[bool, typer.Option(
        "--nouns", help="Also rewrite gendered nouns (husband -> wife, son -> daughter, ...); "
                        "the paper rewrites pronouns, mr/mrs/ms/miss and first names only.")]
    = False,
) -> None:
    """Rewrite gender indicators of a text column (all-female or all-male)."""
    from fairbound._io import input_files, table_bytes, write_all_atomic
    from fairbound.stability.study import TextDebias

    suffix = dest.suffix.lower()
    if suffix not in (".csv", ".parquet", ".jsonl"):
        raise FairboundError(f"dest must end in .csv, .parquet or .jsonl; got {str(dest)!r}",
                             param="dest")
    if dest.is_dir():
        raise FairboundError(f"dest: {str(dest)!r} is a folder; give a file name", param="dest")
    inputs = input_files(str(source))
    check_output_file("dest", dest, inputs=inputs)
    df = read_table(str(source), "source")
    out = TextDebias(column, variant, name, nouns=nouns)(df)
    # whole or not at all, never over the source
    write_all_atomic([("dest", dest, table_bytes(out, dest))], inputs=inputs)
    typer.echo(f"{len(out):,} rows written to {dest}")


def register(app: typer.Typer) -> None:
    """Add the ``stability`` sub-app to the ``fairbound`` command line."""
    add_sub_app(app, "stability",
                "Stability studies: many models on stratified resamples; is the gap reliable?",
                run=run_command, summary=summary_command, report=report_command,
                debias=debias_command)
