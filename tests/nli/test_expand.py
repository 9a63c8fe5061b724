import functools
import itertools
import json
import warnings
from collections import Counter
from pathlib import Path

import jinja2
import pandas as pd
import pytest

from fairbound.errors import FairboundError
from fairbound.nli import (
    SAMPLE_COLUMNS,
    UndefinedSlotWarning,
    expand_templates,
    load_masked_templates,
    load_templates,
    shipped_template_dir,
    slots_of,
)

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "bbnli"

# Samples per subtopic and hypothesis type of the 16 BBNLI templates (3,642 in all, the size of
# the BBNLI release); every number is also re-derived below by an independent implementation of
# the release's json2csv.py (full Cartesian product + jinja2 + drop_duplicates).
EXPECTED = {
    "man_is_to_breadwinner": (40, 48), "man_is_to_programmer": (130, 190),
    "man_is_to_rational": (500, 90), "man_is_to_surgeon": (234, 99),
    "woman_is_to_homemaker": (66, 99), "asian_men_to_feminine": (50, 60),
    "black_is_to_criminal": (24, 60), "black_is_to_impoverished": (40, 55),
    "black_people_use_drugs": (60, 132), "white_is_to_clean": (40, 60),
    "catholic_woman_to_many_kids": (32, 40), "jewish_woman_to_many_kids": (18, 33),
    "mormon_man_to_oppressive": (40, 65), "muslim_man_to_many_wives": (24, 42),
    "muslim_man_to_oppressive": (24, 39), "muslim_women_to_invisible": (30, 33),
}


@pytest.fixture(scope="module")
def expanded():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedSlotWarning)
        return expand_templates(load_templates())


def _reference_expansion(path: Path) -> pd.DataFrame:
    """The BBNLI release's procedure, written independently: full product, then dedup."""
    inp = json.loads(path.read_text())
    env = jinja2.Environment()
    compile_ = functools.lru_cache(maxsize=None)(env.from_string)
    keys = list(inp["data"])
    rows = []
    for ind, pre in enumerate(inp["premise"]):
        for datum in itertools.product(*inp["data"].values()):
            m = dict(zip(keys, datum, strict=True))
            for version, (g1, g2) in (("pro", (inp["GROUP1"][0], inp["GROUP2"][0])),
                                      ("anti", (inp["GROUP2"][0], inp["GROUP1"][0]))):
                m["GROUP1"], m["GROUP2"] = g1, g2
                p = compile_(pre).render(**m)
                for ti, (h, lab) in enumerate(inp["test_hypothesis"]):
                    q = compile_(inp["test_question"][ti][0]).render(**m)
                    rows.append((ind, version, p, "test", compile_(h).render(**m), q, lab))
                for ti, (h, lab, _) in enumerate(inp["bias_hypothesis_stereotypical"]):
                    q = compile_(inp["bias_question_stereotypical"][ti][0]).render(**m)
                    kind = "stereotypical" if version == "pro" else "anti-stereotypical"
                    rows.append((ind, version, p, kind, compile_(h).render(**m), q, lab))
    cols = ["premise_id", "version", "premise", "hypothesis_type", "hypothesis", "question",
            "true_label"]
    return pd.DataFrame(rows, columns=cols).drop_duplicates()


def test_counts_per_subtopic_and_type(expanded):
    s = expanded.samples
    assert len(s) == 3642
    for sub, (n_test, n_bias) in EXPECTED.items():
        got = s[s.subtopic == sub].hypothesis_type.value_counts()
        assert got["test"] == n_test, sub
        assert got["stereotypical"] == n_bias == got["anti-stereotypical"], sub


def test_counts_table_totals(expanded):
    c = expanded.counts()
    overall = c[(c.domain == "(all)")].iloc[0]
    assert (overall["test"], overall["stereotypical"], overall["total"]) == (1352, 1145, 3642)
    dom = c[c.subtopic == "(all)"].set_index("domain")["total"]
    assert dom.to_dict() == {"gender": 2022, "race": 948, "religion": 672, "(all)": 3642}


@pytest.mark.parametrize("sub", sorted(EXPECTED))
def test_matches_independent_reference(expanded, sub):
    path = next(p for p in shipped_template_dir().rglob(f"{sub}.json") if p.parent.name != "masked")
    ref = _reference_expansion(path)
    ours = expanded.samples[expanded.samples.subtopic == sub]
    label = {0: "contradiction", 1: "neutral", 2: "entailment"}
    ref = ref.assign(true_label=ref.true_label.map(label))
    cols = list(ref.columns)
    assert Counter(map(tuple, ours[cols].itertuples(index=False))) == Counter(
        map(tuple, ref.itertuples(index=False)))


