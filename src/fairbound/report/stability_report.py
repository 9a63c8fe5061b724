"""The HTML report of a stability study (:class:`fairbound.stability.StudyResult`)."""

from __future__ import annotations

import math
from pathlib import Path

from fairbound._docs import fill
from fairbound._validate import check_choice, check_int
from fairbound.errors import FairboundError
from fairbound.report._common import (
    DOCS,
    NO_FIGURES,
    check_path,
    check_title,
    figure_img,
    fnum,
    have_matplotlib,
    num,
    render_page,
    render_section,
    table_view,
    write_page,
)

CORRECTIONS = ("holm", "bonferroni", "bh", "none")
#: The paper's Fig. 2 names these two occupations (surgeon on top, physician below).
PAPER_F1_CLASSES = ("surgeon", "physician")
#: Fig. 5 keeps "only professions that have at least one prediction per gender for all
#: samplings" (``fairbound.stability.summary.PAPER_THRESHOLDS["variance"]``; the report
#: layer does not import the stability package).
FIG5_MIN_PER_GROUP = 1

#: The paper's abbreviations of the metrics it uses (Jourdan et al. 2023, Sec. 3.5).
PAPER_NAMES = {"demographic_parity": "GP", "equal_opportunity": "TPR",
               "predictive_parity": "PP"}

#: Fewer runs per size than this and a sign seen in every run is no evidence of a stable
#: sign: if each run's sign were a fair coin flip, all n runs would agree with probability
#: 2 * 0.5**n (25% at 3 runs, 3.1% at 6, 0.2% at 10), and the spread (SD) itself rests on
#: n - 1 degrees of freedom.  The paper used 50 runs per size.
FEW_RUNS = 10


def metric_label(metric: str) -> str:
    """The metric's full name, with the paper's abbreviation in parentheses.

    Examples
    --------
    >>> metric_label("demographic_parity"), metric_label("false_positive_rate")
    ('demographic_parity (GP)', 'false_positive_rate')
    """
    short = PAPER_NAMES.get(metric)
    return f"{metric} ({short})" if short else str(metric)


def few_runs_caution(n_runs: int) -> str:
    """The caution a report shows when a size has fewer than :data:`FEW_RUNS` runs.

    Examples
    --------
    >>> few_runs_caution(3)[:46]
    'Caution: only 3 runs per size (fewer than 10).'
    >>> few_runs_caution(10)
    ''
    """
    n = int(n_runs)
    if n >= FEW_RUNS:
        return ""
    return (f"Caution: only {n} runs per size (fewer than {FEW_RUNS}). If each run's sign "
            f"were a coin flip, all {n} would agree {2 * 0.5 ** n:.0%} of the time, so a "
            "gap with the same sign in every run is not yet a stable sign, and the spread "
            f"(SD) rests on {max(n - 1, 0)} degrees of freedom. Read the findings below as "
            f"provisional; add runs (the paper used 50 per size).")



def _label(r) -> str:
    """A metric's full name with the paper's abbreviation (a table cell)."""
    return metric_label(r["metric"])


def _check_min(min_per_group):
    if min_per_group is None:
        return None
    return check_int(min_per_group, "min_per_group", low=0, note="0: no filter")


def _validate(result, title, correction):
    need = ("config", "runs", "gaps", "summary", "score_summary", "compare_sizes")
    if not all(hasattr(result, a) for a in need):
        raise FairboundError(f"result must be a StudyResult (fairbound.stability); got "
                             f"{type(result).__name__}", param="result")
    if result.gaps.empty:
        raise FairboundError("result: the study has no runs yet", param="result")
    check_choice(correction, CORRECTIONS, "correction")
    return check_title(title, "Stability study")


def _pair_rows(frame, a, b):
    """Rows of one pair of groups (a test table is empty, without columns, for one size)."""
    if frame is None or frame.empty or not {"group_a", "group_b"} <= set(frame.columns):
        return frame.iloc[0:0] if frame is not None else None
    return frame[(frame["group_a"] == a) & (frame["group_b"] == b)]


def _figure(make, alt):
    if not have_matplotlib():
        return None
    return figure_img(make(), alt)


