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

import json
import math
from pathlib import Path
from typing import Any

from fairbound._render import as_number as _num
from fairbound._validate import check_choice, check_int
from fairbound._words import (
    A_DISADVANTAGED,
    B_DISADVANTAGED,
    NO_EVIDENCE,
    NO_GAP,
    NOT_ESTIMABLE,
    UNEQUAL,
)
from fairbound.errors import FairboundError, require

SCHEMA = "fairbound.audit/1"

# Colour-blind-safe pair (ColorBrewer RdBu ends) plus greys; verdicts are also told apart by
# marker fill so the figures survive black-and-white printing.
VERDICT_COLOURS = {
    A_DISADVANTAGED: "#b2182b",
    B_DISADVANTAGED: "#b2182b",
    UNEQUAL: "#b2182b",
    NO_EVIDENCE: "#4d4d4d",
    NO_GAP: "#2166ac",
    NOT_ESTIMABLE: "#bababa",
}
ACCENT = "#2166ac"


def text_safe(s: Any) -> str:
    r"""Make a user string literal for matplotlib (``$`` would start mathtext).

    Examples
    --------
    >>> text_safe("$x$ group")
    '\\$x\\$ group'
    """
    return str(s).replace("$", r"\$")


def short(s: Any, width: int = 32) -> str:
    """Shorten a label for a figure (tables keep the full text).

    Examples
    --------
    >>> short("a" * 40, 10)
    'aaaaaaaaa\u2026'
    """
    s = str(s)
    return s if len(s) <= width else s[: width - 1] + "\u2026"


def _save(fig, path) -> None:
    """Write ``fig`` to ``path`` (PNG, SVG or PDF, folders made) unless ``path`` is None."""
    if path is not None:
        p = Path(path)
        if p.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise FairboundError(f"path must end in .png, .svg or .pdf; got {str(path)!r}",
                                 param="path")
        p.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(p, dpi=120)


