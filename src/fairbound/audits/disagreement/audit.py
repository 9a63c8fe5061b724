"""Annotator disagreement: a fractional cost per row, audits of its gaps, majority labels.

Several annotators labelled each row, given either as one column per annotator
(``annotators=[...]``, each holding a class; a missing value means that annotator skipped
the row) or as one column of vote counts per class (``votes=[...]``, as in the Davidson et
al. (2017) tweets: ``hate_speech``, ``offensive_language``, ``neither``).

* :func:`disagreement` - the disagreement of each row, in ``[0, 1]``:

  - ``measure="minority_share"`` (default): ``1 - (votes for the majority class) / (total
    votes)``, the share of annotators who did not pick the majority class.  Unanimous rows
    give 0, a 2-1 split 1/3, a 1-1-1 split 2/3; with ``k`` classes it is at most
    ``1 - 1/k``.
  - ``measure="entropy"``: the entropy of the vote shares divided by ``log k`` (``k`` the
    number of classes: the vote columns, or the distinct annotator labels), so that
    unanimous rows give 0 and an even split over all ``k`` classes gives 1.

* :func:`disagreement_audit` - the disagreement as the cost of :func:`fairbound.audit`
  (``cost="disagreement"``, ``cost_max=1``): the gap in mean disagreement between groups,
  with the audit's defaults (the guaranteed betting interval for fractional costs,
  family-wise error control).  This is the idea of Table 1 of Ethayarajh (2020): any
  per-row cost bounded in ``[0, C]`` can be audited, not only 0/1 errors.
* :func:`majority_labels` - the majority label of each row, to use as gold
  (``fairbound.audit(..., label=...)``) or as a proxy (``fairbound.ppi_audit(...,
  proxy=...)``), with ties either left missing (``ties="drop"``) or given to the first
  tied class (``ties="first"``); the number of ties is in ``.attrs["ties"]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from fairbound._validate import check_choice
from fairbound.audits.gaps.build import audit
from fairbound.errors import FairboundError
from fairbound.labels import _same as same_class
from fairbound.labels import is_bool, is_missing, kind, parse_text_value, sort_values

MEASURES = ("minority_share", "entropy")
TIES = ("drop", "first")
COST_COLUMN = "disagreement"


def _frame(data) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, str | Path):
        p = Path(data)
        shown = str(data)
        if p.is_fifo():  # as fairbound.audit refuses it
            raise FairboundError(f"data: {shown!r} is a named pipe (FIFO), not a regular file; "
                                 "write the rows to a file first", param="data")
        if p.is_dir():
            raise FairboundError(f"data: {shown!r} is a directory; give a .csv or .parquet "
                                 "file", param="data")
        if not p.is_file():
            raise FairboundError(f"data: file does not exist: {shown!r}", param="data")
        if p.suffix not in (".parquet", ".csv", ".gz"):
            raise FairboundError(f"data: read {shown!r} into a pandas DataFrame first "
                                 "(only .parquet and .csv paths are read here)", param="data")
        try:
            if p.suffix == ".parquet":
                import pyarrow.parquet as pq

                header = [str(n) for n in pq.read_schema(p).names]
                _refuse_repeated(header, shown)
                return pd.read_parquet(p)
            # pandas would rename a repeated name ('g' to 'g.1'): read the header as written
            header = pd.read_csv(p, header=None, nrows=1, dtype=str,
                                 keep_default_na=False).iloc[0].tolist()
            _refuse_repeated([str(h) for h in header], shown)
            return pd.read_csv(p)
        except FairboundError:
            raise
        except (OSError, ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            text = [t for t in str(exc).splitlines() if t.strip()]
            raise FairboundError(f"data: cannot read {shown!r}: "
                                 f"{text[0] if text else type(exc).__name__}",
                                 param="data") from None
    raise FairboundError(f"data must be a pandas DataFrame or a .csv / .parquet path; got "
                         f"{type(data).__name__}", param="data")


def _refuse_repeated(names: list[str], shown: str) -> None:
    """A file whose header names a column twice is refused, as :func:`fairbound.audit` does."""
    for n in names:
        if names.count(n) > 1:
            raise FairboundError(f"data: the file {shown!r} has {names.count(n)} columns named "
                                 f"{n!r}; rename them apart", param="data")


def _columns(names: list, votes, annotators) -> tuple[str, list[str]]:
    """The vote or annotator columns among ``names`` (a frame's columns), checked."""
    if (votes is None) == (annotators is None):
        raise FairboundError("give exactly one of votes= (vote counts per class) or "
                             f"annotators= (one label column per annotator); got votes={votes!r}"
                             f", annotators={annotators!r}", param="votes")
    param, cols = ("votes", votes) if votes is not None else ("annotators", annotators)
    if isinstance(cols, str) or not isinstance(cols, Sequence) or len(cols) < 2:
        raise FairboundError(f"{param} must be a list of at least 2 column names; got "
                             f"{cols!r:.80}", param=param)
    cols = list(cols)
    missing = [c for c in cols if c not in names]
    if missing:
        raise FairboundError(f"{param}: column {missing[0]!r} not found; the data has "
                             f"{list(names)!r:.120}", param=param)
    if len(set(cols)) != len(cols):
        raise FairboundError(f"{param}: a column is named twice in {cols!r}", param=param)
    twice = [c for c in cols if names.count(c) > 1]
    if twice:  # as fairbound.audit refuses such a DataFrame
        raise FairboundError(f"data: the DataFrame has {names.count(twice[0])} columns named "
                             f"{twice[0]!r}; rename them apart", param="data")
    return param, cols


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def _refuse_mixed(values: np.ndarray, present: np.ndarray, cols: list[str]) -> None:
    """Annotator labels mixing text with numbers or booleans (``1`` and ``"1"``) are refused.

    The annotators' labels are the values of one label, read as :func:`fairbound.audit`
    reads a label column: ``1``, ``1.0`` and ``True`` are one class, but text is never a
    number, so a column (or two annotators' columns) holding both ``1`` and ``"1"`` would
    count agreeing annotators as disagreeing.  The message is the audit's.
    """
    def mixed(vals: list):
        distinct = sort_values(_plain(v) for v in vals)
        texts = [v for v in distinct if kind(v) == "text"]
        others = [v for v in distinct if kind(v) != "text"]
        if not texts or not others:
            return None
        return next(((o, t) for t in texts for o in others
                     if same_class(parse_text_value(t), o)), (others[0], texts[0]))

    def column(j: int) -> list:
        return values[present[:, j], j].tolist()

    def holder(v) -> str:
        return next((c for j, c in enumerate(cols)
                     if any(kind(x) == kind(v) and same_class(x, v) for x in column(j))),
                    cols[0])

    pair = mixed(values[present].tolist())
    if pair is None:
        return
    num, text = pair
    a, b = holder(num), holder(text)  # two annotators' columns, one text, one numbers
    for c, vals in ((c, column(j)) for j, c in enumerate(cols)):
        inside = mixed(vals)  # or one column holding both, as audit refuses a label column
        if inside is not None:
            (num, text), a, b = inside, c, c
            break
    where = f"column {a!r} mixes" if a == b else f"columns {a!r} and {b!r} mix"
    what = "booleans" if is_bool(num) else "numbers"
    raise FairboundError(f"annotators: {where} {what} and text ({num!r} and {text!r}); give "
                         f"every row one type (all text or all {what})", param="annotators")


def vote_counts(data, *, votes: Sequence[str] | None = None,
                annotators: Sequence[str] | None = None) -> tuple[np.ndarray, tuple]:
    """Votes per class of every row, from vote-count or annotator columns.

    Parameters
    ----------
    data : pandas.DataFrame or path
        The rows (a ``.csv`` or ``.parquet`` path is read with pandas).
    votes : list of str, optional
        One column per class holding its number of votes (finite, non-negative).
    annotators : list of str, optional
        One column per annotator holding the class it chose (missing: no vote).

    Returns
    -------
    counts : numpy.ndarray
        Shape ``(rows, classes)``, float.
    classes : tuple
        The class of each column of ``counts``: the vote column names, or the distinct
        annotator labels in fairbound's label order.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a1": ["x", "x"], "a2": ["x", "y"], "a3": ["x", None]})
    >>> counts, classes = vote_counts(df, annotators=["a1", "a2", "a3"])
    >>> classes, counts.tolist()
    (('x', 'y'), [[3.0, 0.0], [1.0, 1.0]])
    """
    df = _frame(data)
    param, cols = _columns(list(df.columns), votes, annotators)
    if param == "votes":
        counts = np.empty((len(df), len(cols)))
        for j, c in enumerate(cols):
            s = df[c]
            if not (pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)):
                raise FairboundError(f"votes: column {c!r} must hold vote counts (numbers); "
                                     f"it has dtype {s.dtype}", param="votes")
            v = s.to_numpy(dtype=float, na_value=np.nan)
            bad = ~np.isfinite(v) | (v < 0)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise FairboundError(f"votes: column {c!r} has the value {v[i]:g} at row "
                                     f"{df.index[i]!r}; vote counts must be finite and "
                                     "non-negative", param="votes")
            counts[:, j] = v
        classes = tuple(cols)
    else:
        values = df[cols].to_numpy(dtype=object)
        present = np.vectorize(lambda x: not is_missing(x), otypes=[bool])(values) \
            if values.size else np.zeros(values.shape, bool)
        _refuse_mixed(values, present, cols)
        classes = sort_values({x for x in values[present].tolist()})
        counts = np.zeros((len(df), len(classes)))
        for j, k in enumerate(classes):
            counts[:, j] = (present & (values == k)).sum(axis=1)
    totals = counts.sum(axis=1)
    if (totals <= 0).any():
        i = int(np.flatnonzero(totals <= 0)[0])
        raise FairboundError(f"{param}: row {df.index[i]!r} has no votes (all of {cols!r:.80} "
                             "are 0 or missing); drop such rows first", param=param)
    return counts, classes


