"""Figures for audits: intervals you can look at.

Every function returns a :class:`matplotlib.figure.Figure` and accepts either a live
:class:`~fairbound.audits.AuditResult` or its JSON form (the ``"fairbound.audit/1"``
dictionary written by :meth:`~fairbound.audits.AuditResult.to_json`, or a path to such a file),
so a saved audit can be plotted without the data.  matplotlib is an optional dependency
(``pip install "fairbound[plot]"``), imported only when a figure is drawn.

* :func:`plot_forest` - every gap with its interval and the zero line.
* :func:`plot_group_rates` - each group's rate with a Wilson interval, per rate.
* :func:`plot_sample_size` - annotated examples needed vs gap size, with the current n marked;
  for a :class:`~fairbound.planning.BBUPlan`, the Bernstein n-vs-bias curve.
"""

from __future__ import annotations

import math

from fairbound._docs import fill
from fairbound._render import as_number as _num
from fairbound._validate import check_choice, check_int
from fairbound._words import GAP_VERDICTS, NO_EVIDENCE, NO_GAP, NOT_ESTIMABLE
from fairbound.errors import FairboundError
from fairbound.viz._figure import (
    ACCENT,
    _check_ax,
    _figure_axes,
    _forest_axis,
    _level_text,
    _pyplot,
    _style,
    _tight,
    result_dict,
    short,
    text_safe,
)

# Moved to fairbound.viz._figure (the shared helpers); importable from here for one release.
from fairbound.viz._figure import _chosen as _chosen
from fairbound.viz._figure import _figure as _figure
from fairbound.viz._figure import _save as _save
from fairbound.viz._figure import read_result_json as read_result_json

SCHEMA = "fairbound.audit/1"

# Colour-blind-safe pair (ColorBrewer RdBu ends) plus greys; verdicts are also told apart by
# marker fill so the figures survive black-and-white printing.
VERDICT_COLOURS = {
    **dict.fromkeys(GAP_VERDICTS, "#b2182b"),  # A disadvantaged, B disadvantaged, unequal
    NO_EVIDENCE: "#4d4d4d",
    NO_GAP: "#2166ac",
    NOT_ESTIMABLE: "#bababa",
}


def comparison_label(c: dict) -> str:
    """Return ``metric[component, k=class]``, as :attr:`fairbound.audits.Comparison.label`.

    Examples
    --------
    >>> comparison_label({"metric": "equalized_odds", "component": "tpr", "class": None})
    'equalized_odds[tpr]'
    >>> comparison_label({"metric": "equal_opportunity", "component": "tpr", "class": "hate"})
    'equal_opportunity[k=hate]'
    """
    from fairbound.metrics import get_metric

    try:  # the component is named only for metrics with several parts
        several = bool(getattr(get_metric(c["metric"]), "simultaneous", False))
    except FairboundError:  # a metric of another fairbound version
        several = False
    parts = [c["component"]] if several else []
    if c.get("class") is not None:
        parts.append(f"k={c['class']}")
    return f"{c['metric']}[{', '.join(parts)}]" if parts else c["metric"]


@fill
def audit_dict(result) -> dict:
    """Return the ``"fairbound.audit/1"`` dictionary of an audit, whatever form it comes in.

    Parameters
    ----------
    result : AuditResult, dict or path
        A live result, its :meth:`~fairbound.audits.AuditResult.to_dict` form, or a JSON file
        written by :meth:`~fairbound.audits.AuditResult.to_json`.

    Returns
    -------
    dict
        The audit as a plain dictionary.

    {{toy_examples}}
    >>> audit_dict(audit(df, group="g", label="y", prediction="p"))["schema"]
    'fairbound.audit/1'
    """
    return result_dict(result, SCHEMA, live="comparisons", kind="audit ",
                       expected="an AuditResult, its to_dict() form or a JSON file path",
                       lists=("comparisons",))


