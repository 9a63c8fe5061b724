"""Every candidate slice's confusion counts in one DuckDB scan (``GROUPING SETS``).

Subgroup discovery (:func:`fairbound.discover`) needs, for every conjunction of up to
``depth`` feature conditions, the rows in it and its (label, prediction) counts.  Two scans
read the data where it lives (files, databases and in-memory frames, as
:mod:`fairbound.engines.duckdb_engine` opens them):

1. a *profile* of the feature columns only: approximate distinct counts, missing values and,
   for numeric columns with many values, quantiles (the bin edges); the candidate lattice
   is sized from it, and refused before the main scan when it is too large;
2. one ``GROUP BY GROUPING SETS`` over every subset of at most ``depth`` features (the
   ``CUBE`` cut at ``depth``), with the row count and the four confusion counts of each
   slice, ``HAVING`` at least ``min_support`` rows: the sufficient statistics of every
   candidate.  The complement of a slice is the total minus the slice.

Features are fixed before outcomes are read: bins and the support floor use the feature
columns only.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field

import numpy as np

from fairbound.engines.assemble import py
from fairbound.engines.base import AggregateSpec
from fairbound.errors import FairboundError

#: A numeric feature with more distinct values than this is binned (quantiles by default).
BIN_ABOVE = 10
#: The missing-value level of a feature.
MISSING = "(missing)"
_NUMERIC_TYPE = re.compile(r"^(TINYINT|SMALLINT|INT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|"
                           r"UINTEGER|UBIGINT|FLOAT|DOUBLE|REAL|DECIMAL.*)$", re.IGNORECASE)
_BOOL_OR_NUMBER = re.compile(r"^(BOOLEAN|TINYINT|SMALLINT|INT|INTEGER|BIGINT|HUGEINT|UTINYINT|"
                             r"USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|REAL|DECIMAL.*|"
                             r"\"?NULL\"?)$", re.IGNORECASE)


@dataclass(frozen=True)
class Feature:
    """One feature column as the search sees it: its levels, and bin edges if binned."""

    name: str
    levels: tuple            # level labels, by code
    edges: tuple = ()        # bin edges (numeric features binned), else empty
    binned: bool = False

    def condition(self, code: int) -> str:
        """``name=value`` (or ``name in [a, b)`` for a bin)."""
        return f"{self.name}={self.levels[code]}" if not self.binned else \
            f"{self.name} in {self.levels[code]}"


@dataclass(frozen=True)
class SliceCounts:
    """Per candidate slice: its conditions, rows and confusion counts.

    Attributes
    ----------
    features : tuple of Feature
    keys : numpy.ndarray
        ``(C, F)`` level codes, ``-1`` where the slice puts no condition on a feature; row 0
        is the whole population (no condition).
    support : numpy.ndarray
        Rows in each slice (label and prediction not needed).
    confusion : numpy.ndarray
        ``(C, 2, 2)`` counts by (label, prediction), rows with both present.
    n_rows : int
        Rows scanned.
    excluded : dict
        Rows left out of the metric counts, by reason.
    lattice : dict
        Slices of each depth with at least ``min_support`` rows (what the search covers).
    source, engine : str
    """

    features: tuple
    keys: np.ndarray
    support: np.ndarray
    confusion: np.ndarray
    n_rows: int
    excluded: dict
    lattice: dict
    source: str
    engine: str
    min_support: int = 0
    bins: dict = field(default_factory=dict)


def _lit(value) -> str:
    """A SQL literal for a label value (numbers as numbers, anything else as text)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float) and math.isfinite(value):
        return repr(float(value))
    return "'" + str(value).replace("'", "''") + "'"


def _binary(term_sql: str, typ: str, pos_label, role: str, column: str,
            dialect: str = "duckdb") -> tuple[str, str]:
    """``(boolean SQL, SQL counting bad values)`` for a label or prediction term."""
    if pos_label is None:
        if not _BOOL_OR_NUMBER.match(typ.strip()):
            raise FairboundError(f"{role}: column {column!r} holds {typ} values; name the "
                                 "positive class with pos_label (e.g. pos_label='yes')",
                                 param=role)
        x = f"CAST({term_sql} AS DOUBLE)"
        return f"({x} = 1)", f"count(*) FILTER (WHERE {x} IS NOT NULL AND {x} NOT IN (0, 1))"
    if _BOOL_OR_NUMBER.match(typ.strip()) and isinstance(pos_label, int | float | bool):
        return f"(CAST({term_sql} AS DOUBLE) = {_lit(float(pos_label))})", "0"
    text = "STRING" if dialect == "spark" else "VARCHAR"
    return f"(CAST({term_sql} AS {text}) = {_lit(str(pos_label))})", "0"


