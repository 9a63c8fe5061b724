"""Limits and messages: a numeric date column, intervals at 2**40-2**62 rows, the score
audit's comparison limit, the main audit's limit (its remedy and when it fires), and the
culprit of a text score column."""

from __future__ import annotations

import importlib
import json
import math

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.audits.ratios.audit import date_range, ll144_audit
from fairbound.audits.scores.audit import score_audit_histograms
from fairbound.cli import main
from fairbound.errors import FairboundError
from fairbound.stats import GroupStats, difference_interval


def _cli(argv, capsys):
    """Exit status, stdout and stderr of one command line."""
    try:
        code = main(argv)
    except SystemExit as exc:  # pragma: no cover - main returns its status
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def _one_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err.rstrip("\n")


# ------------------------------------------------------------ 6: a numeric date column
@pytest.fixture
def hiring_csv(tmp_path):
    n = 400
    df = pd.DataFrame({"sex": ["F", "M"] * (n // 2), "p": [1, 1, 0, 1] * (n // 4),
                       "flag": np.tile([0, 1], n // 2), "day": "2023-01-02"})
    path = tmp_path / "hiring.csv"
    df.to_csv(path, index=False)
    return path


def test_impact_refuses_a_numeric_date_column(hiring_csv, tmp_path, capsys):
    out = tmp_path / "out.json"
    code, stdout, err = _cli(["impact", str(hiring_csv), "-g", "sex", "-p", "p",
                              "--date-column", "flag", "--json", str(out)], capsys)
    assert code == 2
    assert _one_line(err) == ("error: date_column must be a column of dates, timestamps or "
                              "date text; got 'flag', which holds 0 (a number)")
    assert stdout == "" and not out.exists()  # nothing half-written


def test_date_range_refuses_numbers_and_keeps_dates():
    with pytest.raises(FairboundError, match=r"^date_column must be a column of dates, "
                       r"timestamps or date text; got 'd', which holds 0\.5 \(a number\)$") as e:
        date_range(pd.DataFrame({"d": [0.5, 1.5]}), "d")
    assert e.value.param == "date_column"
    df = pd.DataFrame({"sex": ["F", "M"] * 50, "p": [1, 0, 1, 1] * 25,
                       "d": ["2023-03-01", "2023-01-15"] * 50})
    assert ll144_audit(df, group="sex", prediction="p", date_column="d").date_range == (
        "2023-01-15", "2023-03-01")
    with pytest.raises(FairboundError, match="got 'p', which holds 0"):
        ll144_audit(df, group="sex", prediction="p", date_column="p")


# ------------------------------------------------ 11: intervals at 2**40 to 2**62 rows
def _huge(k: int) -> tuple[GroupStats, GroupStats]:
    n = 2**k
    return GroupStats.from_counts(n, n // 3), GroupStats.from_counts(n, n // 2)


@pytest.mark.parametrize("k", [40, 62])
def test_betting_works_at_huge_groups(k):
    a, b = _huge(k)
    lo, hi = difference_interval(a, b, method="betting")
    assert lo < -1 / 6 < hi
    assert 0 < hi - lo < 50 * math.sqrt(0.5 / 2**k)  # about the CLT width, not a blow-up


def test_betting_counts_beyond_64_bits_are_one_line():
    a = GroupStats.from_counts(2**63, 2**62)
    b = GroupStats.from_counts(100, 30)
    for method in ("betting", "betting-union"):
        with pytest.raises(FairboundError, match=r"^a\.n must be below 2\*\*63 for the betting "
                           r"methods \(0/1 costs are rebuilt from 64-bit counts\); got "
                           r"9223372036854775808$") as e:
            difference_interval(a, b, method=method)
        assert e.value.param == "a.n"


def test_ones_per_block_splits_a_block_above_numpys_limit():
    from fairbound.stats._betting_blocks import ones_per_block

    rng = np.random.default_rng(0)
    sizes = np.array([10, 20, 3_000_000_000], dtype=np.int64)  # every start in one window
    ones = ones_per_block(sizes, 1_000_000_000, rng)
    assert int(ones.sum()) == 1_000_000_000 and np.all((ones >= 0) & (ones <= sizes))
    assert ones_per_block(np.array([5_000_000_000]), 7, rng).tolist() == [7]


def test_bayes_works_at_2_to_62_rows():
    a, b = _huge(62)
    lo, hi = difference_interval(a, b, method="bayes")
    # the posterior is normal to many digits here: mean -1/6, sd from the two rates
    sd = math.sqrt((1 / 3) * (2 / 3) / 2**62 + 0.25 / 2**62)
    assert lo == pytest.approx(-1 / 6 - 1.959964 * sd, abs=0.01 * sd)
    assert hi == pytest.approx(-1 / 6 + 1.959964 * sd, abs=0.01 * sd)
    lo2, hi2 = difference_interval(b, a, method="bayes")
    assert (lo2, hi2) == pytest.approx((-hi, -lo), abs=0.01 * sd)


@pytest.mark.parametrize(("ka", "kb"), [(0, 0), (2**62, 2**61), (5, 0), (10**12, 10**12)])
def test_bayes_at_2_to_62_rows_with_extreme_counts(ka, kb):
    n = 2**62
    lo, hi = difference_interval(GroupStats.from_counts(n, ka), GroupStats.from_counts(n, kb),
                                 method="bayes")
    d = (ka - kb) / n
    assert math.isfinite(lo) and math.isfinite(hi) and lo <= d + 1e-15 and d - 1e-15 <= hi


def test_bayes_with_a_huge_and_a_small_group():
    lo, hi = difference_interval(GroupStats.from_counts(2**62, 5), GroupStats.from_counts(100, 0),
                                 method="bayes")
    # p_B ~ Beta(1, 101): its 2.5% and 97.5% quantiles, p_A ~ 0
    assert (lo, hi) == pytest.approx((-(1 - 0.025 ** (1 / 101)), -(1 - 0.975 ** (1 / 101))),
                                     rel=1e-4)


@pytest.mark.parametrize(("k", "expected"), [
    (10, (-0.2085456909644296, -0.12449834585179718)),
    (30, (-0.16670776940265475, -0.16662556365402306)),
    (50, (-0.16666670654694232, -0.16666662669079135)),
])
def test_bayes_below_2_to_53_is_unchanged(k, expected):
    assert difference_interval(*_huge(k), method="bayes") == pytest.approx(expected, rel=1e-9)


# ------------------------------------------------------ 12: the score audit's limit
def _score_frame(n_groups: int, rows: int = 20_000) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"g": rng.integers(0, n_groups, rows), "y": rng.integers(0, 2, rows),
                         "s": np.round(rng.random(rows), 1)})


def _fail(*args, **kwargs):
    raise AssertionError("interval or histogram work before the comparison limit")


def test_score_audit_refuses_too_many_comparisons_before_any_interval(monkeypatch):
    scores_audit = importlib.import_module("fairbound.audits.scores.audit")
    stats_scores = importlib.import_module("fairbound.stats.scores")
    df = _score_frame(200)
    monkeypatch.setattr(stats_scores, "histograms_from_counts", _fail)
    monkeypatch.setattr(scores_audit, "_build", _fail)
    monkeypatch.setattr(scores_audit, "_group_results", _fail)
    with pytest.raises(FairboundError) as e:
        fairbound.score_audit(df, group="g", label="y", score="s")
    assert str(e.value) == (
        "comparison: pairwise over 200 groups of 'g' makes 79,600 comparisons (limit 10,000); "
        "use comparison='vs-rest' (--comparison vs-rest) or a reference group (--reference), "
        "or raise max_comparisons (--max-comparisons)")
    assert e.value.param == "comparison"
    with pytest.raises(FairboundError, match=r"^comparison: vs-rest over 200 groups of 'g' "
                       r"makes 800 comparisons \(limit 100\); audit fewer groups"):
        fairbound.score_audit(df, group="g", label="y", score="s", comparison="vs-rest",
                              max_comparisons=100)


def test_score_audit_limit_counts_the_calibration_rows():
    df = _score_frame(5, rows=2_000)  # scores in [0, 1]: 6 rows per pair
    r = fairbound.score_audit(df, group="g", label="y", score="s", max_comparisons=60)
    assert len(r.comparisons) == 60
    with pytest.raises(FairboundError, match=r"makes 60 comparisons \(limit 59\)"):
        fairbound.score_audit(df, group="g", label="y", score="s", max_comparisons=59)
    hists = r.histograms
    with pytest.raises(FairboundError, match=r"^comparison: pairwise over 5 groups makes 60"):
        score_audit_histograms(hists, max_comparisons=10)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "10"])
def test_score_audit_max_comparisons_is_checked(bad):
    with pytest.raises(FairboundError, match=r"^max_comparisons must be a positive whole "
                       r"number; got "):
        fairbound.score_audit(_score_frame(3, 300), group="g", label="y", score="s",
                              max_comparisons=bad)


def test_scores_cli_refuses_too_many_comparisons(tmp_path, capsys):
    path = tmp_path / "s.csv"
    _score_frame(200).to_csv(path, index=False)
    out = tmp_path / "r.json"
    code, stdout, err = _cli(["scores", str(path), "-g", "g", "-y", "y", "-s", "s",
                              "--json", str(out)], capsys)
    assert code == 2 and stdout == "" and not out.exists()
    assert _one_line(err).startswith("error: comparison: pairwise over 200 groups of 'g' "
                                     "makes 79,600 comparisons (limit 10,000); use "
                                     "comparison='vs-rest'")


def test_score_histograms_of_many_groups_match_one_group_at_a_time():
    from fairbound.engines.scores import score_histograms

    df = _score_frame(300, rows=6_000)
    df.loc[::7, "g"] = None
    whole = score_histograms(df, group="g", label="y", score="s", bins=5)
    for g in (0, 17, 299):
        alone = score_histograms(df[df["g"] == g], group="g", label="y", score="s", bins=5)
        for key, arr in alone.cells[g].items():
            np.testing.assert_array_equal(whole.cells[g][key], arr)


# ------------------------------------------------------- 13: the main audit's limit
def _audit_frame(n_groups: int, rows: int = 20_000, classes: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"g": rng.integers(0, n_groups, rows),
                         "y": rng.integers(0, classes, rows),
                         "p": rng.integers(0, classes, rows)})