def interval_level(d: dict) -> float:
    """The level every interval of the audit is at, or NaN when they differ.

    Examples
    --------
    >>> interval_level({"confidence_level": 0.95, "comparisons": [
    ...     {"component": "tpr", "interval_level": 0.99, "verdict": "not enough evidence"}]})
    0.99
    """
    levels = {round(_num(c.get("interval_level", c.get("confidence_level"))), 12)
              for c in d["comparisons"]
              if c["component"] != "max" and c["verdict"] != NOT_ESTIMABLE}
    if not levels:
        return _num(d.get("confidence_level"))
    return levels.pop() if len(levels) == 1 else math.nan


def _pair(c: dict) -> str:
    return f"{short(c['group_a'])} vs {short(c['group_b'])}"


def _forest_rows(comps: list[dict], max_rows: int | None) -> list[dict]:
    """At most ``max_rows`` comparisons: verdicts first, then the largest gaps; order kept."""
    if max_rows is None or len(comps) <= max_rows:
        return comps

    def key(i):
        c = comps[i]
        g = _num(c["estimate"] if c["component"] == "max" else c["rate_gap"])
        return (c["verdict"] not in GAP_VERDICTS,
                -abs(g) if math.isfinite(g) else 0.0)

    keep = sorted(sorted(range(len(comps)), key=key)[:max_rows])
    return [comps[i] for i in keep]


@fill
def plot_forest(result, *, ax=None, max_rows: int | None = None):
    """Forest plot: every gap with its interval, the zero line and the verdict.

    Parameters
    ----------
    result : AuditResult, dict or path
        The audit (see :func:`audit_dict`).
    ax : matplotlib Axes, optional
        Where to draw (a new figure sized to the number of comparisons otherwise).
    max_rows : int, optional
        Draw at most this many comparisons: those with a verdict first, then the largest
        gaps (their order is kept).  All by default.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Gaps are on the rate scale, ``rate_A - rate_B`` (TPR, selection rate, ...), with each
    comparison's own interval at its ``interval_level`` (named on the x axis; under
    ``error_control="family"`` the family-wise level too).  With a tolerance the band
    ``+/- tolerance`` is shaded and "no meaningful gap" verdicts are filled squares.  The
    ``max |gap|`` rows of multi-part metrics (equalized odds) show the interval for the
    largest absolute gap as hollow diamonds.  Filled markers: the interval excludes 0 (a
    verdict); hollow circles: not enough evidence; no marker: not estimable.

    {{toy_examples}}
    >>> fig = plot_forest(audit(df, group="g", label="y", prediction="p"))
    >>> len(fig.axes)
    1
    """
    d = audit_dict(result)
    _check_ax(ax)
    if max_rows is not None:
        check_int(max_rows, "max_rows", low=1)
    comps = _forest_rows(d["comparisons"], max_rows)
    fig, ax = _figure_axes(ax, (7.5, 1.0 + 0.27 * max(len(comps), 1)))
    labels = []
    for i, c in enumerate(comps):
        y = len(comps) - 1 - i
        colour = VERDICT_COLOURS.get(c["verdict"], "#4d4d4d")
        is_max = c["component"] == "max"
        if is_max:
            est, lo, hi = _num(c["estimate"]), _num(c["low"]), _num(c["high"])
        else:
            est, lo, hi = _num(c["rate_gap"]), _num(c["rate_gap_low"]), _num(c["rate_gap_high"])
        verdict = c["verdict"] not in (NO_EVIDENCE, NOT_ESTIMABLE)
        if math.isfinite(lo) and math.isfinite(hi):
            ax.plot([lo, hi], [y, y], color=colour, lw=1.6, solid_capstyle="butt")
        if math.isfinite(est):
            marker = "D" if is_max else ("s" if c["verdict"] == NO_GAP else "o")
            ax.plot([est], [y], marker=marker, ms=5, color=colour,
                    mfc=colour if (verdict and not is_max) else "white", mew=1.3)
        rate = "max |gap|" if is_max else c["rate"]
        if c.get("class") is not None:
            rate = f"{rate}, k={c['class']}"
        labels.append(text_safe(f"{_pair(c)}  ({rate})"))
    ax.axvline(0.0, color="black", lw=0.8)
    tol = _num(d.get("tolerance"))
    if math.isfinite(tol):
        ax.axvspan(-tol, tol, color=VERDICT_COLOURS[NO_GAP], alpha=0.08, lw=0)
    blocks: list[list] = []  # consecutive rows of one metric: [metric, first, last]
    for i, c in enumerate(comps):
        if blocks and blocks[-1][0] == c["metric"]:
            blocks[-1][2] = i
        else:
            blocks.append([c["metric"], i, i])
    _forest_axis(ax, labels, [(text_safe(m), first, last) for m, first, last in blocks])
    il = interval_level(d)
    if math.isfinite(il):
        what = f"{_level_text(il)} intervals"
        control = d.get("error_control")
        if control in ("family", "fdr") and abs(il - _num(d.get("confidence_level"))) > 1e-12:
            what += (f" (family-wise {_level_text(_num(d['confidence_level']))})"
                     if control == "family" else " (false-coverage-rate adjusted)")
    else:
        what = "intervals at the levels in the table"
    ax.set_xlabel(f"gap = rate(A) - rate(B), with {what}", fontsize=8.5)
    ax.grid(True, axis="x", alpha=0.3)
    _style(ax)
    _tight(fig)
    return fig


