"""The BBNLI-next masked-template deriver and the shipped masked templates."""

import dataclasses
import json
import re
from collections import Counter

import numpy as np
import pytest

from fairbound.errors import FairboundError
from fairbound.nli import (
    MASK,
    PAPER_SAMPLES_TOTAL,
    PAPER_SUBTOPICS,
    PAPER_TABLE9,
    PAPER_TABLE10,
    PAPER_TOTAL,
    derive_masked_templates,
    dry_run,
    expand_templates,
    load_masked_templates,
    load_templates,
    masked_sample_counts,
    masked_template_counts,
    paper_targets,
    slots_of,
    write_masked_templates,
)
from fairbound.nli.derive import (
    _add_beside,
    _mask_word,
    _replace_placeholder,
    _stale,
    main,
    proportional_targets,
)

GROUPS = ("GROUP1", "GROUP2")


def _slot_counts(text):
    return Counter(m.group(1) for m in re.finditer(r"\{\{\s*(\w+)\s*\}\}", text))


@pytest.fixture(scope="module")
def derived():
    return derive_masked_templates()


def test_every_derived_template_keeps_its_slots(derived):
    base = {t.subtopic: t for t in load_templates()}
    assert derived.selected
    for d in derived.candidates:
        t = base[d.subtopic]
        assert d.hypothesis.count(MASK) == 1, d
        slots = _slot_counts(d.hypothesis)
        assert set(slots) - set(GROUPS) <= set(t.filler_dict), d
        assert any(g in slots for g in GROUPS), d
        assert not re.match(r"\s*<MASK>", d.hypothesis), d  # never at the start of a sentence
        if d.source_index is None:
            assert (d.true_label, d.biased_label) == (1, 2)
            continue
        # The stereotype label of the source is carried over.
        _, true_label, biased_label, _ = t.stereotype_hypotheses[d.source_index]
        assert (d.true_label, d.biased_label) == (true_label, biased_label)
        src = _slot_counts(d.source)
        # GROUP1/GROUP2 are never touched.
        assert {g: slots[g] for g in GROUPS} == {g: src[g] for g in GROUPS}, d
        if d.override == "replaced" or d.strategy == "curated":
            continue
        if d.strategy == "replace-placeholder":
            slot = d.id.split(":", 1)[1]
            assert slots + Counter({slot: 1}) == src, d
            assert d.hypothesis.replace(MASK, "{{" + slot + "}}", 1) == d.source
        else:
            assert slots == src, d
        if d.strategy == "add-beside-placeholder":
            assert d.hypothesis.replace(f" and {MASK}", "").replace(f"{MASK} ", "") == d.source
        if d.strategy == "mask-word":
            word = d.id.split(":", 1)[1].split("#")[0]
            pattern = re.escape(d.hypothesis).replace(re.escape(MASK), r"(\w+)")
            assert re.fullmatch(pattern, d.source).group(1).lower() == word


def test_source_fixes_only_templatise_the_group(derived):
    # white_is_to_clean writes its group literally in five hypotheses; the curated fixes put
    # {{GROUP2}} there (and {{GROUP1}} where the comparison needs it).
    base = {t.subtopic: t for t in load_templates()}["white_is_to_clean"]
    fixed = {d.source_index: d.source for d in derived.candidates
             if d.subtopic == "white_is_to_clean" and d.override == "source-fixed"}
    assert set(fixed) == {0, 1, 2, 3, 4, 5}
    for i, text in fixed.items():
        assert "{{GROUP2}}" in text
        original = base.stereotype_hypotheses[i][0].lower()
        content = {w for w in re.findall(r"[a-z]+", original) if len(w) > 4}
        content -= {"black", "blacks", "white"}
        assert content <= set(re.findall(r"[a-z]+", text.lower())), (i, text)


