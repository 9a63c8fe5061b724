"""Safe user expressions: ``--where "split = 'test'"``, ``--pred "score >= 0.5"``.

User text never reaches an engine as text.  It is parsed by DuckDB's own SQL parser
(``json_serialize_sql``), every node of the parse tree is checked against a short list of
scalar constructs (column references, literals, comparisons, ``AND``/``OR``/``NOT``,
arithmetic, ``CASE``, ``CAST``, ``IN``, ``BETWEEN``, ``IS NULL``, ``LIKE`` and a few
scalar functions), every column must exist, and the SQL that runs is printed back from the
checked tree, with identifiers quoted and string literals escaped for the target dialect
(DuckDB or Spark).  Subqueries, several statements, table functions, aggregates, window
functions, comments that swallow the rest of a query and unknown functions are refused
with a one-line :class:`~fairbound.errors.FairboundError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fairbound.errors import FairboundError

MAX_LENGTH = 2000

_COMPARISONS = {
    "COMPARE_EQUAL": "=",
    "COMPARE_NOTEQUAL": "<>",
    "COMPARE_LESSTHAN": "<",
    "COMPARE_GREATERTHAN": ">",
    "COMPARE_LESSTHANOREQUALTO": "<=",
    "COMPARE_GREATERTHANOREQUALTO": ">=",
}
_ARITHMETIC = {"+", "-", "*", "/", "%"}
# name -> (minimum, maximum) number of arguments; all exist under the same name in Spark SQL
_FUNCTIONS = {
    "abs": (1, 1), "round": (1, 2), "floor": (1, 1), "ceil": (1, 1), "sqrt": (1, 1),
    "exp": (1, 1), "ln": (1, 1), "log10": (1, 1), "least": (2, 16), "greatest": (2, 16),
    "lower": (1, 1), "upper": (1, 1), "trim": (1, 1), "nullif": (2, 2),
}
_TYPES = {
    "double": ("DOUBLE", "DOUBLE"), "float": ("DOUBLE", "DOUBLE"),
    "real": ("DOUBLE", "DOUBLE"), "integer": ("BIGINT", "BIGINT"), "int": ("BIGINT", "BIGINT"),
    "bigint": ("BIGINT", "BIGINT"), "boolean": ("BOOLEAN", "BOOLEAN"),
    "bool": ("BOOLEAN", "BOOLEAN"), "varchar": ("VARCHAR", "STRING"),
    "string": ("VARCHAR", "STRING"), "text": ("VARCHAR", "STRING"),
}


@dataclass(frozen=True)
class Expression:
    """A checked scalar expression over known columns.

    Attributes
    ----------
    text : str
        What the user wrote (for messages and reports).
    tree : tuple
        The checked parse tree as nested tuples (the only thing SQL is printed from).
    columns : tuple of str
        Columns the expression reads.
    """

    text: str
    tree: tuple
    columns: tuple[str, ...]

    def to_sql(self, dialect: str = "duckdb") -> str:
        """Print SQL for ``dialect`` (``"duckdb"`` or ``"spark"``), fully parenthesised."""
        return _print(self.tree, dialect)


def quote_identifier(name: str, dialect: str = "duckdb") -> str:
    """Quote a column name: ``"name"`` for DuckDB, a backticked name for Spark."""
    char = "`" if dialect == "spark" else '"'
    return char + str(name).replace(char, char * 2) + char


def quote_string(value: str, dialect: str = "duckdb") -> str:
    """Quote a SQL string literal (quotes doubled; backslashes escaped for Spark)."""
    text = str(value)
    if dialect == "spark":
        text = text.replace("\\", "\\\\")
    return "'" + text.replace("'", "''") + "'"


def parse_expression(text: str, columns, *, param: str = "where") -> Expression:
    """Parse and check a scalar SQL expression over ``columns``.

    Parameters
    ----------
    text : str
        The expression, e.g. ``"score >= 0.5"`` or ``"split = 'test' AND age >= 18"``.
    columns : iterable of str
        Column names that exist in the data.
    param : str
        The parameter the text came from (named in error messages).

    Returns
    -------
    Expression
        The checked expression; :meth:`Expression.to_sql` prints it for an engine.

    Raises
    ------
    FairboundError
        If the text does not parse as exactly one scalar expression built from the allowed
        constructs over existing columns.

    Notes
    -----
    Parsing uses DuckDB's parser on ``SELECT <text>``; anything that makes that more than
    one statement, more than one select item, or adds ``FROM``/``WHERE``/... clauses is
    refused, and so is any node outside the allowed list.  The SQL that runs is printed
    from the checked tree, never copied from ``text``.

    Examples
    --------
    >>> e = parse_expression("score >= 0.5", ["score", "group"], param="prediction")
    >>> e.to_sql()
    '("score" >= 0.5)'
    >>> e.columns
    ('score',)
    """
    import duckdb

    if not isinstance(text, str) or not text.strip():
        raise FairboundError(f"{param}: expected a SQL expression; got {text!r}", param=param)
    if len(text) > MAX_LENGTH:
        raise FairboundError(f"{param}: expression longer than {MAX_LENGTH} characters",
                             param=param)
    known = {str(c) for c in columns}
    con = duckdb.connect()
    try:
        raw = con.execute("SELECT json_serialize_sql(?)", ["SELECT " + text]).fetchone()[0]
    finally:
        con.close()
    ast = json.loads(raw)
    shown = " ".join(text.split())
    if ast.get("error"):
        msg = " ".join(str(ast.get("error_message", "syntax error")).split())
        if "Only SELECT statements" in msg:   # DuckDB's words for "; DROP ..." and the like
            raise FairboundError(f"{param}: {shown!r} must be one expression, not several "
                                 "statements", param=param)
        raise FairboundError(f"{param}: cannot parse {shown!r} as a SQL expression: {msg}",
                             param=param)
    statements = ast.get("statements", [])
    if len(statements) != 1:
        raise FairboundError(f"{param}: {shown!r} must be one expression, not several "
                             "statements", param=param)
    node = statements[0]["node"]
    _check_select_shell(node, shown, param)
    used: list[str] = []
    tree = _convert(node["select_list"][0], known, used, shown, param, top=True)
    return Expression(text=text, tree=tree, columns=tuple(dict.fromkeys(used)))


def _refuse(what: str, shown: str, param: str) -> FairboundError:
    return FairboundError(f"{param}: {what} is not allowed in an expression; got {shown!r}",
                          param=param)


def _check_select_shell(node: dict, shown: str, param: str) -> None:
    if node.get("type") != "SELECT_NODE":
        raise _refuse(f"a {node.get('type', 'query')}", shown, param)
    if len(node.get("select_list", [])) != 1:
        raise FairboundError(f"{param}: {shown!r} must be a single expression (no commas at "
                             "the top level)", param=param)
    clauses = {
        "modifiers": node.get("modifiers") or [],
        "WITH": (node.get("cte_map") or {}).get("map") or [],
        "WHERE": node.get("where_clause"),
        "GROUP BY": node.get("group_expressions") or node.get("group_sets") or [],
        "HAVING": node.get("having"),
        "SAMPLE": node.get("sample"),
        "QUALIFY": node.get("qualify"),
    }
    for name, value in clauses.items():
        if value:
            raise _refuse(f"a {name} clause" if name != "modifiers" else "ORDER BY/LIMIT",
                          shown, param)
    if (node.get("from_table") or {}).get("type") != "EMPTY":
        raise _refuse("a FROM clause", shown, param)


def _convert(e: dict, known: set, used: list, shown: str, param: str, *, top=False) -> tuple:
    """Convert DuckDB's JSON parse tree to a checked tuple tree (whitelist; else refuse)."""
    cls, typ = e.get("class"), e.get("type")
    if e.get("alias"):
        raise _refuse("an alias (AS ...)", shown, param)

    def sub(x):
        return _convert(x, known, used, shown, param)

    if cls == "COLUMN_REF":
        names = e.get("column_names", [])
        if len(names) != 1:
            raise _refuse(f"a qualified name {'.'.join(names)!r}", shown, param)
        name = names[0]
        if name not in known:
            listed = ", ".join(sorted(known)[:20])
            raise FairboundError(f"{param}: column {name!r} in {shown!r} not found; columns "
                                 f"are: {listed}", param=param)
        used.append(name)
        return ("col", name)
    if cls == "CONSTANT":
        lit = e.get("literal", {})
        kind, txt = lit.get("kind"), lit.get("text", "")
        if kind in ("INTEGER", "NUMERIC", "BIGINT", "DOUBLE", "DECIMAL", "HUGEINT"):
            float(txt)  # numeric text only; raises for anything else
            return ("num", txt)
        if kind == "STRING":
            return ("str", txt)
        if kind == "BOOLEAN":
            return ("bool", txt.lower() == "true")
        if kind == "NULL_LITERAL":
            return ("null",)
        raise _refuse(f"a {kind} literal", shown, param)
    if cls == "COMPARISON" and typ in _COMPARISONS:
        return ("bin", _COMPARISONS[typ], sub(e["left"]), sub(e["right"]))
    if cls == "CONJUNCTION" and typ in ("CONJUNCTION_AND", "CONJUNCTION_OR"):
        op = "AND" if typ == "CONJUNCTION_AND" else "OR"
        return ("nary", op, tuple(sub(c) for c in e["children"]))
    if cls == "OPERATOR":
        kids = e.get("children", [])
        if typ == "OPERATOR_NOT" and len(kids) == 1:
            return ("not", sub(kids[0]))
        if typ in ("OPERATOR_IS_NULL", "OPERATOR_IS_NOT_NULL") and len(kids) == 1:
            return ("isnull", typ == "OPERATOR_IS_NULL", sub(kids[0]))
        if typ in ("COMPARE_IN", "COMPARE_NOT_IN") and len(kids) >= 2:
            return ("in", typ == "COMPARE_NOT_IN", sub(kids[0]),
                    tuple(sub(k) for k in kids[1:]))
        if typ == "OPERATOR_COALESCE" and kids:
            return ("func", "coalesce", tuple(sub(k) for k in kids))
        raise _refuse(f"the operator {typ}", shown, param)
    if cls == "BETWEEN":
        return ("between", sub(e["input"]), sub(e["lower"]), sub(e["upper"]))
    if cls == "CASE":
        checks = tuple((sub(c["when_expr"]), sub(c["then_expr"])) for c in e["case_checks"])
        other = e.get("else_expr")
        return ("case", checks, sub(other) if other is not None else ("null",))
    if cls == "CAST":
        if e.get("try_cast"):
            raise _refuse("TRY_CAST", shown, param)
        texpr = e.get("type_expr") or {}
        tname = str(texpr.get("type_name", "")).lower()
        if tname not in _TYPES or texpr.get("children") or texpr.get("schema"):
            raise _refuse(f"a cast to {tname or 'that type'!r}", shown, param)
        return ("cast", sub(e["child"]), tname)
    if cls == "FUNCTION":
        name = str(e.get("function_name", "")).lower()
        args = [a.get("expression") for a in e.get("arguments", [])]
        if (e.get("schema") or e.get("catalog") or e.get("filter") or e.get("distinct")
                or (e.get("order_bys") or {}).get("orders")
                or any(a.get("name") for a in e.get("arguments", []))):
            raise _refuse(f"the call {name!r} with modifiers", shown, param)
        if e.get("is_operator"):
            if name in _ARITHMETIC and len(args) == 2:
                return ("bin", name, sub(args[0]), sub(args[1]))
            if name in ("+", "-") and len(args) == 1:
                return ("neg" if name == "-" else "pos", sub(args[0]))
            if name in ("~~", "!~~") and len(args) == 2:
                return ("like", name == "!~~", sub(args[0]), sub(args[1]))
            raise _refuse(f"the operator {name!r}", shown, param)
        if name not in _FUNCTIONS:
            raise _refuse(f"the function {name!r} (allowed: {', '.join(sorted(_FUNCTIONS))})",
                          shown, param)
        lo, hi = _FUNCTIONS[name]
        if not lo <= len(args) <= hi:
            raise FairboundError(f"{param}: {name}() takes {lo} to {hi} arguments; got "
                                 f"{len(args)} in {shown!r}", param=param)
        return ("func", name, tuple(sub(a) for a in args))
    what = {"SUBQUERY": "a subquery", "STAR": "*", "WINDOW": "a window function",
            "PARAMETER": "a parameter", "LAMBDA": "a lambda"}.get(cls, f"{cls} ({typ})")
    raise _refuse(what, shown, param)


