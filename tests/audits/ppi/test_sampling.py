"""Choosing rows to annotate (fairbound.audits.ppi.sampling) and the weighted audit that follows."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from fairbound.audits.ppi.audit import ppi_audit
from fairbound.audits.ppi.sampling import annotation_probabilities, sample_for_annotation
from fairbound.engines.ppi import ppi_counts
from fairbound.errors import FairboundError
from fairbound.stats.ppi_ipw import WeightedPPICounts


def pool(rng, M=6000, gap=0.0):
    g = np.where(rng.random(M) < 0.5, "a", "b")
    s = rng.beta(0.3, 0.3, M)
    y = (rng.random(M) < s).astype(int)
    acc = np.where(g == "a", 0.8 + gap, 0.8)
    pred = np.where(rng.random(M) < acc, y, 1 - y)
    df = pd.DataFrame({"g": g, "judge": s, "proxy": (s >= 0.5).astype(int), "pred": pred})
    return df, y


def annotate(df, y):
    out = df.copy()
    drawn = out["fairbound_batch"].notna().to_numpy()
    gold = (np.array(out["gold"], dtype=float) if "gold" in out
            else np.full(len(out), np.nan))
    gold[drawn] = y[drawn]
    out["gold"] = gold
    return out


# --------------------------------------------------------------------------- probabilities
def test_probabilities_sum_to_the_budget_are_capped_and_floored():
    rng = np.random.default_rng(0)
    u = rng.random(500) ** 4
    pi = annotation_probabilities(u, 120.0, mix=0.2)
    assert pi.sum() == pytest.approx(120.0)
    assert pi.max() <= 1.0
    assert pi.min() >= 0.2 * 120 / 500 - 1e-12
    big = annotation_probabilities(np.r_[np.full(5, 100.0), np.ones(95)], 20.0, mix=0.1)
    assert np.all(big[:5] == 1.0) and big.sum() == pytest.approx(20.0)
    assert np.all(annotation_probabilities(u, 600.0) == 1.0)
    flat = annotation_probabilities(np.zeros(10), 5.0)
    np.testing.assert_allclose(flat, 0.5)


def test_same_call_same_rows_new_batch_new_rows_and_the_design_is_recorded():
    df, _ = pool(np.random.default_rng(1))
    s1 = sample_for_annotation(df, group="g", budget=300, proxy_score="judge")
    s2 = sample_for_annotation(df, group="g", budget=300, proxy_score="judge")
    assert s1.selected.index.equals(s2.selected.index)
    assert s1.batch == 1 and s1.seed == 0
    sel = s1.data.loc[s1.selected.index]
    assert (sel["fairbound_batch"] == 1).all()
    assert sel["fairbound_probability"].between(0, 1, inclusive="right").all()
    assert s1.data["fairbound_batch"].notna().sum() == len(s1.selected)
    assert sum(g.budget for g in s1.groups) == pytest.approx(300)
    assert sum(g.drawn for g in s1.groups) == len(s1.selected)
    # uncertain rows are drawn more often
    unsure = (df["judge"] - 0.5).abs() < 0.2
    rate = s1.data["fairbound_batch"].notna()
    assert rate[unsure].mean() > 2 * rate[~unsure].mean()
    # the next batch draws among the rows left, with its own random numbers
    nxt = sample_for_annotation(s1.data, group="g", budget=300, proxy_score="judge")
    assert nxt.batch == 2
    assert not set(nxt.selected.index) & set(s1.selected.index)
    assert (nxt.data.loc[s1.selected.index, "fairbound_batch"] == 1).all()


@pytest.mark.parametrize("allocation", ["neyman", "proportional", "equal"])
def test_allocations_split_the_budget(allocation):
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"g": np.r_[np.full(900, "big"), np.full(100, "small")],
                       "judge": rng.random(1000)})
    s = sample_for_annotation(df, group="g", budget=200, proxy_score="judge",
                              allocation=allocation)
    b = {g.group: g.budget for g in s.groups}
    assert sum(b.values()) == pytest.approx(200)
    if allocation == "proportional":
        assert b["big"] == pytest.approx(180)
    else:   # equal and neyman: about even (neyman: summed uncertainty over group size)
        assert b["small"] == pytest.approx(100, rel=0.25)


@pytest.mark.parametrize("kwargs,param,text", [
    (dict(budget=0), "budget", "budget must be"),
    (dict(mix=1.5), "mix", "mix must be"),
    (dict(allocation="greedy"), "allocation", "allocation must be one of"),
    (dict(group="nope"), "group", "column 'nope' not found"),
    (dict(proxy_score="nope"), "proxy_score", "column 'nope' not found"),
    (dict(proxy_score="bad"), "proxy_score", "a score must be a probability"),
    (dict(batch=0), "batch", "batch must be"),
    (dict(seed=-1), "seed", "seed must be"),
])
def test_bad_arguments_are_one_line_errors(kwargs, param, text):
    df = pd.DataFrame({"g": ["a", "b"] * 10, "judge": np.linspace(0, 1, 20),
                       "bad": np.linspace(0, 2, 20)})
    args = dict(group="g", budget=5, proxy_score="judge") | kwargs
    with pytest.raises(FairboundError, match=text) as exc:
        sample_for_annotation(df, **args)
    assert exc.value.param == param
    assert "\n" not in str(exc.value)


def test_a_batch_must_be_annotated_before_the_next_and_numbers_only_go_up():
    df, y = pool(np.random.default_rng(3), M=500)
    s = sample_for_annotation(df, group="g", budget=50, proxy_score="judge")
    data = s.data.assign(gold=np.nan)
    with pytest.raises(FairboundError, match="annotate them before drawing batch 2") as exc:
        sample_for_annotation(data, group="g", budget=50, label="gold")
    assert exc.value.param == "label"
    done = annotate(s.data, y)
    with pytest.raises(FairboundError, match="is not after the batches") as exc:
        sample_for_annotation(done, group="g", budget=50, label="gold", batch=1)
    assert sample_for_annotation(done, group="g", budget=50, label="gold", batch=5).batch == 5


# --------------------------------------------------------------------------- engine
def test_weighted_counts_from_the_engine_match_the_rows():
    df, y = pool(np.random.default_rng(4), M=3000)
    s = sample_for_annotation(df, group="g", budget=300, proxy_score="judge")
    d = annotate(s.data, y)
    # a few gold labels from before any weighted draw: batch 0 (uniform within group)
    early = d.index[d["fairbound_batch"].isna()][:40]
    d.loc[early, "gold"] = y[early]
    t = ppi_counts(d, group="g", label="gold", proxy="proxy", prediction="pred",
                   sampling_probability="fairbound_probability", batch="fairbound_batch")
    assert t.batches == (0, 1)
    for i, g in enumerate(t.groups):
        rows = d[d["g"] == g]
        lab = rows["gold"].notna()
        b = rows["fairbound_batch"].fillna(0).to_numpy()
        pi = rows["fairbound_probability"].to_numpy(dtype=float)
        pi = np.where(b == 0, (lab & (b == 0)).sum() / len(rows), pi)
        ref = WeightedPPICounts.from_arrays(
            np.where(lab, rows["gold"], -1), rows["proxy"], rows["pred"],
            probability=pi, batch=b)
        np.testing.assert_allclose(t.weights[1, i], ref.w, rtol=1e-12)
        np.testing.assert_allclose(t.weights[2, i], ref.w2, rtol=1e-12)
        np.testing.assert_array_equal(t.weights[0, i], ref.n)


@pytest.mark.parametrize("change,param,text", [
    ("unannotated", "label", "have no gold label"),
    ("no_probability", "sampling_probability", "have no probability"),
    ("probability_above_1", "sampling_probability", "must be in \\(0, 1\\]"),
    ("fractional_batch", "batch", "not whole numbers"),
    ("text_probability", "sampling_probability", "expected numbers"),
])
def test_broken_designs_are_refused(change, param, text):
    df, y = pool(np.random.default_rng(5), M=800)
    d = annotate(sample_for_annotation(df, group="g", budget=80, proxy_score="judge").data, y)
    first = d.index[d["fairbound_batch"].notna()][0]
    if change == "unannotated":
        d.loc[first, "gold"] = np.nan
    elif change == "no_probability":
        d.loc[first, "fairbound_probability"] = np.nan
    elif change == "probability_above_1":
        d.loc[first, "fairbound_probability"] = 1.5
    elif change == "fractional_batch":
        d["fairbound_batch"] = d["fairbound_batch"].astype(float)
        d.loc[first, "fairbound_batch"] = 1.5
    else:
        d["fairbound_probability"] = d["fairbound_probability"].astype(str)
    with pytest.raises(FairboundError, match=text) as exc:
        ppi_audit(d, group="g", label="gold", proxy="proxy", prediction="pred",
                  sampling_probability="fairbound_probability", batch="fairbound_batch")
    assert exc.value.param == param


# --------------------------------------------------------------------------- audit
def _weighted_audit(d, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ppi_audit(d, group="g", label="gold", proxy="proxy", prediction="pred",
                         sampling_probability="fairbound_probability",
                         batch="fairbound_batch", **kw)


@pytest.mark.parametrize("reps", [
    pytest.param(80, id="fast"), pytest.param(600, id="slow", marks=pytest.mark.slow)])
def test_null_false_claims_through_the_public_path_with_default_seed(reps):
    """Equal groups; rows drawn by sample_for_annotation with every default (seed 0)."""
    claims = 0
    for r in range(reps):
        df, y = pool(np.random.default_rng([77, r]), M=4000)
        d = annotate(sample_for_annotation(df, group="g", budget=600,
                                           proxy_score="judge").data, y)
        res = _weighted_audit(d, metrics=["equal_opportunity", "accuracy_parity"])
        claims += any(c.verdict.endswith("disadvantaged") for c in res.comparisons)
    # family-wise 5% over both metrics: not detectably above it
    assert st.binomtest(claims, reps, 0.05, alternative="greater").pvalue > 0.001, claims


def test_batches_looks_and_the_result_record_the_design():
    df, y = pool(np.random.default_rng(6), M=6000, gap=0.08)
    d = annotate(sample_for_annotation(df, group="g", budget=500, proxy_score="judge").data, y)
    d = annotate(sample_for_annotation(d, group="g", budget=500, proxy_score="judge",
                                       label="gold").data, y)
    res = _weighted_audit(d, metrics="accuracy_parity", looks=3)
    c = res.comparisons[0]
    assert res.batches == (1, 2) and res.looks == 3
    assert c.interval_level == pytest.approx(1 - 0.05 / 3)
    assert "weighted" in c.method and "hajek" in c.labeled_method
    assert res.to_dict()["batches"] == [1, 2]
    assert "recorded probability" in res.assumption
    assert c.width_ratio < 1
    with pytest.raises(FairboundError, match="looks=1") as exc:
        _weighted_audit(d, metrics="accuracy_parity")
    assert exc.value.param == "looks"
    with pytest.raises(FairboundError, match="no finite-sample interval") as exc:
        _weighted_audit(d, metrics="accuracy_parity", looks=3, guaranteed=True)
    vs_rest = _weighted_audit(d, metrics="equal_opportunity", looks=3, comparison="vs-rest")
    assert len(vs_rest.comparisons) == 2


def test_probabilities_that_do_not_match_the_draw_are_flagged():
    rng = np.random.default_rng(7)
    M = 8000
    s = rng.beta(0.3, 0.9, M)      # mostly negatives: the unsure rows are unlike the rest
    y = (rng.random(M) < s).astype(int)
    df = pd.DataFrame({"g": np.where(rng.random(M) < 0.5, "a", "b"), "judge": s,
                       "proxy": (s >= 0.5).astype(int), "pred": y})
    d = annotate(sample_for_annotation(df, group="g", budget=800, proxy_score="judge").data, y)
    d["fairbound_probability"] = d["fairbound_probability"].mean()   # lost the real ones
    with pytest.warns(UserWarning, match="recorded probabilities may not be"):
        ppi_audit(d, group="g", label="gold", proxy="proxy", prediction="pred",
                  sampling_probability="fairbound_probability", batch="fairbound_batch")


# --------------------------------------------------------------------------- CLI
def test_cli_sample_annotate_audit(tmp_path, capsys):
    from fairbound.cli import main

    df, y = pool(np.random.default_rng(8), M=4000, gap=0.1)
    src = tmp_path / "pool.csv"
    df.to_csv(src, index=False)
    out, ann = tmp_path / "design.csv", tmp_path / "batch.parquet"
    code = main(["sample", str(src), "--group", "g", "--budget", "400", "--proxy",
                 "judge", "--out", str(out), "--annotate", str(ann)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "batch 1" in text and "--sampling-probability fairbound_probability" in text
    batch = pd.read_parquet(ann)
    design = pd.read_csv(out)
    assert len(batch) == design["fairbound_batch"].notna().sum() > 300
    annotate(design, y).to_csv(out, index=False)
    code = main(["ppi", str(out), "--group", "g", "--label", "gold", "--proxy", "proxy",
                 "--prediction", "pred", "--sampling-probability", "fairbound_probability",
                 "--batch", "fairbound_batch", "--looks", "2", "--metric", "accuracy_parity"])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "2 planned looks" in text
    code = main(["sample", str(src), "--group", "g", "--budget", "-3", "--out",
                 str(tmp_path / "x.csv")])
    err = capsys.readouterr().err
    assert code == 2 and "budget must be" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.csv").exists()
    code = main(["sample", str(src), "--group", "g", "--budget", "3", "--out",
                 str(tmp_path / "x.txt")])
    assert code == 2 and "--out" in capsys.readouterr().err


# --------------------------------------------------------------------------- row key, merge
def test_annotators_labels_join_back_on_the_row_key(tmp_path, capsys):
    """Issue 27 item 7: the --annotate file carries a key, and --merge joins it back."""
    from fairbound.audits.ppi.sampling import ROW_COLUMN, merge_annotations
    from fairbound.cli import main

    rng = np.random.default_rng(3)
    df, y = pool(rng, M=800)
    df.to_csv(tmp_path / "pool.csv", index=False)
    design, batch = tmp_path / "design.csv", tmp_path / "batch1.csv"
    assert main(["sample", str(tmp_path / "pool.csv"), "-g", "g", "--budget", "60",
                 "-o", str(design), "--annotate", str(batch)]) == 0
    sent = pd.read_csv(batch)
    assert ROW_COLUMN in sent and sent[ROW_COLUMN].is_unique
    # annotators shuffle the rows and keep only the key and their label
    done = sent[[ROW_COLUMN]].sample(frac=1, random_state=0)
    done["gold"] = y[done[ROW_COLUMN].to_numpy()]
    done.to_csv(tmp_path / "done.csv", index=False)
    assert main(["sample", str(design), "-g", "g", "--merge", str(tmp_path / "done.csv"),
                 "--label", "gold", "-o", str(design)]) == 0
    merged = pd.read_csv(design)
    labeled = merged["gold"].notna().to_numpy()
    assert labeled.sum() == len(sent)
    assert (merged["fairbound_batch"].notna().to_numpy() == labeled).all()
    assert (merged.loc[labeled, "gold"].to_numpy()
            == y[merged.loc[labeled, ROW_COLUMN].to_numpy()]).all()
    # an unknown key, a clash with a label already there: one line each
    bad = done.copy()
    bad.loc[bad.index[0], ROW_COLUMN] = 10**6
    with pytest.raises(FairboundError, match="row key 1000000 .* not in the design"):
        merge_annotations(merged, bad, label="gold")
    clash = done.copy()
    clash["gold"] = 1 - clash["gold"]
    with pytest.raises(FairboundError, match="already holds"):
        merge_annotations(merged, clash, label="gold")
    capsys.readouterr()
    assert main(["sample", str(design), "-g", "g", "--merge", str(tmp_path / "done.csv"),
                 "-o", str(tmp_path / "x.csv")]) == 2
    assert capsys.readouterr().err.strip().startswith("error: label:")
    assert not (tmp_path / "x.csv").exists()
    assert main(["sample", str(design), "-g", "g", "-o", str(tmp_path / "x.csv")]) == 2
    assert capsys.readouterr().err.strip().startswith("error: budget: give --budget")


def test_a_budget_above_the_rows_draws_every_row_with_a_note():
    rng = np.random.default_rng(4)
    df, _ = pool(rng, M=200)
    s = sample_for_annotation(df, group="g", budget=500, proxy_score="judge")
    assert len(s.selected) == 200
    assert any("every one of them is drawn" in n for n in s.notes)
    assert not any("every one" in n for n in sample_for_annotation(
        df, group="g", budget=50, proxy_score="judge").notes)
