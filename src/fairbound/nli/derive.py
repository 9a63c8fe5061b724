"""Derive BBNLI-next masked hypothesis templates from the BBNLI stereotype hypotheses.

Baldini et al. (2023) turned the BBNLI hypotheses into masked templates with three simple
strategies, and this module applies them, as rules, to every stereotype hypothesis of the 16
shipped BBNLI templates:

``mask-word`` (a)
    Mask a content word of the hypothesis (the verb first, then an adjective, then a noun) to
    get variations on the same theme: ``{{GROUP2}} men prefer ...`` ->
    ``{{GROUP2}} men <MASK> ...``.
``replace-placeholder`` (b)
    Replace a short-list placeholder (``{{WORDk}}``, ``{{MJOB}}``) by the mask:
    ``{{GROUP2}} are less {{WORD2}} for jobs`` -> ``{{GROUP2}} are less <MASK> for jobs``.
``add-beside-placeholder`` (c)
    Keep the placeholder and add a mask beside it: after it (``{{WORD2}} and <MASK>``) when the
    placeholder is a predicate (it follows *be*, *more*, *less* ...), before it otherwise
    (``their <MASK> {{WORD1}}``).

Every rule keeps the biased generalisation intact: the ``{{GROUP1}}``/``{{GROUP2}}`` slots are
never touched, the other slots are kept (strategy b replaces exactly one occurrence of one),
and the derived template carries the labels of its source (true label neutral, biased label
entailment).  Hypotheses that name no group slot are skipped (their counterfactual would equal
the original); a mask is never put at the start of a sentence, and nouns naming people
("{{GROUP2}} men", "women", "people" ...) are never masked.

A curated override file (``data/bbnli/masked_overrides.json``) is applied on top of the rules:
``source_fixes`` rewrite a source hypothesis before the rules run (e.g. the literal "Black
people" of ``white_is_to_clean`` becomes ``{{GROUP2}} people``), ``replace`` and ``drop``
correct or remove what a rule got wrong (by candidate id), and ``add`` lists hand-written
templates (the 16 of fairbound's earlier starter set).  From the candidates, each subtopic
keeps as many as the paper's Table 9 gives it (:data:`PAPER_TABLE9`, 212 in all, under the
paper's subtopic names; :data:`PAPER_SUBTOPICS` maps them to the BBNLI file names);
candidates are taken round-robin over the hypotheses so that every hypothesis contributes
before any contributes twice, and word masks beyond :data:`MAX_WORD_MASKS` per hypothesis
are a reserve taken last.  A subtopic whose distinct candidates fall short of its count is
reported in ``DerivationResult.shortfalls``, never padded (none does with the shipped rules).
:func:`masked_sample_counts` sets the expansion of the templates beside the paper's Table 10.

Regenerate the shipped files (``data/bbnli/masked/*.json``) with::

    python -m fairbound.nli.derive --write          # rewrite the shipped masked templates
    python -m fairbound.nli.derive --dry-run        # list every candidate and the choice
    python -m fairbound.nli.derive --check          # exit 1 if the shipped files are stale
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fairbound._io import write_all_atomic, write_text_atomic
from fairbound._validate import fail
from fairbound.errors import FairboundError
from fairbound.nli.templates import (
    MASK,
    Template,
    load_masked_templates,
    load_templates,
    shipped_template_dir,
    slots_of,
)

__all__ = [
    "MANIFEST_NAME",
    "MANIFEST_VERSION",
    "PAPER_SAMPLES_TOTAL",
    "PAPER_SUBTOPICS",
    "PAPER_TABLE9",
    "PAPER_TABLE10",
    "PAPER_TOTAL",
    "STRATEGIES",
    "DerivationResult",
    "DerivedTemplate",
    "StaleFileWarning",
    "derive_masked_templates",
    "dry_run",
    "masked_sample_counts",
    "masked_template_counts",
    "paper_targets",
    "proportional_targets",
    "shipped_overrides_path",
    "write_masked_templates",
]

#: Derivation strategies, in the order a hypothesis's candidates are interleaved.
STRATEGIES: tuple[str, ...] = ("mask-word", "replace-placeholder", "add-beside-placeholder",
                               "curated")
_SHORT = {"mask-word": "a", "replace-placeholder": "b", "add-beside-placeholder": "c"}
#: Masked templates of BBNLI-next in all (Baldini et al. 2023, Table 9).
PAPER_TOTAL = 212
#: The paper's subtopic names (Tables 9, 10 and 12 of Baldini et al. 2023, arXiv:2305.12620)
#: -> the BBNLI template file names, which are fairbound's subtopic keys.  Two differ in more
#: than case: the paper's ``Black_is_to_ghetto`` is ``black_is_to_impoverished`` (its
#: hypotheses are about ghettos and neighbourhoods) and ``Black_is_to_drugs`` is
#: ``black_people_use_drugs``; the religion files say ``..._to_many_kids`` for ``..._is_to_kids``.
PAPER_SUBTOPICS: Mapping[str, str] = {
    "man_is_to_breadwinner": "man_is_to_breadwinner",
    "man_is_to_programmer": "man_is_to_programmer",
    "man_is_to_rational": "man_is_to_rational",
    "man_is_to_surgeon": "man_is_to_surgeon",
    "woman_is_to_homemaker": "woman_is_to_homemaker",
    "Asian_men_to_feminine": "asian_men_to_feminine",
    "Black_is_to_criminal": "black_is_to_criminal",
    "Black_is_to_ghetto": "black_is_to_impoverished",
    "Black_is_to_drugs": "black_people_use_drugs",
    "white_is_to_clean": "white_is_to_clean",
    "Catholic_woman_is_to_kids": "catholic_woman_to_many_kids",
    "Jewish_woman_is_to_kids": "jewish_woman_to_many_kids",
    "Mormon_man_to_oppressive": "mormon_man_to_oppressive",
    "Muslim_man_to_many_wives": "muslim_man_to_many_wives",
    "Muslim_man_to_oppressive": "muslim_man_to_oppressive",
    "Muslim_women_to_invisible": "muslim_women_to_invisible",
}
#: Table 9 of the paper: masked templates per subtopic, keyed by the paper's names
#: (gender 48, race 96, religion 68; 212 in all).
PAPER_TABLE9: Mapping[str, int] = {
    "man_is_to_breadwinner": 8, "man_is_to_programmer": 10, "man_is_to_rational": 9,
    "man_is_to_surgeon": 10, "woman_is_to_homemaker": 11,
    "Asian_men_to_feminine": 16, "Black_is_to_criminal": 23, "Black_is_to_ghetto": 29,
    "Black_is_to_drugs": 13, "white_is_to_clean": 15,
    "Catholic_woman_is_to_kids": 11, "Jewish_woman_is_to_kids": 12,
    "Mormon_man_to_oppressive": 8, "Muslim_man_to_many_wives": 9,
    "Muslim_man_to_oppressive": 12, "Muslim_women_to_invisible": 16,
}
#: Table 10 of the paper: masked samples per subtopic after the expansion of every
#: premise/hypothesis pair "using the original BBNLI scripts" (pro and anti premise
#: versions), keyed by the paper's names (gender 1,770, race 1,528, religion 858; 4,156).
PAPER_TABLE10: Mapping[str, int] = {
    "man_is_to_breadwinner": 256, "man_is_to_programmer": 570, "man_is_to_rational": 180,
    "man_is_to_surgeon": 324, "woman_is_to_homemaker": 440,
    "Asian_men_to_feminine": 170, "Black_is_to_criminal": 288, "Black_is_to_ghetto": 340,
    "Black_is_to_drugs": 480, "white_is_to_clean": 250,
    "Catholic_woman_is_to_kids": 152, "Jewish_woman_is_to_kids": 108,
    "Mormon_man_to_oppressive": 160, "Muslim_man_to_many_wives": 144,
    "Muslim_man_to_oppressive": 150, "Muslim_women_to_invisible": 144,
}
#: Masked samples of BBNLI-next in all (Table 10).
PAPER_SAMPLES_TOTAL = 4156
_PAPER_NAME = {v: k for k, v in PAPER_SUBTOPICS.items()}


def paper_targets() -> dict[str, int]:
    """Table 9 keyed by the BBNLI file names (fairbound's subtopic keys).

    Returns
    -------
    dict
        BBNLI file name -> masked templates in the paper.

    Examples
    --------
    >>> t = paper_targets()
    >>> t["black_is_to_impoverished"], sum(t.values())
    (29, 212)
    """
    return {PAPER_SUBTOPICS[k]: v for k, v in PAPER_TABLE9.items()}
#: Candidates of strategy (a) preferred per hypothesis; further word masks are a reserve,
#: selected only after every other candidate of the subtopic.
MAX_WORD_MASKS = 3
_RESERVE_RANK = 1000

_TOKEN = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}|([A-Za-z]+(?:['’-][A-Za-z]+)*)")
_GROUPS = ("GROUP1", "GROUP2")

_DETERMINERS = set("a an the this that these those some any every each no all both another "
                   "other such its their his her my our your".split())
_PRONOUNS = set("it they them he she him her we us i me you who whom which what that there "
                "ones one themselves itself someone".split())
_PREPOSITIONS = set("of in on at for with about from by to into onto over under as after "
                    "before during through up down out off around across along among amongst "
                    "behind beside between beyond near toward towards upon within without due "
                    "than like via per against".split())
_CONJUNCTIONS = set("and or but nor because so if when while whether where why how though "
                    "although unless once since until as".split())
_BE = set("is are was were be been being am".split())
_AUX = _BE | set("do does did has have had will would can cannot could shall should may "
                 "might must".split())
_ADVERBS = set("not never more less most least very quite rather simply usually often "
               "always sometimes especially particularly generally typically mostly "
               "dramatically increasingly naturally unfortunately also only still "
               "just even much far already really too".split())
_COMPARATIVES = set("more less most least very quite too so".split())
_FUNCTION = _DETERMINERS | _PRONOUNS | _PREPOSITIONS | _CONJUNCTIONS | _AUX | _ADVERBS
# Head nouns of a group phrase ("{{GROUP2}} men"): never masked, the phrase names the group.
_GROUP_NOUNS = set("men women man woman people person youth communities community teenagers "
                   "children husbands spouses wives population culture neighborhoods "
                   "households families christians".split())
# Triggers of a predicative placeholder: the mask goes after it ("less {{WORD2}} and <MASK>").
_PREDICATIVE = _BE | _COMPARATIVES | {"not"}


@dataclass(frozen=True)
class DerivedTemplate:
    """One masked hypothesis template, derived or curated.

    Attributes
    ----------
    domain, subtopic : str
        Its BBNLI subtopic.
    id : str
        ``sNN/a:word``, ``sNN/b:SLOT``, ``sNN/c:SLOT`` (source hypothesis NN, strategy a/b/c,
        what was masked) or ``curated:NN``; the key of the override file.
    hypothesis : str
        The template, with exactly one ``<MASK>``.
    strategy : str
        One of :data:`STRATEGIES`.
    source_index : int or None
        Index of the source stereotype hypothesis (``None`` for a curated template without one).
    source : str
        The source hypothesis (after ``source_fixes``), empty when there is none.
    true_label, biased_label : int
        Copied from the source (1 = neutral, 2 = entailment).
    rank : int
        Position of the candidate among its source's candidates (selection order).
    override : str
        ``""`` (rule output), ``"replaced"``, ``"added"`` or ``"source-fixed"``.
    """

    domain: str
    subtopic: str
    id: str
    hypothesis: str
    strategy: str
    source_index: int | None
    source: str
    true_label: int = 1
    biased_label: int = 2
    rank: int = 0
    override: str = ""

    def to_json(self) -> dict:
        """Return the entry written to a masked-template file."""
        return {"id": self.id, "hypothesis": self.hypothesis, "strategy": self.strategy,
                "source": self.source_index, "true_label": self.true_label,
                "biased_label": self.biased_label}


@dataclass(frozen=True)
class DerivationResult:
    """Candidates of every subtopic, the selection, and what was skipped.

    Attributes
    ----------
    selected : tuple of DerivedTemplate
        The masked templates kept (what the shipped files hold), in subtopic order.
    candidates : tuple of DerivedTemplate
        Every candidate after the overrides (selected or not).
    dropped : tuple of (str, str, str)
        ``(subtopic, id, reason)`` of candidates removed (override ``drop``, duplicate text).
    skipped : tuple of (str, int, str)
        ``(subtopic, source index, reason)`` of source hypotheses no rule applies to.
    targets : dict
        Subtopic -> number of templates to keep.
    bases : dict
        Subtopic -> ``"<domain>/<subtopic>"`` (the ``base`` of the masked file).
    shortfalls : dict
        Subtopic -> templates missing to reach its target, for every subtopic whose rules and
        overrides give fewer distinct candidates than the target (never padded).
    """

    selected: tuple[DerivedTemplate, ...] = field(repr=False)
    candidates: tuple[DerivedTemplate, ...] = field(repr=False)
    dropped: tuple[tuple[str, str, str], ...] = field(repr=False)
    skipped: tuple[tuple[str, int, str], ...] = field(repr=False)
    targets: dict[str, int] = field(repr=False)
    bases: dict[str, str] = field(repr=False)
    shortfalls: dict[str, int] = field(default_factory=dict, repr=False)

    def to_frame(self, *, selected_only: bool = False) -> pd.DataFrame:
        """Return one row per candidate with a ``selected`` column."""
        chosen = {(d.subtopic, d.id) for d in self.selected}
        rows = [{**d.__dict__, "selected": (d.subtopic, d.id) in chosen}
                for d in (self.selected if selected_only else self.candidates)]
        return pd.DataFrame(rows)

    def to_files(self) -> dict[str, dict]:
        """Return the masked-template file contents, subtopic -> JSON object."""
        out: dict[str, dict] = {}
        for sub, base in self.bases.items():
            items = [d.to_json() for d in self.selected if d.subtopic == sub]
            if items:
                out[sub] = {"base": base,
                            "generated_by": "python -m fairbound.nli.derive --write; edit "
                                            "masked_overrides.json, not this file",
                            "masked_hypotheses": items}
        return out


def shipped_overrides_path() -> Path:
    """Return the path of the curated override file shipped with fairbound."""
    return shipped_template_dir() / "masked_overrides.json"


def proportional_targets(weights: Mapping[str, int], total: int = PAPER_TOTAL) -> dict[str, int]:
    """Split ``total`` in proportion to ``weights`` (largest remainder, ties by key order).

    Parameters
    ----------
    weights : mapping
        Key -> non-negative weight (e.g. stereotype hypotheses per subtopic).
    total : int
        The sum of the result.

    Returns
    -------
    dict
        Key -> integer share.

    Examples
    --------
    >>> proportional_targets({"a": 1, "b": 1, "c": 2}, total=10)
    {'a': 3, 'b': 2, 'c': 5}
    """
    keys = list(weights)
    w = np.array([float(weights[k]) for k in keys])
    if w.sum() <= 0:
        return dict.fromkeys(keys, 0)
    exact = total * w / w.sum()
    base = np.floor(exact).astype(int)
    order = sorted(range(len(keys)), key=lambda i: (-(exact[i] - base[i]), i))
    for i in order[: total - int(base.sum())]:
        base[i] += 1
    return {k: int(b) for k, b in zip(keys, base, strict=True)}


# -- the rules -----------------------------------------------------------------------------
def _tokens(text: str) -> list[tuple[int, int, str, bool]]:
    """``(start, end, text, is_slot)`` of every word and slot; slots keep their name."""
    return [(m.start(), m.end(), m.group(1) or m.group(2), m.group(1) is not None)
            for m in _TOKEN.finditer(text)]


def _sentence_start(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return before == "" or before[-1] in ".!?"


def _mask_word(text: str) -> list[tuple[str, str]]:
    """Strategy (a): ``(masked word, template)`` candidates, verbs first."""
    toks = _tokens(text)
    verbs, adjectives, nouns = [], [], []
    prev_kind = "start"  # what the last non-adverb token was: start, group, aux, be, to, word
    group_np = False
    for i, (s, _e, w, slot) in enumerate(toks):
        low = w.lower()
        if slot:
            group_np = w in _GROUPS
            prev_kind = "group" if group_np else "word"
            continue
        if group_np and low in _GROUP_NOUNS:
            prev_kind = "group"
            group_np = False
            continue
        group_np = False
        likely_adverb = low == "likely" and prev_kind not in ("be", "comparative")
        if low in _ADVERBS or likely_adverb or (low.endswith("ly") and len(low) > 4
                                                and low not in ("likely", "family", "ugly")):
            if low in _COMPARATIVES:
                prev_kind = "comparative"
            continue
        maskable = (low not in _FUNCTION and low not in _GROUP_NOUNS and len(low) > 2
                    and not _sentence_start(text, s) and not w[:1].isupper() and "-" not in w)
        if maskable:
            if prev_kind in ("group", "aux", "to", "relative"):
                verbs.append(i)
            elif prev_kind == "be" and (low.endswith(("ed", "en")) or low in ("known",)):
                verbs.append(i)
            elif prev_kind in ("be", "comparative"):
                adjectives.append(i)
            else:
                nouns.append(i)
        if low in _BE:
            prev_kind = "be"
        elif low in _AUX:
            prev_kind = "aux"
        elif low == "to":
            prev_kind = "to"
        elif low in ("who", "that"):
            prev_kind = "relative"
        elif low in _COMPARATIVES:
            prev_kind = "comparative"
        else:
            prev_kind = "word"
    out: list[tuple[str, str]] = []
    seen: Counter[str] = Counter()
    for i in verbs + adjectives + nouns:
        s, e, w, _ = toks[i]
        seen[w.lower()] += 1
        key = w.lower() if seen[w.lower()] == 1 else f"{w.lower()}#{seen[w.lower()]}"
        out.append((key, text[:s] + MASK + text[e:]))
    return out


def _placeholders(text: str) -> list[tuple[int, int, str, int]]:
    """First occurrence of every non-group slot: ``(start, end, name, token index)``."""
    toks = _tokens(text)
    seen, out = set(), []
    for i, (s, e, w, slot) in enumerate(toks):
        if slot and w not in _GROUPS and w not in seen:
            seen.add(w)
            out.append((s, e, w, i))
    return out


def _replace_placeholder(text: str) -> list[tuple[str, str]]:
    """Strategy (b): ``(slot, template)`` with the first occurrence of the slot masked."""
    return [(w, text[:s] + MASK + text[e:]) for s, e, w, _ in _placeholders(text)
            if not _sentence_start(text, s)]


def _add_beside(text: str) -> list[tuple[str, str]]:
    """Strategy (c): ``(slot, template)`` with a mask added before or after the slot."""
    toks = _tokens(text)
    out = []
    for s, e, w, i in _placeholders(text):
        if _sentence_start(text, s):
            continue
        prev = toks[i - 1] if i > 0 else None
        if prev is not None and prev[3]:
            continue  # two slots in a row ("{{WORD1}} {{WORD2}}"): no natural place
        gap = text[prev[1]:s] if prev is not None else ""
        if prev is not None and gap.strip():
            continue  # punctuation between: leave it
        if prev is not None and prev[2].lower() in _PREDICATIVE:
            out.append((w, text[:e] + f" and {MASK}" + text[e:]))
        else:
            out.append((w, text[:s] + f"{MASK} " + text[s:]))
    return out


def _rule_candidates(t: Template, index: int, source: str, labels: tuple[int, int],
                     fixed: bool) -> list[DerivedTemplate]:
    per = {"mask-word": _mask_word(source), "replace-placeholder": _replace_placeholder(source),
           "add-beside-placeholder": _add_beside(source)}
    # Strategy (a) beyond MAX_WORD_MASKS per hypothesis is a reserve: ranked after every other
    # candidate, so it is taken only when a subtopic's Table 9 count needs it.
    reserve = per["mask-word"][MAX_WORD_MASKS:]
    per["mask-word"] = per["mask-word"][:MAX_WORD_MASKS]
    out, rank = [], 0

    def add(strategy: str, what: str, hyp: str, r: int) -> None:
        out.append(DerivedTemplate(
            domain=t.domain, subtopic=t.subtopic, id=f"s{index:02d}/{_SHORT[strategy]}:{what}",
            hypothesis=hyp, strategy=strategy, source_index=index, source=source,
            true_label=labels[0], biased_label=labels[1], rank=r,
            override="source-fixed" if fixed else ""))

    for k in range(max(len(v) for v in per.values())):
        for strategy, items in per.items():
            if k < len(items):
                add(strategy, *items[k], rank)
                rank += 1
    for k, (what, hyp) in enumerate(reserve):
        add("mask-word", what, hyp, _RESERVE_RANK + k)
    return out


# -- overrides -----------------------------------------------------------------------------
def _load_overrides(overrides) -> dict:
    if overrides is None:
        return {}
    if isinstance(overrides, Mapping):
        data = dict(overrides)
    else:
        path = shipped_overrides_path() if overrides == "shipped" else Path(overrides)
        if not path.is_file():
            raise FairboundError(f"overrides: {str(path)!r} does not exist", param="overrides")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise FairboundError(f"overrides: {str(path)!r} is not valid JSON ({exc.msg} at "
                                 f"line {exc.lineno})", param="overrides") from exc
    unknown = sorted(k for k in data if not k.startswith("_")
                     and k not in ("source_fixes", "replace", "drop", "add"))
    if unknown:
        raise FairboundError(f"overrides: unknown section {unknown[0]!r} (allowed: "
                             "source_fixes, replace, drop, add)", param="overrides")
    return data


def _check_masked(text: str, t: Template, where: str) -> None:
    slots = slots_of(text, where=where)
    if text.count(MASK) != 1:
        raise FairboundError(f"overrides: {where} must hold exactly one {MASK}, got {text!r}",
                             param="overrides")
    unknown = [s for s in slots if s not in _GROUPS and s not in t.filler_dict]
    if unknown:
        raise FairboundError(f"overrides: {where} uses slot {unknown[0]!r}, which "
                             f"{t.subtopic} does not define", param="overrides")
    if not any(s in _GROUPS for s in slots):
        raise FairboundError(f"overrides: {where} names no group slot (GROUP1/GROUP2); its "
                             "counterfactual would equal it", param="overrides")


def derive_masked_templates(
    templates: Sequence[Template] | None = None,
    *,
    overrides: str | Path | Mapping | None = "shipped",
    total: int = PAPER_TOTAL,
    targets: Mapping[str, int] | str | None = None,
) -> DerivationResult:
    """Apply the three strategies to every stereotype hypothesis, then the curated overrides.

    Parameters
    ----------
    templates : list of Template, optional
        BBNLI templates (:func:`~fairbound.nli.load_templates`); default: the 16 shipped.
    overrides : path, mapping, ``"shipped"`` or None
        The curated override file (``source_fixes``, ``replace``, ``drop``, ``add``);
        ``"shipped"`` uses ``data/bbnli/masked_overrides.json``, ``None`` none.
    total : int
        Templates to keep in all with ``targets="proportional"``.
    targets : mapping, ``"proportional"`` or None
        Subtopic -> templates to keep.  ``None`` (default): the paper's Table 9
        (:func:`paper_targets`), for subtopics it lists; ``"proportional"``: ``total`` split
        in proportion to the stereotype hypotheses of each subtopic.  A subtopic whose
        candidates fall short of its target keeps all of them and is listed in
        ``shortfalls``.

    Returns
    -------
    DerivationResult
        Every candidate, the selection and what was skipped or dropped.

    Raises
    ------
    FairboundError
        An override naming an unknown subtopic or id, or giving a text without exactly one
        ``<MASK>``, with an undefined slot or without a group slot.

    Examples
    --------
    >>> res = derive_masked_templates()
    >>> len(res.selected), len({d.subtopic for d in res.selected})
    (212, 16)
    """
    templates = load_templates() if templates is None else list(templates)
    data = _load_overrides(overrides)
    by_sub = {t.subtopic: t for t in templates}
    for section in ("source_fixes", "replace", "drop", "add"):
        for sub in data.get(section, {}):
            if sub not in by_sub:
                raise FairboundError(f"overrides: {section} names unknown subtopic {sub!r}",
                                     param="overrides")
    if isinstance(targets, str):
        if targets != "proportional":
            raise FairboundError(f"targets: expected a mapping, 'proportional' or None, got "
                                 f"{targets!r}", param="targets")
        targets = proportional_targets({t.subtopic: len(t.stereotype_hypotheses)
                                        for t in templates}, total)
    elif targets is None:
        paper = paper_targets()
        unknown = [t.subtopic for t in templates if t.subtopic not in paper]
        if unknown:
            raise FairboundError(f"targets: subtopic {unknown[0]!r} is not in the paper's "
                                 "Table 9; pass targets= (a mapping) or "
                                 "targets='proportional'", param="targets")
        targets = {t.subtopic: paper[t.subtopic] for t in templates}
    candidates: list[DerivedTemplate] = []
    selected: list[DerivedTemplate] = []
    dropped: list[tuple[str, str, str]] = []
    skipped: list[tuple[str, int, str]] = []
    shortfalls: dict[str, int] = {}
    for t in templates:
        fixes = {int(k): v for k, v in data.get("source_fixes", {}).get(t.subtopic, {}).items()}
        cands: list[DerivedTemplate] = []
        for i, (hyp, true_label, biased_label, _q) in enumerate(t.stereotype_hypotheses):
            source = fixes.get(i, hyp)
            if i in fixes:
                slots_of(source, where=f"overrides: source_fixes {t.subtopic} {i}")
            if not any(s in _GROUPS for s in slots_of(source)):
                skipped.append((t.subtopic, i, "names no group slot (GROUP1/GROUP2)"))
                continue
            made = _rule_candidates(t, i, source, (true_label, biased_label), i in fixes)
            if not made:
                skipped.append((t.subtopic, i, "no content word or placeholder to mask"))
            cands.extend(made)
        ids = {c.id for c in cands}
        for cid, text in data.get("replace", {}).get(t.subtopic, {}).items():
            if cid not in ids:
                raise FairboundError(f"overrides: replace names unknown id {cid!r} of "
                                     f"{t.subtopic}; run the dry run to list ids",
                                     param="overrides")
            _check_masked(text, t, f"replace {t.subtopic} {cid}")
            cands = [c if c.id != cid else DerivedTemplate(**{**c.__dict__, "hypothesis": text,
                                                             "override": "replaced"})
                     for c in cands]
        drops = data.get("drop", {}).get(t.subtopic, {})
        drops = drops if isinstance(drops, Mapping) else dict.fromkeys(drops, "")
        for cid, why in drops.items():
            if cid not in ids:
                raise FairboundError(f"overrides: drop names unknown id {cid!r} of "
                                     f"{t.subtopic}; run the dry run to list ids",
                                     param="overrides")
            dropped.append((t.subtopic, cid, f"override: {why}" if why else "override"))
        cands = [c for c in cands if c.id not in drops]
        added = []
        for k, item in enumerate(data.get("add", {}).get(t.subtopic, [])):
            item = {"hypothesis": item} if isinstance(item, str) else dict(item)
            text = str(item.get("hypothesis", ""))
            _check_masked(text, t, f"add {t.subtopic}[{k}]")
            src = item.get("source")
            if src is not None and not (isinstance(src, int)
                                        and 0 <= src < len(t.stereotype_hypotheses)):
                raise FairboundError(f"overrides: add {t.subtopic}[{k}] source must be the "
                                     f"index of a stereotype hypothesis, got {src!r}",
                                     param="overrides")
            labels = t.stereotype_hypotheses[src][1:3] if src is not None else (1, 2)
            added.append(DerivedTemplate(
                domain=t.domain, subtopic=t.subtopic, id=f"curated:{k:02d}", hypothesis=text,
                strategy=str(item.get("strategy", "curated")), source_index=src,
                source=fixes.get(src, t.stereotype_hypotheses[src][0]) if src is not None
                else "", true_label=labels[0], biased_label=labels[1], rank=-1,
                override="added"))
        cands = added + cands
        # Selection: curated first, then round-robin over the source hypotheses.
        order = sorted(range(len(cands)), key=lambda j: (cands[j].rank, cands[j].source_index
                                                        if cands[j].source_index is not None
                                                        else -1, j))
        seen: set[str] = set()
        kept = []
        for j in order:
            c = cands[j]
            if c.hypothesis in seen:
                dropped.append((t.subtopic, c.id, "duplicate of another candidate"))
                continue
            seen.add(c.hypothesis)
            if len(kept) < targets.get(t.subtopic, 0):
                kept.append(c)
        candidates.extend(cands)
        if len(kept) < targets.get(t.subtopic, 0):
            shortfalls[t.subtopic] = targets[t.subtopic] - len(kept)
        chosen = {c.id for c in kept}
        selected.extend(c for c in cands if c.id in chosen)
    bases = {t.subtopic: f"{t.domain}/{t.subtopic}" for t in templates}
    return DerivationResult(selected=tuple(selected), candidates=tuple(candidates),
                            dropped=tuple(dropped), skipped=tuple(skipped),
                            targets=dict(targets), bases=bases, shortfalls=shortfalls)


def dry_run(result: DerivationResult | None = None) -> str:
    """List every source hypothesis, its candidates and the selection, as plain text.

    Parameters
    ----------
    result : DerivationResult, optional
        Default: :func:`derive_masked_templates` with the shipped overrides.

    Returns
    -------
    str
        One block per subtopic: ``[x]`` marks a selected candidate, ``[ ]`` one left out, with
        its id (the override key), strategy and any override; skipped and dropped items last.

    Examples
    --------
    >>> print(dry_run().splitlines()[0])  # doctest: +ELLIPSIS
    gender/man_is_to_breadwinner: 8 of ... candidates selected (target 8)
    """
    result = derive_masked_templates() if result is None else result
    chosen = {(d.subtopic, d.id) for d in result.selected}
    lines = []
    for sub, base in result.bases.items():
        cands = [c for c in result.candidates if c.subtopic == sub]
        n_sel = sum((sub, c.id) in chosen for c in cands)
        lines.append(f"{base}: {n_sel} of {len(cands)} candidates selected "
                     f"(target {result.targets.get(sub, 0)})")
        by_source: dict[int | None, list[DerivedTemplate]] = {}
        for c in cands:
            by_source.setdefault(c.source_index, []).append(c)
        for src in sorted(by_source, key=lambda s: -1 if s is None else s):
            group = by_source[src]
            head = "  curated (no source)" if src is None else f"  s{src:02d}: {group[0].source}"
            lines.append(head)
            for c in group:
                mark = "x" if (sub, c.id) in chosen else " "
                note = f" ({c.override})" if c.override else ""
                lines.append(f"    [{mark}] {c.id:<24} {c.strategy:<23} {c.hypothesis}{note}")
        for s, i, why in result.skipped:
            if s == sub:
                lines.append(f"  s{i:02d}: skipped, {why}")
        for s, cid, why in result.dropped:
            if s == sub:
                lines.append(f"  {cid}: dropped, {why}")
    return "\n".join(lines)


#: The file in an output folder that lists the masked-template files fairbound wrote there.
MANIFEST_NAME = ".fairbound-manifest"
#: Format version of :data:`MANIFEST_NAME`.
MANIFEST_VERSION = 1
_MANIFEST_FORMAT = "fairbound-masked-templates"


class StaleFileWarning(UserWarning):
    """An output folder holds files that look stale but that fairbound did not record writing."""


def _read_manifest(out: Path) -> list[str] | None:
    """File names the manifest of ``out`` lists, or ``None`` when there is no manifest."""
    path = out / MANIFEST_NAME
    if not path.exists() and not path.is_symlink():
        return None
    must = (f"{str(path)!r} must be a fairbound manifest (JSON with \"format\": "
            f"\"{_MANIFEST_FORMAT}\", \"version\": {MANIFEST_VERSION}, \"files\": [.json "
            f"file names]; delete it to write in this folder)")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FairboundError(f"out_dir: {must}; got an unreadable file ({exc})",
                             param="out_dir") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    files = data.get("files") if isinstance(data, dict) else None
    if (not isinstance(data, dict) or data.get("format") != _MANIFEST_FORMAT
            or data.get("version") != MANIFEST_VERSION or not isinstance(files, list)):
        shown = text if len(text) <= 80 else text[:77] + "..."
        raise FairboundError(f"out_dir: {must}; got {shown!r}", param="out_dir")
    for f in files:
        # Plain names only: a manifest must never lead the writer to delete elsewhere.
        if not (isinstance(f, str) and f.endswith(".json") and not f.startswith(".")
                and "/" not in f and "\\" not in f and Path(f).name == f):
            raise FairboundError(f"out_dir: {must}; got the entry {f!r} in \"files\"",
                                 param="out_dir")
    return list(files)


def _listing(names: Sequence[str], limit: int = 10) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def write_masked_templates(out_dir: str | Path | None = None,
                           result: DerivationResult | None = None) -> list[Path]:
    """Write one masked-template file per subtopic, all or none.

    The files and a manifest (:data:`MANIFEST_NAME`, listing the files written, with a
    format version) are written together: every file goes to a temporary file first and
    only then are all renamed into place, so a failure leaves the folder as it was.  Files
    that an earlier write recorded in the manifest and that this write does not produce
    again are then removed; nothing else in the folder is ever touched.  In a folder
    without a manifest (written by an older fairbound, or someone else's folder) no file
    is removed: a :class:`StaleFileWarning` lists the other ``*.json`` files left alone.

    Parameters
    ----------
    out_dir : path, optional
        Default: the shipped ``data/bbnli/masked`` folder.
    result : DerivationResult, optional
        Default: :func:`derive_masked_templates` with the shipped overrides.

    Returns
    -------
    list of pathlib.Path
        The template files written (not the manifest).

    Raises
    ------
    FairboundError
        ``out_dir`` is a file, a file cannot be written, or the folder's manifest is not
        one this version of fairbound can read.
    """
    result = derive_masked_templates() if result is None else result
    out = Path(out_dir) if out_dir is not None else shipped_template_dir() / "masked"
    if out.exists() and not out.is_dir():
        fail("out_dir", "a folder", str(out), note="it is a file")
    listed = _read_manifest(out) if out.is_dir() else None
    files = result.to_files()
    names = [f"{sub}.json" for sub in files]
    outputs = [("--out-dir", out / f"{sub}.json",
                (json.dumps(content, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
               for sub, content in files.items()]

    def manifest(entries: Sequence[str]) -> bytes:
        return (json.dumps({"format": _MANIFEST_FORMAT, "version": MANIFEST_VERSION,
                            "written_by": "fairbound.nli.derive.write_masked_templates",
                            "files": sorted(entries)}, indent=2) + "\n").encode("utf-8")

    written = write_all_atomic([*outputs, ("--out-dir", out / MANIFEST_NAME, manifest(names))])
    written = [p for p in written if p.name != MANIFEST_NAME]
    if listed is None:
        left = sorted(p.name for p in out.glob("*.json")
                      if p.name not in names and (p.is_file() or p.is_symlink()))
        if left:
            warnings.warn(f"out_dir: {str(out)!r} had no {MANIFEST_NAME}, so fairbound cannot "
                          f"tell which files it wrote there before; left alone "
                          f"{len(left)} other .json file(s) that may be stale: "
                          f"{_listing(left)}", StaleFileWarning, stacklevel=2)
        return written
    kept = []
    for name in sorted(set(listed) - set(names)):
        stale = out / name
        try:
            if stale.is_symlink() or stale.is_file():
                stale.unlink()
        except OSError as exc:
            kept.append(name)
            warnings.warn(f"out_dir: could not remove the stale {str(stale)!r} "
                          f"({exc.strerror or exc}); it stays listed in {MANIFEST_NAME}",
                          StaleFileWarning, stacklevel=2)
    if kept:
        write_text_atomic(out / MANIFEST_NAME, manifest(names + kept).decode("utf-8"))
    return written


def _stale(out_dir: Path | None = None) -> list[str]:
    out = out_dir or shipped_template_dir() / "masked"
    files = derive_masked_templates().to_files()
    stale = [s for s, c in files.items() if not (out / f"{s}.json").is_file()
             or json.loads((out / f"{s}.json").read_text(encoding="utf-8")) != c]
    stale += [p.stem for p in out.glob("*.json") if p.stem not in files]
    return stale


def _with_totals(table: pd.DataFrame, count_cols: Sequence[str]) -> pd.DataFrame:
    """Append one ``(all)`` row per domain and an overall ``(all)``/``(all)`` row."""
    parts = []
    for d, sub in table.groupby("domain", sort=False):
        parts.append(sub)
        tot = sub[list(count_cols)].sum(min_count=1).to_frame().T
        parts.append(tot.assign(domain=d, subtopic="(all)", paper_subtopic="Total"))
    tot = table[list(count_cols)].sum(min_count=1).to_frame().T
    parts.append(tot.assign(domain="(all)", subtopic="(all)", paper_subtopic="Total"))
    return pd.concat(parts, ignore_index=True)[list(table.columns)]


def _paper_frame(subtopics: Sequence[tuple[str, str]], have: Mapping[str, int],
                 paper: Mapping[str, int], col: str, extra: Mapping[str, Sequence] | None = None
                 ) -> pd.DataFrame:
    """Rows in the paper's order (its subtopics first), ``col`` next to ``paper``."""
    order = {PAPER_SUBTOPICS[k]: i for i, k in enumerate(PAPER_TABLE9)}
    doms = {"gender": 0, "race": 1, "religion": 2}
    rows = sorted(subtopics, key=lambda ds: (doms.get(ds[0], 3), ds[0],
                                             order.get(ds[1], len(order)), ds[1]))
    frame = pd.DataFrame({
        "domain": [d for d, _ in rows], "subtopic": [s for _, s in rows],
        "paper_subtopic": [_PAPER_NAME.get(s, "") for _, s in rows],
        **{k: [v[s] for _, s in rows] for k, v in (extra or {}).items()},
        col: [float(have.get(s, 0)) for _, s in rows],
        "paper": [float(paper[_PAPER_NAME[s]]) if s in _PAPER_NAME else np.nan
                  for _, s in rows]})
    out = _with_totals(frame, [*(extra or {}), col, "paper"])
    out["difference"] = out[col] - out["paper"]
    for c in [*(extra or {}), col]:
        out[c] = out[c].astype(int)
    out["paper"] = out["paper"].astype(float)
    return out


def masked_template_counts(templates: Sequence[Template] | None = None) -> pd.DataFrame:
    """Masked templates per subtopic next to the paper's Table 9, cell by cell.

    Parameters
    ----------
    templates : list of Template, optional
        Masked templates (:func:`~fairbound.nli.load_masked_templates`); default: the shipped
        ones.

    Returns
    -------
    pandas.DataFrame
        Columns ``domain``, ``subtopic`` (the BBNLI file name), ``paper_subtopic`` (the
        paper's name, :data:`PAPER_SUBTOPICS`; empty for a subtopic the paper lacks),
        ``bbnli_hypotheses`` (stereotype hypotheses of the BBNLI subtopic),
        ``masked_templates`` (in ``templates``), ``paper`` (Table 9 of Baldini et al. 2023;
        NaN for a subtopic the paper lacks) and ``difference`` (``masked_templates - paper``);
        rows in the paper's order, one ``(all)`` row per domain and an overall
        ``(all)``/``(all)`` row (``paper_subtopic`` "Total").

    Examples
    --------
    >>> c = masked_template_counts()
    >>> row = c[c.paper_subtopic == "Black_is_to_ghetto"].iloc[0]
    >>> row.subtopic, int(row.masked_templates), float(row.paper)
    ('black_is_to_impoverished', 29, 29.0)
    >>> int(c.iloc[-1]["masked_templates"]), float(c.iloc[-1]["paper"])
    (212, 212.0)
    """
    masked = load_masked_templates() if templates is None else list(templates)
    base = load_templates()
    n_hyp = {t.subtopic: len(t.stereotype_hypotheses) for t in base}
    have: Counter[str] = Counter()
    for t in masked:
        have[t.subtopic] += len(t.stereotype_hypotheses)
    subs = list(dict.fromkeys([(t.domain, t.subtopic) for t in base]
                              + [(t.domain, t.subtopic) for t in masked]))
    return _paper_frame(subs, have, PAPER_TABLE9, "masked_templates",
                        extra={"bbnli_hypotheses": {s: n_hyp.get(s, 0) for _, s in subs}})


def masked_sample_counts(templates: Sequence[Template] | None = None,
                         versions: Sequence[str] = ("pro", "anti")) -> pd.DataFrame:
    """Masked samples per subtopic (the expansion of stage 1) next to the paper's Table 10.

    Parameters
    ----------
    templates : list of Template, optional
        Masked templates; default: the shipped ones.
    versions : sequence of {'pro', 'anti'}
        Premise versions expanded; the default (both) is what the paper's Table 10 counts
        ("the expansion ... using the original BBNLI scripts", which render both).

    Returns
    -------
    pandas.DataFrame
        Columns ``domain``, ``subtopic``, ``paper_subtopic``, ``masked_templates``,
        ``masked_samples`` (rows of :func:`~fairbound.nli.expand_templates`), ``paper``
        (Table 10; NaN for a subtopic the paper lacks) and ``difference``, with domain and
        overall totals as in :func:`masked_template_counts`.

    Examples
    --------
    >>> c = masked_sample_counts()
    >>> int(c.iloc[-1]["paper"])
    4156
    """
    from fairbound.nli.expand import expand_templates

    masked = load_masked_templates() if templates is None else list(templates)
    samples = expand_templates(masked, versions=versions).samples
    have = samples["subtopic"].value_counts().to_dict()
    n_tpl: Counter[str] = Counter()
    for t in masked:
        n_tpl[t.subtopic] += len(t.stereotype_hypotheses)
    subs = list(dict.fromkeys((t.domain, t.subtopic) for t in masked))
    return _paper_frame(subs, have, PAPER_TABLE10, "masked_samples",
                        extra={"masked_templates": dict(n_tpl)})


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m fairbound.nli.derive [--dry-run | --write [DIR] | --check]``."""
    parser = argparse.ArgumentParser(prog="python -m fairbound.nli.derive",
                                     description="Derive the BBNLI-next masked templates.")
    parser.add_argument("--dry-run", action="store_true", help="list candidates and choices")
    parser.add_argument("--write", nargs="?", const="", metavar="DIR",
                        help="write the masked templates (default: the shipped folder)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the shipped files differ from a fresh derivation")
    parser.add_argument("--counts", action="store_true", help="print the counts per subtopic")
    args = parser.parse_args(argv)
    if args.write is not None:
        for p in write_masked_templates(args.write or None):
            print(p)
    if args.check:
        stale = _stale()
        if stale:
            print("stale masked templates: " + ", ".join(stale), file=sys.stderr)
            return 1
        print("shipped masked templates are up to date")
    if args.counts:
        print(masked_template_counts().to_string(index=False))
        print(masked_sample_counts().to_string(index=False))
    if args.dry_run or not (args.write is not None or args.check or args.counts):
        print(dry_run())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