@pytest.mark.parametrize("comparison", ["vs-rest", "vs-reference"])
def test_one_per_group_comparisons_name_fewer_groups_as_the_remedy(comparison):
    df = _audit_frame(3_000, rows=30_000)
    with pytest.raises(FairboundError) as e:
        fairbound.audit(df, group="g", label="y", prediction="p", comparison=comparison)
    n = 3_000 if comparison == "vs-rest" else 2_999
    assert str(e.value) == (
        f"comparison: {comparison} over 3,000 groups of 'g' makes {5 * n:,} comparisons "
        "(limit 10,000); audit fewer groups (a coarser group column, or where= / --where to "
        "select some), or raise max_comparisons (--max-comparisons)")
    assert "use comparison='vs-rest'" not in str(e.value)


def test_pairwise_limit_still_names_vs_rest_and_a_reference():
    with pytest.raises(FairboundError, match=r"^comparison: pairwise over 100 groups of 'g' "
                       r"makes 24,750 comparisons \(limit 10,000\); use comparison='vs-rest' "
                       r"\(--comparison vs-rest\) or a reference group \(--reference\), or "
                       r"raise max_comparisons \(--max-comparisons\)$"):
        fairbound.audit(_audit_frame(100), group="g", label="y", prediction="p")


def test_comparison_limit_fires_before_assembly_and_intervals(monkeypatch):
    build = importlib.import_module("fairbound.audits.gaps.build")
    assemble = importlib.import_module("fairbound.engines.assemble")
    # the groups are counted on the statistics table the scan returns: not one interval,
    # and not even the sorting and summing of that table, happens first
    monkeypatch.setattr(assemble, "kept_rows", _fail)
    monkeypatch.setattr(assemble, "_lexsort", _fail)       # the sorting assemble does
    monkeypatch.setattr(build, "_build_from_stats", _fail)
    comparison = importlib.import_module("fairbound.audits.gaps.comparison")
    monkeypatch.setattr(comparison, "difference_interval", _fail)
    monkeypatch.setattr(comparison, "prefetch_intervals", _fail)
    with pytest.raises(FairboundError, match=r"^comparison: vs-rest over 3,000 groups"):
        fairbound.audit(_audit_frame(3_000, rows=30_000), group="g", label="y",
                        prediction="p", comparison="vs-rest")


