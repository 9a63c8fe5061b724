"""Small I/O helpers: files are written whole or not at all, and never over an input.

Every file fairbound writes goes through :func:`write_all_atomic` (or its one-file forms
:func:`write_bytes_atomic` and :func:`write_text_atomic`):

* a regular file (new, or replacing one) is written to a temporary file beside it and
  renamed into place, so a reader sees the old file or the whole new one;
* a symbolic link is followed to the file it names, which is replaced (the link stays a
  link);
* a named pipe (FIFO) or a character device (``/dev/stdout``, a terminal) is written to
  directly: there is nothing to rename over, and renaming a file over a device would
  replace the device; ``-`` is standard output;
* a folder, a socket or a block device is refused with a one-line error;
* a path that is the same file as one of the command's inputs (the same path, a hard link
  or a symbolic link to it; see :func:`input_files`) is refused before anything is
  written, as is one file named by two outputs.

Every CSV that fairbound writes is made safe to open in a spreadsheet by :func:`csv_text`,
and every fairbound reader of a CSV undoes that escape (:func:`unescape_cell`).
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from fairbound.errors import FairboundError

#: The output path that means standard output.
STDOUT = "-"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ----------------------------------------------------------------------------- inputs


def _has_glob(path: str) -> bool:
    return any(ch in path for ch in "*?[")


def input_files(*data) -> tuple[str, ...]:
    r"""Every existing file that the data arguments ``data`` name, for :func:`check_output`.

    A path names itself; a glob, every file it matches; a DuckDB table
    ``'file.duckdb::table'``, the database file; a folder, every file below it; a list or
    tuple, each of its items.  Anything else (a DataFrame, ``None``) names no file, and a
    path that does not exist is left out (the reader reports it).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("a.csv", "b.csv"):
    ...     _ = (d / name).write_text("g,y\n")
    >>> [pathlib.Path(p).name for p in input_files(str(d / "*.csv"), None)]
    ['a.csv', 'b.csv']
    """
    import glob

    out: list[str] = []
    for item in data:
        if isinstance(item, list | tuple):
            out += input_files(*item)
            continue
        if not isinstance(item, str | os.PathLike):
            continue
        text = os.fspath(item)
        if isinstance(item, str) and "::" in text:
            text = text.split("::")[0]
        if not text or text == STDOUT:
            continue
        if _has_glob(text) and not os.path.exists(text):
            out += sorted(glob.glob(text))
        elif os.path.isdir(text):
            out += sorted(str(p) for p in Path(text).rglob("*") if p.is_file())
        elif os.path.exists(text):
            out.append(text)
    return tuple(out)


def _identity(path) -> tuple[int, int] | None:
    """``(device, inode)`` of the file ``path`` names (links followed), or ``None``."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def check_output(param: str, path, inputs: Iterable = ()) -> None:
    r"""Refuse an output ``path`` that is the same file as one of ``inputs``.

    ``inputs`` are the command's input files (:func:`input_files`); the same file is the
    same path, a hard link or a symbolic link to it.

    Raises
    ------
    FairboundError
        ``"<param>: '<path>' is an input of this command (<input>); writing it would
        replace the data, so give another file name"``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> data = pathlib.Path(tempfile.mkdtemp()) / "in.csv"
    >>> _ = data.write_text("g,y\n")
    >>> check_output("--json", data, [str(data)])
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: --json: '...in.csv' is an input of this command; ...
    """
    if str(path) == STDOUT:
        return
    out = _identity(path)
    if out is None:
        return
    for inp in inputs:
        if _identity(inp) == out:
            same = "" if os.fspath(inp) == os.fspath(path) else f" ({os.fspath(inp)!r})"
            raise FairboundError(
                f"{param}: {os.fspath(path)!r} is an input of this command{same}; writing "
                "it would replace the data, so give another file name",
                param=param.lstrip("-"))


# ----------------------------------------------------------------------------- outputs


def _kind(path: Path) -> str:
    """``'stdout'``, ``'new'``, ``'file'``, ``'stream'`` (FIFO, character device), or an error."""
    if str(path) == STDOUT:
        return "stdout"
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "new"
    except OSError:  # a symbolic link loop, a component that is not a folder: the write says
        return "new"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return "stream"
    if stat.S_ISDIR(mode):
        return "folder"
    return "socket" if stat.S_ISSOCK(mode) else "special"


def _refuse_kind(param: str, path, kind: str) -> None:
    what = {"folder": "is a folder; give a file name",
            "socket": "is a socket; give a file name",
            "special": "is a block device or other special file; give a file name"}
    if kind in what:
        raise FairboundError(f"{param}: {os.fspath(path)!r} {what[kind]}",
                             param=param.lstrip("-"))


