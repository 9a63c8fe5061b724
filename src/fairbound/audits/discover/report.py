"""Words, figure and HTML page of a subgroup search (from its JSON-ready dictionary).

Everything here reads :meth:`DiscoverResult.to_dict` output, so a saved JSON file renders
the same page as the result it came from.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from fairbound._words import GAP_VERDICTS

_CONTROL = {
    "family": "family-wise: no slice is flagged falsely (Fisher's exact test, "
              "Tarone-weighted Bonferroni over the testable slices with levels raised by "
              "the tests' attainable sizes), and every interval "
              "shown holds jointly, each with probability at least {level}",
    "fdr": "false discovery rate (weighted Benjamini-Yekutieli, any dependence) at most "
           "{alpha}",
    "none": "each slice on its own at {level} (no protection against the many slices "
            "searched)",
}


def _pct(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.1%}"


def _num(x, digits: int = 3) -> str:
    if x is None:
        return "-"
    x = float(x)
    if math.isinf(x):
        return "inf"
    return f"{x:+.{digits}f}" if digits else f"{x:,.0f}"


def control_text(d: dict) -> str:
    """The error control of a search, in words."""
    level = d["confidence_level"]
    return _CONTROL[d["error_control"]].format(level=f"{level:.0%}" if level * 100 % 1 == 0
                                               else f"{level:.3%}",
                                               alpha=f"{1 - level:.3g}")


def statement(d: dict) -> str:
    """The headline: what was found, or what "no harmed slice found" rules out and what not.

    Examples
    --------
    >>> d = {"n_flagged": 0, "n_candidates": 120, "depth": 2, "min_support": 40,
    ...      "columns": {"features": ["a", "b"]}, "rate": "error rate",
    ...      "comparison": "complement", "confidence_level": 0.95, "error_control": "family",
    ...      "detectable": [{"depth": 1, "slice_rows": 40, "gap": 0.3}]}
    >>> statement(d).startswith("No harmed slice found among 120 candidate slices")
    True
    """
    feats = ", ".join(d["columns"].get("features", []))
    scope = (f"{d['n_candidates']:,} candidate slices (every conjunction of up to "
             f"{d['depth']} conditions on {feats} with at least {d['min_support']:,} rows)")
    other = "the rows outside it" if d["comparison"] == "complement" else "all rows"
    if d["n_flagged"]:
        worse = {True: f"a higher {d['rate']}", False: f"a lower {d['rate']}"}.get(
            d.get("rate_is_cost"), f"more cost ({d['rate']})")
        return (f"{d['n_flagged']:,} of {scope} have {worse} than {other}; error control: "
                f"{control_text(d)}.")
    examples = [x for x in d.get("detectable", []) if x.get("gap") is not None]
    shown = "; ".join(f"a depth-{x['depth']} slice of {x['slice_rows']:,} rows, about "
                      f"{x['gap']:.3f}" for x in examples[:4])
    need = f" The gap (cost scale) it would have needed to be flagged here: {shown}." \
        if shown else ""
    return (f"No harmed slice found among {scope}, each set against {other} on the "
            f"{d['rate']} ({control_text(d)}). This rules out, at that level, claiming any of "
            "these slices is harmed; it does not show that none is: a harmed slice may have "
            "a gap too small for these data, fewer rows than the support floor, more "
            f"conditions than {d['depth']}, other bin edges, or be defined by features that "
            f"were not searched.{need}")


def slice_sentence(c: dict, d: dict) -> str:
    """One sentence about a reported slice."""
    other = "the rest" if c["group_b"] == "complement" else "all rows"
    from fairbound._render import fmt_level

    lvl = fmt_level(c["interval_level"])
    line = (f"{c['slice']} ({c['rows']:,} rows): {d['rate']} {_pct(c['rate_a'])} vs "
            f"{_pct(c['rate_b'])} for {other}, gap {_num(c['rate_gap'])} "
            f"(one-sided interval {_num(c['rate_gap_low'])} to {_num(c['rate_gap_high'])} at "
            f"{lvl})")
    if c["verdict"] in GAP_VERDICTS:
        line += ": the slice bears more cost"
    else:
        need = c.get("required_n")
        line += ": not enough evidence" + (
            f" (about {need:,.0f} rows at these shares would settle it)"
            if need is not None and math.isfinite(need) else "")
    if c.get("merged"):
        line += f"; nearly the same rows as {', '.join(c['merged'][:3])}"
    return line + "."


def plot_slices(d: dict, *, ax=None):
    """Each reported slice's rate gap with its one-sided interval (flagged in red)."""
    from fairbound.errors import MissingDependencyError

    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the install
        raise MissingDependencyError("plots need matplotlib: pip install "
                                     "\"fairbound[plot]\"") from None
    rows = d["comparisons"]
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.32 * max(len(rows), 1)))
    else:
        fig = ax.figure
    for i, c in enumerate(rows):
        g, lo, hi = c["rate_gap"], c["rate_gap_low"], c["rate_gap_high"]
        red = c["verdict"] in GAP_VERDICTS
        colour = "#c0392b" if red else "#7f8c8d"
        if lo is not None and hi is not None:
            ax.plot([lo, hi], [i, i], color=colour, lw=2, alpha=0.8)
        if g is not None:
            ax.plot([g], [i], "o", color=colour)
    ax.axvline(0.0, color="black", lw=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([c["slice"][:60] for c in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"{d['rate']}: slice - {d['comparison']} (one-sided interval)")
    ax.set_title(f"{d['n_flagged']} of {d['n_candidates']:,} slices flagged")
    fig.tight_layout()
    return fig


def _table(d: dict, rows: list[dict]):
    from markupsafe import Markup, escape

    head = ("<tr><th>slice</th><th>rows</th><th>rate</th><th>rest</th><th>gap</th>"
            "<th>interval</th><th>verdict</th><th>n needed</th><th>parents</th>"
            "<th>children</th></tr>")
    body = []
    for c in rows:
        kids = ", ".join(f"{k['slice']} ({_num(k['rate_gap'])}, {k['verdict']})"
                         for k in c["children"])
        pars = ", ".join(f"{k['slice']} ({_num(k['rate_gap'])}, {k['verdict']})"
                         for k in c["parents"])
        merged = f"<br><small>also: {escape(', '.join(c['merged']))}</small>" \
            if c["merged"] else ""
        need = c.get("required_n")
        body.append(
            f"<tr><td>{escape(c['slice'])}{merged}</td><td>{c['rows']:,}</td>"
            f"<td>{_pct(c['rate_a'])}</td><td>{_pct(c['rate_b'])}</td>"
            f"<td>{_num(c['rate_gap'])}</td><td>[{_num(c['rate_gap_low'])}, "
            f"{_num(c['rate_gap_high'])}]</td><td>{escape(c['verdict'])}</td>"
            f"<td>{'-' if need is None else _num(need, 0)}</td><td>{escape(pars)}</td>"
            f"<td>{escape(kids)}</td></tr>")
    return Markup(f"<table>{head}{''.join(body)}</table>")


def render_discover_report(source, *, title: str | None = None, figures: bool = True) -> str:
    """The self-contained HTML page of a search (a result, its dict, or a saved JSON path).

    ``figures=False`` leaves the figure out (faster; the tables hold every number).
    """
    from markupsafe import Markup, escape

    from fairbound.report._common import check_title, have_matplotlib, render_page, try_figure

    d = _as_dict(source)
    title = check_title(title, "fairbound: subgroup discovery")
    flagged = sorted((c for c in d["comparisons"] if c["verdict"] in GAP_VERDICTS),
                     key=lambda c: -(c["estimate"] or 0))
    others = [c for c in d["comparisons"] if c["verdict"] not in GAP_VERDICTS]
    fig = try_figure(lambda: plot_slices(d), "gap of each reported slice") \
        if figures and have_matplotlib() else None
    lattice = ", ".join(f"depth {k}: {v:,}" for k, v in d["lattice"].items())
    facts = (f"<p class='lead' data-verdict>{escape(statement(d))}</p><ul>"
             f"<li>source: {escape(d['source'])} ({d['n_rows']:,} rows, engine "
             f"{escape(d['engine'])})</li>"
             f"<li>metric: {escape(d['metric'])} ({escape(d['rate'])}), favourable "
             f"prediction: {escape(d['favourable'])}</li>"
             f"<li>candidates: {d['n_candidates']:,} ({escape(lattice)}); evaluated "
             f"{d['n_evaluated']:,}, pruned {d['n_pruned']:,} (no refinement could be "
             f"flagged), not estimable {d['n_not_estimable']:,}, testable (could reach "
             f"their level at all) {d.get('n_testable', -1):,}, their levels raised "
             f"{d.get('discrete_scale', 1.0):.2f} times by the tests' attainable sizes</li>"
             f"<li>intervals: {escape(d['method'])}; error control: "
             f"{escape(control_text(d))}</li></ul>")
    parts = [Markup(f"<section id='summary'><h2>Summary</h2>{facts}</section>")]
    if fig is not None:
        parts.append(Markup(f"<section id='figure'><h2>Slices</h2><figure>{fig}</figure>"
                            "</section>"))
    parts.append(Markup("<section id='flagged'><h2>Flagged slices, largest gap first</h2>"
                        f"{_table(d, flagged) if flagged else '<p>None.</p>'}</section>"))
    parts.append(Markup("<section id='closest'><h2>Closest calls</h2>"
                        f"{_table(d, others) if others else '<p>None.</p>'}</section>"))
    toc = [{"id": "summary", "title": "Summary"}, {"id": "flagged", "title": "Flagged"},
           {"id": "closest", "title": "Closest calls"}]
    return render_page(title=title, kicker="subgroup discovery", sections=parts, toc=toc)


def write_discover_report(source, path, *, title: str | None = None,
                          figures: bool = True) -> Path:
    """Write the HTML page of a search (result, dict or saved JSON) to ``path``."""
    from fairbound.report._common import check_path, write_page

    p = check_path(path, (".html", ".htm"))
    inputs = (str(source),) if isinstance(source, str | Path) else ()
    return write_page(p, render_discover_report(source, title=title, figures=figures),
                      inputs=inputs)


def _as_dict(source) -> dict:
    from fairbound.errors import FairboundError

    if isinstance(source, dict):
        return source
    if isinstance(source, str | Path):
        try:
            d = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise FairboundError(f"source: cannot read {str(source)!r}: {exc}",
                                 param="source") from None
        if d.get("kind", "discover") != "discover" or "n_candidates" not in d:
            raise FairboundError(f"source: {str(source)!r} is not a discover result",
                                 param="source")
        return d
    return source.to_dict()


__all__ = ["control_text", "plot_slices", "render_discover_report", "slice_sentence",
           "statement", "write_discover_report"]
