"""DuckDB engine: files, globs, DuckDB databases and in-memory frames.

Files (CSV, Parquet, JSON lines, globs or lists of them) are scanned by DuckDB in a
streaming, parallel pass with projection pushdown: only the columns the audit reads are
decoded.  In-memory data is scanned in place: pandas frames (categoricals included),
pyarrow tables and datasets, polars frames (only the columns the audit reads are handed
over; a lazy frame is collected with just those columns), dicts of numpy arrays and
structured arrays (wrapped as Arrow without copying numeric columns).  Either way one
``GROUP BY`` runs and only the small per-group table comes back to Python.
"""

from __future__ import annotations

import os
import re
import threading
import time
from contextlib import contextmanager

import numpy as np

from fairbound.engines.assemble import (
    ResultColumns,
    assemble,
    check_groups,
    collected_size,
    group_key,
    hashed_threshold,
    sample_from_hashed,
    sample_from_values,
    sort_key,
)
from fairbound.engines.base import Aggregates, AggregateSpec
from fairbound.engines.sql import (
    Plan,
    cost_values_query,
    hashed_sample_query,
    make_plan,
    quote,
    stats_query,
)
from fairbound.errors import FairboundError

_PARQUET = (".parquet", ".pq", ".parq")
_CSV = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz")
_JSON = (".json", ".jsonl", ".ndjson", ".json.gz", ".jsonl.gz")
_DATABASE = (".duckdb", ".ddb", ".db")
#: Environment variable that lets an audited database's views read files (off by default).
ALLOW_EXTERNAL_ACCESS = "FAIRBOUND_ALLOW_EXTERNAL_ACCESS"
_NESTED = re.compile(r"(\[|STRUCT|MAP|UNION|BLOB|BIT\b|VARIANT|GEOMETRY)", re.IGNORECASE)
_NUMERIC = re.compile(
    r"^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|"
    r"UHUGEINT|FLOAT|DOUBLE|DECIMAL.*|BOOLEAN|\"?NULL\"?)$", re.IGNORECASE)  # NULL: all missing


def _file_kind(path: str) -> str:
    low = path.lower()
    for kind, suffixes in (("parquet", _PARQUET), ("csv", _CSV), ("json", _JSON),
                           ("database", _DATABASE)):
        if low.endswith(suffixes):
            return kind
    raise FairboundError(
        f"data: cannot tell the format of {path!r}; use a .csv, .tsv, .parquet, .jsonl or "
        ".duckdb file (a database table as 'file.duckdb::table')",
        param="data",
    )


def _first_line(exc: Exception) -> str:
    text = [t for t in str(exc).strip().splitlines() if t.strip()]
    return " ".join(text[0].split()) if text else type(exc).__name__


@contextmanager
def scan_errors(description: str | None = None, *, opening: bool = False):
    """DuckDB's errors in a ``with`` block as one-line errors naming ``data``.

    A permission error (an audited database's views read files, which is off) names the
    setting that allows it.  Unless ``opening`` (where the caller's own checks speak), any
    other DuckDB error is a bad line after the rows the sniffer read, or a failed
    aggregation of ``description`` (``None``: "the data").
    """
    import duckdb

    try:
        yield
    except duckdb.PermissionException as exc:
        raise FairboundError(
            f"data: the database's views read files, which is off for audited databases "
            f"({_first_line(exc)}); set {ALLOW_EXTERNAL_ACCESS}=1 if you trust it",
            param="data") from None
    except duckdb.Error as exc:
        if opening:
            raise
        problem = csv_error_message(str(exc), description)
        if problem is not None:
            raise FairboundError(problem, param="data") from None
        what = "the data" if description is None else description
        raise FairboundError(f"data: cannot aggregate {what}: {_first_line(exc)}",
                             param="data") from None


def _has_glob(path: str) -> bool:
    return any(ch in path for ch in "*?[")


# ----------------------------------------------------------------------------- CSV shape

_CSV_LINE = re.compile(r"CSV Error on Line: (\d+)")
_CSV_COUNT = re.compile(r"Expected Number of Columns: (\d+) Found: (\d+)")
_CSV_CONVERT = re.compile(r'Error when converting column "(.*)"\. Could not convert string '
                          r'"(.*)" to \'(.*)\'')
_CSV_FILE = re.compile(r"^\s*file = (.*?)\s*$", re.MULTILINE)
_CSV_SEPARATORS = (",", ";", "\t", "|")
#: Lines a CSV is scanned for a ragged line when DuckDB's sniffer cannot make sense of it.
CSV_SCAN_LINES = 1_000_000


def csv_error_message(text: str, path: str | None = None) -> str | None:
    r"""A one-line ``data: line N of FILE ...`` message from a DuckDB CSV error, or ``None``.

    DuckDB reports a bad line found while scanning (after its sniffer has settled the
    dialect from the first rows) in a multi-line error; this keeps what the user needs:
    the line, the file and what is wrong with it.

    Examples
    --------
    >>> csv_error_message("Invalid Input Error: CSV Error on Line: 70001\n"
    ...     "Original Line: a,1,1,3\nExpected Number of Columns: 3 Found: 4\n"
    ...     "  file = preds.csv\n")
    'data: line 70001 of preds.csv has 4 fields, the header has 3'
    """
    line = _CSV_LINE.search(text)
    if line is None:
        return None
    found = _CSV_FILE.search(text)
    where = f"line {line.group(1)} of {found.group(1) if found else path or 'the file'}"
    count = _CSV_COUNT.search(text)
    if count is not None:
        return (f"data: {where} has {count.group(2)} fields, the header has "
                f"{count.group(1)}")
    conv = _CSV_CONVERT.search(text)
    if conv is not None:
        col, value, typ = conv.groups()
        return (f"data: {where}: column {col!r} holds {value!r}, but the rows before it "
                f"made it a {typ} column; fix the value (or make the column text)")
    if "unterminated quote" in text.lower():
        return f"data: {where} opens a quote that is never closed"
    detail = [t.strip() for t in text.splitlines()[1:] if t.strip()
              and not t.strip().startswith(("Original Line", "Possible", "*", "file ="))]
    return f"data: {where}: {detail[0]}" if detail else f"data: {where} cannot be read"