def _pair_findings(s) -> list[dict]:
    """One sentence per gap whose sign is stable / unstable at the largest size.

    With fewer than :data:`FEW_RUNS` runs a sign seen in every
    run is reported as provisional (amber, not red).
    """
    out = []
    if s.empty:
        return out
    big = s[s["size"] == s["size"].max()]
    if "filtered" in big.columns:
        big = big[~big["filtered"].astype(bool)]
    several = s["condition"].nunique() > 1 if "condition" in s.columns else False
    for r in big.to_dict("records"):
        name = f"{metric_label(r['metric'])} gap for class {r['class']}"
        if several:
            name += f" ({r['condition']})"
        share = num(r["share_positive"])
        mean, sd = num(r["mean"]), num(r["sd"])
        if not math.isfinite(share):
            continue
        if share in (0.0, 1.0) and num(r["opposite_verdict"]) == 0:
            few = int(r["n_runs"]) < FEW_RUNS
            out.append({"cls": "warn" if few else "bad", "text": (
                f"At n = {int(r['size']):,}, the {name} has the same sign in every one of "
                f"{int(r['n_runs'])} runs (mean {mean:+.3f}, SD {sd:.3f})"
                + (f"; with fewer than {FEW_RUNS} runs that is not yet a stable sign."
                   if few else "."))})
        elif 0.2 < share < 0.8:
            out.append({"cls": "warn", "text": (
                f"At n = {int(r['size']):,}, the {name} changes sign across runs "
                f"({share:.0%} positive; mean {mean:+.3f}, SD {sd:.3f}): one run could "
                "report either direction.")})
    return out[:12]


def _hide_filtered(key: str, kind: str):
    """A cell formatter that writes 'filtered' instead of the number of a filtered row."""
    def cell(r):
        if r.get("filtered"):
            return "filtered"
        v = r.get(key)
        if kind == "pct":
            return "-" if math.isnan(num(v)) else f"{num(v):.0%}"
        if kind == "int":
            return "-" if math.isnan(num(v)) else f"{num(v):,.0f}"
        return fnum(num(v))
    return cell


def _filter_view(s, min_per_group):
    """Finding and table of the filtered cells of one pair (nothing without a filter)."""
    if not min_per_group or s.empty or "filtered" not in s.columns:
        return [], None
    f = s[s["filtered"].astype(bool)]
    by_class = "min_pred_a" in s.columns and s["min_pred_a"].notna().any()
    what = "predictions of the class" if by_class else "rows of a group behind the rate"
    if f.empty:
        return [{"cls": "ok", "text": (
            f"Filter: every class has at least {min_per_group} {what} per group in every "
            "run; none is filtered.")}], None
    classes = sorted(set(f["class"].astype(str)))
    text = (f"Filter (Jourdan et al. 2023, per occupation): {len(f)} of {len(s)} cells, the "
            f"classes {', '.join(classes[:12])}{', ...' if len(classes) > 12 else ''}, have "
            f"fewer than {min_per_group} {what} per group in some run; every metric of such "
            "a class is reported as filtered, without its numbers.") if by_class else (
            f"Filter (Jourdan et al. 2023): {len(f)} of {len(s)} cells rest, in some run, on "
            f"fewer than {min_per_group} rows of a group; they are reported as filtered, "
            f"without their numbers (classes: {', '.join(classes[:12])}"
            f"{', ...' if len(classes) > 12 else ''}).")
    fewest = ("min_pred_a", "min_pred_b") if by_class else ("min_n_a", "min_n_b")
    cols = [("condition", "condition", "text"), ("gap", "metric", _label),
            ("class", "class", "text"), ("size", "size", "int"),
            ("fewest A", fewest[0], "int"), ("fewest B", fewest[1], "int"),
            ("reason", "filter_reason", "text")]
    table = table_view(f.to_dict("records"), cols, caption=(
        (f"Filtered cells: fewer than {min_per_group} predictions of the class per group in "
         "some run (the paper's filter, per occupation: all metrics of the class go). "
         if by_class else
         f"Filtered cells: fewer than {min_per_group} rows of a group behind the rate in "
         "some run (group size for demographic_parity, true members of the class for "
         "equal_opportunity, predictions of the class for predictive_parity). ")
        + "Their means and spreads are not shown."), cls="filtered")
    return [{"cls": "warn", "text": text}], table