def test_all_16_subtopics_shipped_as_in_table9(derived):
    masked = load_masked_templates()
    assert len(masked) == 16
    assert {t.subtopic for t in masked} == {t.subtopic for t in load_templates()}
    counts = {t.subtopic: len(t.stereotype_hypotheses) for t in masked}
    assert sum(counts.values()) == PAPER_TOTAL == 212
    assert counts == derived.targets == paper_targets()
    assert derived.shortfalls == {}  # every subtopic reaches its Table 9 count, no padding
    # Spot cells of Table 9 (the CLI test checks all 16 against a separate transcription).
    assert counts["black_is_to_impoverished"] == PAPER_TABLE9["Black_is_to_ghetto"] == 29
    assert counts["man_is_to_breadwinner"] == 8 and counts["muslim_women_to_invisible"] == 16
    assert set(PAPER_SUBTOPICS.values()) == set(counts)
    # Distinct templates in every subtopic.
    for t in masked:
        texts = [h for h, *_ in t.stereotype_hypotheses]
        assert len(set(texts)) == len(texts), t.subtopic
    # The shipped files are what the documented command regenerates.
    assert _stale() == []
    # Each strategy contributes; every shipped hypothesis has its labels and one mask.
    strategies = Counter(d.strategy for d in derived.selected)
    assert set(strategies) == {"mask-word", "replace-placeholder", "add-beside-placeholder",
                               "curated"}
    for t in masked:
        for h, true_label, biased_label, _ in t.stereotype_hypotheses:
            assert h.count(MASK) == 1 and (true_label, biased_label) == (1, 2)
            slots_of(h)


def test_reserve_word_masks_only_when_a_target_needs_them(derived):
    # Word masks beyond MAX_WORD_MASKS per hypothesis rank after every other candidate.
    reserve = [d for d in derived.candidates if d.rank >= 1000]
    assert reserve and all(d.strategy == "mask-word" for d in reserve)
    chosen = {(d.subtopic, d.id) for d in derived.selected}
    used = {d.subtopic for d in reserve if (d.subtopic, d.id) in chosen}
    assert used == {"black_is_to_impoverished"}  # 29 needs them; 25 candidates without
    ghetto = [d for d in derived.candidates if d.subtopic == "black_is_to_impoverished"]
    assert len({d.hypothesis for d in ghetto}) == 29  # every distinct candidate is used
    # "due to" is a compound preposition: "due" is never masked.
    assert not any(d.id.endswith("a:due") for d in derived.candidates)
    # A subtopic is filled by non-reserve candidates first.
    for sub in {d.subtopic for d in derived.selected}:
        sel = [d for d in derived.selected if d.subtopic == sub]
        normal = [d for d in derived.candidates if d.subtopic == sub and d.rank < 1000]
        if any(d.rank >= 1000 for d in sel):
            assert all((sub, d.id) in chosen for d in normal
                       if d.id not in {x[1] for x in derived.dropped if x[0] == sub})


def test_shortfall_is_reported_not_padded():
    templates = load_templates(subtopics=["man_is_to_programmer", "man_is_to_surgeon"])
    res = derive_masked_templates(templates, overrides=None, targets={
        "man_is_to_programmer": 500, "man_is_to_surgeon": 5})
    n = sum(d.subtopic == "man_is_to_programmer" for d in res.selected)
    distinct = {d.hypothesis for d in res.candidates if d.subtopic == "man_is_to_programmer"}
    assert n == len(distinct) < 500
    assert res.shortfalls == {"man_is_to_programmer": 500 - n}
    assert sum(d.subtopic == "man_is_to_surgeon" for d in res.selected) == 5
    # The proportional split of earlier versions is still available.
    prop = derive_masked_templates(templates, overrides=None, targets="proportional",
                                   total=20)
    assert prop.targets == {"man_is_to_programmer": 10, "man_is_to_surgeon": 10}
    with pytest.raises(FairboundError, match="targets: expected a mapping, 'proportional'"):
        derive_masked_templates(templates, overrides=None, targets="paper-ish")


def test_subtopic_outside_table9_needs_targets(tmp_path):
    t = load_templates(subtopics=["man_is_to_programmer"])[0]
    other = dataclasses.replace(t, subtopic="my_new_subtopic")
    with pytest.raises(FairboundError, match="subtopic 'my_new_subtopic' is not in the "
                                             "paper's Table 9") as exc:
        derive_masked_templates([other], overrides=None)
    assert exc.value.param == "targets"
    res = derive_masked_templates([other], overrides=None, targets={"my_new_subtopic": 4})
    assert len(res.selected) == 4


