"""BBNLI template expansion: premise x hypothesis x filler combinations, pro and anti versions."""

from __future__ import annotations

import itertools
import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from fairbound._validate import check_choices
from fairbound.errors import FairboundError
from fairbound.nli.templates import LABELS, Template, render, slots_of

__all__ = ["SAMPLE_COLUMNS", "ExpansionResult", "UndefinedSlotWarning", "expand_templates",
           "expansion_counts"]

#: Columns of an expanded sample table, in order.
SAMPLE_COLUMNS: tuple[str, ...] = (
    "sample_id", "pair_id", "domain", "subtopic", "premise_id", "version", "premise",
    "hypothesis_type", "hypothesis", "question", "true_label", "bias_label", "reference",
    "hypothesis_template", "fillers",
)
_TYPES = ("test", "stereotypical", "anti-stereotypical")
_VERSIONS = ("pro", "anti")


class UndefinedSlotWarning(UserWarning):
    """A template uses a slot its ``data`` does not define; the slot renders as empty text."""


@dataclass(frozen=True)
class ExpansionResult:
    """Expanded BBNLI samples.

    Attributes
    ----------
    samples : pandas.DataFrame
        One row per (premise, hypothesis) sample, columns :data:`SAMPLE_COLUMNS`.
        ``hypothesis_type`` is ``test``, ``stereotypical`` (groups as given) or
        ``anti-stereotypical`` (groups swapped in premise and hypothesis); labels are names
        (``contradiction``/``neutral``/``entailment``), ``bias_label`` is empty for test rows.
        ``pair_id`` links a sample of the ``pro`` version to its counterfactual in the ``anti``
        version.
    warnings : tuple of str
        One line per (template, undefined slot).
    """

    samples: pd.DataFrame = field(repr=False)
    warnings: tuple[str, ...] = ()

    def counts(self) -> pd.DataFrame:
        """Count samples per domain, subtopic and type, with totals (:func:`expansion_counts`)."""
        return expansion_counts(self.samples)

    def to_frame(self) -> pd.DataFrame:
        """Return the sample table (a copy)."""
        return self.samples.copy()

    def to_dict(self) -> dict:
        """Return counts and warnings as plain Python objects."""
        return {"n_samples": int(len(self.samples)),
                "counts": self.counts().to_dict(orient="records"),
                "warnings": list(self.warnings)}


def expansion_counts(samples: pd.DataFrame) -> pd.DataFrame:
    """Count samples per domain, subtopic and hypothesis type.

    Parameters
    ----------
    samples : pandas.DataFrame
        An expanded sample table.

    Returns
    -------
    pandas.DataFrame
        Columns ``domain``, ``subtopic``, ``test``, ``stereotypical``, ``anti-stereotypical``,
        ``total``; one row per subtopic, then one ``(all)`` row per domain and an overall
        ``(all)``/``(all)`` row.

    Examples
    --------
    >>> from fairbound.nli import expand_templates, load_templates
    >>> c = expand_templates(load_templates(subtopics=["man_is_to_breadwinner"])).counts()
    >>> int(c.iloc[-1]["total"])
    136
    """
    tab = (samples.groupby(["domain", "subtopic", "hypothesis_type"], sort=True).size()
           .unstack("hypothesis_type", fill_value=0)
           .reindex(columns=list(_TYPES), fill_value=0))
    tab["total"] = tab.sum(axis=1)
    out = with_domain_totals(tab.reset_index())
    out.columns.name = None
    return out


def with_domain_totals(tab: pd.DataFrame) -> pd.DataFrame:
    """Counts by ``domain`` and ``subtopic`` with a ``"(all)"`` row per domain and overall.

    ``tab`` holds the columns ``domain``, ``subtopic`` and then counts; each domain's rows
    are followed by their sum (subtopic ``"(all)"``), and the last row sums everything
    (domain and subtopic ``"(all)"``).  The counts come back as ints.
    """
    def total(rows, domain):
        row = rows.drop(columns=["domain", "subtopic"]).sum().to_frame().T
        row.insert(0, "subtopic", "(all)")
        row.insert(0, "domain", domain)
        return row

    parts = []
    for domain, sub in tab.groupby("domain", sort=True):
        parts += [sub, total(sub, domain)]
    parts.append(total(tab, "(all)"))
    out = pd.concat(parts, ignore_index=True)
    for c in out.columns[2:]:
        out[c] = out[c].astype(int)
    return out


def _validate_expand(templates, versions) -> tuple[list[Template], tuple[str, ...]]:
    if isinstance(templates, Template):
        templates = [templates]
    templates = list(templates)
    if not templates:
        raise FairboundError("templates: got an empty list of templates", param="templates")
    for t in templates:
        if not isinstance(t, Template):
            raise FairboundError(f"templates: expected Template objects (load_templates), got "
                                 f"{type(t).__name__}", param="templates")
    return templates, check_choices(versions, _VERSIONS, "versions")


