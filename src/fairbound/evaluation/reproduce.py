"""The MultiNLI experiment of Ethayarajh (2020) behind ``fairbound reproduce bbu``.

The cost of an MNLI example is the share of its annotators whose label differs from the
gold label; the protected group is a genre.  Table 1 of the paper compares every genre's
mean cost with the mean cost outside it over all dev data (e.g. government 0.154 vs 0.124).
Figure 1 draws samples of ``n`` examples with a share ``gamma`` from the genre, computes the
95% BBU interval and counts how often it contains the full-data gap (100% at n = 100 over
20 runs in the paper).  :meth:`CoverageStudy.by_genre` gives, per genre, the estimate and its
interval as ``n`` and ``gamma`` vary: the paper's Figure 1, drawn by :func:`figure1` with the
paper's panels (the 'government' genre; left, gamma fixed at 0.1; right, n fixed at 500), the
one code path of the Python API and ``fairbound reproduce bbu --figure``.

The MultiNLI 1.0 dev files are not bundled: pass the public files
(``multinli_1.0_dev_matched.jsonl`` and ``..._mismatched.jsonl``, or GLUE's ``dev_*.tsv``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fairbound.errors import FairboundError
from fairbound.stats import GroupStats, difference_interval

LABELS = ("entailment", "neutral", "contradiction")


def load_mnli(paths) -> pd.DataFrame:
    """Read MultiNLI dev files (JSON lines or GLUE TSV) into genre and annotator cost.

    Parameters
    ----------
    paths : path or list of paths
        ``multinli_1.0_dev_*.jsonl`` (fields ``genre``, ``gold_label``,
        ``annotator_labels``) or GLUE ``dev_*.tsv`` (columns ``genre``, ``label1`` ..
        ``label5``, ``gold_label``).

    Returns
    -------
    pandas.DataFrame
        Columns ``genre``, ``n_annotators`` and ``cost`` (share of annotators disagreeing
        with the gold label); examples without a gold label (``-``) are dropped.
    """
    if isinstance(paths, str | Path):
        paths = [paths]
    frames = []
    for p in map(Path, paths):
        if not p.exists():
            raise FairboundError(f"mnli: file not found: {str(p)!r}", param="mnli")
        if p.suffix.lower() == ".tsv":
            df = pd.read_csv(p, sep="\t", quoting=3, dtype=str, on_bad_lines="error")
            label_cols = [c for c in df.columns if c.startswith("label")]
            need = {"genre", "gold_label"}
            if not need <= set(df.columns) or not label_cols:
                raise FairboundError(f"mnli: {str(p)!r} lacks columns genre, gold_label, "
                                     "label1..label5", param="mnli")
            labels = df[label_cols].to_numpy()
            gold = df["gold_label"].to_numpy()
            genre = df["genre"].to_numpy()
        else:
            rows = []
            with open(p, encoding="utf-8") as fh:
                for i, line in enumerate(fh, 1):
                    if not line.strip():
                        continue
                    try:
                        obj = json.loads(line)
                        rows.append((obj["genre"], obj["gold_label"], obj["annotator_labels"]))
                    except (json.JSONDecodeError, KeyError) as exc:
                        raise FairboundError(
                            f"mnli: {str(p)!r} line {i} is not an MNLI record ({exc})",
                            param="mnli") from None
            width = max((len(r[2]) for r in rows), default=0)
            labels = np.array([list(r[2]) + [None] * (width - len(r[2])) for r in rows],
                              dtype=object)
            gold = np.array([r[1] for r in rows], dtype=object)
            genre = np.array([r[0] for r in rows], dtype=object)
        valid = np.isin(labels, LABELS)
        disagree = valid & (labels != gold[:, None])
        n_ann = valid.sum(axis=1)
        keep = np.isin(gold, LABELS) & (n_ann > 0)
        frames.append(pd.DataFrame({
            "genre": genre[keep], "n_annotators": n_ann[keep],
            "cost": disagree.sum(axis=1)[keep] / n_ann[keep],
        }))
    out = pd.concat(frames, ignore_index=True)
    if out.empty:
        raise FairboundError("mnli: no examples with a gold label in the given files",
                             param="mnli")
    return out


def genre_table(df: pd.DataFrame) -> pd.DataFrame:
    """Table 1: per genre, mean cost in and out of the genre, the gap and the counts."""
    rows = []
    total, n = df["cost"].sum(), len(df)
    for genre, sub in df.groupby("genre", sort=True):
        k = len(sub)
        inside = sub["cost"].mean()
        outside = (total - sub["cost"].sum()) / (n - k) if n > k else np.nan
        rows.append({"genre": genre, "n_in": k, "n_out": n - k, "cost_in": inside,
                     "cost_out": outside, "gap": inside - outside})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class CoverageStudy:
    """Result of the Figure 1 study.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per genre, ``n``, ``gamma`` and run: ``estimate``, ``low``, ``high``,
        ``half_width``, ``truth`` (the full-data gap) and ``covered``.
    runs, seed, confidence_level
        The study's settings.
    method : str
        The interval method (``bbu`` in the paper).
    """

    table: pd.DataFrame
    runs: int
    seed: int
    confidence_level: float
    method: str = "bbu"

    def summary(self) -> pd.DataFrame:
        """Coverage and mean half-width per (n, gamma), over genres and runs."""
        return (self.table.groupby(["n", "gamma"], as_index=False)
                .agg(coverage=("covered", "mean"), mean_half_width=("half_width", "mean"),
                     intervals=("covered", "size")))

    def by_genre(self) -> pd.DataFrame:
        """Per genre, ``n`` and ``gamma``: the estimate and its interval, averaged over runs.

        Returns
        -------
        pandas.DataFrame
            Columns ``genre``, ``n``, ``gamma``, ``estimate`` (mean over runs), ``low`` and
            ``high`` (mean bounds), ``half_width``, ``truth`` (the full-data gap of the
            genre), ``coverage`` (share of runs whose interval holds the truth) and
            ``runs``: the numbers behind the paper's Figure 1.
        """
        return (self.table.groupby(["genre", "n", "gamma"], as_index=False, sort=True)
                .agg(estimate=("estimate", "mean"), low=("low", "mean"),
                     high=("high", "mean"), half_width=("half_width", "mean"),
                     truth=("truth", "first"), coverage=("covered", "mean"),
                     runs=("covered", "size")))


def coverage_study(df: pd.DataFrame, *, ns=(100, 200, 500, 1000, 2000),
                   gammas=(0.1, 0.25, 0.5), runs: int = 20, confidence_level: float = 0.95,
                   seed: int = 0, method: str = "bbu") -> CoverageStudy:
    """Figure 1: how often the BBU interval on a sample contains the full-data gap.

    Parameters
    ----------
    df : DataFrame
        Output of :func:`load_mnli`.
    ns, gammas : sequences
        Sample sizes and protected-genre shares.
    runs : int
        Samples per cell (the paper uses 20).
    confidence_level : float
        Interval level.
    seed : int
        Seed of the sampling.
    method : str
        Interval method (the paper's ``bbu``; any registered method works).

    Returns
    -------
    CoverageStudy
    """
    rng = np.random.default_rng(seed)
    full = genre_table(df).set_index("genre")
    costs = {g: sub["cost"].to_numpy() for g, sub in df.groupby("genre", sort=True)}
    rows = []
    for genre in full.index:
        inside = costs[genre]
        outside = np.concatenate([c for g, c in costs.items() if g != genre])
        truth = full.loc[genre, "gap"]
        for n in ns:
            for gamma in gammas:
                k = max(1, int(round(n * gamma)))
                if k > len(inside) or n - k > len(outside):
                    continue
                for r in range(runs):
                    a = GroupStats.from_costs(rng.choice(inside, k, replace=False),
                                              keep_sample=False)
                    b = GroupStats.from_costs(rng.choice(outside, n - k, replace=False),
                                              keep_sample=False)
                    lo, hi = difference_interval(a, b, method=method,
                                                 confidence_level=confidence_level)
                    rows.append({"genre": genre, "n": n, "gamma": gamma, "run": r,
                                 "estimate": a.mean - b.mean, "low": lo, "high": hi,
                                 "half_width": (hi - lo) / 2, "truth": truth,
                                 "covered": bool(lo <= truth <= hi)})
    return CoverageStudy(pd.DataFrame(rows), runs, seed, confidence_level, method)


#: Figure 1 of the paper, from its caption: "The true bias (red) for the 'government' genre
#: ... On the left, the protected group frequency is fixed at 0.1; on the right, the sample
#: size is fixed at 500."
FIGURE1 = {"genres": ("government",), "gamma": 0.1, "n": 500}


def figure1_settings(study: CoverageStudy, *, genres=None, gamma: float | None = None,
                     n: int | None = None) -> dict:
    """The panel settings :func:`figure1` uses: the paper's wherever the study has them.

    Parameters
    ----------
    study : CoverageStudy
        The result of :func:`coverage_study`.
    genres, gamma, n
        Overrides; ``None`` takes the paper's value (:data:`FIGURE1`) when the study has
        it, else the plot's own default (all genres, the share nearest 0.5, the largest n).

    Returns
    -------
    dict
        ``genres``, ``gamma``, ``n`` (``None`` where the plot's default applies) and
        ``paper`` (whether all three are the paper's).

    Examples
    --------
    >>> t = pd.DataFrame({"genre": "government", "n": [100, 500], "gamma": 0.1,
    ...                   "estimate": 0.0, "low": 0.0, "high": 0.0, "half_width": 0.0,
    ...                   "truth": 0.0, "covered": True})
    >>> figure1_settings(CoverageStudy(t, runs=1, seed=0, confidence_level=0.95))
    {'genres': ['government'], 'gamma': 0.1, 'n': 500, 'paper': True}
    """
    t = study.table
    if genres is None and set(FIGURE1["genres"]) <= set(t["genre"]):
        genres = list(FIGURE1["genres"])
    if gamma is None and np.isclose(t["gamma"].astype(float), FIGURE1["gamma"]).any():
        gamma = FIGURE1["gamma"]
    if n is None and (t["n"] == FIGURE1["n"]).any():
        n = FIGURE1["n"]
    paper = (genres == list(FIGURE1["genres"]) and gamma is not None
             and np.isclose(gamma, FIGURE1["gamma"]) and n == FIGURE1["n"])
    return {"genres": None if genres is None else list(genres), "gamma": gamma, "n": n,
            "paper": bool(paper)}


def figure1(study: CoverageStudy, *, genres=None, gamma: float | None = None,
            n: int | None = None, path=None):
    """Figure 1 of Ethayarajh (2020) with the paper's panels.

    Parameters
    ----------
    study : CoverageStudy
        The result of :func:`coverage_study` (its default grid holds the paper's gamma
        0.1 and n 500).
    genres : sequence of str, optional
        Genres, one row each (default: ``government``, as in the paper).
    gamma : float, optional
        The share of the left panels (default: the paper's 0.1).
    n : int, optional
        The sample size of the right panels (default: the paper's 500).
    path : str or pathlib.Path, optional
        Save the figure there (``.png``, ``.svg`` or ``.pdf``).

    Returns
    -------
    matplotlib.figure.Figure
        See :func:`fairbound.viz.coverage.plot_genre_intervals`; the settings are those of
        :func:`figure1_settings`.

    Examples
    --------
    >>> fig = figure1(coverage_study(load_mnli("dev_matched.jsonl")))  # doctest: +SKIP
    >>> [a.get_title() for a in fig.axes]  # doctest: +SKIP
    ['government: interval vs n (gamma = 0.1)', 'government: interval vs gamma (n = 500)']
    """
    from fairbound.viz.coverage import plot_genre_intervals

    s = figure1_settings(study, genres=genres, gamma=gamma, n=n)
    return plot_genre_intervals(study, genres=s["genres"], gamma=s["gamma"], n=s["n"],
                                path=path)
