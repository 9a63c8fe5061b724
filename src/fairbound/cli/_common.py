"""What the command modules share: comma-separated lists, output files, machine output."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairbound import _words as W
from fairbound.errors import FairboundError

#: How the tables colour each verdict of a gap audit.
VERDICT_STYLE = {
    W.A_DISADVANTAGED: "bold red", W.B_DISADVANTAGED: "bold red", W.UNEQUAL: "bold red",
    W.NO_EVIDENCE: "yellow", W.NOT_ESTIMABLE: "dim", W.NO_GAP: "green",
}

# The options several commands declare alike: one declaration each, the same words everywhere.
DataArg = Annotated[str, typer.Argument(help="CSV, Parquet or JSON-lines file (or glob).")]
GroupOpt = Annotated[list[str], typer.Option(
    "--group", "-g", help="Protected-attribute column (repeat for intersections).")]
ComparisonOpt = Annotated[str, typer.Option(
    help="pairwise | vs-rest | vs-reference (the largest group unless --reference names one)")]
ReferenceOpt = Annotated[str | None, typer.Option(
    help="Reference group (B side; implies vs-reference).")]
ConfidenceOpt = Annotated[float, typer.Option(
    "--confidence-level", "--confidence", help="Confidence level in (0, 1).")]
WhereOpt = Annotated[str | None, typer.Option(
    help="SQL condition selecting rows, e.g. \"split = 'test'\" (checked).")]
EngineOpt = Annotated[str, typer.Option(help="auto | duckdb | spark")]
FormatOpt = Annotated[str, typer.Option("--format", help="table | json | csv")]
JsonOut = Annotated[Path | None, typer.Option("--json", help="Also write JSON here.")]
HtmlOut = Annotated[Path | None, typer.Option(
    "--html", help="Also write a self-contained HTML report here.")]
MetricsOpt = Annotated[list[str] | None, typer.Option(
    "--metric", "-m", help="Metric (repeatable).")]
ErrorControlOpt = Annotated[str, typer.Option(
    "--error-control", help="family (every verdict holds jointly) | fdr | none")]
FavourableOpt = Annotated[str, typer.Option(
    "--favourable", help="positive (the positive prediction is favourable) | negative "
    "(it harms)")]
PosLabelOpt = Annotated[str | None, typer.Option(
    "--pos-label", help="Positive class as the label column holds it.")]


def add_sub_app(app: typer.Typer, name: str, help: str, **commands) -> typer.Typer:
    """Add the command group ``name`` to ``app``, with ``commands`` (name -> function)."""
    sub = typer.Typer(rich_markup_mode=None, help=help, no_args_is_help=True)
    for command, function in commands.items():
        sub.command(command)(function)
    app.add_typer(sub, name=name)
    return sub


def split_list(text: str | None, param: str, kind=str) -> tuple | None:
    """``text`` split at commas into ``kind`` values (``None`` stays ``None``), or an error."""
    if text is None:
        return None
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts:
        raise FairboundError(f"{param} must be a comma-separated list; got {text!r}",
                             param=param)
    out = []
    for p in parts:
        try:
            out.append(kind(p))
        except ValueError:
            raise FairboundError(f"{param} must be a comma-separated list of "
                                 f"{kind.__name__} values; got {p!r}", param=param) from None
    return tuple(out)


def check_output_file(option: str, path, suffixes: tuple[str, ...] | None = None,
                      hint: str = "", *, inputs=()) -> Path:
    """Check an output file before any work is done; return it as a ``Path``.

    A folder, a socket or block device, a file among ``inputs`` (the command's input
    files, :func:`fairbound._io.input_files`: the same path, a hard link or a symbolic link
    to one), a suffix outside ``suffixes`` (``hint`` says which to use) and a place that
    cannot hold a file (its nearest existing parent is a file, or is not writable) are
    one-line errors naming ``option``.  ``-`` (standard output), a named pipe and a
    character device take any content, whatever the suffix.  Nothing is created: the write
    itself, later, goes through :func:`fairbound._io.write_all_atomic`, which checks the
    inputs again and reports what this check cannot foresee (a full disk) the same way.

    Examples
    --------
    >>> check_output_file("--out", "x.xyz", (".txt",), "use .txt")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: --out: unsupported file type '.xyz' (use .txt)
    """
    import os

    from fairbound._io import check_target

    p = Path(path)
    param = option.lstrip("-")
    kind = check_target(option, path, inputs)
    if kind in ("stdout", "stream"):
        return p
    if suffixes is not None and p.suffix.lower() not in suffixes:
        raise FairboundError(f"{option}: unsupported file type {p.suffix!r} ({hint})",
                             param=param)
    parent = p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if parent.exists() and not parent.is_dir():
        raise FairboundError(f"{option}: cannot write {str(p)!r}: {str(parent)!r} is a file, "
                             "not a folder", param=param)
    if parent.is_dir() and not os.access(parent, os.W_OK | os.X_OK):
        raise FairboundError(f"{option}: cannot write {str(p)!r}: no permission to write in "
                             f"{str(parent)!r}", param=param)
    return p


def check_outputs(data, *targets) -> tuple:
    """The input files of ``data``, once every output file asked for is checked.

    Each target is ``(option, path)`` or ``(option, path, suffixes, hint)``; a ``path``
    of ``None`` (not asked for) is skipped, the others go through
    :func:`check_output_file` with the inputs (:func:`fairbound._io.input_files`).

    Examples
    --------
    >>> check_outputs([], ("--json", None), ("--html", "r.txt", (".html",), "use .html"))
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: --html: unsupported file type '.txt' (use .html)
    """
    from fairbound._io import input_files

    inputs = input_files(data)
    for option, path, *rule in targets:
        if path is not None:
            check_output_file(option, path, *rule, inputs=inputs)
    return inputs


def echo_csv(table) -> None:
    r"""Print a table (a DataFrame, or CSV text already made safe) as CSV on standard output.

    A frame goes through :func:`fairbound._io.csv_text` (text cells a spreadsheet would run
    as formulas are escaped); on a terminal, control characters are shown as ``\xNN``
    escapes (:func:`fairbound._io.escape_controls`), so that no group name can drive it.
    """
    import sys

    import typer

    from fairbound._io import csv_text, escape_controls

    text = table if isinstance(table, str) else csv_text(table)
    if sys.stdout.isatty():
        text = escape_controls(text)
    typer.echo(text, nl=False)


def print_machine(result, fmt: str, csv: str | None = None) -> bool:
    """Echo ``result`` as JSON or CSV when ``fmt`` asks for it; return whether it did.

    JSON is ``result.to_json()``; CSV is ``csv`` when given (made by
    :func:`fairbound._io.csv_text`), else ``result.to_frame()`` through :func:`echo_csv`.
    A table (any other ``fmt``) is left to the caller.
    """
    import typer

    if fmt == "json":
        typer.echo(result.to_json())
        return True
    if fmt == "csv":
        echo_csv(csv if csv is not None else result.to_frame())
        return True
    return False


def table_heading(result, command: str):
    """Start a result's table: its first line printed; returns the console and ``to_dict()``.

    The line is ``fairbound <command> of <source>  (engine: <engine>)``, the source shown
    as text (:func:`fairbound._render.plain`).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> r = SimpleNamespace(to_dict=lambda: {"source": "[b]x.csv", "engine": "duckdb"})
    >>> con, d = table_heading(r, "ppi")
    fairbound ppi of [b]x.csv  (engine: duckdb)
    """
    from fairbound._render import console, plain

    con = console()
    d = result.to_dict()
    con.print(f"[bold]fairbound {command}[/] of {plain(d['source'])}  (engine: {d['engine']})")
    return con, d


def interval_text(lo, hi, missing: str = "-") -> str:
    """An interval as a table cell, ``[lo, hi]``; ``missing`` when either end is NaN.

    >>> interval_text(0.1234, 0.5), interval_text(float("nan"), 1.0, "not estimable")
    ('[0.123, 0.500]', 'not estimable')
    """
    from fairbound._render import fmt_num

    if lo != lo or hi != hi:   # NaN: the row's note says why
        return missing
    return f"[{fmt_num(lo)}, {fmt_num(hi)}]"


def excluded_text(excluded: dict) -> str:
    """``{"missing group": 3}`` as ``"3 missing group"`` (``"none"`` when empty)."""
    return ", ".join(f"{v:,} {k}" for k, v in excluded.items()) or "none"


def write_outputs(inputs, *targets) -> None:
    """Render the output files asked for, then write them all or none.

    Each target is ``(option, path, render)``: where ``path`` is not ``None``,
    ``render()`` makes its text, and :func:`fairbound._io.write_all_atomic` writes every
    one (refusing any that names one of ``inputs``) once all are rendered.

    Examples
    --------
    >>> write_outputs((), ("--json", None, lambda: "{}"))   # nothing asked for: no file
    """
    outputs = [(option, path, render().encode("utf-8"))
               for option, path, render in targets if path is not None]
    if outputs:
        from fairbound._io import write_all_atomic

        write_all_atomic(outputs, inputs=inputs)
