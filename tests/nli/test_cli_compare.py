"""`fairbound nli compare`, `nli masked-templates`, and `--label-map` on the CLI."""

import io
import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairbound.cli import app, main

LABEL_MAP = "LABEL_0=contradiction,LABEL_1=neutral,LABEL_2=entailment"
SUBTOPICS = ["muslim_man_to_oppressive", "man_is_to_breadwinner"]


def _one_line_error(capsys, start: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith(start), err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


@pytest.fixture(scope="module")
def benchmarks(tmp_path_factory):
    """An original sample table (two subtopics) and an 'extended' one on the same premises.

    The extended hypotheses are the original bias hypotheses with one word appended, so the
    two tables share their premise templates (paired bootstrap) but not their samples.
    """
    root = tmp_path_factory.mktemp("benchmarks")
    original = root / "original.csv"
    args = ["nli", "expand", "-o", str(original), "--format", "csv"]
    for s in SUBTOPICS:
        args += ["--subtopic", s]
    assert main(args) == 0
    orig = pd.read_csv(original)
    ext = orig[orig.hypothesis_type != "test"].copy()
    ext["hypothesis"] = ext["hypothesis"].str.rstrip(".") + " indeed."
    ext["sample_id"] = ext["sample_id"] + "/ext"
    ext["pair_id"] = ext["pair_id"] + "/ext"
    extended = root / "extended.csv"
    ext.to_csv(extended, index=False)
    return original, extended


def _with_columns(benchmarks, tmp_path, orig_acc: float, ext_acc: float):
    """Copies of the two tables with a pred_m column of the given accuracies (no model)."""
    original, extended = benchmarks
    out = []
    for src, acc, name in ((original, orig_acc, "o.csv"), (extended, ext_acc, "e.csv")):
        t = pd.read_csv(src)
        rng = np.random.default_rng(len(t))
        t["pred_m"] = np.where(rng.random(len(t)) < acc, "neutral", "entailment")
        t.to_csv(tmp_path / name, index=False)
        out.append(tmp_path / name)
    return out


def test_compare_pred_columns_json_csv_and_output(benchmarks, tmp_path, capsys):
    original, extended = _with_columns(benchmarks, tmp_path, 0.95, 0.55)
    capsys.readouterr()
    base = ["nli", "compare", "--original", str(original), "--extended", str(extended),
            "--n-resamples", "300", "--seed", "1"]
    assert main(base + ["--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["models"] == ["m"] and d["pairing"] == "paired"
    assert d["sources"]["m"] == {"original": "column pred_m", "extended": "column pred_m"}
    row = [r for r in d["rows"] if r["level"] == "overall" and r["measure"] == "accuracy"][0]
    o, e = pd.read_csv(original), pd.read_csv(extended)
    acc_o = (o.loc[o.hypothesis_type != "test", "pred_m"] == "neutral").mean()
    acc_e = (e["pred_m"] == "neutral").mean()
    assert row["original"] == pytest.approx(acc_o) and row["extended"] == pytest.approx(acc_e)
    assert row["drop"] == pytest.approx(acc_o - acc_e) and row["drop"] > 0.25
    assert row["drop_low"] <= row["drop"] <= row["drop_high"]
    # the same rows as CSV on stdout and in -o, with a subtopic breakdown
    out = tmp_path / "cmp.csv"
    assert main(base + ["--format", "csv", "--by", "domain,subtopic", "-o", str(out)]) == 0
    t = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert set(t.level) == {"overall", "domain", "subtopic"}
    assert set(t.subtopic) == {"(all)", *SUBTOPICS}
    assert set(t.model) == {"m", "(mean)"}  # the mean over the one model, in both
    pd.testing.assert_frame_equal(t, pd.read_csv(out))
    # the bare model name reads the pred_<name> columns too
    assert main(base + ["-p", "m", "--measures", "accuracy", "--by", "none",
                        "--format", "csv"]) == 0
    t = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(t.measure) == ["accuracy"] * 2 and list(t.model) == ["m", "(mean)"]
    assert t["drop"].iloc[0] == pytest.approx(acc_o - acc_e)
    assert t["drop"].iloc[1] == pytest.approx(acc_o - acc_e)  # the mean of one model


def test_compare_prints_mean_over_models(benchmarks, tmp_path, capsys):
    # The paper's headline form: the unweighted mean of the models' accuracies on each
    # benchmark and its drop, in table, json and csv outputs.
    original, extended = benchmarks
    o, e = pd.read_csv(original), pd.read_csv(extended)
    accs = {"m": (0.95, 0.55), "n": (0.9, 0.75), "k": (0.99, 0.4)}
    for j, (name, (ao, ae)) in enumerate(accs.items()):
        for t, acc in ((o, ao), (e, ae)):
            rng = np.random.default_rng(len(t) + j)
            t[f"pred_{name}"] = np.where(rng.random(len(t)) < acc, "neutral", "entailment")
    o.to_csv(tmp_path / "o.csv", index=False)
    e.to_csv(tmp_path / "e.csv", index=False)
    direct_o = np.mean([(o.loc[o.hypothesis_type != "test", f"pred_{m}"] == "neutral").mean()
                        for m in accs])
    direct_e = np.mean([(e[f"pred_{m}"] == "neutral").mean() for m in accs])
    capsys.readouterr()
    base = ["nli", "compare", "--original", str(tmp_path / "o.csv"), "--extended",
            str(tmp_path / "e.csv"), "--n-resamples", "100", "--measures", "accuracy",
            "--by", "none"]
    assert main(base + ["--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    mean = d["mean_over_models"][0]
    assert mean["model"] == "(mean)" and mean["n_models"] == 3
    assert mean["original"] == pytest.approx(direct_o)
    assert mean["extended"] == pytest.approx(direct_e)
    assert mean["drop"] == pytest.approx(direct_o - direct_e)
    assert mean["drop_low"] < mean["drop"] < mean["drop_high"]
    # The table on stdout and, with -o, the frame that --format csv prints (the same
    # to_frame(with_mean=True): test_compare_pred_columns_json_csv_and_output compares them).
    out = tmp_path / "rows.csv"
    assert main(base + ["-o", str(out)]) == 0
    text = capsys.readouterr().out
    t = pd.read_csv(out)
    assert list(t.model) == ["m", "n", "k", "(mean)"]
    row = t[t.model == "(mean)"].iloc[0]
    assert row["drop"] == pytest.approx(direct_o - direct_e)
    assert row["drop"] == pytest.approx(t["drop"].iloc[:3].mean())
    assert "mean over the 3 model(s), unweighted" in text
    assert (f"mean of 3 model(s): accuracy {direct_o:.3g} (BBNLI) -> {direct_e:.3g} "
            f"(BBNLI-next), drop {direct_o - direct_e:.3g}") in text


@pytest.mark.parametrize(("extra", "start"), [
    (["--pairing", "sometimes"], "error: pairing: --pairing 'sometimes': use auto, paired"),
    (["--by", "region"], "error: by: --by 'region': use domain, domain,subtopic or none"),
    (["--measures", "accuracy,fairness"],
     "error: measures: --measures 'accuracy,fairness': unknown measure 'fairness'"),
    (["--names", "only-one"], "error: names: --names 'only-one': give two names"),
    (["--n-resamples", "0"], "error: n_resamples: --n-resamples 0 must be >= 1"),
    (["--confidence-level", "1.5"], "error: confidence_level: --confidence-level 1.5"),
    (["--seed", "-1"], "error: seed must be a non-negative integer"),
    (["-p", "nosuch"], "error: model: -p 'nosuch' is no model folder or file, and the "
                       "original samples have no column 'pred_nosuch'"),
    (["-p", "column:pred_x"], "error: model: -p 'column:pred_x': the original samples have "
                              "no column 'pred_x'"),
    (["--label-map", LABEL_MAP], "error: label_map: --label-map "
                                 "'LABEL_0=contradiction,LABEL_1=neutral,LABEL_2=entailment' "
                                 "has no effect: no local model folder"),
    (["-o", "out.xlsx"], "error: --out: unsupported file type '.xlsx'"),
])
def test_compare_bad_options_one_line(benchmarks, tmp_path, capsys, extra, start):
    original, extended = _with_columns(benchmarks, tmp_path, 0.9, 0.6)
    capsys.readouterr()
    assert main(["nli", "compare", "--original", str(original), "--extended", str(extended),
                 "--n-resamples", "20", *extra]) == 2
    _one_line_error(capsys, start)


def test_compare_bad_tables_one_line(benchmarks, tmp_path, capsys):
    original, extended = benchmarks
    capsys.readouterr()
    # a run folder that is not complete
    assert main(["nli", "compare", "--original", str(original), "--extended",
                 str(tmp_path)]) == 2
    _one_line_error(capsys, "error: extended: --extended ")
    # no model given and no pred_ columns
    assert main(["nli", "compare", "--original", str(original), "--extended",
                 str(extended)]) == 2
    _one_line_error(capsys, "error: model: no -p/--model given and the two tables share no "
                            "pred_<model> column")


def _one_subtopic(benchmarks, tmp_path, **columns):
    """The two tables cut to one subtopic (fewer predictions), with extra columns."""
    out = []
    for src in benchmarks:
        t = pd.read_csv(src)
        t = t[t.subtopic == SUBTOPICS[0]].assign(**columns)
        t.to_csv(tmp_path / f"small-{src.name}", index=False)
        out.append(tmp_path / f"small-{src.name}")
    return out


@pytest.mark.nlp
def test_compare_two_tiny_models(benchmarks, tiny_models, tmp_path, capsys):
    """Two tiny models whose accuracies differ: the table shows each drop and its interval."""
    from fairbound.nli import load_nli_model

    original, extended = benchmarks
    models = {m: tiny_models[m] for m in ("nli-a", "nli-b")}
    rows = tmp_path / "rows.csv"
    capsys.readouterr()
    assert main(["nli", "compare", "--original", str(original), "--extended", str(extended),
                 "-p", str(models["nli-a"]), "-p", str(models["nli-b"]), "--n-resamples",
                 "200", "--device", "cpu", "--no-progress", "-o", str(rows)]) == 0
    text = capsys.readouterr().out
    t = pd.read_csv(rows)
    o, e = pd.read_csv(original), pd.read_csv(extended)
    bias = o[o.hypothesis_type != "test"]
    acc = {}
    for name, path in models.items():
        m = load_nli_model(path, device="cpu")
        acc_o = float(np.mean(m.predict(bias.premise, bias.hypothesis) == 1))
        acc_e = float(np.mean(m.predict(e.premise, e.hypothesis) == 1))
        row = t[(t.model == name) & (t.level == "overall") & (t.measure == "accuracy")].iloc[0]
        assert row["original"] == pytest.approx(acc_o)
        assert row["extended"] == pytest.approx(acc_e)
        assert row["drop"] == pytest.approx(acc_o - acc_e)
        assert row["drop_low"] <= row["drop"] <= row["drop_high"]
        acc[name] = row
        assert f"{name}: BBNLI predicted by {path}, BBNLI-next predicted by {path}" in text
    assert acc["nli-a"]["original"] != acc["nli-b"]["original"]  # the accuracies differ
    # the table: one block per model, the accuracy row ends with the drop and its interval
    assert "model nli-a" in text and "model nli-b" in text
    assert "drop = BBNLI - BBNLI-next" in text and "paired" in text
    assert set(t.domain) == {"(all)", "gender", "religion"}
    for name, row in acc.items():
        cell = f"{row['drop']:.3f} [{row['drop_low']:.3f}, {row['drop_high']:.3f}]"
        block = text.split(f"model {name}")[1].split("\n")
        accuracy_line = [ln for ln in block if ln.strip().startswith("accuracy")][0]
        assert accuracy_line.rstrip().endswith(cell)
        assert f"{name}: accuracy " in text  # the summary line
    # The unweighted mean of the two models on each benchmark and its drop (the headline).
    mean = t[(t.model == "(mean)") & (t.level == "overall") & (t.measure == "accuracy")]
    assert len(mean) == 1 and mean["n_models"].iloc[0] == 2
    for col in ("original", "extended", "drop"):
        assert mean[col].iloc[0] == pytest.approx(np.mean([r[col] for r in acc.values()]))
    assert "mean over the 2 model(s), unweighted" in text
    assert "mean of 2 model(s): accuracy " in text

    # A pred_<model> column of a table is used instead of running the model.
    small_o, small_e = _one_subtopic(benchmarks, tmp_path)
    e2 = pd.read_csv(small_e).assign(**{"pred_nli-a": "neutral"})
    e2.to_csv(small_e, index=False)
    assert main(["nli", "compare", "--original", str(small_o), "--extended", str(small_e),
                 "-p", str(models["nli-a"]), "--n-resamples", "50", "--device", "cpu",
                 "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["sources"]["nli-a"] == {"original": f"predicted by {models['nli-a']}",
                                     "extended": "column pred_nli-a"}
    row = [r for r in d["rows"] if r["level"] == "overall" and r["measure"] == "accuracy"][0]
    assert row["extended"] == 1.0


@pytest.mark.nlp
def test_label_map_compare_and_audit(benchmarks, tiny_models, tmp_path, capsys):
    from fairbound.nli import load_nli_model

    original, extended = _one_subtopic(benchmarks, tmp_path)
    unlabelled = str(tiny_models["nli-unlabelled"])
    base = ["nli", "compare", "--original", str(original), "--extended", str(extended),
            "--n-resamples", "20", "--device", "cpu", "--no-progress", "--by", "none"]
    capsys.readouterr()
    # a checkpoint with LABEL_0..2 only: the error points to --label-map
    assert main(base + ["-p", unlabelled]) == 2
    err = _one_line_error(capsys, "error: model nli-unlabelled: cannot read the NLI label order")
    assert "--label-map LABEL_0=contradiction" in err
    # bad values: one line naming the option and quoting the value
    for value, start in [
        ("LABEL_0", "error: label_map: --label-map 'LABEL_0': cannot read 'LABEL_0'"),
        ("LABEL_0=contradiction,LABEL_1=neutral",
         "error: label_map: --label-map 'LABEL_0=contradiction,LABEL_1=neutral' for model "
         "'nli-unlabelled': must give the model's 3 outputs"),
        (f"other:{LABEL_MAP}", f"error: label_map: --label-map 'other:{LABEL_MAP}': no model "
                               "folder 'other' (model folders: nli-unlabelled)"),
    ]:
        assert main(base + ["-p", unlabelled, "--label-map", value]) == 2, value
        _one_line_error(capsys, start)
    assert main(base + ["-p", unlabelled, "--label-map", LABEL_MAP, "--label-map",
                        LABEL_MAP]) == 2
    _one_line_error(capsys, "error: label_map: --label-map ")
    # a map for one model by name, the others read their config
    assert main(base + ["-p", unlabelled, "-p", str(tiny_models["nli-a"]), "--label-map",
                        f"nli-unlabelled:{LABEL_MAP}", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["models"] == ["nli-unlabelled", "nli-a"]
    # audit: --label-map reaches the model
    assert main(["nli", "audit", "--samples", str(original), "-p", unlabelled,
                 "--label-map", LABEL_MAP, "--n-resamples", "0", "--by", "none",
                 "--device", "cpu", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    got = {m["measure"]: m["estimate"] for m in d["audits"][0]["measures"]}
    o = pd.read_csv(original)
    pred = load_nli_model(unlabelled, device="cpu", label_map=LABEL_MAP).predict(
        o.premise, o.hypothesis)
    bias = (o.hypothesis_type != "test").to_numpy()
    assert got["accuracy"] == pytest.approx(np.mean(pred[bias] == 1))
    assert main(["nli", "audit", "--samples", str(original), "-p", unlabelled,
                 "--device", "cpu", "--format", "json"]) == 2
    _one_line_error(capsys, "error: model nli-unlabelled: cannot read the NLI label order")


def test_audit_label_map_without_model_folder(tmp_path, capsys):
    samples = tmp_path / "s.csv"
    assert main(["nli", "expand", "--subtopic", "man_is_to_programmer", "-o",
                 str(samples)]) == 0
    s = pd.read_csv(samples)
    s["pred_x"] = "neutral"
    s.to_csv(samples, index=False)
    capsys.readouterr()
    assert main(["nli", "audit", "--samples", str(samples), "-p", "column:pred_x",
                 "--label-map", "LABEL_0=c"]) == 2
    _one_line_error(capsys, "error: label_map: --label-map 'LABEL_0=c' has no effect")


def _flat_help(args) -> str:
    res = CliRunner().invoke(app, [*args, "--help"])
    assert res.exit_code == 0, res.output
    return " ".join(res.output.replace("│", " ").split())


def test_extend_help_mentions_212_and_label_map():
    text = _flat_help(["nli", "extend"])
    assert "the 212 shipped masked templates over all 16 subtopics" in text
    assert "--label-map" in text and "--counts" in text
    assert "--label-map" in _flat_help(["nli", "audit"])
    compare = _flat_help(["nli", "compare"])
    for option in ("--original", "--extended", "--model", "--pairing", "--by",
                   "--confidence", "--n-resamples", "--seed", "--label-map", "--format",
                   "--out"):
        assert option in compare, option


# Table 9 of Baldini et al. (2023), transcribed cell by cell from the seed
# (shared/seeds/004_c30699e65884f121.txt, around line 1110), independently of fairbound's
# constant: paper name, BBNLI file name, masked templates.
TABLE9 = [
    ("gender", "man_is_to_breadwinner", "man_is_to_breadwinner", 8),
    ("gender", "man_is_to_programmer", "man_is_to_programmer", 10),
    ("gender", "man_is_to_rational", "man_is_to_rational", 9),
    ("gender", "man_is_to_surgeon", "man_is_to_surgeon", 10),
    ("gender", "woman_is_to_homemaker", "woman_is_to_homemaker", 11),
    ("race", "Asian_men_to_feminine", "asian_men_to_feminine", 16),
    ("race", "Black_is_to_criminal", "black_is_to_criminal", 23),
    ("race", "Black_is_to_ghetto", "black_is_to_impoverished", 29),
    ("race", "Black_is_to_drugs", "black_people_use_drugs", 13),
    ("race", "white_is_to_clean", "white_is_to_clean", 15),
    ("religion", "Catholic_woman_is_to_kids", "catholic_woman_to_many_kids", 11),
    ("religion", "Jewish_woman_is_to_kids", "jewish_woman_to_many_kids", 12),
    ("religion", "Mormon_man_to_oppressive", "mormon_man_to_oppressive", 8),
    ("religion", "Muslim_man_to_many_wives", "muslim_man_to_many_wives", 9),
    ("religion", "Muslim_man_to_oppressive", "muslim_man_to_oppressive", 12),
    ("religion", "Muslim_women_to_invisible", "muslim_women_to_invisible", 16),
]
# Table 10 (masked samples after the expansion), in the same order.
TABLE10 = [256, 570, 180, 324, 440, 170, 288, 340, 480, 250, 152, 108, 160, 144, 150, 144]


def test_masked_templates_counts(capsys):
    assert main(["nli", "masked-templates", "--counts", "--format", "csv"]) == 0
    t = pd.read_csv(io.StringIO(capsys.readouterr().out))
    per = t[t.subtopic != "(all)"]
    # All 16 cells of Table 9, in the paper's order, with its names and the BBNLI files.
    assert list(per.itertuples(index=False, name=None))[0][:3] == (
        "gender", "man_is_to_breadwinner", "man_is_to_breadwinner")
    got = list(zip(per.domain, per.paper_subtopic, per.subtopic, per.masked_templates,
                   strict=True))
    assert got == TABLE9
    assert list(per.paper_templates) == [c for *_, c in TABLE9]
    assert (per.templates_difference == 0).all()
    # Table 10 beside fairbound's masked samples, with the difference per cell.
    assert list(per.paper_samples) == TABLE10
    assert (per.samples_difference == per.masked_samples - per.paper_samples).all()
    dom = t[(t.subtopic == "(all)") & (t.domain != "(all)")]
    assert list(dom.masked_templates) == [48, 96, 68]
    assert list(dom.paper_samples) == [1770, 1528, 858]
    total = t[(t.domain == "(all)") & (t.subtopic == "(all)")].iloc[0]
    assert total.masked_templates == 212 and total.paper_templates == 212
    assert total.paper_samples == 4156 and total.masked_samples == per.masked_samples.sum()
    assert main(["nli", "masked-templates", "--counts"]) == 0  # table
    text = capsys.readouterr().out
    assert all(s in text for s in per.subtopic) and "212" in text
    assert "Black_is_to_ghetto" in text and "Table 10" in text and "4,156" in text
    assert main(["nli", "masked-templates"]) == 0  # --counts is the default
    assert capsys.readouterr().out == text
    assert main(["nli", "masked-templates", "--counts", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    per_json = [r for r in rows if r["subtopic"] != "(all)"]
    assert [(r["paper_subtopic"], r["masked_templates"], r["paper_templates"])
            for r in per_json] == [(p, c, c) for _, p, _, c in TABLE9]


def test_masked_templates_check_write_dry_run(tmp_path, capsys):
    assert main(["nli", "masked-templates", "--check"]) == 0
    assert "up to date" in capsys.readouterr().out
    out = tmp_path / "masked"
    assert main(["nli", "masked-templates", "--write", "--out", str(out)]) == 0
    assert len(list(out.glob("*.json"))) == 16
    assert main(["nli", "masked-templates", "--dry-run"]) == 0
    assert "candidates selected" in capsys.readouterr().out
    assert main(["nli", "masked-templates", "--out", str(out)]) == 2
    _one_line_error(capsys, "error: out_dir: --out ")


@pytest.mark.nlp
def test_extend_label_map_and_stage_table(tmp_path, tiny_models, capsys):
    from fairbound.nli import shipped_template_dir

    base = ["nli", "extend", "--out", str(tmp_path / "run"), "--fill-model",
            str(tiny_models["mlm"]), "--filter-model", str(tiny_models["nli-a"]),
            "--heldout-model", str(tiny_models["nli-unlabelled"]), "--templates",
            str(shipped_template_dir() / "masked" / "muslim_man_to_oppressive.json"),
            "--top-k", "1", "--device", "cpu", "--no-progress"]
    capsys.readouterr()
    assert main(base) == 2  # the held-out checkpoint says only LABEL_0..2
    err = _one_line_error(capsys, "error: model nli-unlabelled: cannot read the NLI label")
    assert "--label-map" in err
    assert main(base + ["--label-map", "LABEL_0"]) == 2
    _one_line_error(capsys, "error: label_map: --label-map 'LABEL_0': cannot read")
    mapped = base + ["--label-map", f"nli-unlabelled:{LABEL_MAP}"]
    assert main(mapped) == 0
    text = capsys.readouterr().out
    for header in ("generated", "kept by filter", "sent to validation", "await validation",
                   "held-out model nli-unlabelled: not neutral on", "Table 9"):
        assert header in text, header
    assert main(mapped + ["--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    total = d["stages"][-1]
    assert (total["domain"], total["subtopic"]) == ("(all)", "(all)")
    assert total["generated"] >= total["kept_by_filter"] > 0
    assert total["sent_to_validation"] == d["pending"]
    counts = [r for r in d["masked_template_counts"] if r["subtopic"] != "(all)"]
    assert len(counts) == 16
    assert sum(r["masked_templates"] for r in counts) == 12  # the one template file
    mine = [r for r in counts if r["subtopic"] == "muslim_man_to_oppressive"][0]
    assert (mine["paper_subtopic"], mine["masked_templates"], mine["paper"],
            mine["difference"]) == ("Muslim_man_to_oppressive", 12, 12, 0)
