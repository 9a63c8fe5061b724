"""The HTML audit report: what was audited, what was found, and how sure we are."""

from __future__ import annotations

import functools
import math
import re
import warnings
from pathlib import Path

# SMALL_GROUP: groups with fewer rows in a denominator get a note and a warning
from fairbound._docs import fill
from fairbound._words import (
    A_DISADVANTAGED,
    B_DISADVANTAGED,
    NO_EVIDENCE,
    NO_GAP,
    NOT_ESTIMABLE,
    SMALL_GROUP,
    UNEQUAL,
)
from fairbound.errors import FairboundError
from fairbound.report._common import (
    MORE_DATA_FACTOR,
    NARROW_INCHES,
    NO_FIGURES,
    check_title,
    fci,
    fint,
    fmt_level,
    fnum,
    have_matplotlib,
    need_phrase,
    num,
    render_page,
    render_section,
    try_figure,
    try_narrow,
    unreachable,
    write_html,
)
from fairbound.viz.audit import audit_dict, comparison_label, group_rate_rows

GAP_VERDICTS = (A_DISADVANTAGED, B_DISADVANTAGED, UNEQUAL)
FOREST_ROWS = 150  # more rows make an unreadable figure; the table keeps every comparison

# What each guarantee class promises and what it does not, in plain words.
GUARANTEES = {
    "finite-sample": (
        "The interval covers the true gap with at least the stated probability at every "
        "sample size, provided its assumptions hold: the rows are independent draws from the "
        "population audited and costs lie in [0, C]{share_clause}.",
        "It is conservative, so real gaps need more data to show. It covers sampling error "
        "only: a non-representative sample, wrong group labels or noisy annotation are not "
        "accounted for.",
    ),
    "asymptotic": (
        "Coverage close to the stated level when the rows are independent draws from the "
        "population audited and every group has enough rows in the metric's denominator (as "
        "a rule of thumb at least 30, with several events of each kind).",
        "Coverage is approximate: for small groups or rates near 0 or 1 it can fall below the "
        "stated level. It covers sampling error only: a non-representative sample, wrong group "
        "labels or noisy annotation are not accounted for.",
    ),
    "bayesian": (
        "A credible interval: under uniform Beta(1, 1) priors on each group's rate, the gap "
        "lies in the interval with the stated posterior probability.",
        "It is not a frequentist coverage guarantee, and for small groups it depends on the "
        "prior. It covers sampling error only.",
    ),
    "resampling": (
        "Bootstrap coverage approaches the stated level as groups grow; resampling respects "
        "the range of the rates.",
        "There is no finite-sample guarantee: small groups or rates near 0 or 1 can "
        "under-cover. It covers sampling error only.",
    ),
}


def _v(x) -> str:
    """A group or class value as text (JSON null is shown as 'missing')."""
    return "missing" if x is None else str(x)


# ----------------------------------------------------------------------------- wording

#: Verdicts whose sentence names a group that bears the cost.
DISADVANTAGED = (A_DISADVANTAGED, B_DISADVANTAGED)
SMALL_SHARE = 0.2  # below this share of a comparison (or SMALL_GROUP rows) a group is "tiny"
_UNKNOWN = object()
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COND = re.compile(r"\b(y_hat|y)\s*(!=|=)\s*\{k\}")


def _get(result, key, default=None):
    if result is None:
        return default
    if isinstance(result, dict):
        return result.get(key, default)
    return getattr(result, key, default)


def sentence_context(result=None) -> dict:
    """What a sentence needs from the whole audit: columns, positive class, favourable side.

    Parameters
    ----------
    result : AuditResult, dict or None
        The audit (live or its ``"fairbound.audit/1"`` dictionary).  ``None`` gives an
        empty context: sentences then use generic words ("label", "prediction") and read
        the favourable side off the verdict.

    Returns
    -------
    dict
    """
    if result is None:
        return {"known": False}
    cols = _get(result, "columns") or {}
    positive = _get(result, "positive")
    task = _get(result, "task")
    return {
        "known": True,
        "label": cols.get("label"), "prediction": cols.get("prediction"),
        "cost": cols.get("cost"),
        "positive": positive if (positive is not None or task == "binary") else _UNKNOWN,
        "task": task,
        "favourable": _get(result, "favourable", "positive"),
        "comparison": _get(result, "comparison"),
    }


def _ctx_of(result) -> dict:
    if isinstance(result, dict) and "known" in result:
        return result  # already a context
    return sentence_context(result)


def _is_column(name: str) -> bool:
    return bool(_IDENT.fullmatch(name))


def _cond(col, k, negate: bool, role: str) -> str:
    """``two_year_recid != 1``, ``score >= 0.5``, ``not (score >= 0.5)``, ``a positive label``."""
    if k is _UNKNOWN:
        if role == "prediction":
            return "a positive prediction"
        return f"a {'negative' if negate else 'positive'} label"
    col = col or role
    if _is_column(col):
        return f"{col} {'!=' if negate else '='} {_v(k)}"
    if k is True or (not isinstance(k, str) and k == 1):  # a 0/1 expression: its truth
        return f"not ({col})" if negate else col
    return f"({col}) {'!=' if negate else '='} {_v(k)}"


def _k(c: dict, ctx: dict):
    if c.get("class") is not None:
        return c["class"]
    return ctx.get("positive", _UNKNOWN) if ctx.get("known") else _UNKNOWN


def _component(c: dict):
    from fairbound.metrics import get_metric

    try:
        comps = get_metric(c["metric"]).components
    except FairboundError:  # a metric of another fairbound version
        return None
    return next((p for p in comps if p.name == c["component"]), None)


