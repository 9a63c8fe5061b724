"""The one-pass aggregation as SQL, shared by DuckDB and Spark.

Every role (group columns, label, prediction, cost, ``where``) is resolved once into a
:class:`Plan`: a quoted column name or an expression printed from a checked parse tree
(:mod:`fairbound.engines.expr`).  A column called ``x"; DROP TABLE t; --`` is just an odd
column name, and user text is never pasted into a query.

The statistics query groups by (group..., label, prediction, where-flag) and returns per
cell the row count and, for a cost, the count, sum, sum of squares, minimum and maximum;
everything an audit needs, in one scan, with the rows that fail the filter or lack a
value counted rather than silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from fairbound.engines.base import AggregateSpec
from fairbound.engines.expr import Expression, quote_identifier, resolve_term
from fairbound.errors import FairboundError


def quote(name: str, *, char: str = '"') -> str:
    """Quote an identifier for SQL (``char`` is ``"`` for DuckDB, a backtick for Spark)."""
    return char + str(name).replace(char, char * 2) + char


@dataclass(frozen=True)
class Term:
    """One role's input: a plain column or a checked expression."""

    column: str | None = None
    expression: Expression | None = None

    def sql(self, dialect: str) -> str:
        """Print the term as SQL for ``dialect``."""
        if self.expression is not None:
            return self.expression.to_sql(dialect)
        return quote_identifier(self.column, dialect)

    @property
    def reads(self) -> tuple[str, ...]:
        """Columns the term reads."""
        return self.expression.columns if self.expression is not None else (self.column,)

    @property
    def text(self) -> str:
        """What the user wrote."""
        return self.expression.text if self.expression is not None else self.column


@dataclass(frozen=True)
class Plan:
    """Resolved terms of an :class:`AggregateSpec` against the columns of one source."""

    group: tuple[Term, ...]
    label: Term | None
    prediction: Term | None
    cost: Term | None
    where: Term | None
    extra: tuple[Term, ...] = ()

    @property
    def reads(self) -> tuple[str, ...]:
        """Every source column the plan reads (for projection), without repeats."""
        cols: list[str] = []
        for t in (*self.group, self.label, self.prediction, self.cost, self.where,
                  *self.extra):
            if t is not None:
                cols.extend(t.reads)
        return tuple(dict.fromkeys(cols))

    @property
    def confusion(self) -> bool:
        """Whether the plan counts (label, prediction) cells."""
        return self.label is not None and self.prediction is not None

    def roles(self):
        """``(role, term)`` pairs for type checks and messages."""
        out = [("group", t) for t in self.group]
        out += [("label", self.label), ("prediction", self.prediction), ("cost", self.cost)]
        return [(r, t) for r, t in out if t is not None]


def make_plan(spec: AggregateSpec, columns) -> Plan:
    """Resolve every role of ``spec`` against ``columns`` (names or checked expressions).

    A role that names an existing column reads that column; any other text must be a
    valid expression over existing columns, else a one-line error names the role.  The
    ``where`` text is always an expression.
    """
    from fairbound.engines.expr import parse_expression

    cols = list(columns)
    seen: set = set()
    for g in spec.group:
        if g in seen:
            raise FairboundError(f"group: {g!r} is given twice; name each group column once "
                                 "(several different columns form intersections)",
                                 param="group")
        seen.add(g)

    def term(value, param):
        if value is None:
            return None
        col, expr = resolve_term(value, cols, param=param)
        return Term(column=col, expression=expr)

    where = None
    if spec.where is not None:
        where = Term(expression=parse_expression(spec.where, cols, param="where"))
        if where.expression.tree[0] == "col":  # a bare boolean column is fine too
            where = Term(column=where.expression.tree[1])
    return Plan(
        group=tuple(term(g, "group") for g in spec.group),
        label=term(spec.label, "label") if spec.label is not None and spec.prediction else None,
        prediction=(term(spec.prediction, "prediction")
                    if spec.prediction is not None and spec.label else None),
        cost=term(spec.cost, "cost"),
        where=where,
        extra=tuple(term(value, param) for param, value in spec.extra),
    )


def cost_sql(plan: Plan, dialect: str) -> str:
    """Print the cost as DOUBLE with NaN read as missing (``NaN = NaN`` in both dialects)."""
    return (f"nullif(CAST({plan.cost.sql(dialect)} AS DOUBLE), "
            "CAST('NaN' AS DOUBLE))")


def where_sql(plan: Plan, dialect: str) -> str:
    """Print the filter as a never-NULL boolean (NULL counts as 'not true')."""
    return f"coalesce(CAST({plan.where.sql(dialect)} AS BOOLEAN), FALSE)"


def key_columns(plan: Plan) -> list[str]:
    """Output names of the grouping keys, in order: g0.., [y, p], [w]."""
    keys = [f"g{i}" for i in range(len(plan.group))]
    if plan.confusion:
        keys += ["y", "p"]
    if plan.where is not None:
        keys.append("w")
    return keys


def stats_query(plan: Plan, relation: str, *, dialect: str = "duckdb",
                distinct: bool = False) -> str:
    """One ``GROUP BY`` that returns every count and moment the audit needs.

    Columns: the keys of :func:`key_columns`, then ``n`` (rows) and, with a cost, ``nc``
    (non-missing costs), ``s``, ``ss``, ``lo``, ``hi`` and, if ``distinct``, ``nd`` (an
    approximate count of distinct costs, used only to choose how to draw cost samples).
    The keys and the cost are computed once per row in an inner projection.
    """
    exprs = [f"{t.sql(dialect)} AS g{i}" for i, t in enumerate(plan.group)]
    if plan.confusion:
        exprs += [f"{plan.label.sql(dialect)} AS y", f"{plan.prediction.sql(dialect)} AS p"]
    if plan.where is not None:
        exprs.append(f"{where_sql(plan, dialect)} AS w")
    keys = key_columns(plan)
    aggs = ["count(*) AS n"]
    if plan.cost is not None:
        exprs.append(f"{cost_sql(plan, dialect)} AS c")
        aggs += ["count(c) AS nc", "sum(c) AS s", "sum(c * c) AS ss", "min(c) AS lo",
                 "max(c) AS hi"]
        if distinct:
            aggs.append("approx_count_distinct(c) AS nd")
    inner = f"SELECT {', '.join(exprs)} FROM {relation}"
    return (f"SELECT {', '.join(keys + aggs)} FROM ({inner}) t "
            f"GROUP BY {', '.join(keys)}")


def filtered_cost_relation(plan: Plan, relation: str, *, dialect: str = "duckdb",
                           extra: str = "") -> str:
    """``SELECT g.., c [, extra] FROM relation WHERE <filter> AND c IS NOT NULL``."""
    exprs = [f"{t.sql(dialect)} AS g{i}" for i, t in enumerate(plan.group)]
    exprs.append(f"{cost_sql(plan, dialect)} AS c")
    if extra:
        exprs.append(extra)
    cond = [f"{cost_sql(plan, dialect)} IS NOT NULL"]
    cond += [f"{t.sql(dialect)} IS NOT NULL" for t in plan.group]
    if plan.where is not None:
        cond.append(where_sql(plan, dialect))
    return f"SELECT {', '.join(exprs)} FROM {relation} WHERE {' AND '.join(cond)}"


def cost_values_query(plan: Plan, relation: str, *, dialect: str = "duckdb") -> str:
    """Per group, its distinct cost values and their counts, as two lists sorted by value.

    One row per group comes back (columns ``g0..``, ``cs``, ``ns``), whatever the number of
    rows, so turning it into arrays is cheap.
    """
    inner = filtered_cost_relation(plan, relation, dialect=dialect)
    gk = [f"g{i}" for i in range(len(plan.group))]
    counted = (f"SELECT {', '.join(gk)}, c, count(*) AS n FROM ({inner}) t0 "
               f"GROUP BY {', '.join(gk + ['c'])}")
    if dialect == "spark":
        lists = ("transform(array_sort(collect_list(struct(c, n))), x -> x.c) AS cs, "
                 "transform(array_sort(collect_list(struct(c, n))), x -> x.n) AS ns")
    else:
        lists = "list(c ORDER BY c) AS cs, list(n ORDER BY c) AS ns"
    return f"SELECT {', '.join(gk)}, {lists} FROM ({counted}) t1 GROUP BY {', '.join(gk)}"


def hashed_sample_query(plan: Plan, relation: str, u: str, threshold: str, k: int, *,
                        dialect: str = "duckdb") -> str:
    """Per group, the costs of the ``k`` rows with the smallest hash ``u``, sorted by value.

    ``u`` is a SQL expression uniform on [0, 1) per row; ``threshold`` a SQL expression over
    the group keys ``g0..`` that lets about ``k`` rows per group through before the
    ``row_number`` cut, so the window sorts only those.
    """
    inner = filtered_cost_relation(plan, relation, dialect=dialect, extra=f"{u} AS u")
    gk = [f"g{i}" for i in range(len(plan.group))]
    ranked = (f"SELECT {', '.join(gk)}, c, row_number() OVER (PARTITION BY {', '.join(gk)} "
              f"ORDER BY u, c) AS rn FROM ({inner}) t0 WHERE u < {threshold}")
    lists = "array_sort(collect_list(c))" if dialect == "spark" else "list(c ORDER BY c)"
    return (f"SELECT {', '.join(gk)}, {lists} AS cs FROM ({ranked}) t1 "
            f"WHERE rn <= {int(k)} GROUP BY {', '.join(gk)}")


__all__ = ["Plan", "Term", "cost_sql", "cost_values_query", "filtered_cost_relation",
           "hashed_sample_query",
           "key_columns", "make_plan", "quote", "stats_query", "where_sql"]
