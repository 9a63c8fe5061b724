"""The HTML report of a score audit: AUC, calibration and threshold sweeps by group.

The page follows the audit report's machinery (:mod:`fairbound.report._common`): one
self-contained file, CSS inlined, figures embedded as inert SVG images, no scripts, a
Content-Security-Policy that forbids every network load, and every user string (group
names, columns, file names) escaped by the template engine.  It reads only the
``"fairbound.scores/1"`` dictionary, so a saved JSON can be rendered without the data.
"""

from __future__ import annotations

from pathlib import Path

from fairbound._docs import fill
from fairbound._words import (
    A_DISADVANTAGED,
    B_DISADVANTAGED,
    NO_EVIDENCE,
    NO_GAP,
    NOT_ESTIMABLE,
    UNEQUAL,
)
from fairbound.report._common import (
    DOCS,
    NO_FIGURES,
    fci,
    fint,
    fmt_level,
    fnum,
    have_matplotlib,
    num,
    template_page,
    try_figure,
    verdict_counts,
    write_html,
)
from fairbound.viz.scores import RATES, scores_dict

#: Panels per threshold-sweep figure (the comparisons table lists every pair).
SWEEP_PANELS = 6
GAP = (A_DISADVANTAGED, B_DISADVANTAGED, UNEQUAL)
BADGE = {A_DISADVANTAGED: "bad", B_DISADVANTAGED: "bad", UNEQUAL: "bad",
         NO_EVIDENCE: "warn", NO_GAP: "ok", NOT_ESTIMABLE: "na"}
METRIC_NAMES = {"auc": "AUC", "calibration_in_the_large": "calibration-in-the-large",
                "calibration_ece": "expected calibration error (ECE)",
                "selection_rate_sweep": "selection rate by threshold",
                "tpr_sweep": "true positive rate by threshold",
                "fpr_sweep": "false positive rate by threshold"}

# What each guarantee class promises, in plain words (a score audit's parts).
GUARANTEES = {
    "auc": ("DeLong (1988) variance of the Mann-Whitney AUC (ties count 1/2) with a Wald "
            "interval: asymptotic. Coverage is close to the stated level when each group has "
            "enough positive and negative examples (tens of each); it can fall short for "
            "small groups or AUCs near 1. With binned scores the AUC is of the binned scores, "
            "within the stated error bound of the raw scores' AUC; the verdict allows for "
            "the bound."),
    "calibration_in_the_large": (
        "Mean score minus rate of positives, with a central-limit interval from the sample "
        "variance of score - label: asymptotic."),
    "calibration_ece": (
        "Per calibration bin, a Wilson interval for the rate of positives and a "
        "central-limit interval for the mean score, joined by the union bound and made "
        "simultaneous over the bins (Bonferroni); the ECE interval is the range of the ECE "
        "over those per-bin intervals: asymptotic, valid whenever the per-bin family is."),
    "dkw": ("The Dvoretzky-Kiefer-Wolfowitz inequality with Massart's (1990) constant: each "
            "group's rate of score >= t lies within eps of the truth at every threshold at "
            "once, for any distribution of scores (ties included): finite-sample."),
    "sup-t": ("The studentised gap's maximum over the thresholds, its critical value "
              "simulated from the normal limit of the cumulative counts: asymptotic, and "
              "only computed at thresholds with at least 5 examples on each side in both "
              "groups."),
}

