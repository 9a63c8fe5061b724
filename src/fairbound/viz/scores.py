"""Figures for score audits: ROC curves, reliability diagrams and threshold-sweep bands.

Every function returns a :class:`matplotlib.figure.Figure` and accepts a live
:class:`~fairbound.audits.scores.audit.ScoreAuditResult`, its ``"fairbound.scores/1"`` dictionary
(:meth:`~fairbound.audits.scores.audit.ScoreAuditResult.to_dict`) or a path to its JSON, so a saved
audit can be drawn without the data.  matplotlib (``pip install "fairbound[plot]"``) is
imported only when a figure is drawn.

* :func:`plot_roc` - each group's ROC curve, its AUC and interval in the legend.
* :func:`plot_reliability` - each group's reliability diagram (rate of positives against the
  mean score per bin) and its calibration gap per bin with simultaneous intervals.
* :func:`plot_threshold_sweep` - for each pair, the gap in a rate of ``score >= t`` against
  the threshold, with its band simultaneous over all thresholds; thresholds where the band
  excludes 0 are marked.
"""

from __future__ import annotations

import math

from fairbound._docs import fill
from fairbound._render import as_number as _num
from fairbound._validate import check_choice, check_int
from fairbound._words import UNEQUAL
from fairbound.errors import FairboundError
from fairbound.viz._figure import (
    _figure_axes,
    _pyplot,
    _style,
    _tight,
    result_dict,
    short,
    text_safe,
)
from fairbound.viz._figure import _level_text as _level

SCHEMA = "fairbound.scores/1"
#: Okabe-Ito: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442")
RATES = {"selection_rate": "selection rate", "tpr": "true positive rate",
         "fpr": "false positive rate"}
KINDS = ("roc", "reliability", "sweep")

#: Docstring text the figures share (``fairbound._docs.fill``).
_DOCS = {"score_result": ("result : ScoreAuditResult, dict or path\n"
                          "    The score audit (see :func:`scores_dict`).")}


def scores_dict(result) -> dict:
    """Return the ``"fairbound.scores/1"`` dictionary of a score audit, whatever its form.

    Parameters
    ----------
    result : ScoreAuditResult, dict or path
        A live result, its ``to_dict()`` form, or a JSON file written by ``to_json``.

    Returns
    -------
    dict

    Examples
    --------
    >>> scores_dict({"schema": "fairbound.scores/1", "groups": [], "comparisons": []})["schema"]
    'fairbound.scores/1'
    """
    return result_dict(result, SCHEMA, live="histograms", kind="score-audit ",
                       expected="a ScoreAuditResult, its dictionary or a JSON path")


def _colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _pick(groups: list[dict], wanted) -> list[dict]:
    if wanted is None:
        return groups
    names = [str(w) for w in ([wanted] if isinstance(wanted, str) else wanted)]
    known = [str(g["group"]) for g in groups]
    missing = [n for n in names if n not in known]
    if missing:
        raise FairboundError(f"groups: {missing[0]!r} not found; groups are {known[:20]}",
                             param="groups")
    return [g for g in groups if str(g["group"]) in names]


def _unit_square(ax, pad: float, xlabel: str, ylabel: str) -> None:
    """A square [0, 1] x [0, 1] panel, ``pad`` beyond each edge, with the dashed diagonal."""
    ax.plot([0, 1], [0, 1], color="#999999", lw=0.8, ls="--")
    ax.set_xlim(-pad, 1 + pad)
    ax.set_ylim(-pad, 1 + pad)
    ax.set_aspect("equal")
    ax.set_xlabel(xlabel, fontsize=8.5)
    ax.set_ylabel(ylabel, fontsize=8.5)


@fill(**_DOCS)
def plot_roc(result, *, groups=None, ax=None):
    """ROC curves by group, with each group's AUC and interval in the legend.

    Parameters
    ----------
    {{score_result}}
    groups : str or list of str, optional
        Groups to draw (all by default).
    ax : matplotlib Axes, optional
        Where to draw.

    Returns
    -------
    matplotlib.figure.Figure

    {{score_examples}}
    >>> fig = plot_roc(score_audit(df, group="g", label="y", score="s"))
    >>> fig.axes[0].get_xlabel()
    'false positive rate'
    """
    d = scores_dict(result)
    fig, ax = _figure_axes(ax, (5.2, 4.8))
    level = _level(d.get("confidence_level"))
    for i, g in enumerate(_pick(d["groups"], groups)):
        roc = g.get("roc")
        if not roc:
            continue
        auc = g.get("auc")
        text = f"{short(g['group'], 24)} (n={g['n']:,})"
        if auc is not None:
            text += f": AUC {auc:.3f}"
            if g.get("auc_low") is not None:
                text += f" [{g['auc_low']:.3f}, {g['auc_high']:.3f}]"
            if g.get("auc_approximate"):
                text += " approx."
        ax.plot(roc["fpr"], roc["tpr"], color=_colour(i), lw=1.6, drawstyle="default",
                label=text_safe(text), marker="o" if len(roc["fpr"]) <= 30 else None, ms=2.5)
    _unit_square(ax, 0.01, "false positive rate", "true positive rate")
    ax.set_title(f"ROC curves by group (AUC with {level} DeLong intervals)", fontsize=9)
    ax.legend(fontsize=7, loc="lower right", frameon=False)
    ax.grid(True, alpha=0.3)
    _style(ax)
    _tight(fig)
    return fig