def rows_phrase(c: dict, result=None) -> str:
    """The rows a comparison's rate is computed on, in the audit's own column names.

    Built from the metric component's denominator text (``"rows with y != {k}"``), with
    ``y`` / ``y_hat`` replaced by the label / prediction column and ``k`` by the class.

    Examples
    --------
    >>> c = {"metric": "false_positive_rate", "component": "fpr", "class": None}
    >>> rows_phrase(c, {"columns": {"label": "two_year_recid", "prediction": "p"},
    ...                 "positive": 1, "task": "binary"})
    'rows with two_year_recid != 1'
    """
    ctx = _ctx_of(result)
    comp = _component(c)
    if comp is None:
        return "rows"
    k = _k(c, ctx)
    text = comp.denominator
    exprs = []

    def sub(m):
        role = "prediction" if m.group(1) == "y_hat" else "label"
        col = ctx.get(role) if ctx.get("known") else None
        out = _cond(col, k, m.group(2) == "!=", role)
        if k is not _UNKNOWN and col and not _is_column(col):
            exprs.append(out)
        return out

    text = _COND.sub(sub, text)
    if exprs and text.startswith("rows with "):
        text = "rows where " + text[len("rows with "):]
    return text


def positive_phrase(c: dict | None, result=None) -> str:
    """``predicted positive (score_text != 'Low')``: the positive prediction in words."""
    ctx = _ctx_of(result)
    k = _k(c or {}, ctx)
    col = ctx.get("prediction") if ctx.get("known") else None
    if k is _UNKNOWN:
        return "predicted positive"
    return f"predicted positive ({_cond(col, k, False, 'prediction')})"


def _pct(x) -> str:
    v = num(x)
    return "-" if not math.isfinite(v) else f"{v:.1%}"


def _rate_text(c: dict, x) -> str:
    return fnum(x) if c["component"] == "cost" else _pct(x)


def _group(x, ctx) -> str:
    if x == "rest" and ctx.get("comparison") == "vs-rest":
        return "the rest (all other groups)"
    return _v(x)


def comparison_level(c: dict) -> float:
    """The level the comparison's own interval is at (joint level for ``max`` rows)."""
    il = num(c.get("interval_level", c.get("confidence_level")))
    if c.get("component") == "max":
        from fairbound.metrics import get_metric

        try:
            k = len(get_metric(c["metric"]).components)
        except FairboundError:
            k = 2
        il = max(1.0 - k * (1.0 - il), 0.0)
    return il


def _ci(lo, hi) -> str:
    return f"[{fnum(lo, signed=True)}, {fnum(hi, signed=True)}]"


def _favourable(c: dict, ctx: dict, more_event: bool | None) -> str | None:
    """'positive' / 'negative' from the audit, or read off a verdict's direction."""
    if ctx.get("known") and ctx.get("favourable") in ("positive", "negative"):
        return ctx["favourable"]
    if more_event is None:
        return None
    # the registry turns costs round for a harmful positive class, so the group that bears
    # the cost gets the positive prediction more often exactly when it is harmful
    return "negative" if more_event else "positive"


def _verdict_sentence(c: dict, ctx: dict, label: str, lvl: str) -> str:
    a_side = c["verdict"] == A_DISADVANTAGED
    dis, oth = ("a", "b") if a_side else ("b", "a")
    g_dis, g_oth = _group(c[f"group_{dis}"], ctx), _group(c[f"group_{oth}"], ctx)
    r_dis, r_oth = num(c[f"rate_{dis}"]), num(c[f"rate_{oth}"])
    if a_side:
        diff, lo, hi = num(c["rate_gap"]), num(c["rate_gap_low"]), num(c["rate_gap_high"])
    else:
        diff, lo, hi = -num(c["rate_gap"]), -num(c["rate_gap_high"]), -num(c["rate_gap_low"])
    numbers = (f"{c['rate']} {_rate_text(c, r_dis)} vs {_rate_text(c, r_oth)} for {g_oth} "
               f"(difference {fnum(diff, signed=True)}, {lvl} CI {_ci(lo, hi)})")
    head = f"{g_dis} is disadvantaged on {label}: "
    comp, rows = c["component"], rows_phrase(c, ctx)
    its = "its rows" if rows == "all rows" else f"its {rows}"
    if comp in ("selection_rate", "tpr", "fpr", "fnr"):
        # share predicted positive: the rate itself, or 1 - FNR
        p_dis, p_oth = (r_dis, r_oth) if comp != "fnr" else (1 - r_dis, 1 - r_oth)
        more = p_dis > p_oth
        fav = _favourable(c, ctx, more)
        side = {"negative": ", the harmful outcome", "positive": ", the favourable outcome"}
        body = (f"{its} are {'more' if more else 'less'} often {positive_phrase(c, ctx)}"
                f"{side.get(fav, '')}: {numbers}")
    elif comp == "precision":
        fav = _favourable(c, ctx, r_dis < r_oth)
        k = _k(c, ctx)
        truth = "" if k is _UNKNOWN else " (" + _cond(
            ctx.get("label") if ctx.get("known") else None, k, False, "label") + ")"
        # the rows are the component's denominator: those predicted positive
        pred = f"its rows {positive_phrase(c, ctx)}"
        if fav == "negative":
            body = (f"{pred}, the harmful outcome, are "
                    f"{'less' if r_dis < r_oth else 'more'} often truly positive{truth}, "
                    f"so the harmful prediction is more often wrong for {g_dis}: {numbers}")
        else:
            body = (f"{pred}, the favourable outcome, are "
                    f"{'more' if r_dis > r_oth else 'less'} often truly positive{truth}, "
                    f"so {g_dis} is held to a stricter standard to get it: {numbers}")
    elif comp == "accuracy":
        body = f"{its} are less often predicted correctly: {numbers}"
    elif comp == "cost":
        col = ctx.get("cost") if ctx.get("known") else None
        body = f"{its} bear a higher mean cost{f' ({col})' if col else ''}: {numbers}"
    else:
        body = numbers
    tol = num(c.get("tolerance"))
    if math.isfinite(tol) and -tol < lo and hi < tol:
        body += (f"; the whole interval lies within +/-{tol:g}, so the gap, though real, is "
                 "smaller than the tolerance")
    return head + body + "."


