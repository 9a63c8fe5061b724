"""Statistics for proxy-group audits: group probabilities, annotations and outcome cells.

A proxy-group audit (:func:`fairbound.audits.proxies.audit.proxy_audit`) reads, in a few
``GROUP BY`` queries through DuckDB (files, globs, databases, pandas / polars / Arrow data)
or Spark SQL (a Spark DataFrame; the same queries printed for Spark), only sums:

* per outcome cell (label, prediction) and annotated group (or none): rows, sums of every
  group probability and of every product of two (and, with a sampling probability, the
  same weighted by ``1 / pi`` and by ``(1 / pi)(1 / pi - 1)``), plus what the checks need
  (missing and negative probabilities, the largest distance of their sum from 1);
* per group probability bin (tenths) and annotated group: rows and probability sums (the
  calibration check);
* per proxy cell (the ``cell`` column, or each distinct probability vector when no row is
  annotated) and outcome cell: rows and probability sums (the bounds).

A missing label or prediction, or a row failing ``where``, excludes the row (counted);
a missing group means "not annotated".  The result is a :class:`ProxyTable` of arrays; the
statistics on them live in :mod:`fairbound.stats.proxy_groups`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from fairbound._validate import check_expression, check_where
from fairbound.engines.assemble import (
    MISSING_LABEL,
    MISSING_PREDICTION,
    Excluded,
    check_kept,
    is_missing,
    py,
    where_reason,
)
from fairbound.engines.base import AggregateSpec
from fairbound.engines.sql import Plan, where_sql
from fairbound.errors import FairboundError
from fairbound.labels import BINARY, label_setup

#: Largest distance of a row's probabilities' sum from 1 that is accepted (default).
SUM_TOLERANCE = 1e-3
#: Bins of a group probability for the calibration check.
BINS = 10

__all__ = ["BINS", "SUM_TOLERANCE", "ProxyTable", "proxy_statistics"]


@dataclass(frozen=True)
class ProxyTable:
    """Sums a proxy-group audit needs, from one source.

    Attributes
    ----------
    groups : tuple of str
        The groups, in the order of ``group_probabilities``.
    moments : dict
        Sufficient statistics of probabilities, annotations and outcome cells: the fields
        of :class:`fairbound.stats.proxy_groups.ProxyMoments` (``ProxyMoments(**moments)``;
        engines hand over plain arrays).
    calibration : ndarray (K, BINS, 3)
        Per group and bin of its probability, over annotated rows: (weighted) rows, rows
        annotated as the group, sum of the probability.
    cell_counts : ndarray (C, 4) or None
        Rows per proxy cell and outcome cell (``None`` when not read).
    cell_probs : ndarray (C, K) or None
        Mean probability of each group in each proxy cell.
    cell_spread : float
        Largest range of a group's probability within one proxy cell.
    cell_source : str
        ``"column"`` (the ``cell`` column), ``"probabilities"`` (each distinct vector) or
        ``""``.
    classes : tuple
        ``(negative, positive)`` as the label column holds them.
    n_rows : int
        Rows scanned.
    excluded : dict
        Reason -> rows left out.
    annotated : dict
        Group -> annotated rows.
    engine, source : str
        What ran and what it read.
    columns : dict
        Columns read.
    weighted : bool
        Whether annotated rows carry recorded sampling probabilities.
    """

    groups: tuple
    moments: dict
    calibration: np.ndarray
    cell_counts: np.ndarray | None
    cell_probs: np.ndarray | None
    cell_spread: float
    cell_source: str
    classes: tuple
    n_rows: int
    excluded: dict
    annotated: dict
    engine: str
    source: str
    columns: dict = field(default_factory=dict)
    weighted: bool = False


def _check_probabilities(group_probabilities) -> dict[str, str]:
    if not isinstance(group_probabilities, dict) or len(group_probabilities) < 2:
        raise FairboundError("group_probabilities: give at least two groups as {group: "
                             f"column}}; got {group_probabilities!r:.80}",
                             param="group_probabilities")
    out = {}
    for g, col in group_probabilities.items():
        name = str(g).strip()
        if not name:
            raise FairboundError("group_probabilities: a group name is empty",
                                 param="group_probabilities")
        if name in out:
            raise FairboundError(f"group_probabilities: group {name!r} is given twice",
                                 param="group_probabilities")
        out[name] = check_expression(col, f"group_probabilities[{name!r}]")
    cols = list(out.values())
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise FairboundError(f"group_probabilities: column {dup[0]!r} is given for two "
                             "groups", param="group_probabilities")
    return out


def _dbl(x: str) -> str:
    return f"nullif(CAST({x} AS DOUBLE), CAST('NaN' AS DOUBLE))"


def _queries(plan: Plan, k: int, *, cell: bool, weighted: bool, by_vector: bool,
             relation: str, dialect: str) -> dict[str, str]:
    """The statistics queries, printed for ``dialect`` (``duckdb`` or ``spark``).

    ``plan.extra`` holds the ``k`` probability columns, then the cell and the sampling
    probability when given.
    """
    ex = list(plan.extra)
    probs = ex[:k]
    exprs = [f"{plan.label.sql(dialect)} AS y", f"{plan.prediction.sql(dialect)} AS p"]
    exprs += [f"{_dbl(t.sql(dialect))} AS q{j}" for j, t in enumerate(probs)]
    pos = k
    if cell:
        exprs.append(f"{ex[pos].sql(dialect)} AS c")
        pos += 1
    if weighted:
        exprs.append(f"{_dbl(ex[pos].sql(dialect))} AS pi")
    exprs.append(f"{plan.group[0].sql(dialect)} AS g" if plan.group else "NULL AS g")
    keep = "TRUE"
    if plan.where is not None:
        exprs.append(f"{where_sql(plan, dialect)} AS wh")
        keep = "wh"
    inner = f"SELECT {', '.join(exprs)} FROM {relation}"
    wkeys = ", wh" if plan.where is not None else ""
    total = " + ".join(f"q{j}" for j in range(k))
    aggs = ["count(*) AS n", f"max(abs({total} - 1.0)) AS dev"]
    for j in range(k):
        aggs += [f"count(*) FILTER (WHERE q{j} IS NULL) AS miss{j}", f"min(q{j}) AS min{j}",
                 f"max(q{j}) AS max{j}", f"sum(q{j}) AS s{j}"]
        aggs += [f"sum(q{j} * q{h}) AS s{j}_{h}" for h in range(j, k)]
    if weighted:
        w = "(CASE WHEN pi > 0 THEN 1.0 / pi END)"
        v = f"({w} * ({w} - 1.0))"
        aggs += ["count(*) FILTER (WHERE pi IS NULL) AS pimiss", "min(pi) AS pimin",
                 "max(pi) AS pimax", f"sum({w}) AS w", f"sum({v}) AS v"]
        for j in range(k):
            aggs += [f"sum({w} * q{j}) AS w{j}", f"sum({v} * q{j}) AS v{j}"]
            aggs += [f"sum({w} * q{j} * q{h}) AS w{j}_{h}" for h in range(j, k)]
            aggs += [f"sum({v} * q{j} * q{h}) AS v{j}_{h}" for h in range(j, k)]
    out = {"moments": f"SELECT y, p, g{wkeys}, {', '.join(aggs)} FROM ({inner}) t "
                      f"GROUP BY y, p, g{wkeys}"}
    if plan.group:
        parts = []
        wsum = ", sum(CASE WHEN pi > 0 THEN 1.0 / pi END) AS w" if weighted else ""
        wq = ", sum(CASE WHEN pi > 0 THEN q{j} / pi END) AS wq" if weighted else ""
        for j in range(k):
            parts.append(
                f"SELECT {j} AS j, g, least(CAST(floor(q{j} * {BINS}) AS INT), {BINS - 1}) "
                f"AS b, count(*) AS n, sum(q{j}) AS sq{wsum}{wq.format(j=j)} FROM ({inner}) t "
                f"WHERE g IS NOT NULL AND y IS NOT NULL AND p IS NOT NULL AND {keep} "
                f"AND q{j} IS NOT NULL GROUP BY g, least(CAST(floor(q{j} * {BINS}) AS INT), "
                f"{BINS - 1})")
        out["calibration"] = " UNION ALL ".join(parts)
    if cell or by_vector:
        key = "c" if cell else ", ".join(f"q{j}" for j in range(k))
        caggs = ["count(*) AS n"]
        for j in range(k):
            caggs += [f"sum(q{j}) AS s{j}", f"min(q{j}) AS min{j}", f"max(q{j}) AS max{j}"]
        out["cells"] = (f"SELECT {key}{', ' if key else ''}y, p, {', '.join(caggs)} FROM "
                        f"({inner}) t WHERE y IS NOT NULL AND p IS NOT NULL AND {keep} "
                        f"GROUP BY {key}, y, p")
    return out


def _run_duckdb(data, spec: AggregateSpec, build):
    import fairbound.engines.duckdb_engine as duck
    from fairbound.engines.ppi import _check_numeric

    with duck.pooled_connection() as con:
        with duck.scan_errors():
            source, plan = duck.open_source(con, data, spec)
            duck.check_types(con, plan, source.columns, source.description)
            for (param, _), term in zip(spec.extra, plan.extra, strict=True):
                if param != "cell":
                    _check_numeric(con, term, source, param)
            rows = {name: con.sql(q).to_arrow_table().to_pylist()
                    for name, q in build(plan, "src", "duckdb").items()}
    return rows, source.engine, source.description


def _run_spark(df, spec: AggregateSpec, build):
    from fairbound.engines.spark import check_plain, check_types, open_spark

    with open_spark(df, spec, check=False) as (source, plan):
        check_types(source, plan)
        for (param, _), term in zip(spec.extra, plan.extra, strict=True):
            if param != "cell":
                check_plain(source, term, param, numeric=True, boolean=False)
        rows = {name: source.collect(q)[0]
                for name, q in build(plan, source.relation, "spark").items()}
    return rows, "spark", source.description


def _num(v) -> float:
    return 0.0 if is_missing(v) else float(v)


def proxy_statistics(data, *, group_probabilities: dict, label: str, prediction: str,
                     group: str | None = None, cell: str | None = None,
                     sampling_probability: str | None = None, pos_label=None,
                     where: str | None = None,
                     tolerance: float = SUM_TOLERANCE) -> ProxyTable:
    """Every sum a proxy-group audit needs, from a few ``GROUP BY`` queries.

    Parameters
    ----------
    data : path, DataFrame, Table, dict, DuckDB database or Spark DataFrame
        As :func:`fairbound.engines.aggregate` reads it.
    group_probabilities : dict
        ``{group: column}``: the column holding ``P(group | proxies)`` per row.
    label, prediction : str
        Outcome label and audited prediction (binary classes, as the main audit reads
        them).
    group : str, optional
        The true group where it was annotated (missing elsewhere), in the groups' names.
    cell : str, optional
        Proxy cell of each row (e.g. surname x tract), for partial-identification bounds.
    sampling_probability : str, optional
        Probability each annotated row was drawn with (``fairbound sample``).
    pos_label : object, optional
        Positive class when the labels are not 0/1 or booleans.
    where : str, optional
        A checked SQL filter.
    tolerance : float
        Largest accepted distance of a row's probabilities' sum from 1.

    Returns
    -------
    ProxyTable

    Raises
    ------
    FairboundError
        One line naming the column: missing or negative probabilities, sums away from 1,
        annotated groups outside the probability columns' groups, and what the main audit
        refuses.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"y": [1, 0, 1, 1], "p": [1, 0, 0, 1],
    ...                    "pa": [0.9, 0.2, 0.5, 0.1], "pb": [0.1, 0.8, 0.5, 0.9],
    ...                    "g": ["a", None, None, "b"]})
    >>> t = proxy_statistics(df, group_probabilities={"a": "pa", "b": "pb"}, label="y",
    ...                      prediction="p", group="g")
    >>> t.groups, t.annotated, int(t.moments["n_all"].sum()), t.moments["n_labeled"]
    (('a', 'b'), {'a': 1, 'b': 1}, 4, 2)
    """
    if data is None:
        raise FairboundError("data: got None", param="data")
    probs = _check_probabilities(group_probabilities)
    label = check_expression(label, "label")
    prediction = check_expression(prediction, "prediction")
    group = check_expression(group, "group", optional=True)
    cell = check_expression(cell, "cell", optional=True)
    sampling_probability = check_expression(sampling_probability, "sampling_probability",
                                            optional=True)
    if sampling_probability is not None and group is None:
        raise FairboundError("sampling_probability: it weights annotated rows, but no "
                             "group column (the annotations) is given", param="group")
    check_where(where)
    tol = float(tolerance)
    names = tuple(probs)
    k = len(names)
    extra = tuple(("group_probabilities", c) for c in probs.values())
    if cell is not None:
        extra += (("cell", cell),)
    if sampling_probability is not None:
        extra += (("sampling_probability", sampling_probability),)
    spec = AggregateSpec(group=(group,) if group else (), label=label,
                         prediction=prediction, where=where, extra=extra)
    state: dict[str, Any] = {}

    def build(plan, relation, dialect):
        state["plan"] = plan
        return _queries(plan, k, cell=cell is not None,
                        weighted=sampling_probability is not None,
                        by_vector=cell is None and group is None, relation=relation,
                        dialect=dialect)

    if type(data).__module__.startswith("pyspark"):
        rows, engine, description = _run_spark(data, spec, build)
    else:
        rows, engine, description = _run_duckdb(data, spec, build)
    plan: Plan = state["plan"]
    rows = {name: _in_order(result) for name, result in rows.items()}
    table = _assemble(rows, plan, names, probs, label=label, prediction=prediction,
                      group=group, cell=cell, weighted=sampling_probability is not None,
                      pos_label=pos_label, tol=tol, engine=engine, source=description)
    columns = {"group_probabilities": dict(probs), "label": label,
               "prediction": prediction, "group": group, "cell": cell,
               "sampling_probability": sampling_probability}
    return replace(table, columns=columns)


def _in_order(result: list[dict]) -> list[dict]:
    """The rows of one ``GROUP BY`` result sorted by their values, left to right.

    An engine returns a ``GROUP BY``'s rows in whatever order its threads finish, and the
    assembly adds floating-point sums row by row and numbers the proxy cells by first
    appearance, which fixes the order of the categories the bootstrap of the bounds draws
    from: so a run could differ from the next (an interval end moved by 5e-5 once).  The
    grouping columns come first in every query, so the order is the keys' order; ``None``
    sorts after any value, and values of different types apart (by type name).
    """
    def key(r: dict) -> tuple:
        return tuple((v is None, type(v).__name__, 0 if v is None else v)
                     for v in r.values())

    return sorted(result, key=key)


def _assemble(rows, plan, names, probs, *, label, prediction, group, cell, weighted,
              pos_label, tol, engine, source) -> ProxyTable:
    k = len(names)
    cols = list(probs.values())
    excluded = Excluded()
    kept = []
    n_rows = 0
    for r in rows["moments"]:
        n = int(r["n"])
        n_rows += n
        if plan.where is not None and not bool(r["wh"]):
            excluded.add(where_reason(plan), n)
        elif is_missing(r["y"]):
            excluded.add(MISSING_LABEL, n)
        elif is_missing(r["p"]):
            excluded.add(MISSING_PREDICTION, n)
        else:
            kept.append(r)
    check_kept(n_rows, bool(kept), plan, excluded, source,
               f"data: no row has a label ({label!r}) and a prediction ({prediction!r})")
    # the probabilities: present, in [0, 1], summing to 1
    for j, col in enumerate(cols):
        miss = sum(int(r[f"miss{j}"]) for r in kept)
        if miss:
            raise FairboundError(f"group_probabilities: column {col!r} ({names[j]}) is "
                                 f"missing on {miss:,} rows; every row needs a probability "
                                 "for every group", param="group_probabilities")
        low = min(_num(r[f"min{j}"]) for r in kept)
        high = max(_num(r[f"max{j}"]) for r in kept)
        if low < 0 or high > 1:
            bad = low if low < 0 else high
            raise FairboundError(f"group_probabilities: column {col!r} ({names[j]}) holds "
                                 f"{bad:g}; probabilities are in [0, 1]",
                                 param="group_probabilities")
    dev = max(_num(r["dev"]) for r in kept)
    if dev > tol:
        raise FairboundError(f"group_probabilities: the columns {cols} sum to 1 +/- "
                             f"{dev:.3g} on some rows (tolerance {tol:g}); give one column "
                             "per group, every group included", param="group_probabilities")
    label_values = {py(r["y"]) for r in kept}
    pred_values = {py(r["p"]) for r in kept}
    setup = label_setup(label_values, pred_values, pos_label, label=label,
                        prediction=prediction)
    if setup.task != BINARY:
        raise FairboundError(f"label: a proxy-group audit needs binary labels; {label!r} "
                             f"holds {len(setup.classes)} classes (write it as a condition, "
                             f"e.g. --label \"{label} = 'k'\")", param="label")
    classes = list(setup.classes)
    pos_index = classes.index(setup.positive)

    def as01(v, role):
        return int(setup.index(v, role) == pos_index)

    def gindex(v):
        if is_missing(v):
            return -1
        text = str(py(v))
        if text not in names:
            raise FairboundError(f"group: annotated group {text!r} in column {group!r} is not "
                                 f"one of the probability columns' groups {list(names)}",
                                 param="group")
        return names.index(text)

    n_all = np.zeros(4)
    p_all = np.zeros((4, k))
    raw = np.zeros((4, k, 1 + k + k * k))       # annotated, by group: n, sum p, sum pp
    wz = np.zeros((2, 4, k))
    wp = np.zeros((2, 4, k))
    wzp = np.zeros((2, 4, k, k))
    wpp = np.zeros((2, 4, k, k))
    ww = np.zeros((2, 4))
    annotated = dict.fromkeys(names, 0)
    for r in kept:
        c = 2 * as01(py(r["y"]), "label") + as01(py(r["p"]), "prediction")
        n = int(r["n"])
        s = np.array([_num(r[f"s{j}"]) for j in range(k)])
        pp = np.zeros((k, k))
        for j in range(k):
            for h in range(j, k):
                pp[j, h] = pp[h, j] = _num(r[f"s{j}_{h}"])
        n_all[c] += n
        p_all[c] += s
        gi = gindex(r["g"])
        if gi < 0:
            continue
        annotated[names[gi]] += n
        if not weighted:
            raw[c, gi] += np.concatenate([[n], s, pp.ravel()])
            continue
        if int(r["pimiss"]) or _num(r["pimin"]) <= 0 or _num(r["pimax"]) > 1:
            bad = "missing" if int(r["pimiss"]) else (
                f"{_num(r['pimin']):g}" if _num(r["pimin"]) <= 0 else f"{_num(r['pimax']):g}")
            raise FairboundError(f"sampling_probability: an annotated row has probability "
                                 f"{bad}; each annotated row needs the probability in (0, 1] "
                                 "it was drawn with", param="sampling_probability")
        for o, pre in enumerate(("w", "v")):
            sw = _num(r[pre])
            sp = np.array([_num(r[f"{pre}{j}"]) for j in range(k)])
            spp = np.zeros((k, k))
            for j in range(k):
                for h in range(j, k):
                    spp[j, h] = spp[h, j] = _num(r[f"{pre}{j}_{h}"])
            ww[o, c] += sw
            wz[o, c, gi] += sw
            wp[o, c] += sp
            wzp[o, c, gi] += sp
            wpp[o, c] += spp
    n_lab = int(sum(annotated.values()))
    if not weighted and n_lab:
        big_n = n_all.sum()
        scale = (big_n / n_lab, big_n / n_lab * (big_n / n_lab - 1.0))
        for o, f in enumerate(scale):
            cnt = raw[:, :, 0]
            ww[o] = f * cnt.sum(axis=1)
            wz[o] = f * cnt
            wp[o] = f * raw[:, :, 1:1 + k].sum(axis=1)
            wzp[o] = f * raw[:, :, 1:1 + k]
            wpp[o] = f * raw[:, :, 1 + k:].sum(axis=1).reshape(4, k, k)
    moments = dict(n_all=n_all, p_all=p_all, w=ww, z=wz, p=wp, zp=wzp, pp=wpp,
                   n_labeled=n_lab)
    calib = np.zeros((k, 10, 3))
    for r in rows.get("calibration", []):
        j, b = int(r["j"]), int(r["b"])
        n = _num(r["w"]) if weighted else float(r["n"])
        sq = _num(r["wq"]) if weighted else _num(r["sq"])
        calib[j, b, 0] += n
        calib[j, b, 2] += sq
        if gindex(r["g"]) == j:
            calib[j, b, 1] += n
    cell_counts = cell_probs = None
    spread = 0.0
    cell_source = ""
    if "cells" in rows and (cell is not None or n_lab == 0):
        keyf = (lambda r: ("c", py(r["c"]))) if cell is not None else \
            (lambda r: tuple(round(_num(r[f"q{j}"]), 12) for j in range(k)))
        index: dict = {}
        counts: list = []
        sums: list = []
        lows: list = []
        highs: list = []
        for r in rows["cells"]:
            key = keyf(r)
            if cell is not None and is_missing(r["c"]):
                raise FairboundError(f"cell: column {cell!r} is missing on {int(r['n']):,} "
                                     "rows; every row needs its proxy cell", param="cell")
            if key not in index:
                index[key] = len(counts)
                counts.append(np.zeros(4))
                sums.append(np.zeros(k))
                lows.append(np.full(k, np.inf))
                highs.append(np.full(k, -np.inf))
            i = index[key]
            c = 2 * as01(py(r["y"]), "label") + as01(py(r["p"]), "prediction")
            counts[i][c] += int(r["n"])
            sums[i] += [_num(r[f"s{j}"]) for j in range(k)]
            lows[i] = np.minimum(lows[i], [_num(r[f"min{j}"]) for j in range(k)])
            highs[i] = np.maximum(highs[i], [_num(r[f"max{j}"]) for j in range(k)])
        cell_counts = np.array(counts)
        cell_probs = np.array(sums) / cell_counts.sum(axis=1, keepdims=True)
        spread = float((np.array(highs) - np.array(lows)).max())
        cell_source = "column" if cell is not None else "probabilities"
    return ProxyTable(groups=names, moments=moments, calibration=calib,
                      cell_counts=cell_counts, cell_probs=cell_probs,
                      cell_spread=float(spread) if math.isfinite(spread) else 0.0,
                      cell_source=cell_source, classes=(classes[1 - pos_index],
                                                        classes[pos_index]),
                      n_rows=n_rows, excluded=dict(excluded), annotated=annotated,
                      engine=engine, source=source if isinstance(source, str)
                      else os.fspath(source), weighted=weighted)