@fill(**_DOCS)
def plot_reliability(result, *, groups=None):
    """Reliability diagrams by group: rate of positives vs mean score, and the gap per bin.

    Left: each group's rate of positives against its mean score per calibration bin (the
    diagonal is perfect calibration; marker area grows with the bin's examples).  Right: the
    per-bin gap ``mean score - rate of positives`` with intervals simultaneous over the bins
    of that group.

    Parameters
    ----------
    result : ScoreAuditResult, dict or path
        A score audit whose scores lie in [0, 1] (else calibration was not computed and
        this is an error naming the reason).
    groups : str or list of str, optional
        Groups to draw (all by default).

    Returns
    -------
    matplotlib.figure.Figure

    {{score_examples}}
    >>> len(plot_reliability(score_audit(df, group="g", label="y", score="s")).axes)
    2
    """
    d = scores_dict(result)
    if not d.get("calibration"):
        why = d.get("calibration_note") or "calibration was not computed"
        raise FairboundError(f"reliability diagram: {why}", param="result")
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.6))
    chosen = _pick(d["groups"], groups)
    width = 0.6 / max(len(chosen), 1)
    for i, g in enumerate(chosen):
        r = g.get("reliability")
        if not r:
            continue
        colour = _colour(i)
        m = [_num(x) for x in r["mean_score"]]
        o = [_num(x) for x in r["label_rate"]]
        n = [_num(x) for x in r["n"]]
        big = max(n) if n else 1.0
        left.plot(m, o, color=colour, lw=1.2, alpha=0.8)
        left.scatter(m, o, s=[12 + 60 * x / big for x in n], color=colour, alpha=0.85,
                     label=text_safe(f"{short(g['group'], 24)} (ECE {_num(r['ece']):.3f})"),
                     zorder=3)
        mids = [(_num(lo) + _num(hi)) / 2 for lo, hi in zip(r["lower"], r["upper"],
                                                             strict=True)]
        span = [(_num(hi) - _num(lo)) for lo, hi in zip(r["lower"], r["upper"], strict=True)]
        x = [c + (i - (len(chosen) - 1) / 2) * width * w for c, w in zip(mids, span,
                                                                       strict=True)]
        gap = [_num(v) for v in r["gap"]]
        lo = [_num(v) for v in r["low"]]
        hi = [_num(v) for v in r["high"]]
        right.errorbar(x, gap, yerr=[[g_ - lo_ for g_, lo_ in zip(gap, lo, strict=True)],
                                     [hi_ - g_ for g_, hi_ in zip(gap, hi, strict=True)]],
                       fmt="o", ms=3.5, color=colour, lw=1.1, capsize=0,
                       label=text_safe(short(g["group"], 24)))
    _unit_square(left, 0.02, "mean score in the bin", "rate of positives in the bin")
    left.set_title("Reliability diagram by group", fontsize=9)
    left.legend(fontsize=7, loc="upper left", frameon=False)
    right.axhline(0.0, color="black", lw=0.8)
    right.set_xlim(-0.02, 1.02)
    right.set_xlabel("calibration bin", fontsize=8.5)
    right.set_ylabel("mean score - rate of positives", fontsize=8.5)
    right.set_title(f"Gap per bin ({_level(d.get('confidence_level'))} simultaneous over each "
                    "group's bins)", fontsize=9)
    right.legend(fontsize=7, frameon=False)
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
        _style(ax)
    _tight(fig)
    return fig


def _sweep_rows(d: dict, rate: str, pairs) -> list[dict]:
    metric = f"{rate}_sweep"
    rows = [c for c in d["comparisons"] if c["metric"] == metric and c.get("sweep")]
    if pairs is not None:
        wanted = {(str(a), str(b)) for a, b in pairs}
        rows = [c for c in rows if (str(c["group_a"]), str(c["group_b"])) in wanted]
        if not rows:
            raise FairboundError(f"pairs: none of {sorted(wanted)[:5]} is compared in this "
                                 "audit", param="pairs")
    return rows


