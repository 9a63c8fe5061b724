"""``fairbound.audit(group=array, label=array, prediction=array)``: arrays without data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.errors import FairboundError


@pytest.fixture
def arrays():
    rng = np.random.default_rng(0)
    n = 1500
    return (rng.choice(["a", "b"], n), rng.choice(["x", "y"], n), rng.integers(0, 2, n),
            rng.integers(0, 2, n))


def _same(res, ref) -> bool:
    return [(c.group_a, c.group_b, c.low, c.high, c.verdict) for c in res.comparisons] == [
        (c.group_a, c.group_b, c.low, c.high, c.verdict) for c in ref.comparisons]


def test_arrays_give_the_same_audit_as_the_frame(arrays):
    g, _, y, p = arrays
    res = fairbound.audit(group=g, label=y, prediction=p)
    ref = fairbound.audit(pd.DataFrame({"group": g, "label": y, "prediction": p}),
                          group="group", label="label", prediction="prediction")
    assert _same(res, ref)
    assert res.columns["group"] == ["group"]


def test_list_of_arrays_gives_intersections_and_series_keep_their_names(arrays):
    g, r, y, p = arrays
    res = fairbound.audit(group=[pd.Series(g, name="sex"), list(r)], label=list(y),
                          prediction=p, metrics="equal_opportunity")
    assert res.columns["group"] == ["sex", "group_2"]
    assert {k for k, _ in res.groups} == {("a", "x"), ("a", "y"), ("b", "x"), ("b", "y")}
    ref = fairbound.audit(pd.DataFrame({"sex": g, "group_2": r, "label": y, "prediction": p}),
                          group=["sex", "group_2"], label="label", prediction="prediction",
                          metrics="equal_opportunity")
    assert _same(res, ref)


@pytest.mark.parametrize("kwargs, match", [
    (dict(group="g"), "data: got None, and group='g' names a column"),
    (dict(group=["g", "h"]), "group: 2 values where 'label' has 1,500; .* if these name "
                             "columns, give the data"),
    (dict(label="y"), "label: without data give an array"),
    (dict(label="short"), "label: 10 values where 'group' has 1,500"),
    (dict(group=5), "group: without data give an array"),
])
def test_bad_arrays_get_one_line(arrays, kwargs, match):
    g, _, y, p = arrays
    args = dict(group=g, label=y, prediction=p)
    if kwargs.get("label") == "short":
        kwargs = dict(label=y[:10])
    args.update(kwargs)
    with pytest.raises(FairboundError, match=match) as err:
        fairbound.audit(**args)
    assert "\n" not in str(err.value)