TEMPLATE = """{% import "macros.html.j2" as m %}
<section class="audit scores" id="{{ s.id }}">
<h2>{{ s.heading }}</h2>
{{ m.counts(s) }}

{% if s.findings_gap %}
<ul class="findings">{% for f in s.findings_gap %}
<li class="bad"{% if loop.first %} data-verdict{% endif %}>{{ f }}</li>{% endfor %}</ul>
{% else %}
<p class="lead" data-verdict>No interval excludes zero: the data establish no gap in AUC,
calibration or any rate by threshold at the stated level. "Not enough evidence" is not
evidence of equality.</p>
{% endif %}
{% if s.findings_na %}
<h4>Not estimable</h4>
<ul class="findings">{% for f in s.findings_na %}<li class="na">{{ f }}</li>{% endfor %}</ul>
{% endif %}

<div class="callout control">
<p><strong>Error control.</strong> {{ s.control }}</p>
{% if s.calibration_note %}<p><strong>Calibration.</strong> {{ s.calibration_note }}</p>{% endif %}
</div>

<h3 id="{{ s.id }}-groups">Each group</h3>
{{ m.table(s.groups) }}

<h3 id="{{ s.id }}-roc">ROC curves</h3>
{{ m.figure(s.fig_roc, s.roc_caption, s.no_figures) }}

<h3 id="{{ s.id }}-calibration">Calibration</h3>
{% if s.calibration_note %}<p class="note">{{ s.calibration_note }}</p>
{% else %}
{{ m.figure(s.fig_reliability, s.reliability_caption, s.no_figures) }}
{% for t in s.reliability_tables %}{{ m.table(t) }}{% endfor %}
{% endif %}

<h3 id="{{ s.id }}-sweeps">Rates by threshold</h3>
{% for f in s.sweeps %}
<h4>{{ f.title }}</h4>
{{ m.figure(f.figure, f.caption, s.no_figures) }}
{% endfor %}

<h3 id="{{ s.id }}-table">All comparisons</h3>
{{ m.table(s.comparisons) }}

<h3 id="{{ s.id }}-what">What was audited</h3>
<dl class="facts">
{% for k, v in s.facts %}<dt>{{ k }}</dt><dd>{{ v }}</dd>
{% endfor %}</dl>

<h3 id="{{ s.id }}-methods">Methods: what the intervals guarantee</h3>
<div class="callout">
{% for name, text in s.methods %}<p><strong>{{ name }}.</strong> {{ text }}</p>
{% endfor %}
<p><strong>Does not guarantee.</strong> Every interval covers sampling error only, for rows
that are independent draws from the population audited: a non-representative sample, wrong
group labels or noisy gold labels are not accounted for. "Not enough evidence" means the
interval contains zero; it is not a finding of fairness.</p>
</div>
</section>
"""


def _g(x) -> str:
    return "missing" if x is None else str(x)


def _sentence(text):
    """``text`` with a capital first letter and a full stop (``None`` stays ``None``)."""
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def _level_of(c: dict) -> str:
    return fmt_level(c.get("interval_level"))


def score_sentence(c: dict) -> str:
    """One plain-language sentence about a score-audit comparison (its dictionary form).

    Parameters
    ----------
    c : dict
        A row of ``ScoreAuditResult.to_dict()["comparisons"]``.

    Returns
    -------
    str

    Examples
    --------
    >>> text = score_sentence({"group_a": "a", "group_b": "b", "metric": "auc",
    ...                        "estimate": 0.1, "low": 0.05, "high": 0.15,
    ...                        "interval_level": 0.99, "verdict": "B disadvantaged",
    ...                        "value_a": 0.8, "value_b": 0.7, "note": None})
    >>> print(text)  # doctest: +NORMALIZE_WHITESPACE
    The scores rank b worse than a: AUC 0.800 for a and 0.700 for b, a gap of +0.100
    [+0.050, +0.150] (99% interval).
    """
    a, b = _g(c["group_a"]), _g(c["group_b"])
    v, metric = c["verdict"], c["metric"]
    lvl = _level_of(c)
    ci = fci(c.get("low"), c.get("high"), signed=True)
    est = fnum(c.get("estimate"), signed=True)
    if v == NOT_ESTIMABLE:
        return f"{METRIC_NAMES.get(metric, metric)}, {a} vs {b}: not estimable ({c.get('note')})."
    if metric == "auc":
        vals = (f"AUC {fnum(c.get('value_a'))} for {a} and {fnum(c.get('value_b'))} for {b}, "
                f"a gap of {est} {ci} ({lvl} interval)")
        if v == B_DISADVANTAGED:
            return f"The scores rank {b} worse than {a}: {vals}."
        if v == A_DISADVANTAGED:
            return f"The scores rank {a} worse than {b}: {vals}."
        return f"No AUC gap is established between {a} and {b}: {vals}."
    if metric == "calibration_in_the_large":
        vals = (f"mean score minus rate of positives is {fnum(c.get('value_a'), signed=True)} "
                f"for {a} and {fnum(c.get('value_b'), signed=True)} for {b}, a gap of {est} "
                f"{ci} ({lvl} interval)")
        if v == UNEQUAL:
            over = a if num(c.get("estimate")) > 0 else b
            return f"{over}'s scores over-predict relative to the other group's: {vals}."
        return f"No gap in calibration-in-the-large is established between {a} and {b}: {vals}."
    if metric == "calibration_ece":
        vals = (f"ECE {fnum(c.get('value_a'))} for {a} and {fnum(c.get('value_b'))} for {b}, "
                f"a gap of {est} {ci} ({lvl} interval)")
        if v in (A_DISADVANTAGED, B_DISADVANTAGED):
            worse = a if v == A_DISADVANTAGED else b
            return f"{worse}'s scores are less well calibrated: {vals}."
        return f"No gap in expected calibration error is established between {a} and {b}: {vals}."
    rate = METRIC_NAMES.get(metric, metric).replace(" by threshold", "")
    if v == UNEQUAL:
        return (f"The {rate} of score >= t differs between {a} and {b}: {c.get('note')}; the "
                f"largest gap is {fnum(c.get('estimate'))} (band at {lvl} over all "
                "thresholds).")
    return (f"No threshold shows a gap in the {rate} between {a} and {b} (band at {lvl} over "
            f"all thresholds; largest observed gap {fnum(c.get('estimate'))}).")