def _csv_separator(header: str) -> str | None:
    counts = {sep: header.count(sep) for sep in _CSV_SEPARATORS}
    best = max(counts, key=counts.get)
    return best if counts[best] else None


def find_ragged_line(path: str, *, separator: str | None = None,
                     max_lines: int | None = CSV_SCAN_LINES, shown: str | None = None,
                     param: str = "data") -> str | None:
    r"""The first line of a CSV file whose number of fields differs from the header's.

    A ragged or half-written line (a row cut off while the file was being written, an
    unquoted comma) defeats DuckDB's dialect sniffer, which then reports the file as one
    column or as ``column0 ... column7``; this cheap pass names the real cause.

    Parameters
    ----------
    path : str
        The file (``.gz`` files are read through gzip).
    separator : str, optional
        Field separator; by default the one of ``, ; TAB |`` the header uses most.
    max_lines : int or None
        Stop after this many lines (``None``: read the whole file).
    shown : str, optional
        How to name the file in the message (default ``path``).
    param : str
        The parameter the message starts with.

    Returns
    -------
    str or None
        ``"data: line 57 of x.csv has 9 fields, the header has 8"`` (1-based line numbers,
        the header being line 1), or ``None`` when every line read has the header's shape.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "x.csv"
    >>> _ = f.write_text("g,y,p\na,1,0\nb,1\n")
    >>> find_ragged_line(str(f), shown="x.csv")
    'data: line 3 of x.csv has 2 fields, the header has 3'
    """
    import csv
    import gzip

    shown = shown or path
    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", newline="", encoding="utf-8", errors="replace") as fh:
            if separator is None:
                first = fh.readline()
                separator = _csv_separator(first)
                if separator is None:
                    return None  # one column: nothing to be ragged against
                fh.seek(0)
            reader = csv.reader(fh, delimiter=separator)
            try:
                header = next(reader)
            except StopIteration:
                return None
            width = len(header)
            end = reader.line_num
            for row in reader:
                start, end = end + 1, reader.line_num
                if not row:
                    continue  # a blank line
                if len(row) != width:
                    if any("\n" in v or "\r" in v for v in row) and next(reader, None) is None:
                        return (f"{param}: line {start} of {shown} opens a quote that is "
                                "never closed")
                    return (f"{param}: line {start} of {shown} has {len(row)} "
                            f"field{'s' if len(row) != 1 else ''}, the header has {width}")
                if max_lines is not None and end >= max_lines:
                    break
    except (OSError, csv.Error, EOFError, UnicodeError):
        return None
    return None


def _csv_paths(paths: list[str]) -> list[str]:
    import glob

    out: list[str] = []
    for p in paths:
        out += sorted(glob.glob(p)) if _has_glob(p) else [p]
    return out


def _ragged_in(paths: list[str], separator: str | None) -> str | None:
    files = _csv_paths(paths)
    for f in files:
        shown = f if len(files) > 1 or _has_glob(paths[0]) else paths[0]
        problem = find_ragged_line(f, separator=separator, shown=shown)
        if problem is not None:
            return problem
    return None


def _unsniffed(columns: list[str]) -> bool:
    """Whether DuckDB's sniffer gave up: no header found, or one column named like a header."""
    if columns and all(re.fullmatch(r"column\d+", c) for c in columns):
        return True
    return len(columns) == 1 and any(sep in columns[0] for sep in _CSV_SEPARATORS)


def _read_csv(con, arg, paths: list[str], shown: str):
    """``read_csv`` that names a ragged or half-written line instead of a sniffer failure."""
    import duckdb

    tsv = ".tsv" in paths[0].lower()
    separator = "\t" if tsv else None
    try:
        rel = con.read_csv(arg, sep="\t") if tsv else con.read_csv(arg)
        rel.limit(1).fetchall()  # surface parse errors of the first rows now
    except duckdb.Error as exc:
        problem = csv_error_message(str(exc), shown) or _ragged_in(paths, separator)
        if problem is not None:
            raise FairboundError(problem, param="data") from None
        raise
    suspect = _unsniffed(list(rel.columns))
    if not suspect:
        # an unclosed quote makes the sniffer give up quoting: '"0' would become a value
        files = _csv_paths(paths)
        if files and _quote_in_head(files[0]):
            opts = ", sep = '\t'" if tsv else ""
            found = con.execute(f"SELECT Quote FROM sniff_csv(?{opts})", [files[0]]).fetchall()
            suspect = bool(found) and str(found[0][0]) in ("(empty)", "")
    if suspect:
        problem = _ragged_in(paths, separator)
        if problem is not None:
            raise FairboundError(problem, param="data")
    return _unescaped(rel)


def _unescaped(rel):
    """``rel`` with the spreadsheet escape of fairbound's CSV writer undone.

    fairbound writes a text cell that a spreadsheet would run as a formula with a leading
    apostrophe (:func:`fairbound._io.csv_text`); reading it back drops that apostrophe from
    the text columns and the column names (:data:`fairbound._io.SQL_UNESCAPE`), so the
    design file of ``fairbound sample`` audits with the group names it was drawn from.
    DuckDB computes the expression only for the columns a query reads.
    """
    from fairbound._io import SQL_UNESCAPE, unescape_cell

    columns = list(rel.columns)
    text = {c for c, t in zip(columns, rel.types, strict=True) if str(t).upper() == "VARCHAR"}
    names = [unescape_cell(c) for c in columns]
    if not text and names == columns:
        return rel
    terms = [(SQL_UNESCAPE.format(c=quote(c)) if c in text else quote(c)) + f" AS {quote(n)}"
             for c, n in zip(columns, names, strict=True)]
    return rel.project(", ".join(terms))


