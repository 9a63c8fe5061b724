import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import zlib

import numpy as np
import pandas as pd
import pytest

from fairbound.errors import FairboundError
from fairbound.nli import (
    CATEGORIES,
    CallableNLI,
    audit_nli,
    extend_benchmark,
    load_masked_templates,
)

WORDS = ["good", "bad", "lazy", "smart", "kind"]


def fill(texts, k):
    # Deterministic candidates that depend on the text.
    return [[WORDS[(zlib.crc32(t.encode()) + i) % len(WORDS)] for i in range(k)] for t in texts]


def nli_hash(premises, hypotheses):
    return [("contradiction", "neutral", "entailment")[zlib.crc32((p + h).encode()) % 3]
            for p, h in zip(premises, hypotheses, strict=True)]


def nli_words(premises, hypotheses):
    return ["entailment" if "bad" in h else "neutral" for h in hypotheses]


def _templates():
    return load_masked_templates(subtopics=["muslim_man_to_oppressive", "man_is_to_programmer"])


def _label_all(path, rule=lambda i, h: CATEGORIES[i % 4]):
    v = pd.read_csv(path, keep_default_na=False)
    v["category"] = [rule(i, h) for i, h in enumerate(v["hypothesis"])]
    v.to_csv(path, index=False)
    return v


def _run(out, **kw):
    args = dict(fill_model=fill, filter_models={"hash": nli_hash},
                heldout_models={"words": nli_words}, templates=_templates(), top_k=3,
                chunk_size=16, progress=False)
    args.update(kw)
    return extend_benchmark(out, **args)


def test_default_expansion_is_the_papers_table10_pipeline(tmp_path):
    # The default run expands the masked templates on both premise versions, as the BBNLI
    # scripts do (Table 10 of the paper); all 212 shipped templates give 4,128 masked
    # samples (Table 10: 4,156; test_derive.py::test_sample_counts_next_to_table10 and the
    # cell-by-cell differences in docs/nli.md).  Two subtopics here, for speed.
    import inspect
    import json

    from fairbound.nli import masked_sample_counts

    assert inspect.signature(extend_benchmark).parameters["versions"].default == (
        "pro", "anti")
    subs = ["muslim_man_to_oppressive", "man_is_to_rational"]
    templates = load_masked_templates(subtopics=subs)
    res = extend_benchmark(tmp_path, fill_model=fill, filter_models={"hash": nli_hash},
                           templates=templates, top_k=1, chunk_size=4096, progress=False)
    masked = pd.read_parquet(tmp_path / "01_masked.parquet")
    counts = masked_sample_counts(templates).set_index("subtopic")
    # Table 10's cells for these two: 150 and 180; fairbound's templates give 144 and 220.
    assert masked.subtopic.value_counts().to_dict() == {"muslim_man_to_oppressive": 144,
                                                        "man_is_to_rational": 220}
    assert counts.loc[subs, "paper"].tolist() == [150.0, 180.0]
    assert counts.loc[subs, "masked_samples"].tolist() == [144, 220]
    assert masked.version.value_counts().to_dict() == {"pro": 182, "anti": 182}
    st = res.stats.set_index(["domain", "subtopic"])
    assert st.loc[("(all)", "(all)")].masked_samples == 364
    assert json.loads((tmp_path / "manifest.json").read_text())["versions"] == ["pro", "anti"]
    # --versions pro (the old default) gives one premise version: half.
    pro = extend_benchmark(tmp_path / "pro", fill_model=fill, filter_models={"hash": nli_hash},
                           templates=templates, top_k=1, versions=["pro"], progress=False)
    assert pro.stats.set_index(["domain", "subtopic"]).loc[("(all)", "(all)")] \
        .masked_samples == 182


