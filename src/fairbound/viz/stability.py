"""Figures of a stability study (matplotlib, the ``plot`` extra).

After Jourdan, Risser, Loubes & Asher (2023):

* :func:`plot_score_boxplots` - accuracy (and macro-F1) across runs per training size
  (Fig. 1);
* :func:`plot_class_f1` - the F1-score of named classes across runs per training size, one
  row of panels per class (Fig. 2: surgeon on top, physician below);
* :func:`plot_gap_boxplots` - each gap across runs, per sample size (Fig. 3);
* :func:`plot_variance_heatmap` - variance of each gap by class and size (Fig. 5);
* :func:`plot_mean_heatmap` - mean gap by class and metric (Fig. 6);
* :func:`plot_condition_heatmaps` - the variance or mean heatmaps of every condition side by
  side on one colour scale (classic vs debiased, Fig. 6);
* :func:`plot_class_counts` - rows of each class by group in the whole data, as bars
  (Fig. 7);
* :func:`plot_group_share` - per class, the share of group A among its true members
  against the mean gap (not one of the paper's figures; after De-Arteaga et al. 2019).

The paper's filter removes whole occupations: a class that the filter flags (``filtered``
in :func:`summarize_gaps`, too few predictions per group) is drawn as a hatched grey
"filtered" row in the heatmaps (Fig. 5: flagged at any size; Fig. 6: in any condition), or
as hollow markers, never with numbers.  In the mean heatmaps red is the advantage of the
male group (the paper's colours: "the more it is red, the more it is biased in favor of
males, the more it is blue, the more it is biased in favor of females").

Figures are built with :class:`matplotlib.figure.Figure` directly (no pyplot state), so
they work in scripts, servers and notebooks alike; pass ``path`` to save PNG or SVG.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from fairbound._docs import fill
from fairbound._validate import check_choice
from fairbound.errors import FairboundError
from fairbound.viz._figure import _chosen, _figure, _save

_COLORS = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3"]
_SCORES = {"accuracy": "accuracy", "macro_f1": "macro-F1"}
_SHORT = {"demographic_parity": "GP", "equal_opportunity": "TPR", "predictive_parity": "PP",
          "false_positive_rate": "FPR", "accuracy_parity": "ACC", "equalized_odds": "EO",
          "equalized_odds_cost": "EO cost"}

#: Docstring text the figures share (``fairbound._docs.fill``).
_DOCS = {
    "summary_parameters": (
        "Parameters\n"
        "----------\n"
        "summary : pandas.DataFrame\n"
        "    Output of :func:`summarize_gaps`."
    ),
    "pair": (
        "pair : (str, str), optional\n"
        "    Groups compared (default: the first pair)."
    ),
    # a ``runs`` table of two sample sizes, with the scores the score figures draw
    "runs_examples": (
        "Examples\n"
        "--------\n"
        ">>> r = pd.DataFrame({\"condition\": \"o\", \"size\": np.repeat([100, 1000], 5),\n"
        "...                   \"accuracy\": np.linspace(0.6, 0.9, 10),\n"
        "...                   \"macro_f1\": np.linspace(0.5, 0.8, 10),\n"
        "...                   \"f1[surgeon]\": np.linspace(0.3, 0.8, 10),\n"
        "...                   \"f1[physician]\": np.linspace(0.5, 0.9, 10)})"
    ),
    "path": (
        "path : str or pathlib.Path, optional\n"
        "    Save the figure there (``.png``, ``.svg`` or ``.pdf``)."
    ),
}
# the last parameter and the Returns of a figure that says no more about what it returns
_DOCS["saved_figure"] = _DOCS["path"] + "\n\nReturns\n-------\nmatplotlib.figure.Figure"


def _conditions(df: pd.DataFrame, conditions) -> list[str]:
    """The study conditions to draw: all of ``df``'s (in order) or the ones asked for."""
    return _chosen(df["condition"], conditions, "conditions", "condition")


def _at_size(df: pd.DataFrame, size: int | None) -> tuple[pd.DataFrame, int]:
    """The rows of one sample size (default: the largest) and that size."""
    n = int(df["size"].max()) if size is None else int(size)
    df = df[df["size"] == n]
    if df.empty:
        raise FairboundError(f"size: no runs of size {size!r}", param="size")
    return df, n


def _select(df: pd.DataFrame, pair: tuple[str, str] | None, classes, metrics) -> pd.DataFrame:
    if df.empty:
        raise FairboundError("gaps: the study has no runs yet", param="gaps")
    if pair is None:
        first = df.iloc[0]
        pair = (first["group_a"], first["group_b"])
    df = df[(df["group_a"] == str(pair[0])) & (df["group_b"] == str(pair[1]))]
    if df.empty:
        raise FairboundError(f"pair: no comparison {pair[0]!r} vs {pair[1]!r} in the study",
                             param="pair")
    if classes is not None:
        df = df[df["class"].isin([str(c) for c in classes])]
    if metrics is not None:
        df = df[df["metric"].isin(list(metrics))]
    if df.empty:
        raise FairboundError("classes/metrics: nothing left to plot", param="classes")
    return df