def _quote_in_head(path: str, size: int = 1 << 16) -> bool:
    import gzip

    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rb") as fh:
            return b'"' in fh.read(size)
    except (OSError, EOFError):
        return False


def _check_regular(path: str, what: str = "file") -> None:
    """One-line error for a path that is not a regular file DuckDB can read and seek.

    A named pipe (FIFO) reports a size of 0 and would block DuckDB until a writer came; a
    device or a socket is no data file either.
    """
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # the caller's checks (not found) speak
    if stat.S_ISFIFO(mode):
        raise FairboundError(f"data: {path!r} is a named pipe (FIFO), not a regular file; "
                             f"write the rows to a {what} first (DuckDB reads only files it "
                             "can seek; fairbound monitor reads a pipe as a stream)",
                             param="data")
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise FairboundError(f"data: {path!r} is not a regular file (a device or a socket); "
                             f"give a {what}", param="data")


_RENAMED = re.compile(r"(.+)_\d+")


def _header_names(path: str, kind: str) -> list[str] | None:
    """The column names in the header of a CSV or Parquet file, as written (``None``: unknown)."""
    import csv
    import gzip

    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            return [str(n) for n in pq.read_schema(path).names]
        if kind != "csv":
            return None
        opener = gzip.open if path.lower().endswith(".gz") else open
        with opener(path, "rt", newline="", encoding="utf-8-sig", errors="replace") as fh:
            first = fh.readline().rstrip("\r\n")
        sep = "\t" if ".tsv" in path.lower() else _csv_separator(first)
        if sep is None:
            return [first]
        return next(csv.reader([first], delimiter=sep), [])
    except (OSError, EOFError, ValueError, csv.Error):
        return None


def _duplicate_columns(columns, paths: list[str], kind: str) -> dict[str, tuple[str, ...]]:
    r"""The columns whose name a file's header holds more than once.

    DuckDB reads a header ``g,y,p,g`` as columns ``g, y, p, g_1`` (and ``G,g`` as ``G,
    g_1``: its names are case-insensitive), so an audit of ``g`` would silently read the
    first of the two.  Returns, for every column so involved, DuckDB's name mapped to the
    names the header gives it and its namesakes (``{"g": ("g", "g"), "g_1": ("g", "g")}``);
    empty when no column can have been renamed (the header is then not read again).

    Parameters
    ----------
    columns : iterable of str
        The columns DuckDB read (of the first file).
    paths : list of str
        The files or globs given.
    kind : str
        ``"csv"`` or ``"parquet"`` (other kinds have no header to repeat a name).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "x.csv"
    >>> _ = f.write_text("g,y,p,g\na,1,0,b\n")
    >>> _duplicate_columns(["g", "y", "p", "g_1"], [str(f)], "csv")
    {'g': ('g', 'g'), 'g_1': ('g', 'g')}
    """
    cols = [str(c) for c in columns]
    folded = {c.casefold() for c in cols}
    renamed = (_RENAMED.fullmatch(c) for c in cols)
    if kind not in ("csv", "parquet") or not any(
            m and m.group(1).casefold() in folded for m in renamed):
        return {}
    files = _csv_paths(paths)
    header = _header_names(files[0], kind) if files else None
    if header is None or len(header) != len(cols):
        return {}
    names = [h.strip() for h in header]
    alike: dict[str, list[str]] = {}
    for n in names:
        if n:
            alike.setdefault(n.casefold(), []).append(n)
    return {c: tuple(alike[n.casefold()]) for c, n in zip(cols, names, strict=True)
            if n and len(alike[n.casefold()]) > 1}


def _refuse_duplicates(dups: dict[str, tuple[str, ...]], reads, shown: str) -> None:
    """One-line error when a column read (DuckDB's name or the header's) is duplicated."""
    if not dups:
        return
    by_name = dict(dups)
    for same in dups.values():
        for n in same:
            by_name.setdefault(n, same)
    for col in reads:
        same = by_name.get(col)
        if same is None:
            continue
        distinct = list(dict.fromkeys(same))
        named = (repr(distinct[0]) if len(distinct) == 1 else
                 " and ".join(map(repr, distinct)) + " (names that differ only in case are "
                 "one name to DuckDB)")
        raise FairboundError(f"data: the file {shown!r} has {len(same)} columns named "
                             f"{named}; rename them apart", param="data")