@functools.lru_cache(maxsize=4096)
def _detectable(method: str, n_a: float, n_b: float, rate_b: float, sign: float,
                level: float, factor: float) -> float:
    from fairbound.planning.power import minimum_detectable_gap
    from fairbound.stats import get_method
    from fairbound.stats.base import GroupStats

    m = get_method(method)
    target = factor * (n_a + n_b)
    g_max = (1.0 - rate_b) if sign > 0 else rate_b
    if not g_max > 0:
        return math.nan
    if m.required_n is None:  # no planner of its own: the power planner at 50% power
        try:
            r = minimum_detectable_gap(method, n_total=int(round(target)), power=0.5,
                                       rate_b=rate_b if sign > 0 else 1.0 - rate_b,
                                       share=n_a / (n_a + n_b), confidence_level=level)
        except FairboundError:
            return math.nan
        return r.gap if math.isfinite(r.gap) else math.nan

    def need(g: float) -> float:
        r_a = rate_b + sign * g
        a = GroupStats(n=n_a, total=n_a * r_a, total_sq=n_a * r_a, binary=True)
        b = GroupStats(n=n_b, total=n_b * rate_b, total_sq=n_b * rate_b, binary=True)
        return float(m.required_n(a, b, level))

    if not need(g_max) <= target:
        return math.nan
    lo, hi = 0.0, g_max
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if need(mid) <= target:
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-6:
            break
    return hi


def detectable_gap(c: dict, factor: float = MORE_DATA_FACTOR) -> float:
    """The smallest gap ``factor`` times a comparison's rows could show, on the rate scale.

    The same planning as "n needed" (:func:`fairbound.audits.required_total_n`): group B's
    rate and both groups' shares stay as observed, and the gap is the smallest at which
    the comparison's own method would plan ``factor * (n_A + n_B)`` examples (its planner,
    or :func:`fairbound.planning.power.minimum_detectable_gap` at 50% power for a method
    without one), so the interval would exclude 0 about half the time.  NaN for per-row
    costs, a row without both groups, or when no gap in range would be shown.

    Examples
    --------
    >>> c = {"component": "precision", "method": "exact", "n_a": 15, "n_b": 2830,
    ...      "rate_a": 0.6, "rate_b": 0.601, "rate_gap": -0.001,
    ...      "interval_level": 0.9979}
    >>> round(detectable_gap(c), 2)
    0.16
    """
    if c.get("component") in ("max", "cost"):
        return math.nan
    na, nb, rb = num(c.get("n_a")), num(c.get("n_b")), num(c.get("rate_b"))
    gap, level = num(c.get("rate_gap")), num(c.get("interval_level"))
    if not (na > 0 and nb > 0 and 0 <= rb <= 1 and math.isfinite(gap) and 0 < level < 1):
        return math.nan
    try:
        return _detectable(str(c.get("method")), float(na), float(nb), float(rb),
                           1.0 if gap >= 0 else -1.0, float(level), float(factor))
    except (FairboundError, ValueError, ZeroDivisionError):
        return math.nan


def _need_clause(c: dict, ctx: dict) -> str:
    need = num(c.get("required_n"))
    na, nb = num(c.get("n_a")), num(c.get("n_b"))
    total = (na if math.isfinite(na) else 0) + (nb if math.isfinite(nb) else 0)
    if math.isfinite(need):
        if need <= total:  # never a number below what is already there
            return ("; the observed gap is at the edge of what these data can resolve (the "
                    "method's plan at this gap is already met)")
        if unreachable(need, total):
            return "; " + need_phrase(need, total, "", smallest_gap=detectable_gap(c))
        out = (f"; about {math.ceil(need - total):,.0f} more annotated examples would be "
               "needed at the observed gap")
        if math.isfinite(na) and math.isfinite(nb) and total > 0:
            side = "a" if na <= nb else "b"
            n_s = na if side == "a" else nb
            if n_s / total < SMALL_SHARE or n_s < SMALL_GROUP:
                extra = math.ceil(need * n_s / total - n_s)
                out += (f" (about {extra:,.0f} more in group "
                        f"{_group(c[f'group_{side}'], ctx)} at the current shares)")
        return out
    if c.get("required_n") is None and num(c.get("rate_gap")) == 0:
        return "; the observed gap is 0, so no sample size would show a gap"
    return ""  # no planned n (NaN): no number


def _parity_clause(c: dict) -> str:
    tol = num(c.get("tolerance"))
    if not math.isfinite(tol):
        return ""
    parity = num(c.get("required_n_parity"))
    if math.isfinite(parity):
        return (f"; about {parity:,.0f} examples in all would show parity (a gap within "
                f"+/-{tol:g}) if the observed gap were the truth")
    if abs(num(c.get("rate_gap"))) >= tol:
        return (f"; no sample size can show parity: the observed gap is outside the "
                f"+/-{tol:g} band")
    return ""