def _control_sentence(d: dict) -> str:
    level = fmt_level(d["confidence_level"])
    # the level the rows' intervals are at (fairbound.audits.control set it); a report reads
    # it from the rows and never computes one
    rows = d.get("comparisons") or []
    each = fmt_level(rows[0]["interval_level"]) if rows else level
    if d["error_control"] == "family":
        m = d["n_tests"]
        return (f"Family-wise: every interval is at {each} (Bonferroni over the {m} estimable "
                f"comparisons: AUC gaps, calibration gaps and threshold sweeps of every pair), "
                f"so with probability at least {level} no verdict of this audit is a false "
                "claim, where each row's own guarantee holds.")
    if d["error_control"] == "fdr":
        alpha = fmt_level(1 - d["confidence_level"])
        return (f"False discovery rate: Benjamini-Hochberg over the {d['n_tests']} estimable "
                f"comparisons at {alpha}, so on average at most {alpha} of the gaps claimed "
                f"are false; every interval is a Benjamini-Yekutieli false-coverage-rate "
                f"interval at {each}.")
    return (f"None: each comparison's interval is at {level} on its own; with "
            f"{d['n_tests']} comparisons some false claims are to be expected.")


def _facts(d: dict) -> list[tuple[str, str]]:
    cols = d.get("columns") or {}
    excluded = ", ".join(f"{fint(v)} {k}" for k, v in (d.get("excluded") or {}).items())
    comparison = d["comparison"]
    if comparison == "vs-reference":
        comparison += f" (reference group: {_g(d.get('reference'))})"
    scores = ("exact: each distinct score is a bin (the AUC equals scikit-learn's)"
              if d.get("exact") else f"binned ({d.get('binning')}); AUCs are approximate")
    band = {"dkw": "DKW (finite-sample)", "sup-t": "sup-t (asymptotic)"}.get(d.get("band"),
                                                                             d.get("band"))
    cal = d.get("calibration_bins")
    return [
        ("Data", str(d.get("source"))), ("Engine", str(d.get("engine"))),
        ("Rows scanned", fint(d.get("n_rows"))), ("Excluded", excluded or "none"),
        ("Group column(s)", " & ".join(map(str, cols.get("group") or [])) or "-"),
        ("Label column", f"{cols.get('label', '-')} (positive: {_g(d.get('positive'))})"),
        ("Score column", str(cols.get("score", "-"))), ("Scores", scores),
        ("Comparison", comparison),
        ("Confidence level", f"{fmt_level(d['confidence_level'])} ({d['error_control']})"),
        ("Threshold band", band),
        ("Calibration bins", "-" if not d.get("calibration") else
         (f"{cal} equal-width bins on [0, 1]" if isinstance(cal, int) else
          f"edges {cal}")),
    ]


