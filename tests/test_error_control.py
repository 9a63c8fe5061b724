"""One error control for every audit kind (fairbound.audits.control).

* No module of the audit, report, CLI or plotting layers computes a Bonferroni level or a
  Benjamini-Hochberg step itself: :mod:`fairbound.audits.control` is the one place (the
  interval methods of :mod:`fairbound.stats` split alpha inside one interval; that is not
  error control across comparisons, and is not checked).
* Per kind (main, prediction-powered, scores, impact ratios), family / fdr / none give the
  levels and verdicts they gave before the kinds shared the module, and ``fdr`` has one
  meaning: every interval at ``1 - R alpha / m`` with ``R`` the discoveries.
"""

from __future__ import annotations

import ast
import importlib
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound._words import ADVERSE, GAP_VERDICTS, NO_ADVERSE
from fairbound.audits import control
from fairbound.audits.control import (
    ERROR_CONTROLS,
    bonferroni_level,
    check_error_control,
    controlled,
    level_function,
)
from fairbound.errors import FairboundError

# group d is small on purpose (a small group changes no level)
pytestmark = pytest.mark.filterwarnings("ignore::fairbound.errors.SmallGroupWarning")

ROOT = Path(fairbound.__file__).resolve().parent
CHECKED = ("audits", "report", "cli", "viz")
HOME = Path(control.__file__).resolve()


# ----------------------------------------------------------------------------- (a) AST
def _names(node: ast.AST) -> list[str]:
    """Every name, attribute and string subscript in ``node`` (``d["alpha"]`` included)."""
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.append(n.id)
        elif isinstance(n, ast.Attribute):
            out.append(n.attr)
        elif isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) \
                and isinstance(n.slice.value, str):
            out.append(n.slice.value)
    return out


def _is_one(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and not isinstance(node.value, bool) \
        and node.value == 1


def _one_minus(node: ast.AST) -> bool:
    """Whether ``node`` holds a ``1 - x`` (an alpha written out)."""
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and _is_one(n.left)
               for n in ast.walk(node))


def error_control_arithmetic(source: str) -> list[tuple[int, str]]:
    """``(line, code)`` of every Bonferroni level or BH step written in ``source``.

    Flagged: a division whose numerator names ``alpha`` (``alpha / m``, ``r * alpha / m``),
    and ``1 - <something holding 1 - x> / y`` (``1 - (1 - level) / m``).  Docstrings and
    comments are not code and are never flagged.
    """
    bad = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.BinOp):
            continue
        if isinstance(node.op, ast.Div) \
                and any("alpha" in n.lower() for n in _names(node.left)):
            bad.append((node.lineno, ast.unparse(node)))
        elif isinstance(node.op, ast.Sub) and _is_one(node.left) \
                and isinstance(node.right, ast.BinOp) and isinstance(node.right.op, ast.Div) \
                and _one_minus(node.right.left):
            bad.append((node.lineno, ast.unparse(node)))
    return sorted(set(bad))


def _modules():
    for pkg in CHECKED:
        assert (ROOT / pkg).is_dir(), pkg  # a renamed package must not leave the check empty
        for path in sorted((ROOT / pkg).rglob("*.py")):
            if path.resolve() != HOME:
                yield path


@pytest.mark.parametrize("snippet", [
    "level = 1.0 - alpha / m",
    "level = 1.0 - alpha / max(m, 1) if c == 'family' else cl",
    "f = lambda k, r=r_count: 1.0 - r * alpha / max(m, 1)",
    "each = fmt_level(1 - (1 - d['confidence_level']) / max(m, 1))",
    "each = fmt_level(1 - (1 - cl) / m)",
    "x = 1 - k * (1 - level) / m",
    "x = 1 - self.alpha / n",
])
def test_the_check_sees_every_shape_the_audits_used(snippet):
    # the shapes the builders and printers held before fairbound.audits.control
    assert error_control_arithmetic(snippet), snippet


@pytest.mark.parametrize("snippet", [
    '"""each interval at 1 - alpha / m"""',
    "# level = 1 - alpha / m\nx = 1",
    "se = math.sqrt(p * (1 - p) / n)",
    "y = len(rows) - 1 - i",
    "lo = 1.0 / hi",
    "ax.grid(True, alpha=0.3)",
])
def test_the_check_leaves_other_arithmetic_alone(snippet):
    assert error_control_arithmetic(snippet) == []