def open_file(con, path, *, reads=None):
    """Open a file, a glob or a list of files as a DuckDB relation, with one-line errors.

    Returns ``(relation, kind)``.  Parquet relations also expose DuckDB's ``filename`` and
    ``file_row_number`` virtual columns, used to key hashed cost samples by row position.

    A named pipe is refused (DuckDB needs a file it can seek), and so is a header that
    names a column of ``reads`` twice (every column when ``reads`` is ``None``; see
    :func:`_duplicate_columns`).
    """
    import duckdb

    paths = [os.fspath(p) for p in (path if isinstance(path, list | tuple) else [path])]
    if not paths:
        raise FairboundError("data: got an empty list of files", param="data")
    kinds = {_file_kind(p) for p in paths}
    if len(kinds) > 1:
        raise FairboundError(f"data: files of different formats: {sorted(kinds)}", param="data")
    kind = kinds.pop()
    for p in paths:
        if _has_glob(p):
            continue
        if not os.path.exists(p):
            raise FairboundError(f"data: file not found: {p!r}", param="data")
        if os.path.isdir(p):
            raise FairboundError(f"data: {p!r} is a directory; give a file or a glob such as "
                                 f"'{p.rstrip('/')}/*.parquet'", param="data")
        _check_regular(p)
        if os.path.getsize(p) == 0:
            raise FairboundError(f"data: file is empty: {p!r}", param="data")
    for p in _csv_paths([p for p in paths if _has_glob(p)]):
        _check_regular(p)  # a pipe among the matches would block DuckDB
    arg = paths[0] if len(paths) == 1 else paths
    shown = paths[0] if len(paths) == 1 else f"{paths[0]} (+{len(paths) - 1} files)"
    try:
        if kind == "parquet":
            rel = con.read_parquet(arg)
        elif kind == "csv":
            rel = _read_csv(con, arg, paths, shown)
        else:
            rel = con.read_json(arg, format="newline_delimited")
            if any(str(t).strip('"').upper() == "NULL" for t in rel.types):
                # a key that is null in every sampled row would read as all missing: infer
                # its type from every row instead
                rel = con.read_json(arg, format="newline_delimited", sample_size=-1)
            rel.limit(1).fetchall()  # surface parse errors of the first rows now
    except duckdb.Error as exc:
        msg = _first_line(exc)
        if "No files found" in msg or "no files found" in msg.lower():
            raise FairboundError(f"data: no files match {shown!r}", param="data") from None
        raise FairboundError(f"data: cannot read {shown!r} as {kind}: {msg}",
                             param="data") from None
    dups = _duplicate_columns(rel.columns, paths, kind) if reads is None or len(reads) else {}
    if dups:
        files = _csv_paths(paths)
        _refuse_duplicates(dups, rel.columns if reads is None else reads,
                           files[0] if files else shown)
    return rel, kind


def _open_database(con, text: str) -> str:
    """Attach a DuckDB database read-only and define ``src`` over one of its tables."""
    import duckdb

    path, _, table = text.partition("::")
    if not os.path.exists(path):
        raise FairboundError(f"data: database not found: {path!r}", param="data")
    _check_regular(path, "database file")
    if os.path.getsize(path) == 0:
        raise FairboundError(f"data: file is empty: {path!r}", param="data")
    literal = "'" + path.replace("'", "''") + "'"
    try:
        con.execute(f"ATTACH {literal} AS fb_db (READ_ONLY)")
        found = con.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'fb_db' "
            "UNION ALL SELECT schema_name, view_name FROM duckdb_views() "
            "WHERE database_name = 'fb_db' AND NOT internal").fetchall()
    except duckdb.Error as exc:
        raise FairboundError(f"data: cannot open {path!r} as a DuckDB database: "
                             f"{_first_line(exc)}", param="data") from None
    names = sorted(f"{s}.{t}" if s != "main" else t for s, t in found)
    if not table:
        if len(names) != 1:
            raise FairboundError(
                f"data: {path!r} holds {len(names)} tables ({', '.join(names[:10])}); name one "
                f"as '{path}::table'", param="data")
        table = names[0]
    match = [(s, t) for s, t in found if table in (t, f"{s}.{t}")]
    if not match:
        raise FairboundError(f"data: table {table!r} not found in {path!r}; tables are: "
                             f"{', '.join(names[:20])}", param="data")
    schema, name = match[0]
    con.execute(f"CREATE VIEW src AS SELECT * FROM fb_db.{quote(schema)}.{quote(name)}")
    if os.environ.get(ALLOW_EXTERNAL_ACCESS, "") != "1":
        # A third-party database's views are SQL that runs here: with external access off
        # they cannot read local files or the network (cannot be turned back on in this
        # connection).  FAIRBOUND_ALLOW_EXTERNAL_ACCESS=1 opts in.
        con.execute("SET enable_external_access = false")
    return f"{path}::{table}"


def _columns(con) -> dict[str, str]:
    rows = con.execute("DESCRIBE src").fetchall()
    return {r[0]: r[1] for r in rows}


# ----------------------------------------------------------------------------- mixed values

_JSON_KIND = {"VARCHAR": "text", "BIGINT": "number", "UBIGINT": "number", "DOUBLE": "number",
              "BOOLEAN": "boolean", "ARRAY": "nested", "OBJECT": "nested"}
_JSON_CAST = {"number": "DOUBLE", "boolean": "BOOLEAN"}
#: Roles whose values are classes: a column mixing numbers and text is refused outright.
_CLASS_ROLES = ("label", "prediction")


def _role_of(plan: Plan, column: str) -> str:
    """The first role that reads ``column`` (for messages)."""
    for role, term in plan.roles():
        if column in term.reads:
            return role
    return "where"


def _mixed_message(role: str, column: str, where: str, a, b) -> str:
    from fairbound.labels import is_bool, kind

    if kind(b) != "text":  # numbers and booleans, no text
        return (f"{role}: column {column!r}{where} mixes numbers and booleans ({a!r} and "
                f"{b!r}); give every row one type")
    what = "booleans" if is_bool(a) else "numbers"
    if role in _CLASS_ROLES:
        return (f"{role}: column {column!r}{where} mixes {what} and text ({a!r} and {b!r}); "
                f"give every row one type (all text or all {what})")
    return (f"{role}: column {column!r}{where} holds both {a!r} and {b!r}, which read as the "
            "same value; give every row one type (all text or all numbers)")


