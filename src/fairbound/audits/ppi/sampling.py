"""Which rows to annotate next: group-stratified draws from the proxy's uncertainty.

Gold labels are the cost of an audit.  With a proxy score on every row (a stronger
model's probability, an LLM judge's confidence), :func:`sample_for_annotation` chooses the
rows to send to annotators so that a prediction-powered audit needs fewer of them:

* **Between groups** the budget is split by ``allocation``: ``"neyman"`` (default) in
  proportion to each group's summed uncertainty over its rows still to label, divided by
  its size (the split that minimises the sum of the groups' variances, Neyman 1934, with
  the proxy's uncertainty standing in for the rectifier's standard deviation),
  ``"proportional"`` to the rows still to label, or ``"equal"``.
* **Within a group** row ``i`` is drawn with probability
  ``pi_i = b ((1 - mix) u_i / sum u + mix / n)`` (capped at 1, the excess spread over the
  others), ``b`` the group's budget, ``n`` its rows still to label and
  ``u_i = sqrt(min(s_i, 1 - s_i))`` for a proxy score ``s_i`` in ``[0, 1]``: the standard
  deviation of the proxy label's error if the score is calibrated, so that ``pi`` is
  proportional to the rectifier's spread as in Zrnic & Candès (2024).  ``mix`` (default
  0.2) mixes in uniform sampling: every row keeps ``pi >= mix b / n``, which bounds the
  weights ``1 / pi`` and keeps the design valid however wrong the score is.
* Rows are drawn independently (Poisson sampling) with a generator seeded by
  ``(seed, batch)``: the same call gives the same rows, the randomness is independent of
  the gold labels (which nobody has seen yet), and each batch draws afresh.

The result records ``pi`` and the batch in two columns of the data
(``fairbound_probability``, ``fairbound_batch``).  After annotation,
:func:`fairbound.audits.ppi.audit.ppi_audit` with ``sampling_probability=`` and ``batch=`` weights
each labeled row by ``1 / pi`` (:mod:`fairbound.stats.ppi_ipw`).  Annotating in batches
until the verdict is reached: draw batch 1, annotate, audit with ``looks=K`` (the number of
batches you are prepared to pay for); if a gap is still open, draw batch 2 from the rows
still unlabeled (its probabilities may use the new labels' groups), and so on.  With
``looks=K`` every look's intervals are at ``1 - alpha / K``, so stopping at the first
decisive look keeps the error below ``alpha``.

Guarantee: none by itself; it makes the weighted audit's assumption true by construction
(probabilities recorded as drawn, independent of the unseen labels, bounded below).  Not
covered: annotators who skip rows (the audit refuses drawn rows without a label: annotate
all of them), and a total that is random (Poisson sampling draws ``budget`` rows on
average; the summary gives the number drawn).

References
----------
T. Zrnic and E. J. Candès. "Active statistical inference." ICML 2024 (arXiv:2403.03208).

J. Neyman. "On the two different aspects of the representative method." Journal of the
Royal Statistical Society 97 (1934) 558-625.

Examples
--------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame({"g": rng.choice(["a", "b"], 1000), "judge": rng.random(1000)})
>>> s = sample_for_annotation(df, group="g", budget=100, proxy_score="judge")
>>> s
<AnnotationSample: batch 1, 2 groups, budget 100, 117 rows drawn (seed 0)>
>>> list(s.selected.columns)
['g', 'judge', 'fairbound_row', 'fairbound_batch', 'fairbound_probability']
>>> [round(g.budget, 1) for g in s.groups]
[50.5, 49.5]
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairbound._validate import check_choice, check_float, check_int, check_seed
from fairbound.errors import FairboundError

__all__ = ["ALLOCATIONS", "AnnotationSample", "GroupDraw", "annotation_probabilities",
           "sample_for_annotation"]

#: How a budget is split between groups.
ALLOCATIONS = ("neyman", "proportional", "equal")

PROBABILITY_COLUMN = "fairbound_probability"
BATCH_COLUMN = "fairbound_batch"
#: The row key written with every row, so that annotators' labels join back exactly.
ROW_COLUMN = "fairbound_row"


def _water_fill(weights: np.ndarray, total: float, cap: np.ndarray) -> np.ndarray:
    """``x`` proportional to ``weights``, summing to ``total``, with ``x <= cap`` (excess spread).

    ``total`` is at most ``cap.sum()``; entries with zero weight get nothing unless every
    other entry is full.
    """
    x = np.zeros_like(weights, dtype=float)
    free = np.ones(weights.shape, dtype=bool)
    left = float(total)
    for _ in range(weights.size + 1):
        w = np.where(free, weights, 0.0)
        if left <= 0 or not free.any():
            break
        if w.sum() <= 0:   # only zero weights left: spread evenly over their room
            w = np.where(free, 1.0, 0.0)
        trial = left * w / w.sum()
        over = free & (trial >= cap - x)
        if not over.any():
            x[free] += trial[free]
            break
        left -= float((cap - x)[over].sum())
        x[over] = cap[over]
        free &= ~over
    return x


def annotation_probabilities(uncertainty, budget: float, *, mix: float = 0.2) -> np.ndarray:
    """Inclusion probabilities ``pi`` for one group's candidate rows (module docstring).

    Parameters
    ----------
    uncertainty : array_like
        ``u_i >= 0`` per candidate row (all equal: uniform sampling).
    budget : float
        Expected number of rows to draw (``sum pi``); at least the number of rows draws
        them all.
    mix : float
        Share of uniform sampling, in ``(0, 1]``: every ``pi >= mix * budget / n``.

    Returns
    -------
    numpy.ndarray
        ``pi`` in ``(0, 1]``, summing to ``min(budget, n)``.

    Examples
    --------
    >>> annotation_probabilities([0.0, 0.5, 0.5, 0.1], 2.0, mix=0.2).round(3).tolist()
    [0.1, 0.827, 0.827, 0.245]
    """
    u = np.asarray(uncertainty, dtype=float)
    n = u.size
    if n == 0:
        return u
    if budget >= n:
        return np.ones(n)
    total = u.sum()
    base = mix / n + ((1.0 - mix) * u / total if total > 0 else np.full(n, (1.0 - mix) / n))
    return np.maximum(_water_fill(base, budget, np.ones(n)), 1e-12)


@dataclass(frozen=True)
class GroupDraw:
    """One group's share of an annotation batch.

    Attributes
    ----------
    group : object
        The group (a tuple for intersections).
    rows : int
        Rows of the group.
    labeled : int
        Rows already labeled or drawn in an earlier batch (not candidates).
    candidates : int
        Rows that could be drawn.
    budget : float
        The group's share of the budget (expected rows drawn).
    drawn : int
        Rows drawn.
    min_probability, max_probability : float
        Range of ``pi`` over the candidates (NaN without candidates).
    """

    group: Any
    rows: int
    labeled: int
    candidates: int
    budget: float
    drawn: int
    min_probability: float
    max_probability: float

    def to_dict(self) -> dict:
        """Plain dictionary (JSON-ready)."""
        g = " & ".join(map(str, self.group)) if isinstance(self.group, tuple) else self.group
        out = {"group": g.item() if isinstance(g, np.generic) else g}
        for k in ("rows", "labeled", "candidates", "budget", "drawn", "min_probability",
                  "max_probability"):
            v = getattr(self, k)
            out[k] = None if isinstance(v, float) and math.isnan(v) else v
        return out


@dataclass(frozen=True)
class AnnotationSample:
    """A batch of rows to annotate, with every row's design recorded.

    Attributes
    ----------
    data : pandas.DataFrame
        All rows, with ``probability_column`` and ``batch_column`` set for the rows drawn
        now (and kept for earlier batches): the table to add the gold labels to.
    selected : pandas.DataFrame
        The rows drawn in this batch (with their original index).
    groups : tuple of GroupDraw
        Per group: rows, candidates, budget and rows drawn.
    batch, seed : int
        This batch's number and the seed; the draw uses ``numpy.random.default_rng((seed,
        batch))``.
    budget : float
        Expected rows drawn in all.
    allocation : str
        How the budget was split between groups.
    mix : float
        Share of uniform sampling within a group.
    probability_column, batch_column : str
        Where ``pi`` and the batch are recorded.
    notes : tuple of str
        E.g. a score that carries no uncertainty (0/1), so the draw is uniform.
    """

    data: Any = field(repr=False)
    selected: Any = field(repr=False)
    groups: tuple[GroupDraw, ...]
    batch: int
    seed: int
    budget: float
    allocation: str
    mix: float
    probability_column: str = PROBABILITY_COLUMN
    batch_column: str = BATCH_COLUMN
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (f"<AnnotationSample: batch {self.batch}, {len(self.groups)} groups, budget "
                f"{self.budget:g}, {len(self.selected):,} rows drawn (seed {self.seed})>")

    def to_frame(self):
        """One row per group (pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame([g.to_dict() for g in self.groups])

    def to_dict(self) -> dict:
        """JSON-ready summary (not the rows)."""
        return {"batch": self.batch, "seed": self.seed, "budget": self.budget,
                "allocation": self.allocation, "mix": self.mix,
                "drawn": int(len(self.selected)),
                "probability_column": self.probability_column,
                "batch_column": self.batch_column,
                "groups": [g.to_dict() for g in self.groups], "notes": list(self.notes)}


# --------------------------------------------------------------------------- row key
def _add_row_key(df) -> None:
    """Give every row a key in :data:`ROW_COLUMN` (kept when present and valid)."""
    import pandas as pd

    if ROW_COLUMN not in df.columns:
        df[ROW_COLUMN] = np.arange(len(df), dtype=np.int64)
        return
    key = pd.to_numeric(df[ROW_COLUMN], errors="coerce")
    if key.isna().any() or key.duplicated().any() or (key != key.round()).any():
        raise FairboundError(f"data: column {ROW_COLUMN!r} (the row key of an earlier draw) "
                             "must hold distinct whole numbers; drop it to start a new design",
                             param="data")
    df[ROW_COLUMN] = key.astype(np.int64)


def merge_annotations(design, annotations, *, label: str, key: str = ROW_COLUMN):
    """Fill the gold labels of ``design`` from the annotators' file, joined on the row key.

    Parameters
    ----------
    design : DataFrame, Arrow table, dict or path
        The table :func:`sample_for_annotation` wrote (``.data``): every row, with
        ``fairbound_row``.
    annotations : DataFrame, Arrow table, dict or path
        The rows handed to annotators (``.selected`` / ``--annotate``) with ``label`` filled
        in; only ``key`` and ``label`` are read.
    label : str
        Gold label column; created in ``design`` when absent.
    key : str
        Row key column (default ``fairbound_row``).

    Returns
    -------
    pandas.DataFrame
        ``design`` with ``label`` set on the annotated rows; nothing else changes.

    Raises
    ------
    FairboundError
        A missing key or label column, duplicate or unknown keys, a row that already holds
        another label, or an annotated row left without a label.

    Examples
    --------
    >>> import pandas as pd
    >>> pool = pd.DataFrame({"g": ["a", "b"] * 50, "p": [0.3, 0.6] * 50})
    >>> s = sample_for_annotation(pool, group="g", budget=10, proxy_score="p", seed=1)
    >>> done = s.selected[["fairbound_row"]].assign(gold=1)
    >>> merged = merge_annotations(s.data, done, label="gold")
    >>> int(merged["gold"].notna().sum()) == len(s.selected)
    True
    """
    import pandas as pd

    df, ann = _frame(design), _frame(annotations)
    for frame, what in ((df, "design"), (ann, "annotations")):
        if key not in frame.columns:
            raise FairboundError(f"{what}: no row key column {key!r} (write the design with "
                                 "fairbound sample, which adds it)", param=what)
    if not isinstance(label, str) or label not in ann.columns:
        raise FairboundError(f"label: column {label!r} is not in the annotations (columns: "
                             f"{', '.join(map(str, ann.columns[:8]))})", param="label")
    if ann[label].isna().any():
        raise FairboundError(f"label: {int(ann[label].isna().sum()):,} annotated row(s) have "
                             f"no value in {label!r}; every drawn row needs one",
                             param="label")
    keys = pd.to_numeric(ann[key], errors="coerce")
    if keys.isna().any() or keys.duplicated().any():
        raise FairboundError(f"annotations: column {key!r} must hold distinct row keys; "
                             f"found {'missing' if keys.isna().any() else 'repeated'} ones",
                             param="annotations")
    where = pd.Index(pd.to_numeric(df[key], errors="coerce")).get_indexer(keys)
    if (where < 0).any():
        bad = keys[where < 0].iloc[0]
        raise FairboundError(f"annotations: row key {int(bad)} in {key!r} is not in the "
                             f"design ({int((where < 0).sum()):,} unknown)",
                             param="annotations")
    if label not in df.columns:
        numeric = ann[label].dtype.kind in "biuf"
        df[label] = np.full(len(df), np.nan) if numeric else pd.Series(
            [None] * len(df), dtype=object, index=df.index)
    old = df[label].iloc[where].reset_index(drop=True)
    new = ann[label].reset_index(drop=True)
    clash = old.notna() & (old.astype(str) != new.astype(str))
    if clash.any():
        i = int(np.flatnonzero(clash.to_numpy())[0])
        raise FairboundError(f"label: row key {int(keys.iloc[i])} already holds {old[i]!r} in "
                             f"{label!r}, the annotations say {new[i]!r}", param="label")
    col = df.columns.get_loc(label)
    df.iloc[where, col] = new.to_numpy()
    return df


# --------------------------------------------------------------------------- reading
def _frame(data):
    """``data`` as a pandas DataFrame (files read with DuckDB)."""
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return data.copy()
    mod = type(data).__module__.split(".")[0]
    if mod == "polars":
        return data.to_pandas() if hasattr(data, "to_pandas") else data.collect().to_pandas()
    if mod == "pyarrow":
        return data.to_pandas()
    if isinstance(data, dict):
        try:
            return pd.DataFrame(data)
        except ValueError as exc:
            raise FairboundError(f"data: cannot read the dict as columns: {exc}",
                                 param="data") from None
    if isinstance(data, str | os.PathLike):
        import duckdb

        from fairbound.engines.duckdb_engine import _first_line, open_file

        con = duckdb.connect()
        try:
            rel, _ = open_file(con, data)
            return rel.df()
        except duckdb.Error as exc:
            raise FairboundError(f"data: cannot read {os.fspath(data)!r}: {_first_line(exc)}",
                                 param="data") from None
        finally:
            con.close()
    raise FairboundError(f"data must be a DataFrame, an Arrow table, a dict of columns or a "
                         f"file path; got {type(data).__name__}", param="data")


def _column(df, name, param: str):
    if not isinstance(name, str) or not name:
        raise FairboundError(f"{param} must be a column name; got {name!r}", param=param)
    if name not in df.columns:
        shown = ", ".join(map(str, list(df.columns)[:20]))
        raise FairboundError(f"{param}: column {name!r} not found; columns are {shown}",
                             param=param)
    return df[name]


def _uncertainty(df, proxy_score, candidates) -> tuple[np.ndarray, list[str]]:
    """``sqrt(min(s, 1 - s))`` per row from a score in [0, 1] (ones without a score)."""
    import pandas as pd

    if proxy_score is None:
        return np.ones(len(df)), []
    col = _column(df, proxy_score, "proxy_score")
    s = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
    bad = candidates & ~np.isfinite(s)
    if bad.any():
        raise FairboundError(f"proxy_score: column {proxy_score!r} has {int(bad.sum()):,} "
                             "candidate row(s) without a numeric score", param="proxy_score")
    out = candidates & ((s < 0) | (s > 1))
    if out.any():
        raise FairboundError(f"proxy_score: column {proxy_score!r} holds "
                             f"{float(s[out][0])!r}; a score must be a probability in "
                             "[0, 1]", param="proxy_score")
    u = np.sqrt(np.minimum(s, 1.0 - s))
    notes = []
    if candidates.any() and not np.any(u[candidates] > 0):
        notes.append(f"proxy_score {proxy_score!r} is 0 or 1 on every candidate row (a label, "
                     "not a score): rows are drawn uniformly within each group")
    return np.where(candidates, np.nan_to_num(u), 0.0), notes


def sample_for_annotation(
    data,
    *,
    group: str | Sequence[str],
    budget: float,
    proxy_score: str | None = None,
    label: str | None = None,
    batch: int | None = None,
    seed: int = 0,
    allocation: str = "neyman",
    mix: float = 0.2,
    probability_column: str = PROBABILITY_COLUMN,
    batch_column: str = BATCH_COLUMN,
) -> AnnotationSample:
    """Choose the rows to send to annotators next, recording how they were chosen.

    Parameters
    ----------
    data : DataFrame, Arrow table, dict or path
        Every row of the audit (CSV / Parquet / JSON-lines files are read with DuckDB).
    group : str or list of str
        Protected-attribute column(s); the budget is split between the groups.
    budget : float
        Rows to draw, in expectation (Poisson sampling: the number drawn varies around it).
    proxy_score : str, optional
        Column with the proxy's probability of the positive class, in ``[0, 1]``; rows it
        is unsure about are drawn more often.  Without it rows are drawn uniformly within
        each group.
    label : str, optional
        Gold label column: rows that have one are not drawn again, and rows drawn in an
        earlier batch must have one (annotate a batch before drawing the next).
    batch : int, optional
        This batch's number (default: one more than the largest in ``batch_column``, or 1).
    seed : int
        Seed of the draw (with ``batch``); the default 0 is fine: the draw is independent of
        the gold labels whatever the seed.
    allocation : {'neyman', 'proportional', 'equal'}
        How the budget is split between groups (module docstring).
    mix : float
        Share of uniform sampling within a group, in ``(0, 1]`` (1: uniform).
    probability_column, batch_column : str
        Where ``pi`` and the batch are recorded (existing values are kept).

    Returns
    -------
    AnnotationSample
        ``.data`` (every row, design recorded), ``.selected`` (the rows to annotate),
        ``.groups`` (per-group summary).

    Raises
    ------
    FairboundError
        One line naming the parameter or column: missing columns, scores outside
        ``[0, 1]``, a batch number already used, rows drawn earlier but not annotated,
        nothing left to draw.
    """
    import pandas as pd

    df = _frame(data)
    budget = check_float(budget, "budget", low=0.0, low_open=True)
    mix = check_float(mix, "mix", low=0.0, high=1.0, low_open=True)
    seed = check_seed(seed)
    allocation = check_choice(allocation, ALLOCATIONS, "allocation")
    groups = [group] if isinstance(group, str) else list(group) if isinstance(
        group, list | tuple) else None
    if not groups:
        raise FairboundError(f"group must be a column name or a list of them; got {group!r}",
                             param="group")
    for g in groups:
        _column(df, g, "group")
    if len(df) == 0:
        raise FairboundError("data: no rows", param="data")
    for name, param in ((probability_column, "probability_column"),
                        (batch_column, "batch_column")):
        if not isinstance(name, str) or not name:
            raise FairboundError(f"{param} must be a column name; got {name!r}", param=param)
    _add_row_key(df)
    if batch_column not in df.columns:
        df[batch_column] = pd.array([pd.NA] * len(df), dtype="Int64")
    if probability_column not in df.columns:
        df[probability_column] = np.nan
    prev = pd.to_numeric(df[batch_column], errors="coerce")
    if prev.notna().sum() != df[batch_column].notna().sum():
        raise FairboundError(f"batch_column: column {batch_column!r} holds values that are "
                             "not numbers", param="batch_column")
    drawn_before = prev.notna().to_numpy()
    last = int(prev.max()) if drawn_before.any() else 0
    batch = last + 1 if batch is None else check_int(batch, "batch", low=1)
    if batch <= last:
        raise FairboundError(f"batch: {batch} is not after the batches already drawn (the "
                             f"last is {last} in {batch_column!r}); leave batch unset to draw "
                             "the next one", param="batch")
    has_label = np.zeros(len(df), dtype=bool)
    if label is not None:
        has_label = _column(df, label, "label").notna().to_numpy()
        missing = drawn_before & ~has_label
        if missing.any():
            waiting = sorted({int(b) for b in prev[missing]})
            raise FairboundError(f"label: {int(missing.sum()):,} row(s) drawn in batch "
                                 f"{', '.join(map(str, waiting))} have no gold label in "
                                 f"{label!r}; annotate them before drawing batch {batch}",
                                 param="label")
    keys = df[groups].apply(tuple, axis=1) if len(groups) > 1 else df[groups[0]]
    known = keys.notna().to_numpy() if len(groups) == 1 else np.array(
        [not any(pd.isna(v) for v in k) for k in keys])
    candidates = known & ~has_label & ~drawn_before
    u, notes = _uncertainty(df, proxy_score, candidates)
    codes, uniques = pd.factorize(keys.where(known, None), sort=True)
    n_groups = len(uniques)
    if n_groups == 0:
        raise FairboundError(f"group: column {' & '.join(groups)!r} has no values",
                             param="group")
    rows = np.bincount(codes[codes >= 0], minlength=n_groups).astype(float)
    cand = np.bincount(codes[candidates], minlength=n_groups).astype(float)
    if cand.sum() == 0:
        raise FairboundError("data: every row is already labeled or drawn; nothing to draw",
                             param="data")
    if allocation == "equal":
        share = (cand > 0).astype(float)
    elif allocation == "proportional":
        share = cand
    else:
        usum = np.bincount(codes[candidates], weights=u[candidates], minlength=n_groups)
        if proxy_score is None or not np.any(usum > 0):
            usum = cand
        share = np.divide(usum, rows, out=np.zeros(n_groups), where=rows > 0)
    if budget >= cand.sum():
        notes.append(f"budget {budget:g} is at least the {int(cand.sum()):,} row(s) still to "
                     "label: every one of them is drawn (probability 1)")
    budgets = _water_fill(share, min(budget, float(cand.sum())), cand)
    pi = np.full(len(df), np.nan)
    summary = []
    for k in range(n_groups):
        idx = np.flatnonzero(candidates & (codes == k))
        if idx.size:
            pi[idx] = annotation_probabilities(u[idx], budgets[k], mix=mix)
    rng = np.random.default_rng((seed, int(batch)))
    draw = candidates & (rng.random(len(df)) < np.nan_to_num(pi))
    df.loc[draw, probability_column] = pi[draw]
    df.loc[draw, batch_column] = int(batch)
    df[batch_column] = df[batch_column].astype("Int64")
    for k, g in enumerate(uniques):
        in_g = candidates & (codes == k)
        p = pi[in_g]
        summary.append(GroupDraw(
            group=tuple(g) if isinstance(g, tuple) else (g.item() if isinstance(
                g, np.generic) else g),
            rows=int(rows[k]), labeled=int(rows[k] - cand[k]), candidates=int(cand[k]),
            budget=float(budgets[k]), drawn=int((draw & (codes == k)).sum()),
            min_probability=float(p.min()) if p.size else math.nan,
            max_probability=float(p.max()) if p.size else math.nan))
    if (~known).any():
        notes.append(f"{int((~known).sum()):,} row(s) without a group are never drawn")
    return AnnotationSample(data=df, selected=df[draw], groups=tuple(summary),
                            batch=int(batch), seed=seed, budget=float(budget),
                            allocation=allocation, mix=mix,
                            probability_column=probability_column, batch_column=batch_column,
                            notes=tuple(notes))
