"""The HTML page, sentences and forest plot of a proxy-group audit.

It reads the result's ``"fairbound.proxy_audit/1"`` dictionary, so a saved JSON file gives
the same page (:func:`write_proxy_report`).  The page states the assumption, the error
control, one sentence per comparison, the forest plot and a table with the deciding
interval (prediction-powered, or the widened identified set), the annotated-only interval
or the identified set, the probability-weighted estimate (biased; shown for comparison)
and the annotated rows each gap would need.
"""

from __future__ import annotations

from pathlib import Path

from fairbound._words import A_DISADVANTAGED, B_DISADVANTAGED, NOT_ESTIMABLE
from fairbound.report._common import (
    fci,
    fint,
    fmt_level,
    fnum,
    num,
    table_view,
    try_figure,
    write_html,
)
from fairbound.report.ppi_report import gap_page
from fairbound.viz._figure import result_dict

SCHEMA = "fairbound.proxy_audit/1"
DISADVANTAGED = (A_DISADVANTAGED, B_DISADVANTAGED)

__all__ = ["plot_proxy_forest", "proxy_dict", "proxy_sentence", "render_proxy_report",
           "write_proxy_report"]


def proxy_dict(result) -> dict:
    """The ``"fairbound.proxy_audit/1"`` dictionary of a result, a dictionary or a JSON path.

    Examples
    --------
    >>> proxy_dict({"schema": "fairbound.proxy_audit/1", "comparisons": []})["schema"]
    'fairbound.proxy_audit/1'
    """
    return result_dict(result, SCHEMA, live="n_annotated", kind="proxy-group audit ",
                       expected="a ProxyAuditResult, its dictionary or a JSON path",
                       lists=("comparisons",))


def _g(x) -> str:
    return "-" if x is None else str(x)


def proxy_sentence(c: dict, *, mode: str = "ppi") -> str:
    """One plain-language sentence for a comparison (its ``to_dict()``).

    Examples
    --------
    >>> proxy_sentence({"rate": "TPR", "group_a": "a", "group_b": "b", "gap": None,
    ...                 "low": 0.02, "high": 0.2, "verdict": "A disadvantaged",
    ...                 "interval_level": 0.95, "identified_low": 0.05,
    ...                 "identified_high": 0.15}, mode="bounds")[:52]
    'TPR of a minus b: A disadvantaged under every distri'
    """
    a, b = _g(c.get("group_a")), _g(c.get("group_b"))
    head = f"{c.get('rate')} of {a} minus {b}: "
    v = c.get("verdict")
    level = fmt_level(num(c.get("interval_level")))
    if v == NOT_ESTIMABLE:
        return head + f"not estimable ({c.get('note', '')})."
    if mode == "bounds":
        text = (f"identified set [{fnum(c.get('identified_low'), signed=True)}, "
                f"{fnum(c.get('identified_high'), signed=True)}], {level} set "
                f"{fci(c.get('low'), c.get('high'), signed=True)}")
        if v in DISADVANTAGED:
            return head + f"{v} under every distribution consistent with the proxies ({text})."
        return head + f"{v} ({text})."
    text = (f"{fnum(c.get('gap'), signed=True)}, {level} interval "
            f"{fci(c.get('low'), c.get('high'), signed=True)}; annotated rows alone "
            f"{fci(c.get('labeled_low'), c.get('labeled_high'), signed=True)}")
    return head + f"{v} ({text})."


def _as_audit(d: dict) -> dict:
    comps = []
    for c in d["comparisons"]:
        est = c.get("gap")
        if est is None and c.get("low") is not None and c.get("high") is not None:
            est = (num(c["low"]) + num(c["high"])) / 2.0   # the plot's marker only
        comps.append({**c, "class": None, "estimate": est, "rate_gap": est,
                      "rate_gap_low": c.get("low"), "rate_gap_high": c.get("high")})
    return {"schema": "fairbound.audit/1", "comparisons": comps, "tolerance": None,
            "confidence_level": d.get("confidence_level"),
            "error_control": d.get("error_control")}