def stability_view(result, *, index: int = 1, correction: str = "holm",
                   figures: bool = True, min_per_group: int | None = None,
                   variance_min_per_group: int | None = None,
                   f1_classes=None) -> dict:
    """Everything the stability section shows (see :func:`render_stability_report`)."""
    cfg = result.config
    min_per_group = _check_min(min_per_group)
    if min_per_group is None:
        min_per_group = getattr(cfg, "min_per_group", None)
    var_min = _check_min(variance_min_per_group)
    if var_min is None:
        var_min = FIG5_MIN_PER_GROUP if min_per_group else 0
    gaps = result.gaps
    summary = result.summary(min_per_group=min_per_group or 0)
    # Fig. 5 keeps the occupations with at least one prediction per gender ("at least 1"),
    # Fig. 6 those with more than 10 (min_per_group): one summary per threshold
    summary_var = result.summary(min_per_group=var_min or 0)
    sizes = sorted(int(x) for x in gaps["size"].unique())
    runs = result.runs.groupby(["condition", "size"]).size()
    caution = few_runs_caution(int(runs.min()))
    facts = [
        ("Label", f"{cfg.label} (classes {', '.join(map(str, cfg.classes))})"),
        ("Group", f"{cfg.group}; comparison {cfg.comparison}"
         + (f" (reference {cfg.reference})" if cfg.reference is not None else "")),
        ("Trainer", str(cfg.trainer)),
        ("Sample sizes", ", ".join(f"{s:,}" for s in sizes)),
        ("Runs per size", f"{runs.min()} to {runs.max()}" if runs.min() != runs.max()
         else str(runs.min())),
        ("Conditions", ", ".join(cfg.conditions)),
        ("Test set", f"{cfg.test_size:.0%} of each sample" if cfg.test_size is not None
         else "fixed test file"),
        ("Stratified by", ", ".join(cfg.stratify)),
        ("Metrics", ", ".join(cfg.metrics)),
        ("Single-run intervals", f"{cfg.method} at {cfg.confidence_level:.0%}"),
        ("Filter", (f"classes with fewer than {min_per_group} predictions per group in some "
                    "run (tables, mean-gap heatmaps: the paper's Fig. 6, 'more than 10') "
                    f"and fewer than {var_min} (variance heatmaps: Fig. 5, 'at least one') "
                    "are reported as filtered, all their metrics")
         if min_per_group else "none"),
        ("Seed", str(cfg.seed)),
        ("Data fingerprint", str(cfg.data_fingerprint)),
    ]
    score_cols = [("condition", "condition", "text"), ("size", "size", "int"),
                  ("runs", "n_runs", "int"), ("accuracy", "accuracy_mean", "num"),
                  ("SD", "accuracy_sd", "num"), ("macro-F1", "macro_f1_mean", "num"),
                  ("SD", "macro_f1_sd", "num")]
    scores = table_view(result.score_summary().to_dict("records"), score_cols,
                        caption="Mean and standard deviation across runs.")
    tests = result.compare_sizes(correction=correction)
    pairs = []
    pair_keys = list(dict.fromkeys(zip(summary["group_a"], summary["group_b"], strict=True)))
    from fairbound.viz import stability as splots

    draw = figures and have_matplotlib()
    conds = list(dict.fromkeys(summary["condition"])) if not summary.empty else []
    fig_scores = fig_f1 = fig_counts = None
    if f1_classes is None:
        f1_classes = [c for c in PAPER_F1_CLASSES if c in cfg.classes] or list(cfg.classes[:2])
    f1_classes = [str(c) for c in f1_classes]
    if draw:
        fig_scores = figure_img(splots.plot_score_boxplots(result.runs), (
            "Boxplots of accuracy and macro-F1 across runs per training size"
            + (f", conditions {', '.join(conds)}" if len(conds) > 1 else "")))
        if all(f"f1[{c}]" in result.runs.columns for c in f1_classes):
            fig_f1 = figure_img(splots.plot_class_f1(result.runs, classes=f1_classes), (
                f"Boxplots of the F1-score of {', '.join(f1_classes)} across runs per "
                "training size"))
        counts = cfg.class_count_frame() if hasattr(cfg, "class_count_frame") else None
        if counts is not None and not counts.empty:
            fig_counts = figure_img(splots.plot_class_counts(counts),
                                    "Bars of the rows of each class by group")
    metrics = set(summary["metric"]) if not summary.empty else set()
    for j, (a, b) in enumerate(pair_keys):
        s = summary[(summary["group_a"] == a) & (summary["group_b"] == b)]
        f_findings, f_table = _filter_view(s, min_per_group)
        view = {"id": f"stability-{index}-{j + 1}", "heading": f"{a} vs {b}",
                "findings": ([{"cls": "warn", "text": caution}] if caution else [])
                + f_findings + _pair_findings(s), "fig_box": None, "fig_var": None,
                "fig_mean": None, "fig_share": None}
        if draw:
            who = ", ".join(conds)
            view["fig_box"] = figure_img(
                splots.plot_gap_boxplots(gaps, pair=(a, b), min_per_group=min_per_group),
                f"Boxplots of the gaps {a} vs {b} per size")
            view["fig_var"] = figure_img(
                splots.plot_condition_heatmaps(summary_var, kind="variance", pair=(a, b)),
                f"Variance heatmaps {a} vs {b}, one per condition: {who}")
            view["fig_mean"] = figure_img(
                splots.plot_condition_heatmaps(summary, kind="mean", pair=(a, b)),
                f"Mean-gap heatmaps {a} vs {b}, one per condition: {who}")
            if "equal_opportunity" in metrics:
                view["fig_share"] = figure_img(
                    splots.plot_group_share(summary, pair=(a, b)),
                    f"Classes by the share of {a}: mean TPR gap {a} vs {b}")
        cols = [("condition", "condition", "text"), ("gap", "metric", _label),
                ("class", "class", "text"), ("size", "size", "int"),
                ("runs", "n_runs", "int"), ("mean", "mean", _hide_filtered("mean", "num")),
                ("SD", "sd", _hide_filtered("sd", "num")),
                ("share > 0", "share_positive", _hide_filtered("share_positive", "pct")),
                ("mean n A", "mean_n_a", "int"), ("mean n B", "mean_n_b", "int"),
                ("CI / spread", "ci_to_spread", _hide_filtered("ci_to_spread", "num")),
                ("CI covers mean", "ci_covers_mean", _hide_filtered("ci_covers_mean", "pct")),
                ("opposite verdict", "opposite_verdict",
                 _hide_filtered("opposite_verdict", "pct"))]
        view["tables"] = [table_view(s.to_dict("records"), cols, caption=(
            "Each gap across runs: mean, standard deviation, share of runs with a positive "
            "gap, and how single-run intervals compare with the run-to-run spread"
            + ("; filtered cells show 'filtered' instead of their numbers."
               if min_per_group else ".")))]
        if f_table is not None:
            view["tables"].append(f_table)
        t = _pair_rows(tests, a, b)
        if not t.empty:
            tcols = [("condition", "condition", "text"), ("gap", "metric", _label),
                     ("class", "class", "text"), ("size 1", "size_1", "int"),
                     ("size 2", "size_2", "int"), ("test", "test", "text"),
                     ("mean 1", "mean_1", "num"), ("mean 2", "mean_2", "num"),
                     ("var 1", "var_1", "g"), ("var 2", "var_2", "g"),
                     ("statistic", "statistic", "num"), ("p", "p_value", "p"),
                     ("p adjusted", "p_adjusted", "p"),
                     ("rejected", "reject", lambda r: "yes" if r["reject"] else "no")]
            view["tables"].append(table_view(
                t.to_dict("records"), tcols, caption=(
                    f"Tests between sample sizes (means: Student and Welch t-tests; "
                    f"variances: Levene), p-values adjusted with {correction}.")))
        pairs.append(view)
    ct = result.compare_conditions(correction=correction) if len(cfg.conditions) > 1 else None
    if ct is not None and not ct.empty and {"group_a", "condition_1"} <= set(ct.columns):
        ccols = [("size", "size", "int"), ("gap", "metric", _label),
                 ("class", "class", "text"),
                 ("pair", "group_a", lambda r: f"{r['group_a']} vs {r['group_b']}"),
                 ("condition 1", "condition_1", "text"), ("condition 2", "condition_2", "text"),
                 ("test", "test", "text"), ("mean 1", "mean_1", "num"),
                 ("mean 2", "mean_2", "num"), ("p adjusted", "p_adjusted", "p"),
                 ("rejected", "reject", lambda r: "yes" if r["reject"] else "no")]
        pairs.append({"id": f"stability-{index}-conditions", "heading": "Between conditions",
                      "findings": [], "fig_box": None, "fig_var": None, "fig_mean": None,
                      "fig_share": None,
                      "tables": [table_view(ct.to_dict("records"), ccols,
                                            caption="Tests between conditions.")]})
    return {
        "id": f"stability-{index}", "heading": "Stability study",
        "lead": (f"{len(result.runs):,} models of one class, each trained on its own "
                 f"stratified sample; every run audited. How much does each fairness gap "
                 f"move when only the training sample changes?"),
        "facts": facts, "scores": scores, "pairs": pairs, "fig_scores": fig_scores,
        "fig_f1": fig_f1, "fig_counts": fig_counts, "f1_classes": ", ".join(f1_classes),
        "caution": caution,
        "stratify": ", ".join(cfg.stratify), "repeats": f"{runs.max()}",
        "method": cfg.method, "level": f"{cfg.confidence_level:.0%}",
        "correction": correction, "no_figures": NO_FIGURES,
        "reading": [
            "SD: spread of the gap from one run to the next (same model class, same size).",
            "CI / spread: mean width of one run's interval divided by the central 95% range "
            "of the runs; below 1, a single run's interval is narrower than the run-to-run "
            "variability.",
            "CI covers mean: share of runs whose interval contains the mean over runs.",
            "Opposite verdict: share of runs whose interval excludes 0 on the side opposite "
            "to the mean.",
        ],
    }


