"""Summaries of a stability study: spread of each gap, sign shares, t-tests across sizes.

The question of Jourdan et al. (2023) is whether one fairness score is reliable: how much
the gap of the same model class moves from one resample to the next, how often its sign
flips, and whether the means differ between sizes or conditions (Student's t-tests).  This
module adds, beyond the paper, a check of the single-run interval against that spread: if
each run's interval is honest about the run-to-run variability it should cover the mean of
the runs about as often as its level says, and two runs should rarely reach opposite
verdicts.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from fairbound._docs import fill
from fairbound._validate import check_choice, check_choices, check_int
from fairbound.errors import FairboundError
from fairbound.stats.base import check_confidence_level

KEYS = ("condition", "size", "metric", "class", "group_a", "group_b")
CORRECTIONS = ("holm", "bonferroni", "bh", "none")
TESTS = ("student", "welch", "levene")
# the first parameter of the functions that read a study's gaps (``_docs.fill``)
_PIECES = {
    "gaps_parameter": (
        "Parameters\n"
        "----------\n"
        "gaps : pandas.DataFrame\n"
        "    The ``gaps`` table of a :class:`StudyResult`."
    ),
}


def adjust_pvalues(pvalues: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like
        Raw p-values; NaN entries stay NaN and do not count as tests.
    method : {'holm', 'bonferroni', 'bh', 'none'}
        Holm's step-down (family-wise error), Bonferroni, Benjamini-Hochberg (false
        discovery rate), or none.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, capped at 1.

    Notes
    -----
    A thin wrapper of :func:`fairbound.stats.multiplicity.adjust` that leaves undefined
    tests (NaN p-values, e.g. a gap that never varies) out of the family.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    check_choice(method, CORRECTIONS, "correction")
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    q = p[ok]
    m = q.size
    if m == 0 or method == "none":
        out[ok] = q
        return out
    from fairbound.stats.multiplicity import adjust

    adj = adjust(q, method=method).adjusted
    out[ok] = adj
    return out


def _key_cols(gaps: pd.DataFrame, drop: Sequence[str] = ()) -> list[str]:
    return [k for k in KEYS if k in gaps.columns and k not in drop]


#: What the counts ``n_a`` / ``n_b`` behind each metric's rates are, in words.
COUNTED = {"predictions": "predictions of the class",
           "demographic_parity": "rows", "equal_opportunity": "true members of the class",
           "false_negative_rate": "true members of the class",
           "false_positive_rate": "rows outside the class",
           "predictive_parity": "predictions of the class"}


def check_min_per_group(value, param: str = "min_per_group") -> int | None:
    """Validate the filter threshold: ``None`` (or 0) for no filter, else a positive integer.

    Examples
    --------
    >>> check_min_per_group(11), check_min_per_group(0), check_min_per_group(None)
    (11, None, None)
    """
    if value is None:
        return None
    return check_int(value, param, low=0, note="0: no filter") or None


def filter_reason(metric: str, group_a: str, group_b: str, min_n_a: float, min_n_b: float,
                  min_per_group: int) -> str:
    """The sentence that says why a cell is filtered (empty when it is kept).

    Examples
    --------
    >>> filter_reason("equal_opportunity", "female", "male", 4, 30, 11)
    'filtered: fewer than 11 true members of the class per group in some run (female: 4, male: 30)'
    >>> filter_reason("equal_opportunity", "female", "male", 12, 30, 11)
    ''
    """
    a = float(min_n_a) if min_n_a is not None else math.nan
    b = float(min_n_b) if min_n_b is not None else math.nan
    low = [not (math.isfinite(v) and v >= min_per_group) for v in (a, b)]
    if not any(low):
        return ""

    def fmt(v):
        return f"{v:,.0f}" if math.isfinite(v) else "none"

    what = COUNTED.get(metric, "rows")
    return (f"filtered: fewer than {min_per_group} {what} per group in some run "
            f"({group_a}: {fmt(a)}, {group_b}: {fmt(b)})")


#: Jourdan et al. (2023) filter whole occupations on the predictions of the occupation per
#: gender: Fig. 5 keeps those with "at least one prediction per gender for all samplings",
#: Fig. 6 those with "more than 10 predictions per gender" (at 120K).
PAPER_THRESHOLDS = {"variance": 1, "mean": 11}
FILTER_BY = ("class", "cell")


def class_prediction_counts(gaps: pd.DataFrame) -> pd.DataFrame:
    """Predictions of each class per group in every run, read from the gaps table.

    The count is the predictive-parity denominator (``n_a``/``n_b`` of the
    ``predictive_parity`` rows: the group's predictions of the class) or, without that
    metric, the demographic-parity numerator (``count_a``/``count_b`` of the
    ``demographic_parity`` rows).

    Returns
    -------
    pandas.DataFrame
        One row per condition, size, repeat, class and pair: ``pred_a``, ``pred_b``;
        empty when the study has neither metric.

    Examples
    --------
    >>> g = pd.DataFrame({"condition": "o", "size": 100, "repeat": [0],
    ...                   "metric": "predictive_parity", "class": "1", "group_a": "f",
    ...                   "group_b": "m", "n_a": 3, "n_b": 12, "gap": 0.1})
    >>> class_prediction_counts(g)[["pred_a", "pred_b"]].values.tolist()
    [[3.0, 12.0]]
    """
    keys = [k for k in ("condition", "size", "repeat", "class", "group_a", "group_b")
            if k in gaps.columns]
    for metric, cols in (("predictive_parity", ("n_a", "n_b")),
                         ("demographic_parity", ("count_a", "count_b"))):
        d = gaps[gaps["metric"] == metric] if "metric" in gaps.columns else gaps.iloc[0:0]
        if not d.empty and set(cols) <= set(d.columns):
            out = d[keys].copy()
            out["pred_a"] = pd.to_numeric(d[cols[0]], errors="coerce").fillna(0).astype(float)
            out["pred_b"] = pd.to_numeric(d[cols[1]], errors="coerce").fillna(0).astype(float)
            return out.drop_duplicates(keys).reset_index(drop=True)
    return pd.DataFrame(columns=[*keys, "pred_a", "pred_b"])


@fill(**_PIECES)
def summarize_gaps(gaps: pd.DataFrame, *, min_per_group: int | None = None,
                   filter_by: str = "class") -> pd.DataFrame:
    """Spread, sign shares and single-run intervals of each gap across runs.

    {{gaps_parameter}}
    min_per_group : int, optional
        The filter of Jourdan et al. (2023), who keep an occupation only when each gender
        has enough *predictions* of it: "at least one prediction per gender for all
        samplings" in Fig. 5 (``min_per_group=1``), "more than 10 predictions per gender"
        in Fig. 6 (``min_per_group=11``; :data:`PAPER_THRESHOLDS`).  With
        ``filter_by="class"`` (the paper's), every cell of a class (all its metrics, GP
        included) is *filtered* at a condition and size when, in some run, either group has
        fewer than ``min_per_group`` predictions of the class (see
        :func:`class_prediction_counts`).  Its numbers stay in the table, flagged; reports
        and figures show the reason instead of them.  ``None`` or 0: no filter.
    filter_by : {'class', 'cell'}
        ``'class'``: the paper's per-occupation filter on the predictions of the class
        (falls back to ``'cell'`` when the study has neither predictive nor demographic
        parity); ``'cell'``: each metric on its own denominator (``n_a`` / ``n_b``: the
        group's rows for GP, its true members of the class for TPR, its predictions of
        the class for PP), so GP of a rare class may be kept while its TPR is filtered.

    Returns
    -------
    pandas.DataFrame
        One row per condition, size, metric, class and pair of groups, with

        - ``n_runs`` (runs where the gap was estimable), ``mean``, ``var`` (ddof=1),
          ``sd``, ``q025``/``median``/``q975`` of the gap across runs;
        - ``share_positive``, ``share_negative``, ``share_zero``: sign of the gap;
        - ``mean_n_a``, ``mean_n_b``: the average counts behind the rates (group size for
          GP, positives for TPR, predicted positives for PP);
        - ``mean_ci_width``: average width of the single-run interval, and
          ``ci_to_spread``: that width divided by the central 95 % range of the runs
          (below 1: one run's interval understates the run-to-run variability);
        - ``ci_covers_mean``: share of runs whose interval contains the mean over runs;
        - ``share_sig_positive``, ``share_sig_negative``: share of runs whose interval
          excludes 0 above / below; ``opposite_verdict``: share of runs whose significant
          verdict has the sign opposite to the mean; ``verdict_disagreement``: share of
          runs whose outcome (significant +, significant -, inconclusive) differs from
          the most common one;
        - ``min_n_a``, ``min_n_b``: the smallest counts over runs; ``min_pred_a``,
          ``min_pred_b``: the fewest predictions of the class per group over runs;
          ``filtered`` (bool) and ``filter_reason`` (empty when kept), see
          ``min_per_group``.

    Examples
    --------
    >>> g = pd.DataFrame({"condition": "original", "size": 100, "metric": "gp",
    ...                   "class": "1", "group_a": "a", "group_b": "b",
    ...                   "gap": [0.1, 0.2, -0.1, 0.2], "low": [-0.1, 0.05, -0.3, 0.01],
    ...                   "high": [0.3, 0.35, 0.1, 0.39], "n_a": 50, "n_b": 50})
    >>> s = summarize_gaps(g).iloc[0]
    >>> [float(s[c]) for c in ("mean", "share_positive", "share_sig_positive",
    ...                        "opposite_verdict")]
    [0.1, 0.75, 0.5, 0.0]
    >>> s = summarize_gaps(g.assign(n_a=[5, 50, 50, 50]), min_per_group=11).iloc[0]
    >>> bool(s["filtered"]), s["filter_reason"]
    (True, 'filtered: fewer than 11 rows per group in some run (a: 5, b: 50)')
    """
    min_per_group = check_min_per_group(min_per_group)
    check_choice(filter_by, FILTER_BY, "filter_by")
    if gaps.empty:
        return pd.DataFrame()
    keys = _key_cols(gaps)
    preds = class_prediction_counts(gaps) if filter_by == "class" else pd.DataFrame()
    cls_keys = [k for k in ("condition", "size", "class", "group_a", "group_b")
                if k in preds.columns]
    fewest = ({} if preds.empty else
              {k if isinstance(k, tuple) else (k,): (float(d["pred_a"].min()),
                                                     float(d["pred_b"].min()))
               for k, d in preds.groupby(cls_keys, sort=False, dropna=False)})
    rows = []
    for key, df in gaps.groupby(keys, sort=True, dropna=False):
        d = df[np.isfinite(df["gap"].astype(float))]
        x = d["gap"].to_numpy(float)
        lo = d["low"].to_numpy(float)
        hi = d["high"].to_numpy(float)
        n = x.size
        row = dict(zip(keys, key, strict=True))
        row["n_runs"] = n
        row["n_not_estimable"] = len(df) - n
        row.update(_filter_cols(df, row, min_per_group,
                                fewest.get(tuple(row[k] for k in cls_keys)) if fewest
                                else None))
        if n == 0:
            rows.append(row)
            continue
        mean = float(x.mean())
        q025, med, q975 = np.quantile(x, [0.025, 0.5, 0.975])
        has_ci = np.isfinite(lo) & np.isfinite(hi)
        sig_pos = float(np.mean(has_ci & (lo > 0)))
        sig_neg = float(np.mean(has_ci & (hi < 0)))
        incon = 1.0 - sig_pos - sig_neg
        width = float(np.mean((hi - lo)[has_ci])) if has_ci.any() else math.nan
        spread = float(q975 - q025)
        row.update({
            "mean": mean, "var": float(x.var(ddof=1)) if n > 1 else math.nan,
            "sd": float(x.std(ddof=1)) if n > 1 else math.nan,
            "q025": float(q025), "median": float(med), "q975": float(q975),
            "share_positive": float(np.mean(x > 0)), "share_negative": float(np.mean(x < 0)),
            "share_zero": float(np.mean(x == 0)),
            "mean_n_a": float(d["n_a"].mean()), "mean_n_b": float(d["n_b"].mean()),
            "mean_ci_width": width,
            "ci_to_spread": width / spread if spread > 0 else math.nan,
            "ci_covers_mean": float(np.mean((lo <= mean) & (mean <= hi))) if has_ci.any()
            else math.nan,
            "share_sig_positive": sig_pos, "share_sig_negative": sig_neg,
            "opposite_verdict": sig_neg if mean > 0 else (sig_pos if mean < 0 else math.nan),
            "verdict_disagreement": 1.0 - max(sig_pos, sig_neg, incon),
        })
        rows.append(row)
    out = pd.DataFrame(rows)
    order = {c: i for i, c in enumerate(dict.fromkeys(gaps["condition"]))}
    if "condition" in out.columns:
        out = (out.assign(_o=out["condition"].map(order))
               .sort_values("_o", kind="stable").drop(columns="_o").reset_index(drop=True))
    return out


def _filter_cols(df: pd.DataFrame, row: dict, min_per_group: int | None,
                 fewest_pred: tuple[float, float] | None = None) -> dict:
    """``min_n_*``, ``min_pred_*``, ``filtered`` and ``filter_reason`` of one cell.

    ``fewest_pred``: the class's fewest predictions per group over the cell's runs (the
    per-occupation filter); ``None``: the cell's own counts decide (per cell).
    """
    out = {}
    for side in ("a", "b"):
        col = f"n_{side}"
        v = pd.to_numeric(df[col], errors="coerce").fillna(0) if col in df.columns else None
        out[f"min_n_{side}"] = float(v.min()) if v is not None and len(v) else math.nan
    out["min_pred_a"], out["min_pred_b"] = fewest_pred or (math.nan, math.nan)
    reason = ""
    if min_per_group is not None and fewest_pred is not None:
        reason = filter_reason("predictions", str(row.get("group_a", "A")),
                               str(row.get("group_b", "B")), fewest_pred[0], fewest_pred[1],
                               min_per_group)
    elif min_per_group is not None:
        reason = filter_reason(str(row.get("metric", "")), str(row.get("group_a", "A")),
                               str(row.get("group_b", "B")), out["min_n_a"], out["min_n_b"],
                               min_per_group)
    out["filtered"] = bool(reason)
    out["filter_reason"] = reason
    return out


def summarize_scores(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean and SD over runs of accuracy, macro-F1 and per-class F1, per condition and size.

    Parameters
    ----------
    runs : pandas.DataFrame
        The ``runs`` table of a :class:`StudyResult`.

    Returns
    -------
    pandas.DataFrame
        One row per condition and size; columns ``n_runs``, ``<score>_mean`` and
        ``<score>_sd`` for each score.

    Examples
    --------
    >>> r = pd.DataFrame({"condition": "o", "size": 10, "accuracy": [0.8, 0.9],
    ...                   "macro_f1": [0.7, 0.7], "seconds": 1.0})
    >>> summarize_scores(r)[["n_runs", "accuracy_mean", "macro_f1_sd"]].round(3).values.tolist()
    [[2.0, 0.85, 0.0]]
    """
    if runs.empty:
        return pd.DataFrame()
    score_cols = [c for c in runs.columns
                  if c in ("accuracy", "macro_f1") or c.startswith("f1[")]
    out = []
    for (cond, size), df in runs.groupby(["condition", "size"], sort=False):
        row = {"condition": cond, "size": size, "n_runs": float(len(df))}
        for c in score_cols:
            v = df[c].astype(float)
            row[f"{c}_mean"] = float(v.mean())
            row[f"{c}_sd"] = float(v.std(ddof=1)) if v.notna().sum() > 1 else math.nan
        out.append(row)
    return pd.DataFrame(out)


def _two_sample(x: np.ndarray, y: np.ndarray, test: str) -> tuple[float, float, float]:
    """Return (statistic, df, p) of one two-sample test; NaN when undefined."""
    if x.size < 2 or y.size < 2:
        return math.nan, math.nan, math.nan
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        # nearly constant samples: scipy warns and may return inf/NaN, which we report
        warnings.simplefilter("ignore", RuntimeWarning)
        return _two_sample_raw(x, y, test)


def _two_sample_raw(x: np.ndarray, y: np.ndarray, test: str) -> tuple[float, float, float]:
    if test == "levene":
        if np.ptp(np.concatenate([x, y])) == 0:
            return math.nan, math.nan, math.nan
        r = stats.levene(x, y, center="median")
        return float(r.statistic), float(x.size + y.size - 2), float(r.pvalue)
    if np.var(x) == 0 and np.var(y) == 0:
        return math.nan, math.nan, math.nan
    r = stats.ttest_ind(x, y, equal_var=(test == "student"))
    return float(r.statistic), float(r.df), float(r.pvalue)


def _check_tests(tests, correction, allowed: tuple[str, ...] = TESTS) -> tuple[str, ...]:
    tests = check_choices(tests, allowed, "tests")
    check_choice(correction, CORRECTIONS, "correction")
    return tests


def _paired(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Paired t-test (same draws in both conditions); NaN when undefined."""
    d = x - y
    if d.size < 2 or np.ptp(d) == 0:
        return math.nan, math.nan, math.nan
    r = stats.ttest_rel(x, y)
    return float(r.statistic), float(r.df), float(r.pvalue)


def _test_rows(groups, label_a, label_b, tests):
    rows = []
    for base, (xa, xb), (va, vb), pairs in groups:
        for t in tests:
            if t == "paired":
                stat, df, p = _paired(*pairs)
            else:
                stat, df, p = _two_sample(xa, xb, t)
            rows.append({**base, label_a: va, label_b: vb, "test": t,
                         "mean_1": float(xa.mean()) if xa.size else math.nan,
                         "mean_2": float(xb.mean()) if xb.size else math.nan,
                         "var_1": float(xa.var(ddof=1)) if xa.size > 1 else math.nan,
                         "var_2": float(xb.var(ddof=1)) if xb.size > 1 else math.nan,
                         "n_1": int(xa.size), "n_2": int(xb.size),
                         "statistic": stat, "df": df, "p_value": p})
    return rows


def _finish(rows: list[dict], correction: str, confidence_level: float) -> pd.DataFrame:
    alpha = 1.0 - check_confidence_level(confidence_level)
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out["p_adjusted"] = np.nan
    for _t, idx in out.groupby("test").groups.items():
        out.loc[idx, "p_adjusted"] = adjust_pvalues(out.loc[idx, "p_value"], correction)
    out["correction"] = correction
    out["reject"] = out["p_adjusted"] < alpha
    return out


def _finite(s: pd.Series) -> np.ndarray:
    x = s.to_numpy(float)
    return x[np.isfinite(x)]


@fill(**_PIECES)
def compare_sizes(
    gaps: pd.DataFrame,
    *,
    tests: Sequence[str] = ("student", "welch", "levene"),
    correction: str = "holm",
    pairs: str = "all",
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Two-sample tests of each gap between sample sizes.

    {{gaps_parameter}}
    tests : sequence of {'student', 'welch', 'levene'}
        Student's t-test (equal variances, as in the paper), Welch's t-test, and the
        Brown-Forsythe (median-centred Levene) test of equal variances (draws of different
        sizes are independent, so there is no paired test here).
    correction : {'holm', 'bonferroni', 'bh', 'none'}
        Multiplicity correction, applied over all rows of the same test.
    pairs : {'all', 'adjacent'}
        Compare every pair of sizes, or each size with the next one.
    confidence_level : float
        ``reject`` is ``p_adjusted < 1 - confidence_level`` (the same word as every
        interval in fairbound).

    Returns
    -------
    pandas.DataFrame
        One row per condition, metric, class, pair of groups, pair of sizes and test:
        ``size_1``, ``size_2``, ``mean_*``, ``var_*``, ``n_*``, ``statistic``, ``df``,
        ``p_value``, ``p_adjusted``, ``reject``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> g = pd.DataFrame({"condition": "o", "metric": "gp", "class": "1", "group_a": "a",
    ...                   "group_b": "b", "size": np.repeat([100, 1000], 30),
    ...                   "gap": np.r_[rng.normal(0, 0.1, 30), rng.normal(0, 0.01, 30)]})
    >>> t = compare_sizes(g, correction="none")
    >>> t.set_index("test")["p_value"].lt(0.05).to_dict()
    {'student': False, 'welch': False, 'levene': True}
    """
    tests = _check_tests(tests, correction)
    check_choice(pairs, ("all", "adjacent"), "pairs")
    keys = _key_cols(gaps, drop=("size",))

    def groups():
        for key, df in gaps.groupby(keys, sort=True, dropna=False):
            sizes = sorted(df["size"].unique())
            combos = (zip(sizes[:-1], sizes[1:], strict=True) if pairs == "adjacent"
                      else itertools.combinations(sizes, 2))
            for s1, s2 in combos:
                yield (dict(zip(keys, key, strict=True)),
                       (_finite(df.loc[df["size"] == s1, "gap"]),
                        _finite(df.loc[df["size"] == s2, "gap"])), (int(s1), int(s2)), None)

    return _finish(_test_rows(groups(), "size_1", "size_2", tests), correction,
                   confidence_level)


@fill(**_PIECES)
def compare_conditions(
    gaps: pd.DataFrame,
    *,
    baseline: str | None = None,
    tests: Sequence[str] = ("student", "welch", "levene"),
    correction: str = "holm",
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Two-sample tests of each gap between conditions (e.g. original vs debiased).

    {{gaps_parameter}}
    baseline : str, optional
        Condition every other one is compared with (default: the first in the table).
    tests : sequence of {'student', 'welch', 'levene', 'paired'}
        As in :func:`compare_sizes`, plus ``'paired'``: the paired t-test on the runs
        matched by repeat (every condition of a study sees the same draws, so the paired
        test removes the draw-to-draw variability shared by both conditions).
    correction, confidence_level
        As in :func:`compare_sizes`.

    Returns
    -------
    pandas.DataFrame
        One row per size, metric, class, pair of groups, condition and test; columns
        ``condition_1`` (the baseline), ``condition_2`` and those of :func:`compare_sizes`.

    Examples
    --------
    >>> g = pd.DataFrame({"condition": np.repeat(["orig", "deb"], 4), "size": 100,
    ...                   "metric": "tpr", "class": "1", "group_a": "a", "group_b": "b",
    ...                   "gap": [0.30, 0.32, 0.29, 0.31, 0.01, 0.02, 0.0, 0.01]})
    >>> t = compare_conditions(g, tests="student")
    >>> t[["condition_1", "condition_2", "reject"]].values.tolist()
    [['orig', 'deb', True]]
    """
    tests = _check_tests(tests, correction, TESTS + ("paired",))
    if gaps.empty:
        return pd.DataFrame()
    conds = list(dict.fromkeys(gaps["condition"]))
    base = conds[0] if baseline is None else baseline
    if base not in conds:
        raise FairboundError(f"baseline: no condition {base!r}; conditions are {conds}",
                             param="baseline")
    keys = _key_cols(gaps, drop=("condition",))

    def matched(df, c):
        if "repeat" not in df.columns:
            return np.array([]), np.array([])
        a = df[df["condition"] == base].set_index("repeat")["gap"].astype(float)
        b = df[df["condition"] == c].set_index("repeat")["gap"].astype(float)
        j = pd.concat([a.rename("a"), b.rename("b")], axis=1, join="inner").dropna()
        return j["a"].to_numpy(), j["b"].to_numpy()

    def groups():
        for key, df in gaps.groupby(keys, sort=True, dropna=False):
            x0 = _finite(df.loc[df["condition"] == base, "gap"])
            for c in conds:
                if c == base or not (df["condition"] == c).any():
                    continue
                yield (dict(zip(keys, key, strict=True)),
                       (x0, _finite(df.loc[df["condition"] == c, "gap"])), (base, c),
                       matched(df, c))

    return _finish(_test_rows(groups(), "condition_1", "condition_2", tests), correction,
                   confidence_level)