def test_shipped_templates_expand():
    res = expand_templates(load_masked_templates(), versions=["pro"])
    assert set(res.samples.subtopic) == {t.subtopic for t in load_templates()}
    assert res.samples.hypothesis.str.count(re.escape(MASK)).eq(1).all()
    assert not res.warnings


def test_counts_next_to_table9():
    c = masked_template_counts()
    assert list(c.columns) == ["domain", "subtopic", "paper_subtopic", "bbnli_hypotheses",
                               "masked_templates", "paper", "difference"]
    assert len(c) == 16 + 3 + 1
    total = c.iloc[-1]
    assert (total.domain, total.subtopic) == ("(all)", "(all)")
    assert (int(total.bbnli_hypotheses), int(total.masked_templates), float(total.paper)) == (
        98, 212, 212.0)
    per = c[c.subtopic != "(all)"]
    assert dict(zip(per.paper_subtopic, per.paper, strict=True)) == {
        k: float(v) for k, v in PAPER_TABLE9.items()}
    assert (per.masked_templates == per.paper).all() and (c.difference == 0).all()
    assert [PAPER_SUBTOPICS[p] for p in per.paper_subtopic] == list(per.subtopic)
    dom = c[(c.subtopic == "(all)") & (c.domain != "(all)")].set_index("domain")
    assert dom.masked_templates.to_dict() == {"gender": 48, "race": 96, "religion": 68}
    assert dom.paper.to_dict() == {"gender": 48.0, "race": 96.0, "religion": 68.0}
    # Counts of a subset of templates: the other subtopics show 0 and a negative difference.
    sub = masked_template_counts(load_masked_templates(subtopics=["man_is_to_programmer"]))
    assert int(sub.iloc[-1].masked_templates) == 10
    assert int(sub.iloc[-1].difference) == 10 - 212


def test_sample_counts_next_to_table10():
    c = masked_sample_counts()
    per = c[c.subtopic != "(all)"]
    assert dict(zip(per.paper_subtopic, per.paper, strict=True)) == {
        k: float(v) for k, v in PAPER_TABLE10.items()}
    assert float(c.iloc[-1].paper) == PAPER_SAMPLES_TOTAL == 4156
    # fairbound's side is the size of the pro + anti expansion, per subtopic.
    samples = expand_templates(load_masked_templates(), versions=("pro", "anti")).samples
    assert dict(zip(per.subtopic, per.masked_samples, strict=True)) == \
        samples.subtopic.value_counts().to_dict()
    assert int(c.iloc[-1].masked_samples) == len(samples) == 4128
    assert (per.difference == per.masked_samples - per.paper).all()
    # One premise version gives half (the anti version renders the same templates).
    pro = masked_sample_counts(versions=("pro",))
    assert int(pro.iloc[-1].masked_samples) == 2064


def test_dry_run_lists_candidates_choices_and_skips(derived, capsys):
    text = dry_run(derived)
    lines = text.splitlines()
    heads = [ln for ln in lines if "candidates selected" in ln]
    assert len(heads) == 16
    assert heads[0].startswith("gender/man_is_to_breadwinner: 8 of ")
    assert heads[7].startswith("race/black_is_to_impoverished: 29 of 29 candidates selected "
                               "(target 29)")
    assert sum(ln.lstrip().startswith("[x]") for ln in lines) == 212
    assert any(ln.lstrip().startswith("[ ]") for ln in lines)
    assert "s04: skipped, names no group slot" in text  # "Division of labor ..."
    assert "s03/a:end: dropped, override:" in text
    assert "[x] s02/b:WORD2" in text
    assert main(["--dry-run"]) == 0
    assert capsys.readouterr().out.strip() == text
    assert main(["--check", "--counts"]) == 0
    out = capsys.readouterr().out
    assert "up to date" in out and "man_is_to_programmer" in out