def _group_rates(d: dict) -> dict:
    """``{(rate, component, class): {group: (n, rate)}}`` from the comparisons."""
    panels: dict[tuple, dict] = {}
    vs_rest = d.get("comparison") == "vs-rest"
    order = {g["group"]: i for i, g in enumerate(d.get("groups", []))}
    for c in d["comparisons"]:
        if c["component"] == "max":
            continue
        key = (c["rate"], c["component"], c.get("class"))
        sides = [("a", c["group_a"])] + ([] if vs_rest else [("b", c["group_b"])])
        for side, g in sides:
            n = c.get(f"n_{side}")
            if n is None:
                continue
            panels.setdefault(key, {})[g] = (_num(n), _num(c.get(f"rate_{side}")))
    return {k: dict(sorted(v.items(), key=lambda kv: order.get(kv[0], len(order))))
            for k, v in panels.items()}


@fill
def group_rate_rows(result, *, confidence_level: float | None = None) -> list[dict]:
    """Each group's rate with its Wilson interval, one row per (rate, class, group).

    Parameters
    ----------
    result : AuditResult, dict or path
        The audit.
    confidence_level : float, optional
        Level of the Wilson intervals (default: the audit's level).

    Returns
    -------
    list of dict
        Keys ``rate``, ``component``, ``class``, ``group``, ``n``, ``value``, ``low``,
        ``high`` (NaN bounds for empty groups or fractional costs).

    {{toy_examples}}
    >>> rows = group_rate_rows(audit(df, group="g", label="y", prediction="p",
    ...                              metrics="equal_opportunity"))
    >>> [(r["group"], r["n"], r["value"]) for r in rows]
    [('a', 2.0, 1.0), ('b', 2.0, 0.5)]
    """
    from fairbound.stats.base import check_confidence_level
    from fairbound.stats.intervals import wilson

    d = audit_dict(result)
    level = check_confidence_level(
        d.get("confidence_level", 0.95) if confidence_level is None else confidence_level)
    rows = []
    for (rate, comp, cls), groups in _group_rates(d).items():
        for g, (n, value) in groups.items():
            lo = hi = math.nan
            k = value * n
            # Wilson needs counts: 0/1 rates give whole numbers, fractional costs do not.
            if n > 0 and math.isfinite(k) and abs(k - round(k)) < 1e-6:
                lo, hi = wilson(round(k), n, level)
            rows.append({"rate": rate, "component": comp, "class": cls, "group": g, "n": n,
                         "value": value, "low": lo, "high": hi})
    return rows


