"""The HTML report of a BBNLI audit (:class:`fairbound.nli.NLIBiasResult`)."""

from __future__ import annotations

import math
from pathlib import Path

from markupsafe import Markup

from fairbound._docs import fill
from fairbound.errors import FairboundError
from fairbound.report._common import (
    DOCS,
    NO_FIGURES,
    check_title,
    fci,
    fnum,
    have_matplotlib,
    render_page,
    render_section,
    table_view,
    try_figure,
    write_html,
)

SHOWN = ("accuracy", "bias_score", "stereotype_bias", "anti_stereotype_bias", "brittleness",
         "misprediction_rate")


def _validate(result, comparison, title):
    from fairbound.nli import NLIBiasResult, NLIComparisonResult

    if not isinstance(result, NLIBiasResult):
        raise FairboundError(f"result must be an NLIBiasResult (fairbound.nli.audit_nli); got "
                             f"{type(result).__name__}", param="result")
    if comparison is not None and not isinstance(comparison, NLIComparisonResult):
        raise FairboundError(f"comparison must be an NLIComparisonResult "
                             f"(fairbound.nli.compare_nli); got {type(comparison).__name__}",
                             param="comparison")
    return check_title(title, f"BBNLI bias audit of {result.model}")


def _row_label(r) -> str:
    from fairbound.viz.nli import nli_row_label

    return nli_row_label(r["level"], r["domain"], r["subtopic"])


def _est(t, measure, level="overall", domain="(all)"):
    r = t[(t["measure"] == measure) & (t["level"] == level) & (t["domain"] == domain)]
    return r.iloc[0] if not r.empty else None


def _sentence(r, name: str, pct: str) -> dict:
    lo, hi = float(r["low"]), float(r["high"])
    est = float(r["estimate"])
    where = "overall" if r["level"] == "overall" else f"in {_row_label(r)}"
    ci = f"{pct} CI [{lo:.3f}, {hi:.3f}]" if math.isfinite(lo) else "no interval"
    if math.isfinite(lo) and lo > 0:
        return {"cls": "bad", "text": f"{name} {where} is {est:.3f} ({ci}): above 0."}
    if math.isfinite(hi) and hi < 0:
        return {"cls": "bad", "text": f"{name} {where} is {est:.3f} ({ci}): below 0."}
    return {"cls": "warn", "text": f"{name} {where} is {est:.3f} ({ci}): not distinguishable "
                                   "from 0."}


def nli_view(result, comparison=None, *, index: int = 1, figures: bool = True) -> dict:
    """Everything the NLI section shows (see :func:`render_nli_report`)."""
    t = result.table
    pct = f"{result.confidence_level:.0%}"
    overall = _est(t, "accuracy")
    facts = [
        ("Model", str(result.model)),
        ("Bias samples", f"{int(overall['n_samples']):,}" if overall is not None else "-"),
        ("Counterfactual pairs", f"{int(overall['n_pairs']):,}" if overall is not None
         else "-"),
        ("Premise templates", f"{int(overall['n_clusters']):,}" if overall is not None
         else "-"),
        ("Unpaired bias samples", f"{int(result.unpaired):,}"),
        ("Intervals", f"{result.method}, {result.n_resamples:,} resamples, {pct}"),
    ]
    findings = []
    for measure, name in (("bias_score", "The BBNLI bias score"),
                          ("stereotype_bias", "The pro-stereotype error rate"),
                          ("anti_stereotype_bias", "The anti-stereotype error rate")):
        r = _est(t, measure)
        if r is not None:
            findings.append(_sentence(r, name, pct))
    dom = t[(t["measure"] == "bias_score") & (t["level"] == "domain")]
    findings += [_sentence(r, "The bias score", pct) for r in dom.to_dict("records")]
    acc = _est(t, "accuracy")
    if acc is not None:
        findings.append({"cls": "warn" if acc["estimate"] < 0.9 else "", "text": (
            f"{acc['estimate']:.1%} of bias samples are predicted neutral, their correct "
            f"label ({pct} CI [{acc['low']:.1%}, {acc['high']:.1%}]).")})
    wide = t.pivot_table(index=["level", "domain", "subtopic"], columns="measure",
                         values=["estimate", "low", "high"], aggfunc="first", sort=False,
                         dropna=False)
    order = t.drop_duplicates(["level", "domain", "subtopic"])
    recs, notes = [], []
    for r in order.to_dict("records"):
        key = (r["level"], r["domain"], r["subtopic"])
        note = str(r.get("note") or "")
        rec = {"where": _row_label(r) + (" *" if note else ""), "n_pairs": r["n_pairs"],
               "n_clusters": r["n_clusters"]}
        if note:
            notes.append(f"{_row_label(r)}: {note}")
        for m in SHOWN:
            if ("estimate", m) in wide.columns:
                e, lo, hi = (wide.loc[key, (k, m)] for k in ("estimate", "low", "high"))
                rec[m] = Markup('{}<br><span class="ci">{}</span>').format(fnum(e),
                                                                          fci(lo, hi))
        recs.append(rec)
    cols = [("breakdown", "where", "text")] + [
        (m.replace("_", " "), m, lambda r, m=m: r[m]) for m in SHOWN
        if ("estimate", m) in wide.columns
    ] + [("pairs", "n_pairs", "int"), ("templates", "n_clusters", "int")]
    table = table_view(recs, cols, cls="nli", caption=(
        f"Estimate and {pct} cluster-bootstrap interval of each measure. bias score = pro - "
        "anti; stereotype + anti-stereotype + brittleness = misprediction rate (on pairs)."))
    pt = result.pair_table
    pairs = table_view(
        [{"on": str(i), **{str(c): pt.loc[i, c] for c in pt.columns}} for i in pt.index],
        [("on the stereotype hypothesis \u2193 / on its counterfactual \u2192", "on", "text")]
        + [(str(c), str(c), "int") for c in pt.columns],
        caption="Predictions on each stereotype hypothesis and on its counterfactual "
                "(the same hypothesis with the groups swapped).", cls="pairs")
    view = {"id": f"nli-{index}", "heading": f"BBNLI audit: {result.model}", "facts": facts,
            "findings": findings, "table": table, "notes": notes, "pairs": pairs,
            "level": pct,
            "resamples": f"{result.n_resamples:,}",
            "clusters": facts[3][1], "fig_stacked": None, "fig_measures": None,
            "no_figures": NO_FIGURES, "comparison": None}
    if figures and have_matplotlib():
        from fairbound.viz.nli import plot_nli_measures, plot_nli_stacked

        view["fig_stacked"] = try_figure(lambda: plot_nli_stacked(result),
                                         "Stacked bars of stereotype, anti-stereotype and error")
        view["fig_measures"] = try_figure(lambda: plot_nli_measures(result),
                                          "BBNLI measures with intervals")
    if comparison is not None:
        x, y = comparison.names
        ct = comparison.table
        sel = ct[ct["level"].isin(["overall", "domain"])]
        ccols = [("breakdown", "level", lambda r: _row_label(r)),
                 ("measure", "measure", lambda r: r["measure"].replace("_", " ")),
                 (str(x), "estimate_x", "num"), (str(y), "estimate_y", "num"),
                 (f"{x} - {y}", "difference", "num"),
                 (f"{pct} interval", "low", lambda r: fci(r["low"], r["high"])),
                 ("verdict", "verdict", "text")]
        found = []
        for measure in ("bias_score", "stereotype_bias", "accuracy"):
            r = ct[(ct["level"] == "overall") & (ct["measure"] == measure)]
            if not r.empty:
                r = r.iloc[0]
                found.append({"cls": "warn" if r["verdict"] == "inconclusive" else "bad",
                              "text": f"{measure.replace('_', ' ')}: {x} - {y} = "
                                      f"{r['difference']:+.3f}, {pct} CI "
                                      f"{fci(r['low'], r['high'], signed=True)}: "
                                      f"{r['verdict']}."})
        view["comparison"] = {"names": f"{x} vs {y}", "findings": found,
                              "table": table_view(sel.to_dict("records"), ccols, caption=(
                                  "Paired cluster bootstrap on the same resampled "
                                  "templates; overall and per domain."))}
    return view


