"""Error control across an audit's comparisons: the one place that sets interval levels.

Every audit kind (the main gap audit, prediction-powered audits, score audits, impact
ratios and LL144 audits) and every printer that states an interval's level take it from
here, so ``error_control`` has one set of values (:data:`ERROR_CONTROLS`) and one meaning:

* ``"family"`` - Bonferroni over the ``m`` estimable comparisons: every interval at
  ``1 - alpha / m`` (:func:`bonferroni_level`), so the verdicts hold jointly with
  probability at least ``confidence_level``;
* ``"fdr"`` - Benjamini-Hochberg: the number of discoveries ``R`` is found by step-down
  from the intervals themselves (``R_0 = m``; ``R_{j+1}`` = the verdicts claiming a gap
  with every interval at ``1 - R_j alpha / m``, until the count stops falling), and every
  interval is shown at ``1 - R alpha / m`` (the false-coverage-rate intervals of
  Benjamini & Yekutieli 2005); with no discovery, ``R = 1`` (the family level);
* ``"none"`` - each comparison on its own; only the ``k`` parts that one row depends on
  together (e.g. equalized odds' TPR and FPR gaps) are adjusted, each at
  ``1 - alpha / k``.

``looks`` splits ``alpha`` over planned looks at growing data (Bonferroni across looks).

The interval methods of :mod:`fairbound.stats` may split ``alpha`` inside one interval
(two one-sided bounds, a union of two intervals); that is not error control across an
audit's comparisons and stays there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fairbound._docs import fill
from fairbound._validate import check_choice

#: ``error_control`` values: family-wise (Bonferroni over every comparison of the audit),
#: false-coverage / false-discovery (Benjamini-Hochberg with the Benjamini-Yekutieli
#: FCR-adjusted intervals), or none (each comparison at the stated level).
ERROR_CONTROLS = ("family", "fdr", "none")
#: Each error control in a few words, for one-line summaries (``repr``) of any result.
SHORT_NAMES = {"family": "family-wise", "fdr": "false-discovery (BH)", "none": "each"}

__all__ = ["ERROR_CONTROLS", "SHORT_NAMES", "bonferroni_level", "check_error_control", "controlled",
           "controlled_rows", "dependence_robust_level", "level_function",
           "recompute_rows", "recompute_settings", "with_inputs"]


def check_error_control(error_control) -> str:
    """``error_control`` as one of :data:`ERROR_CONTROLS`, or a one-line error.

    Examples
    --------
    >>> check_error_control("FDR")
    'fdr'
    >>> check_error_control("holm")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: error_control must be one of family, fdr, none; ...
    """
    return check_choice(error_control, ERROR_CONTROLS, "error_control", fold=True)


def recompute_settings(result, confidence_level: float | None,
                       error_control: str | None) -> tuple[float, str]:
    """The level and error control a result's ``recompute`` uses.

    Each argument given is checked; one left out (``None``) keeps the result's value.

    Parameters
    ----------
    result : object
        A result with ``confidence_level`` and ``error_control`` attributes.
    confidence_level : float or None
        The new level, in (0, 1).
    error_control : {'family', 'fdr', 'none'} or None
        The new error control.

    Returns
    -------
    tuple of (float, str)

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> old = SimpleNamespace(confidence_level=0.95, error_control="family")
    >>> recompute_settings(old, None, "FDR"), recompute_settings(old, 0.9, None)
    ((0.95, 'fdr'), (0.9, 'family'))
    """
    from fairbound.stats.base import check_confidence_level

    rho = check_confidence_level(result.confidence_level if confidence_level is None
                                 else confidence_level)
    control = result.error_control if error_control is None else \
        check_error_control(error_control)
    return rho, control


def bonferroni_level(confidence_level: float, m: int, looks: int = 1) -> float:
    """The level of each of ``m`` intervals that hold jointly at ``confidence_level``.

    Parameters
    ----------
    confidence_level : float
        The joint level, ``1 - alpha``.
    m : int
        The number of intervals (values below 1 count as 1).
    looks : int
        Planned looks the error is split over as well (``alpha / looks`` per look).

    Returns
    -------
    float
        ``1 - (alpha / looks) / m``.

    Examples
    --------
    >>> bonferroni_level(0.95, 1), bonferroni_level(0.95, 10)
    (0.95, 0.995)
    >>> round(bonferroni_level(0.9, 4, looks=5), 6)
    0.995
    """
    alpha = (1.0 - confidence_level) / looks
    return 1.0 - alpha / max(m, 1)


def dependence_robust_level(confidence_level: float, m: int, error_control: str) -> float:
    """The level a false-discovery-rate step-up runs at to hold under any dependence.

    Benjamini & Yekutieli (2001, Theorem 1.3): running Benjamini-Hochberg at
    ``alpha / H_m`` (``H_m = 1 + 1/2 + ... + 1/m``) controls the false discovery rate at
    ``alpha`` whatever the dependence between the tests (nested slices, say).  Other error
    controls are returned unchanged.

    Examples
    --------
    >>> round(dependence_robust_level(0.95, 4, "fdr"), 6), dependence_robust_level(0.95, 4,
    ...                                                                          "family")
    (0.976, 0.95)
    """
    from fairbound.stats.slices import harmonic

    if error_control != "fdr":
        return confidence_level
    return 1.0 - (1.0 - confidence_level) / harmonic(max(int(m), 1))


#: Parameters that :func:`level_function` and :func:`controlled` document alike.
_PIECES = {"level_params": (
    "error_control : {'family', 'fdr', 'none'}\n"
    "    See the module's description.\n"
    "confidence_level : float\n"
    "    The audit's level, ``1 - alpha``.\n"
    "m : int\n"
    "    The comparisons the error control covers (values below 1 count as 1).")}


@fill(**_PIECES)
def level_function(error_control: str, confidence_level: float, m: int, *,
                   discoveries: int | None = None, looks: int = 1) -> Callable[[int], float]:
    """The map from a row's own family size ``k`` to its interval level.

    Parameters
    ----------
    {{level_params}}
    discoveries : int, optional
        For ``"fdr"``: Benjamini-Hochberg's number of discoveries ``R`` (default ``m``,
        the first step of :func:`controlled`).
    looks : int
        Planned looks ``alpha`` is split over.

    Examples
    --------
    >>> level_function("family", 0.95, 5)(2), level_function("none", 0.95, 5)(2)
    (0.99, 0.975)
    >>> round(level_function("fdr", 0.95, 5, discoveries=2)(1), 6)
    0.98
    """
    alpha = (1.0 - confidence_level) / looks
    mm = max(m, 1)
    if error_control == "family":
        return lambda k: 1.0 - alpha / mm
    if error_control == "none":
        return lambda k: 1.0 - alpha / k
    r = mm if discoveries is None else discoveries
    return lambda k: 1.0 - r * alpha / mm


@fill(**_PIECES)
def controlled(build: Callable[[Callable[[int], float]], Any], *, error_control: str,
               confidence_level: float, m: int, discoveries: Callable[[Any], int],
               looks: int = 1,
               finish: Callable[[Callable[[int], float]], Any] | None = None) -> Any:
    """Build an audit's comparisons at the levels ``error_control`` sets.

    Parameters
    ----------
    build : callable
        ``build(level_of)``: the comparisons, where ``level_of(k)`` is the level of a row
        whose family (the rows adjusted together under ``"none"``) has ``k`` members.
    {{level_params}}
    discoveries : callable
        ``discoveries(built)``: how many verdicts of a build claim a gap.
    looks : int
        Planned looks ``alpha`` is split over.
    finish : callable, optional
        ``finish(level_of)``: the final build at the chosen levels, when it differs from
        ``build`` (e.g. it also plans sample sizes).  Without it the last build is kept.

    Returns
    -------
    object
        What ``build`` (or ``finish``) returned at the chosen levels.

    Examples
    --------
    Three p-value-like intervals ``estimate +/- z(level) * se``, an interval "claims a gap"
    when it excludes 0:

    >>> from statistics import NormalDist
    >>> est = [0.30, 0.12, 0.02]
    >>> def build(level_of):
    ...     z = [NormalDist().inv_cdf(0.5 + level_of(1) / 2) for _ in est]
    ...     return [(e - zz * 0.05, e + zz * 0.05) for e, zz in zip(est, z)]
    >>> def found(built):
    ...     return sum(lo > 0 or hi < 0 for lo, hi in built)
    >>> [found(controlled(build, error_control=e, confidence_level=0.95, m=3,
    ...                   discoveries=found)) for e in ("family", "fdr", "none")]
    [2, 2, 2]
    """
    if error_control in ("family", "none"):
        level_of = level_function(error_control, confidence_level, m, looks=looks)
        return (finish or build)(level_of)
    # Benjamini-Hochberg by step-down over the number of discoveries: R_0 = m, and
    # R_{j+1} = #{intervals at 1 - R_j alpha / m that claim a gap} until it stops falling
    # (the count can only fall, and its fixed point is BH's R).
    r_count = max(m, 1)
    while True:
        level_of = level_function("fdr", confidence_level, m, discoveries=r_count,
                                  looks=looks)
        built = build(level_of)
        found = discoveries(built)
        if found >= r_count or found == 0:
            if found == 0 and r_count != 1:
                r_count = 1
                level_of = level_function("fdr", confidence_level, m, discoveries=1,
                                          looks=looks)
                built = None
            break
        r_count = found
    if finish is not None:
        return finish(level_of)
    return build(level_of) if built is None else built


def controlled_rows(rows, compare: Callable[[Any, float, bool], Any], *,
                    confidence_level: float, error_control: str,
                    looks: int = 1) -> tuple[list, int]:
    """The comparisons of a list of rows at the levels ``error_control`` sets.

    The builder of the audits whose rows each make one comparison (prediction-powered,
    proxy groups): a row's family is the rows of its metric and pair of groups, ``m``
    counts the rows estimable at ``confidence_level``, and a discovery is a verdict naming
    a disadvantaged group (:func:`controlled` does the rest).

    Parameters
    ----------
    rows : sequence
        Rows with ``metric``, ``group_a`` and ``group_b``.
    compare : callable
        ``compare(row, level, final)``: the row's comparison (with ``estimable`` and
        ``verdict``) at ``level``; ``final`` on the last build.
    confidence_level : float
        The audit's level.
    error_control : {'family', 'fdr', 'none'}
        See the module's description.
    looks : int
        Planned looks ``alpha`` is split over.

    Returns
    -------
    (list, int)
        The comparisons, in the order of ``rows``, and ``m``.
    """
    from fairbound.audits.contract import json_value
    from fairbound.audits.verdicts import DISADVANTAGED

    def family(r) -> tuple:
        return r.metric, json_value(r.group_a), json_value(r.group_b)

    families: dict[tuple, int] = {}
    for r in rows:
        families[family(r)] = families.get(family(r), 0) + 1
    first = [compare(r, confidence_level, False) for r in rows]
    m = max(sum(1 for c in first if c.estimable), 1)

    def at(level_of, final=False):
        return [compare(r, level_of(families[family(r)]), final) for r in rows]

    return controlled(at, error_control=error_control, confidence_level=confidence_level,
                      m=m, looks=looks,
                      discoveries=lambda b: sum(1 for c in b if c.verdict in DISADVANTAGED),
                      finish=lambda level_of: at(level_of, True)), m


def with_inputs(comparisons, rows) -> tuple:
    """The comparisons, each with the row (statistics) it was computed from, in order."""
    from dataclasses import replace

    return tuple(replace(c, inputs=r) for c, r in zip(comparisons, rows, strict=True))


def recompute_rows(result, confidence_level: float | None, error_control: str | None,
                   build: Callable, *, kept: str, audit: str):
    """``result.recompute(...)`` of an audit whose comparisons keep their ``inputs``.

    The settings of :func:`recompute_settings`; ``build(rows, confidence_level,
    error_control)`` returns the comparisons of the rows and the number of tests (as
    :func:`controlled_rows`).  A comparison without inputs (built by hand) is a one-line
    error saying the result keeps no ``kept`` and to run ``audit`` again.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class R:
    ...     comparisons: tuple
    ...     confidence_level: float = 0.95
    ...     error_control: str = "family"
    ...     n_tests: int = 0
    >>> @dataclass(frozen=True)
    ... class C:
    ...     level: float
    ...     inputs: object = None
    >>> def build(rows, level, control):
    ...     return [C(level) for _ in rows], len(rows)
    >>> r = recompute_rows(R((C(0.95, "x"),)), 0.9, None, build, kept="counts", audit="a")
    >>> r.comparisons, r.n_tests
    ((C(level=0.9, inputs='x'),), 1)
    >>> recompute_rows(R((C(0.95),)), 0.9, None, build, kept="counts", audit="a()")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: recompute: this result keeps no counts ... run a() again
    """
    from dataclasses import replace

    from fairbound.errors import FairboundError

    rho, control = recompute_settings(result, confidence_level, error_control)
    rows = [c.inputs for c in result.comparisons]
    if any(r is None for r in rows):
        raise FairboundError(f"recompute: this result keeps no {kept} (built by hand); run "
                             f"{audit} again", param="confidence_level")
    comps, n_tests = build(rows, rho, control)
    return replace(result, comparisons=with_inputs(comps, rows), confidence_level=rho,
                   error_control=control, n_tests=n_tests)