def test_rules():
    assert _mask_word("{{GROUP2}} men prefer to have many wives.")[0] == (
        "prefer", "{{GROUP2}} men <MASK> to have many wives.")
    # verbs after modals, then adjectives, then nouns; never the group noun or sentence start
    got = [w for w, _ in _mask_word("Most {{GROUP2}} women will likely leave their big homes.")]
    assert got == ["leave", "big", "homes"]
    assert _replace_placeholder("{{GROUP2}} are less {{WORD2}} for jobs in {{MJOB}}.") == [
        ("WORD2", "{{GROUP2}} are less <MASK> for jobs in {{MJOB}}."),
        ("MJOB", "{{GROUP2}} are less {{WORD2}} for jobs in <MASK>.")]
    # after a predicate ("less {{WORD2}} and <MASK>"), before a noun ("their <MASK> {{W}}")
    assert _add_beside("{{GROUP2}} are less {{WORD2}} for jobs.") == [
        ("WORD2", "{{GROUP2}} are less {{WORD2}} and <MASK> for jobs.")]
    assert _add_beside("{{GROUP2}} women give up their {{WORD1}}.") == [
        ("WORD1", "{{GROUP2}} women give up their <MASK> {{WORD1}}.")]
    # a placeholder opening the sentence is neither replaced nor flanked
    assert _replace_placeholder("{{WORD1}} is common among {{GROUP2}} men.") == []
    assert _add_beside("{{WORD1}} is common among {{GROUP2}} men.") == []


def test_proportional_targets():
    t = proportional_targets({"a": 5, "b": 7, "c": 9}, total=212)
    assert sum(t.values()) == 212 and t["a"] < t["b"] < t["c"]
    assert proportional_targets({"a": 0}, total=5) == {"a": 0}


def test_overrides_replace_drop_add(tmp_path):
    templates = load_templates(subtopics=["man_is_to_programmer"])
    plain = derive_masked_templates(templates, overrides=None, targets={
        "man_is_to_programmer": 50})
    ids = [d.id for d in plain.candidates]
    assert "s02/b:WORD2" in ids and "s04/a:equipped" in ids
    fix = "{{GROUP2}} are less <MASK> for jobs in {{MJOB}} than {{GROUP1}}."
    over = {"replace": {"man_is_to_programmer": {"s02/b:WORD2": fix}},
            "drop": {"man_is_to_programmer": {"s04/a:equipped": "awkward"}},
            "add": {"man_is_to_programmer": [
                {"hypothesis": "{{GROUP1}} <MASK> more money in {{MJOB}}.", "source": 1}]}}
    res = derive_masked_templates(templates, overrides=over,
                                  targets={"man_is_to_programmer": 50})
    by_id = {d.id: d for d in res.candidates}
    assert by_id["s02/b:WORD2"].hypothesis == fix
    assert by_id["s02/b:WORD2"].override == "replaced"
    assert "s04/a:equipped" not in by_id
    assert ("man_is_to_programmer", "s04/a:equipped", "override: awkward") in res.dropped
    added = by_id["curated:00"]
    assert added.source_index == 1 and added.rank == -1 and added.override == "added"
    assert res.selected[0].id == "curated:00"  # curated first
    # Written files load back with their labels.
    files = write_masked_templates(tmp_path, res)
    assert [p.name for p in files] == ["man_is_to_programmer.json"]
    data = json.loads(files[0].read_text())
    assert data["base"] == "gender/man_is_to_programmer"
    loaded = load_masked_templates(tmp_path)
    assert [h for h, *_ in loaded[0].stereotype_hypotheses] == [d.hypothesis for d in
                                                                res.selected]
    # An override file on disk works the same.
    path = tmp_path / "over.json"
    path.write_text(json.dumps(over))
    again = derive_masked_templates(templates, overrides=path,
                                    targets={"man_is_to_programmer": 50})
    assert [d.hypothesis for d in again.selected] == [d.hypothesis for d in res.selected]


