"""Assembly of a statistics table on arrays: the same numbers as the row-by-row rules."""

from __future__ import annotations

import decimal
import itertools
import math

import numpy as np
import pytest

from fairbound.engines.assemble import (
    MISSING_COST,
    MISSING_GROUP,
    MISSING_LABEL,
    MISSING_PREDICTION,
    Excluded,
    ResultColumns,
    assemble,
    checking_groups,
    collected_size,
    count_groups,
    group_key,
    is_missing,
    kept_rows,
    py,
    where_reason,
)
from fairbound.engines.base import AggregateSpec
from fairbound.engines.sql import make_plan
from fairbound.labels import sort_key


def _row_by_row(rows, plan):
    """The rules one row at a time: rows sorted by a key tuple, then added up in order."""
    keys = [f"g{i}" for i in range(len(plan.group))]
    keys += ["y", "p"] if plan.confusion else []
    keys += ["w"] if plan.where is not None else []
    excluded, groups, cells, moments = Excluded(), set(), [], {}
    for r in sorted(rows, key=lambda r: tuple(
            (2, 0.0, "") if is_missing(r[k]) else sort_key(py(r[k])) for k in keys)):
        n = int(r["n"])
        if plan.where is not None and not bool(r["w"]):
            excluded.add(where_reason(plan), n)
            continue
        key = group_key(r, len(plan.group))
        if key is None:
            excluded.add(MISSING_GROUP, n)
            continue
        groups.add(key)
        if plan.confusion:
            if is_missing(r["y"]):
                excluded.add(MISSING_LABEL, n)
            elif is_missing(r["p"]):
                excluded.add(MISSING_PREDICTION, n)
            else:
                cells.append((key, py(r["y"]), py(r["p"]), n))
        if plan.cost is not None:
            nc = int(r["nc"] or 0)
            excluded.add(MISSING_COST, n - nc)
            m = moments.setdefault(key, [0, 0.0, 0.0, math.inf, -math.inf])
            if nc:
                m[0] += nc
                m[1] += float(r["s"])
                m[2] += float(r["ss"])
                m[3] = min(m[3], float(r["lo"]))
                m[4] = max(m[4], float(r["hi"]))
    ordered = tuple(sorted(groups, key=sort_key))
    labels = tuple(sorted({c[1] for c in cells}, key=sort_key))
    preds = tuple(sorted({c[2] for c in cells}, key=sort_key))
    classes = tuple(sorted(set(labels) | set(preds), key=sort_key))
    conf = np.zeros((len(ordered), len(classes), len(classes)), dtype=np.int64)
    for g, y, p, n in cells:
        conf[ordered.index(g), classes.index(y), classes.index(p)] += n
    empty = [0, 0.0, 0.0, math.inf, -math.inf]
    return (repr(ordered), repr(classes), repr(labels), repr(preds), list(excluded.items()),
            conf.tolist() if plan.confusion else None,
            [moments.get(g, empty)[:3] for g in ordered] if plan.cost is not None else None)


def _assembled(rows, plan, spec):
    agg = assemble(rows, plan, spec, engine="test", source="rows")
    assert agg.n_rows == sum(r["n"] for r in rows)
    cost = None
    if agg.cost is not None:
        cost = [[int(n), t, q] for n, t, q in zip(agg.cost.n, agg.cost.total.tolist(),
                                                  agg.cost.total_sq.tolist(), strict=True)]
    return (repr(agg.groups), repr(agg.classes), repr(agg.label_values),
            repr(agg.prediction_values), list(agg.excluded.items()),
            None if agg.confusion is None else agg.confusion.tolist(), cost)


def _rows(values, rng, *, confusion=True, cost=True, where=True):
    """One row per combination of group values (x labels, predictions, flags), shuffled.

    Labels and predictions are missing in some rows, except with whole-number groups (then
    every key column is whole numbers).
    """
    whole = all(type(v) is int for v in values)
    ys = ([0, 1] if whole else [0, 1, None]) if confusion else [None]
    ps = ([1, 0, 2] if whole else [1, 0, float("nan")]) if confusion else [None]
    ws = [True, False] if where else [None]
    rows = []
    for g, y, p, w in itertools.product(values, ys, ps, ws):
        for _ in range(int(rng.integers(1, 3))):   # the same cell twice: summation order
            r = {"g0": g, "n": int(rng.integers(0, 5))}
            if confusion:
                r.update(y=y, p=p)
            if where:
                r["w"] = w
            if cost:
                r.update(nc=min(int(rng.integers(0, 3)), r["n"]), s=float(rng.random()),
                         ss=float(rng.random()), lo=float(rng.random()) / 2,
                         hi=0.5 + float(rng.random()))
            rows.append(r)
    rng.shuffle(rows)
    return rows


_ODD = {
    "text": ["b", "a", None, float("nan"), "c", "é"],
    "numbers": [3, 1.0, 1, 2.5, -0.0, 0, None, float("nan")],
    "beyond 2**53 (ties)": [2**53, 2**53 + 1, 2**53 + 2, 5, None],
    "decimals": [decimal.Decimal("1.0"), decimal.Decimal("1"), decimal.Decimal("0.5"), None],
    "booleans": [True, False, None],
    "text only": ["b", "a", "é", "ab", "a ", "B"],
    "text with NULs": ["a", "a\x00", "b\x00\x00", "b", "\x00"],
    "whole numbers": [5, 3, 1, 2**40],
    "whole numbers beyond 64 bits": [5, 2**70, 2**53 + 1, 2**53, -(2**70)],
    "numpy": [np.int64(4), np.float64(4.0), np.float64(2.5), np.str_("x"), None],
}