def mixed_values(values, *, clash_only: bool = False) -> tuple | None:
    """``(a number or boolean, a text value)`` when ``values`` mix the two, else ``None``.

    A column holding both ``1`` and ``"1"`` (a pandas ``object`` column filled from two
    sources) is read as text by DuckDB, silently merging two classes or groups.  The pair
    returned is one that would be confused when there is one (``1`` and ``"1"``); with
    ``clash_only`` only such a pair is returned (text and numbers that never meet are fine
    for a group column: ``"65+"`` and ``30``).

    Examples
    --------
    >>> mixed_values([1, "1", 0, None])
    (1, '1')
    >>> mixed_values([30, "65+"]), mixed_values([30, "65+"], clash_only=True)
    ((30, '65+'), None)
    >>> mixed_values(["a", "b", None]) is None, mixed_values([1, 2.5, True]) is None
    (True, True)
    """
    import pandas as pd

    from fairbound.labels import _same, is_bool, parse_text_value

    try:
        inferred = pd.api.types.infer_dtype(values, skipna=True)
    except (TypeError, ValueError):
        return None
    if inferred not in ("mixed", "mixed-integer"):
        return None
    try:
        distinct = pd.unique(pd.Series(values, dtype=object).dropna())
    except TypeError:  # unhashable (nested) values: the type check names them
        return None
    numbers = [v.item() if isinstance(v, np.generic) else v for v in distinct
               if is_bool(v) or isinstance(v, int | float | np.integer | np.floating)]
    texts = [v for v in distinct if isinstance(v, str)]
    if not numbers or not texts:
        return None
    for t in texts:
        parsed = parse_text_value(t)
        for n in numbers:
            if parsed is not None and _same(parsed, n):
                return n, t
    return None if clash_only else (numbers[0], texts[0])


def _check_mixed(plan: Plan, get, where: str = "") -> None:
    """Refuse columns of in-memory data that mix numbers and text ambiguously.

    Label and prediction columns may not mix them at all; group columns may, unless a
    number and a text read the same (``1`` and ``"1"``).
    """
    seen: set[str] = set()
    for role, term in plan.roles():
        for col in term.reads:
            if col in seen:
                continue
            seen.add(col)
            values = get(col)
            if values is None:
                continue
            pair = mixed_values(values, clash_only=role not in _CLASS_ROLES)
            if pair is not None:
                raise FairboundError(_mixed_message(role, col, where, *pair), param=role)


def _plain_json_columns(con, plan: Plan, columns: dict[str, str], desc: str) -> str:
    """Read JSON-typed columns (JSON lines whose values vary in type) as plain values.

    DuckDB types a JSON-lines key whose values are not all of one type as ``JSON``, whose
    text keeps the quotes of strings (group ``'"a"'``).  Each such column the audit reads
    becomes plain values: numbers or booleans when it holds only those, else text (strings
    without their quotes).  A label or prediction that mixes text with numbers, a column
    where a number and a string read the same (``1`` and ``"1"``), and objects or arrays
    are refused with a one-line error.  Returns the ``REPLACE (...)`` clause that reads the
    columns so (empty when there is none); the view ``src`` then reads through it.
    """
    from fairbound.labels import parse_text_value

    json_cols = [c for c in plan.reads if columns.get(c, "").upper() == "JSON"]
    if not json_cols:
        return ""
    parts = [f"SELECT ? AS col, json_type({quote(c)}) AS t, min({quote(c)} ->> '$') AS ex "
             f"FROM src WHERE {quote(c)} IS NOT NULL GROUP BY 2" for c in json_cols]
    found = con.execute(" UNION ALL ".join(parts), json_cols).fetchall()
    kinds: dict[str, dict[str, str]] = {c: {} for c in json_cols}
    for col, t, ex in found:
        kind = _JSON_KIND.get(str(t).upper())
        if kind is not None:
            kinds[col].setdefault(kind, ex)
    replace = []
    for col in json_cols:
        role = _role_of(plan, col)
        k = kinds[col]
        q = quote(col)
        if "nested" in k:
            raise FairboundError(f"{role}: column {col!r} in {desc} holds JSON objects or "
                                 f"arrays such as {k['nested'][:60]!r}; expected plain values "
                                 "(numbers, strings, booleans)", param=role)
        if len(k) == 1 and "text" not in k:
            replace.append(f"CAST({q} AS {_JSON_CAST[next(iter(k))]}) AS {q}")
            continue
        if len(k) > 1:
            clash = con.execute(
                f"SELECT ({q} ->> '$') FROM src WHERE json_type({q}) = 'VARCHAR' "
                f"INTERSECT SELECT ({q} ->> '$') FROM src WHERE json_type({q}) "
                "NOT IN ('VARCHAR', 'NULL') LIMIT 1").fetchall()
            if clash or role in _CLASS_ROLES:
                if clash:
                    a = b = clash[0][0]
                elif "text" in k:
                    a, b = next(v for kk, v in k.items() if kk != "text"), k["text"]
                else:
                    a, b = k["number"], k["boolean"]
                shown = parse_text_value(a)
                raise FairboundError(_mixed_message(role, col, f" in {desc}",
                                                    shown if shown is not None else a,
                                                    b if "text" in k else parse_text_value(b)),
                                     param=role)
        replace.append(f"json_extract_string({q}, '$') AS {q}")  # text without quotes
    clause = f"REPLACE ({', '.join(replace)})"
    con.execute("ALTER VIEW src RENAME TO src_json")
    con.execute(f"CREATE VIEW src AS SELECT * {clause} FROM src_json")
    return clause


class _Source:
    """Where the rows are: registered as the DuckDB view ``src``."""

    def __init__(self, description: str, engine: str, columns: dict[str, str],
                 row_key: tuple[str, ...] = (), row_relation: str = "src"):
        self.description = description
        self.engine = engine
        self.columns = columns
        self.row_key = row_key  # columns that identify a row's position, if any
        self.row_relation = row_relation  # a relation exposing them


def _names_of(data) -> list[str] | None:
    """Column names of in-memory data without touching its rows (``None``: not known)."""
    mod = type(data).__module__.split(".")[0]
    if mod == "polars":
        import polars as pl

        if isinstance(data, pl.LazyFrame):
            return list(data.collect_schema().names())
        return list(data.columns)
    return None