def _condition_boxes(ax, data: list[np.ndarray], c_i: int, n_conds: int) -> list:
    """Boxes of condition ``c_i`` (of ``n_conds``, side by side), one per sample size."""
    width = 0.8 / n_conds
    pos = np.arange(len(data)) + (c_i - (n_conds - 1) / 2) * width
    bp = ax.boxplot(data, positions=pos, widths=width * 0.9, patch_artist=True,
                    showfliers=True, flierprops={"markersize": 2},
                    medianprops={"color": "black"})
    for patch in bp["boxes"]:
        patch.set_facecolor(_COLORS[c_i % len(_COLORS)])
        patch.set_alpha(0.6)
    return bp["boxes"]


def _runs_boxes(ax, runs: pd.DataFrame, column: str, conds: list[str], sizes: list) -> None:
    """Boxes of a ``runs`` column: one per sample size and condition (side by side)."""
    for c_i, c in enumerate(conds):
        data = [runs[(runs["condition"] == c) & (runs["size"] == n)][column].astype(float)
                .dropna().to_numpy() for n in sizes]
        _condition_boxes(ax, data, c_i, len(conds))


def _condition_legend(fig, conds: list[str], extra: Sequence = ()) -> None:
    """A legend below the panels: each condition in its box colour (if several), ``extra``."""
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=_COLORS[i % len(_COLORS)], alpha=0.6, label=c)
               for i, c in enumerate(conds)] if len(conds) > 1 else []
    handles += list(extra)
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncols=len(handles),
                   fontsize=8)


@fill(**_DOCS)
def plot_gap_boxplots(
    gaps: pd.DataFrame,
    *,
    pair: tuple[str, str] | None = None,
    classes: Sequence | None = None,
    metrics: Sequence[str] | None = None,
    min_per_group: int | None = None,
    path: str | Path | None = None,
):
    """Boxplots of each gap across runs, per sample size and condition.

    Parameters
    ----------
    gaps : pandas.DataFrame
        The ``gaps`` table of a :class:`StudyResult`.
    pair : (str, str), optional
        The groups compared (default: the first pair in the table).
    classes, metrics : sequence, optional
        Restrict the panels (one row per metric, one column per class).
    min_per_group : int, optional
        The paper's filter (see :func:`summarize_gaps`): a box whose runs include one with
        fewer than this many rows of either group is drawn hollow, dashed and grey, and
        the legend says why.
    {{saved_figure}}

    Examples
    --------
    >>> g = pd.DataFrame({"condition": "o", "size": np.repeat([100, 1000], 20),
    ...                   "metric": "equal_opportunity", "class": "1", "group_a": "f",
    ...                   "group_b": "m", "gap": np.linspace(-0.2, 0.2, 40)})
    >>> fig = plot_gap_boxplots(g)
    >>> fig.axes[0].get_title()
    'TPR gap, class 1'
    """
    df = _select(gaps, pair, classes, metrics)
    mets = list(dict.fromkeys(df["metric"]))
    cls = list(dict.fromkeys(df["class"]))
    conds = list(dict.fromkeys(df["condition"]))
    sizes = sorted(df["size"].unique())
    fig = _figure(2.8 * len(cls) + 1, 2.4 * len(mets) + 0.6)
    axes = np.atleast_2d(fig.subplots(len(mets), len(cls), squeeze=False))
    any_filtered = False
    for i, m in enumerate(mets):
        for j, k in enumerate(cls):
            ax = axes[i, j]
            sub = df[(df["metric"] == m) & (df["class"] == k)]
            for c_i, c in enumerate(conds):
                cells = [sub[(sub["condition"] == c) & (sub["size"] == s)] for s in sizes]
                data = [x["gap"].dropna().to_numpy(float) for x in cells]
                boxes = _condition_boxes(ax, data, c_i, len(conds))
                for patch, x in zip(boxes, cells, strict=True):
                    patch.set_label(c)
                    if _too_few(x, min_per_group):
                        any_filtered = True
                        patch.set_facecolor("none")
                        patch.set_edgecolor("#888888")
                        patch.set_linestyle("--")
                        patch.set_hatch("///")
            ax.axhline(0.0, color="grey", lw=0.8, ls="--")
            ax.set_xticks(np.arange(len(sizes)), [f"{s:,}" for s in sizes], fontsize=7)
            ax.set_title(f"{_SHORT.get(m, m)} gap, class {k}", fontsize=9)
            if j == 0:
                ax.set_ylabel(f"{sub['group_a'].iloc[0]} - {sub['group_b'].iloc[0]}"
                              if len(sub) else "gap", fontsize=8)
            if i == len(mets) - 1:
                ax.set_xlabel("sample size", fontsize=8)
    filtered = []
    if any_filtered:
        from matplotlib.patches import Patch

        filtered.append(Patch(facecolor="none", edgecolor="#888888", hatch="///", ls="--",
                              label=f"filtered: fewer than {min_per_group} per group"))
    _condition_legend(fig, conds, filtered)
    return _save(fig, path)


