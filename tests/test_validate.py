"""fairbound._validate: every check accepts what it should, and refuses with one exact line."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairbound._validate import (
    MAX_EDGES,
    check_bins,
    check_bool,
    check_choice,
    check_choices,
    check_columns,
    check_expression,
    check_float,
    check_int,
    check_probability,
    check_seed,
    check_text,
    check_vector,
    fail,
)
from fairbound.errors import FairboundError


def _refused(call, message: str, param: str) -> None:
    with pytest.raises(FairboundError) as info:
        call()
    assert str(info.value) == message
    assert "\n" not in str(info.value)
    assert info.value.param == param


# ----------------------------------------------------------------------------- fail


def test_fail_names_the_parameter_and_echoes_the_value():
    _refused(lambda: fail("n_jobs", "a positive integer or -1", 0),
             "n_jobs must be a positive integer or -1; got 0", "n_jobs")
    _refused(lambda: fail("k", "text", [1, 2], note="a hint"),
             "k must be text (a hint); got [1, 2]", "k")


# ----------------------------------------------------------------------------- check_choice


@pytest.mark.parametrize(("value", "kwargs", "expected"), [
    ("json", {}, "json"),
    ("JSON ", {"fold": True}, "json"),
    ("vs_rest", {"sep": "-"}, "vs-rest"),
    ("Vs Rest", {"fold": True, "sep": "-"}, "vs-rest"),
    ("demographic-parity", {"sep": "_"}, "demographic_parity"),
    ("dp", {"aliases": {"dp": "demographic_parity"}}, "demographic_parity"),
    ("DP", {"fold": True, "aliases": {"dp": "demographic_parity"}}, "demographic_parity"),
    (None, {"fold": True}, "none"),  # fold compares str(value)
])
def test_check_choice_accepts(value, kwargs, expected):
    choices = ("json", "table", "vs-rest", "demographic_parity", "none")
    assert check_choice(value, choices, "x", **kwargs) == expected


def test_check_choice_keeps_non_text_values_and_reads_mapping_keys():
    assert check_choice(3, (1, 2, 3), "k") == 3
    assert check_choice("a", {"a": 1, "b": 2}, "kind") == "a"
    assert check_choice("b", iter(["a", "b"]), "kind") == "b"


@pytest.mark.parametrize(("value", "kwargs", "message"), [
    ("xml", {}, "format must be one of table, json; got 'xml'"),
    ("JSON", {}, "format must be one of table, json; got 'JSON'"),  # no folding asked
    ("JSON", {"sep": "-"}, "format must be one of table, json; got 'JSON'"),
    (None, {}, "format must be one of table, json; got None"),
    (["json"], {}, "format must be one of table, json; got ['json']"),
    ("csv", {"note": "with --method"},
     "format must be one of table, json (with --method); got 'csv'"),
])
def test_check_choice_refuses(value, kwargs, message):
    _refused(lambda: check_choice(value, ("table", "json"), "format", **kwargs), message,
             "format")


# ----------------------------------------------------------------------------- check_choices


def test_check_choices_accepts():
    assert check_choices("pro", ("pro", "anti"), "versions") == ("pro",)
    assert check_choices(["anti", "pro"], ("pro", "anti"), "versions") == ("anti", "pro")
    assert check_choices(("PRO",), ("pro", "anti"), "versions", fold=True) == ("pro",)
    assert check_choices([], ("pro", "anti"), "versions", allow_empty=True) == ()


@pytest.mark.parametrize(("values", "message"), [
    (["pro", "both"], "versions must be among pro, anti; got 'both'"),
    ("both", "versions must be among pro, anti; got 'both'"),
    ([], "versions must be among pro, anti; got []"),
    (None, "versions must be among pro, anti; got None"),
])
def test_check_choices_refuses(values, message):
    _refused(lambda: check_choices(values, ("pro", "anti"), "versions"), message, "versions")


# ----------------------------------------------------------------------------- check_int


@pytest.mark.parametrize(("value", "kwargs", "expected"), [
    (3, {}, 3),
    (-3, {}, -3),
    (np.int64(7), {"low": 1}, 7),
    (0, {"low": 0}, 0),
    (10, {"low": 2, "high": 10}, 10),
    (10.0, {"low": 2, "whole_floats": True}, 10),
    (np.float64(4.0), {"whole_floats": True}, 4),
])
def test_check_int_accepts(value, kwargs, expected):
    got = check_int(value, "k", **kwargs)
    assert got == expected and type(got) is int


@pytest.mark.parametrize(("value", "kwargs", "message"), [
    (2.5, {}, "k must be an integer; got 2.5"),
    ("3", {}, "k must be an integer; got '3'"),
    (True, {}, "k must be an integer; got True"),
    (None, {}, "k must be an integer; got None"),
    (10.0, {}, "k must be an integer; got 10.0"),  # whole floats only on request
    (-1, {"low": 0}, "k must be a non-negative integer; got -1"),
    (0, {"low": 1}, "k must be a positive integer; got 0"),
    (1, {"low": 2}, "k must be an integer >= 2; got 1"),
    (11, {"high": 10}, "k must be an integer <= 10; got 11"),
    (0, {"low": 1, "high": 1024}, "k must be an integer in [1, 1024]; got 0"),
    (2.5, {"low": 2, "whole_floats": True}, "k must be an integer >= 2; got 2.5"),
    (math.inf, {"whole_floats": True}, "k must be an integer; got inf"),
    (-1, {"low": 0, "note": "0: no filter"},
     "k must be a non-negative integer (0: no filter); got -1"),
])
def test_check_int_refuses(value, kwargs, message):
    _refused(lambda: check_int(value, "k", **kwargs), message, "k")


# ----------------------------------------------------------------------------- check_float


@pytest.mark.parametrize(("value", "kwargs", "expected"), [
    (0.5, {}, 0.5),
    ("0.25", {"low": 0, "high": 0.5, "low_open": True}, 0.25),
    (np.float32(2.0), {"low": 0, "low_open": True}, 2.0),
    (0, {"low": 0}, 0.0),
    (0.5, {"low": 0, "high": 0.5, "low_open": True}, 0.5),
    (math.inf, {"low": 0, "low_open": True, "finite": False}, math.inf),
    (-7, {"high": 0}, -7.0),
])
def test_check_float_accepts(value, kwargs, expected):
    got = check_float(value, "x", **kwargs)
    assert got == expected and type(got) is float


@pytest.mark.parametrize(("value", "kwargs", "message"), [
    ("high", {}, "x must be a finite number; got 'high'"),
    (math.nan, {}, "x must be a finite number; got nan"),
    (math.inf, {}, "x must be a finite number; got inf"),
    (True, {}, "x must be a finite number; got True"),
    (None, {"finite": False}, "x must be a number; got None"),
    (0, {"low": 0, "low_open": True}, "x must be a positive number; got 0"),
    (-0.1, {"low": 0}, "x must be a non-negative number; got -0.1"),
    (1, {"low": 1, "low_open": True}, "x must be a number > 1; got 1"),
    (0.5, {"low": 1}, "x must be a number >= 1; got 0.5"),
    (2, {"high": 1, "high_open": True}, "x must be a number < 1; got 2"),
    (0.7, {"low": 0, "high": 0.5, "low_open": True}, "x must be in (0, 0.5]; got 0.7"),
    (0.5, {"low": 0, "high": 0.5, "high_open": True}, "x must be in [0, 0.5); got 0.5"),
    (math.nan, {"low": 0, "low_open": True, "finite": False},
     "x must be a positive number; got nan"),
    (2.0, {"low": 0, "high": 1, "low_open": True, "high_open": True, "note": "a gap"},
     "x must be in (0, 1) (a gap); got 2.0"),
])
def test_check_float_refuses(value, kwargs, message):
    _refused(lambda: check_float(value, "x", **kwargs), message, "x")


# ----------------------------------------------------------------------------- check_probability


def test_check_probability_accepts():
    assert check_probability(0.95, "confidence_level") == 0.95
    assert check_probability(1, "tolerance", high_open=False) == 1.0
    assert check_probability(0, "p", low_open=False) == 0.0


@pytest.mark.parametrize(("value", "kwargs", "message"), [
    (95, {}, "confidence_level must be in (0, 1); got 95"),
    (0, {}, "confidence_level must be in (0, 1); got 0"),
    (1.0, {}, "confidence_level must be in (0, 1); got 1.0"),
    (math.nan, {}, "confidence_level must be in (0, 1); got nan"),
    ("high", {}, "confidence_level must be in (0, 1); got 'high'"),
    (1.5, {"high_open": False}, "confidence_level must be in (0, 1]; got 1.5"),
    (-0.1, {"low_open": False, "high_open": False},
     "confidence_level must be in [0, 1]; got -0.1"),
])
def test_check_probability_refuses(value, kwargs, message):
    _refused(lambda: check_probability(value, "confidence_level", **kwargs), message,
             "confidence_level")


# ----------------------------------------------------------------------------- check_bool


@pytest.mark.parametrize("value", [True, False, np.True_, np.False_])
def test_check_bool_accepts(value):
    got = check_bool(value, "exact")
    assert got is bool(value)


@pytest.mark.parametrize(("value", "message"), [
    (1, "exact must be True or False; got 1"),
    (0, "exact must be True or False; got 0"),
    ("yes", "exact must be True or False; got 'yes'"),
    (None, "exact must be True or False; got None"),
])
def test_check_bool_refuses(value, message):
    _refused(lambda: check_bool(value, "exact"), message, "exact")


# ----------------------------------------------------------------------------- check_text


def test_check_text():
    assert check_text("Audit", "title") == "Audit"
    _refused(lambda: check_text("", "title"), "title must be a non-empty string; got ''",
             "title")
    _refused(lambda: check_text(" ", "title"), "title must be a non-empty string; got ' '",
             "title")
    _refused(lambda: check_text(3, "title"), "title must be a non-empty string; got 3", "title")


# ----------------------------------------------------------------------------- check_columns


def test_check_columns_accepts():
    assert check_columns("sex") == ("sex",)
    assert check_columns(["sex", "race"]) == ("sex", "race")
    assert check_columns(("a",), "by") == ("a",)


@pytest.mark.parametrize("value", [[], (), "", " ", ["a", ""], ["a", 3], None, 3, {"a"}])
def test_check_columns_refuses(value):
    _refused(lambda: check_columns(value),
             f"group must be a column name or a list of them; got {value!r}", "group")


# ----------------------------------------------------------------------------- check_bins


def test_check_bins():
    assert check_bins(None) is None
    assert check_bins(np.int64(10)) == 10
    assert check_bins([0, 0.5, 1]).tolist() == [0.0, 0.5, 1.0]
    message = "bins must be None, a whole number >= 1 or ascending edges; got {!r}"
    for bad in (0, 10**9 + 1, 2.0, True, "10"):
        _refused(lambda bad=bad: check_bins(bad), message.format(bad), "bins")
    _refused(lambda: check_bins(["a", "b"]), "bins: edges must be numbers; got ['a', 'b']",
             "bins")
    _refused(lambda: check_bins([1.0]), "bins: give at least two edges in a 1-D list; got [1.0]",
             "bins")
    _refused(lambda: check_bins(np.arange(MAX_EDGES + 1.0)),
             f"bins: at most {MAX_EDGES} edges; got {MAX_EDGES + 1}", "bins")
    _refused(lambda: check_bins([0, math.inf]), "bins: edges must be finite; got [inf]", "bins")
    _refused(lambda: check_bins([0, 0.5, 0.5]),
             "bins: edges must be strictly increasing; got 0.5 then 0.5", "bins")


# ----------------------------------------------------------------------------- check_seed


def test_check_seed():
    assert check_seed(0) == 0
    assert check_seed(np.int32(5)) == 5
    for bad in (-1, 1.0, True, "3", None):
        _refused(lambda bad=bad: check_seed(bad),
                 f"seed must be a non-negative integer; got {bad!r}", "seed")


# ----------------------------------------------------------------------------- check_vector


def test_check_vector():
    out = check_vector((0, 0.25), "x", "numbers in [0, 1]")
    assert out.dtype == float and out.tolist() == [0.0, 0.25]
    _refused(lambda: check_vector(["a"], "x", "numbers in [0, 1]"),
             "x must be numbers in [0, 1]; got ['a']", "x")
    _refused(lambda: check_vector([[1.0]], "costs", "numbers"),
             "costs must be one-dimensional; got shape (1, 1)", "costs")


# ----------------------------------------------------------------------------- check_expression


def test_check_expression():
    assert check_expression("score >= 0.5", "prediction") == "score >= 0.5"
    for bad, shown in ((3, "int 3"), ("", "str ''"), (None, "NoneType None")):
        _refused(lambda bad=bad: check_expression(bad, "label"),
                 f"label must be a column name or a SQL expression (text); got {shown}",
                 "label")
