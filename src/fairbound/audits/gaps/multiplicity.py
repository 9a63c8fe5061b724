"""Which gaps of an audit can be declared at once: a test per comparison, adjusted.

:meth:`fairbound.audits.AuditResult.adjust` calls :func:`adjust_comparisons`: one test of
"no gap" per comparison (:mod:`fairbound.stats.testing`), then the core's correction
:func:`fairbound.stats.multiplicity.adjust` (Holm, Bonferroni, BH, e-Holm, e-BH).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from fairbound._validate import check_choice
from fairbound.errors import FairboundError
from fairbound.stats import testing
from fairbound.stats.base import NotEstimable
from fairbound.stats.multiplicity import (
    E_METHODS,
    MultiplicityResult,
    _check_method,
    adjust,
)


def _validate_adjust_comparisons(comparisons, method, test):
    items = list(comparisons)
    key = _check_method(method)
    if test is None:
        test = "betting" if key in E_METHODS else "z"
    allowed = ("betting", "calibrated") if key in E_METHODS else ("z", "permutation", "betting")
    t = check_choice(test, allowed, "test", fold=True, note=f"for method {key!r}")
    family = [c for c in items
              if getattr(c, "a", None) is not None and getattr(c, "b", None) is not None
              and getattr(c, "component", "") != "max" and c.a.n > 0 and c.b.n > 0]
    if not family:
        raise FairboundError(
            "comparisons must hold at least one estimable gap with group statistics; got "
            f"{len(items)} comparisons and none usable",
            param="comparisons",
        )
    return family, key, t


def adjust_comparisons(
    comparisons,
    *,
    method: str = "holm",
    test: str | None = None,
    confidence_level: float = 0.95,
    seed: int = 0,
) -> MultiplicityResult:
    """Test "no gap" for every comparison of an audit and adjust for multiplicity.

    Parameters
    ----------
    comparisons : iterable of Comparison, or AuditResult
        Comparisons with group statistics ``a`` and ``b`` (the derived ``max`` component
        of equalized odds and empty groups are left out of the family).
    method : {'holm', 'bonferroni', 'bh', 'e-holm', 'e-bh'}
        The correction (see :func:`adjust`).
    test : str, optional
        For p-value methods one of ``'z'`` (default), ``'permutation'``, ``'betting'`` (see
        :func:`fairbound.stats.testing.p_value`); for e-value methods ``'betting'``
        (default) or ``'calibrated'`` (see :func:`fairbound.stats.testing.e_value`).
    confidence_level : float
        The FWER or FDR controlled is ``1 - confidence_level``.
    seed : int
        Seed of the betting order and permutation samples.

    Returns
    -------
    MultiplicityResult
        One row per comparison in the family, labelled ``metric[component] A vs B``;
        comparisons the test cannot handle (e.g. fractional costs without per-example costs
        for ``'betting'``) are listed in ``excluded`` with the reason.

    Notes
    -----
    The family is every gap the audit reports, across metrics, classes and pairs.  With
    ``test='betting'`` and ``'holm'``, ``'bonferroni'`` or ``'e-holm'`` every declared gap
    is backed by a finite-sample guarantee on the family-wise error; with ``'z'`` the
    guarantee is asymptotic.

    Examples
    --------
    >>> from fairbound.stats import GroupStats
    >>> from types import SimpleNamespace as C
    >>> comps = [C(a=GroupStats.from_counts(500, 100), b=GroupStats.from_counts(500, 50),
    ...            label="dp", group_a="x", group_b="y", component="selection_rate"),
    ...          C(a=GroupStats.from_counts(500, 60), b=GroupStats.from_counts(500, 55),
    ...            label="fpr", group_a="x", group_b="y", component="fpr")]
    >>> res = adjust_comparisons(comps, method="holm")
    >>> res.labels, res.reject.tolist()
    (('dp x vs y', 'fpr x vs y'), [True, False])
    """
    family, key, t = _validate_adjust_comparisons(comparisons, method, test)
    rng = np.random.default_rng(seed)
    values, labels, excluded = [], [], []
    for c in family:
        label = f"{c.label} {c.group_a} vs {c.group_b}"
        try:
            if key in E_METHODS:
                v = testing.e_value(c.a, c.b, method=t, rng=rng)
            else:
                v = testing.p_value(c.a, c.b, method=t, rng=rng)
        except NotEstimable as exc:
            excluded.append((label, str(exc)))
            continue
        values.append(v)
        labels.append(label)
    if not values:
        raise FairboundError(
            f"test {t!r} is not defined for any comparison; first reason: {excluded[0][1]}",
            param="test",
        )
    res = adjust(values, method=key, confidence_level=confidence_level, labels=labels)
    return replace(res, excluded=tuple(excluded))