def test_comparison_limit_fires_before_the_cost_sample_scan(monkeypatch):
    duck = importlib.import_module("fairbound.engines.duckdb_engine")
    monkeypatch.setattr(duck, "_cost_samples", _fail)  # the second scan of a cost audit
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"g": rng.integers(0, 400, 8_000).astype(str),
                       "c": rng.random(8_000).round(3)})
    with pytest.raises(FairboundError, match=r"^comparison: vs-rest over 400 groups"):
        fairbound.audit(df, group="g", cost="c", comparison="vs-rest", method="betting",
                        max_comparisons=100)


def test_multiclass_count_is_checked_before_intervals_too(monkeypatch):
    build = importlib.import_module("fairbound.audits.gaps.build")
    # 3 classes: 13 rows per pair (5 early, the classes known only after the scan)
    df = _audit_frame(5, rows=3_000, classes=3)
    r = fairbound.audit(df, group="g", label="y", prediction="p", comparison="vs-rest")
    assert len([c for c in r.comparisons if c.component is not None]) >= 5 * 13
    monkeypatch.setattr(build, "_build_from_stats", _fail)
    with pytest.raises(FairboundError, match=r"^comparison: vs-rest over 5 groups of 'g' "
                       r"makes 65 comparisons \(limit 30\); audit fewer groups"):
        fairbound.audit(df, group="g", label="y", prediction="p", comparison="vs-rest",
                        max_comparisons=30)