def test_pipeline_end_to_end(tmp_path):
    res = _run(tmp_path)
    assert res.status == "awaiting-validation" and res.pending > 0
    scored = pd.read_parquet(tmp_path / "03_scored.parquet")
    # Adversarial filter: kept iff the filter model is not neutral; held-out only recorded.
    assert (scored.kept == (scored.pred_hash != "neutral")).all()
    assert {"pred_hash", "pred_words"} <= set(scored.columns)
    # Fill from the hypothesis alone: one sample per candidate, <MASK> replaced.
    filled = pd.read_parquet(tmp_path / "02_filled.parquet")
    assert not filled.hypothesis.str.contains("<MASK>").any()
    # Both premise versions by default (the paper's pipeline); a filled pair links the pro
    # sample to its anti version, as in BBNLI.
    assert set(filled.version) == {"pro", "anti"}
    assert (filled.groupby(["pair_id", "version"]).size() <= 1).all()
    masked = pd.read_parquet(tmp_path / "01_masked.parquet")
    assert len(filled) <= 3 * len(masked)
    v = _label_all(res.validation_file)
    assert v.hypothesis.is_unique
    assert set(v.hypothesis) == set(scored[scored.kept].hypothesis)
    res = _run(tmp_path)
    assert res.status == "complete"
    final = res.samples
    valid = set(v[v.category.isin(["valid-pro", "valid-anti"])].hypothesis)
    orig = final[final.origin == "original"]
    cf = final[final.origin == "counterfactual"]
    assert set(orig.hypothesis) <= valid
    assert len(orig) == len(cf) and (final.groupby("pair_id").size() == 2).all()
    assert not final.duplicated(["premise", "hypothesis"]).any()
    merged = orig.merge(cf, on="pair_id", suffixes=("", "_cf"))
    assert (merged.premise == merged.premise_cf).all()
    assert (merged.hypothesis != merged.hypothesis_cf).all()
    swap = merged[merged.subtopic == "muslim_man_to_oppressive"]
    def textual_swap(text):
        return re.sub(r"Muslim|Christian", lambda m: {"Muslim": "Christian",
                                                      "Christian": "Muslim"}[m.group()], text)

    assert len(swap) and (swap.hypothesis.map(textual_swap) == swap.hypothesis_cf).all()
    pro = merged[merged.category == "valid-pro"]
    assert (pro.hypothesis_type == "stereotypical").all()
    assert (pro.hypothesis_type_cf == "anti-stereotypical").all()
    anti = merged[merged.category == "valid-anti"]
    assert (anti.hypothesis_type == "anti-stereotypical").all()
    # Counterfactuals are predicted by every model but never filtered.
    assert final.pred_hash.notna().all() and final.pred_words.notna().all()
    assert (cf.pred_hash == nli_hash(cf.premise.tolist(), cf.hypothesis.tolist())).all()
    # Stats at every stage.
    st = res.stats.set_index(["domain", "subtopic"])
    row = st.loc[("(all)", "(all)")]
    assert row.masked_samples == len(masked) and row.generated == len(filled)
    assert row.kept == scored.kept.sum() == row.mispredicted_hash
    assert row.transfer_words == (scored.kept & (scored.pred_words != "neutral")).sum()
    assert row.final == len(final) and row.valid_hypotheses == len(valid)
    assert (tmp_path / "stats.csv").is_file() and (tmp_path / "05_final.csv").is_file()
    audit = audit_nli(final, final.set_index("sample_id").pred_words, n_resamples=100)
    assert audit.unpaired == 0


def test_deterministic(tmp_path):
    a = _run(tmp_path / "a")
    b = _run(tmp_path / "b")
    pd.testing.assert_frame_equal(pd.read_csv(a.validation_file), pd.read_csv(b.validation_file))
    _label_all(a.validation_file)
    _label_all(b.validation_file)
    pd.testing.assert_frame_equal(_run(tmp_path / "a").samples, _run(tmp_path / "b").samples)


class Boom(Exception):
    pass


def test_resume_after_interruption(tmp_path):
    calls = {"n": 0}

    def flaky(premises, hypotheses):
        calls["n"] += 1
        if calls["n"] == 4:
            raise Boom("stop")
        return nli_hash(premises, hypotheses)

    with pytest.raises(Boom):
        _run(tmp_path / "r", filter_models={"hash": flaky})
    parts = sorted((tmp_path / "r" / "03_predictions" / "hash").glob("part-*.parquet"))
    assert len(parts) == 3
    assert not list((tmp_path / "r").rglob("*.tmp"))
    seen = []

    def counting(premises, hypotheses):
        seen.append(len(premises))
        return nli_hash(premises, hypotheses)

    resumed = _run(tmp_path / "r", filter_models={"hash": counting})
    fresh = _run(tmp_path / "f")
    n_filled = len(pd.read_parquet(tmp_path / "f" / "02_filled.parquet"))
    assert sum(seen) == n_filled - 3 * 16  # the three cached chunks are not recomputed
    pd.testing.assert_frame_equal(pd.read_csv(resumed.validation_file),
                                  pd.read_csv(fresh.validation_file))


