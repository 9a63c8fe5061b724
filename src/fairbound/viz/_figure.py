"""The shared parts of every figure: matplotlib on demand, axes, styles, labels, saving.

Every module of :mod:`fairbound.viz` draws with these: :func:`_pyplot` and :func:`_figure`
import matplotlib only when a figure is drawn; :func:`result_dict` reads a result given
live, as a dictionary or as a JSON file; :func:`text_safe` and :func:`short` make user
strings safe and short for a figure; :func:`_chosen` checks the names a caller asks for;
:func:`_forest_axis` lays out the rows of a forest plot.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fairbound.errors import FairboundError, require

#: The accent colour of single-series figures.
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


def _save(fig, path) -> Any:
    """Write ``fig`` to ``path`` (PNG, SVG or PDF, folders made) unless ``path`` is None.

    Returns ``fig``, so that a figure function ends ``return _save(fig, path)``.
    """
    if path is not None:
        p = Path(path)
        if p.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise FairboundError(f"path must end in .png, .svg or .pdf; got {str(path)!r}",
                                 param="path")
        p.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(p, dpi=120)
    return fig


def _tight(fig) -> None:
    """``tight_layout`` without a warning when long labels leave no room (it does its best)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()


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


def _level_text(x: float) -> str:
    from fairbound._render import fmt_level

    return fmt_level(x)


def _pyplot():
    return require("matplotlib.pyplot", "plot")


def _style(ax) -> None:
    ax.spines["top"].set_visible(False)
    ax.spines["right"].set_visible(False)
    ax.tick_params(labelsize=8)


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