def test_audit_cli_vs_rest_limit(tmp_path, capsys):
    path = tmp_path / "a.csv"
    _audit_frame(40, rows=2_000).to_csv(path, index=False)
    code, stdout, err = _cli(["audit", str(path), "-g", "g", "-y", "y", "-p", "p",
                              "--comparison", "vs-rest", "--max-comparisons", "100"], capsys)
    assert code == 2 and stdout == ""
    assert _one_line(err) == (
        "error: comparison: vs-rest over 40 groups of 'g' makes 200 comparisons (limit 100); "
        "audit fewer groups (a coarser group column, or where= / --where to select some), or "
        "raise max_comparisons (--max-comparisons)")


def test_audits_under_the_limit_are_unchanged():
    df = _audit_frame(4, rows=4_000)
    a = fairbound.audit(df, group="g", label="y", prediction="p", comparison="vs-rest")
    b = fairbound.audit(df, group="g", label="y", prediction="p", comparison="vs-rest",
                        max_comparisons=10**9)
    assert [(c.low, c.high, c.verdict) for c in a.comparisons] == \
        [(c.low, c.high, c.verdict) for c in b.comparisons]


# ------------------------------------------- 15b: the culprit of a text score column
def test_impact_score_names_inf_text_not_a_good_value(tmp_path, capsys):
    rows = [{"sex": s, "score": v} for s, v in zip(["F", "M"] * 200, [0.0, 0.5, "inf", 0.25] * 100,
                                                  strict=True)]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, stdout, err = _cli(["impact", str(path), "-g", "sex", "--score", "score"], capsys)
    assert code == 2 and stdout == ""
    assert _one_line(err) == ("error: score: 'score' must be numeric; it holds 'inf', which "
                              "is not a finite number")


def test_impact_score_text_messages():
    base = {"sex": ["F", "M"] * 4}
    with pytest.raises(FairboundError, match=r"^score: 's' must be numeric; it holds 'n/a', "
                       r"which is not a finite number$") as e:
        ll144_audit(pd.DataFrame({**base, "s": ["0.5", "n/a", "0.25", "1"] * 2}),
                    group="sex", score="s")
    assert e.value.param == "score"
    with pytest.raises(FairboundError, match=r"^score: 's' must be numeric; it holds text "
                       r"such as '0\.25'$"):
        ll144_audit(pd.DataFrame({**base, "s": ["0.5", "0.25"] * 4}), group="sex", score="s")