def _edges_of(values, bins) -> tuple:
    """Sorted distinct finite edges."""
    out = sorted({float(v) for v in values if v is not None and math.isfinite(float(v))})
    return tuple(out)


def _round_edge(x: float) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    return float(f"{x:.4g}")


def _bin_labels(edges: tuple) -> tuple:
    def f(x):
        return f"{x:g}"

    if not edges:
        return ("(all)",)
    labels = [f"(-inf, {f(edges[0])})"]
    labels += [f"[{f(a)}, {f(b)})" for a, b in itertools.pairwise(edges)]
    labels.append(f"[{f(edges[-1])}, inf)")
    return tuple(labels)


def _case(term_sql: str, edges: tuple) -> str:
    parts = " ".join(f"WHEN {term_sql} < {e!r} THEN {i}" for i, e in enumerate(edges))
    return f"CASE WHEN {term_sql} IS NULL THEN NULL {parts} ELSE {len(edges)} END"


def _rename(exc: FairboundError) -> FairboundError:
    text = str(exc)
    if exc.param == "group" and text.startswith("group:"):
        return FairboundError("features:" + text[len("group:"):], param="features")
    return exc


def count_slices(data, *, features, label, prediction, pos_label, depth: int,
                 min_support: float, max_candidates: int, max_levels: int,
                 bins, needs_label: bool) -> SliceCounts:
    """Profile the features, size the lattice, then count every candidate in one scan.

    Parameters
    ----------
    data : DataFrame, Table, path, ...
        As :func:`fairbound.engines.aggregate` takes it (DuckDB engine).
    features : sequence of str
        Feature columns (or checked expressions).
    label, prediction : str or None
        0/1 (or bool) columns, or any values with ``pos_label``.
    pos_label : object
        The positive class of label and prediction (default 1 / True).
    depth : int
        Most conditions in a slice.
    min_support : float
        Rows (``>= 1``) or a share of all rows (``< 1``) a slice needs.
    max_candidates, max_levels : int
        Refuse a lattice of more slices, or a categorical feature with more values.
    bins : int, dict or None
        Quantile bins for numeric features with more than :data:`BIN_ABOVE` values; a dict
        maps a column to a number of quantile bins or to a list of edges.
    needs_label : bool
        Whether the metric reads the label.

    Returns
    -------
    SliceCounts

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": ["x", "y"] * 50, "y": [0, 1] * 50, "p": [1] * 100})
    >>> c = count_slices(df, features=["a"], label="y", prediction="p", pos_label=None,
    ...                  depth=1, min_support=1, max_candidates=100, max_levels=10,
    ...                  bins=4, needs_label=True)
    >>> c.support.tolist(), c.confusion[0].tolist(), c.lattice
    ([100, 50, 50], [[0, 50], [0, 50]], {1: 2})
    """
    # without a label the plan has no (label, prediction) pair: the prediction (and a label
    # given anyway, checked to exist) are read as extra terms
    extra = () if needs_label else ((("prediction", prediction),) +
                                    ((("label", label),) if label else ()))
    spec = AggregateSpec(group=tuple(features), label=label if needs_label else None,
                         prediction=prediction if needs_label else None, extra=extra)
    args = dict(features=features, label=label, prediction=prediction, pos_label=pos_label,
                depth=depth, min_support=min_support, max_candidates=max_candidates,
                max_levels=max_levels, bins=bins, spec=spec)
    if type(data).__module__.startswith("pyspark"):
        from fairbound.engines.spark import open_spark

        try:
            with open_spark(data, spec) as (source, plan):
                return _count(_SparkRunner(source), plan, **args)
        except FairboundError as exc:
            raise _rename(exc) from None

    import fairbound.engines.duckdb_engine as duck

    with duck.pooled_connection() as con:
        with duck.scan_errors(opening=True):
            try:
                source, plan = duck.open_source(con, data, spec)
            except FairboundError as exc:
                raise _rename(exc) from None
            duck.check_types(con, plan, source.columns, source.description)
        return _count(_DuckRunner(con, source), plan, **args)