def _to_arrow_columns(data: dict, what: str, keep=None):
    """Arrow table of the columns in ``keep`` (all by default); every column is checked."""
    import pyarrow as pa

    arrays = {}
    n = None
    for k, v in data.items():
        try:
            arr = np.asarray(v)
        except ValueError as exc:  # ragged nested lists
            raise FairboundError(f"data: {what} column {k!r} cannot be read as an array: "
                                 f"{_first_line(exc)}", param="data") from None
        if arr.ndim != 1:
            raise FairboundError(f"data: {what} column {k!r} must be 1-D; got shape "
                                 f"{arr.shape}", param="data")
        if n is not None and len(arr) != n:
            raise FairboundError(f"data: {what} columns differ in length ({k!r} has "
                                 f"{len(arr)} rows, others {n})", param="data")
        n = len(arr)
        if keep and str(k) not in keep:
            continue
        try:
            arrays[str(k)] = pa.array(arr, from_pandas=True)  # NaN and None read as missing
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            raise FairboundError(f"data: {what} column {k!r} cannot be read: "
                                 f"{_first_line(exc)}", param="data") from None
    return pa.table(arrays), n or 0


def open_source(con, data, spec: AggregateSpec) -> tuple[_Source, Plan]:
    """Register ``data`` as the view ``src`` and resolve ``spec`` against its columns."""
    if isinstance(data, str | os.PathLike) or (
            isinstance(data, list | tuple) and data and
            all(isinstance(p, str | os.PathLike) for p in data)):
        first = os.fspath(data if isinstance(data, str | os.PathLike) else data[0])
        if (isinstance(data, str | os.PathLike) and
                first.split("::")[0].lower().endswith(_DATABASE)):
            desc = _open_database(con, first)
            cols = _columns(con)
            plan = make_plan(spec, cols)
            if _plain_json_columns(con, plan, cols, desc):
                cols = _columns(con)
            return _Source(desc, "duckdb", cols), plan
        rel, kind = open_file(con, data, reads=())
        rel.create_view("src")
        desc = first if isinstance(data, str | os.PathLike) else f"{first} (+{len(data) - 1})"
        cols = _columns(con)
        paths = [os.fspath(p) for p in (data if isinstance(data, list | tuple) else [data])]
        dups = _duplicate_columns(cols, paths, kind)
        if dups:
            # resolve the spec with the header's own names too ('g' of a header 'G,g', which
            # DuckDB calls 'g_1'), then refuse any duplicated column it reads
            extra = [n for same in dups.values() for n in same if n not in cols]
            try:
                probe = make_plan(spec, list(cols) + list(dict.fromkeys(extra)))
            except FairboundError:
                probe = None  # make_plan below names the problem
            if probe is not None:
                files = _csv_paths(paths)
                _refuse_duplicates(dups, probe.reads, files[0] if files else first)
        plan = make_plan(spec, cols)
        plain = _plain_json_columns(con, plan, cols, desc)
        row_key: tuple[str, ...] = ()
        row_relation = "src"
        if kind == "parquet" and not {"filename", "file_row_number"} & set(cols):
            paths = data if isinstance(data, list | tuple) else [data]
            listed = ", ".join("'" + os.fspath(p).replace("'", "''") + "'" for p in paths)
            row_key = ("filename", "file_row_number")
            row_relation = (f"read_parquet([{listed}], filename = true, "
                            "file_row_number = true)")
            if plain:  # the same plain values as src, plus the row position
                row_relation = f"(SELECT * {plain} FROM {row_relation})"
        if plain:
            cols = _columns(con)
        return _Source(desc, "duckdb", cols, row_key, row_relation), plan
    mod = type(data).__module__.split(".")[0]
    if mod == "polars":
        import polars as pl

        plan = make_plan(spec, _names_of(data))
        lazy = isinstance(data, pl.LazyFrame)
        if lazy:
            narrowed = data.select(list(plan.reads))
            try:
                frame = narrowed.collect(engine="streaming")
            except TypeError:  # older polars without the engine argument
                frame = narrowed.collect()
            desc = f"polars.LazyFrame ({frame.height} rows)"
        else:
            frame = data.select(list(plan.reads))
            desc = f"polars.DataFrame ({frame.height} rows)"
        con.register("src", frame.to_arrow())
        return _Source(desc, "duckdb (in memory)", _columns(con)), plan
    if mod == "pyarrow":
        import pyarrow as pa
        import pyarrow.dataset as ds

        if isinstance(data, ds.Dataset):
            con.register("src", data)
            desc = "pyarrow.dataset"
        elif isinstance(data, pa.RecordBatch):
            con.register("src", pa.Table.from_batches([data]))
            desc = f"pyarrow.RecordBatch ({data.num_rows} rows)"
        elif isinstance(data, pa.Table):
            con.register("src", data)
            desc = f"pyarrow.Table ({data.num_rows} rows)"
        else:
            raise FairboundError("data: pyarrow input must be a Table, RecordBatch or "
                                 f"Dataset; got {type(data).__name__}", param="data")
        cols = _columns(con)
        return _Source(desc, "duckdb (in memory)", cols), make_plan(spec, cols)
    if mod == "pandas" and type(data).__name__ == "DataFrame":
        if not all(isinstance(c, str) for c in data.columns):
            data = data.rename(columns=str)
        frame = data
        plan = make_plan(spec, list(dict.fromkeys(frame.columns)))
        twice = [c for c in plan.reads if list(frame.columns).count(c) > 1]
        if twice:
            raise FairboundError(f"data: the DataFrame has {list(frame.columns).count(twice[0])} "
                                 f"columns named {twice[0]!r}; rename them apart",
                                 param="data")
        _check_mixed(plan, lambda c: frame[c] if frame[c].dtype == object else None)
        con.register("src", data)
        cols = _columns(con)
        desc = f"pandas.DataFrame ({len(data)} rows)"
        return _Source(desc, "duckdb (in memory)", cols), make_plan(spec, cols)
    if isinstance(data, dict):
        named = {str(k): v for k, v in data.items()}
        plan = make_plan(spec, list(named))
        _check_mixed(plan, lambda c: named[c] if np.asarray(named[c]).dtype.kind in "OUS"
                     else None)
        table, n = _to_arrow_columns(data, "dict", keep=plan.reads)
        con.register("src", table)
        cols = _columns(con)
        return _Source(f"dict of arrays ({n} rows)", "duckdb (in memory)", cols), plan
    if isinstance(data, np.ndarray) and data.dtype.names:
        table, n = _to_arrow_columns({k: data[k] for k in data.dtype.names}, "structured array")
        con.register("src", table)
        cols = _columns(con)
        return (_Source(f"numpy structured array ({n} rows)", "duckdb (in memory)", cols),
                make_plan(spec, cols))
    raise FairboundError(
        "data must be a pandas/polars DataFrame or LazyFrame, a pyarrow Table or Dataset, a "
        "dict of arrays, a structured numpy array, a file path, glob or list of files, or a "
        f"DuckDB database path; got {type(data).__name__}",
        param="data",
    )