def disagreement(data, *, votes: Sequence[str] | None = None,
                 annotators: Sequence[str] | None = None,
                 measure: str = "minority_share") -> pd.Series:
    """The annotators' disagreement on each row, a fractional cost in ``[0, 1]``.

    Parameters
    ----------
    data : pandas.DataFrame or path
        The rows (a ``.csv`` or ``.parquet`` path is read with pandas).
    votes : list of str, optional
        One column per class holding its number of votes.
    annotators : list of str, optional
        One column per annotator holding the class it chose (missing: no vote).
        Give exactly one of ``votes`` and ``annotators``.
    measure : {'minority_share', 'entropy'}
        ``"minority_share"``: ``1 - max_k n_k / sum_k n_k``, the share of votes not for the
        majority class (at most ``1 - 1/k``).  ``"entropy"``: ``-sum_k p_k log p_k / log k``
        with ``p_k = n_k / sum_k n_k`` and ``k`` the number of classes (at most 1).

    Returns
    -------
    pandas.Series
        Named ``"disagreement"``, with the index of ``data``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"hate": [0, 1, 1], "offensive": [3, 2, 1], "neither": [0, 0, 1]})
    >>> disagreement(df, votes=["hate", "offensive", "neither"]).round(4).tolist()
    [0.0, 0.3333, 0.6667]
    >>> disagreement(df, votes=["hate", "offensive", "neither"], measure="entropy"
    ...              ).round(4).tolist()
    [0.0, 0.5794, 1.0]
    """
    check_choice(measure, MEASURES, "measure")
    df = _frame(data)
    counts, _ = vote_counts(df, votes=votes, annotators=annotators)
    shares = counts / counts.sum(axis=1, keepdims=True)
    if measure == "minority_share":
        d = 1.0 - shares.max(axis=1)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(shares > 0, shares * np.log(shares), 0.0)
        d = -terms.sum(axis=1) / np.log(counts.shape[1])
    return pd.Series(np.clip(d, 0.0, 1.0) + 0.0, index=df.index, name=COST_COLUMN)  # no -0.0