class _DuckRunner:
    """Types and results of the discover queries, from DuckDB."""

    dialect = "duckdb"

    def __init__(self, con, source):
        self.con, self.source = con, source
        self.relation = "src"
        self.engine, self.description = source.engine, source.description

    def type_of(self, sql: str) -> str:
        return self.con.execute(f"DESCRIBE SELECT {sql} AS x FROM src").fetchall()[0][1]

    def quantiles(self, x: str, qs: list) -> str:
        return f"approx_quantile({x}, {qs!r})"

    def rows(self, query: str) -> list[dict]:
        from fairbound.engines.duckdb_engine import _fetch_dicts, scan_errors

        with scan_errors(self.source.description):
            return _fetch_dicts(self.con, query)[0]

    def table(self, query: str) -> dict:
        from fairbound.engines.duckdb_engine import scan_errors

        with scan_errors(self.source.description):
            return self.con.sql(query).fetchnumpy()


class _SparkRunner:
    """Types and results of the same queries, printed for Spark SQL (a temporary view)."""

    dialect = "spark"

    def __init__(self, source):
        self.source = source
        self.relation = source.relation
        self.engine, self.description = "spark", source.description

    def type_of(self, sql: str) -> str:
        try:
            return self.source.spark.sql(f"SELECT {sql} AS x FROM {self.relation}"
                                         ).dtypes[0][1]
        except Exception as exc:  # AnalysisException and friends: one line
            from fairbound.engines.spark import _first_line

            raise FairboundError(f"data: Spark could not type {sql[:80]!r}: "
                                 f"{_first_line(exc)}", param="data") from None

    def quantiles(self, x: str, qs: list) -> str:
        return f"percentile_approx({x}, array({', '.join(repr(q) for q in qs)}))"

    def rows(self, query: str) -> list[dict]:
        return self.source.collect(query)[0]

    def table(self, query: str) -> dict:
        rows = self.rows(query)
        names = list(rows[0]) if rows else []
        return {k: np.array([r[k] for r in rows], dtype=object) for k in names}


