"""What the command modules share: comma-separated lists, output files, machine output."""

from __future__ import annotations

from pathlib import Path

from fairbound.errors import FairboundError


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
    >>> check_output_file("--output", "x.xyz", (".txt",), "use .txt")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: --output: unsupported file type '.xyz' (use .txt)
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


def excluded_text(excluded: dict) -> str:
    """``{"missing group": 3}`` as ``"3 missing group"`` (``"none"`` when empty)."""
    return ", ".join(f"{v:,} {k}" for k, v in excluded.items()) or "none"