def _groups_table(d: dict) -> dict:
    from fairbound.report._common import table_view

    lvl = fmt_level(d["confidence_level"])
    cols = [("group", lambda r: _g(r["group"]), None), ("n", "n", "int"),
            ("positives", "positives", "int"), ("AUC", "auc", "num"),
            (f"AUC {lvl} interval", lambda r: fci(r.get("auc_low"), r.get("auc_high")), None),
            ("AUC error bound", lambda r: ("exact" if not r.get("auc_approximate")
                                           else f"+/-{fnum(r.get('auc_error_bound'), 4)}"),
             None)]
    if d.get("calibration"):
        cols += [("mean score", "mean_score", "num"), ("rate of positives", "mean_label", "num"),
                 ("calibration-in-the-large", lambda r: fnum(r.get("calibration_in_the_large"),
                                                             signed=True), None),
                 (f"{lvl} interval", lambda r: fci(r.get("calibration_low"),
                                                   r.get("calibration_high"), signed=True),
                  None)]
    else:
        cols += [("rate of positives", "mean_label", "num")]
    cols.append(("note", lambda r: r.get("note") or "", None))
    columns = [(t, k if isinstance(k, str) else "", kind if kind else k)
               for t, k, kind in cols]
    caption = (f"AUC (Mann-Whitney, ties 1/2) with a {lvl} DeLong interval for each group on "
               "its own; whether two groups differ is read from the comparisons below.")
    if d.get("calibration"):
        caption += (" Calibration-in-the-large: mean score minus rate of positives (positive: "
                    "the scores over-predict).")
    return table_view(d["groups"], columns, caption=caption, cls="groups")


def _reliability_tables(d: dict) -> list[dict]:
    from fairbound.report._common import table_view

    out = []
    for g in d["groups"]:
        r = g.get("reliability")
        if not r:
            continue
        keys = ("lower", "upper", "n", "mean_score", "label_rate", "gap", "low", "high")
        recs = [dict(zip(keys, vals, strict=True))
                for vals in zip(*(r[k] for k in keys), strict=True)]
        cols = [("bin", lambda x: f"[{fnum(x['lower'], 2)}, {fnum(x['upper'], 2)})", None),
                ("n", "n", "int"), ("mean score", "mean_score", "num"),
                ("rate of positives", "label_rate", "num"),
                ("gap", lambda x: fnum(x["gap"], signed=True), None),
                ("interval", lambda x: fci(x["low"], x["high"], signed=True), None)]
        columns = [(t, k if isinstance(k, str) else "", kind if kind else k)
                   for t, k, kind in cols]
        out.append(table_view(
            recs, columns, cls="rates",
            caption=(f"{_g(g['group'])}: ECE {fnum(r['ece'])} "
                     f"{fci(r['ece_low'], r['ece_high'])}; per-bin intervals hold together at "
                     f"{fmt_level(r['confidence_level'])}.")))
    return out


def _comparisons_table(d: dict) -> dict:
    from fairbound.report._common import table_view

    cols = [("metric", lambda r: METRIC_NAMES.get(r["metric"], r["metric"])),
            ("A", lambda r: _g(r["group_a"])), ("B", lambda r: _g(r["group_b"])),
            ("value A", lambda r: fnum(r.get("value_a"))),
            ("value B", lambda r: fnum(r.get("value_b"))),
            ("gap", lambda r: (fnum(r.get("estimate")) if r["metric"].endswith("_sweep")
                               else fnum(r.get("estimate"), signed=True))),
            ("interval", lambda r: fci(r.get("low"), r.get("high"),
                                       signed=not r["metric"].endswith("_sweep"))),
            ("level", lambda r: fmt_level(r.get("interval_level"))),
            ("guarantee", lambda r: r.get("guarantee") or "-"),
            ("verdict", lambda r: r["verdict"]), ("note", lambda r: r.get("note") or "")]
    columns = [(t, "", k) for t, k in cols]
    return table_view(
        d["comparisons"], columns, cls="comparisons",
        caption=("Gap = A minus B. For AUC, a gap above 0 means the scores rank B's examples "
                 "worse (B disadvantaged). For the rates by threshold, the gap is the largest "
                 "|rate_A(t) - rate_B(t)| over the thresholds, with an interval for it; "
                 "'unequal' means the band excludes 0 at some threshold (the note says "
                 "where). 'level': the level of that row's interval."))


