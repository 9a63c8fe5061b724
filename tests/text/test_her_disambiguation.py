"""Possessive versus object "her", and every pronoun form, on hand-written sentences.

The accuracy measured here is the one stated in the docstring of ``fairbound.text.debias``;
the known failures are listed and must keep failing (strict xfail), so a change of the rule
that fixes or breaks a sentence shows up here and the docstring is updated with it.
"""

import re

import pandas as pd
import pytest

from fairbound.text import GenderNeutralizer

MALE = GenderNeutralizer("male", replace_names=False, nouns=True)
FEMALE = GenderNeutralizer("female", replace_names=False, nouns=True)

# (input, expected rewrite to the male variant): she/her/hers/herself, possessive and object
# "her" in every position the rule distinguishes.
TO_MALE = [
    ("She is known for her work on rare diseases.", "He is known for his work on rare diseases."),
    ("Her research focuses on proteins.", "His research focuses on proteins."),
    ("I saw her yesterday.", "I saw him yesterday."),
    ("We gave her the award.", "We gave him the award."),
    ("He thanked her and her team.", "He thanked him and his team."),
    ("The book is hers.", "The book is his."),
    ("She taught herself to code.", "He taught himself to code."),
    ("She did her best.", "He did his best."),
    ("The decision was hers to make.", "The decision was his to make."),
    ("They asked her to speak.", "They asked him to speak."),
    ("She lives with her own family.", "He lives with his own family."),
    ("She spent her early career in Paris.", "He spent his early career in Paris."),
    ("Her most famous novel won prizes.", "His most famous novel won prizes."),
    ("Everyone loved her very much.", "Everyone loved him very much."),
    ("We met her first.", "We met him first."),
    ("Her first novel was a success.", "His first novel was a success."),
    ("The prize made her famous.", "The prize made him famous."),
    ("Her famous novel sold well.", "His famous novel sold well."),
    ("They let her go.", "They let him go."),
    ("She received her PhD from Yale.", "He received his PhD from Yale."),
    ("Against her will, she left.", "Against his will, he left."),
    ("They paid her 500 dollars.", "They paid him 500 dollars."),
    ("In her 30s she moved to Ohio.", "In his 30s he moved to Ohio."),
    ("They called her Anna.", "They called him Anna."),
    ("I told her that she was right.", "I told him that he was right."),
    ("She brought her children to work.", "He brought his children to work."),
    ("Nobody believed her.", "Nobody believed him."),
    ("We will miss her.", "We will miss him."),
    ("Her and her sister founded the firm.", "Him and his brother founded the firm."),
    ("Her colleagues describe her as kind.", "His colleagues describe him as kind."),
    ("She is proud of her students.", "He is proud of his students."),
    ("They saw her leaving the lab.", "They saw him leaving the lab."),
    ("Her training at MIT shaped her views.", "His training at MIT shaped his views."),
    ("The police had her arrested.", "The police had him arrested."),
    ("She kept her married name.", "He kept his married name."),
    ("I gave her flowers.", "I gave him flowers."),
    ("They bought her dinner.", "They bought him dinner."),
    ("She was elected by her peers.", "He was elected by his peers."),
    ("Ask her, not me.", "Ask him, not me."),
    ("Between her and me, it is settled.", "Between him and me, it is settled."),
    ("She wrote her 2019 album alone.", "He wrote his 2019 album alone."),
    ("She is smarter than her.", "He is smarter than him."),
    ("Her newly published book is out.", "His newly published book is out."),
    ("They helped her move.", "They helped him move."),
    ("They helped her career.", "They helped his career."),
    ("She devoted herself to her patients.", "He devoted himself to his patients."),
    ("She and her partner live in Rome.", "He and his partner live in Rome."),
    ("Hers is the blue one.", "His is the blue one."),
    ("The team, led by her, won.", "The team, led by him, won."),
    ("She loves her job and her dog.", "He loves his job and his dog."),
    ("Send her an email.", "Send him an email."),
    ("Her work with her mentor earned her a prize.",
     "His work with his mentor earned him a prize."),
    ("She joined the firm after her graduation.", "He joined the firm after his graduation."),
    ("Her clients trust her completely.", "His clients trust him completely."),
    ("She was praised for her leadership and her vision.",
     "He was praised for his leadership and his vision."),
    ("A photo shows her with her award.", "A photo shows him with his award."),
    ("We heard her sing.", "We heard him sing."),
    ("She found her calling in medicine.", "He found his calling in medicine."),
]
TO_FEMALE = [
    ("He is known for his work.", "She is known for her work."),
    ("I saw him yesterday.", "I saw her yesterday."),
    ("The book is his.", "The book is hers."),
    ("He taught himself Latin.", "She taught herself Latin."),
    ("His first novel was his best.", "Her first novel was her best."),
    ("They gave him his award.", "They gave her her award."),
    ("The choice was his and his alone.", "The choice was hers and hers alone."),
    ("He and his team won.", "She and her team won."),
    ("Is this pen his?", "Is this pen hers?"),
    ("He lost his way.", "She lost her way."),
    ("His is the red car.", "Hers is the red car."),
    ("Mr. Lee thanked him.", "Ms. Lee thanked her."),
    ("He did his best.", "She did her best."),
    ("A friend of his called.", "A friend of hers called."),
    ("He said that he would come.", "She said that she would come."),
    ("Himself a doctor, he knew.", "Herself a doctor, she knew."),
]