def expand_templates(
    templates: Template | Sequence[Template],
    *,
    versions: Sequence[str] = ("pro", "anti"),
) -> ExpansionResult:
    """Expand BBNLI templates into NLI samples, as the BBNLI release does.

    For every premise template, every hypothesis and every combination of the filler values of
    the slots that premise, hypothesis and question use, render a ``pro`` version (groups as
    given) and an ``anti`` version (``GROUP1`` and ``GROUP2`` swapped in premise and
    hypothesis).  Test hypotheses keep their own label; stereotype hypotheses have true label
    neutral and biased label entailment and are typed ``stereotypical`` in the pro version and
    ``anti-stereotypical`` in the anti version.

    Parameters
    ----------
    templates : Template or list of Template
        From :func:`~fairbound.nli.load_templates` or
        :func:`~fairbound.nli.load_masked_templates`.
    versions : sequence of {'pro', 'anti'}
        Which versions to render.

    Returns
    -------
    ExpansionResult
        The samples, their counts and the undefined-slot warnings.

    Warns
    -----
    UndefinedSlotWarning
        When a template uses a slot its ``data`` does not define; it renders as empty text.

    Notes
    -----
    The BBNLI script renders the full Cartesian product of all filler lists and then drops rows
    identical in every column, so combinations differing only in slots a row does not use
    collapse.  Enumerating only the slots a row uses yields the same rows directly; repeated
    filler values are collapsed too.  ``pair_id`` is ``subtopic/pNN/{t|s}NN/fNNN`` (premise,
    test or stereotype hypothesis, filler combination) and ``sample_id`` appends the version.

    References
    ----------
    .. [1] Akyürek et al. "On Measuring Social Biases in Prompt-Based Multi-Task Learning."
       Findings of NAACL 2022 (``json2csv.py`` of https://github.com/feyzaakyurek/bbnli).

    Examples
    --------
    >>> from fairbound.nli import expand_templates, load_templates
    >>> res = expand_templates(load_templates(subtopics=["man_is_to_breadwinner"]))
    >>> res.samples["hypothesis_type"].value_counts().to_dict()
    {'stereotypical': 48, 'anti-stereotypical': 48, 'test': 40}
    """
    templates, versions = _validate_expand(templates, versions)
    rows: list[tuple] = []
    messages: list[str] = []
    for t in templates:
        fill = t.filler_dict
        undefined: dict[str, None] = {}
        hyps = [("t", i, h, LABELS[lab], None, q)
                for i, (h, lab, q) in enumerate(t.test_hypotheses)]
        hyps += [("s", i, h, LABELS[lab], LABELS[blab], q)
                 for i, (h, lab, blab, q) in enumerate(t.stereotype_hypotheses)]
        for pi, premise in enumerate(t.premises):
            p_slots = slots_of(premise)
            ref = t.references[pi] if pi < len(t.references) else ""
            for kind, hi, hyp, lab, blab, question in hyps:
                used = list(dict.fromkeys(p_slots + slots_of(hyp) + slots_of(question)))
                for s in used:
                    if s not in fill and s not in ("GROUP1", "GROUP2"):
                        undefined.setdefault(s, None)
                keys = [k for k in fill if k in used]
                combos = list(dict.fromkeys(itertools.product(*(fill[k] for k in keys))))
                for ci, combo in enumerate(combos):
                    values = dict(zip(keys, combo, strict=True))
                    pair_id = f"{t.subtopic}/p{pi:02d}/{kind}{hi:02d}/f{ci:03d}"
                    for version in versions:
                        g1, g2 = (t.group1, t.group2) if version == "pro" else (t.group2, t.group1)
                        m = {**values, "GROUP1": g1, "GROUP2": g2}
                        htype = ("test" if kind == "t" else
                                 "stereotypical" if version == "pro" else "anti-stereotypical")
                        rows.append((
                            f"{pair_id}/{version}", pair_id, t.domain, t.subtopic, pi, version,
                            render(premise, m), htype, render(hyp, m), render(question, m), lab,
                            blab, ref, hyp, json.dumps(values, sort_keys=True),
                        ))
        for s in undefined:
            msg = (f"{t.subtopic}: slot {{{{{s}}}}} is used but not defined in 'data'; "
                   "it renders as empty text")
            messages.append(msg)
            warnings.warn(msg, UndefinedSlotWarning, stacklevel=2)
    samples = pd.DataFrame(rows, columns=list(SAMPLE_COLUMNS))
    samples["premise_id"] = samples["premise_id"].astype(int)
    return ExpansionResult(samples=samples, warnings=tuple(messages))