@fill
def plot_group_rates(result, *, confidence_level: float | None = None, ncols: int = 3):
    """Each group's rate with a Wilson interval and its count, one panel per rate.

    Parameters
    ----------
    result : AuditResult, dict or path
        The audit (see :func:`audit_dict`).
    confidence_level : float, optional
        Level of the per-group Wilson intervals (default: the audit's level).
    ncols : int
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    The Wilson score interval (Wilson 1927) covers each group's rate separately; it says
    nothing about the gap (see :func:`plot_forest` for that).  Rates of fractional costs have
    no Wilson interval and are drawn as points only.

    References
    ----------
    E. B. Wilson. "Probable inference, the law of succession, and statistical inference."
    JASA 22 (1927) 209-212.

    {{toy_examples}}
    >>> fig = plot_group_rates(audit(df, group="g", label="y", prediction="p",
    ...                              metrics=["equal_opportunity", "demographic_parity"]))
    >>> len([a for a in fig.axes if a.get_visible()])
    2
    """
    check_int(ncols, "ncols", low=1)
    rows = group_rate_rows(result, confidence_level=confidence_level)
    plt = _pyplot()
    panels: dict[tuple, list[dict]] = {}
    for r in rows:
        panels.setdefault((r["rate"], r["class"]), []).append(r)
    k = max(len(panels), 1)
    nc = min(ncols, k)
    nr = math.ceil(k / nc)
    most = max((len(v) for v in panels.values()), default=1)
    fig, axes = plt.subplots(nr, nc, figsize=(3.4 * nc, 0.6 + nr * (0.55 + 0.3 * most)),
                             squeeze=False)
    flat = [a for row in axes for a in row]
    for ax, ((rate, cls), items) in zip(flat, panels.items(), strict=False):
        for j, r in enumerate(items):
            y = len(items) - 1 - j
            if math.isfinite(r["low"]):
                ax.plot([r["low"], r["high"]], [y, y], color=ACCENT, lw=1.6)
            if math.isfinite(r["value"]):
                ax.plot([r["value"]], [y], "o", color=ACCENT, ms=4.5)
            else:
                ax.text(0.5, y, NOT_ESTIMABLE, fontsize=7, ha="center", va="center",
                        color="#777777")
            ax.annotate(f"n={r['n']:,.0f}", xy=(1.0, y), xycoords=("axes fraction", "data"),
                        xytext=(3, 0), textcoords="offset points", fontsize=6.5,
                        va="center", color="#555555")
        ax.set_yticks(range(len(items)))
        ax.set_yticklabels([text_safe(short(r["group"])) for r in items][::-1], fontsize=7.5)
        ax.set_ylim(-0.6, len(items) - 0.4)
        ax.set_xlim(-0.02, 1.02)
        title = rate if cls is None else f"{rate}, k={cls}"
        ax.set_title(text_safe(title), fontsize=9, loc="left")
        ax.grid(True, axis="x", alpha=0.3)
        _style(ax)
    for ax in flat[len(panels):]:
        ax.set_visible(False)
    _tight(fig)
    return fig


