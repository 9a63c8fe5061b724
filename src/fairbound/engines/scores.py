"""Per-group score histograms in one ``GROUP BY``: the input of score-based audits.

An AUC, a calibration curve or a threshold sweep per group needs only, for each group and
each distinct score value (or score bin), the number of positive and negative examples
and the sums of the scores.  :func:`score_histograms` computes them where the data lives
with DuckDB - files (CSV, Parquet, JSON lines, globs, DuckDB databases) read exactly as
:func:`fairbound.engines.duckdb_engine.aggregate_duckdb` reads them, and in-memory frames -
or with Spark SQL for a Spark DataFrame (the same query, :func:`histogram_query`, printed
for Spark), in ONE scan::

    SELECT g.., y, b, count(*), sum(c), sum(c * c)
    FROM (SELECT <group> AS g.., <label> AS y, <score> AS c, <bin of c> AS b FROM src)
    GROUP BY g.., y, b

and returns plain arrays per group (:class:`ScoreCounts`); nothing here depends on the
statistics (:func:`fairbound.stats.scores.histograms_from_counts` builds the histograms).
The result has one row per (group, label, bin): memory does not grow with the rows, only
with the number of bins (use ``bins=k`` for continuous scores).

Exact histograms (``bins=None``) of at most :data:`ROWS_READ` rows are built from the rows
themselves instead (:func:`_rows_query`: the same roles, no ``GROUP BY``; the rows are
counted first, up to ``ROWS_READ + 1``, where that reads no values: Parquet, databases,
in-memory data): for continuous scores nearly every row is its own (group, label, score)
cell, so DuckDB's hash table would hold as many entries as rows, at several times the cost
of reading them.  Larger inputs, and every binned histogram, go through the ``GROUP BY``,
whose memory does not grow with the rows; an exact one leaves out the two sums, which each
row's score and count determine.  The counts and the sums are the same either way, and the
same as SQL's ``sum`` on one thread: every score of an exact (group, label, score) cell is
one number ``v``, and adding it ``m`` times from 0 gives the same sum in any order
(:func:`_repeated_sum`); the per-label sums of a score are then added as before.  (DuckDB's
own sums of 4 or more equal scores, on several threads, varied in the last bit from run to
run; these do not.  Two exceptions, both in the last bit or the sign of a zero: a bin of
zeros is ``+0.0`` on the row path, and with more than two label values the negative labels'
sums of one score are one sum on the row path, per label on the ``GROUP BY`` path.)

Bins (the same rule as :func:`fairbound.stats.scores.assign_bins`):

* ``None``: every distinct score is a bin (exact AUC; fine for scores with few values
  such as risk deciles, a long result for continuous scores);
* an int ``k``: bin ``floor(score * k)``, i.e. ``[i / k, (i + 1) / k)``;
* ascending edges ``e_0 < ... < e_m``: ``e_i <= score < e_{i+1}``, the last edge in the
  last bin; a score outside the edges is an error.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from fairbound._validate import check_bins, check_columns, describe_bins
from fairbound.engines.base import AggregateSpec
from fairbound.errors import FairboundError

MISSING_GROUP = "missing group (not annotated)"
MISSING_LABEL = "missing label"
MISSING_SCORE = "missing score"
#: Exact histograms of at most this many rows are built from the rows (one read, no hash
#: table); larger inputs go through the ``GROUP BY``, whose memory does not grow with rows.
#: 2,097,152 rows: at most three columns of them held at once.
ROWS_READ = 2**21
#: CSV and JSON inputs larger than this (bytes) go straight to the ``GROUP BY``: whether they
#: have more than :data:`ROWS_READ` rows would be known only by parsing them.
TEXT_BYTES = 64 * 2**20


@dataclass(frozen=True)
class ScoreCounts:
    """Per-group score counts from one scan, as plain arrays.

    Attributes
    ----------
    groups : tuple
        Group labels, sorted (intersections are tuples).
    cells : dict
        Group -> dict of arrays aligned by bin, ascending: ``values`` (the score, or the
        bin's lower end), ``upper`` (the bin's upper end; ``values`` when exact), ``pos``
        and ``neg`` (counts), ``score_sum``, ``pos_score_sum`` (over positive examples)
        and ``score_sq_sum``.
    exact : bool
        Whether each bin is one distinct score.
    binning : str
        The binning rule in words.
    pos_label : object
        The label value counted as positive.
    label_values : tuple
        Distinct label values seen.
    n_rows : int
        Rows scanned (before any ``where``).
    excluded : dict
        Reason -> rows left out (``where``, missing group, label or score).
    engine, source : str
        What ran and what it read.
    collected_bytes : int
        Size of the table brought back from the engine (DuckDB: its Arrow size; Spark:
        as :func:`fairbound.engines.assemble.collected_size` counts it).
    """

    groups: tuple
    cells: dict = field(repr=False)
    exact: bool
    binning: str
    pos_label: object
    label_values: tuple
    n_rows: int
    excluded: dict
    engine: str
    source: str
    collected_bytes: int = 0

    def group_rows(self) -> dict:
        """Examples per group (rows that reach the histograms)."""
        return {g: int(self.cells[g]["pos"].sum() + self.cells[g]["neg"].sum())
                for g in self.groups}


def _bin_sql(bins, dialect: str = "duckdb") -> tuple[str, list]:
    """SQL for the bin of ``c`` (NULL when ``c`` is NULL or infinite), and its parameters.

    The edges are ``?`` parameters, which both DuckDB and Spark (3.5+) bind.
    """
    if bins is None:
        return "c", []
    if isinstance(bins, int):
        # NULL for an infinite or huge score too: told apart from a missing one by sum(c)
        if dialect == "spark":
            # Spark's floor of a DOUBLE is already a BIGINT that overflows (an error under
            # ANSI mode) instead of giving NULL, so the range TRY_CAST accepts is spelled out
            x = f"c * {bins}"
            return (f"CASE WHEN {x} >= -9.223372036854775808E18 AND {x} < "
                    f"9.223372036854775808E18 THEN CAST(floor({x}) AS BIGINT) END"), []
        return f"TRY_CAST(floor(c * {bins}) AS BIGINT)", []
    m = len(bins)
    whens = ["WHEN c IS NULL THEN NULL", "WHEN c < ? THEN -1"]
    whens += [f"WHEN c < ? THEN {i - 1}" for i in range(1, m)]
    whens.append(f"WHEN c = ? THEN {m - 2}")
    params = [float(e) for e in bins] + [float(bins[-1])]
    return f"CASE {' '.join(whens)} ELSE {m - 1} END", params


def _rename(exc: FairboundError, old: str, new: str) -> FairboundError:
    msg = str(exc)
    if exc.param == old and msg.startswith(old):
        return FairboundError(new + msg[len(old):], param=new)
    return exc


def _first_line(exc: Exception) -> str:
    text = [t for t in str(exc).strip().splitlines() if t.strip()]
    return " ".join(text[0].split()) if text else type(exc).__name__


def histogram_query(plan, bins, relation: str = "src", *,
                    dialect: str = "duckdb", sums: bool = True) -> tuple[str, list]:
    """The one ``GROUP BY g.., y, bin [, w]`` of :func:`score_histograms`, and its parameters.

    Printed for ``dialect`` (``"duckdb"`` or ``"spark"``): the same query on both engines,
    except the integer-bin expression (:func:`_bin_sql`).  Columns: ``g0..``, ``y``, ``b``
    (the bin; the score itself when exact), ``w`` (the filter, when there is one), ``n``,
    ``s = sum(score)`` and ``ss = sum(score^2)``.  With ``bins=None`` this is the exact
    histogram: per group the counts per distinct score and label.
    """
    from fairbound.engines.sql import cost_sql, where_sql

    exprs = [f"{t.sql(dialect)} AS g{i}" for i, t in enumerate(plan.group)]
    exprs += [f"{plan.label.sql(dialect)} AS y", f"{cost_sql(plan, dialect)} AS c"]
    keys = [*(f"g{i}" for i in range(len(plan.group))), "y", "b"]
    if plan.where is not None:
        exprs.append(f"{where_sql(plan, dialect)} AS w")
        keys.append("w")
    bin_expr, params = _bin_sql(bins, dialect)
    inner = f"SELECT {', '.join(exprs)} FROM {relation}"
    binned = f"SELECT *, {bin_expr} AS b FROM ({inner}) t0"
    aggregates = "count(*) AS n, sum(c) AS s, sum(c * c) AS ss" if sums else "count(*) AS n"
    return (f"SELECT {', '.join(keys)}, {aggregates} "
            f"FROM ({binned}) t1 GROUP BY {', '.join(keys)}"), params


def _rows_query(plan, limit: int, relation: str = "src") -> str:
    """The roles of :func:`histogram_query`, one row per input row, at most ``limit`` rows.

    Columns ``g0..``, ``y``, ``b`` (the score; NULL when missing or NaN) and ``w`` (the
    filter, when there is one): what the exact ``GROUP BY`` groups, before grouping.
    """
    from fairbound.engines.sql import cost_sql, where_sql

    exprs = [f"{t.sql('duckdb')} AS g{i}" for i, t in enumerate(plan.group)]
    exprs += [f"{plan.label.sql('duckdb')} AS y", f"{cost_sql(plan, 'duckdb')} AS b"]
    if plan.where is not None:
        exprs.append(f"{where_sql(plan, 'duckdb')} AS w")
    return f"SELECT {', '.join(exprs)} FROM {relation} LIMIT {int(limit)}"


def _text_bytes(data) -> float | None:
    """The size of the CSV or JSON files ``data`` names (``inf`` if unknown), else ``None``."""
    import glob

    from fairbound.engines.duckdb_engine import _file_kind

    paths = list(data) if isinstance(data, list | tuple) else [data]
    if not paths or not all(isinstance(p, str | os.PathLike) for p in paths):
        return None  # in-memory data
    try:
        if _file_kind(os.fspath(paths[0]).split("::")[0]) not in ("csv", "json"):
            return None
    except FairboundError:
        return math.inf
    total = 0
    for path in paths:
        found = glob.glob(os.fspath(path))
        if not found:
            return math.inf
        total += sum(os.path.getsize(f) for f in found)
    return total


def _few_rows(con, data) -> bool:
    """Whether the source ``src`` has at most :data:`ROWS_READ` rows, as far as it is cheap to tell.

    Counted without reading any value (Parquet's row counts, an in-memory table's length),
    stopping after ``ROWS_READ + 1`` rows.  CSV and JSON files are not counted (that would
    parse them twice): up to :data:`TEXT_BYTES` their rows are read, at most
    ``ROWS_READ + 1`` of them; larger ones go straight to the ``GROUP BY``.
    """
    if ROWS_READ <= 0:
        return False
    size = _text_bytes(data)
    if size is not None:
        return size <= TEXT_BYTES
    count = con.sql(f"SELECT count(*) FROM (SELECT 1 FROM src LIMIT {ROWS_READ + 1}) t")
    return int(count.fetchall()[0][0]) <= ROWS_READ


def _duckdb_table(data, spec: AggregateSpec, bins):
    """``(arrow table, plan, engine, description, bytes)``: the histogram query in DuckDB."""
    import fairbound.engines.duckdb_engine as duck

    with duck.pooled_connection() as con:
        with duck.scan_errors(opening=True):
            try:
                source, plan = duck.open_source(con, data, spec)
                duck.check_types(con, plan, source.columns, source.description)
            except FairboundError as exc:
                raise _rename(exc, "cost", "score") from None
        # exact: no sums, which follow from each row's score and count (_repeated_sum)
        query, params = histogram_query(plan, bins, sums=bins is not None)
        with duck.scan_errors(source.description):
            table = None
            if bins is None and _few_rows(con, data):
                # the rows themselves when there are few enough (no n, s, ss columns)
                table = con.sql(_rows_query(plan, ROWS_READ + 1)).to_arrow_table()
                if table.num_rows > ROWS_READ:  # too many: freed before the GROUP BY
                    table = None
                    _release_arrow_memory()
            if table is None:
                table = con.sql(query, params=params or None).to_arrow_table()
    return table, plan, source.engine, source.description, int(table.nbytes)


def _spark_table(df, spec: AggregateSpec, bins):
    """The same as :func:`_duckdb_table` for a Spark DataFrame, through Spark SQL.

    The query runs over a temporary view (:func:`fairbound.engines.spark.open_spark`) with
    the roles type-checked as for an audit; the collected rows become an Arrow table with
    the columns DuckDB returns (``n`` BIGINT, ``s`` / ``ss`` DOUBLE, ``b`` DOUBLE when
    exact, else BIGINT), so the rest of :func:`score_histograms` is shared.  The size is
    counted as :func:`fairbound.engines.assemble.collected_size` counts Spark's results.
    """
    import pyarrow as pa

    from fairbound.engines.spark import open_spark

    try:
        with open_spark(df, spec) as (source, plan):
            query, params = histogram_query(plan, bins, source.relation, dialect="spark")
            rows, nbytes = source.collect(query, params)
    except FairboundError as exc:
        raise _rename(exc, "cost", "score") from None
    names = [*(f"g{i}" for i in range(len(plan.group))), "y", "b"]
    names += ["w"] if plan.where is not None else []
    typed = {"n": pa.int64(), "s": pa.float64(), "ss": pa.float64(), "w": pa.bool_(),
             "b": pa.float64() if bins is None else pa.int64()}
    table = pa.table({name: pa.array([r[name] for r in rows], type=typed.get(name))
                      for name in [*names, "n", "s", "ss"]})
    n = int(sum(int(r["n"]) for r in rows))
    return table, plan, "spark", f"{source.description} ({n} rows)", nbytes


def score_histograms(data, *, group, label: str, score: str, bins=None, pos_label=None,
                     where: str | None = None,
                     check_groups: Callable[[int], None] | None = None) -> ScoreCounts:
    """Count positives and negatives per group and score bin, in one scan (DuckDB or Spark).

    Parameters
    ----------
    data : path, glob, list of paths, DataFrame, Table, Dataset, dict or array
        What :func:`fairbound.engines.aggregate` accepts: DuckDB reads CSV, Parquet and
        JSON-lines files and globs, ``file.duckdb[::table]``, pandas / polars / pyarrow
        data and dicts of arrays; a Spark DataFrame is aggregated by Spark SQL.
    group : str or sequence of str
        Protected-attribute column(s); several form intersections.
    label : str
        The gold label column (or a checked expression).
    score : str
        The numeric score column (or a checked expression such as ``"1 - p"``).
    bins : None, int or sequence of float
        ``None``: each distinct score (exact); ``k``: ``floor(score * k)``; or edges.
    pos_label : object, optional
        The positive label value; needed unless the labels are 0/1 or True/False.  With
        more than two label values, the others are all negative (one-vs-rest).
    where : str, optional
        A checked SQL filter; other rows are counted as excluded.
    check_groups : callable, optional
        ``check_groups(number of groups)``, run once the scan's groups are known and before
        their histograms are built; it raises to refuse (a score audit's comparison limit).

    Returns
    -------
    ScoreCounts

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a", "a", "a", "b", "b", None],
    ...                    "y": [1, 0, 1, 0, 1, 1], "s": [0.9, 0.2, 0.9, 0.4, None, 0.5]})
    >>> out = score_histograms(df, group="g", label="y", score="s")
    >>> out.groups, out.excluded
    (('a', 'b'), {'missing group (not annotated)': 1, 'missing score': 1})
    >>> a = out.cells["a"]
    >>> a["values"].tolist(), a["pos"].tolist(), a["neg"].tolist()
    ([0.2, 0.9], [0, 2], [1, 0])
    """
    from fairbound.engines.assemble import Excluded, group_key, is_missing, py, sort_key

    groups = check_columns(group)
    for name, value in (("label", label), ("score", score)):
        if not isinstance(value, str) or not value.strip():
            raise FairboundError(f"{name} must be a column name; got {value!r}", param=name)
    if where is not None and (not isinstance(where, str) or not where.strip()):
        raise FairboundError(f"where must be a condition; got {where!r}", param="where")
    bins = check_bins(bins)
    # The score rides in the 'cost' role and the label in 'label' and 'prediction' so that
    # the source is read, type-checked and checked for mixed values as an audit's would be.
    spec = AggregateSpec(group=groups, label=label, prediction=label, cost=score, where=where)
    if type(data).__module__.startswith("pyspark"):
        table, plan, engine, description, nbytes = _spark_table(data, spec, bins)
    else:
        table, plan, engine, description, nbytes = _duckdb_table(data, spec, bins)
    n_group = len(plan.group)
    gk = [f"g{i}" for i in range(n_group)]
    # the rows themselves (an exact histogram of a small input, :data:`ROWS_READ`): each
    # counts once and its sums are its score; else the GROUP BY's counts (and its sums,
    # when binned: an exact row's follow from its score and count)
    per_row = "n" not in table.column_names
    cols = None if per_row else {name: table.column(name).to_numpy(zero_copy_only=False)
                                 for name in ("n", "s", "ss") if name in table.column_names}
    n = np.ones(table.num_rows, dtype=np.int64) if per_row else cols["n"].astype(np.int64)
    n_rows = int(n.sum())
    excluded = Excluded()

    def exclude(reason: str, mask) -> None:
        if mask.any():
            excluded.add(reason, int(n[mask].sum()))

    keep = np.ones(len(n), dtype=bool)
    if plan.where is not None:
        w = table.column("w").to_numpy(zero_copy_only=False).astype(bool)
        exclude(f"where not true: {plan.where.text}", keep & ~w)
        keep &= w
    # group keys: few distinct combinations, mapped in Python from one row each
    gid, combos = _codes(table, gk)
    keys = [group_key(dict(zip(gk, vals, strict=True)), n_group) for vals in combos]
    # (each mask below is built only when some row needs it: most scans have no missing
    # group, label or score)
    key_none = np.array([k is None for k in keys], dtype=bool)
    if len(n) and key_none.any():
        no_group = key_none[gid]
        exclude(MISSING_GROUP, keep & no_group)
        keep &= ~no_group
    yid, ycombos = _codes(table, ["y"])
    distinct = [v[0] for v in ycombos]
    y_missing = np.array([is_missing(v) for v in distinct], dtype=bool)
    if len(n) and y_missing.any():
        exclude(MISSING_LABEL, keep & y_missing[yid])
        keep &= ~y_missing[yid]
    b_arr = table.column("b")
    if b_arr.null_count:
        no_score = b_arr.is_null().to_numpy(zero_copy_only=False)
        b_val = b_arr.fill_null(0).to_numpy(zero_copy_only=False)
    else:
        no_score = np.zeros(len(n), dtype=bool)
        b_val = b_arr.to_numpy(zero_copy_only=False)
    if bins is None:
        finite = np.isfinite(b_val.astype(float, copy=False))
        unbinned = (~no_score & ~finite) if not finite.all() else no_score & False
    else:  # a score that has a value but no bin
        unbinned = no_score & ~table.column("s").is_null().to_numpy(zero_copy_only=False)
    unbinned &= keep
    if unbinned.any():
        total = (b_val if per_row or "s" not in cols else cols["s"])[unbinned].astype(float)
        if not np.all(np.isfinite(total)):
            raise FairboundError(f"score: {score!r} has infinite values; scores must be finite",
                                 param="score")
        raise FairboundError(f"bins: some scores of {score!r} are too large for bins={bins} "
                             f"(score * {bins} overflows a 64-bit bin number); give fewer bins "
                             "or explicit edges", param="bins")
    if no_score.any():
        exclude(MISSING_SCORE, keep & no_score)
        keep &= ~no_score
    all_kept = bool(keep.all())
    used = np.bincount(yid if all_kept else yid[keep], minlength=len(distinct)).astype(bool)
    label_values = tuple(sorted(dict.fromkeys(py(v) for v, u in zip(distinct, used, strict=True)
                                              if u), key=sort_key))
    positive = _positive_value(label_values, pos_label, label)
    from fairbound.labels import _same

    is_pos = np.array([u and _same(py(v), positive) for v, u in zip(distinct, used, strict=True)],
                      dtype=bool)[yid]
    if per_row:  # (the sums follow from the scores, per bin: _cell_of_rows)
        s = ss = None
    elif "s" not in cols:
        # an exact GROUP BY row's sums: its score added n times, as SQL's sum adds them on
        # one thread (a missing score's row: 0, its filled bin)
        with np.errstate(over="ignore"):
            square = b_val * b_val
        s, ss = _repeated_sum(b_val, n), _repeated_sum(square, n)
        del square
    else:
        s, ss = (cols[k].astype(float, copy=False) for k in ("s", "ss"))
        # a missing score's sums are NULL (NaN here): 0, in a copy (Arrow's arrays are
        # read-only)
        s, ss = (np.nan_to_num(x) if np.isnan(x).any() else x for x in (s, ss))
    present = np.flatnonzero(np.bincount(gid if all_kept else gid[keep],
                                         minlength=len(keys)))
    if check_groups is not None:
        check_groups(len(present))
    ordered_ids = sorted(present.tolist(), key=lambda j: sort_key(keys[j]))
    ordered = tuple(keys[j] for j in ordered_ids)
    # the engine's table is no longer needed: free it before the per-group arrays are built
    del table, b_arr, cols
    _release_arrow_memory()
    # each group's rows by ascending bin: a stable sort by group (a radix sort when the ids
    # fit 16 bits, not a pass per group), then a sort by bin within each group's rows
    kept = None if all_kept else np.flatnonzero(keep)
    del keep
    small = (gid if kept is None else gid[kept]).astype(np.int16 if len(keys) < 2**15
                                                        else np.int64)
    by_group = np.argsort(small, kind="stable")
    if kept is not None:
        by_group = kept[by_group]
    # group j's rows follow those of the groups numbered below it
    ends = np.cumsum(np.bincount(small, minlength=len(keys)))
    del kept, small
    span = {int(j): (int(ends[j - 1]) if j else 0, int(ends[j])) for j in present}
    cells = {}
    for j in ordered_ids:
        a, b = span[j]
        rows = by_group[a:b]  # ascending: the group's bins in one forward pass
        bins_j = b_val[rows]
        order = np.argsort(bins_j)
        rows = rows[order]
        if per_row:
            cells[keys[j]] = _cell_of_rows(bins_j[order], is_pos[rows])
        else:
            cells[keys[j]] = _cell(bins_j[order], n[rows], is_pos[rows], s[rows], ss[rows],
                                   bins)
    return ScoreCounts(groups=ordered, cells=cells, exact=bins is None, binning=describe_bins(bins),
                       pos_label=positive, label_values=label_values, n_rows=n_rows,
                       excluded=dict(excluded), engine=engine, source=description,
                       collected_bytes=nbytes)


def _release_arrow_memory() -> None:
    """Hand the memory Arrow's pool keeps after the table is freed back to the system."""
    try:
        import pyarrow as pa

        pa.default_memory_pool().release_unused()
    except (ImportError, AttributeError):  # pragma: no cover  (pyarrow < 9)
        pass