def check_columns(spec: AggregateSpec, available: dict[str, str], source: str) -> None:
    """One-line error for a missing column, naming the parameter and the columns there are."""
    make_plan(spec, list(available))


def check_types(con, plan: Plan, columns: dict[str, str], source: str) -> None:
    """One-line errors for roles of the wrong type (found without scanning any rows)."""
    import duckdb

    def type_of(term, role: str) -> str:
        if term.expression is None:
            return columns[term.column]
        try:
            rows = con.execute(f"DESCRIBE SELECT {term.sql('duckdb')} AS x FROM src").fetchall()
        except duckdb.Error as exc:
            raise FairboundError(f"{role}: expression {term.text!r} does not type-check: "
                                 f"{_first_line(exc)}", param=role) from None
        return rows[0][1]

    for role, term in plan.roles():
        typ = type_of(term, role)
        if _NESTED.search(typ):
            raise FairboundError(f"{role}: column {term.text!r} in {source} has type {typ}; "
                                 "expected plain values (numbers, strings, booleans)",
                                 param=role)
        if role == "cost" and not _NUMERIC.match(typ):
            raise FairboundError(f"cost: column {term.text!r} in {source} has type {typ}; "
                                 "expected numbers", param="cost")
    if plan.where is not None:
        typ = type_of(plan.where, "where")
        if typ.upper().strip('"') not in ("BOOLEAN", "NULL"):
            raise FairboundError(f"where: {plan.where.text!r} has type {typ}; expected a "
                                 "true/false condition", param="where")


#: Result column types whose values DuckDB's ``fetchall`` gives exactly as Arrow's
#: ``to_pylist`` does (numbers, booleans, text); other results go through Arrow.
_PLAIN_RESULT = frozenset({"BOOLEAN", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT",
                           "USMALLINT", "UINTEGER", "UBIGINT", "DOUBLE", "VARCHAR"})


def _fetch_dicts(con, query: str, params=None, *, columns: bool = False):
    """Rows of a small result as dicts, and their size in bytes (:func:`collected_size`).

    A result of plain columns (the statistics of a confusion-matrix audit) is fetched
    directly, without importing pyarrow; others (lists of cost values, dates, decimals)
    through Arrow, whose Python values they keep.  With ``columns`` a plain result comes
    as :class:`~fairbound.engines.assemble.ResultColumns` (the same rows, read as dicts,
    held as columns: cheaper to build for a result of many groups, see
    ``ResultColumns``).
    """
    rel = con.sql(query, params=params or None)
    if all(str(t).upper() in _PLAIN_RESULT for t in rel.types):
        names = list(rel.columns)
        if columns:
            rows = ResultColumns.from_tuples(names, rel.fetchall())
        else:
            rows = [dict(zip(names, r, strict=True)) for r in rel.fetchall()]
    else:
        rows = rel.to_arrow_table().to_pylist()
    return rows, collected_size(rows)


_KEPT = threading.local()   # each thread's idle connection and the process that made it
#: Scans longer than this (seconds) close their connection: a new one (21 ms) is small
#: beside them, and a large scan leaves DuckDB's threads holding memory that only closing
#: returns (16 MB after a 10M-row scan here).
KEEP_SECONDS = 0.1


@contextmanager
def pooled_connection():
    """A DuckDB connection for one scan: the thread's kept one, or a new one.

    ``duckdb.connect`` makes a new in-memory database, about 21 ms of CPU
    (``benchmarks/bench_repeat.py``), paid again by every audit of a process: more than a
    small audit's scan.  So each thread keeps one idle connection; a scan takes it (a
    nested scan meanwhile makes its own) and gives it back as it found it: every view it
    left (``src``, registered data) is dropped.  A scan longer than :data:`KEEP_SECONDS`
    closes its connection, and so does a scan that changed it for good: an attached
    database (a database source, which also turns external access off for the
    connection; no scan changes another setting), or any view or table that could not be
    dropped.  Connections are never shared between threads or processes.

    Examples
    --------
    >>> with pooled_connection() as con:
    ...     con.execute("SELECT 42").fetchall()
    [(42,)]
    """
    import duckdb

    pid = os.getpid()
    con = getattr(_KEPT, "con", None) if getattr(_KEPT, "pid", None) == pid else None
    _KEPT.con = None
    if con is None:
        # never download extensions while reading a user's data
        con = duckdb.connect(config={"autoinstall_known_extensions": False})
    start = time.perf_counter()
    try:
        yield con
    finally:
        if time.perf_counter() - start < KEEP_SECONDS and _reset(con):
            _KEPT.con, _KEPT.pid = con, pid
        else:
            con.close()


