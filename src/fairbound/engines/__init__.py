"""Engines: read the rows once, where they live, and return per-group statistics.

An audit needs only per-group sufficient statistics (confusion counts and cost moments),
so every engine pushes one ``GROUP BY`` down to where the data is and brings back a table
of a few dozen rows: DuckDB for files, DuckDB databases and in-memory frames
(:mod:`fairbound.engines.duckdb_engine`), Spark for Spark DataFrames
(:mod:`fairbound.engines.spark`).  Both print their SQL from the same plan
(:mod:`fairbound.engines.sql`), and user text (``where``, computed columns) is checked
before any SQL is printed from it (:mod:`fairbound.engines.expr`).
"""

from __future__ import annotations

import os

from fairbound.engines.base import Aggregates, AggregateSpec, CostMoments

ENGINES = ("auto", "duckdb", "spark")


def _check_engine(engine: str) -> str:
    from fairbound._validate import check_choice

    return check_choice(engine, ENGINES, "engine")


def aggregate(data, spec: AggregateSpec, *, engine: str = "auto") -> Aggregates:
    """Aggregate ``data`` to per-group sufficient statistics with the right engine.

    Parameters
    ----------
    data : DataFrame, Table, Dataset, path, glob, list of paths, dict or Spark DataFrame
        pandas (categoricals too), polars (lazy too) or pyarrow data, a dict of numpy
        arrays or a structured array, a CSV / Parquet / JSON-lines file, glob or list of
        files, a DuckDB database as ``"file.duckdb"`` (one table) or
        ``"file.duckdb::table"``, or a Spark DataFrame.
    spec : AggregateSpec
        Columns (or checked expressions) to aggregate, an optional ``where`` filter and
        the cost-sample size.
    engine : {'auto', 'duckdb', 'spark'}
        ``auto`` picks Spark for Spark DataFrames and DuckDB otherwise; ``spark`` with a
        file path reads it with a local (or the active) Spark session.

    Returns
    -------
    Aggregates
        Counts and moments per group, which engine ran, rows scanned, rows excluded by
        reason, and the size of what was collected.

    Notes
    -----
    Only the statistics table leaves the engine; it has one row per (group, label,
    prediction, filter flag) cell whatever the number of input rows.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a", "a", "b", "b"], "y": [1, 0, 1, 1],
    ...                    "score": [0.9, 0.2, 0.4, 0.8], "split": ["test"] * 3 + ["dev"]})
    >>> spec = AggregateSpec(group=("g",), label="y", prediction="score >= 0.5",
    ...                      where="split = 'test'")
    >>> agg = aggregate(df, spec)
    >>> agg.engine, agg.n_rows, agg.excluded
    ('duckdb (in memory)', 4, {"where not true: split = 'test'": 1})
    >>> agg.group_rows()
    {'a': 2, 'b': 1}
    """
    _check_engine(engine)
    is_spark = type(data).__module__.startswith("pyspark")
    if engine == "spark" or (engine == "auto" and is_spark):
        from fairbound.engines.spark import aggregate_spark, read_spark

        if isinstance(data, str | os.PathLike):
            return aggregate_spark(read_spark(data), spec, source=os.fspath(data))
        return aggregate_spark(data, spec)
    from fairbound.engines.duckdb_engine import aggregate_duckdb

    return aggregate_duckdb(data, spec)


def engine_input(data, engine: str = "auto"):
    """``data`` as the chosen engine reads it, for the audit kinds that dispatch on it.

    The prediction-powered and score audits send a Spark DataFrame to Spark and everything
    else to DuckDB (as :func:`aggregate` does with ``engine="auto"``); ``engine="spark"``
    reads a file path with the active Spark session (or a local one) first, as
    ``fairbound audit --engine spark FILE`` does.

    Examples
    --------
    >>> engine_input("preds.csv", "duckdb")
    'preds.csv'
    >>> engine_input("preds.csv", "flink")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: engine must be one of auto, duckdb, spark; got 'flink'
    """
    _check_engine(engine)
    if engine == "spark" and not type(data).__module__.startswith("pyspark"):
        from fairbound.engines.spark import read_spark

        if not isinstance(data, str | os.PathLike):
            from fairbound.errors import FairboundError

            raise FairboundError("engine: 'spark' reads Spark DataFrames and files; got "
                                 f"{type(data).__name__}", param="engine")
        return read_spark(data)
    return data


__all__ = ["ENGINES", "AggregateSpec", "Aggregates", "CostMoments", "aggregate",
           "engine_input"]