def check_target(param: str, path, inputs: Iterable = ()) -> str:
    """Check an output path before any work: what it is, and that it is no input.

    Returns its kind (``'stdout'``, ``'new'``, ``'file'`` or ``'stream'``); a folder, a
    socket, a block device and an input of the command are one-line errors naming
    ``param``.
    """
    kind = _kind(Path(path))
    _refuse_kind(param, path, kind)
    check_output(param, path, inputs)
    return kind


def _oserror(param: str, path, exc: OSError) -> FairboundError:
    return FairboundError(f"{param}: cannot write {os.fspath(path)!r}: {exc.strerror or exc}",
                          param=param.lstrip("-"))


def _write_stream(param: str, path, data: bytes, kind: str) -> None:
    try:
        if kind == "stdout":
            sys.stdout.flush()
            out = getattr(sys.stdout, "buffer", None)
            if out is None:  # a text stream (a test's capture)
                sys.stdout.write(data.decode("utf-8", errors="replace"))
                sys.stdout.flush()
            else:
                out.write(data)
                out.flush()
            return
        with open(path, "wb") as fh:  # a FIFO or a device: written in place, never renamed
            fh.write(data)
    except OSError as exc:
        raise _oserror(param, path, exc) from None


def write_all_atomic(outputs: Sequence[tuple[str, object, bytes]], *,
                     inputs: Iterable = ()) -> list[Path]:
    """Write several files all or none: ``(param, path, data)`` for each.

    Every regular file is first written to a temporary file beside its target (the target
    a symbolic link names); only when all of them are written are they renamed into place,
    so a failure (a folder where a file should go, an unwritable folder, a full disk)
    leaves every target as it was.  Named pipes, character devices and ``-`` (standard
    output) are written directly, after the temporary files and before the renames.  A
    path that is one of ``inputs`` (:func:`input_files`), or that two outputs share, is
    refused before anything is written.  Errors are one line naming the option and the
    path.

    Parameters
    ----------
    outputs : sequence of (str, path, bytes)
        The option that named each file, the file and its content.
    inputs : iterable of paths, optional
        The command's input files: never written over.

    Returns
    -------
    list of Path
        The paths as given, in order.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> [p.name for p in write_all_atomic([("--json", d / "a.json", b"{}"),
    ...                                    ("--html", d / "a.html", b"<p>")])]
    ['a.json', 'a.html']
    >>> write_all_atomic([("--json", d / "b.json", b"{}"), ("--html", d / "b.json", b"")])
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: --html: '...b.json' is also the --json output; give ...
    """
    import tempfile

    inputs = tuple(inputs)
    plan: list[tuple[str, Path, bytes, str, Path]] = []
    seen: dict[object, str] = {}
    for param, path, data in outputs:
        path = Path(path) if str(path) != STDOUT else path
        kind = check_target(param, path, inputs)
        real = path if kind == "stdout" else Path(os.path.realpath(path))
        key = STDOUT if kind == "stdout" else (_identity(real) or str(real))
        if key in seen and kind != "stdout":
            raise FairboundError(f"{param}: {os.fspath(path)!r} is also the {seen[key]} "
                                 "output; give each output its own file",
                                 param=param.lstrip("-"))
        seen[key] = param
        plan.append((param, path, data, kind, real))
    staged: list[tuple[str, Path, str]] = []
    try:
        for param, path, data, kind, real in plan:
            if kind not in ("new", "file"):
                continue
            try:
                real.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.",
                                           suffix=".tmp")
                staged.append((param, real, tmp))
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.chmod(tmp, 0o666 & ~_umask())
            except OSError as exc:
                raise _oserror(param, path, exc) from None
        for param, _path, data, kind, real in plan:
            if kind in ("stream", "stdout"):
                _write_stream(param, real, data, kind)
        for param, real, tmp in staged:
            try:
                os.replace(tmp, real)
            except OSError as exc:
                raise _oserror(param, real, exc) from None
        return [p for _, p, _, _, _ in plan]
    finally:
        for _, _, tmp in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)


def write_bytes_atomic(path, data: bytes, *, param: str = "path",
                       inputs: Iterable = ()) -> Path:
    """Write ``data`` to ``path`` whole or not at all (see :func:`write_all_atomic`)."""
    return write_all_atomic([(param, path, data)], inputs=inputs)[0]


