"""Figures for BBNLI audits (:func:`fairbound.nli.audit_nli`): measures and their parts.

matplotlib is an optional dependency (``pip install "fairbound[plot]"``), imported only when
a figure is drawn.
"""

from __future__ import annotations

import math

from fairbound.errors import FairboundError
from fairbound.viz._figure import ACCENT, _pyplot, _style, _tight, short, text_safe

NLI_PARTS = (("stereotype_bias", "stereotype", "#b2182b"),
             ("anti_stereotype_bias", "anti-stereotype", "#2166ac"),
             ("brittleness", "group-insensitive error", "#999999"))


def _nli_table(result):
    table = getattr(result, "table", None)
    if table is None or not {"level", "domain", "subtopic", "measure", "estimate", "low",
                             "high"} <= set(getattr(table, "columns", ())):
        raise FairboundError(f"result must be an NLIBiasResult (fairbound.nli.audit_nli); got "
                             f"{type(result).__name__}", param="result")
    return table


def nli_row_label(level: str, domain: str, subtopic: str) -> str:
    """Row label of a BBNLI breakdown: ``all``, ``gender`` or ``gender / man_is_to_...``.

    Examples
    --------
    >>> nli_row_label("subtopic", "gender", "man_is_to_surgeon")
    'gender / man_is_to_surgeon'
    """
    if level == "overall":
        return "all"
    if level == "domain":
        return str(domain)
    return f"{domain} / {subtopic}"


def plot_nli_measures(result, *, measures=("bias_score", "stereotype_bias",
                                           "anti_stereotype_bias", "brittleness")):
    """BBNLI measures with their intervals, overall and per domain and subtopic.

    Parameters
    ----------
    result : NLIBiasResult
        From :func:`fairbound.nli.audit_nli`.
    measures : sequence of str
        One panel per measure (names of ``fairbound.nli.MEASURES``).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Intervals are the audit's cluster-bootstrap percentile intervals (premise templates
    resampled within subtopics).  A subtopic has only a handful of templates, so its
    intervals are rough.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound.nli import audit_nli, expand_templates, load_templates
    >>> s = expand_templates(load_templates()).samples
    >>> r = audit_nli(s, ["neutral"] * len(s), n_resamples=50)
    >>> len(plot_nli_measures(r, measures=["bias_score"]).axes)
    1
    """
    table = _nli_table(result)
    measures = [measures] if isinstance(measures, str) else list(measures)
    unknown = [m for m in measures if m not in set(table["measure"])]
    if not measures or unknown:
        raise FairboundError(f"measures: unknown {unknown or measures!r}; choose from "
                             f"{sorted(set(table['measure']))}", param="measures")
    plt = _pyplot()
    rows = table[table["measure"] == measures[0]][["level", "domain", "subtopic"]]
    labels = [nli_row_label(*r) for r in rows.itertuples(index=False)]
    k = len(measures)
    fig, axes = plt.subplots(1, k, figsize=(2.2 + 2.3 * k, 0.8 + 0.24 * len(labels)),
                             sharey=True, squeeze=False)
    for ax, m in zip(axes[0], measures, strict=True):
        t = table[table["measure"] == m].reset_index(drop=True)
        for i, r in t.iterrows():
            y = len(t) - 1 - i
            colour = "#222222" if r["level"] != "subtopic" else ACCENT
            if math.isfinite(r["low"]) and math.isfinite(r["high"]):
                ax.plot([r["low"], r["high"]], [y, y], color=colour, lw=1.4)
            if math.isfinite(r["estimate"]):
                ax.plot([r["estimate"]], [y], "o", color=colour, ms=3.8)
        ax.axvline(0.0, color="black", lw=0.8)
        ax.set_title(m, fontsize=9, loc="left")
        ax.grid(True, axis="x", alpha=0.3)
        _style(ax)
    axes[0][0].set_yticks(range(len(labels)))
    axes[0][0].set_yticklabels([text_safe(short(x, 44)) for x in labels][::-1], fontsize=7.5)
    axes[0][0].set_ylim(-0.6, len(labels) - 0.4)
    _tight(fig)
    return fig


def plot_nli_stacked(result):
    """Stacked bars: stereotype, anti-stereotype and group-insensitive error per breakdown.

    Parameters
    ----------
    result : NLIBiasResult
        From :func:`fairbound.nli.audit_nli`.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    The three parts add up to the misprediction rate on paired samples
    (``stereotype_bias + anti_stereotype_bias + brittleness = misprediction_rate``); the
    black whisker is the interval of the misprediction rate.

    Examples
    --------
    >>> from fairbound.nli import audit_nli, expand_templates, load_templates
    >>> s = expand_templates(load_templates()).samples
    >>> r = audit_nli(s, ["entailment"] * len(s), n_resamples=50)
    >>> len(plot_nli_stacked(r).axes[0].patches) > 0
    True
    """
    table = _nli_table(result)
    plt = _pyplot()
    base = table[table["measure"] == "misprediction_rate"].reset_index(drop=True)
    labels = [nli_row_label(*r) for r in base[["level", "domain", "subtopic"]]
              .itertuples(index=False)]
    fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.26 * len(labels)))
    ys = list(range(len(labels)))[::-1]
    left = [0.0] * len(labels)
    for measure, name, colour in NLI_PARTS:
        part = table[table["measure"] == measure].reset_index(drop=True)["estimate"]
        vals = [v if math.isfinite(v) else 0.0 for v in part]
        ax.barh(ys, vals, left=left, color=colour, height=0.62, label=name,
                edgecolor="white", linewidth=0.4)
        left = [a + b for a, b in zip(left, vals, strict=True)]
    for y, r in zip(ys, base.itertuples(index=False), strict=True):
        if math.isfinite(r.low) and math.isfinite(r.high):
            ax.plot([r.low, r.high], [y, y], color="black", lw=0.9)
    ax.set_yticks(ys)
    ax.set_yticklabels([text_safe(short(x, 44)) for x in labels], fontsize=7.5)
    ax.set_xlabel("share of paired bias samples", fontsize=8.5)
    ax.legend(fontsize=7.5, frameon=False, loc="lower right")
    ax.grid(True, axis="x", alpha=0.3)
    _style(ax)
    _tight(fig)
    return fig


__all__ = ["nli_row_label", "plot_nli_measures", "plot_nli_stacked"]
