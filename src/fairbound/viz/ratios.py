"""The impact-ratio forest plot: each group's ratio with its interval and the 0.8 line.

Figures read the JSON form of an impact-ratio result (``"fairbound.impact/1"``) or of a
Local Law 144 audit (``"fairbound.ll144/1"``, one block per category), so a saved result
can be drawn without the data.  matplotlib is imported only when a figure is drawn.
"""

from __future__ import annotations

import math
from pathlib import Path

from fairbound._render import as_number as _num
from fairbound._words import ADVERSE, NO_ADVERSE, NO_EVIDENCE, NOT_ESTIMABLE, REFERENCE
from fairbound.errors import FairboundError
from fairbound.viz._figure import (
    _check_ax,
    _figure_axes,
    _forest_axis,
    _pyplot,
    _style,
    _tight,
    read_result_json,
    short,
    text_safe,
)

IMPACT_SCHEMA = "fairbound.impact/1"
LL144_SCHEMA = "fairbound.ll144/1"

COLOURS = {ADVERSE: "#b2182b", NO_ADVERSE: "#2166ac", NO_EVIDENCE: "#4d4d4d",
           NOT_ESTIMABLE: "#bababa", REFERENCE: "#4d4d4d"}


def ll144_dict(result) -> dict:
    """The ``"fairbound.ll144/1"`` dictionary of an audit, whatever form it comes in.

    Parameters
    ----------
    result : LL144Audit, ImpactRatioResult, dict, list of those, or path
        A Local Law 144 audit, one category's impact ratios (or several), their
        ``to_dict()`` forms, or a JSON file holding one.

    Returns
    -------
    dict
        ``{"schema": "fairbound.ll144/1", "categories": [...], "data_source": ...,
        "date_range": ..., ...}``; one category becomes a one-category audit.

    Examples
    --------
    >>> d = ll144_dict({"schema": "fairbound.impact/1", "category": "sex", "ratios": [],
    ...                 "source": "x.csv", "created": "t", "fairbound_version": "0"})
    >>> d["schema"], len(d["categories"]), d["data_source"]
    ('fairbound.ll144/1', 1, 'x.csv')
    """
    if isinstance(result, list | tuple):
        parts = [ll144_dict(r) for r in result]
        if not parts:
            raise FairboundError("result: no impact-ratio results given", param="result")
        out = dict(parts[0])
        out["categories"] = [c for p in parts for c in p["categories"]]
        return out
    if hasattr(result, "to_dict") and not isinstance(result, dict):
        result = result.to_dict()
    if isinstance(result, str | Path):
        result = read_result_json(result)
    if not isinstance(result, dict):
        raise FairboundError("result must be an impact-ratio result, a Local Law 144 audit, "
                             f"their to_dict() form or a JSON path; got "
                             f"{type(result).__name__}", param="result")
    schema = result.get("schema")
    if schema == IMPACT_SCHEMA:
        return {"schema": LL144_SCHEMA, "fairbound_version": result.get("fairbound_version"),
                "created": result.get("created"), "data_source": result.get("source"),
                "date_column": None, "date_range": None, "categories": [result]}
    if schema != LL144_SCHEMA:
        raise FairboundError(f"result: expected schema {IMPACT_SCHEMA!r} or {LL144_SCHEMA!r}; "
                             f"got {schema!r}", param="result")
    if not isinstance(result.get("categories"), list):
        raise FairboundError("result: 'categories' must be a list", param="result")
    return result