def plot_sample_size(result, *, ax=None):
    """Annotated examples needed vs the size of the gap, with the current n marked.

    Parameters
    ----------
    result : AuditResult, dict, path or BBUPlan
        An audit: each estimable comparison is drawn at its observed ``|rate gap|`` with the
        n its interval method needs to settle it (filled marker) and the n it has now (open
        marker), joined by a line; the Bernstein worst-case curve of
        :func:`fairbound.planning.plan_curve` (balanced groups, the audit's level) is drawn for
        reference.  A :class:`~fairbound.planning.BBUPlan`: its n-vs-bias curve with the
        plan's n marked.
    ax : matplotlib Axes, optional
        Where to draw.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    "n needed" is the total annotated examples (A + B, same group shares) at which the
    method's interval would exclude 0 if the observed gap were the true one; it is a planning
    figure, not a guarantee that the next sample will show a gap.

    Examples
    --------
    >>> from fairbound.planning import plan_bbu
    >>> fig = plot_sample_size(plan_bbu(bias=0.05, confidence_level=0.95))
    >>> fig.axes[0].get_yscale()
    'log'
    """
    from fairbound.planning import BBUPlan, plan_bbu, plan_curve
    from fairbound.viz.planning import plot_plan_curve

    _check_ax(ax)
    if isinstance(result, BBUPlan):
        _pyplot()
        mark = int(result.n_required)
        return plot_plan_curve(result, mark_n=mark, mark_label=f"n = {mark:,}", ax=ax)
    d = audit_dict(result)
    fig, ax = _figure_axes(ax, (7.5, 4.8))
    level = interval_level(d)  # the level the "n needed" figures are planned at
    if not math.isfinite(level):
        level = _num(d.get("confidence_level"))
    level = level if 0 < level < 1 else 0.95
    pts = []
    for c in d["comparisons"]:
        g, need = _num(c.get("rate_gap")), _num(c.get("required_n"))
        if c["component"] == "max" or not math.isfinite(g) or not math.isfinite(need):
            continue
        pts.append((abs(g), need, _num(c["n_a"]) + _num(c["n_b"]), c["verdict"]))
    top = max([p[0] for p in pts], default=0.3)
    # gaps live on the rate scale, at most 1: the Bernstein curve is drawn up to there (a
    # group whose rate is 1 gives a gap near 1, and the bound is not defined above it)
    grid = [x for x in (0.01 * 1.08 ** i for i in range(80))
            if x <= min(max(top * 1.15, 0.05), 1.0)]
    curve = plan_curve(grid, confidence_level=level)
    ax.plot(curve["bias"], curve["n"], "-", color="#999999", lw=1.2,
            label="Bernstein bound, balanced groups, worst-case variance")
    for gap, need, now, verdict in pts:
        colour = VERDICT_COLOURS.get(verdict, "#4d4d4d")
        ax.plot([gap, gap], [now, need], color=colour, lw=0.8, alpha=0.7)
        ax.plot([gap], [need], "o", color=colour, ms=4.5)
        ax.plot([gap], [now], "o", mfc="white", color=colour, ms=4.5)
    n_total = sum(int(g["rows"]) for g in d.get("groups", []))
    if n_total > 0:
        ax.axhline(n_total, color=ACCENT, lw=1, ls="--",
                   label=f"annotated rows in this audit: {n_total:,}")
        at = plan_bbu(n=n_total, confidence_level=level)
        if at.bias <= 1.0:
            ax.plot([at.bias], [n_total], "s", color=ACCENT, ms=5,
                    label=f"Bernstein: smallest claimable gap at this n = "
                          f"{at.bias_rounded_up:.4f}")
    ax.plot([], [], "o", color="#4d4d4d", label="n needed at the observed gap (audit method)")
    ax.plot([], [], "o", color="#4d4d4d", mfc="white", label="n compared now (A + B)")
    ax.set_yscale("log")
    ax.set_xlabel("|gap| (rate scale)", fontsize=8.5)
    ax.set_ylabel("annotated examples needed", fontsize=8.5)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2,
              frameon=False)  # below the axes: the points can be anywhere
    _style(ax)
    _tight(fig)
    return fig


@fill
def plot_audit(result, kind: str = "forest", **options):
    """Dispatch to :func:`plot_forest`, :func:`plot_group_rates` or :func:`plot_sample_size`.

    Parameters
    ----------
    result : AuditResult, dict or path
        The audit.
    kind : {'forest', 'rates', 'sample-size'}
        Which figure.
    **options
        Passed to the figure function.

    Returns
    -------
    matplotlib.figure.Figure

    {{toy_examples}}
    >>> fig = plot_audit(audit(df, group="g", label="y", prediction="p"), "rates")
    >>> fig.axes[0].get_title(loc="left")
    'selection rate'
    """
    kinds = {"forest": plot_forest, "rates": plot_group_rates,
             "sample-size": plot_sample_size}
    return kinds[check_choice(kind, kinds, "kind", sep="-")](result, **options)