@fill
def comparison_sentence(c: dict, *, pair: bool = False, result=None) -> str:
    """One plain-language sentence for a comparison of an audit's JSON.

    The wording is that of :meth:`fairbound.audits.Comparison.summary`, so a report rendered
    from a saved JSON file reads exactly like one rendered from the live result.  A verdict
    names the group that bears the cost and says how: which rows (the metric's denominator,
    in the audit's column names), whether they get the positive prediction more or less
    often, and whether that prediction is favourable or harmful.  Each interval is labelled
    with the level it is at (``interval_level``).

    Parameters
    ----------
    c : dict
        One entry of the ``"comparisons"`` list of a ``"fairbound.audit/1"`` dictionary.
    pair : bool
        Kept for compatibility: verdict sentences now always name both groups.
    result : AuditResult or dict, optional
        The whole audit (or :func:`sentence_context` of it): gives the label and prediction
        columns, the positive class and the favourable side.  Without it the sentence uses
        generic words and reads the favourable side off the verdict.

    Returns
    -------
    str

    {{toy_examples}}
    >>> res = audit(df, group="g", label="y", prediction="p", metrics="equal_opportunity")
    >>> comparison_sentence(res.to_dict()["comparisons"][0]) == res.comparisons[0].summary()
    True
    """
    del pair
    ctx = _ctx_of(result)
    lvl = fmt_level(comparison_level(c))
    ga, gb, label = _group(c["group_a"], ctx), _group(c["group_b"], ctx), comparison_label(c)
    if c["verdict"] == NOT_ESTIMABLE:
        return f"{label}, {ga} vs {gb}: not estimable ({c['note']})."
    if c["component"] == "max":
        return (f"{label}, {ga} vs {gb}: largest |gap| {num(c['estimate']):.3f}, "
                f"{lvl} CI [{num(c['low']):.3f}, {num(c['high']):.3f}] ({c['verdict']}).")
    if c["verdict"] in DISADVANTAGED:
        return _verdict_sentence(c, ctx, label, lvl)
    numbers = (f"{c['rate']} {_rate_text(c, c['rate_a'])} vs {_rate_text(c, c['rate_b'])}; "
               f"gap {fnum(c['rate_gap'], signed=True)}, {lvl} CI "
               f"{_ci(c['rate_gap_low'], c['rate_gap_high'])}")
    if c["verdict"] == NO_GAP:
        return (f"No meaningful gap on {label} ({ga} vs {gb}): gap within "
                f"+/-{num(c.get('tolerance')):g}: {numbers}.")
    if c["verdict"] == UNEQUAL:
        return f"{label}, {ga} vs {gb}: unequal: {numbers}."
    return (f"Not enough evidence on {label} ({ga} vs {gb}): {numbers}"
            f"{_need_clause(c, ctx)}{_parity_clause(c)}.")


def far_sentence(c: dict, result=None) -> str:
    """A short line for a comparison whose "n needed" is out of reach (see :func:`need_phrase`).

    Examples
    --------
    >>> c = {"metric": "predictive_parity", "component": "precision", "rate": "precision",
    ...      "class": None, "group_a": "Amer-Indian-Eskimo", "group_b": "White",
    ...      "rate_gap": -0.001, "rate_gap_low": -0.383, "rate_gap_high": 0.232,
    ...      "interval_level": 0.9979, "required_n": 451245094.0, "n_a": 15, "n_b": 2830,
    ...      "rate_a": 0.733, "rate_b": 0.734, "method": "exact",
    ...      "verdict": "not enough evidence"}
    >>> print(far_sentence(c))  # doctest: +NORMALIZE_WHITESPACE
    predictive_parity, Amer-Indian-Eskimo vs White: gap -0.001, 99.79% CI [-0.383, +0.232];
    not reachable with data like this (it would take over 100 times the 2,845 annotated
    examples compared); 10 times as many (28,450) could show a gap of 0.156 or more.
    """
    ctx = _ctx_of(result)
    total = num(c.get("n_a")) + num(c.get("n_b"))
    return (f"{comparison_label(c)}, {_group(c['group_a'], ctx)} vs "
            f"{_group(c['group_b'], ctx)}: gap {fnum(c['rate_gap'], signed=True)}, "
            f"{fmt_level(comparison_level(c))} CI {_ci(c['rate_gap_low'], c['rate_gap_high'])}; "
            f"{need_phrase(c.get('required_n'), total, '', smallest_gap=detectable_gap(c))}.")


def _verdict_text(c: dict) -> tuple[str, str]:
    if c["verdict"] in DISADVANTAGED:
        return f"{_v(c['disadvantaged'])} disadvantaged", "bad"
    if c["verdict"] == UNEQUAL:
        return UNEQUAL, "bad"
    if c["verdict"] == NOT_ESTIMABLE:
        return NOT_ESTIMABLE, "na"
    if c["verdict"] == NO_GAP:
        return NO_GAP, "ok"
    return NO_EVIDENCE, "warn"


def reference_words(d: dict) -> str:
    """``the reference group White`` / ``the rest (all other groups)`` / ``""`` (pairwise)."""
    if d.get("comparison") == "vs-reference" and d.get("reference") is not None:
        return f"the reference group {_v(d['reference'])}"
    if d.get("comparison") == "vs-rest":
        return "the rest (all other groups)"
    return ""


def _heading(d: dict) -> str:
    cols = " & ".join(d["columns"].get("group") or ["group"])
    head = f"Audit by {cols}"
    if d.get("comparison") == "vs-reference" and d.get("reference") is not None:
        head += f" (reference group: {d['reference']})"
    elif d.get("comparison") == "vs-rest":
        head += " (each group vs the rest)"
    return head


def interval_levels(d: dict) -> list[float]:
    """The distinct levels of the audit's (non-``max``) intervals, highest first."""
    return sorted({round(num(c.get("interval_level", c.get("confidence_level"))), 12)
                   for c in d["comparisons"] if c["component"] != "max"
                   and c["verdict"] != NOT_ESTIMABLE}, reverse=True)


def interval_level_text(d: dict) -> str:
    """``99.83%`` when every interval is at one level, else ``97.5% or 95%``."""
    levels = interval_levels(d)
    if not levels:
        return fmt_level(d["confidence_level"])
    return " or ".join(fmt_level(x) for x in levels)


def error_control_sentence(d: dict) -> str:
    """Which error the verdicts control, over how many comparisons, at what level.

    Examples
    --------
    The level of each interval is read from the comparisons (the audit set it, through
    :mod:`fairbound.audits.control`); a report never computes one:

    >>> row = {"component": "tpr", "verdict": "A disadvantaged", "interval_level": 1 - 0.05 / 30}
    >>> print(error_control_sentence({"error_control": "family", "n_tests": 30,
    ...     "confidence_level": 0.95, "comparisons": [row]}))  # doctest: +NORMALIZE_WHITESPACE
    Verdicts control the family-wise error over 30 comparisons at 95%
    (Bonferroni: each interval at 99.83%).
    """
    control = d.get("error_control", "none")
    m = int(num(d.get("n_tests", 0)) or 0)
    cl = num(d["confidence_level"])
    fam, alpha = fmt_level(cl), fmt_level(1 - cl)
    levels = interval_levels(d)
    if m == 0:
        return "No comparison could be estimated, so no verdict is made."
    return _error_control_core(d, control, m, cl, fam, alpha, levels) + _summary_rows_note(d)


