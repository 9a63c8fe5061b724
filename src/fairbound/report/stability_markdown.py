"""Write a stability study's CSV tables, figures and a Markdown report to a folder.

:meth:`fairbound.stability.StudyResult.write_report` (``fairbound stability report --out``)
calls :func:`write_report`; the HTML page is :mod:`fairbound.report.stability_report`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from fairbound._docs import fill
from fairbound.errors import FairboundError
from fairbound.report._common import DOCS


def _label(metric: str) -> str:
    from fairbound.report.stability_report import metric_label

    return metric_label(metric)


def _fmt(v) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return ""
        if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5):
            return f"{v:.2e}"
        return f"{v:.3f}"
    return str(v)


def markdown_table(df: pd.DataFrame, *, index: bool = False) -> str:
    """Render a small frame as a GitHub Markdown table (floats to 3 decimals).

    Parameters
    ----------
    df : pandas.DataFrame
        The table.
    index : bool
        Include the index as the first column.

    Returns
    -------
    str

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"a": [1], "b": [0.5]})))
    | a | b |
    |---|---|
    | 1 | 0.500 |
    """
    if index:
        df = df.reset_index()
    head = "| " + " | ".join(str(c) for c in df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    rows = ["| " + " | ".join(_fmt(v) for v in r) + " |" for r in df.itertuples(index=False)]
    return "\n".join([head, sep, *rows])


def _runs_per_cell(runs: pd.DataFrame) -> str:
    counts = runs.groupby(["condition", "size"]).size()
    lo, hi = int(counts.min()), int(counts.max())
    return str(lo) if lo == hi else f"{lo} to {hi}"


def _write_csv(frame, path: Path) -> None:
    """One table of the report folder, whole or not at all, safe to open in a spreadsheet."""
    from fairbound._io import csv_text, write_text_atomic

    write_text_atomic(path, csv_text(frame), param="out")


@fill(**DOCS)
def write_report(
    result,
    directory: str | Path,
    *,
    formats: Sequence[str] = ("png", "svg"),
    correction: str = "holm",
    min_per_group: int | None = None,
) -> Path:
    """Write CSV tables, figures and ``report.md`` for a study.

    {{study_parameters}}
    directory : str or pathlib.Path
        Output folder (created).
    formats : sequence of {'png', 'svg', 'pdf'}
        Figure formats; empty for tables only (no matplotlib needed).
    correction : {'holm', 'bonferroni', 'bh', 'none'}
        Multiplicity correction of the t-tests.
    min_per_group : int, optional
        The paper's filter (see :func:`fairbound.stability.summarize_gaps`); default: the
        study's own; 0: none.  Filtered cells read "filtered" in the tables, with their
        reason in ``filtered.csv`` and in the report.

    Returns
    -------
    pathlib.Path
        Path of ``report.md``.

    Notes
    -----
    Files: ``gaps.csv`` (every run), ``runs.csv``, ``summary.csv`` (with the ``filtered`` and
    ``filter_reason`` columns), ``filtered.csv`` (with a filter), ``scores.csv``,
    ``tests_sizes.csv``, ``tests_conditions.csv`` (with several conditions),
    ``scores.<fmt>`` (accuracy and macro-F1 boxplots, the paper's Fig. 1), ``f1.<fmt>``
    (F1 of surgeon and physician, or the study's first two classes, Fig. 2),
    ``class_counts.<fmt>`` (rows of each class by group, Fig. 7) and, per pair of groups,
    ``boxplots_<a>_vs_<b>.<fmt>`` (Fig. 3), ``variance_<a>_vs_<b>.<fmt>`` (Fig. 5, filter
    "at least one prediction per group") and ``mean_<a>_vs_<b>.<fmt>`` (Fig. 6, filter
    ``min_per_group``; red favours males), every condition side by side, and
    ``share_<a>_vs_<b>.<fmt>`` (classes by the share of group A against the TPR gap, beyond
    the paper; when the study has the TPR metric).  Metrics are named in full with the
    paper's abbreviation in parentheses; with fewer than
    :data:`~fairbound.report.stability_report.FEW_RUNS` runs per size the report opens with a
    caution.
    """
    from fairbound.report.stability_report import FIG5_MIN_PER_GROUP, few_runs_caution

    formats = tuple(formats)
    bad = [f for f in formats if f not in ("png", "svg", "pdf")]
    if bad:
        raise FairboundError(f"formats must be among png, svg, pdf; got {bad[0]!r}",
                             param="formats")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    gaps = result.gaps
    if gaps.empty:
        raise FairboundError("result: the study has no runs yet", param="result")
    if min_per_group is None:
        min_per_group = getattr(result.config, "min_per_group", None)
    summary = result.summary(min_per_group=min_per_group or 0)
    # Fig. 5 filters on "at least one prediction per group", Fig. 6 on min_per_group
    summary_var = result.summary(min_per_group=FIG5_MIN_PER_GROUP if min_per_group else 0)
    scores = result.score_summary()
    sizes_t = result.compare_sizes(correction=correction)
    _write_csv(gaps, out / "gaps.csv")
    _write_csv(result.runs, out / "runs.csv")
    _write_csv(summary, out / "summary.csv")
    filtered = (summary[summary["filtered"].astype(bool)] if min_per_group
                and "filtered" in summary.columns else None)
    if filtered is not None:
        _write_csv(filtered, out / "filtered.csv")
    _write_csv(scores, out / "scores.csv")
    _write_csv(sizes_t, out / "tests_sizes.csv")
    conds_t = None
    if gaps["condition"].nunique() > 1:
        conds_t = result.compare_conditions(correction=correction,
                                            tests=("student", "welch", "paired"))
        _write_csv(conds_t, out / "tests_conditions.csv")

    cfg = result.config
    caution = few_runs_caution(int(result.runs.groupby(["condition", "size"]).size().min()))
    lines = [
        "# Stability study", "",
        *([f"> {caution}", ""] if caution else []),
        f"- label `{cfg.label}` (classes {', '.join(cfg.classes)}), group `{cfg.group}`, "
        f"comparison {cfg.comparison}"
        + (f" (reference `{cfg.reference}`)" if cfg.reference is not None else ""),
        f"- trainer `{cfg.trainer}`",
        f"- sizes {', '.join(f'{s:,}' for s in sorted(gaps['size'].unique()))}; "
        f"{_runs_per_cell(result.runs)} runs per size and condition; conditions "
        f"{', '.join(cfg.conditions)}",
        f"- test share {cfg.test_size}" if cfg.test_size is not None else "- fixed test set",
        f"- stratified by {', '.join(cfg.stratify)}; seed {cfg.seed}",
        f"- single-run intervals: {cfg.method} at {cfg.confidence_level:.0%}; gap = rate of "
        "group A - rate of group B",
        (f"- filter (Jourdan et al. 2023, per occupation): a class with fewer than "
         f"{min_per_group} predictions per group in some run is reported as filtered, all "
         f"its metrics, without their numbers ({0 if filtered is None else len(filtered)} "
         f"of {len(summary)} cells); the variance figure (Fig. 5) filters on fewer than "
         f"{FIG5_MIN_PER_GROUP}"
         if min_per_group else "- no filter on the counts per group"), "",
        "## Scores", "",
        markdown_table(scores), "",
    ]
    if formats:
        from fairbound.report.stability_report import PAPER_F1_CLASSES
        from fairbound.viz.stability import (
            plot_class_counts,
            plot_class_f1,
            plot_score_boxplots,
        )

        f1_classes = ([c for c in PAPER_F1_CLASSES if c in cfg.classes]
                      or list(cfg.classes[:2]))
        has_f1 = all(f"f1[{c}]" in result.runs.columns for c in f1_classes)
        counts = cfg.class_count_frame()
        for fmt in formats:
            plot_score_boxplots(result.runs, path=out / f"scores.{fmt}")
            if has_f1:
                plot_class_f1(result.runs, classes=f1_classes, path=out / f"f1.{fmt}")
            if not counts.empty:
                plot_class_counts(counts, path=out / f"class_counts.{fmt}")
        lines += [f"![accuracy and macro-F1 per size (Fig. 1)](scores.{formats[0]})", ""]
        if has_f1:
            lines += [f"![F1 of {', '.join(f1_classes)} per size (Fig. 2)](f1.{formats[0]})",
                      ""]
        if not counts.empty:
            lines += [f"![rows of each class by group (Fig. 7)](class_counts.{formats[0]})",
                      ""]
    pairs = list(dict.fromkeys(zip(summary["group_a"], summary["group_b"], strict=True)))
    for a, b in pairs:
        s = summary[(summary["group_a"] == a) & (summary["group_b"] == b)]
        tag = f"{a}_vs_{b}".replace("/", "-").replace(" ", "_")
        lines += [f"## {a} - {b}", ""]
        for cond in cfg.conditions:
            sc = s[s["condition"] == cond]
            if sc.empty:
                continue
            sc = sc.assign(gap=sc["metric"].map(_label))
            stats = [c for c in ("mean", "sd", "share_positive", "mean_ci_width",
                                 "ci_to_spread", "ci_covers_mean", "opposite_verdict",
                                 "verdict_disagreement") if c in sc.columns]
            if "filtered" in sc.columns and sc["filtered"].astype(bool).any():
                # never a solid number for a filtered cell: the word, and the reason below
                hide = sc["filtered"].astype(bool)
                sc = sc.astype({c: object for c in stats})
                sc.loc[hide, stats] = "filtered"
            var = sc.pivot_table(index=["gap", "class"], columns="size", values="sd",
                                 aggfunc="first", dropna=False)
            lines += [f"### {cond}: standard deviation of each gap across runs", "",
                      markdown_table(var, index=True), ""]
            cols = ["gap", "class", "size", "n_runs", "mean", "sd", "mean_n_a", "mean_n_b",
                    "share_positive", "mean_ci_width", "ci_to_spread", "ci_covers_mean",
                    "opposite_verdict", "verdict_disagreement"]
            lines += [f"### {cond}: sign shares and single-run intervals", "",
                      markdown_table(sc[cols]), ""]
        fp = None if filtered is None else filtered[(filtered["group_a"] == a)
                                                    & (filtered["group_b"] == b)]
        if fp is not None and not fp.empty:
            fp = fp.assign(gap=fp["metric"].map(_label))
            few = ["min_pred_a", "min_pred_b"] if fp["min_pred_a"].notna().any() \
                else ["min_n_a", "min_n_b"]
            lines += [f"### Filtered cells (fewer than {min_per_group} per group in some "
                      "run)", "",
                      markdown_table(fp[["condition", "gap", "class", "size", *few,
                                         "filter_reason"]]), ""]
        if formats:
            from fairbound.viz.stability import (
                plot_condition_heatmaps,
                plot_gap_boxplots,
                plot_group_share,
            )

            share = "equal_opportunity" in set(s["metric"])
            for fmt in formats:
                plot_gap_boxplots(gaps, pair=(a, b), min_per_group=min_per_group,
                                  path=out / f"boxplots_{tag}.{fmt}")
                plot_condition_heatmaps(summary_var, kind="variance", pair=(a, b),
                                        path=out / f"variance_{tag}.{fmt}")
                plot_condition_heatmaps(summary, kind="mean", pair=(a, b),
                                        path=out / f"mean_{tag}.{fmt}")
                if share:
                    plot_group_share(summary, pair=(a, b), path=out / f"share_{tag}.{fmt}")
            img = formats[0]
            lines += [f"![gaps per size](boxplots_{tag}.{img})", "",
                      f"![variance by class and size, every condition](variance_{tag}.{img})",
                      "", f"![mean gap by class, every condition](mean_{tag}.{img})", ""]
            if share:
                lines += [f"![classes by the share of {a}](share_{tag}.{img})", ""]
        t = sizes_t[(sizes_t["group_a"] == a) & (sizes_t["group_b"] == b)] \
            if not sizes_t.empty else sizes_t
        if not t.empty:
            counts = t.groupby("test").agg(tests=("p_value", "count"),
                                           rejected=("reject", "sum")).reset_index()
            lines += [f"### Tests between sizes ({correction} correction per test kind)", "",
                      markdown_table(counts), ""]
            rej = t[t["reject"]]
            if not rej.empty:
                rej = rej.assign(gap=rej["metric"].map(_label))
                lines += [markdown_table(rej[["condition", "gap", "class", "size_1", "size_2",
                                              "test", "mean_1", "mean_2", "var_1", "var_2",
                                              "p_adjusted"]]), ""]
        if conds_t is not None and not conds_t.empty:
            t = conds_t[(conds_t["group_a"] == a) & (conds_t["group_b"] == b)]
            t = t.assign(gap=t["metric"].map(_label))
            lines += ["### Tests between conditions", "",
                      markdown_table(t[["size", "gap", "class", "condition_1", "condition_2",
                                        "test", "mean_1", "mean_2", "p_adjusted",
                                        "reject"]]), ""]
    lines += [
        "## Reading the tables", "",
        "- `sd`: spread of the gap from one resample to the next (same model class, same "
        "size).",
        "- `ci_to_spread`: mean width of one run's interval divided by the central 95% range "
        "of the runs; below 1, a single run's interval is narrower than the run-to-run "
        "variability (it accounts for the test sample, not for the training sample).",
        "- `ci_covers_mean`: share of runs whose interval contains the mean over runs.",
        "- `opposite_verdict`: share of runs whose interval excludes 0 on the side opposite "
        "to the mean; `verdict_disagreement`: share of runs whose outcome (significant +, "
        "significant -, inconclusive) differs from the most common one.", "",
    ]
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