def _count(run, plan, *, features, label, prediction, pos_label, depth, min_support,
           max_candidates, max_levels, bins, spec) -> SliceCounts:
    """Profile, size the lattice and count every candidate with ``run``'s engine."""
    dialect, src = run.dialect, run.relation
    types = {}
    for i, t in enumerate(plan.group):
        types[i] = run.type_of(t.sql(dialect))
    # ---------------------------------------------------------------- 1. profile
    bins_of = _bins_for(features, bins)
    aggs = ["count(*) AS n"]
    for i, t in enumerate(plan.group):
        x = t.sql(dialect)
        aggs += [f"approx_count_distinct({x}) AS d{i}", f"count({x}) AS c{i}"]
        spec_i = bins_of.get(features[i])
        if _NUMERIC_TYPE.match(types[i]) and not isinstance(spec_i, tuple):
            qs = [j / spec_i for j in range(1, spec_i)]
            aggs.append(f"{run.quantiles(f'CAST({x} AS DOUBLE)', qs)} AS q{i}")
    y_sql, checks = "FALSE", []
    if spec.label is not None:
        ty = run.type_of(plan.label.sql(dialect))
        y_sql, bad_y = _binary(plan.label.sql(dialect), ty, pos_label, "label", label,
                               dialect)
        checks += [f"{bad_y} AS bad_y", f"count(*) FILTER (WHERE {y_sql}) AS py",
                   f"count(*) FILTER (WHERE ({y_sql}) IS NULL) AS my"]
    pterm = plan.prediction if plan.prediction is not None else plan.extra[0]
    tp = run.type_of(pterm.sql(dialect))
    p_sql, bad_p = _binary(pterm.sql(dialect), tp, pos_label, "prediction", prediction,
                           dialect)
    checks += [f"{bad_p} AS bad_p", f"count(*) FILTER (WHERE {p_sql}) AS pp",
               f"count(*) FILTER (WHERE ({p_sql}) IS NULL) AS mp"]
    aggs += checks
    prof = run.rows(f"SELECT {', '.join(aggs)} FROM {src}")
    _check_labels(prof[0], label=spec.label, prediction=prediction, pos_label=pos_label)
    prof = prof[0]
    n_rows = int(prof["n"])
    floor = int(math.ceil(min_support * n_rows)) if min_support < 1 else int(min_support)
    floor = max(floor, 1)
    exprs, feats, sizes = [], [], []
    for i, t in enumerate(plan.group):
        x = t.sql(dialect)
        name = features[i]
        distinct = int(prof[f"d{i}"])
        missing = n_rows - int(prof[f"c{i}"])
        spec_i = bins_of.get(name)
        numeric = bool(_NUMERIC_TYPE.match(types[i]))
        if isinstance(spec_i, tuple) or (numeric and distinct > BIN_ABOVE):
            edges = spec_i if isinstance(spec_i, tuple) else _edges_of(
                (_round_edge(v) for v in (prof.get(f"q{i}") or [])), spec_i)
            if isinstance(spec_i, tuple) and not numeric:
                raise FairboundError(f"bins: column {name!r} holds {types[i]} values; bin "
                                     "edges need numbers", param="bins")
            exprs.append(_case(f"CAST({x} AS DOUBLE)", edges))
            feats.append(Feature(name, _bin_labels(edges), edges, True))
            sizes.append(len(edges) + 1 + (missing > 0))
            continue
        if distinct > max_levels:
            raise FairboundError(
                f"features: column {name!r} has about {distinct:,} distinct values, more "
                f"than max_levels={max_levels}; bin it (bins={{{name!r}: [edges]}} for "
                "numbers) or group its values into fewer categories first",
                param="features")
        exprs.append(x)
        feats.append(Feature(name, ()))
        sizes.append(distinct + (missing > 0))
    bound = sum(math.prod(sizes[j] for j in combo)
                for d in range(1, depth + 1)
                for combo in itertools.combinations(range(len(sizes)), d))
    if bound > max_candidates:
        raise FairboundError(
            f"depth: depth={depth} over {len(sizes)} features gives up to {bound:,} "
            f"candidate slices, more than max_candidates={max_candidates:,}; lower depth, "
            "search fewer features, bin them more coarsely, or raise max_candidates",
            param="depth")
    # ---------------------------------------------------------------- 2. one scan
    inner = [f"{e} AS f{i}" for i, e in enumerate(exprs)]
    # a row counts in the confusion cells only with both label and prediction
    both = f"({y_sql}) IS NOT NULL AND ({p_sql}) IS NOT NULL"
    inner += [f"CASE WHEN {both} THEN CAST({y_sql} AS TINYINT) END AS y",
              f"CASE WHEN {both} THEN CAST({p_sql} AS TINYINT) END AS p"]
    fcols = [f"f{i}" for i in range(len(exprs))]
    sets = ["()"] + [f"({', '.join(fcols[j] for j in combo)})"
                     for d in range(1, depth + 1)
                     for combo in itertools.combinations(range(len(fcols)), d)]
    grouping = [f"GROUPING({c}) AS r{i}" for i, c in enumerate(fcols)]
    # Two stages: the finest cells first (one GROUP BY of every feature), then the grouping
    # sets over those cells.  Counts and sums of 0/1 values add up exactly, so every number
    # is the one a GROUPING SETS scan of the rows gives; the sets then aggregate cells, not
    # rows (10M rows, 6 features of 10 levels, depth 3 in DuckDB: 13.7 s -> 4.0 s, against
    # 3.3 s for the bare GROUP BY CUBE; benchmarks/discover_scale.py).
    finest = (f"SELECT {', '.join(fcols)}, count(*) AS n, count(y) AS nv, sum(y) AS sy, "
              f"sum(p) AS sp, sum(y * p) AS s11 "
              f"FROM (SELECT {', '.join(inner)} FROM {src}) t GROUP BY {', '.join(fcols)}")
    cells = ["CAST(sum(n) AS BIGINT) AS n", "CAST(sum(nv) AS BIGINT) AS nv", "sum(sy) AS sy",
             "sum(sp) AS sp", "sum(s11) AS s11"]
    all_rolled = " AND ".join(f"GROUPING({c}) = 1" for c in fcols)
    query = (f"SELECT {', '.join(fcols + grouping + cells)} "
             f"FROM ({finest}) c "
             f"GROUP BY GROUPING SETS ({', '.join(sets)}) "
             f"HAVING sum(n) >= {floor} OR ({all_rolled})")
    table = run.table(query)
    excluded = {}
    if spec.label is not None and int(prof["my"]):
        excluded["missing label"] = int(prof["my"])
    if int(prof["mp"]):
        excluded["missing prediction"] = int(prof["mp"])
    return _assemble(table, feats, len(fcols), n_rows, floor, depth, run, excluded,
                     bins={f.name: list(f.edges) for f in feats if f.binned})


def _check_labels(prof: dict, *, label, prediction, pos_label) -> None:
    """One-line errors for label or prediction values that are not 0/1, or no positive."""
    for role, col, bad in (("label", label, "bad_y"), ("prediction", prediction, "bad_p")):
        if bad in prof and int(prof[bad] or 0) > 0:
            raise FairboundError(f"{role}: column {col!r} has values other than 0 and 1 "
                                 "(or true/false); name the positive class with pos_label",
                                 param=role)
    if pos_label is not None:
        hits = int(prof["pp"]) + (int(prof["py"]) if label else 0)
        if hits == 0:
            raise FairboundError(f"pos_label: {pos_label!r} matches no value of "
                                 f"{'label or prediction' if label else 'prediction'}",
                                 param="pos_label")