def _too_few(cell: pd.DataFrame, min_per_group: int | None) -> bool:
    """Whether some run of a cell has fewer than ``min_per_group`` rows of either group."""
    if not min_per_group or cell.empty or not {"n_a", "n_b"} <= set(cell.columns):
        return False
    low = pd.concat([cell["n_a"], cell["n_b"]]).astype(float).fillna(0).min()
    return bool(low < min_per_group)


def _norm(values: np.ndarray, *, center: bool, log: bool):
    """The colour scale of one or several heatmaps sharing it."""
    from matplotlib.colors import LogNorm, Normalize

    finite = values[np.isfinite(values)]
    if log and finite.size and finite.min() > 0 and finite.max() > finite.min():
        # variances span orders of magnitude across classes: a log colour scale keeps the
        # fall with the sample size visible in every row
        return LogNorm(finite.min(), finite.max())
    if center:
        lim = float(np.max(np.abs(finite))) if finite.size else 1.0
        vmin, vmax = -lim or -1.0, lim or 1.0
    else:
        vmin = float(finite.min()) if finite.size else 0.0
        vmax = float(finite.max()) if finite.size else 1.0
    if vmax <= vmin:  # one value (or none): give the colour scale some room
        vmin, vmax = vmin - 0.5 * (abs(vmin) or 1.0), vmax + 0.5 * (abs(vmax) or 1.0)
    return Normalize(vmin, vmax)


def _heatmap(ax, table: pd.DataFrame, *, cmap: str, center: bool, fmt: str, fig,
             log: bool = False, mask: np.ndarray | None = None, norm=None,
             colorbar: bool = True):
    """Draw one heatmap; cells where ``mask`` is true are drawn as "filtered", no number."""
    values = table.to_numpy(float)
    if mask is not None:
        values = np.where(mask, np.nan, values)
    if norm is None:
        norm = _norm(values, center=center, log=log)
    im = ax.imshow(values, cmap=cmap, norm=norm, aspect="auto")
    _finish_heatmap(ax, table, values, im, center, fmt, fig, mask, colorbar)
    return im


def _finish_heatmap(ax, table, values, im, center: bool, fmt: str, fig, mask=None,
                    colorbar: bool = True) -> None:
    ax.set_xticks(range(table.shape[1]), [str(c) for c in table.columns], fontsize=7,
                  rotation=45 if table.shape[1] > 6 else 0)
    ax.set_yticks(range(table.shape[0]), [str(r) for r in table.index], fontsize=7)
    if mask is not None and mask.any():
        from matplotlib.patches import Rectangle

        for r, c in zip(*np.nonzero(mask), strict=True):
            ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, facecolor="#eeeeee",
                                   edgecolor="#999999", hatch="///", lw=0.5))
            if values.size <= 200:
                ax.text(c, r, "filtered", ha="center", va="center", fontsize=6,
                        color="#555555")
    if values.size <= 200:
        for (r, c), v in np.ndenumerate(values):
            if np.isfinite(v):
                x = float(im.norm(v))
                dark = abs(x - 0.5) > 0.3 if center else x < 0.6
                ax.text(c, r, format(v, fmt), ha="center", va="center", fontsize=7,
                        color="white" if dark else "black")
    if colorbar:
        fig.colorbar(im, ax=ax, shrink=0.8)


_MALE = {"male", "m", "man", "men", "masculine", "he"}


def red_group(group_a, group_b, red: str | None = None) -> str:
    """The group whose advantage the mean heatmaps draw in red.

    The paper's colours: red favours males, blue females.  ``red`` names the group;
    default: the male one when the pair has one (``male``, ``m``, ``man``, ...), else B.

    Examples
    --------
    >>> red_group("female", "male"), red_group("M", "F"), red_group("x", "y")
    ('male', 'M', 'y')
    """
    if red is not None:
        if str(red) not in (str(group_a), str(group_b)):
            raise FairboundError(f"red: {red!r} is neither group of the pair "
                                 f"({group_a!r}, {group_b!r})", param="red")
        return str(red)
    for g in (group_a, group_b):
        if str(g).strip().lower() in _MALE:
            return str(g)
    return str(group_b)