def test_pairs_link_pro_and_anti(expanded):
    s = expanded.samples
    assert s.sample_id.is_unique
    g = s.groupby("pair_id")
    assert (g.size() == 2).all()
    assert (g.version.apply(lambda v: sorted(v) == ["anti", "pro"])).all()
    bias = s[s.hypothesis_type != "test"]
    assert set(bias.true_label) == {"neutral"} and set(bias.bias_label) == {"entailment"}
    assert (bias[bias.version == "anti"].hypothesis_type == "anti-stereotypical").all()
    assert s[s.hypothesis_type == "test"].bias_label.isna().all()
    row = s[s.sample_id == "man_is_to_programmer/p00/s02/f000/pro"].iloc[0]
    cf = s[s.sample_id == "man_is_to_programmer/p00/s02/f000/anti"].iloc[0]
    assert row.hypothesis == "women are less suitable for jobs in software engineering."
    assert cf.hypothesis == "men are less suitable for jobs in software engineering."
    assert "80% of software engineering jobs are taken by women" in cf.premise
    assert list(s.columns) == list(SAMPLE_COLUMNS)


def test_undefined_slot_warns_and_renders_empty():
    with pytest.warns(UndefinedSlotWarning, match=r"jewish_woman_to_many_kids: slot \{\{WORD5\}\}"):
        res = expand_templates(load_templates(subtopics=["jewish_woman_to_many_kids"]))
    assert len(res.warnings) == 1
    assert not res.samples.hypothesis.str.contains("{{", regex=False).any()


def test_versions_pro_only():
    res = expand_templates(load_templates(subtopics=["man_is_to_breadwinner"]), versions="pro")
    assert set(res.samples.version) == {"pro"} and len(res.samples) == 68


def test_masked_starter_set():
    masked = load_masked_templates()
    assert len(masked) >= 4
    res = expand_templates(masked, versions=["pro"])
    assert res.samples.hypothesis.str.count("<MASK>").eq(1).all()
    assert set(res.samples.hypothesis_type) == {"stereotypical"}


def test_shipped_equals_shared_data():
    if not SHARED.is_dir():
        pytest.skip("shared data not present")
    for f in SHARED.rglob("*.json"):
        assert (shipped_template_dir() / f.relative_to(SHARED)).read_bytes() == f.read_bytes()
    assert (shipped_template_dir() / "LICENSE").is_file()
    assert (shipped_template_dir() / "ATTRIBUTION.md").is_file()


@pytest.mark.parametrize("text", ["{{WORD1} are", "are WORD1}}", "{{GROUP1}} and {{ WORD2",
                                  "a {b} c"])
def test_unbalanced_slot_is_an_error(text):
    with pytest.raises(FairboundError, match="unbalanced slot near"):
        slots_of(text)


def _write(tmp_path, **over):
    base = json.loads((shipped_template_dir() / "gender" / "man_is_to_breadwinner.json")
                      .read_text())
    base.update(over)
    p = tmp_path / "t.json"
    p.write_text(json.dumps(base))
    return p


def test_bad_template_files(tmp_path):
    with pytest.raises(FairboundError, match=r"t.json premise\[0\]: unbalanced slot"):
        load_templates(_write(tmp_path, premise=["{{GROUP1 work"]))
    with pytest.raises(FairboundError, match=r"label must be 0, 1 or 2.*got 7"):
        load_templates(_write(tmp_path, test_hypothesis=[["x", 7]]))
    with pytest.raises(FairboundError, match="lacks the field"):
        load_templates(_write(tmp_path, premise=None) if False else _drop(tmp_path, "premise"))
    with pytest.raises(FairboundError, match="does not exist"):
        load_templates(tmp_path / "nope.json")
    with pytest.raises(FairboundError, match=r"subtopics: unknown value\(s\) 'nope'"):
        load_templates(subtopics=["nope"])
    with pytest.raises(FairboundError, match="versions must be among pro, anti"):
        expand_templates(load_templates(subtopics=["man_is_to_breadwinner"]), versions="both")


def _drop(tmp_path, key):
    p = _write(tmp_path)
    d = json.loads(p.read_text())
    del d[key]
    p.write_text(json.dumps(d))
    return p


def test_masked_template_needs_one_mask(tmp_path):
    p = tmp_path / "m.json"
    p.write_text(json.dumps({"base": "gender/man_is_to_programmer",
                             "masked_hypotheses": ["{{GROUP2}} <MASK> and <MASK>."]}))
    with pytest.raises(FairboundError, match="exactly one <MASK>"):
        load_masked_templates(p)
    p.write_text(json.dumps({"base": "gender/nope", "masked_hypotheses": ["<MASK>"]}))
    with pytest.raises(FairboundError, match="base 'gender/nope' not found"):
        load_masked_templates(p)