def _bins_for(features, bins) -> dict:
    """Per feature: an int (quantile bins) or a tuple of edges."""
    from fairbound._validate import check_int

    def one(value, name):
        if isinstance(value, int | np.integer) and not isinstance(value, bool):
            return check_int(value, "bins", low=2, high=100)
        try:
            edges = tuple(sorted({float(v) for v in value}))
        except (TypeError, ValueError):
            raise FairboundError(f"bins: edges for {name!r} must be numbers; got "
                                 f"{value!r:.60}", param="bins") from None
        if not edges or not all(math.isfinite(e) for e in edges):
            raise FairboundError(f"bins: edges for {name!r} must be finite numbers; got "
                                 f"{value!r:.60}", param="bins")
        return edges

    if bins is None:
        bins = 4
    if isinstance(bins, dict):
        unknown = [k for k in bins if k not in features]
        if unknown:
            raise FairboundError(f"bins: {unknown[0]!r} is not one of the features "
                                 f"({', '.join(features)})", param="bins")
        return {name: one(bins.get(name, 4), name) for name in features}
    return {name: one(bins, name) for name in features}


def _assemble(table: dict, feats: list, n_f: int, n_rows: int, floor: int, depth: int,
              source, excluded: dict, *, bins) -> SliceCounts:
    from fairbound.labels import sort_key

    n = np.asarray(table["n"], dtype=np.int64)
    rolled = np.stack([np.asarray(table[f"r{i}"], dtype=np.int64) for i in range(n_f)],
                      axis=1) if n_f else np.zeros((len(n), 0), dtype=np.int64)
    keys = np.full((len(n), n_f), -1, dtype=np.int64)
    out_feats = []
    for i, f in enumerate(feats):
        vals = table[f"f{i}"]
        grouped = rolled[:, i] == 0
        raw = np.asarray(vals, dtype=object)
        if hasattr(vals, "mask"):
            mask = np.asarray(np.ma.getmaskarray(vals))
        else:
            mask = np.array([v is None or (isinstance(v, float) and math.isnan(v))
                             for v in raw])
        present = grouped & ~mask
        missing = grouped & mask
        if f.binned:
            codes = np.where(present, raw, 0).astype(np.int64)
            levels = list(f.levels)
            if missing.any():
                levels.append(MISSING)
                codes[missing] = len(levels) - 1
            keys[grouped, i] = codes[grouped]
            out_feats.append(Feature(f.name, tuple(levels), f.edges, True))
            continue
        import pandas as pd

        codes, found = pd.factorize(pd.Series(raw[present], dtype=object), sort=False)
        plain = [py(v) for v in found]
        uniq = sorted(set(plain), key=sort_key)
        index = {v: j for j, v in enumerate(uniq)}
        remap = np.array([index[v] for v in plain], dtype=np.int64)
        levels = [str(v) for v in uniq]
        if missing.any():
            levels.append(MISSING)
        keys[np.flatnonzero(present), i] = remap[codes]
        keys[missing, i] = len(levels) - 1
        out_feats.append(Feature(f.name, tuple(levels)))
    def col(name):
        x = table[name]
        if x.dtype == object:   # Spark: Python ints, None for the sum of no rows
            x = np.array([0 if v is None else v for v in x])
        return np.asarray(np.ma.filled(x, 0) if np.ma.isMaskedArray(x) else x,
                          dtype=np.int64)

    nv, sy, sp, s11 = col("nv"), col("sy"), col("sp"), col("s11")
    conf = np.stack([np.stack([nv - sy - sp + s11, sp - s11], axis=-1),
                     np.stack([sy - s11, s11], axis=-1)], axis=1)
    # the whole population first, then by depth and key
    depth_of = (keys >= 0).sum(axis=1)
    order = np.lexsort(tuple(keys[:, j] for j in range(n_f - 1, -1, -1)) + (depth_of,))
    keys, n, conf, depth_of = keys[order], n[order], conf[order], depth_of[order]
    total = 0  # depth 0 sorts first
    lattice = {d: int((depth_of == d).sum()) for d in range(1, depth + 1)}
    assert depth_of[total] == 0
    return SliceCounts(tuple(out_feats), keys, n, conf, n_rows, excluded, lattice,
                       source.description, source.engine, floor, bins)


__all__ = ["BIN_ABOVE", "MISSING", "Feature", "SliceCounts", "count_slices"]
