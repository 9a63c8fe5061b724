"""Figures for coverage studies (``fairbound reproduce bbu``).

* :func:`plot_genre_intervals` - Figure 1 of Ethayarajh (2020) as in the paper: per genre,
  the bias estimate with its interval as the number of annotated examples ``n`` grows, and
  as the protected share ``gamma`` varies, against the full-data gap;
* :func:`plot_coverage` - a summary over genres: mean half-width against ``n`` per
  ``gamma``, with the coverage written at each point.

Both read a :class:`fairbound.evaluation.reproduce.CoverageStudy` (its ``table``,
``by_genre()`` and ``summary()``) and are built with :class:`matplotlib.figure.Figure` and
constrained layout (no pyplot state; titles are wrapped to the figure's width).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fairbound.errors import FairboundError
from fairbound.viz._figure import _chosen, _figure, _save


def _wrap(text: str, width_in: float, fontsize: float) -> str:
    """Wrap a title so that it fits ``width_in`` inches at ``fontsize`` points."""
    chars = max(20, int(width_in * 72 / (0.55 * fontsize)))
    return "\n".join(textwrap.wrap(text, chars))


def _method(study) -> str:
    m = str(getattr(study, "method", "bbu"))
    return m.upper() if m == "bbu" else m


def _n_ticks(ax, ns) -> None:
    """Label a log x axis at the sample sizes themselves (1,000 rather than 10^3)."""
    from matplotlib.ticker import NullFormatter

    ns = sorted(set(int(v) for v in ns))
    ax.set_xscale("log")
    ax.set_xticks(ns, [f"{v:,}" for v in ns])
    ax.xaxis.set_minor_formatter(NullFormatter())


def plot_coverage(study, *, path: str | Path | None = None):
    """Mean half-width vs n per gamma, with the coverage written at each point.

    Parameters
    ----------
    study : fairbound.evaluation.reproduce.CoverageStudy
        The result of :func:`~fairbound.evaluation.reproduce.coverage_study`.
    path : str or pathlib.Path, optional
        Save the figure there (``.png``, ``.svg`` or ``.pdf``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    s = study.summary()
    width = 6.4
    fig = _figure(width, 4.4)
    ax = fig.subplots()
    for gamma, sub in s.groupby("gamma"):
        ax.plot(sub["n"], sub["mean_half_width"], "o-", label=f"gamma = {gamma:g}")
        for r in sub.itertuples():
            ax.annotate(f"{r.coverage:.0%}", (r.n, r.mean_half_width), fontsize=7,
                        textcoords="offset points", xytext=(3, 3))
    _n_ticks(ax, s["n"])
    ax.tick_params(labelsize=8)
    ax.set_xlabel("annotated examples n")
    ax.set_ylabel(f"mean {_method(study)} half-width")
    # two short lines instead of one long title: nothing is clipped at this width
    ax.set_title(_wrap(f"MNLI genres: {study.confidence_level:.0%} intervals over "
                       f"{study.runs} runs; labels = coverage of the full-data gap",
                       width, 10), fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    return _save(fig, path)


def _pick(values, want, name: str, default):
    vals = sorted(set(float(v) for v in values))
    if want is None:
        return default(vals)
    if not any(np.isclose(v, float(want)) for v in vals):
        raise FairboundError(f"{name}: {want!r} is not in the study; it has "
                             f"{', '.join(f'{v:g}' for v in vals)}", param=name)
    return next(v for v in vals if np.isclose(v, float(want)))


def plot_genre_intervals(
    study,
    *,
    gamma: float | None = None,
    n: int | None = None,
    genres: Sequence[str] | None = None,
    path: str | Path | None = None,
):
    """Figure 1 of Ethayarajh (2020): per genre, the estimate and its interval vs n and gamma.

    One row per genre (the protected group; the rest of MNLI is the other side).  Left: the
    bias estimate (genre minus rest, mean annotator disagreement) with its interval,
    averaged over the runs, as the number of annotated examples ``n`` grows at one share
    ``gamma``; right: the same at one ``n`` as ``gamma`` varies.  The dashed line is the
    full-data gap (the "true bias" the interval should contain); each point's label is the
    share of runs whose interval contained it.

    Parameters
    ----------
    study : fairbound.evaluation.reproduce.CoverageStudy
        The result of :func:`~fairbound.evaluation.reproduce.coverage_study`.
    gamma : float, optional
        The share of the left column (default: the study's share nearest 0.5, the paper's
        equal shares).
    n : int, optional
        The sample size of the right column (default: the largest).
    genres : sequence of str, optional
        Genres, in order (default: all).
    path : str or pathlib.Path, optional
        Save the figure there (``.png``, ``.svg`` or ``.pdf``).

    Returns
    -------
    matplotlib.figure.Figure
        ``2 * len(genres)`` panels: per genre, the interval vs ``n`` and vs ``gamma``.
    """
    t = study.by_genre()
    if t.empty:
        raise FairboundError("study: no intervals (every n is larger than the data)",
                             param="study")
    g = _pick(t["gamma"], gamma, "gamma", lambda v: min(v, key=lambda x: (abs(x - 0.5), -x)))
    big = _pick(t["n"], n, "n", max)
    chosen = _chosen(t["genre"], genres, "genres", "genre")
    width = 8.0
    fig = _figure(width, 1.9 * len(chosen) + 0.9)
    axes = fig.subplots(len(chosen), 2, squeeze=False, sharey="row")
    level = f"{study.confidence_level:.0%}"
    for i, genre in enumerate(chosen):
        d = t[t["genre"] == genre]
        truth = float(d["truth"].iloc[0])
        for j, (sub, x, xlabel) in enumerate((
                (d[np.isclose(d["gamma"], g)].sort_values("n"), "n",
                 "annotated examples n"),
                (d[np.isclose(d["n"], big)].sort_values("gamma"), "gamma",
                 "share of the genre gamma"))):
            ax = axes[i, j]
            xs = sub[x].to_numpy(float)
            est = sub["estimate"].to_numpy(float)
            ax.fill_between(xs, sub["low"].to_numpy(float), sub["high"].to_numpy(float),
                            color="#4C72B0", alpha=0.2, lw=0,
                            label=f"{level} interval (mean over runs)")
            ax.plot(xs, est, "o-", color="#4C72B0", ms=3, lw=1, label="estimate")
            ax.axhline(truth, color="#C44E52", ls="--", lw=1,
                       label=f"full-data gap {truth:+.3f}")
            ax.axhline(0.0, color="grey", ls=":", lw=0.8)
            for xv, ev, cov in zip(xs, est, sub["coverage"].to_numpy(float), strict=True):
                ax.annotate(f"{cov:.0%}", (xv, ev), fontsize=6, xytext=(2, 3),
                            textcoords="offset points", color="#333333")
            if x == "n" and len(xs) > 1:
                _n_ticks(ax, xs)
            ax.tick_params(labelsize=7)
            ax.grid(True, alpha=0.3)
            where = f"gamma = {g:g}" if x == "n" else f"n = {int(big):,}"
            ax.set_title(f"{genre}: interval vs {x} ({where})", fontsize=8)
            if i == len(chosen) - 1:
                ax.set_xlabel(xlabel, fontsize=8)
            if j == 0:
                ax.set_ylabel("bias (genre - rest)", fontsize=7)
        if i == 0:
            axes[0, 1].legend(fontsize=6, loc="best")
    fig.suptitle(_wrap(f"MNLI genres: {level} {_method(study)} interval on the genre's "
                       f"annotator-disagreement gap, {study.runs} runs per point; labels = "
                       "coverage of the full-data gap", width, 10), fontsize=10)
    return _save(fig, path)


__all__ = ["plot_coverage", "plot_genre_intervals"]