def test_no_module_outside_control_computes_an_error_control_level():
    bad = [f"{p.relative_to(ROOT)}:{line}: {code}" for p in _modules()
           for line, code in error_control_arithmetic(p.read_text(encoding="utf-8"))]
    assert bad == []


def test_control_itself_is_seen_by_the_check():
    # the one home of the arithmetic does hold it (the check would see it anywhere else)
    assert error_control_arithmetic(HOME.read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- the module
def test_one_set_of_values_everywhere():
    from fairbound.audits import verdicts
    from fairbound.audits.ratios import audit as ratios
    from fairbound.audits.scores import audit as scores

    assert ERROR_CONTROLS == ("family", "fdr", "none")
    assert verdicts.ERROR_CONTROLS is ERROR_CONTROLS
    assert verdicts.check_error_control is check_error_control
    assert importlib.import_module("fairbound.audits").ERROR_CONTROLS is ERROR_CONTROLS
    assert scores.SCORE_ERROR_CONTROLS == ERROR_CONTROLS  # kept for one release
    assert ratios.ERROR_CONTROLS is ERROR_CONTROLS
    assert check_error_control(" Family ") == "family"
    with pytest.raises(FairboundError, match="error_control must be one of family, fdr, none"):
        check_error_control("holm")


def test_levels():
    assert bonferroni_level(0.95, 0) == bonferroni_level(0.95, 1) == 1.0 - (1.0 - 0.95)
    assert bonferroni_level(0.95, 7) == 1.0 - (1.0 - 0.95) / 7
    assert bonferroni_level(0.9, 4, looks=3) == 1.0 - (1.0 - 0.9) / 3 / 4
    assert level_function("family", 0.95, 6)(3) == bonferroni_level(0.95, 6)
    assert level_function("none", 0.95, 6)(3) == 1.0 - (1.0 - 0.95) / 3
    assert level_function("fdr", 0.95, 6)(2) == 1.0 - 6 * (1.0 - 0.95) / 6
    assert level_function("fdr", 0.95, 6, discoveries=2)(5) == 1.0 - 2 * (1.0 - 0.95) / 6


def _toy(pvals_as_z):
    """A build whose comparison ``i`` claims a gap when ``z_i`` exceeds ``z(level)``."""
    from statistics import NormalDist

    calls = []

    def build(level_of):
        level = level_of(1)
        calls.append(level)
        z = NormalDist().inv_cdf(0.5 + level / 2)
        return [abs(x) > z for x in pvals_as_z]

    return build, calls


def test_fdr_is_benjamini_hochberg():
    from statistics import NormalDist

    z = [4.0, 2.6, 2.3, 2.1, 0.3, 0.1]
    p = sorted(2 * (1 - NormalDist().cdf(abs(x))) for x in z)
    alpha, m = 0.05, len(z)
    bh = max((i + 1 for i in range(m) if p[i] <= (i + 1) * alpha / m), default=0)
    build, calls = _toy(z)
    out = controlled(build, error_control="fdr", confidence_level=1 - alpha, m=m,
                     discoveries=sum)
    assert sum(out) == bh == 3
    assert calls[-1] == 1.0 - bh * (1.0 - (1 - alpha)) / m
    fam = controlled(_toy(z)[0], error_control="family", confidence_level=1 - alpha, m=m,
                     discoveries=sum)
    none = controlled(_toy(z)[0], error_control="none", confidence_level=1 - alpha, m=m,
                      discoveries=sum)
    assert sum(fam) <= sum(out) <= sum(none)


def test_fdr_without_discoveries_is_shown_at_the_family_level():
    build, calls = _toy([0.1, 0.2, 0.3])
    finished = []
    out = controlled(build, error_control="fdr", confidence_level=0.95, m=3, discoveries=sum,
                     finish=lambda level_of: finished.append(level_of(1)) or "final")
    assert out == "final"
    assert finished == [bonferroni_level(0.95, 3)]
    assert calls[0] == 0.95 or math.isclose(calls[0], 0.95)


# ----------------------------------------------------------------------------- (b) kinds
def _frame(seed: int, n: int = 500) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(list("abcd"), n, p=[0.4, 0.3, 0.2, 0.1])
    shift = np.select([g == "b", g == "c", g == "d"], [0.08, -0.05, 0.15], 0.0)
    y = (rng.random(n) < 0.4 + shift).astype(int)
    s = np.clip(0.3 * y + 0.35 + shift + rng.normal(0, 0.2, n), 0, 1)
    judge = np.where(rng.random(n) < 0.85, y, 1 - y)
    gold = np.where(rng.random(n) < 0.3, y, np.nan)
    return pd.DataFrame({"g": g, "y": y, "p": (s > 0.5).astype(int), "s": s,
                         "judge": judge, "gold": gold})


@pytest.fixture(scope="module")
def df():
    return _frame(1, n=500)


def _levels(comparisons):
    return sorted({c.interval_level for c in comparisons
                   if c.estimable and getattr(c, "component", None) != "max"})


def _counts(comparisons) -> dict:
    out: dict[str, int] = {}
    for c in comparisons:
        out[c.verdict] = out.get(c.verdict, 0) + 1
    return out


A, B, NO = "A disadvantaged", "B disadvantaged", "not enough evidence"
#: Verdict counts of these audits before the kinds shared fairbound.audits.control (the
#: same seeded frame, computed with the builders each kind had then).
MAIN_BEFORE = {"family": {A: 3, B: 3, NO: 24}, "fdr": {A: 6, B: 3, NO: 21},
               "none": {A: 8, B: 4, NO: 18}}
PPI_BEFORE = {"family": {A: 3, NO: 27}, "fdr": {A: 6, B: 3, NO: 21},
              "none": {A: 8, B: 3, NO: 19}}
SCORES_BEFORE = {"family": {NO: 36}, "none": {B: 1, "unequal": 4, NO: 31}}
ADV, NOADV, REF = ("evidence of adverse impact", "evidence of no adverse impact",
                   "reference group")
RATIOS_BEFORE = {
    # the observed highest group (the 4th) is the rule's reference since issue 27 item 8;
    # before, its row said "not enough evidence" against itself
    ("highest", "family"): ([NO, NO, NO, REF], 1 - 0.05 / 6),
    ("highest", "none"): ([ADV, NO, ADV, REF], 1 - 0.05 / 3),
    ("reference", "family"): ([REF, NOADV, NO, NOADV], 1 - 0.05 / 3),
    ("reference", "none"): ([REF, NOADV, NO, NOADV], 0.95),
    ("pairwise", "family"): ([NO] * 6, 1 - 0.05 / 6),
    ("pairwise", "none"): ([ADV, NO, ADV, ADV, NO, ADV], 0.95),
}


@pytest.mark.parametrize("ec", ERROR_CONTROLS)
def test_main_audit_levels_and_verdicts(df, ec):
    r = fairbound.audit(df, group="g", label="y", prediction="p", error_control=ec)
    cl, m = r.confidence_level, r.n_tests
    assert m == 30
    found = sum(c.verdict in (A, B) for c in r.comparisons)
    want = {"family": [bonferroni_level(cl, m)],
            "fdr": [1.0 - max(found, 1) * (1.0 - cl) / m],
            "none": [1.0 - (1.0 - cl) / 1]}[ec]
    assert _levels(r.comparisons) == want
    assert _levels(r.comparisons) == [{"family": 0.9983333333333333, "fdr": 0.985,
                                       "none": 0.95}[ec]]
    assert _counts(r.comparisons) == MAIN_BEFORE[ec]


def test_main_audit_none_adjusts_the_parts_of_one_metric(df):
    r = fairbound.audit(df, group="g", label="y", prediction="p", error_control="none",
                        metrics=["equalized_odds"])
    assert _levels(r.comparisons) == [1.0 - (1.0 - 0.95) / 2]


@pytest.mark.parametrize("ec", ERROR_CONTROLS)
def test_ppi_levels_and_verdicts(df, ec):
    from fairbound.audits.ppi.audit import ppi_audit

    r = ppi_audit(df, group="g", label="gold", proxy="judge", prediction="p",
                  error_control=ec, looks=2)
    cl, m = r.confidence_level, r.n_tests
    found = sum(c.verdict in (A, B) for c in r.comparisons)
    alpha = (1.0 - cl) / 2   # two looks
    want = {"family": [bonferroni_level(cl, m, looks=2)],
            "fdr": [1.0 - max(found, 1) * alpha / m]}.get(ec)
    if want is not None:
        assert _levels(r.comparisons) == want
    else:   # none: each metric's components adjusted together (k = 1 or 2)
        assert set(_levels(r.comparisons)) <= {1.0 - alpha / 1, 1.0 - alpha / 2}
    assert _counts(r.comparisons) == PPI_BEFORE[ec]


@pytest.mark.parametrize("ec", ERROR_CONTROLS)
def test_score_audit_levels_and_verdicts(df, ec):
    from fairbound.audits.scores.audit import score_audit

    r = score_audit(df, group="g", label="y", score="s", error_control=ec)
    cl, m = r.confidence_level, r.n_tests
    found = sum(c.verdict in (A, B, "unequal") for c in r.comparisons)
    want = {"family": bonferroni_level(cl, m), "fdr": 1.0 - max(found, 1) * (1.0 - cl) / m,
            "none": cl}[ec]
    assert {c.interval_level for c in r.comparisons} == {want}
    if ec in SCORES_BEFORE:
        assert _counts(r.comparisons) == SCORES_BEFORE[ec]
    else:   # fdr: at least what family claims, at most what none claims
        claims = {e: sum(v for k, v in SCORES_BEFORE[e].items() if k != NO)
                  for e in SCORES_BEFORE}
        assert claims["family"] <= found <= claims["none"]


@pytest.mark.parametrize("versus", ["highest", "reference", "pairwise"])
@pytest.mark.parametrize("ec", ERROR_CONTROLS)
def test_impact_ratio_levels_and_verdicts(df, versus, ec):
    from fairbound.audits.ratios.audit import impact_ratios

    ref = "a" if versus == "reference" else None
    r = impact_ratios(df, group="g", prediction="p", versus=versus, reference=ref,
                      error_control=ec, threshold=0.9)
    verdicts = [x.verdict for x in r.ratios]
    if ec != "fdr":
        want, level = RATIOS_BEFORE[(versus, ec)]
        assert verdicts == want
        assert math.isclose(r.interval_level, level, rel_tol=0, abs_tol=1e-15)
        assert r.interval_level == {"family": bonferroni_level(0.95, r.n_tests),
                                    "none": level}[ec]
        return
    found = verdicts.count(ADV)
    assert r.interval_level == 1.0 - max(found, 1) * (1.0 - 0.95) / r.n_tests
    fam = RATIOS_BEFORE[(versus, "family")][0].count(ADV)
    none = RATIOS_BEFORE[(versus, "none")][0].count(ADV)
    assert fam <= found <= none
    # each row's claim under fdr is one that none makes too (fdr intervals are wider)
    for v, w in zip(verdicts, RATIOS_BEFORE[(versus, "none")][0], strict=True):
        assert v != ADV or w == ADV


def test_ll144_takes_fdr(df):
    from fairbound.audits.ratios.audit import ll144_audit
    from fairbound.report.ll144 import render_ll144_report

    res = ll144_audit(df, group="g", prediction="p", error_control="FDR")
    d = res.to_dict()
    assert {c["error_control"] for c in d["categories"]} == {"fdr"}
    assert "False discovery rate: Benjamini-Hochberg" in render_ll144_report(res,
                                                                           figures=False)


# ----------------------------------------------------------------------------- (c) null data
def _binom_ok(claims: int, reps: int, alpha: float = 0.05) -> bool:
    """False claims no more often than ``alpha``: one-sided binomial test at 0.001."""
    from scipy.stats import binomtest

    return binomtest(claims, reps, alpha, alternative="greater").pvalue > 1e-3


@pytest.mark.slow
def test_fdr_score_audit_makes_few_false_claims_on_null_data():
    """Three groups with one score distribution: any claimed gap is false (BH under the
    global null controls the chance of any claim), through the public path."""
    reps, claims = 300, 0
    for rep in range(reps):
        rng = np.random.default_rng(1000 + rep)
        n = 600
        y = rng.integers(0, 2, n)
        df = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "y": y,
                           "s": np.clip(rng.normal(0.4 + 0.2 * y, 0.2), 0, 1).round(2)})
        r = fairbound.score_audit(df, group="g", label="y", score="s", bins=10,
                                  error_control="fdr")
        claims += any(c.verdict in GAP_VERDICTS for c in r.comparisons)
    assert _binom_ok(claims, reps), claims


@pytest.mark.slow
def test_fdr_impact_ratios_make_few_false_claims_at_the_threshold():
    """Every true ratio is exactly the 0.8 threshold: a verdict either way is false."""
    reps, claims = 300, 0
    for rep in range(reps):
        rng = np.random.default_rng(2000 + rep)
        g = rng.choice(["ref", "b", "c", "d"], 3000)
        p = (rng.random(3000) < np.where(g == "ref", 0.5, 0.4)).astype(int)
        r = fairbound.impact_ratios(pd.DataFrame({"g": g, "p": p}), group="g",
                                    prediction="p", versus="reference", reference="ref",
                                    error_control="fdr")
        claims += any(x.verdict in (ADVERSE, NO_ADVERSE) for x in r.ratios)
    assert _binom_ok(claims, reps), claims