def _print(t: tuple, dialect: str) -> str:
    kind = t[0]
    p = _print
    if kind == "col":
        return quote_identifier(t[1], dialect)
    if kind == "num":
        return t[1]
    if kind == "str":
        return quote_string(t[1], dialect)
    if kind == "bool":
        return "TRUE" if t[1] else "FALSE"
    if kind == "null":
        return "NULL"
    if kind == "bin":
        return f"({p(t[2], dialect)} {t[1]} {p(t[3], dialect)})"
    if kind == "nary":
        return "(" + f" {t[1]} ".join(p(c, dialect) for c in t[2]) + ")"
    if kind == "not":
        return f"(NOT {p(t[1], dialect)})"
    if kind == "neg":
        return f"(- {p(t[1], dialect)})"
    if kind == "pos":
        return p(t[1], dialect)
    if kind == "isnull":
        return f"({p(t[2], dialect)} IS {'' if t[1] else 'NOT '}NULL)"
    if kind == "in":
        items = ", ".join(p(c, dialect) for c in t[3])
        return f"({p(t[2], dialect)} {'NOT ' if t[1] else ''}IN ({items}))"
    if kind == "between":
        return f"({p(t[1], dialect)} BETWEEN {p(t[2], dialect)} AND {p(t[3], dialect)})"
    if kind == "case":
        whens = " ".join(f"WHEN {p(w, dialect)} THEN {p(v, dialect)}" for w, v in t[1])
        return f"(CASE {whens} ELSE {p(t[2], dialect)} END)"
    if kind == "cast":
        target = _TYPES[t[2]][1 if dialect == "spark" else 0]
        return f"CAST({p(t[1], dialect)} AS {target})"
    if kind == "like":
        return f"({p(t[2], dialect)} {'NOT ' if t[1] else ''}LIKE {p(t[3], dialect)})"
    if kind == "func":
        return f"{t[1]}({', '.join(p(a, dialect) for a in t[2])})"
    raise AssertionError(f"unknown node {kind}")  # pragma: no cover - trees come from _convert


def resolve_term(value: Any, columns, *, param: str) -> tuple[str | None, Expression | None]:
    """Resolve a role: an existing column name wins; otherwise a checked expression.

    Returns ``(column, None)`` for a plain column, ``(None, expression)`` for a computed
    one.  A name that is neither an existing column nor a valid expression gives a
    one-line "column not found" error that also says why it is not an expression.
    """
    if value is None:
        return None, None
    known = list(columns)
    if value in known:
        return value, None
    shown = ", ".join(known[:20])
    if not isinstance(value, str) or value.isidentifier():
        raise FairboundError(f"{param}: column {value!r} not found; columns are: {shown}",
                             param=param)
    try:
        expr = parse_expression(value, known, param=param)
    except FairboundError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise FairboundError(
            f"{param}: column {value!r} not found (columns are: {shown}), and it is not a "
            f"valid expression: {reason}", param=param) from None
    if expr.tree[0] == "col":  # a bare identifier: same as the column, always quoted
        return expr.tree[1], None
    return None, expr


__all__ = ["Expression", "parse_expression", "quote_identifier", "quote_string",
           "resolve_term"]
