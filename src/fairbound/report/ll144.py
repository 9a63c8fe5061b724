"""A bias-audit report in the NYC Local Law 144 layout: HTML and CSV.

For each category (a group column such as sex or race/ethnicity) and their intersection:
the number of applicants, the selection (or scoring) rate and the impact ratio, as the
law's rules ask, plus what fairbound adds: an interval for every impact ratio, a verdict
relative to the threshold (0.8, the four-fifths rule) that holds for the whole category
at the stated level, and the number of examples that would settle an open question.
Categories under 2% of the data are listed apart with their counts and rates.

The page uses the audit report's machinery (:mod:`fairbound.report._common`): one
self-contained file, CSS inlined, the figure embedded as an inert SVG image, no scripts, a
Content-Security-Policy that forbids every network load, and every user string (group
names, columns, the source text) escaped by the template engine.  It reads only the
``"fairbound.ll144/1"`` / ``"fairbound.impact/1"`` dictionaries, so a saved JSON can be
rendered without the data.

Not legal advice.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from fairbound._io import escape_cell
from fairbound._words import ADVERSE, NO_ADVERSE, NO_EVIDENCE, NOT_ESTIMABLE
from fairbound.report._common import (
    MORE_DATA_FACTOR,
    NO_FIGURES,
    fint,
    fmt_level,
    fnum,
    have_matplotlib,
    need_phrase,
    num,
    table_view,
    template_page,
    try_figure,
    write_html,
)
from fairbound.viz.ratios import ll144_dict

NOT_LEGAL_ADVICE = "This report is not legal advice."

SCOPE = (
    "It computes the numbers that the four-fifths rule "
    "(EEOC Uniform Guidelines, 1978) and New York City Local Law 144 of 2021 (rules of the "
    "Department of Consumer and Worker Protection, 6 RCNY 5-300) describe, from the data "
    "given. Whether an audit satisfies the law (who may perform it, which data it must "
    "use, what must be published and when) is for the employer, the independent auditor "
    "and their counsel to decide.")

WHAT_IS_ADDED = (
    "The law asks for selection (or scoring) rates and impact ratios. They are point "
    "estimates: with a few dozen applicants in a category, a ratio of 0.7 or 0.9 can be "
    "chance. fairbound adds an interval for every impact ratio and a verdict: evidence of "
    "adverse impact (the whole interval lies below the threshold), evidence of no adverse "
    "impact (it lies above), or not enough evidence, with the number of applicants that "
    "would settle it.")

TEMPLATE = """{% import "macros.html.j2" as m %}
<section class="audit ll144" id="ll144">
<p class="counts">{{ s.n_categories }} categories &middot;
<span class="badge bad">{{ s.n_adverse }} evidence of adverse impact</span>
<span class="badge ok">{{ s.n_no_adverse }} evidence of no adverse impact</span>
<span class="badge warn">{{ s.n_open }} not enough evidence</span>
{% if s.n_na %}<span class="badge na">{{ s.n_na }} not estimable</span>{% endif %}</p>

<h2 id="ll144-findings">Findings</h2>
{% if s.findings_adverse %}
<h4>Evidence of adverse impact</h4>
<ul class="findings">{% for f in s.findings_adverse %}
<li class="bad"{% if loop.first %} data-verdict{% endif %}>{{ f }}</li>{% endfor %}</ul>
{% else %}
<p class="lead" data-verdict>No impact ratio's interval lies entirely below
{{ s.threshold }}: the data show no adverse impact at the stated level. "Not enough
evidence" is not evidence of no adverse impact.</p>
{% endif %}
{% if s.findings_ok %}
<h4>Evidence of no adverse impact</h4>
<ul class="findings">{% for f in s.findings_ok %}<li class="ok">{{ f }}</li>{% endfor %}</ul>
{% endif %}
{% if s.findings_open %}
<h4>Not enough evidence</h4>
<ul class="findings">{% for f in s.findings_open %}<li class="warn">{{ f }}</li>{% endfor %}</ul>
{% endif %}

<h2 id="ll144-forest">Impact ratios with their intervals</h2>
{{ m.figure(s.fig, s.fig_caption, s.no_figures) }}

<div class="callout">
<p><strong>{{ s.legal }}</strong> {{ s.scope }}</p>
<p><strong>What fairbound adds.</strong> {{ s.added }}</p>
</div>

