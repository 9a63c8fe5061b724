"""One reading of labels, predictions and pos_label for audit, monitor, CLI and Python."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest

import fairbound
import fairbound.labels
from fairbound.errors import FairboundError
from fairbound.labels import (
    LabelSetup,
    is_binary_value,
    label_setup,
    parse_text_value,
    resolve_pos_label,
)


def test_examples_run():
    result = doctest.testmod(fairbound.labels, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10 and result.failed == 0


def test_binary_values_and_cells():
    assert all(is_binary_value(v) for v in (0, 1, True, False, np.bool_(True), np.int64(1), 0.0))
    assert not any(is_binary_value(v) for v in (2, -1, "1", "yes", 0.5, None))
    cells = ["yes", "No", "TRUE", "f", "t", "1", "0", "7", "2.0", "0.5", "High", "", "  ", "y"]
    assert [parse_text_value(c) for c in cells] == [
        True, False, True, False, True, 1, 0, 7, 2, 0.5, "High", None, None, "y"]


@pytest.mark.parametrize("given,values,expected", [
    ("1", [0, 1], 1), (1, [0, 1], 1), ("0", [0, 1], 0), (True, [0, 1], 1), ("1.0", [0, 1], 1),
    ("yes", [False, True], True), ("true", [False, True], True), ("1", [False, True], True),
    (1, [False, True], True), ("YES", [False, True], True), ("no", [False, True], False),
    ("0", [False, True], False), ("t", [False, True], True),
    ("High", ["High", "Low"], "High"), ("low", ["High", "Low"], "Low"),
    ("1", ["0", "1"], "1"), (1, ["0", "1"], "1"),
])
def test_pos_label_matches_what_the_column_holds(given, values, expected):
    got = resolve_pos_label(given, values)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("given,values,match", [
    ("yes", [0, 1], r"pos_label: 'yes' matches no value of the label; values are \[0, 1\]"),
    ("maybe", [False, True], r"values are \[False, True\] \(True/False: give true, yes or 1"),
    ("2", [0, 1], r"'2' matches no value"),
    ("high", ["High", "HIGH", "Low"], "'high' matches no value"),  # ambiguous case: no guess
    ("x", [], r"values are \[\] \(no rows\)"),
])
def test_pos_label_that_matches_nothing_is_an_error(given, values, match):
    with pytest.raises(FairboundError, match=match) as info:
        resolve_pos_label(given, values)
    assert info.value.param == "pos_label" and "\n" not in str(info.value)


def test_pos_label_of_a_stream_may_come_later():
    assert resolve_pos_label("High", ["Low"], require_present=False) == "High"
    assert resolve_pos_label("yes", [False], require_present=False) is True
    assert resolve_pos_label("3", [1, 2], require_present=False) == 3
    with pytest.raises(FairboundError, match="'maybe' matches no value"):
        resolve_pos_label("maybe", [False], require_present=False)


@pytest.mark.parametrize("labels,preds,pos,positive", [
    ([0, 1], [0, 1], None, 1), ([False, True], [0, 1], None, 1), ([0, 1], [False, True], None, 1),
    ([0, 1.0], [True], None, 1), ([0, 1], [0, 1], "1", 1), ([0, 1], [0, 1], 0, 0),
    ([False, True], [False, True], "yes", 1), ([False, True], [False, True], "no", 0),
    ([0], [0, 1], None, 1),  # a sample without positive labels is still 0/1
])
def test_binary_labels(labels, preds, pos, positive):
    s = label_setup(labels, preds, pos)
    assert s == LabelSetup("binary", (0, 1), (positive,))


def test_value_sets_must_match():
    # COMPAS: three risk levels against a thresholded score
    with pytest.raises(FairboundError) as info:
        label_setup(["High", "Low", "Medium"], [False, True], label="score_text",
                    prediction="decile_score >= 5")
    msg = str(info.value)
    assert msg.startswith("prediction: prediction 'decile_score >= 5' holds [False, True] but "
                          "label 'score_text' holds ['High', 'Low', 'Medium']")
    assert info.value.param == "prediction" and "\n" not in msg
    # 0/1 labels against raw 1-10 scores
    with pytest.raises(FairboundError, match=r"prediction: column 'decile_score' must be binary "
                                             r"\(0/1\) like the label 'y'"):
        label_setup([0, 1], list(range(1, 11)), label="y", prediction="decile_score")
    # text of different vocabularies, and text against numbers
    with pytest.raises(FairboundError, match=r"predictions must be label values \(\['No', "
                                             r"'Yes'\] are not\)"):
        label_setup(["no", "yes"], ["No", "Yes"], "yes")
    with pytest.raises(FairboundError, match="predictions must be label values"):
        label_setup(["a", "b", "c"], [1, 2], label="y", prediction="p")
    # 1/2 labels against 0/1 predictions are ambiguous even with pos_label
    with pytest.raises(FairboundError, match=r"prediction 'p' holds \[0, 1\] but label 'y' "
                                             r"holds \[1, 2\]"):
        label_setup([1, 2], [0, 1], 2, label="y", prediction="p")
    with pytest.raises(FairboundError, match="has non-integer values such as 0.25"):
        label_setup([0, 1], [0.25, 1.0], prediction="p")
    with pytest.raises(FairboundError, match="no row has both a label"):
        label_setup([], [0, 1])


def test_two_valued_labels_need_pos_label():
    with pytest.raises(FairboundError, match=r"pos_label: labels are \['no', 'yes'\]; say which"):
        label_setup(["no", "yes"], ["no"])
    s = label_setup(["no", "yes"], ["yes"], "yes")
    assert (s.task, s.classes, s.positives) == ("binary", ("no", "yes"), ("yes",))
    multi = label_setup(["a", "b", "c"], ["a", "b", "d"])  # a class only predicted
    assert multi.task == "multiclass" and multi.classes == ("a", "b", "c", "d")
    assert label_setup(["a", "b", "c"], ["a"], "B").positives == ("b",)


def test_true_false_prediction_pairs_with_a_two_valued_label():
    with pytest.raises(FairboundError, match="say which label value a True prediction stands"):
        label_setup(["High", "Low"], [False, True], label="risk", prediction="score >= 5")
    s = label_setup(["High", "Low"], [False, True], "High")
    assert (s.classes, s.positives, s.prediction_is_binary) == (("Low", "High"), ("High",), True)
    assert [s.index(v, "prediction") for v in (False, True, 0, 1)] == [0, 1, 0, 1]
    assert [s.index(v) for v in ("Low", "High", True)] == [0, 1, None]
    conf = np.zeros((2, 4, 4), dtype=np.int64)  # axes: False, True, 'High', 'Low'
    conf[0, 2, 1], conf[0, 3, 1], conf[1, 3, 0] = 7, 2, 5
    out = s.confusion(conf, [False, True, "High", "Low"])
    assert out[0].tolist() == [[0, 2], [0, 7]] and out[1].tolist() == [[5, 0], [0, 0]]
    with pytest.raises(FairboundError, match=r"--label \"risk = 'High'\""):
        label_setup(["High", "Low"], [False, True], "High", label="risk", prediction="p",
                    allow_binary_prediction=False)


# ----------------------------------------------------------------------------- audit


def _audit(data, **kw):
    args = dict(group="g", label="y", prediction="p", metrics=["fpr", "tpr"],
                method="agresti-caffo") | kw
    return fairbound.audit(data, **args).to_frame()[["metric", "group_a", "group_b", "n_a",
                                                     "n_b", "estimate", "low", "high"]]


@pytest.fixture
def frame():
    rng = np.random.default_rng(3)
    n = 600
    y = rng.integers(0, 2, n)
    return pd.DataFrame({"g": rng.choice(["a", "b"], n), "y": y,
                         "p": np.where(rng.random(n) < 0.8, y, 1 - y),
                         "score": rng.integers(1, 11, n)})


def test_audit_reads_yes_no_files_like_python(frame, tmp_path):
    base = _audit(frame)
    yn = frame.assign(y=frame.y.map({0: "no", 1: "yes"}), p=frame.p.map({0: "no", 1: "yes"}))
    path = tmp_path / "yn.csv"
    yn.to_csv(path, index=False)  # DuckDB reads yes/no as booleans
    for pos in (None, "yes", "true", "1", 1, True):
        pd.testing.assert_frame_equal(_audit(str(path), pos_label=pos), base)
    pd.testing.assert_frame_equal(_audit(yn, pos_label="yes"), base)  # text in memory
    pd.testing.assert_frame_equal(_audit(frame, pos_label="1"), base)
    with pytest.raises(FairboundError, match=r"pos_label: 'maybe' matches no value of label 'y' "
                                             r"or prediction 'p'; values are \[False, True\]"):
        _audit(str(path), pos_label="maybe")


def test_audit_refuses_mismatched_value_sets(frame):
    risk = frame.assign(y=np.array(["Low", "Medium", "High"])[frame.index % 3])
    with pytest.raises(FairboundError, match=r"prediction 'score >= 5' holds \[False, True\] but "
                                             r"label 'y' holds \['High', 'Low', 'Medium'\]"):
        _audit(risk, prediction="score >= 5")
    with pytest.raises(FairboundError, match=r"column 'score' must be binary \(0/1\)"):
        _audit(frame, prediction="score")


def test_audit_two_valued_label_with_threshold(frame):
    hl = frame.assign(y=frame.y.map({0: "Low", 1: "High"}))
    # a True/False prediction pairs with a two-valued label once pos_label says which value
    # True stands for: the same audit as the 0/1 data
    pd.testing.assert_frame_equal(_audit(hl, prediction="p = 1", pos_label="High"),
                                  _audit(frame))
    # and so does writing the label as a condition
    pd.testing.assert_frame_equal(_audit(hl, label="y = 'High'", prediction="p = 1"),
                                  _audit(frame))