def summary_rows(d: dict) -> list[dict]:
    """The ``max |gap|`` rows: summaries of a multi-part metric, not separate tests."""
    return [c for c in d["comparisons"] if c.get("component") == "max"]


def tested_rows(d: dict) -> list[dict]:
    """The comparisons the error control counts: estimable, and not ``max |gap|`` rows."""
    return [c for c in d["comparisons"] if c.get("component") != "max"
            and c["verdict"] != NOT_ESTIMABLE]


def _summary_rows_note(d: dict) -> str:
    k = len(summary_rows(d))
    if not k:
        return ""
    rows = "row" if k == 1 else "rows"
    return (f" The {k} summary {rows} giving the largest absolute gap of a multi-part metric "
            f"(at {'its' if k == 1 else 'their'} own joint level) {'is' if k == 1 else 'are'} "
            "not counted: each holds jointly for its parts.")


def _error_control_core(d, control, m, cl, fam, alpha, levels) -> str:
    if control == "family":
        # the level the intervals are at (fairbound.audits.control set it); a report reads
        # it from the rows and never computes one
        each = fmt_level(levels[0]) if levels else fam
        if m == 1:
            return f"This audit makes a single comparison, at {fam}."
        return (f"Verdicts control the family-wise error over {m} comparisons at {fam} "
                f"(Bonferroni: each interval at {each}).")
    if control == "fdr":
        each = " or ".join(fmt_level(x) for x in levels) or fam
        return (f"Verdicts control the false discovery rate over {m} comparisons at {alpha} "
                f"(Benjamini-Hochberg): on average at most {alpha} of the gaps claimed are "
                f"false. Intervals are Benjamini-Yekutieli false-coverage-rate intervals, "
                f"each at {each}.")
    parts = [x for x in levels if x > cl + 1e-12]
    joint = (f" (the parts of a multi-part metric are adjusted together, each at "
             f"{' or '.join(fmt_level(x) for x in parts)})") if parts else ""
    if m == 1:
        return f"This audit makes a single comparison, at {fam}{joint}."
    return (f"No correction across comparisons: each of the {m} comparisons is at {fam} on "
            f"its own{joint}; even with no gap anywhere, about {m * (1 - cl):.1f} intervals "
            "would exclude 0 by chance. Use error_control='family' or 'fdr' for verdicts "
            "that hold together.")


def favourable_sentence(d: dict) -> str:
    """Whether the positive prediction is favourable or harmful, in the audit's words.

    Examples
    --------
    >>> print(favourable_sentence({"task": "binary", "positive": 1, "favourable": "negative",
    ...     "columns": {"prediction": "score_text != 'Low'"}}))  # doctest: +NORMALIZE_WHITESPACE
    Positive prediction (score_text != 'Low') treated as harmful: the group that gets it
    more often bears the cost.
    """
    if d.get("task") == "cost" or not (d.get("columns") or {}).get("prediction"):
        return "Per-row costs: the group with the higher mean cost bears the cost."
    ctx = sentence_context(d)
    if d.get("task") == "multiclass" and d.get("positive") is None:
        what = f"{ctx['prediction']} = k, for each class k"
    else:
        what = _cond(ctx["prediction"], ctx["positive"], False, "prediction")
    if d.get("favourable", "positive") == "negative":
        return (f"Positive prediction ({what}) treated as harmful: the group that gets it "
                "more often bears the cost.")
    return (f"Positive prediction ({what}) treated as favourable: the group that gets it "
            "less often bears the cost.")


def bearer_phrase(d: dict) -> str:
    """Who bears the cost, for figure captions."""
    if d.get("task") == "cost" or not (d.get("columns") or {}).get("prediction"):
        return "the group with the higher mean cost"
    if d.get("favourable", "positive") == "negative":
        return "with the positive prediction harmful, the group predicted positive more often"
    return "with the positive prediction favourable, the group predicted positive less often"


def tolerance_sentence(d: dict) -> str:
    """The tolerance band in words (empty without one).

    Examples
    --------
    >>> print(tolerance_sentence({"tolerance": 0.02}))  # doctest: +NORMALIZE_WHITESPACE
    Tolerance +/-0.02 on the rate scale: a gap whose whole interval lies within it gets the
    verdict "no meaningful gap".
    """
    tol = num(d.get("tolerance"))
    if not math.isfinite(tol):
        return ""
    return (f"Tolerance +/-{tol:g} on the rate scale: a gap whose whole interval lies within "
            "it gets the verdict \"no meaningful gap\".")