def _tight(fig) -> None:
    """``tight_layout`` without a warning when long labels leave no room (it does its best)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()


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


def read_result_json(path: str | Path, kind: str = "") -> Any:
    """The JSON a result was saved as, or a one-line error about the ``result`` file.

    ``kind`` (``"audit "``, ``"score-audit "``...) names the file in the message.
    """
    path = Path(path)
    if not path.is_file():
        raise FairboundError(f"result: no such {kind}JSON file {str(path)!r}", param="result")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FairboundError(f"result: {str(path)!r} is not JSON ({exc})",
                             param="result") from None


def result_dict(result, schema: str, *, live: str, kind: str, expected: str,
                lists: tuple[str, ...] = ()) -> dict:
    """The JSON dictionary of a result given live, as a dictionary or as a JSON file.

    Parameters
    ----------
    result : object, dict or path
        A live result (anything with ``to_dict()`` and the attribute ``live``), its
        dictionary, or a JSON file holding that dictionary.
    schema : str
        The ``"schema"`` a dictionary or file must declare.
    live : str
        An attribute that tells a live result of this kind from other objects.
    kind : str
        Names the file in the message of a missing or unreadable one (``"audit "``...).
    expected : str
        What ``result`` should have been, for the message of a wrong type.
    lists : tuple of str
        Keys of a dictionary or file that must hold lists.

    Returns
    -------
    dict
        The live result's ``to_dict()``, or the dictionary (or file) checked.

    Examples
    --------
    >>> result_dict({"schema": "s/1", "rows": []}, "s/1", live="rows", kind="",
    ...             expected="a result", lists=("rows",))
    {'schema': 's/1', 'rows': []}
    """
    if hasattr(result, "to_dict") and hasattr(result, live):
        result = result.to_dict()
    elif isinstance(result, str | Path):
        result = read_result_json(result, kind)
    if not isinstance(result, dict):
        raise FairboundError(f"result must be {expected}; got {type(result).__name__}",
                             param="result")
    if result.get("schema") != schema:
        raise FairboundError(f"result: expected schema {schema!r}; got "
                             f"{result.get('schema')!r}", param="result")
    for key in lists:
        if not isinstance(result.get(key), list):
            raise FairboundError(f"result: {key!r} must be a list", param="result")
    return result


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

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound import audit
    >>> df = pd.DataFrame({"g": list("aaaabbbb"), "y": [1, 1, 0, 0] * 2,
    ...                    "p": [1, 1, 0, 1, 1, 0, 0, 0]})
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


def _level_text(x: float) -> str:
    from fairbound._render import fmt_level

    return fmt_level(x)


def _pyplot():
    return require("matplotlib.pyplot", "plot")


def _style(ax) -> None:
    ax.spines["top"].set_visible(False)
    ax.spines["right"].set_visible(False)
    ax.tick_params(labelsize=8)


def _pair(c: dict) -> str:
    return f"{short(c['group_a'])} vs {short(c['group_b'])}"


def _check_ax(ax):
    if ax is not None and not hasattr(ax, "figure"):
        raise FairboundError(f"ax must be a matplotlib Axes; got {type(ax).__name__}",
                             param="ax")
    return ax


def _figure_axes(ax, figsize: tuple[float, float]):
    """``(figure, axes)``: ``ax`` and its figure, or a new pyplot figure of ``figsize``."""
    plt = _pyplot()
    if ax is None:
        return plt.subplots(figsize=figsize)
    return ax.figure, ax


def _figure(width: float, height: float):
    """A new :class:`matplotlib.figure.Figure` with constrained layout (no pyplot state)."""
    mfig = require("matplotlib.figure", "plot")
    return mfig.Figure(figsize=(width, height), layout="constrained")


def _chosen(values, wanted, param: str, noun: str) -> list[str]:
    """The names to draw: all of ``values`` (first-seen order) or those ``wanted``.

    Examples
    --------
    >>> _chosen(["b", "a", "b"], None, "genres", "genre")
    ['b', 'a']
    >>> _chosen(["b", "a"], ["c"], "genres", "genre")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: genres: no genre 'c'; genres are ['b', 'a']
    """
    known = list(dict.fromkeys(values))
    chosen = known if wanted is None else [str(x) for x in wanted]
    bad = [x for x in chosen if x not in known]
    if bad or not chosen:
        raise FairboundError(f"{param}: no {noun} {bad[0] if bad else None!r}; {param} are "
                             f"{known}", param=param)
    return chosen


def _forest_axis(ax, labels: list[str], blocks: list[tuple[str, int, int]]) -> None:
    """The rows of a forest plot: ``labels`` top down, and ``blocks`` named at the right.

    ``blocks`` are ``(name, first, last)`` runs of rows (``name`` already text-safe); a
    grey line separates each block from the one above it.
    """
    n = len(labels)
    ax.set_yticks(range(n))
    ax.set_yticklabels(labels[::-1], fontsize=7.5)
    ax.set_ylim(-0.7, n - 0.3)
    side = ax.get_yaxis_transform()
    for name, first, last in blocks:
        if first > 0:
            ax.axhline(n - first - 0.5, color="#cccccc", lw=0.6)
        ax.text(1.01, n - 1 - (first + last) / 2, name, transform=side, fontsize=7.5,
                va="center", ha="left", color="#333333")


def _forest_rows(comps: list[dict], max_rows: int | None) -> list[dict]:
    """At most ``max_rows`` comparisons: verdicts first, then the largest gaps; order kept."""
    if max_rows is None or len(comps) <= max_rows:
        return comps

    def key(i):
        c = comps[i]
        g = _num(c["estimate"] if c["component"] == "max" else c["rate_gap"])
        return (c["verdict"] not in (A_DISADVANTAGED, B_DISADVANTAGED, UNEQUAL),
                -abs(g) if math.isfinite(g) else 0.0)

    keep = sorted(sorted(range(len(comps)), key=key)[:max_rows])
    return [comps[i] for i in keep]


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

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound import audit
    >>> df = pd.DataFrame({"g": list("aaaabbbb"), "y": [1, 1, 0, 0] * 2,
    ...                    "p": [1, 1, 0, 1, 1, 0, 0, 0]})
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

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound import audit
    >>> df = pd.DataFrame({"g": list("aaaabbbb"), "y": [1, 1, 0, 0] * 2,
    ...                    "p": [1, 1, 0, 1, 1, 0, 0, 0]})
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

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound import audit
    >>> df = pd.DataFrame({"g": list("aaaabbbb"), "y": [1, 1, 0, 0] * 2,
    ...                    "p": [1, 1, 0, 1, 1, 0, 0, 0]})
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

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound import audit
    >>> df = pd.DataFrame({"g": list("aaaabbbb"), "y": [1, 1, 0, 0] * 2,
    ...                    "p": [1, 1, 0, 1, 1, 0, 0, 0]})
    >>> fig = plot_audit(audit(df, group="g", label="y", prediction="p"), "rates")
    >>> fig.axes[0].get_title(loc="left")
    'selection rate'
    """
    kinds = {"forest": plot_forest, "rates": plot_group_rates,
             "sample-size": plot_sample_size}
    return kinds[check_choice(kind, kinds, "kind", sep="-")](result, **options)


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

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound import audit
    >>> df = pd.DataFrame({"g": list("aaaabbbb"), "y": [1, 1, 0, 0] * 2,
    ...                    "p": [1, 1, 0, 1, 1, 0, 0, 0]})
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