def test_resume_after_kill(tmp_path):
    out = tmp_path / "killed"
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(os.path.dirname(__file__))!r})
        import test_extend as t

        def slow(p, h):
            time.sleep(0.25)
            return t.nli_hash(p, h)

        t._run({str(out)!r}, filter_models={{"hash": slow}})
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    target = out / "03_predictions" / "hash" / "part-00001.parquet"
    deadline = time.time() + 60
    while not target.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert target.exists()
    assert not (out / "03_scored.parquet").exists()
    resumed = _run(out)
    fresh = _run(tmp_path / "fresh")
    pd.testing.assert_frame_equal(pd.read_parquet(out / "03_scored.parquet"),
                                  pd.read_parquet(tmp_path / "fresh" / "03_scored.parquet"))
    assert resumed.status == fresh.status == "awaiting-validation"


def test_other_settings_are_refused(tmp_path):
    _run(tmp_path)
    with pytest.raises(FairboundError, match=r"holds a run with other settings \(top_k\)"):
        _run(tmp_path, top_k=4)


def test_validation_errors(tmp_path):
    res = _run(tmp_path)
    v = _label_all(res.validation_file, rule=lambda i, h: "maybe" if i == 0 else "invalid")
    with pytest.raises(FairboundError, match="validations: unknown category 'maybe'; allowed"):
        _run(tmp_path)
    other = tmp_path / "mine.csv"
    pd.DataFrame({"hypothesis": ["not generated"], "category": ["valid-pro"]}).to_csv(other)
    with pytest.raises(FairboundError, match=r"not aligned with the kept samples: 1 hyp"):
        _run(tmp_path, validations=other)
    partial = tmp_path / "partial.csv"
    v.assign(category=["valid-pro"] + [""] * (len(v) - 1)).to_csv(partial, index=False)
    res = _run(tmp_path, validations=partial)
    assert res.status == "awaiting-validation" and res.pending == len(v) - 1


def test_option_errors(tmp_path):
    with pytest.raises(FairboundError, match="top_k must be a positive integer; got 0"):
        _run(tmp_path, top_k=0)
    with pytest.raises(FairboundError, match="filter_models: need at least one"):
        _run(tmp_path, filter_models=[])
    with pytest.raises(FairboundError, match="versions must be among pro, anti; got 'both'"):
        _run(tmp_path, versions="both")
    with pytest.raises(FairboundError, match="'hash' is used twice"):
        _run(tmp_path, heldout_models=[CallableNLI(nli_words, name="hash")])


@pytest.mark.nlp
def test_end_to_end_with_tiny_models(tmp_path, tiny_models):
    templates = _small(load_masked_templates(subtopics=["muslim_man_to_oppressive"]),
                       n_premises=3, n_hypotheses=3)
    kw = dict(fill_model=tiny_models["mlm"],
              filter_models=[tiny_models["nli-a"], tiny_models["nli-b"]],
              heldout_models=[tiny_models["nli-c"]], templates=templates, top_k=3,
              device="cpu", progress=False, chunk_size=32)
    res = extend_benchmark(tmp_path, **kw)
    assert res.status == "awaiting-validation"
    scored = pd.read_parquet(tmp_path / "03_scored.parquet")
    assert len(scored) > 0
    assert (scored.kept == ((scored["pred_nli-a"] != "neutral")
                            | (scored["pred_nli-b"] != "neutral"))).all()
    _label_all(res.validation_file, rule=lambda i, h: "valid-pro" if i % 2 else "valid-anti")
    done = extend_benchmark(tmp_path, **kw)
    assert done.status == "complete" and len(done.samples) > 0
    again = extend_benchmark(tmp_path / "again", **kw)
    _label_all(again.validation_file, rule=lambda i, h: "valid-pro" if i % 2 else "valid-anti")
    pd.testing.assert_frame_equal(extend_benchmark(tmp_path / "again", **kw).samples,
                                  done.samples)
    r = audit_nli(done.samples, done.samples.set_index("sample_id")["pred_nli-c"],
                  n_resamples=50)
    assert r.unpaired == 0