def _facts(d: dict) -> list[tuple[str, str]]:
    cols = d["columns"]
    used = [f"group: {', '.join(cols.get('group') or [])}"]
    for k in ("label", "prediction", "cost"):
        if cols.get(k):
            used.append(f"{k}: {cols[k]}")
    excluded = ", ".join(f"{int(v):,} ({k})" for k, v in d["excluded"].items()) or "none"
    annotated = sum(int(g["rows"]) for g in d["groups"])
    if d["task"] == "binary":
        task = f"binary labels, positive class {_v(d['positive'])}"
    elif d["task"] == "multiclass":
        task = (f"multi-class labels ({', '.join(_v(c) for c in d['classes'])}); every metric "
                "is reported per class, one class against the others")
    else:
        task = "per-row costs"
    comparison = {"pairwise": "every pair of groups",
                  "vs-rest": "each group against all other rows",
                  "vs-reference": f"each group against the reference group "
                                  f"{_v(d['reference'])}"}.get(d["comparison"], d["comparison"])
    ran = sorted({c["method"] for c in d["comparisons"] if c["component"] != "max"
                  and c["verdict"] != NOT_ESTIMABLE} - {d["method"]})
    method = f"{d['method']} ({d['guarantee']})" + (f"; ran: {', '.join(ran)}" if ran else "")
    kind = {"family": "family-wise", "fdr": "false discovery rate",
            "none": "per comparison"}.get(d.get("error_control", "none"), "")
    facts = [
        ("Data source", str(d["source"])),
        ("Read by", str(d["engine"])),
        ("Columns", "; ".join(used)),
        ("Rows scanned", f"{int(d['n_rows']):,}"),
        ("Rows excluded", excluded),
        ("Rows in groups", f"{annotated:,} in {len(d['groups'])} groups"),
        ("Task", task),
        ("Favourable outcome", favourable_sentence(d)),
        ("Metrics", ", ".join(d["metrics"])),
        ("Comparisons", comparison),
        ("Interval method", method),
        ("Confidence level", f"{fmt_level(d['confidence_level'])} ({kind}); intervals at "
                             f"{interval_level_text(d)}"),
        ("Error control", error_control_sentence(d)),
    ]
    if tolerance_sentence(d):
        facts.append(("Tolerance", tolerance_sentence(d).removeprefix("Tolerance ")))
    facts += [
        ("Seed", str(d["seed"])),
        ("fairbound version", str(d["fairbound_version"])),
        ("Audit run at", str(d["created"]).replace("T", " ").replace("Z", " UTC")),
    ]
    return facts


def _method_info(name: str) -> tuple[str, str]:
    try:
        from fairbound.stats import get_method

        m = get_method(name)
        return m.summary, m.reference
    except FairboundError:  # a method of another fairbound version
        return "", ""


def cost_direction(d: dict) -> str:
    """Who bears the cost of each rate, for the audit's favourable side."""
    if d.get("favourable", "positive") == "negative":
        return ("With the positive prediction treated as harmful, a group bears the cost when "
                "it is predicted positive more often (a higher selection rate, TPR or FPR, a "
                "lower FNR), when its positive predictions are more often wrong (a lower "
                "precision), or when it is less accurate.")
    return ("With the positive prediction treated as favourable, a group bears the cost when "
            "it is predicted positive less often (a lower selection rate, TPR or FPR, a "
            "higher FNR), when its positive predictions must be more often right to be made "
            "(a higher precision: a stricter standard), or when it is less accurate.")


def normalise_audit(d: dict) -> dict:
    """Fill the fields a file written by an older fairbound lacks (a copy; others unchanged).

    Files from before error control was recorded had each comparison at the stated level,
    with only a metric's parts adjusted together: that is ``error_control="none"``.
    """
    if all(k in d for k in ("error_control", "n_tests", "favourable", "tolerance")) and all(
            "tolerance" in c and "required_n_parity" in c for c in d["comparisons"]):
        return d
    d = dict(d)
    comps = [dict(c) for c in d["comparisons"]]
    for c in comps:
        c.setdefault("tolerance", None)
        c.setdefault("required_n_parity", None)
    d["comparisons"] = comps
    d.setdefault("error_control", "none")
    d.setdefault("n_tests", sum(1 for c in comps if c["component"] != "max"
                                and c["verdict"] != NOT_ESTIMABLE))
    d.setdefault("favourable", "positive")
    d.setdefault("tolerance", None)
    return d