def plot_impact_ratios(result, *, ax=None, threshold: float | None = None):
    """Forest plot: each group's impact ratio with its interval, the threshold and 1.

    Parameters
    ----------
    result : ImpactRatioResult, LL144Audit, dict, list or path
        See :func:`ll144_dict`; several categories are drawn as blocks, one under another.
    ax : matplotlib Axes, optional
        Where to draw (a new figure sized to the number of rows otherwise).
    threshold : float, optional
        The line drawn (default: the results' threshold, 0.8 for the four-fifths rule).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    The x axis is logarithmic (a ratio and its inverse are equally far from 1).  Filled
    red: the interval lies below the threshold (evidence of adverse impact); filled blue:
    above it (evidence of no adverse impact); hollow: not enough evidence.  An interval
    reaching 0 or infinity is drawn to the edge with an arrow.  Groups under the minimum
    share are not drawn (the report's tables list them).

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound.audits.ratios.audit import impact_ratios
    >>> df = pd.DataFrame({"g": ["a"] * 100 + ["b"] * 100,
    ...                    "p": [1, 0] * 50 + [1, 0, 0, 0] * 25})
    >>> fig = plot_impact_ratios(impact_ratios(df, group="g", prediction="p"))
    >>> len(fig.axes)
    1
    """
    d = ll144_dict(result)
    _check_ax(ax)
    _pyplot()  # without matplotlib, say so before checking the threshold
    rows = []
    for cat in d["categories"]:
        for r in cat.get("ratios", []):
            rows.append((cat, r))
    thr = _num(threshold) if threshold is not None else _num(
        d["categories"][0].get("threshold") if d["categories"] else 0.8)
    if not (thr > 0):
        raise FairboundError(f"threshold must be positive; got {threshold!r}",
                             param="threshold")
    fig, ax = _figure_axes(ax, (7.5, 1.2 + 0.3 * max(len(rows), 1)))
    finite = [thr, 1.0]
    for _, r in rows:
        for key in ("ratio", "low", "high"):
            v = _num(r.get(key))
            if math.isfinite(v) and v > 0:
                finite.append(v)
    left, right = min(finite) / 1.3, max(finite) * 1.3
    labels = []
    for i, (cat, r) in enumerate(rows):
        y = len(rows) - 1 - i
        colour = COLOURS.get(r["verdict"], "#4d4d4d")
        est, lo, hi = _num(r.get("ratio")), _num(r.get("low")), _num(r.get("high"))
        if r.get("high_infinite"):
            hi = math.inf
        if not math.isnan(lo) and not math.isnan(hi):
            a, b = max(lo, left), min(hi, right)
            ax.plot([a, b], [y, y], color=colour, lw=1.6, solid_capstyle="butt")
            if lo <= left:
                ax.plot([left], [y], marker="<", ms=5, color=colour)
            if hi >= right:
                ax.plot([right], [y], marker=">", ms=5, color=colour)
        if math.isfinite(est) and est > 0:
            settled = r["verdict"] in (ADVERSE, NO_ADVERSE)
            ax.plot([est], [y], marker="o", ms=5, color=colour,
                    mfc=colour if settled else "white", mew=1.3)
        what = short(r.get("group"))
        if cat.get("versus") == "pairwise":
            what = f"{short(r.get('group'), 20)} / {short(r.get('versus'), 20)}"
        labels.append(text_safe(f"{what}  (n={int(_num(r.get('n'))):,})"
                                if math.isfinite(_num(r.get("n"))) else what))
    ax.set_xscale("log")
    ax.set_xlim(left, right)
    ax.axvline(thr, color=COLOURS[ADVERSE], lw=1.0, ls="--")
    ax.axvline(1.0, color="black", lw=0.8)
    ax.text(thr, 1.0, f" {thr:g}", transform=ax.get_xaxis_transform(), fontsize=7.5,
            color=COLOURS[ADVERSE], va="bottom", ha="center")
    ticks = [t for t in (0.05, 0.1, 0.2, 0.25, 0.5, 0.8, 1.0, 1.25, 2.0, 4.0, 10.0)
             if left <= t <= right]
    if thr not in ticks and left <= thr <= right:
        ticks = sorted([*ticks, thr])
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.minorticks_off()
    blocks = []  # one block of rows per category: (name, first row, last row)
    first = 0
    for cat in d["categories"]:
        k = len(cat.get("ratios", []))
        if k == 0:
            continue
        blocks.append((text_safe(short(cat.get("category", ""), 24)), first, first + k - 1))
        first += k
    _forest_axis(ax, labels, blocks)
    levels = {c.get("confidence_level") for c in d["categories"]}
    controls = {c.get("error_control") for c in d["categories"]}
    from fairbound._render import fmt_level

    what = "intervals"
    if len(levels) == 1 and len(controls) == 1:
        lvl = fmt_level(levels.pop())
        what = (f"family-wise {lvl} intervals per category" if controls.pop() == "family"
                else f"{lvl} intervals")
    names = sorted({c.get("rate_name", "rate") for c in d["categories"]})
    ax.set_xlabel(f"impact ratio = {' / '.join(names)} of the group / of the comparison "
                  f"group (log scale)\nwith {what}", fontsize=8.5)
    ax.grid(True, axis="x", alpha=0.3)
    _style(ax)
    _tight(fig)
    return fig


__all__ = ["ll144_dict", "plot_impact_ratios"]