<h2 id="ll144-what">The data</h2>
<dl class="facts">
{% for k, v in s.facts %}<dt>{{ k }}</dt><dd>{{ v }}</dd>
{% endfor %}</dl>

{% for c in s.categories %}
<h2 id="ll144-cat-{{ loop.index }}">Category: {{ c.name }}</h2>
<p>{{ c.intro }}</p>
{{ m.table(c.table) }}
{% if c.small %}
<h4>Under {{ c.min_share }} of the data: not in the impact ratios</h4>
{{ m.table(c.small) }}
{% endif %}
{% endfor %}

<h2 id="ll144-methods">Methods: what the intervals guarantee</h2>
<div class="callout">
{% for name, text in s.methods %}<p><strong>{{ name }}.</strong> {{ text }}</p>
{% endfor %}
</div>
</section>
"""

METHOD_TEXT = {
    "exact": ("Exact unconditional interval for a ratio of two proportions (score test, "
              "Berger-Boos): its coverage is at least the stated level for every sample "
              "size (finite-sample guarantee); conservative, like every exact method for "
              "counts."),
    "koopman": ("Koopman's (1984) asymptotic score interval for a ratio of two proportions: "
                "close to the stated level for moderate counts, without a finite-sample "
                "guarantee."),
    "katz": ("Katz's (1978) log interval for a ratio of two proportions: asymptotic; it can "
             "fall well below the stated level for small counts."),
}


def _g(x) -> str:
    return "missing" if x is None else str(x)


def _ratio_text(x) -> str:
    v = num(x)
    return "-" if math.isnan(v) else ("inf" if math.isinf(v) else f"{v:.3f}")


def _interval_text(r: dict) -> str:
    lo, hi = num(r.get("low")), num(r.get("high"))
    if r.get("high_infinite"):
        hi = math.inf
    if math.isnan(lo) or math.isnan(hi):
        return "-"
    return f"[{_ratio_text(lo)}, {_ratio_text(hi)}]"


def _versus_text(c: dict) -> str:
    if c["versus"] == "highest":
        return f"the group with the highest rate ({_g(c.get('highest'))})"
    if c["versus"] == "reference":
        return f"the reference group ({_g(c.get('reference'))})"
    return "the other group of the pair (lower rate over higher)"


def ratio_sentence(c: dict, r: dict) -> str:
    """One plain-language sentence about an impact ratio (dictionary forms).

    Parameters
    ----------
    c : dict
        The category (``ImpactRatioResult.to_dict()``).
    r : dict
        One of its ``ratios``.

    Examples
    --------
    >>> c = {"category": "sex", "rate_name": "selection rate", "versus": "highest",
    ...      "highest": "M", "threshold": 0.8, "confidence_level": 0.95,
    ...      "error_control": "family"}
    >>> r = {"group": "F", "versus": "M", "rate": 0.3, "rate_versus": 0.5, "ratio": 0.6,
    ...      "low": 0.46, "high": 0.77, "verdict": "evidence of adverse impact", "n": 200}
    >>> print(ratio_sentence(c, r))  # doctest: +NORMALIZE_WHITESPACE
    sex = F: selection rate 0.300 against 0.500 for M, an impact ratio of 0.600
    [0.460, 0.770]; the whole interval is below 0.8 (evidence of adverse impact).
    """
    g = _g(r.get("group"))
    head = (f"{c['category']} = {g}: {c['rate_name']} {fnum(r.get('rate'))} against "
            f"{fnum(r.get('rate_versus'))} for {_g(r.get('versus'))}, an impact ratio of "
            f"{_ratio_text(r.get('ratio'))} {_interval_text(r)}")
    thr = f"{num(c['threshold']):g}"
    v = r["verdict"]
    if v == ADVERSE:
        return f"{head}; the whole interval is below {thr} (evidence of adverse impact)."
    if v == NO_ADVERSE:
        return f"{head}; the whole interval is above {thr} (evidence of no adverse impact)."
    if v == NOT_ESTIMABLE:
        return f"{c['category']} = {g}: not estimable ({r.get('note')})."
    need = num(r.get("required_n"))
    more = ""
    if math.isfinite(need):
        have = num(r.get("n")) + num(r.get("n_versus"))
        shown = ""
        lo, hi = num(r.get("low")), num(r.get("high"))
        if lo > 0 and math.isfinite(hi) and hi > lo:
            # intervals narrow as 1/sqrt(n) on the log scale
            h = (math.log(hi) - math.log(lo)) / 2 / math.sqrt(MORE_DATA_FACTOR)
            t = num(c["threshold"])
            shown = (f"an impact ratio below {t * math.exp(-h):.3f} or above "
                     f"{t * math.exp(h):.3f} against {thr}")
        text = need_phrase(need, have, f"About {fint(need)} applicants in the two groups at "
                           "these rates would settle it", noun="applicants", shown=shown)
        more = " " + text[0].upper() + text[1:] + "."
    return f"{head}; the interval contains {thr} (not enough evidence).{more}"


def _control_text(c: dict) -> str:
    level = fmt_level(c["confidence_level"])
    each = fmt_level(c["interval_level"])
    m = c["n_tests"]
    if c["error_control"] == "family":
        what = {"highest": "every pair of groups, because the highest group is itself "
                           "chosen from the data",
                "reference": "every group against the reference",
                "pairwise": "every pair of groups"}[c["versus"]]
        n = f"{m} pairwise interval" + ("s" if m != 1 else "")
        return (f"Family-wise: {n} ({what}) at {each} each (Bonferroni), so with probability "
                f"at least {level} every verdict of this category holds together.")
    if c["error_control"] == "fdr":
        return (f"False discovery rate: Benjamini-Hochberg over {m} intervals at "
                f"{fmt_level(1 - c['confidence_level'])}, each a false-coverage-rate interval "
                f"at {each}; on average at most that share of the adverse-impact findings "
                "of this category are false.")
    return (f"None: each row's interval holds at {level} on its own (pairwise intervals at "
            f"{each}); across the category some false claims are to be expected.")


def _facts(d: dict) -> list[tuple[str, str]]:
    first = d["categories"][0] if d["categories"] else {}
    cols = first.get("columns") or {}
    dates = d.get("date_range")
    if dates:
        date_text = f"{dates[0]} to {dates[1]}"
        if d.get("date_column"):
            date_text += f" (column {d['date_column']})"
    else:
        date_text = "not given (use date_column= / --date-column)"
    excluded = {}
    for c in d["categories"]:
        for k, v in (c.get("excluded") or {}).items():
            excluded.setdefault(f"{k} ({c['category']})", v)
    fav = first.get("favourable", "positive")
    pos = _g(first.get("positive"))
    if cols.get("score"):
        decision = (f"score {cols['score']} above the median of all rows "
                    f"({fnum(first.get('score_median'), 4).rstrip('0').rstrip('.')})")
    elif pos in ("1", "True"):
        decision = f"{cols.get('prediction')} is 1 / true"
    else:
        decision = f"{cols.get('prediction')} = {pos}"
    outcome = (f"{decision} (favourable)" if fav == "positive" else
               f"not ({decision}): the positive prediction is harmful, so the rate compared "
               "is that of the favourable outcome")
    facts = [("Data source", _g(d.get("data_source"))), ("Date range", date_text),
             ("Rows scanned", fint(first.get("n_rows"))),
             ("Excluded", ", ".join(f"{fint(v)} {k}" for k, v in excluded.items()) or "none"),
             ("Categories", ", ".join(_g(c.get("category")) for c in d["categories"])),
             ("Outcome counted", outcome),
             ("Rate", f"{first.get('rate_name')} over {first.get('rows')}")]
    if cols.get("label"):
        facts.append(("Label column", str(cols["label"])))
    vs = {c.get("versus") for c in d["categories"]}
    ratio_text = {"highest": "rate of the group / the highest rate in its category",
                  "reference": "rate of the group / rate of the reference group",
                  "pairwise": "lower rate / higher rate, for every pair"}
    facts += [("Impact ratio", "; ".join(ratio_text.get(v, v) for v in sorted(vs))),
              ("Threshold", f"{num(first.get('threshold')):g}"),
              ("Confidence level", f"{fmt_level(first.get('confidence_level'))} "
                                   f"({first.get('error_control')}, per category)"),
              ("Interval method", f"{first.get('method')} ({first.get('guarantee')})"),
              ("Engine", _g(first.get("engine")))]
    return facts


def _category_view(c: dict, i: int) -> dict:
    lvl = fmt_level(c["interval_level"])
    share = {_g(g["group"]): g["share"] for g in c.get("groups", [])}
    rows_by = {_g(g["group"]): g["rows"] for g in c.get("groups", [])}
    label = c["rate_name"]
    selection = c["rows"] == "all rows"
    cols = [("group" if c["versus"] != "pairwise" else "group (lower rate)",
             lambda r: _g(r.get("group")), None),
            ("applicants", lambda r: fint(rows_by.get(_g(r.get("group")))), "int"),
            ("share", lambda r: _pct_text(share.get(_g(r.get("group")))), "int")]
    if not selection:
        cols.append((f"n ({c['rows']})", lambda r: fint(r.get("n")), "int"))
    cols += [("favourable outcomes", lambda r: fint(r.get("count")), "int"),
             (label, lambda r: fnum(r.get("rate")), "int")]
    if c["versus"] == "pairwise":
        cols.append(("compared with", lambda r: _g(r.get("versus")), None))
    cols += [("impact ratio", lambda r: _ratio_text(r.get("ratio")), "int"),
             ("interval", _interval_text, "int"),
             ("verdict", lambda r: r["verdict"], None),
             ("n needed", lambda r: fint(r.get("required_n")), "int"),
             ("note", lambda r: r.get("note") or "", None)]
    table = table_view(
        c["ratios"], [(t, "", f) for t, f, _k in cols], cls="rates",
        caption=(f"Impact ratio = {label} of the group / {label} of {_versus_text(c)}. "
                 f"Intervals: {c['method']}, each at {lvl}. {_control_text(c)} n needed: "
                 "applicants in the group and its comparison group (at their current shares) "
                 "at which the interval would exclude the threshold if the observed rates "
                 "were the truth (approximate)."))
    for col, (_t, _f, kind) in zip(table["columns"], cols, strict=True):
        col["num"] = kind == "int"
    small = None
    if c.get("small_groups"):
        small_cols = [("group", "", lambda g: _g(g.get("group"))),
                      ("applicants", "rows", "int"),
                      ("share", "", lambda g: _pct_text(g.get("share")))]
        if not selection:
            small_cols.append((f"n ({c['rows']})", "n", "int"))
        small_cols += [("favourable outcomes", "count", "int"), (label, "rate", "num")]
        small = table_view(
            c["small_groups"], small_cols,
            cls="groups",
            caption=(f"Groups with less than {_pct_text(c['min_share'])} of the rows: counted "
                     "and listed, left out of the impact ratios (the rules of Local Law 144 "
                     "allow an auditor to exclude such categories from the impact ratio, "
                     "and require the number of applicants in them to be reported)."))
        small["columns"][2]["num"] = True
    intro = (f"{fint(sum(g['rows'] for g in c.get('groups', [])))} applicants with a value "
             f"of {c['category']} in {len(c.get('groups', []))} groups; "
             f"{fint(c.get('unknown', 0))} with an unknown {c['category']} (a missing value: "
             "counted here, not in the table).")
    return {"name": _g(c["category"]), "table": table, "small": small, "intro": intro,
            "min_share": _pct_text(c["min_share"]), "id": i}


def _pct_text(x) -> str:
    """A share as a percentage with the digits a small one needs (``2%``, ``0.28%``).

    Examples
    --------
    >>> _pct_text(0.02), _pct_text(0.0028), _pct_text(0.088), _pct_text(0.5123)
    ('2%', '0.28%', '8.8%', '51%')
    """
    v = num(x)
    if math.isnan(v):
        return "-"
    digits = 2 if v < 0.01 else (1 if v < 0.1 else 0)
    text = f"{v * 100:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + "%"


def render_ll144_report(result, *, title: str | None = None, figures: bool = True) -> str:
    """Render a bias audit in the Local Law 144 layout as one self-contained HTML page.

    Parameters
    ----------
    result : LL144Audit, ImpactRatioResult, dict, list or path
        See :func:`fairbound.viz.ratios.ll144_dict`.
    title : str, optional
        Page title.
    figures : bool
        Include the forest plot (needs matplotlib; left out with a note otherwise).

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound.audits.ratios.audit import impact_ratios
    >>> df = pd.DataFrame({"g": ["<b>x</b>"] * 100 + ["y"] * 100, "p": [1, 0] * 100})
    >>> html = render_ll144_report(impact_ratios(df, group="g", prediction="p"),
    ...                            figures=False)
    >>> "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    True
    """
    d = ll144_dict(result)
    cats = d["categories"]
    pairs = [(c, r) for c in cats for r in c["ratios"]]

    def count(v):
        return sum(1 for _c, r in pairs if r["verdict"] == v)

    methods = []
    for name in sorted({c["method"] for c in cats}):
        methods.append((f"Interval ({name})", METHOD_TEXT.get(name, "")))
    for c in cats:
        methods.append((f"Error control ({c['category']})", _control_text(c)))
    if any(c["versus"] == "highest" for c in cats):
        methods.append((
            "The highest group is chosen from the data",
            "The rule divides by the rate of the group with the highest rate, and which "
            "group that is is itself estimated. So an interval is computed for every pair of "
            "groups, together; each group's interval is for the ratio of its rate to the "
            "highest true rate, whichever group has it (the smallest of its pairwise bounds, "
            "capped at 1). The verdicts hold whichever group truly has the highest rate, and "
            "the highest group's own interval can reach below the threshold when another "
            "group's rate is close to it."))
    methods.append((
        "Does not guarantee",
        "The intervals cover sampling error only, for applicants who are independent draws "
        "with one rate per group. They do not correct for a non-representative sample, "
        "wrong or missing category labels (rows with a missing category are excluded and "
        "counted above), or a change in the tool during the period. 'Not enough evidence' "
        "is not a finding of no adverse impact."))
    lvl = sorted({fmt_level(c["confidence_level"]) for c in cats})
    view = {
        "legal": NOT_LEGAL_ADVICE, "scope": SCOPE, "added": WHAT_IS_ADDED,
        "n_categories": len(cats),
        "n_adverse": count(ADVERSE), "n_no_adverse": count(NO_ADVERSE),
        "n_open": count(NO_EVIDENCE), "n_na": count(NOT_ESTIMABLE),
        "facts": _facts(d) if cats else [],
        "threshold": f"{num(cats[0]['threshold']):g}" if cats else "0.8",
        "findings_adverse": [ratio_sentence(c, r) for c, r in pairs if r["verdict"] == ADVERSE],
        "findings_open": [ratio_sentence(c, r) for c, r in pairs
                          if r["verdict"] in (NO_EVIDENCE, NOT_ESTIMABLE)],
        "findings_ok": [ratio_sentence(c, r) for c, r in pairs if r["verdict"] == NO_ADVERSE],
        "categories": [_category_view(c, i) for i, c in enumerate(cats)],
        "methods": methods, "fig": None,
        "no_figures": NO_FIGURES if figures else ("The figure was left out on request; the "
                                                  "tables below hold every number."),
        "fig_caption": (
            f"Each group's impact ratio (dot) with its interval (line; {', '.join(lvl)} "
            "family-wise per category), on a log scale. Dashed red line: the threshold; "
            "black line: equal rates. Filled red: the interval lies below the threshold "
            "(evidence of adverse impact); filled blue: above it (evidence of no adverse "
            "impact); hollow: not enough evidence. Arrows: the interval reaches past the "
            "edge. Groups under the minimum share are not drawn; the tables list them."),
    }
    if figures and have_matplotlib() and pairs:
        from fairbound.viz.ratios import plot_impact_ratios

        view["fig"] = try_figure(lambda: plot_impact_ratios(d), "Impact ratios by group")
    toc = [{"id": "ll144-findings", "title": "Findings"},
           {"id": "ll144-forest", "title": "Impact ratios with their intervals"},
           {"id": "ll144-what", "title": "The data"}]
    toc += [{"id": f"ll144-cat-{i + 1}", "title": f"Category: {_g(c['category'])}"}
            for i, c in enumerate(cats)]
    toc.append({"id": "ll144-methods", "title": "Methods"})
    return template_page(TEMPLATE, view, title=title,
                         default_title="Bias audit: impact ratios (NYC Local Law 144 layout)",
                         kicker="fairbound bias audit", toc=toc,
                         footer="Reproduce with: fairbound impact --format json. "
                                "Not legal advice.")


def write_ll144_report(result, path, *, title: str | None = None,
                       figures: bool = True) -> Path:
    """Write :func:`render_ll144_report` to ``path`` (``.html``).

    Returns
    -------
    Path
    """
    return write_html(path, render_ll144_report, result, title=title, figures=figures)


#: The ``group`` cell of the row counting applicants whose category is unknown.
UNKNOWN = "(unknown)"

CSV_COLUMNS = ("category", "group", "applicants", "share", "in_impact_ratios", "rate_name",
               "rate_rows", "n", "favourable_count", "rate", "compared_with",
               "rate_compared_with", "impact_ratio", "ci_low", "ci_high", "interval_level",
               "confidence_level", "error_control", "method", "threshold", "verdict",
               "n_needed", "note", "data_source", "date_from", "date_to")



def _cell(v):
    """A CSV cell: numbers as they are, text that a spreadsheet would run made inert."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return ""
        return "inf" if math.isinf(v) else repr(v)
    if isinstance(v, int):
        return str(v)
    return escape_cell(str(v))  # the one spreadsheet escape of every fairbound CSV