def _codes(table, names: list[str]) -> tuple[np.ndarray, list[tuple]]:
    """Row -> id of its combination of values in ``names``, and each combination's values."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = table.num_rows
    if rows == 0:
        return np.zeros(0, dtype=np.int64), []
    if len(names) == 1:
        column = table.column(names[0])
        if (pa.types.is_integer(column.type) and not pa.types.is_uint64(column.type)
                and not column.null_count):
            # whole numbers (a 0/1 label): ids by counting from the smallest, no hashing
            values = column.to_numpy().astype(np.int64)
            low = int(values.min())
            if int(values.max()) - low < 2**16:
                values -= low
                seen = np.flatnonzero(np.bincount(values))
                remap = np.zeros(int(seen[-1]) + 1, dtype=np.int64)
                remap[seen] = np.arange(len(seen))
                return remap[values], [(low + int(v),) for v in seen]
    codes = []
    encoded = []
    for name in names:
        enc = pc.dictionary_encode(table.column(name).combine_chunks())
        encoded.append(enc)
        codes.append(enc.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64))
    if len(codes) == 1:
        # one column: ids from the dictionary codes by counting, no sort (the same ids and
        # combinations as np.unique: codes ascending, -1 (a missing value) first)
        shifted = codes[0] + 1
        seen = np.flatnonzero(np.bincount(shifted, minlength=len(encoded[0].dictionary) + 1))
        remap = np.full(len(encoded[0].dictionary) + 1, -1, dtype=np.int64)
        remap[seen] = np.arange(len(seen))
        dictionary = encoded[0].dictionary
        combos = [(None if j == 0 else dictionary[int(j) - 1].as_py(),) for j in seen]
        return remap[shifted], combos
    stack = np.stack(codes, axis=1)
    _, first, inv = np.unique(stack, axis=0, return_index=True, return_inverse=True)
    combos = [tuple(table.column(name)[int(i)].as_py() for name in names) for i in first]
    return inv.reshape(-1), combos


def _repeated_sum(v: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per bin, ``0.0 + v + v + ...`` (``m`` terms, added one at a time, as SQL's ``sum``).

    Up to three terms this is ``m * v + 0.0`` exactly (``v + v`` is exact, so the third
    addition rounds ``3 v`` once, as the product does; ``+ 0.0`` makes a sum of ``-0.0``
    ``+0.0``, as a sum that starts at 0 does).  The few bins with more terms are summed
    term by term (``np.bincount`` adds its weights one at a time, in order).
    """
    with np.errstate(over="ignore"):  # (an overflowing sum is inf, as SQL's)
        out = m * v + 0.0
    big = np.flatnonzero(m > 3)
    if len(big):
        terms = m[big]
        out[big] = np.bincount(np.repeat(np.arange(len(big)), terms),
                               weights=np.repeat(v[big], terms), minlength=len(big))
    return out