@pytest.mark.parametrize("kind", sorted(_ODD))
@pytest.mark.parametrize("parts", [(True, True, True), (True, False, False),
                                   (False, True, True), (False, False, False)])
def test_assemble_gives_what_the_row_by_row_rules_give(kind, parts):
    # the same groups, classes, exclusions (and their order), counts and cost sums (bit for
    # bit: summed in the one sorted order) as one row at a time, whatever order rows come,
    # from rows as dicts and as columns
    confusion, cost, where = parts
    spec = AggregateSpec(group=("g",), label="y" if confusion else None,
                         prediction="p" if confusion else None, cost="c" if cost else None,
                         where="w" if where else None)
    plan = make_plan(spec, ["g", "y", "p", "c", "w"])
    for seed in range(3):
        rows = _rows(_ODD[kind], np.random.default_rng(seed), confusion=confusion,
                     cost=cost, where=where)
        assert _assembled(rows, plan, spec) == _row_by_row(rows, plan)
        # the DuckDB engine hands a plain result on as columns: the same again, and the
        # same byte count and group count
        cols = _as_columns(rows)
        assert _assembled(cols, plan, spec) == _row_by_row(rows, plan)
        assert collected_size(cols) == collected_size(rows)
        assert count_groups(cols, plan) == count_groups(rows, plan)


def _as_columns(rows):
    names = list(rows[0])
    return ResultColumns(names, [[r[k] for r in rows] for k in names])


def test_result_columns_read_as_a_list_of_dicts():
    rows = [{"g0": "a", "n": 1}, {"g0": None, "n": 2}, {"g0": "c", "n": 3}]
    cols = ResultColumns.from_tuples(["g0", "n"], [tuple(r.values()) for r in rows])
    assert len(cols) == 3 and list(cols) == rows
    assert cols[0] == rows[0] and cols[-1] == rows[-1] and cols[1:] == rows[1:]
    assert cols.column("n") == [1, 2, 3] and cols.names == ["g0", "n"]
    with pytest.raises(IndexError):
        cols[3]
    with pytest.raises(ValueError, match="equal length"):
        ResultColumns(["g0", "n"], [["a"], [1, 2]])
    empty = ResultColumns.from_tuples(["g0", "n"], [])
    assert len(empty) == 0 and list(empty) == [] and collected_size(empty) == 0


def test_intersections_with_ties_and_equal_values_keep_the_row_by_row_order():
    rng = np.random.default_rng(7)
    rows = [{"g0": a, "g1": b, "y": y, "p": 1 - y, "n": int(rng.integers(0, 4)), "nc": 1,
             "s": float(rng.random()), "ss": 0.25, "lo": 0.0, "hi": 1.0}
            for a, b, y in itertools.product(_ODD["decimals"], _ODD["beyond 2**53 (ties)"],
                                             [0, 1])]
    rng.shuffle(rows)
    spec = AggregateSpec(group=("g", "h"), label="y", prediction="p", cost="c")
    plan = make_plan(spec, ["g", "h", "y", "p", "c"])
    assert _assembled(rows, plan, spec) == _row_by_row(rows, plan)


def test_kept_rows_come_sorted_with_their_groups_and_count_the_rest():
    spec = AggregateSpec(group=("g",), label="y", prediction="p", where="w")
    plan = make_plan(spec, ["g", "y", "p", "w"])
    rows = [{"g0": g, "y": 1, "p": 0, "w": w, "n": 2}
            for g, w in [("b", True), (None, True), ("a", False), ("a", True)]]
    excluded = Excluded()
    got = [(key, n) for _, n, key in kept_rows(rows, plan, ["g0", "y", "p", "w"], excluded)]
    assert got == [("a", 2), ("b", 2)]
    assert list(excluded.items()) == [("where not true: w", 2), (MISSING_GROUP, 2)]


def test_collected_size_counts_text_bytes_numbers_and_lists():
    rows = [{"g0": "é", "n": 3, "cs": [0.5, 1.0, "ab"]},
            {"g0": np.str_("xy"), "n": None, "b": b"abc", "t": ("a", 2)}]
    # 2 (é) + 8 + 8 + 8 + 2 | 2 + 8 + 3 + 1 + 8
    assert collected_size(rows) == 50
    assert collected_size([]) == 0


def test_count_groups_counts_kept_known_groups_once():
    spec = AggregateSpec(group=("g",), where="w")
    plan = make_plan(spec, ["g", "w"])
    rows = [{"g0": g, "w": w, "n": 1} for g, w in
            [("a", True), ("a", True), ("b", False), (None, True), (float("nan"), True)]]
    assert count_groups(rows, plan) == 1
    plan = make_plan(AggregateSpec(group=("g",)), ["g"])
    assert count_groups([{"g0": 1, "n": 1}, {"g0": 1.0, "n": 1}, {"g0": 2, "n": 1}],
                        plan) == 2


@pytest.mark.parametrize("kind", sorted(_ODD))
def test_the_group_check_sees_the_count_of_count_groups(kind):
    # assemble counts groups from its codes where they tell (equal values share a code),
    # else value by value: the same number either way, before anything is sorted
    seen = []
    for group, where in ((("g",), "w"), (("g", "h"), None)):
        spec = AggregateSpec(group=group, label="y", prediction="p", where=where)
        plan = make_plan(spec, ["g", "h", "y", "p", "w"])
        rows = _rows(_ODD[kind], np.random.default_rng(1), cost=False, where=where is not None)
        for i, r in enumerate(rows):
            r["g1"] = _ODD[kind][i % len(_ODD[kind])]
        with checking_groups(seen.append):
            assemble(rows, plan, spec, engine="test", source="rows")
        assert seen[-1] == count_groups(rows, plan) > 0
