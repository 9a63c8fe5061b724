"""Counts for prediction-powered audits: one ``GROUP BY`` over gold, proxy and prediction.

A prediction-powered audit (:func:`fairbound.audits.ppi.audit.ppi_audit`) reads, per group, how
many rows have each combination of (labeled or not, gold label, proxy label, prediction):
``GROUP BY group, label IS NULL, label, proxy, prediction`` in one scan, through DuckDB
(files, globs, DuckDB databases, pandas / polars / Arrow data, dicts of arrays), with the
source opened and type-checked exactly as the main audit opens it
(:func:`fairbound.engines.duckdb_engine.open_source`), or through Spark SQL for a Spark
DataFrame: the same query (:func:`ppi_query`, :func:`score_query`) printed for Spark and
run over a temporary view (:func:`fairbound.engines.spark.open_spark`); the rows it returns
are assembled by the same code, so both engines give the same counts.

* A missing gold label means **unlabeled**, not excluded: such a row carries only the
  proxy label and the prediction.
* A missing group, prediction or proxy label excludes the row; it is counted under its
  reason (``"missing group (not annotated)"``, ``"missing prediction"``,
  ``"missing proxy"``), as are rows failing ``where``.
* Gold labels, proxy labels and predictions are read as classes by
  :func:`fairbound.labels.label_setup`, as in the main audit (0/1, booleans, a two-valued
  column with ``pos_label``, a checked expression such as ``"judge_score >= 0.5"``), and
  must be binary; they come back as 0/1 with 1 the positive class.

The result, :class:`PPITable`, holds plain count arrays; the statistics on them live in
:mod:`fairbound.stats.ppi` (``PPICounts``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from fairbound._validate import check_expression, check_where
from fairbound.engines.assemble import (
    MISSING_PREDICTION,
    Excluded,
    check_kept,
    is_missing,
    kept_rows,
    py,
)
from fairbound.engines.base import AggregateSpec
from fairbound.engines.sql import Plan, Term, where_sql
from fairbound.errors import FairboundError
from fairbound.labels import BINARY, label_setup, sort_key

MISSING_PROXY = "missing proxy"


@dataclass(frozen=True)
class PPITable:
    """Per-group counts of rows by (gold label, proxy label, prediction), labeled or not.

    Attributes
    ----------
    groups : tuple
        Group labels, sorted (intersections are tuples).
    labeled : numpy.ndarray
        Counts of shape ``(G, 2, 2, 2)`` indexed ``[group, y, f, pred]`` over the rows with
        a gold label (``y``: gold, ``f``: proxy, ``pred``: prediction; 1 is the positive
        class).
    unlabeled : numpy.ndarray
        Counts of shape ``(G, 2, 2)`` indexed ``[group, f, pred]`` over the rows without one.
    classes : tuple
        The two classes as the label column holds them, negative first.
    positive : object
        The positive class (``classes[1]``).
    n_rows : int
        Rows scanned (before any ``where`` filter).
    excluded : dict
        Reason -> rows left out (a missing gold label is not a reason: such rows are
        unlabeled).
    engine, source : str
        What ran and what it read.
    columns : dict
        The group, label, proxy and prediction columns (or expressions) read.
    batches : tuple of int or None
        With recorded sampling probabilities: the batches holding labeled rows (0: labeled
        without a recorded probability, taken as a uniform sample of its group); ``None``
        for an unweighted table.
    weights : numpy.ndarray or None
        With recorded sampling probabilities: shape ``(3, G, K, 2, 2, 2)``, per group, batch
        and cell ``[y, f, pred]`` of the labeled rows, their number, the sum of ``1 / pi``
        and the sum of ``1 / pi^2`` (batch 0: ``pi = n_0 / M`` of the group).
    scores : tuple of numpy.ndarray or None
        With a score proxy (``proxy_kind="score"``): ``(labeled, unlabeled)`` of shapes
        ``(G, 3, 2, 2)`` (per cell ``[y, pred]``: count, ``sum f``, ``sum f^2``) and
        ``(G, 3, 2)`` (per prediction).  ``labeled`` and ``unlabeled`` then count the
        proxy label ``f >= 0.5`` (for the agreement and sampling checks).
    """

    groups: tuple
    labeled: np.ndarray = field(repr=False)
    unlabeled: np.ndarray = field(repr=False)
    classes: tuple
    positive: Any
    n_rows: int
    excluded: dict
    engine: str
    source: str
    columns: dict = field(default_factory=dict)
    batches: tuple | None = None
    weights: np.ndarray | None = field(default=None, repr=False)
    scores: tuple | None = field(default=None, repr=False)

    @property
    def weighted(self) -> bool:
        """Whether the labels come with recorded sampling probabilities."""
        return self.batches is not None

    def group_rows(self) -> dict:
        """Rows per group (labeled and unlabeled)."""
        tot = self.labeled.sum(axis=(1, 2, 3)) + self.unlabeled.sum(axis=(1, 2))
        return {g: int(n) for g, n in zip(self.groups, tot, strict=True)}

    def group_labeled(self) -> dict:
        """Rows with a gold label, per group."""
        return {g: int(n) for g, n in zip(self.groups, self.labeled.sum(axis=(1, 2, 3)),
                                          strict=True)}


def _groups(group) -> tuple[str, ...]:
    if isinstance(group, str):
        groups: tuple = (group,)
    elif isinstance(group, list | tuple):
        groups = tuple(group)
    else:
        groups = ()
    if not groups or not all(isinstance(g, str) and g for g in groups):
        raise FairboundError(f"group must be a column name or a list of them; got {group!r}",
                             param="group")
    return groups


def _as_proxy(exc: FairboundError) -> FairboundError:
    """An error about the ``cost`` slot (where the proxy travels) re-worded for ``proxy``."""
    if exc.param != "cost":
        return exc
    text = str(exc)
    if text.startswith("cost:"):
        text = "proxy:" + text[len("cost:"):]
    return FairboundError(text.replace("cost ", "proxy "), param="proxy")


def _as_proxy_setup(exc: FairboundError, proxy: str) -> FairboundError:
    """An error of :func:`label_setup` about the 'prediction' side, re-worded for the proxy."""
    if exc.param != "prediction":
        return exc
    text = str(exc).replace(f"prediction {proxy!r}", f"proxy {proxy!r}")
    if text.startswith("prediction:"):
        text = "proxy:" + text[len("prediction:"):]
    return FairboundError(text, param="proxy")


def _check_proxy_type(con, term: Term, source) -> None:
    import duckdb

    from fairbound.engines.duckdb_engine import _NESTED, _first_line

    if term.expression is None:
        typ = source.columns[term.column]
    else:
        try:
            typ = con.execute(f"DESCRIBE SELECT {term.sql('duckdb')} AS x FROM src"
                              ).fetchall()[0][1]
        except duckdb.Error as exc:
            raise FairboundError(f"proxy: expression {term.text!r} does not type-check: "
                                 f"{_first_line(exc)}", param="proxy") from None
    if _NESTED.search(str(typ)):
        raise FairboundError(f"proxy: column {term.text!r} in {source.description} has type "
                             f"{typ}; expected plain values (numbers, strings, booleans)",
                             param="proxy")


def _check_mixed_proxy(data, term: Term) -> None:
    """A pandas proxy column mixing numbers and text is refused, as labels are."""
    if term.column is None or type(data).__module__.split(".")[0] != "pandas":
        return
    if type(data).__name__ != "DataFrame" or term.column not in data.columns:
        return
    col = data[term.column]
    if str(getattr(col, "dtype", "")) != "object":
        return
    from fairbound.engines.duckdb_engine import mixed_values

    pair = mixed_values(col)
    if pair is not None:
        a, b = pair
        raise FairboundError(f"proxy: column {term.column!r} mixes numbers and text ({a!r} "
                             f"and {b!r}); give every row one type", param="proxy")


def _floor(x: str, dialect: str) -> str:
    """``floor(x)`` of a DOUBLE as a DOUBLE, as DuckDB computes it, in either dialect.

    Spark's ``floor`` of a DOUBLE is a BIGINT, which overflows (an error under ANSI mode)
    beyond 2^63 and has no infinities; every DOUBLE of magnitude 2^52 or more is already a
    whole number, so Spark floors only the smaller ones.
    """
    if dialect != "spark":
        return f"floor({x})"
    return f"CASE WHEN abs({x}) < 4.503599627370496E15 THEN CAST(floor({x}) AS DOUBLE) ELSE {x} END"


def ppi_query(plan: Plan, proxy: Term, relation: str = "src", *,
              probability: Term | None = None, batch: Term | None = None,
              dialect: str = "duckdb") -> str:
    """The one ``GROUP BY group, label IS NULL, label, proxy, prediction``.

    Printed for ``dialect`` (``"duckdb"`` or ``"spark"``): the same query runs on both
    engines (``count(*) FILTER (WHERE ...)`` is Spark SQL too); two spellings differ where
    Spark lacks DuckDB's behaviour (:func:`_floor`, and ``1 / 0.0``, which is ``inf`` in
    DuckDB but an error in ANSI Spark).

    Columns: ``g0..`` (group keys), ``u`` (the gold label is missing), ``y``, ``f``,
    ``p`` (gold, proxy, prediction), ``w`` (the filter, when there is one) and ``n``.
    With a sampling ``probability`` also the keys ``b`` (the batch, when given) and ``qn``
    (the probability is missing), and per cell ``sw = sum(1 / q)``, ``sw2 = sum(1 / q^2)``,
    ``qmin``, ``qmax`` and ``bfrac`` (rows whose batch is not a whole number).
    """
    exprs = [f"{t.sql(dialect)} AS g{i}" for i, t in enumerate(plan.group)]
    exprs += [f"{plan.label.sql(dialect)} AS y", f"{proxy.sql(dialect)} AS f",
              f"{plan.prediction.sql(dialect)} AS p"]
    keys = [f"g{i}" for i in range(len(plan.group))] + ["u", "y", "f", "p"]
    if plan.where is not None:
        exprs.append(f"{where_sql(plan, dialect)} AS w")
        keys.append("w")
    sums = ""
    if probability is not None:
        exprs.append(f"nullif(CAST({probability.sql(dialect)} AS DOUBLE), "
                     "CAST('NaN' AS DOUBLE)) AS q")
        keys.append("qn")
        if batch is not None:
            exprs.append(f"nullif(CAST({batch.sql(dialect)} AS DOUBLE), "
                         "CAST('NaN' AS DOUBLE)) AS bx")
            keys.append("b")
        inv2 = "1.0 / (q * q)"
        if dialect == "spark":  # DuckDB's 1 / 0.0 is inf; ANSI Spark raises (q * q underflows)
            inv2 = "CASE WHEN q * q > 0 THEN 1.0 / (q * q) ELSE CAST('Infinity' AS DOUBLE) END"
        sums = (", sum(CASE WHEN q > 0 THEN 1.0 / q END) AS sw, "
                f"sum(CASE WHEN q > 0 THEN {inv2} END) AS sw2, "
                "min(q) AS qmin, max(q) AS qmax")
        if batch is not None:
            sums += f", count(*) FILTER (WHERE bx <> {_floor('bx', dialect)}) AS bfrac"
    inner = f"SELECT {', '.join(exprs)} FROM {relation}"
    derived = "(y IS NULL) AS u"
    if probability is not None:
        derived += ", (q IS NULL) AS qn"
        if batch is not None:
            derived += f", {_floor('bx', dialect)} AS b"
    return (f"SELECT {', '.join(keys)}, count(*) AS n{sums} FROM "
            f"(SELECT *, {derived} FROM ({inner}) t0) t GROUP BY {', '.join(keys)}")


def ppi_counts(data, *, group, label: str, proxy: str, prediction: str, pos_label=None,
               where: str | None = None, sampling_probability: str | None = None,
               batch: str | None = None, proxy_kind: str = "label") -> PPITable:
    """Per-group counts of (labeled, gold, proxy, prediction) from one scan.

    Parameters
    ----------
    data : path, glob, list of paths, DataFrame, Table, dict, DuckDB database or Spark DataFrame
        What :func:`fairbound.engines.aggregate` reads: DuckDB for files and in-memory
        data, Spark SQL for a Spark DataFrame (only the count table reaches the driver).
    group : str or list of str
        Protected-attribute column(s); several form intersectional groups.
    label : str
        Gold label column (or checked expression).  A missing value means the row is
        unlabeled.
    proxy : str
        Proxy label column (a stronger model, an LLM judge, a crowd majority) or a checked
        expression such as ``"judge_score >= 0.5"``; values of the label's kind.
    prediction : str
        The audited classifier's prediction column (or expression).
    pos_label : object, optional
        Positive class when the labels are not 0/1 or booleans (as in the main audit).
    where : str, optional
        A checked SQL filter; rows where it is not true are counted as excluded.
    sampling_probability : str, optional
        Column (or expression) with the probability ``pi`` in ``(0, 1]`` with which each
        gold-labeled row was drawn for annotation (as
        :func:`fairbound.audits.ppi.sampling.sample_for_annotation` records it).  Labeled rows
        without one form batch 0, a uniform sample of their group.
    batch : str, optional
        Column with the batch (a whole number >= 1) in which each labeled row was drawn;
        without it every labeled row with a probability is batch 1.  A row with a batch but
        no gold label is an error: every drawn row must be annotated.
    proxy_kind : {'label', 'score'}
        ``'label'`` (default): the proxy holds classes like the gold label.  ``'score'``:
        it holds the proxy's probability of the positive class, numbers in ``[0, 1]``; the
        table then carries per-cell sums of the score (:class:`PPITable` ``scores``).

    Returns
    -------
    PPITable

    Raises
    ------
    FairboundError
        One line naming the column: not found, wrong type, values that are not binary
        classes, no gold label at all, proxy or prediction values that do not match the
        label's.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a", "a", "a", "b", "b", None],
    ...                    "y": [1, None, 0, None, 1, 1], "f": [1, 1, 0, 0, None, 1],
    ...                    "p": [1, 0, 0, 1, 1, 1]})
    >>> t = ppi_counts(df, group="g", label="y", proxy="f", prediction="p")
    >>> t.groups, t.group_labeled(), t.group_rows()
    (('a', 'b'), {'a': 2, 'b': 0}, {'a': 3, 'b': 1})
    >>> t.excluded
    {'missing proxy': 1, 'missing group (not annotated)': 1}
    >>> int(t.labeled[0, 1, 1, 1]), int(t.unlabeled[0, 1, 0])
    (1, 1)
    """
    if data is None:
        raise FairboundError("data: got None", param="data")
    groups = _groups(group)
    label = check_expression(label, "label")
    proxy = check_expression(proxy, "proxy")
    prediction = check_expression(prediction, "prediction")
    check_where(where)
    sampling_probability = check_expression(sampling_probability, "sampling_probability",
                                            optional=True)
    batch = check_expression(batch, "batch", optional=True)
    if batch is not None and sampling_probability is None:
        raise FairboundError("batch: a batch column needs sampling_probability (the "
                             "probability each labeled row was drawn with)", param="batch")
    from fairbound._validate import check_choice

    proxy_kind = check_choice(proxy_kind, ("label", "score"), "proxy_kind", fold=True)
    if proxy_kind == "score" and sampling_probability is not None:
        raise FairboundError("proxy_kind: a score proxy cannot be combined with "
                             "sampling_probability yet; give the proxy as a label (e.g. "
                             "\"judge_p >= 0.5\") for a weighted audit", param="proxy_kind")
    extra = tuple((k, v) for k, v in (("sampling_probability", sampling_probability),
                                      ("batch", batch)) if v is not None)
    if proxy.strip() == label.strip():
        raise FairboundError(f"proxy: {proxy!r} is the gold label column; the proxy is "
                             "another labeler (a stronger model, a judge, a crowd majority)",
                             param="proxy")
    # the proxy travels in the cost slot of the spec, so that every source (polars frames
    # narrowed to the columns read, JSON columns made plain) opens exactly as for an audit
    spec = AggregateSpec(group=groups, label=label, prediction=prediction, cost=proxy,
                         where=where, extra=extra)
    if type(data).__module__.startswith("pyspark"):
        rows, plan, engine, description = _spark_rows(data, spec, proxy_kind)
    else:
        rows, plan, engine, description = _duckdb_rows(data, spec, proxy_kind)
    if proxy_kind == "score":
        rows = _threshold_scores(rows, plan, label=label, prediction=prediction,
                                 pos_label=pos_label, proxy=proxy)
    table = _assemble(rows, plan, label=label, proxy=proxy, prediction=prediction,
                      pos_label=pos_label, engine=engine, source=description,
                      groups=groups)
    if proxy_kind == "score":
        return replace(table, scores=_score_sums(rows, table, plan),
                       columns=dict(table.columns, proxy_kind="score"))
    if sampling_probability is None:
        return table
    weights, batches = _weights(rows, table, plan, sampling_probability, batch, label)
    columns = dict(table.columns, sampling_probability=sampling_probability)
    if batch is not None:
        columns["batch"] = batch
    return replace(table, batches=batches, weights=weights, columns=columns)


def _query(plan: Plan, spec: AggregateSpec, proxy_kind: str, relation: str,
           dialect: str) -> str:
    """The statistics query of a prediction-powered audit, printed for either engine.

    The proxy travels in the plan's ``cost`` slot, the sampling probability and the batch
    in its ``extra`` terms (named by ``spec.extra``).
    """
    if proxy_kind == "score":
        return score_query(plan, plan.cost, relation, dialect=dialect)
    terms = dict(zip((k for k, _ in spec.extra), plan.extra, strict=True))
    return ppi_query(plan, plan.cost, relation, probability=terms.get("sampling_probability"),
                     batch=terms.get("batch"), dialect=dialect)


def _duckdb_rows(data, spec: AggregateSpec, proxy_kind: str):
    """``(rows, plan, engine, description)``: the statistics query run by DuckDB."""
    import fairbound.engines.duckdb_engine as duck

    with duck.pooled_connection() as con:
        with duck.scan_errors():
            try:
                source, plan = duck.open_source(con, data, spec)
            except FairboundError as exc:
                raise _as_proxy(exc) from None
            proxy_term = plan.cost
            if proxy_kind == "label":
                _check_mixed_proxy(data, proxy_term)
            duck.check_types(con, replace(plan, cost=None), source.columns, source.description)
            if proxy_kind == "score":
                _check_numeric(con, proxy_term, source, "proxy")
            else:
                _check_proxy_type(con, proxy_term, source)
            terms = dict(zip((k for k, _ in spec.extra), plan.extra, strict=True))
            for param, term in terms.items():
                _check_numeric(con, term, source, param)
            query = _query(plan, spec, proxy_kind, "src", "duckdb")
            rows = con.sql(query).to_arrow_table().to_pylist()
    return rows, plan, source.engine, source.description


def _spark_rows(df, spec: AggregateSpec, proxy_kind: str):
    """``(rows, plan, engine, description)``: the same query run by Spark SQL.

    The DataFrame is a temporary view (:func:`fairbound.engines.spark.open_spark`), the
    roles are type-checked as on DuckDB (the proxy as plain values, or as numbers for a
    score proxy; the sampling probability and the batch as numbers) and only the
    statistics table is collected.  A Spark column has one type, so the pandas-only check
    for a proxy mixing numbers and text has no counterpart here.
    """
    from fairbound.engines.spark import check_plain, check_types, open_spark

    try:
        with open_spark(df, spec, check=False) as (source, plan):
            check_types(source, replace(plan, cost=None))
            # as _check_numeric: numbers, not booleans
            check_plain(source, plan.cost, "proxy", numeric=proxy_kind == "score",
                        boolean=False)
            for (param, _), term in zip(spec.extra, plan.extra, strict=True):
                check_plain(source, term, param, numeric=True, boolean=False)
            rows, _ = source.collect(_query(plan, spec, proxy_kind, source.relation,
                                                 "spark"))
    except FairboundError as exc:
        raise _as_proxy(exc) from None
    n = sum(int(r["n"]) for r in rows)
    return rows, plan, "spark", f"{source.description} ({n} rows)"


def _assemble(rows, plan: Plan, *, label, proxy, prediction, pos_label, engine, source,
              groups) -> PPITable:
    excluded = Excluded()
    rows = list(rows)
    n_rows = sum(int(r["n"]) for r in rows)
    cells = []
    for r, n, key in kept_rows(rows, plan, _row_keys(plan), excluded):
        if is_missing(r["p"]):
            excluded.add(MISSING_PREDICTION, n)
            continue
        if is_missing(r["f"]):
            excluded.add(MISSING_PROXY, n)
            continue
        y = None if is_missing(r["y"]) else py(r["y"])
        cells.append((key, y, py(r["f"]), py(r["p"]), n))
    check_kept(n_rows, bool(cells), plan, excluded, source,
               f"data: no row has a group, a proxy label ({proxy!r}) and a prediction "
               f"({prediction!r})")
    label_values = {c[1] for c in cells if c[1] is not None}
    if not label_values:
        raise FairboundError(f"label: no row has a gold label in column {label!r} (a missing "
                             "label means unlabeled); a prediction-powered audit needs gold "
                             "labels on a random sample of each group", param="label")
    proxy_values = {c[2] for c in cells}
    pred_values = {c[3] for c in cells}
    setup = label_setup(label_values, pred_values, pos_label, label=label,
                        prediction=prediction)
    try:
        by_proxy = label_setup(label_values, proxy_values, pos_label, label=label,
                               prediction=proxy)
    except FairboundError as exc:
        raise _as_proxy_setup(exc, proxy) from None
    if setup.task != BINARY or by_proxy.task != BINARY:
        raise FairboundError(
            f"label: a prediction-powered audit needs binary labels; {label!r}, {proxy!r} and "
            f"{prediction!r} hold {len(setup.classes)} classes (write each as a condition, "
            f"e.g. --label \"{label} = 'k'\", to audit one class against the rest)",
            param="label")
    positive = setup.positive
    if tuple(map(_key, by_proxy.classes)) != tuple(map(_key, setup.classes)) or \
            _key(by_proxy.positive) != _key(positive):
        raise FairboundError(f"proxy: {proxy!r} holds {sorted(proxy_values, key=sort_key)} but "
                             f"the gold label {label!r} and prediction {prediction!r} read as "
                             f"classes {list(setup.classes)}; give the proxy in the label's "
                             "values", param="proxy")
    pos_index = list(map(_key, setup.classes)).index(_key(positive))

    def as01(s, v, role):
        i = s.index(v, role)
        if i is None:  # pragma: no cover - label_setup has checked every value
            raise FairboundError(f"{role}: value {v!r} is not a class", param=role)
        return int(i == pos_index)

    ordered = tuple(sorted({c[0] for c in cells}, key=sort_key))
    index = {g: i for i, g in enumerate(ordered)}
    lab = np.zeros((len(ordered), 2, 2, 2), dtype=np.int64)
    unl = np.zeros((len(ordered), 2, 2), dtype=np.int64)
    for g, y, f, p, n in cells:
        fi, pi = as01(by_proxy, f, "prediction"), as01(setup, p, "prediction")
        if y is None:
            unl[index[g], fi, pi] += n
        else:
            lab[index[g], as01(setup, y, "label"), fi, pi] += n
    negative = next(c for i, c in enumerate(setup.classes) if i != pos_index)
    return PPITable(
        groups=ordered, labeled=lab, unlabeled=unl, classes=(negative, positive),
        positive=positive, n_rows=n_rows, excluded=dict(excluded), engine=engine,
        source=source if isinstance(source, str) else os.fspath(source),
        columns={"group": list(groups), "label": label, "proxy": proxy,
                 "prediction": prediction},
    )


def score_query(plan: Plan, proxy: Term, relation: str = "src", *,
                dialect: str = "duckdb") -> str:
    """``GROUP BY group, label IS NULL, label, prediction, score >= 0.5`` with score sums.

    Printed for ``dialect`` (``"duckdb"`` or ``"spark"``), the same query on both engines.

    Columns: ``g0..``, ``u``, ``y``, ``p``, ``fl`` (the score is at least 0.5; NULL when it
    is missing), ``w`` (the filter), ``n``, ``sf = sum(f)``, ``sff = sum(f^2)``, ``fmin``,
    ``fmax``.
    """
    exprs = [f"{t.sql(dialect)} AS g{i}" for i, t in enumerate(plan.group)]
    exprs += [f"{plan.label.sql(dialect)} AS y",
              f"nullif(CAST({proxy.sql(dialect)} AS DOUBLE), CAST('NaN' AS DOUBLE)) AS f",
              f"{plan.prediction.sql(dialect)} AS p"]
    keys = [f"g{i}" for i in range(len(plan.group))] + ["u", "y", "p", "fl"]
    if plan.where is not None:
        exprs.append(f"{where_sql(plan, dialect)} AS w")
        keys.append("w")
    inner = f"SELECT {', '.join(exprs)} FROM {relation}"
    return (f"SELECT {', '.join(keys)}, count(*) AS n, sum(f) AS sf, sum(f * f) AS sff, "
            f"min(f) AS fmin, max(f) AS fmax FROM (SELECT *, (y IS NULL) AS u, "
            f"(f >= 0.5) AS fl FROM ({inner}) t0) t GROUP BY {', '.join(keys)}")


def _threshold_scores(rows, plan: Plan, *, label, prediction, pos_label, proxy):
    """Rows with ``f`` set to the class of ``score >= 0.5`` (for the label-based checks)."""
    lo = min((float(r["fmin"]) for r in rows if not is_missing(r["fmin"])), default=0.0)
    hi = max((float(r["fmax"]) for r in rows if not is_missing(r["fmax"])), default=0.0)
    if lo < 0.0 or hi > 1.0:
        raise FairboundError(f"proxy: a score proxy holds probabilities in [0, 1]; column "
                             f"{proxy!r} holds {lo if lo < 0 else hi!r}", param="proxy")
    ys = {py(r["y"]) for r in rows if not is_missing(r["y"])}
    ps = {py(r["p"]) for r in rows if not is_missing(r["p"])}
    if not ys:
        return [dict(r, f=None if is_missing(r["fl"]) else int(bool(r["fl"]))) for r in rows]
    setup = label_setup(ys, ps, pos_label, label=label, prediction=prediction)
    if setup.task != BINARY:
        raise FairboundError(f"label: a score proxy needs binary labels; {label!r} holds "
                             f"{len(setup.classes)} classes", param="label")
    pos = setup.positive
    neg = next(c for c in setup.classes if _key(c) != _key(pos))
    return [dict(r, f=None if is_missing(r["fl"]) else (pos if r["fl"] else neg))
            for r in rows]


def _row_keys(plan: Plan) -> list[str]:
    """The columns that order the rows of :func:`ppi_query` and :func:`score_query`."""
    keys = [f"g{i}" for i in range(len(plan.group))] + ["y", "f", "p"]
    return keys + (["w"] if plan.where is not None else [])


def _audited(rows, plan: Plan, index: dict):
    """``(row, group)`` for the rows :func:`_assemble` counted, in its order.

    Those :func:`~fairbound.engines.assemble.kept_rows` keeps, with a prediction and a proxy.
    """
    for r, _, key in kept_rows(rows, plan, _row_keys(plan), Excluded()):
        if key in index and not is_missing(r["p"]) and not is_missing(r["f"]):
            yield r, key


def _score_sums(rows, table: PPITable, plan: Plan) -> tuple[np.ndarray, np.ndarray]:
    """Per group: ``(3, 2, 2)`` labeled and ``(3, 2)`` unlabeled count / sum f / sum f^2."""
    index = {g: i for i, g in enumerate(table.groups)}
    classes = list(map(_key, table.classes))
    pos = classes.index(_key(table.positive))
    lab = np.zeros((len(table.groups), 3, 2, 2))
    unl = np.zeros((len(table.groups), 3, 2))
    for r, key in _audited(rows, plan, index):
        p = int(classes.index(_key(py(r["p"]))) == pos)
        sums = (float(r["n"]), float(r["sf"]), float(r["sff"]))
        if is_missing(r["y"]):
            unl[index[key], :, p] += sums
        else:
            y = int(classes.index(_key(py(r["y"]))) == pos)
            lab[index[key], :, y, p] += sums
    if not (np.array_equal(lab[:, 0], table.labeled.sum(axis=2)) and
            np.array_equal(unl[:, 0], table.unlabeled.sum(axis=1))):  # pragma: no cover
        raise FairboundError("label: the classes could not be matched row by row for the "
                             "score sums; write the label and prediction as 0/1",
                             param="label")
    lab.setflags(write=False)
    unl.setflags(write=False)
    return lab, unl


def _check_numeric(con, term: Term, source, param: str) -> None:
    """The sampling probability and the batch must be numbers."""
    import duckdb

    from fairbound.engines.duckdb_engine import _first_line

    if term.expression is None:
        typ = str(source.columns[term.column])
    else:
        try:
            typ = str(con.execute(f"DESCRIBE SELECT {term.sql('duckdb')} AS x FROM src"
                                  ).fetchall()[0][1])
        except duckdb.Error as exc:
            raise FairboundError(f"{param}: expression {term.text!r} does not type-check: "
                                 f"{_first_line(exc)}", param=param) from None
    numeric = ("INT", "DOUBLE", "FLOAT", "DECIMAL", "REAL", "NUMERIC", "HUGEINT", "NULL")
    if not any(t in typ.upper() for t in numeric) or "[" in typ or "STRUCT" in typ.upper():
        raise FairboundError(f"{param}: column {term.text!r} in {source.description} has type "
                             f"{typ}; expected numbers", param=param)


def _weights(rows, table: PPITable, plan: Plan, probability: str, batch: str | None,
             label: str) -> tuple[np.ndarray, tuple]:
    """Per group, batch and cell: labeled rows, sum 1 / pi, sum 1 / pi^2 (module docstring)."""
    index = {g: i for i, g in enumerate(table.groups)}
    classes = list(map(_key, table.classes))
    cells = []
    for r, key in _audited(rows, plan, index):
        b = r.get("b")
        b = None if is_missing(b) else float(b)
        if batch is not None and int(r.get("bfrac") or 0):
            raise FairboundError(f"batch: column {batch!r} holds values that are not whole "
                                 "numbers", param="batch")
        if is_missing(r["y"]):
            if b is not None:
                raise FairboundError(
                    f"label: {int(r['n']):,} row(s) of group {key!r} were drawn for "
                    f"annotation in batch {int(b)} ({batch!r}) but have no gold label in "
                    f"{label!r}; annotate every drawn row before auditing (skipping drawn "
                    "rows would bias the estimate)", param="label")
            continue
        if b is not None and b < 0:
            raise FairboundError(f"batch: column {batch!r} holds {int(b)}; batches are whole "
                                 "numbers >= 0", param="batch")
        has_q = not bool(r["qn"])
        if b is None:
            b = 1.0 if (batch is None and has_q) else 0.0
        if b > 0:
            if not has_q:
                raise FairboundError(
                    f"sampling_probability: {int(r['n']):,} gold-labeled row(s) of group "
                    f"{key!r} in batch {int(b)} have no probability in {probability!r}",
                    param="sampling_probability")
            lo, hi = float(r["qmin"]), float(r["qmax"])
            if not (0.0 < lo and hi <= 1.0):
                bad = lo if not lo > 0 else hi
                raise FairboundError(f"sampling_probability: column {probability!r} holds "
                                     f"{bad!r}; a probability must be in (0, 1]",
                                     param="sampling_probability")
        y = classes.index(_key(py(r["y"])))
        f = classes.index(_key(py(r["f"])))
        p = classes.index(_key(py(r["p"])))
        pos = classes.index(_key(table.positive))
        cells.append((index[key], int(b), int(y == pos), int(f == pos), int(p == pos),
                      float(r["n"]), float(r["sw"] or 0.0), float(r["sw2"] or 0.0)))
    batches = tuple(sorted({c[1] for c in cells}))
    out = np.zeros((3, len(table.groups), len(batches), 2, 2, 2))
    for g, b, y, f, p, n, sw, sw2 in cells:
        out[:, g, batches.index(b), y, f, p] += (n, sw, sw2)
    if not np.array_equal(out[0].sum(axis=1), table.labeled):  # pragma: no cover
        raise FairboundError(f"label: the classes of {label!r} could not be matched row by "
                             "row for the weighted counts; write the label, proxy and "
                             "prediction as 0/1", param="label")
    if 0 in batches:   # batch 0: a uniform sample of its group, pi = n_0 / M
        k0 = batches.index(0)
        rows_of = table.labeled.sum(axis=(1, 2, 3)) + table.unlabeled.sum(axis=(1, 2))
        n0 = out[0, :, k0].sum(axis=(1, 2, 3))
        w0 = np.divide(rows_of, n0, out=np.zeros_like(n0), where=n0 > 0)
        out[1, :, k0] = out[0, :, k0] * w0[:, None, None, None]
        out[2, :, k0] = out[0, :, k0] * (w0**2)[:, None, None, None]
    out.setflags(write=False)
    return out, batches


def _key(v):
    """Identity of a class value (``1``, ``True`` and ``1.0`` alike; text apart)."""
    v = v.item() if isinstance(v, np.generic) else v
    return (isinstance(v, str), v)


__all__ = ["MISSING_PROXY", "PPITable", "ppi_counts", "ppi_query"]