def _small(templates, n_premises=1, n_hypotheses=2):
    """The shipped masked templates cut down (first premises and hypotheses) for speed."""
    from dataclasses import replace

    return [replace(t, premises=t.premises[:n_premises],
                    references=t.references[:n_premises],
                    stereotype_hypotheses=t.stereotype_hypotheses[:n_hypotheses])
            for t in templates]


def test_default_templates_cover_all_16_subtopics(tmp_path):
    from fairbound.nli import load_templates

    res = extend_benchmark(tmp_path, fill_model=fill, filter_models={"hash": nli_hash},
                           templates=_small(load_masked_templates()), top_k=2,
                           progress=False)
    subtopics = {t.subtopic for t in load_templates()}
    assert set(pd.read_parquet(tmp_path / "03_scored.parquet").query("kept").subtopic) \
        == subtopics
    st = res.stats[res.stats.subtopic != "(all)"]
    assert set(st.subtopic) == subtopics and (st.templates == 2).all()


@pytest.mark.nlp
@pytest.mark.filterwarnings("ignore::fairbound.nli.UndefinedSlotWarning")
def test_tiny_models_produce_samples_from_all_16_subtopics(tmp_path, tiny_models):
    from dataclasses import replace

    from fairbound.nli import compare_benchmarks, expand_templates, load_nli_model, load_templates

    # Three masked templates per subtopic, so that the random tiny filters keep samples of
    # every subtopic on both premise versions (the default).
    templates = _small(load_masked_templates(), n_hypotheses=3)
    kw = dict(fill_model=tiny_models["mlm"],
              filter_models=[tiny_models["nli-a"], tiny_models["nli-b"]],
              heldout_models=[tiny_models["nli-c"]], templates=templates, top_k=2,
              device="cpu", progress=False, chunk_size=256)
    res = extend_benchmark(tmp_path, **kw)
    assert res.status == "awaiting-validation"
    _label_all(res.validation_file, rule=lambda i, h: "valid-pro" if i % 3 else "valid-anti")
    done = extend_benchmark(tmp_path, **kw)
    assert done.status == "complete"
    final = done.samples
    subtopics = {t.subtopic for t in load_templates()}
    assert set(final.subtopic) == subtopics  # samples from all 16 subtopics
    assert (final.groupby("subtopic").origin.nunique() == 2).all()
    # Accuracy drop BBNLI -> this tiny "BBNLI-next", for two tiny models, paired by premise.
    # The matching slice of BBNLI: first premise, first two stereotype hypotheses.
    original = expand_templates([replace(t, test_hypotheses=())
                                 for t in _small(load_templates())]).samples
    models = {m: load_nli_model(tiny_models[m], device="cpu") for m in ("nli-a", "nli-c")}
    pred_o = {m: model.predict(original.premise, original.hypothesis)
              for m, model in models.items()}
    pred_e = {m: final[f"pred_{m}"] for m in models}
    cmp = compare_benchmarks(original, final, pred_o, pred_e, n_resamples=200)
    assert cmp.pairing == "paired"
    bias = original.hypothesis_type != "test"
    for m in models:
        acc_o = float(np.mean(pred_o[m][bias.to_numpy()] == 1))
        acc_e = float(np.mean(final[f"pred_{m}"] == "neutral"))
        e = cmp.estimate("accuracy", model=m)
        assert e["original"] == pytest.approx(acc_o) and e["extended"] == pytest.approx(acc_e)
        assert e["drop"] == pytest.approx(acc_o - acc_e)
        assert e["drop_low"] <= e["drop"] <= e["drop_high"]
    accs = {m: cmp.estimate("accuracy", model=m)["original"] for m in models}
    assert accs["nli-a"] != accs["nli-c"]  # two models whose accuracies differ
    # One premise per subtopic: the stratified bootstrap cannot vary, and the note says so.
    t = cmp.to_frame()
    note = t[(t.level == "overall") & (t.measure == "accuracy")].note.iloc[0]
    assert note.startswith("16 subtopic(s) with one premise template add no resampling")