KNOWN_FAILURES = {
    "I gave her flowers.",  # a bare noun after a giving verb reads as possessive
    "They bought her dinner.",
    "She found her calling in medicine.",  # "calling" after "found" reads as a participle
    "A friend of his called.",  # "his" before a verb: "her", not "hers"
}
CASES = [("male", t, e) for t, e in TO_MALE] + [("female", t, e) for t, e in TO_FEMALE]


@pytest.mark.parametrize(
    ("variant", "text", "expected"),
    [pytest.param(v, t, e, marks=pytest.mark.xfail(strict=True, reason="known rule failure"))
     if t in KNOWN_FAILURES else (v, t, e) for v, t, e in CASES],
)
def test_sentence(variant, text, expected):
    assert (MALE if variant == "male" else FEMALE)(text) == expected


def test_every_pronoun_form_is_covered():
    words = {w.lower() for t, _ in TO_MALE for w in re.findall(r"[A-Za-z]+", t)}
    assert {"she", "her", "hers", "herself"} <= words
    words = {w.lower() for t, _ in TO_FEMALE for w in re.findall(r"[A-Za-z]+", t)}
    assert {"he", "him", "his", "himself"} <= words
    assert len(CASES) >= 40


def _her_accuracy():
    good = total = 0
    for text, expected in TO_MALE:
        got = re.findall(r"[^\W\d_]+", MALE(text))
        want = re.findall(r"[^\W\d_]+", expected)
        for src, g, w in zip(re.findall(r"[^\W\d_]+", text), got, want, strict=True):
            if src.lower() == "her":
                total += 1
                good += g == w
    return good, total


def test_measured_accuracy_matches_the_docstring():
    ok = sum((MALE if v == "male" else FEMALE)(t) == e for v, t, e in CASES)
    assert (ok, len(CASES)) == (70, 74)
    assert _her_accuracy() == (61, 64)
    import fairbound.text.debias as mod

    assert "70 sentences (94.6%) and 61 of 64" in " ".join(mod.__doc__.split())


def test_known_for_her_work():
    assert MALE("She is known for her work.") == "He is known for his work."
    assert MALE("Known for her work, she won.") == "Known for his work, he won."


def test_bios_sample_her_counts():
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "bios_sample"
    src = src / "bios_sample.csv"
    if not src.exists():
        pytest.skip("shared data absent")
    texts = pd.read_csv(src)["hard_text"]
    forms = {"his": 0, "him": 0}
    for t in texts:
        words = re.findall(r"[^\W\d_]+", t)
        out = re.findall(r"[^\W\d_]+", MALE(t))
        for w, o in zip(words, out, strict=True):
            if w.lower() == "her":
                forms[o.lower()] += 1
        assert not {"she", "her", "hers", "herself"} & {w.lower() for w in out}
    # 179 occurrences, checked by hand: 176 right (see the module docstring).
    assert forms == {"his": 162, "him": 17}
