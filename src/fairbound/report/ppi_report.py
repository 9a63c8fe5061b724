"""The HTML page of a prediction-powered audit (:meth:`PPIAuditResult.report`).

A minimal, honest page: what was audited, the assumption every interval rests on, the error
control, one plain-language sentence per comparison, the forest plot, and a table with each
gap's deciding (prediction-powered) interval, the interval from the gold labels alone, the
verdict and the gold labels each would need.  It reads the result's
``"fairbound.ppi_audit/1"`` dictionary, so a saved JSON file gives the same page.
"""

from __future__ import annotations

import math
from pathlib import Path

from fairbound._words import A_DISADVANTAGED, B_DISADVANTAGED, NO_EVIDENCE, NOT_ESTIMABLE
from fairbound.report._common import (
    MORE_DATA_FACTOR,
    NO_FIGURES,
    fci,
    fint,
    fmt_level,
    fnum,
    need_phrase,
    num,
    table_view,
    template_page,
    try_figure,
    verdict_counts,
    write_html,
)
from fairbound.report.audit_report import error_control_sentence
from fairbound.viz.ppi import ppi_dict

DISADVANTAGED = (A_DISADVANTAGED, B_DISADVANTAGED)

TEMPLATE = """{% import "macros.html.j2" as m %}
<section class="audit ppi" id="ppi-1">
<h2>{{ s.heading }}</h2>
{{ m.counts(s) }}
<ul class="findings">{% for cls, f in s.findings %}
<li class="{{ cls }}"{% if loop.first %} data-verdict{% endif %}>{{ f }}</li>{% endfor %}</ul>

<h3 id="ppi-1-forest" class="first-figure">Gaps and intervals</h3>
{{ m.figure(s.forest, s.forest_caption, s.no_figures) }}
<div class="callout control">
<p><strong>Assumption.</strong> Every interval assumes that {{ s.assumption }}.</p>
<p><strong>Error control.</strong> {{ s.control }}</p>
</div>
{% if s.notes %}
<h4>Notes</h4>
<ul>{% for n in s.notes %}<li>{{ n }}</li>{% endfor %}</ul>
{% endif %}
{{ m.table(s.table) }}

<h3 id="ppi-1-what">What was audited</h3>
<dl class="facts">
{% for k, v in s.facts %}<dt>{{ k }}</dt><dd>{{ v }}</dd>
{% endfor %}</dl>
</section>
"""


def _group(x) -> str:
    return "-" if x is None else str(x)


def ppi_sentence(c: dict, *, result: dict | None = None) -> str:
    """One plain-language sentence for a comparison of a prediction-powered audit's JSON.

    Parameters
    ----------
    c : dict
        One entry of the ``"comparisons"`` list of a ``"fairbound.ppi_audit/1"`` dictionary.
    result : dict, optional
        The whole dictionary (unused for now; kept so that the signature matches
        :func:`fairbound.report.comparison_sentence`).

    Returns
    -------
    str

    Examples
    --------
    >>> ppi_sentence({"metric": "equal_opportunity", "rate": "TPR", "group_a": "a",
    ...     "group_b": "b", "rate_a": 0.8, "rate_b": 0.7, "gap": 0.1, "low": -0.02,
    ...     "high": 0.22, "labeled_low": -0.1, "labeled_high": 0.3,
    ...     "verdict": "not enough evidence", "interval_level": 0.95,
    ...     "method": "ppi++ (jackknife)", "gold_labels_needed": 900, "note": ""})
    ... # doctest: +ELLIPSIS
    'Not enough evidence on equal_opportunity (a vs b): TPR 0.800 vs 0.700; gap +0.100, ...'
    """
    del result
    ga, gb = _group(c.get("group_a")), _group(c.get("group_b"))
    name = c["metric"]
    if c["verdict"] == NOT_ESTIMABLE:
        return f"{name} ({c.get('rate')}), {ga} vs {gb}: not estimable ({c.get('note')})."
    lvl = fmt_level(num(c.get("interval_level", c.get("confidence_level"))))
    ci = fci(c.get("low"), c.get("high"), signed=True)
    gold = fci(c.get("labeled_low"), c.get("labeled_high"), signed=True)
    numbers = (f"{c.get('rate')} {fnum(c.get('rate_a'))} vs {fnum(c.get('rate_b'))}; gap "
               f"{fnum(c.get('gap'), signed=True)}, {lvl} CI {ci} ({c.get('method')}); from "
               f"the gold labels alone {gold}")
    if c["verdict"] in DISADVANTAGED:
        who = _group(c.get("disadvantaged"))
        return f"{who} disadvantaged on {name} ({ga} vs {gb}): {numbers}."
    if c["verdict"] != NO_EVIDENCE:
        return f"{name}, {ga} vs {gb}: {c['verdict']}: {numbers}."
    need = num(c.get("gold_labels_needed"))
    have = num(c.get("labeled_a")) + num(c.get("labeled_b"))
    if need == need and need != float("inf"):
        half = (num(c.get("high")) - num(c.get("low"))) / 2
        tail = "; " + need_phrase(
            need, have, f"about {fint(need)} gold labels in all would settle it if the "
            "observed gap were the truth", noun="gold labels",
            # intervals narrow as 1/sqrt(n): the half-width at 10 times the gold labels
            smallest_gap=half / math.sqrt(MORE_DATA_FACTOR))
    elif need == float("inf"):
        tail = "; even labeling every row would not settle it if the observed gap were the truth"
    else:
        tail = ""
    return f"Not enough evidence on {name} ({ga} vs {gb}): {numbers}{tail}."