def plot_proxy_forest(result, *, ax=None, max_rows: int | None = None):
    """Forest plot: every gap with its deciding interval.

    For bounds the interval is the widened set, marked at its centre (not an estimate).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from fairbound.viz.audit import plot_forest

    return plot_forest(_as_audit(proxy_dict(result)), ax=ax, max_rows=max_rows)


def _facts(d: dict) -> list[tuple[str, str]]:
    cols = d.get("columns") or {}
    probs = cols.get("group_probabilities") or {}
    how = (f"prediction-powered, {d.get('n_annotated', 0):,} annotated rows"
           + (" (weighted by 1 / sampling probability)" if d.get("weighted") else "")
           if d.get("mode") == "ppi" else
           f"bounds from {d.get('n_cells', 0):,} proxy cells")
    groups = d.get("groups") or []
    calib = "; ".join(
        f"{g.get('group')}: {fint(g.get('annotated'))} annotated, mean probability "
        f"{fnum(g.get('mean_probability'))}, share annotated as it "
        f"{fnum(g.get('observed_share'))}, Hosmer-Lemeshow p {fnum(g.get('calibration_pvalue'))}"
        for g in groups)
    sizes = ", ".join(f"{g.get('group')}: {fint(g.get('expected_rows'))}" for g in groups)
    extra = [("Expected rows per group (sum of probabilities)", sizes)]
    if d.get("mode") == "ppi":
        extra.append(("Calibration on the annotated rows", calib))
    return [("Source", str(d.get("source"))),
            ("Group probabilities", ", ".join(f"{g}: {c}" for g, c in probs.items())),
            ("Label, prediction", f"{cols.get('label')}, {cols.get('prediction')}"),
            ("Rows", f"{d.get('n_rows', 0):,}"), ("Answer", how),
            ("Comparison", str(d.get("comparison"))),
            ("Level", f"{fmt_level(num(d['confidence_level']))} ({d.get('error_control')})"),
            *extra]


def render_proxy_report(result, *, title: str | None = None, figures: bool = True) -> str:
    """The HTML page of a proxy-group audit (a result, its dictionary or a JSON path)."""
    d = proxy_dict(result)
    mode = d.get("mode", "ppi")
    comps = d["comparisons"]
    if mode == "bounds":
        side = ("identified set", "identified_low",
                lambda c: fci(c.get("identified_low"), c.get("identified_high"), signed=True))
    else:
        side = ("annotated rows only", "labeled_low",
                lambda c: fci(c.get("labeled_low"), c.get("labeled_high"), signed=True))
    table = table_view(comps, [
        ("metric", "metric", "text"), ("rate", "rate", "text"),
        ("A", "group_a", lambda c: _g(c.get("group_a"))),
        ("B", "group_b", lambda c: _g(c.get("group_b"))),
        ("gap", "gap", lambda c: fnum(c.get("gap"), signed=True)),
        ("interval", "low", lambda c: fci(c.get("low"), c.get("high"), signed=True)),
        ("level", "interval_level", lambda c: fmt_level(num(c.get("interval_level")))),
        side, ("probability-weighted (biased)", "weighted_gap",
               lambda c: fnum(c.get("weighted_gap"), signed=True)),
        ("verdict", "verdict", "text"),
        ("annotated rows needed", "annotated_needed",
         lambda c: "-" if c.get("annotated_needed") is None else (
             "more than all" if c.get("annotated_needed") == "inf" else
             f"{int(num(c['annotated_needed'])):,}")),
        ("method", "method", "text")],
        caption="Each gap rate(A) - rate(B) with the interval that decides its verdict.",
        cls="gaps")
    forest = None
    if figures:
        forest = try_figure(lambda: plot_proxy_forest(d), "Forest plot of the gaps")
    return gap_page(d, lambda c: proxy_sentence(c, mode=mode),
                    heading="Audit with group probabilities", facts=_facts(d), table=table,
                    forest=forest, figures=figures, other="warn",
                    forest_caption=("Each gap with its deciding interval"
                                    + ("; for bounds the marker is the set's centre, not an "
                                       "estimate" if mode == "bounds" else "") + "."),
                    title=title, default_title="Fairness audit with group probabilities",
                    kicker="fairbound proxy-group audit",
                    footer="Reproduce with: fairbound.proxy_audit(...).to_json(). Inferred "
                           "group membership is for auditing groups, never for decisions "
                           "about individuals.")


def write_proxy_report(result, path, *, title: str | None = None,
                       figures: bool = True) -> Path:
    """Write :func:`render_proxy_report` to ``path`` (``.html``); returns the path."""
    return write_html(path, render_proxy_report, result, title=title, figures=figures)

