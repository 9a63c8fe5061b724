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

import numpy as np

from fairbound.engines.assemble import (
    assemble,
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


def _has_glob(path: str) -> bool:
    return any(ch in path for ch in "*?[")


def open_file(con, path):
    """Open a file, a glob or a list of files as a DuckDB relation, with one-line errors.

    Returns ``(relation, kind)``.  Parquet relations also expose DuckDB's ``filename`` and
    ``file_row_number`` virtual columns, used to key hashed cost samples by row position.
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
        if os.path.getsize(p) == 0:
            raise FairboundError(f"data: file is empty: {p!r}", param="data")
    arg = paths[0] if len(paths) == 1 else paths
    shown = paths[0] if len(paths) == 1 else f"{paths[0]} (+{len(paths) - 1} files)"
    try:
        if kind == "parquet":
            rel = con.read_parquet(arg)
        elif kind == "csv":
            tsv = ".tsv" in paths[0].lower()
            rel = con.read_csv(arg, sep="\t") if tsv else con.read_csv(arg)
        else:
            rel = con.read_json(arg, format="newline_delimited")
        if kind != "parquet":  # Parquet metadata is checked when the relation is made
            rel.limit(1).fetchall()  # surface parse errors of the first rows now
    except duckdb.Error as exc:
        msg = _first_line(exc)
        if "No files found" in msg or "no files found" in msg.lower():
            raise FairboundError(f"data: no files match {shown!r}", param="data") from None
        raise FairboundError(f"data: cannot read {shown!r} as {kind}: {msg}",
                             param="data") from None
    return rel, kind


def _open_database(con, text: str) -> str:
    """Attach a DuckDB database read-only and define ``src`` over one of its tables."""
    import duckdb

    path, _, table = text.partition("::")
    if not os.path.exists(path):
        raise FairboundError(f"data: database not found: {path!r}", param="data")
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


def _to_arrow_columns(data: dict, what: str):
    import pyarrow as pa

    arrays = {}
    n = None
    for k, v in data.items():
        arr = np.asarray(v)
        if arr.ndim != 1:
            raise FairboundError(f"data: {what} column {k!r} must be 1-D; got shape "
                                 f"{arr.shape}", param="data")
        if n is not None and len(arr) != n:
            raise FairboundError(f"data: {what} columns differ in length ({k!r} has "
                                 f"{len(arr)} rows, others {n})", param="data")
        n = len(arr)
        arrays[str(k)] = pa.array(arr, from_pandas=True)  # NaN and None read as missing
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
            return _Source(desc, "duckdb", cols), make_plan(spec, cols)
        rel, kind = open_file(con, data)
        rel.create_view("src")
        desc = first if isinstance(data, str | os.PathLike) else f"{first} (+{len(data) - 1})"
        cols = _columns(con)
        row_key: tuple[str, ...] = ()
        row_relation = "src"
        if kind == "parquet" and not {"filename", "file_row_number"} & set(cols):
            paths = data if isinstance(data, list | tuple) else [data]
            listed = ", ".join("'" + os.fspath(p).replace("'", "''") + "'" for p in paths)
            row_key = ("filename", "file_row_number")
            row_relation = (f"read_parquet([{listed}], filename = true, "
                            "file_row_number = true)")
        return (_Source(desc, "duckdb", cols, row_key, row_relation),
                make_plan(spec, cols))
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
        con.register("src", data)
        cols = _columns(con)
        desc = f"pandas.DataFrame ({len(data)} rows)"
        return _Source(desc, "duckdb (in memory)", cols), make_plan(spec, cols)
    if isinstance(data, dict):
        table, n = _to_arrow_columns(data, "dict")
        con.register("src", table)
        cols = _columns(con)
        return (_Source(f"dict of arrays ({n} rows)", "duckdb (in memory)", cols),
                make_plan(spec, cols))
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


def _fetch_dicts(con, query: str, params=None) -> tuple[list[dict], int]:
    """Rows of a small result as dicts, and their size in bytes as Arrow."""
    table = con.sql(query, params=params or None).to_arrow_table()
    return table.to_pylist(), int(table.nbytes)


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
    import duckdb

    # never download extensions while reading a user's data
    con = duckdb.connect(config={"autoinstall_known_extensions": False})
    try:
        try:
            source, plan = open_source(con, data, spec)
            check_types(con, plan, source.columns, source.description)
        except duckdb.PermissionException as exc:
            raise FairboundError(
                f"data: the database's views read files, which is off for audited databases "
                f"({_first_line(exc)}); set {ALLOW_EXTERNAL_ACCESS}=1 if you trust it",
                param="data") from None
        want_samples = spec.keep_cost_sample > 0 and plan.cost is not None
        try:
            rows, nbytes = _fetch_dicts(con, stats_query(plan, "src", distinct=want_samples))
            samples = None
            if want_samples:
                samples, more = _cost_samples(con, plan, spec, rows, source)
                nbytes += more
        except duckdb.PermissionException as exc:
            raise FairboundError(
                f"data: the database's views read files, which is off for audited databases "
                f"({_first_line(exc)}); set {ALLOW_EXTERNAL_ACCESS}=1 if you trust it",
                param="data") from None
        except duckdb.Error as exc:
            raise FairboundError(f"data: cannot aggregate {source.description}: "
                                 f"{_first_line(exc)}", param="data") from None
        return assemble(rows, plan, spec, engine=source.engine, source=source.description,
                        samples=samples, collected_bytes=nbytes)
    finally:
        con.close()


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


__all__ = ["aggregate_duckdb", "check_columns", "check_types", "open_file", "open_source",
           "quote", "sample_sizes", "sort_key"]