def ll144_records(result) -> list[dict]:
    """The rows of the Local Law 144 table (one per impact ratio, then each small group).

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound.audits.ratios.audit import impact_ratios
    >>> df = pd.DataFrame({"g": ["a"] * 100 + ["b"] * 100, "p": [1, 0] * 100})
    >>> [r["group"] for r in ll144_records(impact_ratios(df, group="g", prediction="p"))]
    ['a', 'b']
    """
    d = ll144_dict(result)
    dates = d.get("date_range") or (None, None)
    out = []
    for c in d["categories"]:
        by = {_g(g["group"]): g for g in c.get("groups", [])}
        common = {"category": c["category"], "rate_name": c["rate_name"],
                  "rate_rows": c["rows"], "confidence_level": c["confidence_level"],
                  "error_control": c["error_control"], "method": c["method"],
                  "threshold": c["threshold"], "data_source": d.get("data_source"),
                  "date_from": dates[0], "date_to": dates[1]}
        for r in c["ratios"]:
            g = by.get(_g(r.get("group")), {})
            hi = math.inf if r.get("high_infinite") else r.get("high")
            out.append({**common, "group": r.get("group"), "applicants": g.get("rows"),
                        "share": g.get("share"), "in_impact_ratios": True, "n": r.get("n"),
                        "favourable_count": r.get("count"), "rate": r.get("rate"),
                        "compared_with": r.get("versus"),
                        "rate_compared_with": r.get("rate_versus"),
                        "impact_ratio": r.get("ratio"), "ci_low": r.get("low"),
                        "ci_high": hi, "interval_level": r.get("interval_level"),
                        "verdict": r["verdict"], "n_needed": r.get("required_n"),
                        "note": r.get("note") or None})
        for g in c.get("small_groups", []):
            out.append({**common, "group": g.get("group"), "applicants": g.get("rows"),
                        "share": g.get("share"), "in_impact_ratios": False, "n": g.get("n"),
                        "favourable_count": g.get("count"), "rate": g.get("rate"),
                        "verdict": f"under {_pct_text(c['min_share'])} of the data: not in "
                                   "the impact ratios"})
        if c.get("unknown"):
            out.append({**common, "group": UNKNOWN, "applicants": c["unknown"],
                        "in_impact_ratios": False,
                        "verdict": "unknown category (missing value): not in the impact "
                                   "ratios"})
    return out


def render_ll144_csv(result) -> str:
    """The Local Law 144 table as CSV text (columns :data:`CSV_COLUMNS`).

    Text cells that a spreadsheet would read as a formula get a leading ``'``
    (:func:`fairbound._io.escape_cell`); an infinite upper end is written ``inf``.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound.audits.ratios.audit import impact_ratios
    >>> df = pd.DataFrame({"g": ["=a"] * 100 + ["b"] * 100, "p": [1, 0] * 100})
    >>> text = render_ll144_csv(impact_ratios(df, group="g", prediction="p"))
    >>> text.splitlines()[1].split(",")[:3]
    ['g', "'=a", '100']
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in ll144_records(result):
        w.writerow([_cell(r.get(k)) for k in CSV_COLUMNS])
    return buf.getvalue()


__all__ = ["CSV_COLUMNS", "NOT_LEGAL_ADVICE", "ll144_records", "ratio_sentence",
           "render_ll144_csv", "render_ll144_report", "write_ll144_report"]