@fill(**_DOCS)
def plot_threshold_sweep(result, *, rate: str = "selection_rate", pairs=None,
                         ncols: int = 3, max_panels: int = 12):
    """The gap in a rate of ``score >= t`` against ``t``, with its simultaneous band.

    One panel per pair of groups: the gap ``rate_A(t) - rate_B(t)`` (a step line), the band
    that holds at every threshold at once (shaded), the zero line, and dots at the
    thresholds where the band excludes 0 (a gap is established there).

    Parameters
    ----------
    {{score_result}}
    rate : {'selection_rate', 'tpr', 'fpr'}
        Which rate.
    pairs : list of (A, B), optional
        Pairs to draw (all by default, the first ``max_panels``).
    ncols : int
        Panels per row.
    max_panels : int
        At most this many panels (the pairs with established thresholds first).

    Returns
    -------
    matplotlib.figure.Figure

    {{score_examples}}
    >>> res = score_audit(df, group="g", label="y", score="s")
    >>> plot_threshold_sweep(res, rate="tpr").axes[0].get_ylabel()
    'true positive rate: A - B'
    """
    check_choice(rate, RATES, "rate")
    for name, v in (("ncols", ncols), ("max_panels", max_panels)):
        check_int(v, name, low=1)
    d = scores_dict(result)
    rows = _sweep_rows(d, rate, pairs)
    if not rows:
        raise FairboundError(f"rate: no {RATES[rate]} sweep was computed (see the audit's "
                             "notes)", param="rate")
    if len(rows) > max_panels:
        def key(i):
            est = _num(rows[i]["estimate"])
            return rows[i]["verdict"] != UNEQUAL, -est if math.isfinite(est) else 0.0

        keep = sorted(range(len(rows)), key=key)
        rows = [rows[i] for i in sorted(keep[:max_panels])]
    plt = _pyplot()
    cols = min(ncols, len(rows))
    nrows = math.ceil(len(rows) / cols)
    width, height = (3.6, 2.9) if cols > 1 else (6.0, 3.4)
    fig, axes = plt.subplots(nrows, cols, figsize=(width * cols, height * nrows), squeeze=False)
    for k, c in enumerate(rows):
        ax = axes[k // cols][k % cols]
        s = c["sweep"]
        t = [_num(x) for x in s["thresholds"]]
        gap = [_num(x) for x in s["gap"]]
        lo = [_num(x) for x in s["low"]]
        hi = [_num(x) for x in s["high"]]
        ax.fill_between(t, lo, hi, step="pre", color=PALETTE[0], alpha=0.18, lw=0,
                        label="simultaneous band")
        ax.step(t, gap, where="pre", color=PALETTE[0], lw=1.5, label="gap")
        est = [(x, y) for x, y, e in zip(t, gap, s["established"], strict=True) if e]
        if est:
            ax.plot([x for x, _ in est], [y for _, y in est], "o", ms=3.5,
                    color=PALETTE[1], label="established", zorder=3)
        ax.axhline(0.0, color="black", lw=0.8)
        ax.set_title(text_safe(f"{short(c['group_a'], 18)} vs {short(c['group_b'], 18)}"),
                     fontsize=8.5)
        ax.set_xlabel("threshold t (score >= t)", fontsize=8)
        ax.set_ylabel(f"{RATES[rate]}: A - B", fontsize=8)
        ax.grid(True, alpha=0.3)
        _style(ax)
        if k == 0:
            ax.legend(fontsize=6.5, frameon=False)
    for k in range(len(rows), nrows * cols):
        axes[k // cols][k % cols].set_visible(False)
    band = "DKW" if d.get("band") == "dkw" else "sup-t"
    level = _level(rows[0].get("interval_level"))
    fig.suptitle(f"{RATES[rate].capitalize()} gap by threshold, {band} band at {level} over "
                 "all thresholds", fontsize=9.5)
    _tight(fig)
    return fig


@fill(**_DOCS)
def plot_scores(result, kind: str = "roc", **options):
    """Draw one figure of a score audit: ``'roc'``, ``'reliability'`` or ``'sweep'``.

    Parameters
    ----------
    {{score_result}}
    kind : {'roc', 'reliability', 'sweep'}
        Which figure.
    **options
        Passed to :func:`plot_roc`, :func:`plot_reliability` or
        :func:`plot_threshold_sweep`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_choice(kind, KINDS, "kind")
    fn = {"roc": plot_roc, "reliability": plot_reliability,
          "sweep": plot_threshold_sweep}[kind]
    return fn(result, **options)


__all__ = ["PALETTE", "plot_reliability", "plot_roc", "plot_scores", "plot_threshold_sweep",
           "scores_dict"]