def render_nli_report(result, comparison=None, *, title: str | None = None,
                      figures: bool = True) -> str:
    """Render a BBNLI audit (and optionally a paired comparison) as one HTML page.

    Parameters
    ----------
    result : NLIBiasResult or list of them
        From :func:`fairbound.nli.audit_nli` (one section per model).
    comparison : NLIComparisonResult, optional
        From :func:`fairbound.nli.compare_nli` (shown after the last model).
    title : str, optional
        Page title.
    figures : bool
        Include the stacked bars and the measure plot (needs matplotlib).

    Returns
    -------
    str

    Notes
    -----
    The measures are those of Akyurek et al. (2022) and Baldini et al. (2023), per domain and
    subtopic, each with the audit's cluster-bootstrap interval.

    References
    ----------
    A. F. Akyurek, S. Paik, M. Kocyigit, S. Akbiyik, S. L. Runyun, D. Wijaya. "On Measuring
    Social Biases in Prompt-Based Multi-Task Learning." Findings of NAACL 2022.

    Examples
    --------
    >>> from fairbound.nli import audit_nli, expand_templates, load_templates
    >>> s = expand_templates(load_templates()).samples
    >>> html = render_nli_report(audit_nli(s, ["neutral"] * len(s), n_resamples=50),
    ...                          figures=False)
    >>> "BBNLI audit" in html
    True
    """
    results = list(result) if isinstance(result, list | tuple) else [result]
    if not results:
        raise FairboundError("result: the list is empty", param="result")
    for r in results:
        title = _validate(r, comparison, title)
    views = [nli_view(r, comparison if i == len(results) - 1 else None, index=i + 1,
                      figures=figures) for i, r in enumerate(results)]
    if len(results) > 1:
        title = title.replace(f"of {results[0].model}", "of " + ", ".join(
            str(r.model) for r in results))
    return render_page(title=title, kicker="fairbound NLI bias audit",
                       sections=[render_section("nli.html.j2", r=v) for v in views],
                       toc=[{"id": v["id"], "title": v["heading"]} for v in views],
                       footer="Machine-readable: 'fairbound nli audit --format json'.")


@fill(**DOCS)
def write_nli_report(result, path, comparison=None, *, title: str | None = None,
                     figures: bool = True) -> Path:
    """Write :func:`render_nli_report` to ``path`` (``.html``).

    Parameters
    ----------
    result : NLIBiasResult or list of them
        The audit(s).
    path : str or Path
        Output file.
    comparison : NLIComparisonResult, optional
        A paired comparison to include.
    {{write_options}}

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from fairbound.nli import audit_nli, expand_templates, load_templates
    >>> s = expand_templates(load_templates()).samples
    >>> r = audit_nli(s, ["neutral"] * len(s), n_resamples=50)
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "nli.html"
    >>> write_nli_report(r, out, figures=False).name
    'nli.html'
    """
    return write_html(path, render_nli_report, result, comparison, title=title, figures=figures)


__all__ = ["nli_view", "render_nli_report", "write_nli_report"]