def write_text_atomic(path, text: str, *, param: str = "path",
                      inputs: Iterable = ()) -> Path:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all (see :func:`write_all_atomic`)."""
    return write_bytes_atomic(path, text.encode("utf-8"), param=param, inputs=inputs)


def json_text(data, path=None, *, indent: int = 2) -> str:
    """``data`` as JSON text (other objects as ``str``); also written to ``path`` when given.

    What every result's ``to_json(path=None, indent=2)`` does with its ``to_dict()``.

    Examples
    --------
    >>> json_text({"a": 1}, indent=None)
    '{"a": 1}'
    """
    import json

    text = json.dumps(data, indent=indent, default=str)
    if path is not None:
        write_text_atomic(path, text)
    return text


# ----------------------------------------------------------------------------- CSV

#: First characters that make a spreadsheet read a cell as a formula (OWASP's list:
#: "CSV Injection", https://owasp.org/www-community/attacks/CSV_Injection).
FORMULA_START = "=+-@\t\r"
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
#: The same rule as SQL over a text column ``{c}`` (DuckDB's RE2 syntax), for readers.
SQL_UNESCAPE = (
    "CASE WHEN starts_with({c}, '''') AND regexp_matches(ltrim({c}, ''''), '^[=+\\-@\\t\\r]') "
    "AND NOT regexp_full_match(ltrim({c}, ''''), "
    "'[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?') THEN substr({c}, 2) ELSE {c} END")


def _formula_like(text: str) -> bool:
    """Whether ``text``, once any leading apostrophes are set aside, reads as a formula."""
    bare = text.lstrip("'")
    return bool(bare) and bare[0] in FORMULA_START and _NUMBER.fullmatch(bare) is None


def escape_cell(value):
    """A text cell that a spreadsheet would run as a formula, with a leading apostrophe.

    Text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets an
    apostrophe in front (what spreadsheets show as text); so does text that already starts
    with apostrophes before such a character, so that :func:`unescape_cell` gives back
    exactly what was escaped.  Numbers, and text that is a plain number (``"-0.5"``), are
    left as they are.

    Examples
    --------
    >>> [escape_cell(v) for v in ("=1+1", "-0.5", -0.5, "@user", "'=x", "a=b")]
    ["'=1+1", '-0.5', -0.5, "'@user", "''=x", 'a=b']
    >>> all(unescape_cell(escape_cell(v)) == v for v in ("=1+1", "'=x", "''-y", "'a"))
    True
    """
    if isinstance(value, str) and _formula_like(value):
        return "'" + value
    return value


def unescape_cell(value):
    """Undo :func:`escape_cell` (other values are returned as they are)."""
    if isinstance(value, str) and value[:1] == "'" and _formula_like(value[1:]):
        return value[1:]
    return value


def _map_text(frame, fn):
    """``frame`` with ``fn`` applied to its column names and every text cell."""
    import pandas as pd

    out = frame.copy()
    for i in range(out.shape[1]):
        col = out.iloc[:, i]
        if isinstance(col.dtype, pd.CategoricalDtype):
            col = col.astype(object)
        if col.dtype == object or pd.api.types.is_string_dtype(col.dtype):
            out.isetitem(i, col.map(fn))
    out.columns = [fn(c) for c in out.columns]
    return out


def csv_text(frame, *, index: bool = False) -> str:
    """``frame`` as CSV text that is safe to open in a spreadsheet.

    The one CSV writer of fairbound: every text cell and column name goes through
    :func:`escape_cell`; numbers are written as pandas writes them.  Readers of
    fairbound's own CSVs undo the escape (:func:`unescape_frame`, and
    :data:`SQL_UNESCAPE` in the DuckDB engine), so a round trip gives the same values.

    Examples
    --------
    >>> import pandas as pd
    >>> print(csv_text(pd.DataFrame({"g": ["=HYPERLINK(1)", "b"], "gap": [-0.5, 0.25]})),
    ...       end="")
    g,gap
    '=HYPERLINK(1),-0.5
    b,0.25
    """
    return _map_text(frame, escape_cell).to_csv(index=index)


def table_bytes(frame, path) -> bytes:
    """``frame`` as the bytes of a table file, by ``path``'s suffix.

    ``.parquet`` is Parquet, ``.jsonl`` JSON lines, anything else (``.csv``, ``-``, a
    named pipe) CSV through :func:`csv_text`.
    """
    import io

    suffix = Path(os.fspath(path)).suffix.lower()
    if suffix == ".parquet":
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        return buf.getvalue()
    if suffix == ".jsonl":
        return frame.to_json(orient="records", lines=True).encode("utf-8")
    return csv_text(frame).encode("utf-8")


def unescape_frame(frame):
    """A frame read from a CSV with :func:`csv_text`'s escape undone (names and text cells)."""
    return _map_text(frame, unescape_cell)


# ----------------------------------------------------------------------------- terminals

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def escape_controls(text: str) -> str:
    r"""``text`` with control characters shown as escapes, for a terminal.

    Every C0 control but tab and newline, DEL and every C1 control become ``\xNN``, so a
    group name cannot set a terminal's title, move its cursor or hide a line.

    Examples
    --------
    >>> escape_controls("a\x1b]0;TITLE\x07b\tc")
    'a\\x1b]0;TITLE\\x07b\tc'
    """
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)
