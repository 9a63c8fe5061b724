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
                      hint: str = "") -> Path:
    """Check an output file before any work is done; return it as a ``Path``.

    A folder, a suffix outside ``suffixes`` (``hint`` says which to use) and a place that
    cannot hold a file (its nearest existing parent is a file, or is not writable) are
    one-line errors naming ``option``.  Nothing is created: the write itself, later, goes
    through :func:`fairbound._io.write_all_atomic`, which reports what this check cannot
    foresee (a full disk) the same way.

    Examples
    --------
    >>> check_output_file("--output", "x.xyz", (".txt",), "use .txt")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: --output: unsupported file type '.xyz' (use .txt)
    """
    import os

    p = Path(path)
    param = option.lstrip("-")
    if p.is_dir():
        raise FairboundError(f"{option}: {str(p)!r} is a folder; give a file name", param=param)
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


def print_machine(result, fmt: str, csv_text: str | None = None) -> bool:
    """Echo ``result`` as JSON or CSV when ``fmt`` asks for it; return whether it did.

    JSON is ``result.to_json()``; CSV is ``csv_text`` when given, else
    ``result.to_frame()`` as CSV.  A table (any other ``fmt``) is left to the caller.
    """
    import typer

    if fmt == "json":
        typer.echo(result.to_json())
        return True
    if fmt == "csv":
        text = csv_text if csv_text is not None else result.to_frame().to_csv(index=False)
        typer.echo(text, nl=False)
        return True
    return False


def excluded_text(excluded: dict) -> str:
    """``{"missing group": 3}`` as ``"3 missing group"`` (``"none"`` when empty)."""
    return ", ".join(f"{v:,} {k}" for k, v in excluded.items()) or "none"