def _cell_of_rows(b: np.ndarray, is_pos: np.ndarray) -> dict:
    """One group's exact arrays from its input rows, given by ascending score.

    The same arrays as :func:`_cell` of the ``GROUP BY``'s (label, score) rows: counts per
    distinct score, and sums taken per class and then added, as the ``GROUP BY`` adds its
    per-label sums (all the scores of a bin are one value, so each class's sum is ``v``
    added ``m`` times, in any order: :func:`_repeated_sum`).  The one difference: a bin of
    zeros is ``+0.0`` here, where the ``GROUP BY`` keeps the sign of a zero it met first.
    """
    n_rows = len(b)
    if n_rows:
        first = np.empty(n_rows, dtype=bool)
        first[0] = True
        np.not_equal(b[1:], b[:-1], out=first[1:])
    else:
        first = np.zeros(0, dtype=bool)
    starts = np.flatnonzero(first)
    values = b[starts] + 0.0  # (a bin of zeros is +0.0, whichever signs its rows have)
    counts = np.diff(np.append(starts, n_rows))
    taken = np.cumsum(is_pos, dtype=np.int64)
    pos = taken[np.append(starts[1:], n_rows) - 1] - np.where(starts > 0, taken[starts - 1], 0) \
        if n_rows else np.zeros(0, dtype=np.int64)
    neg = counts - pos
    with np.errstate(over="ignore"):  # (as SQL's c * c)
        squares = values * values
    pos_sum = _repeated_sum(values, pos)
    return {"values": values, "upper": values, "pos": pos.astype(np.int64),
            "neg": neg.astype(np.int64),
            "score_sum": pos_sum + _repeated_sum(values, neg),
            "pos_score_sum": pos_sum,
            "score_sq_sum": _repeated_sum(squares, pos) + _repeated_sum(squares, neg)}