@pytest.mark.parametrize(("over", "match"), [
    ({"replace": {"nope": {}}}, "replace names unknown subtopic 'nope'"),
    ({"replace": {"man_is_to_programmer": {"s99/a:x": "{{GROUP1}} <MASK>."}}},
     "replace names unknown id 's99/a:x' of man_is_to_programmer; run the dry run"),
    ({"drop": {"man_is_to_programmer": ["s99/a:x"]}}, "drop names unknown id 's99/a:x'"),
    ({"add": {"man_is_to_programmer": ["{{GROUP1}} are good."]}}, "exactly one <MASK>"),
    ({"add": {"man_is_to_programmer": ["Men are <MASK>."]}}, "names no group slot"),
    ({"add": {"man_is_to_programmer": ["{{GROUP1}} are <MASK> at {{WORD9}}."]}},
     "uses slot 'WORD9', which man_is_to_programmer does not define"),
    ({"add": {"man_is_to_programmer": [{"hypothesis": "{{GROUP1}} <MASK>.", "source": 9}]}},
     "source must be the index of a stereotype hypothesis"),
    ({"other": {}}, "unknown section 'other'"),
])
def test_override_errors(over, match):
    templates = load_templates(subtopics=["man_is_to_programmer"])
    with pytest.raises(FairboundError, match=match) as exc:
        derive_masked_templates(templates, overrides=over)
    assert exc.value.param == "overrides" and "\n" not in str(exc.value)


def test_masked_file_labels_are_validated(tmp_path):
    p = tmp_path / "m.json"
    p.write_text(json.dumps({"base": "gender/man_is_to_programmer", "masked_hypotheses": [
        {"hypothesis": "{{GROUP1}} <MASK> more.", "true_label": 1, "biased_label": 0},
        "{{GROUP2}} <MASK> less."]}))
    t = load_masked_templates(p)[0]
    assert [lab[1:3] for lab in t.stereotype_hypotheses] == [(1, 0), (1, 2)]
    p.write_text(json.dumps({"base": "gender/man_is_to_programmer", "masked_hypotheses": [
        {"hypothesis": "{{GROUP1}} <MASK> more.", "biased_label": 7}]}))
    with pytest.raises(FairboundError, match="label must be 0, 1 or 2"):
        load_masked_templates(p)
    p.write_text(json.dumps({"base": "gender/man_is_to_programmer",
                             "masked_hypotheses": [{"text": "x"}]}))
    with pytest.raises(FairboundError, match="must be a string or an object with a"):
        load_masked_templates(p)


def test_selection_is_deterministic(derived):
    again = derive_masked_templates()
    assert [d.hypothesis for d in again.selected] == [d.hypothesis for d in derived.selected]
    frame = derived.to_frame()
    assert int(frame.selected.sum()) == 212
    # The committed files are byte-identical to a fresh write.
    files = derived.to_files()
    assert files == derive_masked_templates().to_files()
    assert np.array_equal(frame.columns[:3], ["domain", "subtopic", "id"])


def test_docs_tables_9_and_10_match_the_code(derived):
    # docs/nli.md states Table 9 and Table 10 cell by cell; they must be what the code gives.
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "nli.md").read_text()
    distinct = Counter()
    for sub in {d.subtopic for d in derived.candidates}:
        distinct[sub] = len({d.hypothesis for d in derived.candidates if d.subtopic == sub})
    t9 = masked_template_counts().set_index("paper_subtopic")
    t10 = masked_sample_counts().set_index("paper_subtopic")
    seen9 = seen10 = 0
    for line in doc.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 7 and cells[1] in PAPER_TABLE9 and cells[2] in set(
                PAPER_SUBTOPICS.values()):
            _, paper_name, file_name, n_hyp, n_cand, paper, ours = cells
            assert PAPER_SUBTOPICS[paper_name] == file_name
            assert int(n_cand) == distinct[file_name], line
            assert int(paper) == PAPER_TABLE9[paper_name] == int(ours) == \
                t9.loc[paper_name, "masked_templates"]
            assert int(n_hyp) == t9.loc[paper_name, "bbnli_hypotheses"]
            seen9 += 1
        elif len(cells) == 8 and cells[0] in PAPER_TABLE10:
            row = t10.loc[cells[0]]
            paper = int(cells[3].split()[0].replace(",", ""))
            ours = int(cells[4].split()[0].replace(",", ""))
            assert (paper, ours, int(cells[5])) == (
                PAPER_TABLE10[cells[0]], row.masked_samples, row.masked_samples - paper), line
            seen10 += 1
    assert (seen9, seen10) == (16, 16)