def _facts(d: dict) -> list[tuple[str, str]]:
    cols = d.get("columns") or {}
    groups = d.get("groups") or []
    gold = sum(int(num(g.get("labeled", 0))) for g in groups)
    rows = sum(int(num(g.get("rows", 0))) for g in groups)
    kind = "finite-sample (guaranteed=True)" if d.get("guaranteed") else "asymptotic (PPI++)"
    return [("Source", str(d.get("source"))),
            ("Group, gold label, proxy, prediction",
             ", ".join(" & ".join(map(str, v)) if isinstance(v, list) else str(v)
                       for v in (cols.get("group"), cols.get("label"), cols.get("proxy"),
                                 cols.get("prediction")))),
            ("Rows, gold labels", f"{fint(rows)} rows, {fint(gold)} with a gold label"),
            ("Intervals", kind),
            ("Comparison", str(d.get("comparison"))),
            ("Level", f"{fmt_level(num(d['confidence_level']))} "
                      f"({d.get('error_control')})")]


def render_ppi_report(result, *, title: str | None = None, figures: bool = True) -> str:
    """The HTML page of a prediction-powered audit.

    Parameters
    ----------
    result : PPIAuditResult, dict or path
        The audit, its ``to_dict()`` form or a JSON file written by ``to_json``.
    title : str, optional
        Page title.
    figures : bool
        Include the forest plot (needs matplotlib).

    Returns
    -------
    str
    """
    d = ppi_dict(result)
    comps = d["comparisons"]
    table = table_view(comps, [
        ("metric", "metric", "text"), ("rate", "rate", "text"),
        ("A", "group_a", lambda c: _group(c.get("group_a"))),
        ("B", "group_b", lambda c: _group(c.get("group_b"))),
        ("gold A", "labeled_a", "int"), ("gold B", "labeled_b", "int"),
        ("gap", "gap", lambda c: fnum(c.get("gap"), signed=True)),
        ("interval", "low", lambda c: fci(c.get("low"), c.get("high"), signed=True)),
        ("level", "interval_level", lambda c: fmt_level(num(c.get("interval_level")))),
        ("gold labels only", "labeled_low", lambda c: fci(c.get("labeled_low"),
                                                          c.get("labeled_high"), signed=True)),
        ("width ratio", "width_ratio", "num"), ("verdict", "verdict", "text"),
        ("gold labels needed", "gold_labels_needed", "int"), ("method", "method", "text")],
        caption="Each gap rate(A) - rate(B) with the interval that decides its verdict and "
                "the interval from the gold-labeled rows alone (same level).", cls="gaps")
    forest = None
    if figures:
        from fairbound.viz.ppi import plot_ppi_forest

        forest = try_figure(lambda: plot_ppi_forest(d), "Forest plot of the gaps")
    return gap_page(d, ppi_sentence, heading="Prediction-powered audit", facts=_facts(d),
                    table=table, forest=forest, figures=figures,
                    forest_caption="Each gap with its deciding interval; filled markers: a "
                                   "verdict.",
                    title=title, default_title="Prediction-powered fairness audit",
                    kicker="fairbound prediction-powered audit",
                    footer="Reproduce with: fairbound.ppi_audit(...).to_json().")


def gap_page(d: dict, sentence, *, heading: str, facts: list, table: dict, forest,
             forest_caption: str, figures: bool, other: str = "bad", **page) -> str:
    """The page of :data:`TEMPLATE`: a gap audit with one deciding interval per comparison.

    The prediction-powered and the proxy-group audits' pages.  ``d`` is the result's
    dictionary; ``sentence(c)`` gives a comparison's finding (disadvantages first, not
    estimable last); a verdict other than a disadvantage, "not enough evidence" or "not
    estimable" is styled ``other``; ``page`` holds :func:`template_page`'s ``title``,
    ``default_title``, ``kicker`` and ``footer``.
    """
    comps = d["comparisons"]
    order = sorted(comps, key=lambda c: (c["verdict"] not in DISADVANTAGED,
                                         c["verdict"] == NOT_ESTIMABLE))
    cls = {A_DISADVANTAGED: "bad", B_DISADVANTAGED: "bad", NO_EVIDENCE: "warn",
           NOT_ESTIMABLE: "na"}
    view = {
        "heading": heading, **verdict_counts(comps, DISADVANTAGED),
        "facts": facts, "assumption": d.get("assumption", ""),
        "control": error_control_sentence(d),
        "findings": [(cls.get(c["verdict"], other), sentence(c)) for c in order],
        "notes": list(d.get("notes") or []), "forest": forest,
        "forest_caption": forest_caption,
        "no_figures": NO_FIGURES if figures else "Figures were left out of this page.",
        "table": table,
    }
    return template_page(TEMPLATE, view, **page)


def write_ppi_report(result, path, *, title: str | None = None, figures: bool = True) -> Path:
    """Write :func:`render_ppi_report` to ``path`` (``.html``).

    Parameters
    ----------
    result : PPIAuditResult, dict or path
        The prediction-powered audit.
    path : str or Path
        Output file.
    title : str, optional
        Page title.
    figures : bool
        Include the forest plot.

    Returns
    -------
    Path
    """
    return write_html(path, render_ppi_report, result, title=title, figures=figures)


__all__ = ["ppi_sentence", "render_ppi_report", "write_ppi_report"]