def _gap_cmap(group_a, red: str) -> str:
    """Diverging map of the gap ``A - B``: red where ``red``'s rate is the higher."""
    # RdBu: low values red, high blue; a positive gap favours A
    return "RdBu_r" if str(red) == str(group_a) else "RdBu"


def _row_mask(mask: np.ndarray) -> np.ndarray:
    """Flag a class in the whole row when any column flags it (the paper drops it)."""
    return np.repeat(mask.any(axis=1, keepdims=True), mask.shape[1], axis=1) \
        if mask.size else mask


def _mask_of(df: pd.DataFrame, index: str, columns: str, table: pd.DataFrame) -> np.ndarray:
    """Which cells of a pivoted ``table`` are filtered (all False without the column)."""
    if "filtered" not in df.columns:
        return np.zeros(table.shape, bool)
    m = (df.assign(_f=df["filtered"].astype(bool).astype(float))
         .pivot_table(index=index, columns=columns, values="_f", aggfunc="max",
                      dropna=False))
    m = m.reindex(index=table.index, columns=table.columns)
    return np.nan_to_num(m.to_numpy(float)) > 0


@fill(**_DOCS)
def plot_variance_heatmap(
    summary: pd.DataFrame,
    *,
    condition: str | None = None,
    pair: tuple[str, str] | None = None,
    metrics: Sequence[str] | None = None,
    path: str | Path | None = None,
):
    """Heatmap of each gap's variance across runs, class by sample size (log colour scale).

    {{summary_parameters}}
    condition : str, optional
        Which condition (default: the first).
    {{pair}}
    metrics : sequence of str, optional
        One panel per metric (default: all).
    {{saved_figure}}

    Examples
    --------
    >>> s = pd.DataFrame({"condition": "o", "size": [100, 1000] * 2, "metric": "m",
    ...                   "class": ["a", "a", "b", "b"], "group_a": "f", "group_b": "m",
    ...                   "var": [0.01, 0.001, 0.02, 0.002], "mean": 0.0})
    >>> plot_variance_heatmap(s).axes[0].get_title()
    'var of m gap (f - m)'
    """
    df = _select(summary, pair, None, metrics)
    cond = df["condition"].iloc[0] if condition is None else condition
    df = df[df["condition"] == cond]
    mets = list(dict.fromkeys(df["metric"]))
    n_cls = df["class"].nunique()
    fig = _figure(3.6 * len(mets) + 0.5, 0.25 * n_cls + 1.8)
    axes = fig.subplots(1, len(mets), squeeze=False)[0]
    for ax, m in zip(axes, mets, strict=True):
        dm = df[df["metric"] == m]
        t = dm.pivot_table(index="class", columns="size", values="var", aggfunc="first",
                           dropna=False)
        _heatmap(ax, t, cmap="viridis", center=False, fmt=".1e", fig=fig, log=True,
                 mask=_row_mask(_mask_of(dm, "class", "size", t)))
        ax.set_title(f"var of {_SHORT.get(m, m)} gap ({df['group_a'].iloc[0]} - "
                     f"{df['group_b'].iloc[0]})", fontsize=9)
        ax.set_xlabel("sample size", fontsize=8)
    return _save(fig, path)


@fill(**_DOCS)
def plot_mean_heatmap(
    summary: pd.DataFrame,
    *,
    size: int | None = None,
    condition: str | None = None,
    pair: tuple[str, str] | None = None,
    red: str | None = None,
    path: str | Path | None = None,
):
    """Heatmap of the mean gap across runs, class by metric, at one sample size.

    Red is the advantage of group ``red`` (default the male group: the paper's colours),
    blue the other's; a filtered class is a hatched row.

    {{summary_parameters}}
    size : int, optional
        Sample size (default: the largest).
    condition : str, optional
        Which condition (default: the first).
    {{pair}}
    red : str, optional
        The group whose advantage is red (see :func:`red_group`).
    {{saved_figure}}

    Examples
    --------
    >>> s = pd.DataFrame({"condition": "o", "size": 100, "metric": ["gp", "gp"],
    ...                   "class": ["a", "b"], "group_a": "f", "group_b": "m",
    ...                   "mean": [0.1, -0.1], "var": 0.01})
    >>> plot_mean_heatmap(s).axes[0].get_title()
    'mean gap f - m, size 100'
    """
    df = _select(summary, pair, None, None)
    cond = df["condition"].iloc[0] if condition is None else condition
    df, n = _at_size(df[df["condition"] == cond], size)
    t = df.pivot_table(index="class", columns="metric", values="mean", aggfunc="first",
                       dropna=False)
    mask = _row_mask(_mask_of(df, "class", "metric", t))
    t.columns = [_SHORT.get(c, c) for c in t.columns]
    a, b = df["group_a"].iloc[0], df["group_b"].iloc[0]
    r = red_group(a, b, red)
    fig = _figure(1.3 * t.shape[1] + 2.2, 0.25 * t.shape[0] + 1.8)
    ax = fig.subplots()
    im = _heatmap(ax, t, cmap=_gap_cmap(a, r), center=True, fmt=".3f", fig=fig, mask=mask,
                  colorbar=False)
    fig.colorbar(im, ax=ax, shrink=0.8).set_label(_gap_label(a, b, r), fontsize=7)
    ax.set_title(f"mean gap {df['group_a'].iloc[0]} - {df['group_b'].iloc[0]}, size {n:,}",
                 fontsize=9)
    return _save(fig, path)