def render_stability_report(result, *, title: str | None = None, correction: str = "holm",
                            figures: bool = True, min_per_group: int | None = None,
                            variance_min_per_group: int | None = None,
                            f1_classes=None) -> str:
    """Render a stability study as one self-contained HTML page.

    Parameters
    ----------
    result : StudyResult
        From :func:`fairbound.stability.run_study` or :func:`~fairbound.stability.load_study`.
    title : str, optional
        Page title.
    correction : {'holm', 'bonferroni', 'bh', 'none'}
        Multiplicity correction of the t-tests.
    figures : bool
        Include the boxplots and heatmaps (needs matplotlib).
    min_per_group : int, optional
        The paper's filter per occupation (see :func:`fairbound.stability.summarize_gaps`)
        for the tables and the mean-gap heatmaps (Fig. 6: "more than 10 predictions per
        gender", 11); default: the study's own (``run_study(min_per_group=...)``); 0 turns
        it off.
    variance_min_per_group : int, optional
        The filter of the variance heatmaps (Fig. 5: "at least one prediction per gender",
        default 1 when ``min_per_group`` is on, none otherwise).
    f1_classes : sequence of str, optional
        The classes of the F1 boxplots (Fig. 2; default surgeon and physician when the
        study has them, else its first two classes).

    Returns
    -------
    str

    Notes
    -----
    Sections: the study's set-up, a caution when a size has fewer than
    :data:`FEW_RUNS` runs, model scores per size with the
    accuracy boxplots (the paper's Fig. 1), the F1 boxplots of two named classes (Fig. 2)
    and the rows of each class by group (Fig. 7), and per pair of groups the gap boxplots
    per size (Fig. 3), the variance heatmaps (Fig. 5) and mean-gap heatmaps (Fig. 6; red
    favours males) of every condition side by side, the classes by the share of group A
    against the TPR gap (beyond the paper), the summary table with the filtered cells and
    their reason, and the tests between sizes (and between conditions when there are
    several), after Jourdan, Risser, Loubes & Asher (2023).  Metrics are named in full,
    with the paper's abbreviation in parentheses (``demographic_parity (GP)``).

    References
    ----------
    F. Jourdan, L. Risser, J.-M. Loubes, N. Asher. "Are fairness metric scores enough to
    assess discrimination biases in machine learning?" TrustNLP 2023.

    Examples
    --------
    >>> from fairbound.stability import load_study
    >>> html = render_stability_report(load_study("study/"))  # doctest: +SKIP
    """
    title = _validate(result, title, correction)
    view = stability_view(result, correction=correction, figures=figures,
                          min_per_group=min_per_group,
                          variance_min_per_group=variance_min_per_group,
                          f1_classes=f1_classes)
    toc = [{"id": p["id"], "title": p["heading"]} for p in view["pairs"]]
    return render_page(title=title, kicker="fairbound stability study",
                       sections=[render_section("stability.html.j2", s=view)], toc=toc,
                       footer="The full tables are the CSV files of "
                              "'fairbound stability report'.")


@fill(**DOCS)
def write_stability_report(result, path, *, title: str | None = None,
                           correction: str = "holm", figures: bool = True,
                           min_per_group: int | None = None) -> Path:
    """Write :func:`render_stability_report` to ``path`` (``.html``).

    {{study_parameters}}
    path : str or Path
        Output file.
    title : str, optional
        Page title.
    correction : {'holm', 'bonferroni', 'bh', 'none'}
        Multiplicity correction of the t-tests.
    figures : bool
        Include the figures.
    min_per_group : int, optional
        The paper's filter (default: the study's own; 0: none).

    Returns
    -------
    Path

    Examples
    --------
    >>> write_stability_report(load_study("study/"), "stability.html")  # doctest: +SKIP
    """
    p = check_path(path, (".html", ".htm"))
    return write_page(p, render_stability_report(result, title=title,
                                                 correction=correction, figures=figures,
                                                 min_per_group=min_per_group))


__all__ = ["render_stability_report", "stability_view", "write_stability_report"]