@fill
def plot_comparison(comparison, *, confidence_level: float | None = None):
    """One comparison: both groups' rates with Wilson intervals, and the gap with its interval.

    Parameters
    ----------
    comparison : Comparison or dict
        A :class:`~fairbound.audits.Comparison` or one entry of an audit JSON's
        ``"comparisons"``.
    confidence_level : float, optional
        Level of the Wilson intervals (default: the comparison's level).

    Returns
    -------
    matplotlib.figure.Figure

    {{toy_examples}}
    >>> res = audit(df, group="g", label="y", prediction="p", metrics="equal_opportunity")
    >>> len(plot_comparison(res.comparisons[0]).axes)
    2
    """
    from fairbound.stats.base import check_confidence_level
    from fairbound.stats.intervals import wilson

    c = comparison.to_dict() if hasattr(comparison, "to_dict") else comparison
    if not isinstance(c, dict) or "verdict" not in c or "rate_gap" not in c:
        raise FairboundError(f"comparison must be a Comparison or its to_dict() form; got "
                             f"{type(comparison).__name__}", param="comparison")
    if c["component"] == "max":
        raise FairboundError("comparison: a 'max' component has no group rates; plot its "
                             "components", param="comparison")
    level = check_confidence_level(c["confidence_level"] if confidence_level is None
                                   else confidence_level)
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.5, 1.9),
                                      gridspec_kw={"width_ratios": [1.1, 1]})
    for y, side in ((1, "a"), (0, "b")):
        n, r = _num(c[f"n_{side}"]), _num(c[f"rate_{side}"])
        if math.isfinite(r):
            k = r * n
            if n > 0 and abs(k - round(k)) < 1e-6:
                lo, hi = wilson(round(k), n, level)
                left.plot([lo, hi], [y, y], color=ACCENT, lw=1.6)
            left.plot([r], [y], "o", color=ACCENT, ms=5)
        left.annotate(f"n={n:,.0f}" if math.isfinite(n) else "n=-", xy=(1.0, y),
                      xycoords=("axes fraction", "data"), xytext=(3, 0),
                      textcoords="offset points", fontsize=7, va="center")
    left.set_yticks([0, 1])
    left.set_yticklabels([text_safe(short(c["group_b"])), text_safe(short(c["group_a"]))],
                         fontsize=8)
    left.set_xlim(-0.02, 1.02)
    left.set_ylim(-0.6, 1.6)
    left.set_title(text_safe(f"{c['rate']} ({level:.0%} Wilson)"), fontsize=9, loc="left")
    colour = VERDICT_COLOURS.get(c["verdict"], "#4d4d4d")
    g, lo, hi = _num(c["rate_gap"]), _num(c["rate_gap_low"]), _num(c["rate_gap_high"])
    if math.isfinite(lo) and math.isfinite(hi):
        right.plot([lo, hi], [0, 0], color=colour, lw=2)
    if math.isfinite(g):
        right.plot([g], [0], "o", color=colour, ms=6)
    right.axvline(0.0, color="black", lw=0.8)
    right.set_yticks([])
    right.set_ylim(-1, 1)
    right.set_title(text_safe(f"gap A - B: {c['verdict']}"), fontsize=9, loc="left")
    il = _num(c.get("interval_level", c["confidence_level"]))
    right.set_xlabel(f"{_level_text(il)} interval ({c['method']})", fontsize=8)
    for ax in (left, right):
        ax.grid(True, axis="x", alpha=0.3)
        _style(ax)
    _tight(fig)
    return fig


__all__ = ["audit_dict", "group_rate_rows", "plot_audit", "plot_comparison", "plot_forest",
           "plot_group_rates", "plot_sample_size", "text_safe"]