def audit_view(result, *, index: int = 1, figures: bool = True) -> dict:
    """Everything the audit section template shows, as escaped-later plain values.

    Parameters
    ----------
    result : AuditResult, dict or path
        The audit.
    index : int
        Position in the report (for anchors).
    figures : bool
        Draw the figures (needs matplotlib).

    Returns
    -------
    dict
    """
    from fairbound.planning import plan_bbu

    d = normalise_audit(audit_dict(result))
    ctx = sentence_context(d)
    comps = d["comparisons"]
    level = fmt_level(d["confidence_level"])
    levels = interval_levels(d)
    ilevel = levels[0] if len(levels) == 1 else num(d["confidence_level"])
    total = sum(int(g["rows"]) for g in d["groups"])
    tolerance = num(d.get("tolerance"))
    rows = []
    for c in comps:
        verdict, cls = _verdict_text(c)
        rate = c["rate"] if c.get("class") is None else f"{c['rate']} (k={_v(c['class'])})"
        if c["component"] == "max":
            gap, ci = fnum(c["estimate"]), fci(c["low"], c["high"])
        else:
            gap = fnum(c["rate_gap"], signed=True)
            ci = fci(c["rate_gap_low"], c["rate_gap_high"], signed=True)
        rows.append({
            "metric": c["metric"], "rate": rate, "group_a": _v(c["group_a"]),
            "group_b": _v(c["group_b"]), "n_a": fint(c["n_a"]), "n_b": fint(c["n_b"]),
            "rate_a": fnum(c["rate_a"]), "rate_b": fnum(c["rate_b"]), "gap": gap, "ci": ci,
            "level": "-" if c["verdict"] == NOT_ESTIMABLE else fmt_level(comparison_level(c)),
            "verdict": verdict, "cls": cls, "note": c.get("note") or "",
            "need": need_cell(c), "parity": parity_cell(c),
        })
    # Findings: evidence first, then the open questions ordered by how close they are.
    # Counts are over the comparisons the error control counts (tested_rows); the max |gap|
    # summary rows and the rows that could not be estimated are counted apart.
    tested = [c for c in comps if c.get("component") != "max"]
    gap_c = [c for c in tested if c["verdict"] in GAP_VERDICTS]
    ok_c = [c for c in tested if c["verdict"] == NO_GAP]
    open_c = sorted((c for c in tested if c["verdict"] == NO_EVIDENCE),
                    key=lambda c: num(c.get("required_n")) if c.get("required_n") is not None
                    else math.inf)
    na_c = [c for c in tested if c["verdict"] == NOT_ESTIMABLE]
    far_c = [c for c in open_c if unreachable(c.get("required_n"),
                                              num(c.get("n_a")) + num(c.get("n_b")))]
    near_c = [c for c in open_c if c not in far_c]
    max_c = summary_rows(d)
    rates = [{"rate": r["rate"] if r["class"] is None else f"{r['rate']} (k={_v(r['class'])})",
              "group": _v(r["group"]), "n": fint(r["n"]), "value": fnum(r["value"]),
              "ci": fci(r["low"], r["high"])}
             for r in group_rate_rows(d)]
    summary, reference = _method_info(d["method"])
    yes, no = GUARANTEES.get(d["guarantee"], ("", ""))
    yes = yes.replace("{share_clause}", _share_clause(
        {c["method"] for c in comps if c["verdict"] != NOT_ESTIMABLE} or {d["method"]}))
    view = {
        "id": f"audit-{index}", "heading": _heading(d), "facts": _facts(d),
        "groups": [{"group": _v(g["group"]), "rows": f"{int(g['rows']):,}",
                    "share": f"{int(g['rows']) / total:.1%}" if total else "-"}
                   for g in d["groups"]],
        "n_comparisons": len(comps), "n_tested": len(gap_c) + len(ok_c) + len(open_c),
        "n_gap": len(gap_c), "n_ok": len(ok_c), "n_open": len(open_c), "n_na": len(na_c),
        "n_far": len(far_c), "n_summary": len(max_c),
        "summary_metrics": ", ".join(dict.fromkeys(c["metric"] for c in max_c)),
        "findings_gap": [comparison_sentence(c, result=ctx) for c in gap_c],
        "findings_ok": [comparison_sentence(c, result=ctx) for c in ok_c],
        "findings_open": [comparison_sentence(c, result=ctx) for c in near_c],
        "findings_far": [far_sentence(c, result=ctx) for c in far_c],
        "findings_na": [comparison_sentence(c, result=ctx) for c in na_c],
        "findings_max": [comparison_sentence(c, result=ctx) for c in max_c],
        "reference": reference_words(d), "more_factor": MORE_DATA_FACTOR,
        "level": level, "interval_level": interval_level_text(d),
        "error_control": error_control_sentence(d),
        "favourable": favourable_sentence(d), "cost_direction": cost_direction(d),
        "bearer": bearer_phrase(d),
        "tolerance": f"{tolerance:g}" if math.isfinite(tolerance) else "",
        "method": d["method"], "guarantee": d["guarantee"],
        "method_ran": ", ".join(sorted({c["method"] for c in comps
                                        if c["verdict"] != NOT_ESTIMABLE})) or d["method"],
        "method_summary": summary, "method_reference": reference,
        "guarantee_yes": yes, "guarantee_no": no,
        "rows": rows, "rates": rates, "no_figures": NO_FIGURES,
        "fig_forest": None, "fig_rates": None, "fig_n": None, "plan_sentence": "",
        "forest_note": "",
    }
    if total > 0 and 0 < ilevel < 1:
        p = plan_bbu(n=total, confidence_level=ilevel)
        if math.isfinite(p.bias_rounded_up) and p.bias_rounded_up <= 1:
            view["plan_sentence"] = (
                f"With the {total:,} annotated rows here, the distribution-free Bernstein "
                f"bound (balanced groups, worst-case variance, Ethayarajh 2020) can only "
                f"claim gaps of {p.bias_rounded_up:.4f} or more at {fmt_level(ilevel)}; "
                "unbalanced groups need more.")
        else:
            view["plan_sentence"] = (
                f"With only {total:,} annotated rows, the distribution-free Bernstein bound "
                f"(balanced groups, worst-case variance, Ethayarajh 2020) cannot claim any "
                f"gap at {fmt_level(ilevel)}.")
    if figures and have_matplotlib():
        from fairbound.viz.audit import plot_forest, plot_group_rates, plot_sample_size

        shown = min(len(comps), FOREST_ROWS)
        def forest():
            fig = plot_forest(d, max_rows=FOREST_ROWS)
            if view["reference"]:
                from fairbound.viz.audit import text_safe

                fig.axes[0].set_title(text_safe("B = " + view["reference"]), loc="left",
                                      fontsize=8.5)
            return fig

        def forest_narrow():  # for phones: "B = White" above, so rows name group A only
            fig = forest()
            ax = fig.axes[0]
            if d.get("comparison") == "vs-reference" and d.get("reference") is not None:
                from fairbound.viz.audit import text_safe

                cut = text_safe(f" vs {_v(d['reference'])}")
                ax.set_yticks(ax.get_yticks(), [t.get_text().replace(cut, "")
                                                for t in ax.get_yticklabels()])
            fig.set_size_inches(NARROW_INCHES, fig.get_size_inches()[1])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # labels too long: tight_layout gives up
                fig.tight_layout()
            return fig

        view["fig_forest"] = try_figure(
            forest,
            f"Forest plot of {shown} gaps with {view['interval_level']} intervals"
            + (f"; group B is {view['reference']}" if view["reference"] else "")
            + f": {len(gap_c)} with a gap, {len(open_c)} not enough evidence",
            narrow=lambda: try_narrow(forest_narrow))
        if shown < len(comps):
            view["forest_note"] = (f"The figure shows {shown} of the {len(comps)} "
                                   "comparisons (every one with a verdict first, then the "
                                   "largest gaps); the table below has them all.")
        view["fig_rates"] = try_figure(
            lambda: plot_group_rates(d), "Per-group rates with Wilson intervals",
            narrow=lambda: try_narrow(lambda: plot_group_rates(d, ncols=1)))
        def n_narrow():
            import matplotlib.figure

            fig = matplotlib.figure.Figure(figsize=(NARROW_INCHES, 5.0), layout="constrained")
            ax = fig.add_subplot()
            plot_sample_size(d, ax=ax)
            old = ax.get_legend()
            if old is not None:  # one column: the two-column legend is wider than a phone
                ax.legend(old.legend_handles, [t.get_text() for t in old.get_texts()],
                          fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16),
                          ncol=1, frameon=False)
            return fig

        view["fig_n"] = try_figure(
            lambda: plot_sample_size(d), "Annotated examples needed versus gap size",
            narrow=lambda: try_narrow(n_narrow))
    return view