def _reset(con) -> bool:
    """Drop what a scan left on ``con``; whether it is as new (else it is closed)."""
    # fetchall() throughout: a result left unfetched blocks the connection's next use
    try:
        if con.execute("SELECT current_setting('enable_external_access')").fetchall() != [
                (True,)]:
            return False
        if con.execute("SELECT count(*) FROM duckdb_databases() WHERE NOT internal "
                       "AND database_name <> 'memory'").fetchall() != [(0,)]:
            return False
        views = con.execute("SELECT database_name, schema_name, view_name, temporary "
                            "FROM duckdb_views() WHERE NOT internal").fetchall()
        for db, schema, name, temporary in views:
            if temporary:
                con.unregister(name)
            con.execute(f"DROP VIEW IF EXISTS {quote(db)}.{quote(schema)}.{quote(name)}"
                        ).fetchall()
        left = con.execute(
            "SELECT (SELECT count(*) FROM duckdb_views() WHERE NOT internal) + "
            "(SELECT count(*) FROM duckdb_tables())").fetchall()
        return left == [(0,)]
    except Exception:  # noqa: BLE001  (any failure: the connection is closed, not kept)
        return False


def aggregate_duckdb(data, spec: AggregateSpec) -> Aggregates:
    """Run the aggregation with DuckDB over a file, a database table or in-memory data.

    Parameters
    ----------
    data : path, glob, list of paths, DataFrame, Table, Dataset, dict or array
        See :func:`fairbound.engines.aggregate`.
    spec : AggregateSpec
        What to aggregate.

    Returns
    -------
    Aggregates
        Counts and moments per group, rows scanned and excluded (with reasons), and
        per-group cost samples when ``spec.keep_cost_sample > 0``.

    Notes
    -----
    One ``GROUP BY`` (group..., label, prediction, filter flag) computes every count and
    moment in a single scan.  Cost samples, when asked for, take one more scan: exact
    per-group value counts when the costs take at most ``spec.max_cost_values`` distinct
    values (a seeded hypergeometric subsample rebuilds a uniform sample from them), else a
    hashed bottom-k sample per group (:func:`fairbound.engines.assemble.sample_from_hashed`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a", "a", "b", None], "y": [1, 0, 1, 1], "p": [1, 1, 0, 1]})
    >>> agg = aggregate_duckdb(df, AggregateSpec(group=("g",), label="y", prediction="p"))
    >>> agg.groups, agg.n_rows, agg.excluded
    (('a', 'b'), 4, {'missing group (not annotated)': 1})
    """
    with pooled_connection() as con:
        with scan_errors(opening=True):
            source, plan = open_source(con, data, spec)
            check_types(con, plan, source.columns, source.description)
        want_samples = spec.keep_cost_sample > 0 and plan.cost is not None
        with scan_errors(source.description):
            rows, nbytes = _fetch_dicts(con, stats_query(plan, "src", distinct=want_samples),
                                        columns=True)
            samples = None
            if want_samples:
                check_groups(rows, plan)  # too many groups: refused before the second scan
                samples, more = _cost_samples(con, plan, spec, rows, source)
                nbytes += more
        return assemble(rows, plan, spec, engine=source.engine, source=source.description,
                        samples=samples, collected_bytes=nbytes)


def sample_sizes(rows, plan: Plan) -> tuple[dict, int]:
    """Per-group number of non-missing costs passing the filter, and a distinct-count bound.

    The bound adds the approximate (HyperLogLog) distinct counts of the cells of a group,
    so it overstates when a value appears in several cells and may understate by the
    sketch's error (a few per cent); it only chooses between two valid sampling routes.
    """
    n_group = len(plan.group)
    sizes: dict = {}
    distinct = 0
    for r in rows:
        if plan.where is not None and not bool(r["w"]):
            continue
        key = group_key(r, n_group)
        if key is None:
            continue
        sizes[key] = sizes.get(key, 0) + int(r["nc"] or 0)
        distinct += int(r.get("nd") or 0)
    return sizes, distinct


def _cost_samples(con, plan: Plan, spec: AggregateSpec, rows, source: _Source):
    """Per-group cost samples: exact value counts if few distinct values, else hashed rows."""
    sizes, distinct = sample_sizes(rows, plan)
    k = int(spec.keep_cost_sample)
    n_group = len(plan.group)
    if distinct <= spec.max_cost_values:
        vals, nbytes = _fetch_dicts(con, cost_values_query(plan, "src"))
        out, complete = sample_from_values(vals, n_group, k, spec.seed)
        return (out, complete, "value counts, hypergeometric"), nbytes
    # Many distinct costs: a bottom-k hash sample per group, bounded to about k rows each.
    key_cols = [quote(c) for c in (*source.row_key, *plan.reads)]
    u = f"(CAST(hash({', '.join(key_cols)}, {int(spec.seed)}) AS DOUBLE) / 18446744073709551616.0)"
    threshold, params = _threshold_case(sizes, n_group, k)
    query = hashed_sample_query(plan, source.row_relation, u, threshold, k)
    got, nbytes = _fetch_dicts(con, query, params)
    out, complete = sample_from_hashed(got, n_group, k, sizes)
    return (out, complete, "hashed rows (bottom-k)"), nbytes


def _threshold_case(sizes: dict, n_group: int, k: int) -> tuple[str, list]:
    """``CASE`` over the group keys giving each group's hash threshold (values as params)."""
    cases, params = [], []
    for g in sorted(sizes, key=sort_key):
        vals = g if n_group > 1 else (g,)
        cond = " AND ".join(f"g{i} = ?" for i in range(n_group))
        cases.append(f"WHEN {cond} THEN CAST(? AS DOUBLE)")
        params += [*vals, hashed_threshold(sizes[g], k)]
    return f"(CASE {' '.join(cases)} ELSE 0.0 END)", params


__all__ = ["aggregate_duckdb", "check_columns", "check_types", "csv_error_message",
           "find_ragged_line", "mixed_values", "open_file", "open_source", "quote", "sample_sizes",
           "sort_key"]
