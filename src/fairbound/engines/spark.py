"""Spark engine: the same one-pass aggregation as a Spark ``GROUP BY``.

The query is the one DuckDB runs (:func:`fairbound.engines.sql.stats_query`), printed in
Spark's dialect (backtick-quoted identifiers, checked expressions re-printed for Spark),
run over a temporary view of the DataFrame.  Only the small statistics table is
collected to the driver, and it is assembled by the same code as DuckDB's
(:func:`fairbound.engines.assemble.assemble`), so both engines give identical counts.

The other audit kinds run their own statistics query the same way, through
:func:`open_spark` (the temporary view, the plan, the type checks) and
:meth:`SparkSource.collect`: the prediction-powered audit
(:func:`fairbound.engines.ppi.ppi_query` / ``score_query``) and the score audit's
histograms (:func:`fairbound.engines.scores.histogram_query`).
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from dataclasses import dataclass

from fairbound.engines.assemble import (
    assemble,
    collected_size,
    sample_from_hashed,
    sample_from_values,
)
from fairbound.engines.base import Aggregates, AggregateSpec
from fairbound.engines.expr import quote_identifier
from fairbound.engines.sql import (
    Plan,
    cost_values_query,
    hashed_sample_query,
    make_plan,
    stats_query,
)
from fairbound.errors import FairboundError, require

_NESTED = ("array", "struct", "map", "binary", "variant")
_NUMERIC = ("byte", "short", "int", "long", "float", "double", "decimal", "boolean",
            "tinyint", "smallint", "bigint", "void")  # void: a column of NULLs only


def _first_line(exc: Exception) -> str:
    text = [t for t in str(exc).strip().splitlines() if t.strip()]
    return " ".join(text[0].split())[:300] if text else type(exc).__name__


def _collect(spark, query: str, args=None) -> tuple[list[dict], int]:
    """Run ``query`` and collect its (small) result as dicts, with its size in bytes."""
    df = spark.sql(query, args=args) if args else spark.sql(query)
    rows = [r.asDict() for r in df.collect()]
    return rows, collected_size(rows)


def _type_of(spark, types: dict, term, role: str, view: str) -> str:
    """Spark's type of a role's column or checked expression (lower case)."""
    if term.expression is None:
        return types[term.column].lower()
    try:
        return spark.sql(f"SELECT {term.sql('spark')} AS x FROM {view}").dtypes[0][1].lower()
    except Exception as exc:  # AnalysisException and friends
        raise FairboundError(f"{role}: expression {term.text!r} does not type-check in "
                             f"Spark: {_first_line(exc)}", param=role) from None


def check_plain(source: SparkSource, term, role: str, *, numeric: bool = False,
                boolean: bool = True) -> None:
    """One-line error unless ``term`` holds plain values.

    ``numeric``: numbers (booleans among them unless ``boolean`` is false).
    """
    typ = _type_of(source.spark, source.columns, term, role, source.relation)
    if typ.startswith(_NESTED):
        raise FairboundError(f"{role}: column {term.text!r} has type {typ}; expected plain "
                             "values (numbers, strings, booleans)", param=role)
    if numeric and (not typ.startswith(_NUMERIC) or (not boolean and typ == "boolean")):
        raise FairboundError(f"{role}: column {term.text!r} has type {typ}; expected "
                             "numbers", param=role)


def check_types(source: SparkSource, plan: Plan) -> None:
    """One-line errors for roles of the wrong type (the ``cost`` role must be numbers)."""
    for role, term in plan.roles():
        check_plain(source, term, role, numeric=role == "cost")
    if plan.where is not None and _type_of(source.spark, source.columns, plan.where, "where",
                                           source.relation) not in ("boolean", "void"):
        raise FairboundError(f"where: {plan.where.text!r} is not a true/false condition",
                             param="where")


@dataclass(frozen=True)
class SparkSource:
    """A Spark DataFrame registered as a temporary view, for the engines' queries.

    ``relation`` is the quoted view name to put in a query's ``FROM``; ``columns`` maps
    column names to Spark's type names; ``description`` is what the report calls it.
    """

    spark: object
    relation: str
    columns: dict
    description: str

    def collect(self, query: str, args=None) -> tuple[list[dict], int]:
        """Run ``query`` (Spark SQL, ``?`` parameters in ``args``) and collect its rows.

        Errors other than :class:`FairboundError` become one line naming ``data``.
        """
        try:
            return _collect(self.spark, query, list(args) if args else None)
        except FairboundError:
            raise
        except Exception as exc:  # Spark raises many exception types; keep it one line
            raise FairboundError(f"data: Spark could not aggregate: {_first_line(exc)}",
                                 param="data") from None


@contextmanager
def open_spark(df, spec: AggregateSpec, *, check: bool = True):
    """Register ``df`` as a uniquely named temporary view; yield ``(source, plan)``.

    The roles of ``spec`` are resolved against the frame's columns (:func:`make_plan`) and,
    with ``check``, type-checked as for an audit (the ``cost`` role as numbers).  The view
    is dropped on exit.  Used by every kind of audit that runs on a Spark DataFrame.
    """
    require("pyspark.sql", "spark")
    if not type(df).__module__.startswith("pyspark"):
        raise FairboundError("data: engine='spark' needs a Spark DataFrame; got "
                             f"{type(df).__name__}", param="engine")
    spark = df.sparkSession
    plan = make_plan(spec, df.columns)
    view = f"fairbound_src_{uuid.uuid4().hex}"
    df.createOrReplaceTempView(view)
    try:
        source = SparkSource(spark, quote_identifier(view, "spark"), dict(df.dtypes),
                             "Spark DataFrame")
        if check:
            check_types(source, plan)
        yield source, plan
    finally:
        spark.catalog.dropTempView(view)


def aggregate_spark(df, spec: AggregateSpec, *, source: str | None = None) -> Aggregates:
    """Aggregate a Spark DataFrame with a Spark ``GROUP BY``; collect only the statistics.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        The predictions.
    spec : AggregateSpec
        What to aggregate (columns, checked expressions, ``where``, cost samples).
    source : str, optional
        What the DataFrame was read from (for the report); default "Spark DataFrame".

    Returns
    -------
    Aggregates
        The same statistics as :func:`fairbound.engines.duckdb_engine.aggregate_duckdb`
        on the same rows; ``collected_bytes`` is the size of what reached the driver.

    Notes
    -----
    Exact cost samples come from per-group value counts, as in DuckDB, and are identical
    to DuckDB's.  When the costs have more than ``spec.max_cost_values`` distinct values
    the sample is a bottom-k of ``xxhash64`` over the row's audited columns (DuckDB uses
    its own hash), so hashed samples differ between the two engines although both are
    uniform samples without replacement.

    Examples
    --------
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()  # doctest: +SKIP
    >>> sdf = spark.createDataFrame([("a", 1, 1), ("b", 1, 0)], ["g", "y", "p"])  # doctest: +SKIP
    >>> spec = AggregateSpec(group=("g",), label="y", prediction="p")
    >>> aggregate_spark(sdf, spec).groups  # doctest: +SKIP
    ('a', 'b')
    """
    with open_spark(df, spec) as (src, plan):
        want = spec.keep_cost_sample > 0 and plan.cost is not None
        rows, nbytes = src.collect(stats_query(plan, src.relation, dialect="spark",
                                               distinct=want))
        samples = None
        if want:
            try:
                samples, more = _samples(src.spark, plan, spec, rows, src.relation)
            except FairboundError:
                raise
            except Exception as exc:  # Spark raises many exception types; keep it one line
                raise FairboundError(f"data: Spark could not aggregate: {_first_line(exc)}",
                                     param="data") from None
            nbytes += more
        n = sum(int(r["n"]) for r in rows)
        desc = f"{source} ({n} rows)" if source else f"Spark DataFrame ({n} rows)"
        return assemble(rows, plan, spec, engine="spark", source=desc,
                        samples=samples, collected_bytes=nbytes)


def spark_session():
    """Return the active Spark session, or start a local one (all cores, no UI)."""
    sql = require("pyspark.sql", "spark")
    active = sql.SparkSession.getActiveSession()
    if active is not None:
        return active
    return (sql.SparkSession.builder.master("local[*]").appName("fairbound")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false").getOrCreate())


def read_spark(path) -> object:
    """Read a CSV, Parquet or JSON-lines file (or glob) as a Spark DataFrame.

    Used by ``fairbound audit --engine spark FILE``; errors are one line.
    """
    import os

    from fairbound.engines.duckdb_engine import _file_kind, _has_glob

    text = os.fspath(path)
    kind = _file_kind(text)
    if kind == "database":
        raise FairboundError("data: DuckDB databases are read by the duckdb engine, not Spark",
                             param="engine")
    if not _has_glob(text):
        if not os.path.exists(text):
            raise FairboundError(f"data: file not found: {text!r}", param="data")
        if os.path.getsize(text) == 0:
            raise FairboundError(f"data: file is empty: {text!r}", param="data")
    spark = spark_session()
    try:
        if kind == "parquet":
            return spark.read.parquet(text)
        if kind == "csv":
            sep = "\t" if ".tsv" in text.lower() else ","
            return spark.read.csv(text, header=True, inferSchema=True, sep=sep)
        return spark.read.json(text)
    except Exception as exc:  # AnalysisException and friends
        raise FairboundError(f"data: Spark cannot read {text!r} as {kind}: "
                             f"{_first_line(exc)}", param="data") from None


def _samples(spark, plan: Plan, spec: AggregateSpec, rows, relation: str):
    from fairbound.engines.duckdb_engine import _threshold_case, sample_sizes

    sizes, distinct = sample_sizes(rows, plan)
    k = int(spec.keep_cost_sample)
    n_group = len(plan.group)
    if distinct <= spec.max_cost_values:
        vals, nbytes = _collect(spark, cost_values_query(plan, relation, dialect="spark"))
        out, complete = sample_from_values(vals, n_group, k, spec.seed)
        return (out, complete, "value counts, hypergeometric"), nbytes
    cols = ", ".join(quote_identifier(c, "spark") for c in plan.reads)
    u = (f"((CAST(xxhash64({cols}, {int(spec.seed)}) AS DOUBLE) + 9.223372036854775808E18) "
         "/ 1.8446744073709551616E19)")
    threshold, args = _threshold_case(sizes, n_group, k)
    query = hashed_sample_query(plan, relation, u, threshold, k, dialect="spark")
    got, nbytes = _collect(spark, query, args)
    out, complete = sample_from_hashed(got, n_group, k, sizes)
    return (out, complete, "hashed rows (bottom-k)"), nbytes


__all__ = ["SparkSource", "aggregate_spark", "check_plain", "check_types", "open_spark",
           "read_spark", "spark_session"]