def _gap_label(a, b, red: str) -> str:
    blue = str(b) if str(red) == str(a) else str(a)
    return f"mean gap {a} - {b}\nred favours {red}, blue {blue}"


@fill(**_DOCS)
def plot_score_boxplots(
    runs: pd.DataFrame,
    *,
    scores: Sequence[str] = ("accuracy", "macro_f1"),
    path: str | Path | None = None,
):
    """Boxplots of each model score across runs, per training size and condition.

    Jourdan et al. (2023), Figs. 1-2: accuracy and macro-F1 of the models of one class,
    one box per sample size (and condition, side by side).

    Parameters
    ----------
    runs : pandas.DataFrame
        The ``runs`` table of a :class:`StudyResult` (``condition``, ``size`` and the
        score columns).
    scores : sequence of str
        Score columns, one panel each (``accuracy``, ``macro_f1``, ``f1[<class>]``).
    {{saved_figure}}

    {{runs_examples}}
    >>> [a.get_title() for a in plot_score_boxplots(r).axes]
    ['accuracy', 'macro-F1']
    """
    if runs is None or runs.empty:
        raise FairboundError("runs: the study has no runs yet", param="runs")
    scores = [scores] if isinstance(scores, str) else list(scores)
    missing = [c for c in scores if c not in runs.columns]
    if missing or not scores:
        raise FairboundError(f"scores: no column {missing[0] if missing else None!r} in the "
                             f"runs; columns are {list(runs.columns)[:20]}", param="scores")
    conds = list(dict.fromkeys(runs["condition"]))
    sizes = sorted(runs["size"].unique())
    fig = _figure(max(3.2, 0.9 * len(sizes) * max(1, len(conds) * 0.7)) * len(scores) + 0.4,
                  3.0 + (0.4 if len(conds) > 1 else 0))
    axes = fig.subplots(1, len(scores), squeeze=False)[0]
    for ax, sc in zip(axes, scores, strict=True):
        _runs_boxes(ax, runs, sc, conds, sizes)
        ax.set_xticks(np.arange(len(sizes)), [f"{n:,}" for n in sizes], fontsize=7)
        ax.set_title(_SCORES.get(sc, sc), fontsize=9)
        ax.set_xlabel("sample size", fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(True, axis="y", alpha=0.3)
    _condition_legend(fig, conds)
    return _save(fig, path)


@fill(**_DOCS)
def plot_condition_heatmaps(
    summary: pd.DataFrame,
    *,
    kind: str = "variance",
    pair: tuple[str, str] | None = None,
    metrics: Sequence[str] | None = None,
    size: int | None = None,
    conditions: Sequence[str] | None = None,
    red: str | None = None,
    path: str | Path | None = None,
):
    """The variance or mean-gap heatmaps of every condition side by side, one colour scale.

    Jourdan et al. (2023), Fig. 6: the classic and the debiased models next to each other,
    so that what debiasing changes is read cell by cell.  Filtered cells (the ``filtered``
    column of :func:`summarize_gaps`) are drawn hatched and grey, without a number.

    {{summary_parameters}}
    kind : {'variance', 'mean'}
        ``variance``: class by sample size, one row of panels per metric (log colour
        scale); ``mean``: mean gap, class by metric, at one sample size.
    {{pair}}
    metrics : sequence of str, optional
        Metrics shown (default: all).
    size : int, optional
        Sample size of the ``mean`` panels (default: the largest).
    conditions : sequence of str, optional
        Conditions, in order (default: all, in the study's order).
    red : str, optional
        ``mean``: the group whose advantage is red (default the male group, as in the
        paper; see :func:`red_group`).
    {{path}}

    Returns
    -------
    matplotlib.figure.Figure
        One heatmap panel per condition (per metric and condition for ``variance``), and
        one colour bar per row of panels.  A class the filter flags is a hatched row: at
        any size (``variance``, Fig. 5) or in any condition (``mean``, Fig. 6).

    Examples
    --------
    >>> s = pd.DataFrame({"condition": np.repeat(["classic", "debiased"], 4),
    ...                   "size": [100, 1000] * 4, "metric": "equal_opportunity",
    ...                   "class": ["a", "a", "b", "b"] * 2, "group_a": "f", "group_b": "m",
    ...                   "var": [0.01, 0.001, 0.02, 0.002, 0.008, 0.001, 0.01, 0.001],
    ...                   "mean": 0.0})
    >>> fig = plot_condition_heatmaps(s)
    >>> [a.get_title() for a in fig.axes if a.images]
    ['classic: var of TPR gap', 'debiased: var of TPR gap']
    """
    check_choice(kind, ("variance", "mean"), "kind")
    df = _select(summary, pair, None, metrics)
    conds = _conditions(df, conditions)
    a, b = df["group_a"].iloc[0], df["group_b"].iloc[0]
    n_cls = df["class"].nunique()
    if kind == "mean":
        df, n = _at_size(df, size)
        tables = []
        for c in conds:
            dc = df[df["condition"] == c]
            t = dc.pivot_table(index="class", columns="metric", values="mean",
                               aggfunc="first", dropna=False)
            mask = _mask_of(dc, "class", "metric", t)
            t.columns = [_SHORT.get(m, m) for m in t.columns]
            tables.append((c, t, mask))
        # a class filtered in one condition is filtered in all (the paper's two tables
        # drop the same occupations)
        gone = set()
        for _, t, mask in tables:
            gone |= {k for k, row in zip(t.index, mask, strict=True) if row.any()}
        tables = [(c, t, np.repeat(np.array([[k in gone] for k in t.index], bool),
                                   t.shape[1], axis=1) if t.size else mask)
                  for c, t, mask in tables]
        r = red_group(a, b, red)
        width = max(t.shape[1] for _, t, _ in tables)
        fig = _figure((1.2 * width + 1.6) * len(conds) + 0.8, 0.25 * n_cls + 2.0)
        axes = fig.subplots(1, len(conds), squeeze=False)[0]
        norm = _norm(np.concatenate([np.where(m, np.nan, t.to_numpy(float)).ravel()
                                     for _, t, m in tables]), center=True, log=False)
        im = None
        for ax, (c, t, mask) in zip(axes, tables, strict=True):
            im = _heatmap(ax, t, cmap=_gap_cmap(a, r), center=True, fmt=".3f", fig=fig,
                          mask=mask, norm=norm, colorbar=False)
            ax.set_title(f"{c}: mean gap, size {n:,}", fontsize=9)
        fig.colorbar(im, ax=list(axes), shrink=0.8).set_label(_gap_label(a, b, r),
                                                               fontsize=7)
        return _save(fig, path)
    mets = list(dict.fromkeys(df["metric"]))
    n_sizes = df["size"].nunique()
    fig = _figure((0.7 * n_sizes + 1.6) * len(conds) + 1.0,
                  (0.25 * n_cls + 1.4) * len(mets) + 0.4)
    axes = fig.subplots(len(mets), len(conds), squeeze=False)
    for i, m in enumerate(mets):
        tables = []
        for c in conds:
            dm = df[(df["metric"] == m) & (df["condition"] == c)]
            t = dm.pivot_table(index="class", columns="size", values="var", aggfunc="first",
                               dropna=False)
            tables.append((c, t, _row_mask(_mask_of(dm, "class", "size", t))))
        norm = _norm(np.concatenate([np.where(k, np.nan, t.to_numpy(float)).ravel()
                                     for _, t, k in tables]), center=False, log=True)
        im = None
        for j, (c, t, mask) in enumerate(tables):
            ax = axes[i, j]
            if t.empty:
                ax.set_axis_off()
                ax.set_title(f"{c}: no runs", fontsize=9)
                continue
            im = _heatmap(ax, t, cmap="viridis", center=False, fmt=".1e", fig=fig,
                          mask=mask, norm=norm, colorbar=False)
            ax.set_title(f"{c}: var of {_SHORT.get(m, m)} gap", fontsize=9)
            if i == len(mets) - 1:
                ax.set_xlabel("sample size", fontsize=8)
        if im is not None:
            fig.colorbar(im, ax=list(axes[i]), shrink=0.8)
    fig.suptitle(f"Variance of each gap across runs ({a} - {b})", fontsize=10)
    return _save(fig, path)


@fill(**_DOCS)
def plot_group_share(
    summary: pd.DataFrame,
    *,
    metric: str = "equal_opportunity",
    size: int | None = None,
    pair: tuple[str, str] | None = None,
    conditions: Sequence[str] | None = None,
    labels: bool = True,
    path: str | Path | None = None,
):
    """Per class (occupation): the share of group A among its members against the gap.

    Not one of Jourdan et al.'s figures (their Fig. 7 is :func:`plot_class_counts`); after
    De-Arteaga et al. (2019), Fig. 2: one point per occupation,
    x the share of women among the occupation's true members, y the mean TPR gap
    (women - men) over runs with its central 95 % range of the runs as a bar.  The share is
    read from the TPR denominators (``mean_n_a / (mean_n_a + mean_n_b)`` of the
    ``equal_opportunity`` rows), so the study must include that metric.  Occupations the
    filter flags (for the metric shown or for the share) are hollow grey markers, named
    in the legend count, never solid points.

    {{summary_parameters}}
    metric : str
        The gap on the y axis (default the TPR gap; any metric of the study).
    size : int, optional
        Sample size (default: the largest).
    {{pair}}
    conditions : sequence of str, optional
        One panel per condition (default: all).
    labels : bool
        Write each class's name beside its point.
    {{path}}

    Returns
    -------
    matplotlib.figure.Figure
        One panel per condition; each panel's title gives Pearson's r over the kept
        classes.

    Examples
    --------
    >>> s = pd.DataFrame({"condition": "o", "size": 1000, "metric": "equal_opportunity",
    ...                   "class": ["nurse", "surgeon", "teacher"], "group_a": "f",
    ...                   "group_b": "m", "mean": [0.10, -0.12, 0.02],
    ...                   "q025": [0.0, -0.2, -0.05], "q975": [0.2, -0.04, 0.09],
    ...                   "mean_n_a": [90, 15, 60], "mean_n_b": [10, 85, 40]})
    >>> fig = plot_group_share(s)
    >>> fig.axes[0].get_xlabel()
    'share of f among the class (test sets)'
    """
    df = _select(summary, pair, None, None)
    a, b = df["group_a"].iloc[0], df["group_b"].iloc[0]
    if "equal_opportunity" not in set(df["metric"]):
        raise FairboundError("metric: the share of each group within a class is read from "
                             "the equal_opportunity (TPR) rows; the study has none (add "
                             "that metric)", param="metric")
    if metric not in set(df["metric"]):
        raise FairboundError(f"metric: no {metric!r} rows in the study; metrics are "
                             f"{sorted(set(df['metric']))}", param="metric")
    df, n = _at_size(df, size)
    conds = _conditions(df, conditions)
    fig = _figure(4.6 * len(conds) + 0.4, 4.0)
    axes = fig.subplots(1, len(conds), squeeze=False, sharey=True)[0]
    flag = "filtered" in df.columns
    for ax, c in zip(axes, conds, strict=True):
        dc = df[df["condition"] == c]
        tpr = dc[dc["metric"] == "equal_opportunity"].set_index("class")
        y = dc[dc["metric"] == metric].set_index("class")
        cls = [k for k in y.index if k in tpr.index]
        na = tpr.loc[cls, "mean_n_a"].astype(float)
        nb = tpr.loc[cls, "mean_n_b"].astype(float)
        share = (na / (na + nb)).to_numpy()
        mean = y.loc[cls, "mean"].astype(float).to_numpy()
        lo = y.loc[cls, "q025"].astype(float).to_numpy() if "q025" in y else mean
        hi = y.loc[cls, "q975"].astype(float).to_numpy() if "q975" in y else mean
        out = np.zeros(len(cls), bool)
        if flag:
            out = (y.loc[cls, "filtered"].astype(bool).to_numpy()
                   | tpr.loc[cls, "filtered"].astype(bool).to_numpy())
        ok = ~out & np.isfinite(share) & np.isfinite(mean)
        ax.errorbar(share[ok], mean[ok], yerr=[mean[ok] - lo[ok], hi[ok] - mean[ok]],
                    fmt="o", color=_COLORS[0], ms=5, elinewidth=0.8, capsize=2,
                    label=f"kept ({int(ok.sum())})")
        bad_pts = out & np.isfinite(share)
        if bad_pts.any():
            yy = np.where(np.isfinite(mean), mean, 0.0)
            ax.scatter(share[bad_pts], yy[bad_pts], facecolors="none", edgecolors="#888888",
                       s=28, label=f"filtered ({int(bad_pts.sum())}): too few per group")
        if labels:
            for k, x, v, o in zip(cls, share, mean, out, strict=True):
                if np.isfinite(x) and np.isfinite(v):
                    ax.annotate(str(k), (x, v), fontsize=6, xytext=(3, 2),
                                textcoords="offset points",
                                color="#888888" if o else "#333333")
        ax.axhline(0.0, color="grey", lw=0.8, ls="--")
        ax.set_xlim(-0.02, 1.02)
        r = (float(np.corrcoef(share[ok], mean[ok])[0, 1])
             if ok.sum() > 2 and np.ptp(share[ok]) > 0 and np.ptp(mean[ok]) > 0 else np.nan)
        ax.set_title(f"{c}, size {n:,}" + (f": Pearson r = {r:+.2f}" if np.isfinite(r)
                                           else ""), fontsize=9)
        ax.set_xlabel(f"share of {a} among the class (test sets)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    axes[0].set_ylabel(f"mean {_SHORT.get(metric, metric)} gap ({a} - {b})", fontsize=8)
    return _save(fig, path)


@fill(**_DOCS)
def plot_class_f1(
    runs: pd.DataFrame,
    *,
    classes: Sequence[str],
    path: str | Path | None = None,
):
    """Boxplots of the F1-score of named classes across runs, per training size.

    Jourdan et al. (2023), Fig. 2: "Boxplots representing the variations of prediction
    F1-scores for all sampling sizes for surgeon (top) and physician (bottom)": one row of
    panels per class, top to bottom in the order given, one box per sample size (and
    condition, side by side).

    Parameters
    ----------
    runs : pandas.DataFrame
        The ``runs`` table of a :class:`StudyResult` (columns ``f1[<class>]``).
    classes : sequence of str
        The classes, top to bottom (the paper: ``["surgeon", "physician"]``).
    {{saved_figure}}

    {{runs_examples}}
    >>> [a.get_title() for a in plot_class_f1(r, classes=["surgeon", "physician"]).axes]
    ['F1-score: surgeon', 'F1-score: physician']
    """
    if runs is None or runs.empty:
        raise FairboundError("runs: the study has no runs yet", param="runs")
    classes = [classes] if isinstance(classes, str) else [str(c) for c in classes]
    if not classes:
        raise FairboundError("classes: name at least one class", param="classes")
    have = [c[3:-1] for c in runs.columns if c.startswith("f1[")]
    missing = [c for c in classes if f"f1[{c}]" not in runs.columns]
    if missing:
        raise FairboundError(f"classes: no class {missing[0]!r} in the runs; classes are "
                             f"{have[:30]}", param="classes")
    conds = list(dict.fromkeys(runs["condition"]))
    sizes = sorted(runs["size"].unique())
    fig = _figure(max(3.6, 0.9 * len(sizes) * max(1, len(conds) * 0.7)) + 0.6,
                  2.4 * len(classes) + (0.5 if len(conds) > 1 else 0.2))
    axes = fig.subplots(len(classes), 1, squeeze=False, sharex=True)[:, 0]
    for ax, k in zip(axes, classes, strict=True):
        _runs_boxes(ax, runs, f"f1[{k}]", conds, sizes)
        ax.set_title(f"F1-score: {k}", fontsize=9)
        ax.set_ylabel("F1", fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(True, axis="y", alpha=0.3)
    axes[-1].set_xticks(np.arange(len(sizes)), [f"{n:,}" for n in sizes], fontsize=7)
    axes[-1].set_xlabel("sample size", fontsize=8)
    _condition_legend(fig, conds)
    return _save(fig, path)


@fill(**_DOCS)
def plot_class_counts(
    counts: pd.DataFrame,
    *,
    path: str | Path | None = None,
):
    """Bars of the number of rows of each class by group (Jourdan et al. 2023, Fig. 7).

    "Number of biographies for each occupation by gender on the total dataset": one
    horizontal pair of bars per class (one bar per group, side by side), classes sorted by
    their total.

    Parameters
    ----------
    counts : pandas.DataFrame
        Columns ``class``, ``group`` and ``n`` (e.g.
        ``StudyResult.config.class_count_frame()``).
    {{saved_figure}}

    Examples
    --------
    >>> c = pd.DataFrame({"class": ["nurse", "nurse", "surgeon", "surgeon"],
    ...                   "group": ["F", "M", "F", "M"], "n": [90, 10, 15, 85]})
    >>> ax = plot_class_counts(c).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()], len(ax.patches)
    (['nurse', 'surgeon'], 4)
    """
    need = {"class", "group", "n"}
    if counts is None or counts.empty or not need <= set(counts.columns):
        raise FairboundError("counts: need the columns class, group and n (the study "
                             "records them from its data: config.class_count_frame())",
                             param="counts")
    t = (counts.assign(**{"class": counts["class"].astype(str),
                          "group": counts["group"].astype(str)})
         .pivot_table(index="class", columns="group", values="n", aggfunc="sum",
                      fill_value=0))
    t = t.loc[t.sum(axis=1).sort_values(kind="stable").index]
    groups = list(t.columns)
    fig = _figure(6.4, 0.28 * len(t) + 1.4)
    ax = fig.subplots()
    h = 0.8 / len(groups)
    y = np.arange(len(t))
    for i, g in enumerate(groups):
        ax.barh(y + (i - (len(groups) - 1) / 2) * h, t[g].to_numpy(float), height=h,
                color=_COLORS[i % len(_COLORS)], label=str(g))
    ax.set_yticks(y, [str(k) for k in t.index], fontsize=7)
    ax.tick_params(axis="x", labelsize=7)
    ax.set_xlabel("rows (whole data)", fontsize=8)
    ax.set_title("Rows of each class by group", fontsize=9)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    return _save(fig, path)
