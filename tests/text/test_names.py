"""First-name detection for the gender rewrite: rules on written sentences, and the hand
annotation of the 280-bio Bias in Bios sample (``data/bios_sample_first_names.csv``).

The annotation (one reader, every bio read in full; candidates pre-marked from a broad
name list, every one checked, names the list lacks added by hand) labels each span:

* ``first_name``: a person's given name (the bio's subject or anyone named), which the
  paper's transform replaces;
* ``protected``: a word of the name list inside a place, organisation, award, month or
  work title ("Rebecca's Tent Women's Shelter", "Hong Kong", "Emmy", "January"), which it
  must leave alone;
* ``either``: both readings defensible (a show named after its host, a pet, a middle name);
  counted neither way.

Bios with an even index form the development half (rules were written against it), odd
ones the test half.  Four words of the name list that the first reading missed on the
development half were added as ``protected`` when the detector marked them (bio 6 "Sydney"
of "University of Technology, Sydney", 80 "Isla" of the club "Isla de Encanta", 126 the
brand "Diesel", 258 the state "Georgia's"); the test half is as first annotated.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest

from fairbound.errors import FairboundError
from fairbound.text import GenderNeutralizer, NameListDetector, SpacyNameDetector
from fairbound.text.names import _WORD, MONTHS, common_surnames, get_detector, place_names

ANNOTATION = Path(__file__).parent / "data" / "bios_sample_first_names.csv"
BIOS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "bios_sample" \
    / "bios_sample.csv"
DETECT = NameListDetector()

#: Measured once on the test half with the bundled list detector (88.1% and 87.3%, see
#: docs/stability.md): a floor against regressions, not a target.
FLOOR_PRECISION, FLOOR_RECALL = 0.87, 0.87
#: The targets of issue 28, not reached yet.
TARGET_PRECISION, TARGET_RECALL = 0.99, 0.95


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("He is a student at Florida Atlantic University.", []),
        ("Hedda joined the firm in January 2017.", ["Hedda"]),
        ("She moved to Hong Kong, then to London.", []),
        ("The show won 23 Emmy Awards.", []),
        ("She studied at Richard Stockton College.", []),
        ("He is the treasurer of Rebecca's Tent Women's Shelter.", []),
        ("Dr. Derek Ginter and Mr. Ralph Giglio met Dr. Russell.", ["Derek", "Ralph"]),
        ("Mary Lee, Jean-Philippe Wurtz and W. Brad Groom.", ["Mary", "Jean", "Philippe",
                                                                 "Brad"]),
        ("Born in Miami, Florida, Mariajose is fluent in Spanish.", ["Mariajose"]),
        ("He grew up in Charlotte; Charlotte Bronte wrote novels.", ["Charlotte"]),
        ("Call Sandra J Wilmot today.", ["Sandra"]),
        ("Barnes has taught at Hastings College of Law.", []),
        ("Will you come? I asked Will.", ["Will"]),
        ("He worked with Lauryn Hill in Chapel Hill.", ["Lauryn"]),
        ("Brands such as Jean Paul Gaultier and Versace.", []),
        ("Their debut show 'Ken Heehaw' toured.", []),
        ("Don't wait for Don.", ["Don"]),
        ("She lives in Boone, NC with Grégory.", ["Grégory"]),
        ("Email Faris-Dana@aramark.com or visit www.mary.com", []),
        # places from the GeoNames gazetteer, a comma and a country, a move
        ("He moved to Santa Clara, California, and then to Leighton Buzzard.", []),
        ("Jessica lives in Aylesbury, England; Aylesbury, England is near.", ["Jessica"]),
        # a determiner makes a common noun or a title; a surname after it keeps the name
        ("He tried to start a Summer of Love and won her Oscar.", []),
        ("She puts on a Stevie Wonder album.", ["Stevie"]),
        # a list with a brand, a club or an unknown word is a list of titles or brands
        ("Clubs such as City Hall, Becool, Isla de Encanta, Macarena, Artenou Festival.", []),
        ("She co-hosts Homeo and Juliet, a podcast.", []),
        ("Artists like Missy Elliot, Georgie and Lauryn Hill.", ["Missy", "Georgie", "Lauryn"]),
        # kin nouns introduce names, even names that are mostly surnames
        ("He lives with his wife Jennifer and their boys, Taylor and Cameron.",
         ["Jennifer", "Taylor", "Cameron"]),
        ("Taylor has taught at Yale since 2001.", []),
        # names the list lacks, read from an honorific or a surname
        ("Dr. Wasiq Rafeeq practices here. Wasiq enjoys cricket.", ["Wasiq", "Wasiq"]),
        ("He liaised with Russell Simmons and Lyor Cohen.", ["Russell", "Lyor"]),
        ("Read about Paten Locke. Later, Paten joined a band.", ["Paten", "Paten"]),
        ("She founded Golf Wang and Golf Media.", []),
        ("Jaime de Angulo met Mr. Smith Jr. and Dr. Ann Lee, MD.", ["Jaime", "Ann"]),
    ],
)
def test_names_in_context(text, names):
    assert DETECT.names_in(text) == names


def test_month_names_are_never_first_names():
    for month in sorted(MONTHS):
        cap = month.capitalize()
        assert DETECT.names_in(f"{cap} Smith came. In {cap} she left. Met {cap}.") == [], cap
    out = GenderNeutralizer()("April, May and June.")
    assert out == "April, May and June."


def test_plain_list_lookup_for_comparison():
    plain = NameListDetector(context=False)
    assert plain.names_in("Dustin studied at Florida Atlantic University.") == [
        "Dustin", "Florida"]
    assert repr(plain).startswith("NameListDetector(37,589 names")


def test_surname_list_flags():
    s = common_surnames()
    assert len(s) == 5000 and s["smith"] and not s["russell"] and "jen" not in s


class Upper:
    """A toy detector: every all-capital word is a first name."""

    def spans(self, text):
        return [m.span() for m in _WORD.finditer(text) if m.group().isupper()]


def test_pluggable_detector():
    tf = GenderNeutralizer("female", detector=Upper())
    assert tf("JOHN met Mary and he left.") == "Camille met Mary and she left."
    assert isinstance(get_detector("list"), NameListDetector)
    with pytest.raises(FairboundError, match="detector must be 'list', 'spacy' or an object"):
        GenderNeutralizer(detector="ner")
    with pytest.raises(FairboundError, match="names and detector: give one of them"):
        GenderNeutralizer(names={"zork"}, detector=Upper())


def test_spacy_detector_is_an_optional_extra():
    try:
        import spacy  # noqa: F401
    except ImportError:
        with pytest.raises(FairboundError, match="detector: the spaCy detector needs spaCy"):
            SpacyNameDetector()
        return
    with pytest.raises(FairboundError, match="model: no installed spaCy model 'no_such_"):
        SpacyNameDetector("no_such_model")


# ----------------------------------------------------------------------------- the bios


def _annotation() -> list[dict]:
    with ANNOTATION.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _bios() -> pd.DataFrame:
    if not BIOS.is_file():
        pytest.skip("../shared/data/bios_sample is not present")
    return pd.read_csv(BIOS)


def test_annotation_file_is_consistent():
    rows = _annotation()
    assert {r["label"] for r in rows} == {"first_name", "protected", "either"}
    assert all(r["split"] == ("dev" if int(r["bio"]) % 2 == 0 else "test") for r in rows)
    keys = [(r["bio"], r["start"]) for r in rows]
    assert len(keys) == len(set(keys))
    counts = pd.DataFrame(rows).groupby(["split", "label"]).size().to_dict()
    assert counts[("test", "first_name")] == 110 and counts[("dev", "first_name")] == 133


def test_annotation_offsets_match_the_bios():
    bios = _bios()
    assert len(bios) == 280
    for r in _annotation():
        text = bios["hard_text"].iloc[int(r["bio"])]
        assert text[int(r["start"]):int(r["end"])] == r["token"], r


def measure(split: str, detector=None) -> dict:
    """Precision, recall and the protected words rewritten on one half of the sample."""
    bios = _bios()
    rows = [r for r in _annotation() if r["split"] == split]
    label = {(int(r["bio"]), int(r["start"])): r["label"] for r in rows}
    want = {k for k, v in label.items() if v == "first_name"}
    tf = GenderNeutralizer(detector=detector)
    hits, wrong, protected = set(), [], []
    for i, text in enumerate(bios["hard_text"]):
        if (i % 2 == 0) != (split == "dev"):
            continue
        for s, e in tf.name_spans(text):
            kind = label.get((i, s))
            if kind == "first_name":
                hits.add((i, s))
            elif kind != "either":
                wrong.append((i, text[s:e]))
                if kind == "protected":
                    protected.append((i, text[s:e]))
    return {"replaced": len(hits) + len(wrong), "right": len(hits), "wrong": wrong,
            "protected": protected, "names": len(want),
            "precision": len(hits) / max(1, len(hits) + len(wrong)),
            "recall": len(hits) / len(want)}


def test_no_month_rewritten_in_any_bio():
    bios = _bios()
    tf = GenderNeutralizer()
    for text in bios["hard_text"]:
        assert not {text[s:e].lower() for s, e in tf.name_spans(text)} & MONTHS


def test_development_half_precision_and_recall():
    m = measure("dev")
    print(f"development half: {m['right']} of {m['replaced']} replacements are first names "
          f"(precision {m['precision']:.1%}); {m['right']} of {m['names']} first names "
          f"replaced (recall {m['recall']:.1%}); protected words rewritten: "
          f"{m['protected']}; other wrong: {m['wrong']}")
    # the half the rules were written against: a regression check, not an estimate
    assert m["right"] >= 125 and m["names"] == 133
    assert not m["wrong"]


def test_place_names_are_bundled():
    p = place_names()
    assert len(p) > 10_000
    assert {"leighton buzzard", "des plaines", "new york"} <= p
    assert "robert williams" not in p  # a first name and a common surname: left out


def test_test_half_precision_and_recall():
    m = measure("test")
    print(f"test half: {m['right']} of {m['replaced']} replacements are first names "
          f"(precision {m['precision']:.1%}); {m['right']} of {m['names']} first names "
          f"replaced (recall {m['recall']:.1%}); protected words rewritten: "
          f"{m['protected']}; other wrong: {m['wrong']}")
    assert m["precision"] >= FLOOR_PRECISION
    assert m["recall"] >= FLOOR_RECALL
    plain = measure("test", NameListDetector(context=False))
    assert plain["precision"] < m["precision"]  # the context rules earn their keep


@pytest.mark.xfail(strict=True, reason="issue 28 targets not reached: on the test half 88.1% "
                   "of replacements are first names (target 99%), 87.3% of first names are "
                   "replaced (target 95%) and 3 protected words are rewritten (see "
                   "docs/stability.md)")
def test_test_half_meets_the_issue_targets():
    m = measure("test")
    assert m["precision"] >= TARGET_PRECISION
    assert m["recall"] >= TARGET_RECALL
    assert not m["protected"]