#: Methods whose guarantee also assumes each group's population share is at least gamma.
SHARE_METHODS = ("bbu", "bbu-corrected", "hoeffding", "empirical-bernstein")


def _share_clause(methods) -> str:
    """The gamma assumption, only when a method that ran makes it (Bernstein, Hoeffding)."""
    named = sorted(m for m in methods if str(m).split(" ")[0] in SHARE_METHODS)
    if not named:
        return ""
    return (f"; for {', '.join(named)}, both groups' population shares are at least gamma "
            "(and the variance bound holds)")


def need_cell(c: dict) -> str:
    """The "n needed" table cell: the planned total, or why there is none."""
    need = num(c.get("required_n"))
    if math.isfinite(need):
        total = num(c.get("n_a")) + num(c.get("n_b"))
        if c["verdict"] in DISADVANTAGED and need <= total:
            return "reached"  # never a number below what is already there
        if unreachable(need, total):
            return "not reachable"
        return fint(need) if not need <= total else "-"
    if c.get("required_n") is None and num(c.get("rate_gap")) == 0:
        return "none (gap 0)"
    return "-"


def parity_cell(c: dict) -> str:
    """The "n for parity" table cell (only meaningful with a tolerance)."""
    tol = num(c.get("tolerance"))
    if not math.isfinite(tol) or c["component"] == "max":
        return "-"
    parity = num(c.get("required_n_parity"))
    if c["verdict"] == NO_GAP:
        return "reached"
    if math.isfinite(parity):
        return fint(parity)
    if c["verdict"] != NOT_ESTIMABLE and abs(num(c.get("rate_gap"))) >= tol:
        return "none (gap outside band)"
    return "-"


def _validate_results(results, title):
    if results is None:
        raise FairboundError("results: got None; give an AuditResult, a list of them, or "
                             "audit JSON file paths", param="results")
    if isinstance(results, str | Path | dict) or hasattr(results, "comparisons"):
        results = [results]
    try:
        items = list(results)
    except TypeError:
        raise FairboundError(f"results must be an AuditResult or a list of them; got "
                             f"{type(results).__name__}", param="results") from None
    if not items:
        raise FairboundError("results: the list is empty", param="results")
    from fairbound.report.schema import validate_audit_json

    # One-line errors for saved files that do not follow the schema (instead of a KeyError
    # deep in the renderer); extra keys from later versions are accepted.
    dicts = [validate_audit_json(normalise_audit(audit_dict(r)), strict=False) for r in items]
    sources = sorted({str(d["source"]) for d in dicts})
    default = f"Fairness audit of {sources[0]}" if len(sources) == 1 else "Fairness audit"
    return dicts, check_title(title, default)


def render_audit_report(results, *, title: str | None = None, figures: bool = True) -> str:
    """Render one self-contained HTML report for one or more audits.

    Parameters
    ----------
    results : AuditResult, dict, path, or a list of them
        Audits (live results, their ``to_dict()`` form, or JSON files written by
        :meth:`~fairbound.audits.AuditResult.to_json`).
    title : str, optional
        Report title (default: "Fairness audit of <source>").
    figures : bool
        Include the figures (needs matplotlib; without it the report says so and keeps
        every table).

    Returns
    -------
    str
        The HTML page.

    Notes
    -----
    The page inlines its CSS and its figures (SVG data URIs inside ``<img>``), has no
    scripts and a Content-Security-Policy that forbids loading anything, so it opens
    offline in any browser and can be archived or mailed as one file.  Every user-provided
    string (group values, column and file names) is HTML-escaped.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound import audit
    >>> df = pd.DataFrame({"g": ["<b>a</b>"] * 4 + ["b"] * 4, "y": [1, 1, 0, 0] * 2,
    ...                    "p": [1, 1, 0, 1, 1, 0, 0, 0]})
    >>> html = render_audit_report(audit(df, group="g", label="y", prediction="p"),
    ...                            figures=False)
    >>> "&lt;b&gt;a&lt;/b&gt;" in html and "<b>a</b>" not in html
    True
    """
    dicts, title = _validate_results(results, title)
    views = [audit_view(d, index=i + 1, figures=figures) for i, d in enumerate(dicts)]
    sections = [render_section("audit.html.j2", a=v) for v in views]
    toc = [{"id": v["id"], "title": v["heading"]} for v in views]
    return render_page(title=title, kicker="fairbound audit report", sections=sections,
                       toc=toc, footer="The numbers come from the audit results this report "
                       "was rendered from; their machine-readable form is the JSON export "
                       "(schema fairbound.audit/1, AuditResult.to_json) and the Markdown "
                       "export (fairbound.report.to_markdown).")


@fill
def write_audit_report(results, path, title: str | None = None, *,
                       figures: bool = True) -> Path:
    """Write the HTML audit report to ``path``.

    Parameters
    ----------
    results : AuditResult, dict, path, or a list of them
        Audits, as in :func:`render_audit_report`.
    path : str or Path
        Output file (``.html`` or ``.htm``), written atomically.
    title : str, optional
        Report title.
    figures : bool
        Include the figures.

    Returns
    -------
    Path
        The file written.

    {{toy_examples}}
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "report.html"
    >>> write_audit_report([audit(df, group="g", label="y", prediction="p")], out,
    ...                    figures=False).name
    'report.html'
    """
    return write_html(path, render_audit_report, results, title=title, figures=figures)


__all__ = ["GUARANTEES", "audit_view", "comparison_sentence", "error_control_sentence",
           "favourable_sentence", "fmt_level", "normalise_audit", "render_audit_report",
           "rows_phrase", "sentence_context", "tolerance_sentence", "write_audit_report"]
