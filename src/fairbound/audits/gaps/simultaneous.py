"""Simultaneous per-group intervals for every metric of an audit.

Reads each group's statistics from the audit's comparisons and hands them to
:func:`fairbound.stats.simultaneous.simultaneous_intervals` (the core, on group statistics).
"""

from __future__ import annotations

from dataclasses import replace

from fairbound.audits.control import bonferroni_level
from fairbound.audits.pairing import against_rest, group_name
from fairbound.errors import FairboundError
from fairbound.stats.base import GroupStats, check_confidence_level
from fairbound.stats.simultaneous import SimultaneousResult, _rng, simultaneous_intervals


def audit_simultaneous(
    result,
    *,
    method: str = "betting",
    confidence_level: float | None = None,
    across_metrics: bool = False,
    seed: int | None = None,
) -> tuple[SimultaneousResult, ...]:
    """Simultaneous per-group intervals for every metric component of an audit.

    Parameters
    ----------
    result : AuditResult or iterable of Comparison
        An audit; each group's statistics are read from its comparisons (pairwise,
        vs-reference or vs-rest audits all name every group as A or B).
    method : {'betting', 'clopper-pearson', 'hoeffding'}
        Per-group interval (see :func:`simultaneous_intervals`).
    confidence_level : float, optional
        Default: the audit's level.
    across_metrics : bool
        If true, split ``1 - confidence_level`` over the ``M`` metric components and classes
        (Bonferroni) so that every statement of every result holds at once; otherwise each
        result holds jointly on its own.
    seed : int, optional
        Seed of the betting order (default: the audit's seed).

    Returns
    -------
    tuple of SimultaneousResult
        One per metric component and class, labelled like the audit's comparisons.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from fairbound.audits import audit
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"g": rng.choice(list("abc"), 3000), "y": rng.integers(0, 2, 3000)})
    >>> df["p"] = np.where(rng.random(3000) < 0.8, df["y"], 1 - df["y"])
    >>> res = audit(df, group="g", label="y", prediction="p", metrics="accuracy_parity")
    >>> (sim,) = audit_simultaneous(res, method="clopper-pearson")
    >>> sim.label, sim.groups, sim.range_low == 0.0
    ('accuracy_parity', ('a', 'b', 'c'), True)
    """
    comps = [c for c in result if getattr(c, "component", "") != "max"
             and getattr(c, "a", None) is not None and getattr(c, "b", None) is not None]
    if not comps:
        raise FairboundError(
            "result must hold comparisons with group statistics; got none", param="result"
        )
    rho = check_confidence_level(
        getattr(result, "confidence_level", 0.95) if confidence_level is None
        else confidence_level
    )
    # In each-vs-rest audits group B is "all other groups", not a group of its own.
    vs_rest = against_rest(result, comps)
    families: dict[tuple, dict[str, GroupStats]] = {}
    labels: dict[tuple, str] = {}
    for c in comps:
        key = (c.metric, c.component, c.cls)
        fam = families.setdefault(key, {})
        labels.setdefault(key, c.label)
        fam.setdefault(group_name(c.group_a), c.a)
        if not vs_rest:
            fam.setdefault(group_name(c.group_b), c.b)
    M = len(families)
    level = bonferroni_level(rho, M) if across_metrics else rho
    gen = _rng(getattr(result, "seed", 0) if seed is None else seed)
    out = []
    for key, fam in families.items():
        usable = {g: st for g, st in fam.items() if st.n > 0}
        if len(usable) < 2:
            continue
        res = simultaneous_intervals(usable, method=method, confidence_level=level, rng=gen)
        out.append(replace(res, label=labels[key]))
    return tuple(out)
