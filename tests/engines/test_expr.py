"""User expressions are parsed, checked and re-printed; nothing else reaches SQL."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from fairbound.engines import AggregateSpec, aggregate
from fairbound.engines.expr import parse_expression, resolve_term
from fairbound.errors import FairboundError

COLS = ["score", "g", "y", "split", 'we"ird']


@pytest.mark.parametrize("text, duck, spark", [
    ("score >= 0.5", '("score" >= 0.5)', "(`score` >= 0.5)"),
    ("split = 'test' AND NOT y IS NULL", "((\"split\" = 'test') AND (NOT (\"y\" IS NULL)))",
     "((`split` = 'test') AND (NOT (`y` IS NULL)))"),
    ("CASE WHEN score > 0.7 THEN 2 WHEN score > 0.3 THEN 1 ELSE 0 END",
     '(CASE WHEN ("score" > 0.7) THEN 2 WHEN ("score" > 0.3) THEN 1 ELSE 0 END)',
     "(CASE WHEN (`score` > 0.7) THEN 2 WHEN (`score` > 0.3) THEN 1 ELSE 0 END)"),
    ("CAST(score >= 0.5 AS INTEGER)", 'CAST(("score" >= 0.5) AS BIGINT)',
     "CAST((`score` >= 0.5) AS BIGINT)"),
    ("g IN ('a', 'b')", "(\"g\" IN ('a', 'b'))", "(`g` IN ('a', 'b'))"),
    ("score BETWEEN 0.2 AND 0.4", '("score" BETWEEN 0.2 AND 0.4)',
     "(`score` BETWEEN 0.2 AND 0.4)"),
    ("abs(score - 0.5) < 0.1", '(abs(("score" - 0.5)) < 0.1)', "(abs((`score` - 0.5)) < 0.1)"),
    ('"we""ird" = \'it\'\'s\'', '("we""ird" = \'it\'\'s\')', "(`we\"ird` = 'it''s')"),
    ("lower(g) LIKE 'a%'", "(lower(\"g\") LIKE 'a%')", "(lower(`g`) LIKE 'a%')"),
    ("coalesce(score, 0) > -1", '(coalesce("score", 0) > (- 1))',
     "(coalesce(`score`, 0) > (- 1))"),
])
def test_expressions_print_back_for_both_dialects(text, duck, spark):
    e = parse_expression(text, COLS)
    # DuckDB folds "-1" into a constant in some versions and not in others
    assert e.to_sql("duckdb").replace("(- 1)", "-1") == duck.replace("(- 1)", "-1")
    assert e.to_sql("spark").replace("(- 1)", "-1") == spark.replace("(- 1)", "-1")


def test_columns_read_are_listed():
    e = parse_expression("score >= 0.5 AND split = 'test'", COLS)
    assert e.columns == ("score", "split")


@pytest.mark.parametrize("text, match", [
    ("1; DROP TABLE src", "must be one expression, not several statements"),
    ("score) FROM src; DROP TABLE src; SELECT (1", "several statements|cannot parse"),
    ("(SELECT max(score) FROM src)", "subquery"),
    ("score > (SELECT 1)", "subquery"),
    ("sum(score) > 1", "function 'sum'"),
    ("count(*) > 0", "function 'count'|\\*"),
    ("row_number() OVER () < 10", "window|function"),
    ("score, y", "single expression"),
    ("score AS p", "alias"),
    ("read_csv('/etc/passwd') IS NULL", "function 'read_csv'"),
    ("getenv('HOME') = ''", "function 'getenv'"),
    ("score -- comment", ""),  # a comment alone is harmless: it parses to score
    ("src.score > 0", "qualified name"),
    ("nosuch > 1", "column 'nosuch'"),
    ("score > 0 ORDER BY 1", "ORDER BY"),
    ("1 FROM src", "FROM"),
    ("score > 0 WHERE 1 = 1", "WHERE"),
    ("TRY_CAST(score AS INTEGER) = 1", "TRY_CAST"),
    ("CAST(score AS INTEGER[]) = 1", "cast"),
    ("$1 > 0", "parameter"),
    ("'a' || g = 'ab'", "operator '\\|\\|'"),
])
def test_injection_and_non_scalar_text_is_refused(text, match):
    if not match:
        assert parse_expression(text, COLS).to_sql() == '"score"'
        return
    with pytest.raises(FairboundError, match=match) as info:
        parse_expression(text, COLS, param="where")
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("where:")


def test_empty_and_non_text_are_refused():
    with pytest.raises(FairboundError, match="expected a SQL expression"):
        parse_expression("  ", COLS)
    with pytest.raises(FairboundError, match="expected a SQL expression"):
        parse_expression(3, COLS)
    with pytest.raises(FairboundError, match="longer than"):
        parse_expression("score > 0 AND " * 300 + "TRUE", COLS)


def test_existing_column_wins_over_expression():
    cols = ["score >= 0.5", "score"]
    assert resolve_term("score >= 0.5", cols, param="prediction") == ("score >= 0.5", None)
    col, expr = resolve_term("score < 0.5", cols, param="prediction")
    assert col is None and expr.columns == ("score",)


def test_sql_looking_name_that_is_not_a_column_is_one_line_error():
    bad = 'p"; DROP TABLE src; --'
    with pytest.raises(FairboundError, match=r"prediction: column .* not found") as info:
        resolve_term(bad, COLS, param="prediction")
    assert "\n" not in str(info.value)


def test_sql_looking_column_name_is_just_an_identifier():
    bad = 'p"; DROP TABLE src; --'
    df = pd.DataFrame({"g": ["a", "a", "b", "b"], "y": [1, 0, 1, 0], bad: [1, 0, 0, 0]})
    agg = aggregate(df, AggregateSpec(group=("g",), label="y", prediction=bad))
    assert agg.confusion.sum() == 4
    assert agg.confusion[0, 1, 1] == 1 and agg.confusion[1, 1, 0] == 1


def test_where_cannot_reach_other_tables(tmp_path):
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE preds AS SELECT 'a' AS g, 1 AS y, 1 AS p UNION ALL "
                "SELECT 'b', 0, 0")
    con.execute("CREATE TABLE secret AS SELECT 42 AS x")
    con.close()
    spec = AggregateSpec(group=("g",), label="y", prediction="p",
                         where="g IN (SELECT 'a' FROM secret)")
    with pytest.raises(FairboundError, match="where: a subquery is not allowed"):
        aggregate(f"{db}::preds", spec)
    # the database is opened read-only and is unchanged
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT x FROM secret").fetchall() == [(42,)]
    con.close()
