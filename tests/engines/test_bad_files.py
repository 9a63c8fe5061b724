"""Half-written files and ambiguous values: one-line errors that name the real cause."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.engines import AggregateSpec, aggregate
from fairbound.engines.duckdb_engine import csv_error_message, find_ragged_line, mixed_values
from fairbound.errors import FairboundError
from fairbound.labels import label_setup

SPEC = AggregateSpec(group=("g",), label="y", prediction="p")


def _error(data, spec=SPEC) -> str:
    with pytest.raises(FairboundError) as info:
        aggregate(data, spec)
    msg = str(info.value)
    assert "\n" not in msg
    return msg


def _lines(n: int = 100, seed: int = 0, extra: int = 5) -> list[str]:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n),
                       "p": rng.integers(0, 2, n)})
    for i in range(extra):
        df[f"x{i}"] = i
    return df.to_csv(index=False).splitlines()


def _write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return str(path)


# ----------------------------------------------------------------------------- ragged CSV


def test_ragged_line_that_defeats_the_sniffer_is_named(tmp_path):
    lines = _lines()
    lines[56] += ",9"  # line 57 of the file (the header is line 1)
    assert _error(_write(tmp_path / "x.csv", lines)).endswith(
        "line 57 of " + str(tmp_path / "x.csv") + " has 9 fields, the header has 8")


@pytest.mark.parametrize(("cut", "message"), [
    (lambda ls: ls[:56] + [ls[56][:3]] + ls[57:], "line 57 of {f} has 2 fields, the header has 8"),
    (lambda ls: ls[:-1] + [ls[-1][:-4]], "line 101 of {f} has 6 fields, the header has 8"),
])
def test_half_written_lines_are_named(tmp_path, cut, message):
    f = _write(tmp_path / "h.csv", cut(_lines()))
    assert _error(f) == "data: " + message.format(f=f)


def test_bad_line_after_the_sniffed_rows(tmp_path):
    lines = _lines(n=40_000, extra=0)
    lines[30_000] += ",1"
    f = _write(tmp_path / "big.csv", lines)
    assert _error(f) == f"data: line 30001 of {f} has 4 fields, the header has 3"
    lines = _lines(n=40_000, extra=0)
    lines[30_000] = "a,abc,1"
    f = _write(tmp_path / "conv.csv", lines)
    assert _error(f).startswith(f"data: line 30001 of {f}: column 'y' holds 'abc', but the "
                                "rows before it made it a BIGINT column")


def test_unclosed_quote_is_named(tmp_path):
    f = tmp_path / "q.csv"
    f.write_text('g,y,p\na,1,1\nb,"0,1\n' + "c,1,0\n" * 3)
    assert _error(str(f)) == f"data: line 3 of {f} opens a quote that is never closed"


def test_ragged_tsv_glob_and_gzip(tmp_path):
    tsv = tmp_path / "r.tsv"
    tsv.write_text("g\ty\tp\na\t1\t1\nb\t1\nc\t0\t1\n")
    assert _error(str(tsv)) == f"data: line 3 of {tsv} has 2 fields, the header has 3"
    lines = _lines()
    _write(tmp_path / "a.csv", lines)
    lines[56] += ",9"
    bad = _write(tmp_path / "b.csv", lines)
    assert _error(str(tmp_path / "*.csv")) == (f"data: line 57 of {bad} has 9 fields, the "
                                               "header has 8")
    gz = tmp_path / "c.csv.gz"
    gz.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    assert "line 57 of" in _error(str(gz))


def test_well_formed_files_are_untouched(tmp_path):
    lines = _lines()
    f = _write(tmp_path / "ok.csv", lines)
    assert aggregate(f, SPEC).n_rows == 100
    quoted = tmp_path / "quoted.csv"
    pd.DataFrame({"g": ["a,b", "c"] * 10, "y": [1, 0] * 10, "p": [1, 1] * 10}).to_csv(
        quoted, index=False)
    assert aggregate(str(quoted), SPEC).groups == ("a,b", "c")
    assert find_ragged_line(f) is None


def test_csv_error_message_parses_duckdb_errors():
    assert csv_error_message("no line here") is None
    text = ("Invalid Input Error: CSV Error on Line: 12\nOriginal Line: x\n"
            "Value with unterminated quote found.\n  file = f.csv\n")
    assert csv_error_message(text) == "data: line 12 of f.csv opens a quote that is never closed"


# ----------------------------------------------------------------------------- mixed values


def test_object_labels_mixing_numbers_and_text_are_refused():
    df = pd.DataFrame({"g": ["a", "b"] * 20, "y": [1, "1", 0, 0] * 10, "p": [1, 0] * 20})
    msg = _error(df)
    assert msg == ("label: column 'y' mixes numbers and text (1 and '1'); give every row one "
                   "type (all text or all numbers)")
    with pytest.raises(FairboundError, match="label: column 'y' mixes numbers and text"):
        fairbound.audit(df, group="g", label="y", prediction="p", method="newcombe")
    # a dict of lists is checked before numpy turns the values into text
    assert _error({c: df[c].tolist() for c in df}) == msg
    pred = df.assign(y=[1, 0] * 20, p=[True, "yes", 0, 1] * 10)
    assert _error(pred).startswith("prediction: column 'p' mixes booleans and text (True and "
                                   "'yes')")


def test_group_columns_may_mix_unless_values_collide():
    df = pd.DataFrame({"g": ["65+", 30] * 20, "y": [1, 0, 0, 1] * 10, "p": [1, 0] * 20})
    assert aggregate(df, SPEC).groups == ("30", "65+")
    clash = df.assign(g=[1, "1", "a", "a"] * 10)
    assert _error(clash).startswith("group: column 'g' holds both 1 and '1', which read as "
                                    "the same value")


def test_duplicate_columns_and_group_names():
    df = pd.DataFrame([["a", 1, 0], ["b", 0, 1]] * 5, columns=["g", "y", "y"])
    assert _error(df, AggregateSpec(group=("g",), label="y", prediction="y")) == (
        "data: the DataFrame has 2 columns named 'y'; rename them apart")
    ok = pd.DataFrame({"g": ["a", "b"] * 5, "y": [1, 0] * 5, "p": [0, 1] * 5})
    assert _error(ok, AggregateSpec(group=("g", "g"), label="y", prediction="p")).startswith(
        "group: 'g' is given twice")


def test_mixed_values_helper():
    assert mixed_values(np.array([1, "1", None], dtype=object)) == (1, "1")
    assert mixed_values([1.0, "x"]) == (1.0, "x")
    assert mixed_values([True, "t"], clash_only=True) == (True, "t")
    assert mixed_values(pd.Series(["a", None])) is None


def test_label_setup_refuses_a_column_of_two_kinds():
    with pytest.raises(FairboundError, match=r"label: column 'y' mixes numbers and text "
                                             r"\(1 and '1'\)"):
        label_setup([0, 1, "1"], [0, 1], label="y", prediction="p")
    with pytest.raises(FairboundError, match=r"prediction: column 'p' mixes booleans and text"):
        label_setup(["no", "yes"], [True, "yes"], pos_label="yes", label="y", prediction="p")
    # one kind per column stays fine, even if the two columns differ
    assert label_setup(["no", "yes"], [False, True], pos_label="yes").classes == ("no", "yes")


# ----------------------------------------------------------------------------- JSON lines


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_json_lines_groups_are_plain_strings(tmp_path):
    rows = [{"g": ["a", "b", 3][i % 3], "y": i % 2, "p": (i // 2) % 2} for i in range(90)]
    f = _jsonl(tmp_path / "x.jsonl", rows)
    agg = aggregate(f, SPEC)
    assert agg.groups == ("3", "a", "b")  # not '"a"'
    res = fairbound.audit(f, group="g", label="y", prediction="p", method="newcombe",
                          metrics="demographic_parity")
    assert {c.group_a for c in res.comparisons} | {c.group_b for c in res.comparisons} == {
        "3", "a", "b"}
    # the hashed cost-sample route reads the same plain values
    costs = _jsonl(tmp_path / "c.jsonl", [{"g": ["a", "b", 3][i % 3], "c": (i % 97) / 97}
                                          for i in range(3000)])
    spec = AggregateSpec(group=("g",), cost="c", keep_cost_sample=50, max_cost_values=10)
    got = aggregate(costs, spec)
    assert got.groups == ("3", "a", "b") and [len(s) for s in got.cost.samples] == [50] * 3


@pytest.mark.parametrize(("rows", "message"), [
    (lambda i: {"g": "ab"[i % 2], "y": [1, "1", 0][i % 3], "p": i % 2},
     "label: column 'y' in {f} mixes numbers and text (1 and '1')"),
    (lambda i: {"g": ["a", "b", 3, "3"][i % 4], "y": i % 2, "p": i % 2},
     "group: column 'g' in {f} holds both 3 and '3', which read as the same value"),
    (lambda i: {"g": "ab"[i % 2] if i else {"k": 1}, "y": i % 2, "p": i % 2},
     "group: column 'g' in {f} holds JSON objects or arrays such as '{{\"k\":1}}'"),
])
def test_json_lines_ambiguous_values_are_refused(tmp_path, rows, message):
    f = _jsonl(tmp_path / "m.jsonl", [rows(i) for i in range(60)])
    assert _error(f).startswith(message.format(f=f))


def test_json_key_missing_from_the_sampled_rows_is_still_read(tmp_path):
    rows = [{"g": None, "y": 1, "p": 0}] * 25_000 + [{"g": "ab"[i % 2], "y": i % 2, "p": 1}
                                                    for i in range(20)]
    agg = aggregate(_jsonl(tmp_path / "late.jsonl", rows), SPEC)
    assert agg.groups == ("a", "b") and agg.group_rows() == {"a": 10, "b": 10}
