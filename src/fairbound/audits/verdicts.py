"""Verdicts: what an interval for a gap lets an audit say, and which error it controls.

A gap's interval gives one of these verdicts (the gap is ``rate_A - rate_B`` on the cost
scale, so a positive gap means group A bears more cost):

* ``"A disadvantaged"`` - the interval lies above 0;
* ``"B disadvantaged"`` - the interval lies below 0;
* ``"no meaningful gap"`` - with a ``tolerance``, the interval lies within
  ``+/- tolerance`` (on the rate scale);
* ``"not enough evidence"`` - none of these;
* ``"unequal"`` - the derived ``max |gap|`` of several simultaneous components (equalized
  odds) excludes 0;
* ``"not estimable"`` - an empty denominator or a method that cannot run.

Which error the verdicts of one audit control is its ``error_control``
(:data:`ERROR_CONTROLS`; :mod:`fairbound.audits.control` sets the interval levels from it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

# The words are spelled once, in fairbound._words (a base-layer module, so the statistical
# core, the reports and the CLI use the same words); this module is where audits read them.
from fairbound._validate import check_probability
from fairbound._words import (  # noqa: F401  (the vocabulary, re-exported)
    A_DISADVANTAGED,
    ADVERSE,
    AUDIT_VERDICTS,
    B_DISADVANTAGED,
    DISADVANTAGED,
    GAP_VERDICTS,
    IMPACT_VERDICTS,
    MONITOR_VERDICTS,
    NO_ADVERSE,
    NO_EVIDENCE,
    NO_GAP,
    NOT_ESTIMABLE,
    REFERENCE,
    UNEQUAL,
    VERDICTS,
    WITHIN_TOLERANCE,
)

# the error control lives in one module; its names stay importable from here
from fairbound.audits.control import ERROR_CONTROLS, check_error_control  # noqa: F401


def verdict(lo: float, hi: float, tolerance: float | None = None, scale: float = 1.0) -> str:
    """The verdict of a gap whose interval is ``[lo, hi]`` (cost scale).

    Parameters
    ----------
    lo, hi : float
        The interval.
    tolerance : float, optional
        The band on the rate scale for "no meaningful gap".
    scale : float
        The largest cost ``C`` (the band on the cost scale is ``+/- tolerance * C``).

    Examples
    --------
    >>> verdict(0.01, 0.05), verdict(-0.03, 0.02), verdict(-0.01, 0.01, tolerance=0.02)
    ('A disadvantaged', 'not enough evidence', 'no meaningful gap')
    """
    if lo > 0:
        return A_DISADVANTAGED
    if hi < 0:
        return B_DISADVANTAGED
    if tolerance is not None and -tolerance * scale < lo and hi < tolerance * scale:
        return NO_GAP
    return NO_EVIDENCE


def worst(parts: Sequence):
    """The larger of several simultaneous gaps, with an interval for ``max |gap|``.

    Parameters
    ----------
    parts : sequence of Comparison
        The components of one metric (e.g. equalized odds' TPR and FPR gaps) for one pair.

    Returns
    -------
    Comparison
        Component ``"max"``: verdict ``"unequal"`` when the interval of ``max |gap|``
        excludes 0.
    """
    first = parts[0]
    if any(not p.estimable for p in parts):
        est = lo = hi = math.nan
        v, note = NOT_ESTIMABLE, "a component is not estimable"
    else:
        def abs_bounds(p):
            if p.low <= 0 <= p.high:
                return 0.0, max(-p.low, p.high)
            return min(abs(p.low), abs(p.high)), max(abs(p.low), abs(p.high))

        bounds = [abs_bounds(p) for p in parts]
        biggest = max(parts, key=lambda p: abs(p.estimate))
        est = abs(biggest.estimate)
        lo = max(b[0] for b in bounds)
        hi = max(b[1] for b in bounds)
        v = UNEQUAL if lo > 0 else NO_EVIDENCE
        note = f"largest gap is {biggest.component}"
    return replace(first, component="max", rate="max |gap|", a=None, b=None, estimate=est,
                   low=lo, high=hi, verdict=v, required_n=math.nan, note=note)


def disadvantaged(verdict: str, group_a, group_b):
    """The group a verdict names as disadvantaged, or ``None`` (any other verdict)."""
    return {A_DISADVANTAGED: group_a, B_DISADVANTAGED: group_b}.get(verdict)


def select(comparisons: Sequence, *, metric: str | None = None,
           verdict: str | None = None) -> tuple:
    """The comparisons of one metric (its registered name) and/or one verdict.

    The ``select`` method of every audit result: the result resolves the metric's name
    (aliases, checks), this filters.
    """
    out = tuple(comparisons)
    if metric is not None:
        out = tuple(c for c in out if c.metric == metric)
    if verdict is not None:
        out = tuple(c for c in out if c.verdict == verdict)
    return out


def verdict_counts(comparisons: Sequence) -> str:
    """How many comparisons got each verdict, in order of first appearance (for ``repr``).

    Examples
    --------
    >>> from types import SimpleNamespace as R
    >>> verdict_counts([R(verdict=NO_EVIDENCE), R(verdict=NO_GAP), R(verdict=NO_EVIDENCE)])
    '2 not enough evidence, 1 no meaningful gap'
    """
    counts: dict[str, int] = {}
    for c in comparisons:
        counts[c.verdict] = counts.get(c.verdict, 0) + 1
    return ", ".join(f"{n} {v}" for v, n in counts.items())


def check_tolerance(tolerance) -> float | None:
    """The "no meaningful gap" band: ``None`` or a number in (0, 1), or a one-line error."""
    if tolerance is None:
        return None
    return check_probability(tolerance, "tolerance", note="a gap on the rate scale")