def disagreement_audit(data, *, group, votes: Sequence[str] | None = None,
                       annotators: Sequence[str] | None = None,
                       measure: str = "minority_share", **audit_kwargs):
    """Audit the gaps in annotator disagreement between groups.

    Parameters
    ----------
    data : pandas.DataFrame, Spark DataFrame or path
        The rows.  A Spark DataFrame is audited on Spark (the disagreement is a column
        Spark computes row by row, then aggregated like any cost); a ``.csv`` or
        ``.parquet`` path is read with pandas.  Other inputs of :func:`fairbound.audit`
        (polars, Arrow, globs) must be read into a pandas DataFrame first.
    group : str or list of str
        Group column(s), as in :func:`fairbound.audit`.
    votes, annotators : list of str
        Vote counts per class, or one label column per annotator (exactly one of them).
    measure : {'minority_share', 'entropy'}
        The disagreement of a row (see :func:`disagreement`).
    **audit_kwargs
        Passed to :func:`fairbound.audit` (``comparison``, ``reference``, ``method``,
        ``confidence_level``, ``error_control``, ``tolerance``, ``where``, ...); ``cost``
        and ``cost_max`` are set here.

    Returns
    -------
    AuditResult
        The audit of the ``cost`` metric, whose cost column is ``"disagreement"``: a
        positive gap means annotators disagree more on group A's rows.  Its ``kind`` (and
        its JSON's) is ``"disagreement"``.

    Notes
    -----
    The audit's defaults apply: the betting interval (Waudby-Smith & Ramdas 2024), valid at
    every sample size, for the fractional cost, with family-wise error control over every
    comparison.  A gap in disagreement says the labels of one group are less certain (harder
    or more ambiguous items, or annotators less familiar with the group's language); it is
    not by itself a gap in a classifier's errors.

    References
    ----------
    K. Ethayarajh. "Is Your Classifier Actually Biased? Measuring Fairness under
    Uncertainty with Bernstein Bounds." ACL 2020 (Table 1: a bias measure as the gap in a
    bounded per-row cost).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a"] * 4 + ["b"] * 4,
    ...                    "yes": [3, 2, 3, 2, 3, 3, 3, 3], "no": [0, 1, 0, 1, 0, 0, 0, 0]})
    >>> res = disagreement_audit(df, group="g", votes=["yes", "no"])
    >>> c = res.comparisons[0]
    >>> round(c.rate_a, 4), round(c.rate_b, 4), c.verdict
    (0.1667, 0.0, 'not enough evidence')
    """
    for key in ("cost", "cost_max"):
        if key in audit_kwargs:
            raise FairboundError(f"{key}: set by disagreement_audit (the cost is the "
                                 f"disagreement, in [0, 1]); got {audit_kwargs[key]!r}",
                                 param=key)
    if type(data).__module__.startswith("pyspark"):
        check_choice(measure, MEASURES, "measure")
        _no_cost_column(list(data.columns))
        rows = data.withColumn(COST_COLUMN, _spark_disagreement(data, votes, annotators,
                                                                 measure))
        res = audit(rows, group=group, cost=COST_COLUMN, cost_max=1.0, **audit_kwargs)
        return replace(res, kind="disagreement")
    df = _frame(data)
    _no_cost_column(list(df.columns))
    cost = disagreement(df, votes=votes, annotators=annotators, measure=measure)
    res = audit(df.assign(**{COST_COLUMN: cost.to_numpy()}), group=group, cost=COST_COLUMN,
                cost_max=1.0, **audit_kwargs)
    return replace(res, kind="disagreement")   # its JSON says what was audited


