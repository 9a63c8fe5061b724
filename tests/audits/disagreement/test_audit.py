"""Annotator disagreement as a cost, its audit, and majority labels."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.audits.disagreement.audit import disagreement, majority_labels, vote_counts
from fairbound.errors import FairboundError

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "data"
TWEETS_CSV = SHARED / "hate_speech_dialect" / "labeled_data_with_twitteraae_dialect.csv"
VOTES = ["hate_speech", "offensive_language", "neither"]


def _votes():
    # unanimous, 2-1, 1-1-1, 4-2, 5-1, 3-3
    return pd.DataFrame({"h": [0, 1, 1, 0, 5, 3], "o": [3, 2, 1, 4, 1, 3],
                         "n": [0, 0, 1, 2, 0, 0]})


def test_minority_share_on_hand_made_rows():
    d = disagreement(_votes(), votes=["h", "o", "n"])
    np.testing.assert_allclose(d, [0, 1 / 3, 2 / 3, 1 / 3, 1 / 6, 1 / 2])
    assert d.name == "disagreement"
    assert d.between(0, 1).all()


def test_entropy_is_normalised_by_log_k():
    d = disagreement(_votes(), votes=["h", "o", "n"], measure="entropy")
    def h(*p):
        p = np.array(p, float) / sum(p)
        p = p[p > 0]
        return -(p * np.log(p)).sum() / np.log(3)
    np.testing.assert_allclose(d, [0, h(1, 2), 1, h(4, 2), h(5, 1), h(3, 3)])
    assert d.iloc[0] == 0 and d.iloc[2] == pytest.approx(1)


def test_annotator_columns_equal_vote_counts():
    ann = pd.DataFrame({"a1": ["x", "x", "x", "y"], "a2": ["x", "y", "y", None],
                        "a3": ["x", "x", "z", "y"]})
    counts, classes = vote_counts(ann, annotators=["a1", "a2", "a3"])
    assert classes == ("x", "y", "z")
    assert counts.tolist() == [[3, 0, 0], [2, 1, 0], [1, 1, 1], [0, 2, 0]]
    np.testing.assert_allclose(disagreement(ann, annotators=["a1", "a2", "a3"]),
                               [0, 1 / 3, 2 / 3, 0])


def test_majority_labels_and_ties():
    df = _votes()
    m = majority_labels(df, votes=["h", "o", "n"])
    assert m.tolist() == ["o", "o", None, "o", "h", None]
    assert m.attrs == {"ties": 2, "ties_policy": "drop"}
    f = majority_labels(df, votes=["h", "o", "n"], ties="first")
    assert f.tolist() == ["o", "o", "h", "o", "h", "h"]
    assert f.attrs["ties"] == 2
    ann = pd.DataFrame({"a1": [1, 0], "a2": [0, 0], "a3": [1, 1], "a4": [0, None]})
    assert majority_labels(ann, annotators=["a1", "a2", "a3", "a4"]).tolist() == [None, 0]
    assert majority_labels(ann, annotators=["a1", "a2", "a3", "a4"],
                           ties="first").tolist() == [0, 0]


@pytest.mark.parametrize("kwargs, match", [
    ({"votes": ["h", "o", "gone"]}, r"votes: column 'gone' not found"),
    ({"votes": ["h", "o"], "annotators": ["h", "o"]}, r"exactly one of votes="),
    ({}, r"exactly one of votes="),
    ({"votes": "h"}, r"votes must be a list of at least 2 column names; got 'h'"),
    ({"votes": ["h", "o"], "measure": "gini"}, r"measure must be one of .*got 'gini'"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(FairboundError, match=match) as e:
        disagreement(_votes(), **kwargs)
    assert "\n" not in str(e.value)


def test_bad_vote_values():
    df = _votes()
    df.loc[1, "o"] = -1
    with pytest.raises(FairboundError, match=r"votes: column 'o' has the value -1 at row 1"):
        disagreement(df, votes=["h", "o", "n"])
    df = _votes()
    df.loc[4, ["h", "o", "n"]] = 0
    with pytest.raises(FairboundError, match=r"votes: row 4 has no votes") as e:
        disagreement(df, votes=["h", "o", "n"])
    assert e.value.param == "votes"
    with pytest.raises(FairboundError, match=r"votes: column 'n' must hold vote counts"):
        disagreement(_votes().assign(n=list("abcdef")), votes=["h", "o", "n"])
    with pytest.raises(FairboundError, match=r"ties must be one of drop, first; got 'last'"):
        majority_labels(_votes(), votes=["h", "o", "n"], ties="last")
    with pytest.raises(FairboundError, match=r"cost: set by disagreement_audit"):
        fairbound.disagreement_audit(_votes().assign(g=list("aaabbb")), group="g",
                                     votes=["h", "o", "n"], cost="x")


def test_audit_on_synthetic_groups_has_intervals():
    df = _votes().assign(g=list("aaabbb"))
    with pytest.warns(fairbound.SmallGroupWarning):
        res = fairbound.disagreement_audit(df, group="g", votes=["h", "o", "n"])
    (c,) = res.comparisons
    assert c.metric == "cost" and c.method == "betting"
    assert c.rate_a == pytest.approx(1 / 3) and c.rate_b == pytest.approx(1 / 3)
    assert c.low <= 0 <= c.high


def test_path_input(tmp_path):
    path = tmp_path / "votes.csv"
    _votes().to_csv(path, index=False)
    np.testing.assert_allclose(disagreement(str(path), votes=["h", "o", "n"]),
                               disagreement(_votes(), votes=["h", "o", "n"]))
    with pytest.raises(FairboundError, match=r"data: file does not exist"):
        disagreement(str(tmp_path / "nope.csv"), votes=["h", "o", "n"])


def test_tweets_by_dialect():
    # the bundled copy keeps the crowd's votes per class
    from fairbound.stability import load_tweets

    raw = load_tweets(dropna=False).rename(columns={"dialect": "dialect_argmax"})
    raw = raw[raw["dialect_argmax"].notna()]
    res = fairbound.disagreement_audit(raw, group="dialect_argmax", votes=VOTES)
    assert len(res.comparisons) == 6
    for c in res.comparisons:
        assert c.low <= c.estimate <= c.high and c.high - c.low < 0.05
    by = {(c.group_a, c.group_b): c for c in res.comparisons}
    assert by[("aa", "white")].rate_a == pytest.approx(0.0848, abs=1e-4)
    assert by[("aa", "white")].high < 0  # annotators disagree more on white-aligned tweets
    ent = fairbound.disagreement_audit(raw, group="dialect_argmax", votes=VOTES,
                                       measure="entropy", error_control="none")
    assert all(0 <= c.rate_a <= 1 for c in ent.comparisons)
    m = majority_labels(raw, votes=VOTES)
    assert m.attrs["ties"] == 0
    assert (m.map({v: i for i, v in enumerate(VOTES)}) == raw["class"]).all()