def _figures(d: dict, figures: bool) -> dict:
    out = {"fig_roc": None, "fig_reliability": None, "sweeps": []}
    draw = figures and have_matplotlib()
    from fairbound.viz.scores import plot_reliability, plot_roc, plot_threshold_sweep

    if draw and any(g.get("roc") for g in d["groups"]):
        out["fig_roc"] = try_figure(lambda: plot_roc(d), "ROC curves by group")
    if draw and d.get("calibration"):
        out["fig_reliability"] = try_figure(lambda: plot_reliability(d),
                                            "Reliability diagrams by group")
    band = "DKW" if d.get("band") == "dkw" else "sup-t"
    for rate, words in RATES.items():
        rows = [c for c in d["comparisons"] if c["metric"] == f"{rate}_sweep"
                and c.get("sweep")]
        if not rows:
            continue
        n_pairs = len(rows)
        fig = None
        if draw:
            fig = try_figure(lambda rate=rate: plot_threshold_sweep(
                d, rate=rate, max_panels=SWEEP_PANELS), f"{words} gap by threshold")
        shown = "" if n_pairs <= SWEEP_PANELS else (
            f" {n_pairs} pairs were compared; the {SWEEP_PANELS} shown are those with "
            "established thresholds first, then the largest gaps (the table lists all).")
        out["sweeps"].append({
            "title": words.capitalize(), "figure": fig,
            "caption": (f"For each pair, the {words} of the decision 'score >= t' in group A "
                        f"minus that in group B, against the threshold t (line), and the "
                        f"{band} band that holds at "
                        f"every threshold at once at {_level_of(rows[0])} (shaded). Dots: "
                        f"thresholds where the band excludes 0, so a gap is established there."
                        + shown)})
    return out


@fill(**DOCS)
def render_score_report(result, *, title: str | None = None, figures: bool = True) -> str:
    """Render a score audit as one self-contained HTML page.

    Parameters
    ----------
    result : ScoreAuditResult, dict or path
        The score audit (or its ``"fairbound.scores/1"`` dictionary or JSON file).
    title : str, optional
        Page title.
    figures : bool
        Include the figures (needs matplotlib; left out with a note otherwise).

    Returns
    -------
    str

    {{score_examples}}
    >>> df["g"] = df["g"].replace("a", "<a>")
    >>> html = render_score_report(score_audit(df, group="g", label="y", score="s"),
    ...                            figures=False)
    >>> "&lt;a&gt;" in html and "<a>" not in html
    True
    """
    d = scores_dict(result)
    comps = d["comparisons"]
    gap = [c for c in comps if c["verdict"] in GAP]
    na = [c for c in comps if c["verdict"] == NOT_ESTIMABLE]
    methods = [("AUC", GUARANTEES["auc"])]
    if d.get("calibration"):
        methods += [("Calibration-in-the-large", GUARANTEES["calibration_in_the_large"]),
                    ("Binned calibration", GUARANTEES["calibration_ece"])]
    methods.append((f"Threshold band ({d.get('band')})", GUARANTEES.get(d.get("band"), "")))
    methods.append(("Error control", _control_sentence(d)))
    lvl = fmt_level(d["confidence_level"])
    view = {
        "id": "scores-1", "heading": "Score audit", **verdict_counts(comps, GAP),
        "facts": _facts(d), "control": _control_sentence(d),
        "calibration_note": _sentence(d.get("calibration_note")),
        "findings_gap": [score_sentence(c) for c in gap],
        "findings_na": [score_sentence(c) for c in na],
        "groups": _groups_table(d),
        "roc_caption": (f"Each group's ROC curve (true against false positive rate as the "
                        f"threshold falls), its AUC and {lvl} DeLong interval in the legend; "
                        "the dashed diagonal is a score that ranks at random."),
        "reliability_caption": (
            "Left: each group's rate of positives against its mean score per calibration "
            "bin (dashed: perfect calibration; larger markers: more examples). Right: mean "
            f"score minus rate of positives per bin, with intervals holding together over "
            f"each group's bins at {lvl}."),
        "reliability_tables": _reliability_tables(d) if d.get("calibration") else [],
        "comparisons": _comparisons_table(d), "methods": methods,
        "no_figures": NO_FIGURES,
    }
    view.update(_figures(d, figures))
    return template_page(TEMPLATE, view, title=title,
                         default_title="Score audit: AUC, calibration and thresholds by group",
                         kicker="fairbound score audit",
                         footer="Reproduce with: fairbound scores --format json.")


@fill(**DOCS)
def write_score_report(result, path, *, title: str | None = None,
                       figures: bool = True) -> Path:
    """Write :func:`render_score_report` to ``path`` (``.html``).

    Parameters
    ----------
    result : ScoreAuditResult, dict or path
        The score audit.
    path : str or Path
        Output file.
    {{write_options}}
    """
    return write_html(path, render_score_report, result, title=title, figures=figures)


__all__ = ["render_score_report", "score_sentence", "write_score_report"]