def _no_cost_column(columns: list) -> None:
    if COST_COLUMN in columns:
        raise FairboundError(f"data: already has a column {COST_COLUMN!r}; rename it, or audit "
                             f"it directly with fairbound.audit(..., cost={COST_COLUMN!r})",
                             param="data")


def _spark_disagreement(sdf, votes, annotators, measure: str):
    """The disagreement of every row of a Spark DataFrame, as a Spark column.

    The same rule as :func:`vote_counts` and :func:`disagreement`, evaluated by Spark row by
    row (only the few checks below bring anything back to the driver): vote counts must be
    finite, non-negative numbers; annotator labels are compared as one label column is read
    (numbers and booleans are one kind, text another, and the two never mix); a row without
    any vote is refused.  The audit then aggregates the column on Spark like any cost.
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    param, cols = _columns(list(sdf.columns), votes, annotators)
    types = {f.name: f.dataType for f in sdf.schema.fields}
    numeric = (T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.FloatType, T.DoubleType,
               T.DecimalType)
    col = [F.col(f"`{c}`") for c in cols]
    if param == "votes":
        for c in cols:
            if not isinstance(types[c], numeric):
                raise FairboundError(f"votes: column {c!r} must hold vote counts (numbers); "
                                     f"it has type {types[c].simpleString()}", param="votes")
        counts = [x.cast("double") for x in col]
        bad = [F.min(F.when(x.isNull() | F.isnan(x) | (x < 0)
                            | (F.abs(x) == float("inf")), x.cast("string"))) for x in counts]
        found = sdf.select(*bad).first()
        for c, v in zip(cols, found, strict=True):
            if v is not None:
                raise FairboundError(f"votes: column {c!r} has the value {v} in some row; "
                                     "vote counts must be finite and non-negative",
                                     param="votes")
    else:
        kinds = {("text" if isinstance(types[c], T.StringType) else "number") for c in cols}
        if len(kinds) > 1:
            text = next(c for c in cols if isinstance(types[c], T.StringType))
            other = next(c for c in cols if not isinstance(types[c], T.StringType))
            raise FairboundError(f"annotators: columns {other!r} and {text!r} mix numbers and "
                                 "text; give every row one type (all text or all numbers)",
                                 param="annotators")
        as_text = kinds == {"text"}
        keyed = [x if as_text else x.cast("double") for x in col]
        seen = sdf.select(F.explode(F.array(*keyed)).alias("k")).where(
            F.col("k").isNotNull()).distinct().collect()
        classes = sort_values({r["k"] for r in seen})
        counts = [sum((F.when(x == F.lit(k), 1.0).otherwise(0.0) for x in keyed),
                      F.lit(0.0)) for k in classes]
        if not counts:
            raise FairboundError(f"annotators: no row has a vote (all of {cols!r:.80} are "
                                 "missing)", param="annotators")
    total = counts[0]
    for x in counts[1:]:
        total = total + x
    if sdf.where(total <= 0).limit(1).count():
        raise FairboundError(f"{param}: a row has no votes (all of {cols!r:.80} are 0 or "
                             "missing); drop such rows first", param=param)
    shares = [x / total for x in counts]
    if measure == "minority_share":
        d = F.lit(1.0) - (F.greatest(*shares) if len(shares) > 1 else shares[0])
    else:
        terms = [F.when(s > 0, s * F.log(s)).otherwise(0.0) for s in shares]
        acc = terms[0]
        for t in terms[1:]:
            acc = acc + t
        d = -acc / F.lit(float(np.log(len(counts))))
    return F.least(F.greatest(d, F.lit(0.0)), F.lit(1.0)) + F.lit(0.0)


def majority_labels(data, *, votes: Sequence[str] | None = None,
                    annotators: Sequence[str] | None = None, ties: str = "drop") -> pd.Series:
    """The majority label of each row, with ties handled explicitly and counted.

    Parameters
    ----------
    data : pandas.DataFrame or path
        The rows (a ``.csv`` or ``.parquet`` path is read with pandas).
    votes, annotators : list of str
        Vote counts per class (the label is the column name), or one label column per
        annotator (the label is the value); exactly one of them.
    ties : {'drop', 'first'}
        A row whose top vote count is shared by several classes: ``"drop"`` leaves its label
        missing (``None``); ``"first"`` gives it the first tied class (the order of
        ``votes``, or fairbound's label order for ``annotators``).

    Returns
    -------
    pandas.Series
        Named ``"majority"``, with the index of ``data``; ``.attrs["ties"]`` is the number
        of tied rows and ``.attrs["ties_policy"]`` the ``ties`` used.

    Notes
    -----
    Use the result as gold (``fairbound.audit(df, label="majority", ...)``; drop the
    missing labels of tied rows first) or as a proxy (``fairbound.ppi_audit(...,
    proxy="majority")``).  A majority of few annotators is itself noisy; the
    disagreement (:func:`disagreement`) says how much.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"yes": [3, 2, 1], "no": [0, 1, 1]})
    >>> m = majority_labels(df, votes=["yes", "no"])
    >>> m.tolist(), m.attrs["ties"]
    (['yes', 'yes', None], 1)
    >>> majority_labels(df, votes=["yes", "no"], ties="first").tolist()
    ['yes', 'yes', 'yes']
    """
    check_choice(ties, TIES, "ties")
    df = _frame(data)
    counts, classes = vote_counts(df, votes=votes, annotators=annotators)
    top = counts.max(axis=1, keepdims=True)
    tied = (counts == top).sum(axis=1) > 1
    first = counts.argmax(axis=1)  # the first maximum in column order
    labels = np.array(classes, dtype=object)[first]
    if ties == "drop":
        labels[tied] = None
    out = pd.Series(labels, index=df.index, name="majority", dtype=object)
    out.attrs["ties"] = int(tied.sum())
    out.attrs["ties_policy"] = ties
    return out


__all__ = ["COST_COLUMN", "MEASURES", "TIES", "disagreement", "disagreement_audit",
           "majority_labels", "vote_counts"]