def _cell(b, n, is_pos, s, ss, bins) -> dict:
    """One group's arrays: merge its (label, bin) rows, given by ascending bin, into bins."""
    if len(b):
        first = np.empty(len(b), dtype=bool)
        first[0] = True
        np.not_equal(b[1:], b[:-1], out=first[1:])
    else:
        first = np.zeros(0, dtype=bool)
    codes = b[first]
    inv = np.cumsum(first) - 1
    k = len(codes)
    pos = np.bincount(inv, weights=np.where(is_pos, n, 0), minlength=k)
    neg = np.bincount(inv, weights=np.where(is_pos, 0, n), minlength=k)
    if bins is None:
        values = codes.astype(float)
        upper = values  # each bin is one value (read, never written)
    elif isinstance(bins, int):
        codes = codes.astype(np.int64)
        values, upper = codes / bins, (codes + 1) / bins
    else:
        codes = codes.astype(np.int64)
        if len(codes) and (codes[0] < 0 or codes[-1] > len(bins) - 2):
            where = "below" if codes[0] < 0 else "above"
            raise FairboundError(f"bins: some scores lie {where} the edges "
                                 f"[{float(bins[0])!r}, {float(bins[-1])!r}]; widen the edges",
                                 param="bins")
        values, upper = bins[codes], bins[codes + 1]
    return {"values": values, "upper": upper,
            "pos": np.round(pos).astype(np.int64), "neg": np.round(neg).astype(np.int64),
            "score_sum": np.bincount(inv, weights=s, minlength=k),
            "pos_score_sum": np.bincount(inv, weights=np.where(is_pos, s, 0.0), minlength=k),
            "score_sq_sum": np.bincount(inv, weights=ss, minlength=k)}


def _positive_value(values: tuple, pos_label, label: str):
    """The label value counted as positive (0/1 and booleans: 1 / True)."""
    from fairbound.labels import is_binary_value, resolve_pos_label

    if pos_label is not None:
        return resolve_pos_label(pos_label, values, columns=f"label {label!r}")
    fractional = [v for v in values if isinstance(v, float) and math.isfinite(v)
                  and not float(v).is_integer()]
    if fractional:
        raise FairboundError(f"label: column {label!r} holds fractional values such as "
                             f"{fractional[0]!r}; expected classes (0/1, True/False or text)",
                             param="label")
    if all(is_binary_value(v) for v in values):
        return True if any(isinstance(v, bool | np.bool_) for v in values) else 1
    shown = list(values[:8])
    raise FairboundError(f"pos_label: label {label!r} holds {shown}, not 0/1 or True/False; "
                         "give pos_label, the value of the positive class", param="pos_label")


__all__ = ["MISSING_GROUP", "MISSING_LABEL", "MISSING_SCORE", "ScoreCounts",
           "score_histograms"]
