"""The HTML report of a stability study (:class:`fairbound.stability.StudyResult`)."""

from __future__ import annotations

import math
from pathlib import Path

from fairbound._validate import check_choice, check_int
from fairbound.errors import FairboundError
from fairbound.report._common import (
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
SHORT = {"demographic_parity": "GP", "equal_opportunity": "TPR", "predictive_parity": "PP",
         "false_positive_rate": "FPR", "accuracy_parity": "ACC", "equalized_odds": "EO",
         "equalized_odds_cost": "EO cost"}


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
    """One sentence per gap whose sign is stable / unstable at the largest size."""
    out = []
    if s.empty:
        return out
    big = s[s["size"] == s["size"].max()]
    if "filtered" in big.columns:
        big = big[~big["filtered"].astype(bool)]
    several = s["condition"].nunique() > 1 if "condition" in s.columns else False
    for r in big.to_dict("records"):
        name = f"{SHORT.get(r['metric'], r['metric'])} gap for class {r['class']}"
        if several:
            name += f" ({r['condition']})"
        share = num(r["share_positive"])
        mean, sd = num(r["mean"]), num(r["sd"])
        if not math.isfinite(share):
            continue
        if share in (0.0, 1.0) and num(r["opposite_verdict"]) == 0:
            out.append({"cls": "bad", "text": (
                f"At n = {int(r['size']):,}, the {name} has the same sign in every one of "
                f"{int(r['n_runs'])} runs (mean {mean:+.3f}, SD {sd:.3f}).")})
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
    if f.empty:
        return [{"cls": "ok", "text": (
            f"Filter: every cell has at least {min_per_group} rows of each group behind its "
            "rate in every run; none is filtered.")}], None
    classes = sorted(set(f["class"].astype(str)))
    text = (f"Filter (Jourdan et al. 2023): {len(f)} of {len(s)} cells rest, in some run, on "
            f"fewer than {min_per_group} rows of a group; they are reported as filtered, "
            f"without their numbers (classes: {', '.join(classes[:12])}"
            f"{', ...' if len(classes) > 12 else ''}).")
    cols = [("condition", "condition", "text"),
            ("gap", "metric", lambda r: SHORT.get(r["metric"], r["metric"])),
            ("class", "class", "text"), ("size", "size", "int"),
            ("fewest A", "min_n_a", "int"), ("fewest B", "min_n_b", "int"),
            ("reason", "filter_reason", "text")]
    table = table_view(f.to_dict("records"), cols, caption=(
        f"Filtered cells: fewer than {min_per_group} rows of a group behind the rate in some "
        "run (group size for GP, true members of the class for TPR, predictions of the "
        "class for PP). Their means and spreads are not shown."), cls="filtered")
    return [{"cls": "warn", "text": text}], table


def stability_view(result, *, index: int = 1, correction: str = "holm",
                   figures: bool = True, min_per_group: int | None = None) -> dict:
    """Everything the stability section shows (see :func:`render_stability_report`)."""
    cfg = result.config
    min_per_group = _check_min(min_per_group)
    if min_per_group is None:
        min_per_group = getattr(cfg, "min_per_group", None)
    gaps = result.gaps
    summary = result.summary(min_per_group=min_per_group or 0)
    sizes = sorted(int(x) for x in gaps["size"].unique())
    runs = result.runs.groupby(["condition", "size"]).size()
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
        ("Filter", f"cells with fewer than {min_per_group} rows of a group behind the rate "
         "in some run are reported as filtered" if min_per_group else "none"),
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
    fig_scores = None
    if draw:
        fig_scores = figure_img(splots.plot_score_boxplots(result.runs), (
            "Boxplots of accuracy and macro-F1 across runs per training size"
            + (f", conditions {', '.join(conds)}" if len(conds) > 1 else "")))
    metrics = set(summary["metric"]) if not summary.empty else set()
    for j, (a, b) in enumerate(pair_keys):
        s = summary[(summary["group_a"] == a) & (summary["group_b"] == b)]
        f_findings, f_table = _filter_view(s, min_per_group)
        view = {"id": f"stability-{index}-{j + 1}", "heading": f"{a} vs {b}",
                "findings": f_findings + _pair_findings(s), "fig_box": None, "fig_var": None,
                "fig_mean": None, "fig_share": None}
        if draw:
            who = ", ".join(conds)
            view["fig_box"] = figure_img(
                splots.plot_gap_boxplots(gaps, pair=(a, b), min_per_group=min_per_group),
                f"Boxplots of the gaps {a} vs {b} per size")
            view["fig_var"] = figure_img(
                splots.plot_condition_heatmaps(summary, kind="variance", pair=(a, b)),
                f"Variance heatmaps {a} vs {b}, one per condition: {who}")
            view["fig_mean"] = figure_img(
                splots.plot_condition_heatmaps(summary, kind="mean", pair=(a, b)),
                f"Mean-gap heatmaps {a} vs {b}, one per condition: {who}")
            if "equal_opportunity" in metrics:
                view["fig_share"] = figure_img(
                    splots.plot_group_share(summary, pair=(a, b)),
                    f"Classes by the share of {a}: mean TPR gap {a} vs {b}")
        cols = [("condition", "condition", "text"), ("gap", "metric",
                                                      lambda r: SHORT.get(r["metric"],
                                                                          r["metric"])),
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
            tcols = [("condition", "condition", "text"),
                     ("gap", "metric", lambda r: SHORT.get(r["metric"], r["metric"])),
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
        ccols = [("size", "size", "int"),
                 ("gap", "metric", lambda r: SHORT.get(r["metric"], r["metric"])),
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
                            figures: bool = True, min_per_group: int | None = None) -> str:
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
        The paper's filter (see :func:`fairbound.stability.summarize_gaps`); default: the
        study's own (``run_study(min_per_group=...)``); 0 turns it off.

    Returns
    -------
    str

    Notes
    -----
    Sections: the study's set-up, model scores per size with their accuracy and macro-F1
    boxplots (the paper's Figs. 1-2), and per pair of groups the gap boxplots per size, the
    variance and mean-gap heatmaps of every condition side by side (Fig. 6), the classes by
    the share of group A against the TPR gap (Fig. 7), the summary table with the filtered
    cells and their reason, and the tests between sizes (and between conditions when there
    are several), after Jourdan, Risser, Loubes & Asher (2023).

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
                          min_per_group=min_per_group)
    toc = [{"id": p["id"], "title": p["heading"]} for p in view["pairs"]]
    return render_page(title=title, kicker="fairbound stability study",
                       sections=[render_section("stability.html.j2", s=view)], toc=toc,
                       footer="The full tables are the CSV files of "
                              "'fairbound stability report'.")


def write_stability_report(result, path, *, title: str | None = None,
                           correction: str = "holm", figures: bool = True,
                           min_per_group: int | None = None) -> Path:
    """Write :func:`render_stability_report` to ``path`` (``.html``).

    Parameters
    ----------
    result : StudyResult
        The study.
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
