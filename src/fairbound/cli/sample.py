"""``fairbound sample``: the CLI of :func:`fairbound.audits.ppi.sampling.sample_for_annotation`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairbound._render import console, fmt_int, fmt_num, plain
from fairbound.cli._common import GroupOpt

_TABLES = (".csv", ".parquet")


def sample_command(
    data: Annotated[str, typer.Argument(help="CSV, Parquet or JSON-lines file: every row of "
                                             "the audit.")],
    group: GroupOpt,
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="Write every row here (.csv or .parquet) with the draw recorded "
                            "in fairbound_probability and fairbound_batch: the table to add "
                            "the gold labels to.")],
    budget: Annotated[float | None, typer.Option(
        help="Rows to draw (in expectation); required unless --merge.")] = None,
    proxy_score: Annotated[str | None, typer.Option(
        "--proxy", help="The proxy's probability of the positive class, in [0, 1]; "
                              "rows it is unsure about are drawn more often.")] = None,
    label: Annotated[str | None, typer.Option(
        "--label", "-y", help="Gold label column: labeled rows are not drawn, and rows "
                              "drawn earlier must be labeled.")] = None,
    batch: Annotated[int | None, typer.Option(
        help="Batch number (default: the next one).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the draw (with the batch).")] = 0,
    allocation: Annotated[str, typer.Option(
        help="neyman | proportional | equal: how the budget is split between groups.")
    ] = "neyman",
    mix: Annotated[float, typer.Option(
        help="Share of uniform sampling within a group, in (0, 1] (bounds the weights).")
    ] = 0.2,
    annotate: Annotated[Path | None, typer.Option(
        "--annotate", help="Also write only the rows drawn now (.csv or .parquet), for the "
                           "annotators.")] = None,
    merge: Annotated[Path | None, typer.Option(
        "--merge", help="Instead of drawing: fill --label in DATA from this annotated file "
                        "(rows joined on fairbound_row) and write the result to --out.")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="table | json")] = "table",
) -> None:
    """Choose the rows to annotate next (group-stratified, from the proxy's uncertainty).

    With --merge, join the annotators' labels back into the design instead (on the
    fairbound_row key every drawn row carries).
    """
    from fairbound._io import input_files, table_bytes, write_all_atomic
    from fairbound._validate import check_choice
    from fairbound.audits.ppi.sampling import sample_for_annotation
    from fairbound.cli._common import check_output_file

    fmt = check_choice(fmt, ("table", "json"), "format", fold=True)
    # --out may be the data file itself (the documented in-place workflow: the design grows
    # batch by batch); --annotate never is, nor the --out file
    inputs = input_files(data)
    out = check_output_file("--out", out, _TABLES, "use .csv or .parquet")
    if merge is not None:
        _merge(data, merge, label, out, annotate)
        return
    if budget is None:
        from fairbound.errors import FairboundError

        raise FairboundError("budget: give --budget (rows to draw), or --merge to join "
                             "annotated labels back", param="budget")
    if annotate is not None:
        annotate = check_output_file("--annotate", annotate, _TABLES, "use .csv or .parquet",
                                     inputs=inputs)
    s = sample_for_annotation(data, group=group, budget=budget, proxy_score=proxy_score,
                              label=label, batch=batch, seed=seed, allocation=allocation,
                              mix=mix)
    outputs = [("--out", out, table_bytes(s.data, out))]
    if annotate is not None:
        outputs.append(("--annotate", annotate, table_bytes(s.selected, annotate)))
    write_all_atomic(outputs)  # also refuses --annotate naming the --out file
    if fmt == "json":
        import json

        typer.echo(json.dumps(s.to_dict(), indent=2, default=str))
        return
    from rich.table import Table

    t = Table(title=f"batch {s.batch}: {fmt_int(len(s.selected))} rows drawn (budget "
                    f"{fmt_num(s.budget, 1)}, {s.allocation}, mix {s.mix:g}, seed {s.seed})")
    for col in ("group", "rows", "labeled before", "candidates", "budget", "drawn",
                "probability"):
        t.add_column(col, justify="left" if col == "group" else "right")
    for g in s.groups:
        name = plain(" & ".join(map(str, g.group)) if isinstance(g.group, tuple)
                     else g.group)
        prob = ("-" if g.candidates == 0 else
                f"{fmt_num(g.min_probability, 3)} - {fmt_num(g.max_probability, 3)}")
        t.add_row(name, fmt_int(g.rows), fmt_int(g.labeled), fmt_int(g.candidates),
                  fmt_num(g.budget, 1), fmt_int(g.drawn), prob)
    con = console()
    con.print(t)
    for note in s.notes:
        con.print(f"[yellow]note:[/] {plain(note)}")
    label_col = label or "<gold label column>"
    sent = annotate.name if annotate is not None else f"the rows with {s.batch_column} = " \
        f"{s.batch} of {out.name}"
    con.print(plain(
        f"Wrote {out}" + (f" and {annotate}" if annotate is not None else "") +
        f". Annotators fill {label_col} in {sent} (every row; keep its "
        f"fairbound_row key), then join the labels back with\n  fairbound sample "
        f"{out.name} --group {' --group '.join(group)} --merge <annotated file> --label "
        f"{label_col} --out {out.name}\nand audit with\n  fairbound ppi {out.name} --group "
        f"{' --group '.join(group)} --label {label_col} --proxy <proxy label> --prediction "
        f"<prediction> --sampling-probability {s.probability_column} --batch "
        f"{s.batch_column} --looks <batches you plan>\nand draw the next batch only if a gap "
        "is still open."), soft_wrap=True)


def _merge(data, merge: Path, label, out: Path, annotate) -> None:
    """``--merge``: the annotators' labels joined back into the design, written to --out."""
    from fairbound._io import input_files, table_bytes, write_all_atomic
    from fairbound.audits.ppi.sampling import ROW_COLUMN, merge_annotations
    from fairbound.cli._common import check_output_file
    from fairbound.errors import FairboundError

    if label is None:
        raise FairboundError("label: --merge needs --label, the column the annotators "
                             "filled", param="label")
    if annotate is not None:
        raise FairboundError("annotate: --annotate draws rows; it does not apply with "
                             "--merge", param="annotate")
    read = input_files(str(merge))
    check_output_file("--out", out, _TABLES, "use .csv or .parquet", inputs=read)
    merged = merge_annotations(data, str(merge), label=label)
    write_all_atomic([("--out", out, table_bytes(merged, out))], inputs=read)
    n = int(merged[label].notna().sum())
    console().print(plain(f"Wrote {out}: {n:,} row(s) with a {label} label, joined on "
                          f"{ROW_COLUMN} from {merge.name}."))


def register(app: typer.Typer) -> None:
    """Add ``sample`` to the CLI."""
    app.command("sample")(sample_command)
