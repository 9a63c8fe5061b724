"""What an audit found: :class:`Comparison` (one gap) and :class:`AuditResult` (all of them).

Both are frozen and keep the per-group sufficient statistics behind every number, so
:meth:`Comparison.recompute` and :meth:`AuditResult.recompute` give the same result at
another method, level, seed or error control without reading the data again; the builder
that makes them is :mod:`fairbound.audits.gaps.build`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from fairbound._docs import fill
from fairbound._validate import check_seed
from fairbound.audits.contract import ResultMethods
from fairbound.audits.control import recompute_settings
from fairbound.audits.gaps.comparison import (
    Comparison,
    _build_from_stats,
    _jsonable,
)
from fairbound.audits.verdicts import (
    GAP_VERDICTS,
    NO_EVIDENCE,
    NOT_ESTIMABLE,
    check_tolerance,
)
from fairbound.stats import get_method

SCHEMA = "fairbound.audit/1"


@dataclass(frozen=True)
class AuditResult(ResultMethods):
    """Everything an audit found, with the statistics to recompute it.

    Attributes
    ----------
    comparisons : tuple of Comparison
        One per metric component, class and pair of groups.
    groups : tuple of (group, rows)
        Annotated rows per group.
    classes : tuple
        Label values; ``positive`` is the class audited for binary labels.
    task : str
        ``"binary"``, ``"multiclass"`` or ``"cost"``.
    n_rows : int
        Rows scanned.
    excluded : dict
        Reason -> rows left out (missing group = not annotated, missing label, ...).
    engine, source : str
        What read the data and what was read.
    metrics : tuple of str
        Metrics audited.
    comparison : str
        ``"pairwise"``, ``"vs-rest"`` or ``"vs-reference"``.
    method : str
        Interval method (``"auto"``: each comparison records the method that ran).
    confidence_level : float
        Requested level: family-wise over all comparisons with ``error_control="family"``.
    seed : int
        Seed for randomised methods.
    version, created : str
        fairbound version and UTC timestamp.
    error_control : str
        ``"family"``, ``"fdr"`` or ``"none"``: which error the verdicts control.
    n_tests : int
        Number of estimable comparisons the control is taken over.
    favourable : str
        ``"positive"`` (the positive class is the favourable outcome) or ``"negative"``.
    tolerance : float or None
        Band for "no meaningful gap" verdicts (rate scale).
    kind : str
        What was audited, the ``kind`` of the JSON: ``"gaps"`` (:func:`fairbound.audit`)
        or ``"disagreement"`` (:func:`~fairbound.audits.disagreement.audit.disagreement_audit`).
    """

    comparisons: tuple[Comparison, ...]
    groups: tuple[tuple[Any, int], ...]
    classes: tuple
    positive: Any
    task: str
    n_rows: int
    excluded: dict
    engine: str
    source: str
    metrics: tuple[str, ...]
    comparison: str
    reference: Any
    method: str
    confidence_level: float
    seed: int
    version: str
    created: str
    columns: dict = field(default_factory=dict)
    confusion: np.ndarray | None = field(default=None, repr=False, compare=False)
    error_control: str = "family"
    n_tests: int = 0
    favourable: str = "positive"
    tolerance: float | None = None
    kind: str = "gaps"

    def __repr__(self) -> str:
        from fairbound._render import fmt_level

        found = sum(1 for c in self.comparisons if c.verdict in GAP_VERDICTS)
        control = {"family": "family-wise", "fdr": "FDR", "none": "per comparison"}.get(
            self.error_control, self.error_control)
        return (f"AuditResult({len(self.comparisons)} comparisons of {len(self.groups)} "
                f"groups, method {self.method!r}, {control} at "
                f"{fmt_level(self.confidence_level)}; {found} with a gap)")

    @property
    def biased(self) -> tuple[Comparison, ...]:
        """Comparisons whose interval excludes zero."""
        return tuple(c for c in self.comparisons
                     if c.verdict in GAP_VERDICTS)

    def recompute(
        self, *, confidence_level: float | None = None, method: str | None = None,
        seed: int | None = None, error_control: str | None = None,
        tolerance: float | None = None, **options
    ) -> AuditResult:
        """The whole audit under another method, level, seed or error control.

        Works on the stored statistics, without re-reading the data.  Arguments left out
        keep their values in this result.

        Parameters
        ----------
        confidence_level : float, optional
            New level (family-wise under ``error_control="family"``).
        method : str, optional
            New interval method.
        seed : int, optional
            New seed for randomised methods.
        error_control : {'family', 'fdr', 'none'}, optional
            Which error the verdicts control.
        tolerance : float, optional
            New band for "no meaningful gap" verdicts.
        **options
            Method options.

        Returns
        -------
        AuditResult
        """
        rho, control = recompute_settings(self, confidence_level, error_control)
        m = get_method(self.method if method is None else method)
        seed = self.seed if seed is None else check_seed(seed)
        tol = self.tolerance if tolerance is None else check_tolerance(tolerance)
        comps, n_tests = _build_from_stats(
            self._stat_rows(), method=m, confidence_level=rho, seed=seed,
            options=options, error_control=control, tolerance=tol)
        return replace(self, comparisons=comps, method=m.name, confidence_level=rho,
                       seed=seed, error_control=control, n_tests=n_tests, tolerance=tol)

    def _stat_rows(self):
        rows = []
        for c in self.comparisons:
            if c.component != "max":
                rows.append(c)
        return rows

    def to_frame(self):
        """One row per comparison (pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame([c.to_dict() for c in self.comparisons])

    def groups_frame(self):
        """Rows per group (pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame(
            [{"group": _jsonable(g), "rows": n} for g, n in self.groups]
        )

    def to_dict(self) -> dict:
        """JSON-ready dictionary with a versioned schema name and the result's ``kind``."""
        return {
            "schema": SCHEMA,
            "kind": self.kind,
            "fairbound_version": self.version,
            "created": self.created,
            "source": self.source,
            "engine": self.engine,
            "columns": self.columns,
            "n_rows": self.n_rows,
            "excluded": dict(self.excluded),
            "groups": [{"group": _jsonable(g), "rows": n} for g, n in self.groups],
            "classes": [_jsonable(c) for c in self.classes],
            "positive": _jsonable(self.positive),
            "task": self.task,
            "metrics": list(self.metrics),
            "comparison": self.comparison,
            "reference": _jsonable(self.reference),
            "method": self.method,
            "guarantee": get_method(self.method).guarantee,
            "confidence_level": self.confidence_level,
            "error_control": self.error_control,
            "n_tests": self.n_tests,
            "favourable": self.favourable,
            "tolerance": self.tolerance,
            "seed": self.seed,
            "comparisons": [c.to_dict() for c in self.comparisons],
        }

    def bootstrap(
        self,
        *,
        n_resamples: int = 1000,
        confidence_level: float | None = None,
        method: str = "percentile",
        seed: int | None = None,
    ):
        """Vectorised stratified bootstrap of every gap, with the max-|t| simultaneous band.

        See :func:`fairbound.audits.gaps.bootstrap.bootstrap_audit`; needs an audit of labels and
        predictions.

        Returns
        -------
        fairbound.stats.bootstrap.BootstrapResult
        """
        from fairbound.audits.gaps.bootstrap import bootstrap_audit

        return bootstrap_audit(self, n_resamples=n_resamples, confidence_level=confidence_level,
                               method=method, seed=seed)

    def adjust(
        self,
        *,
        method: str = "holm",
        test: str | None = None,
        confidence_level: float | None = None,
        seed: int | None = None,
    ):
        """Which gaps can be declared at once: a test per comparison, adjusted.

        See :func:`fairbound.audits.gaps.multiplicity.adjust_comparisons` (``method`` one of
        ``'holm'``, ``'bonferroni'``, ``'bh'``, ``'e-holm'``, ``'e-bh'``).

        Returns
        -------
        fairbound.stats.multiplicity.MultiplicityResult
        """
        from fairbound.audits.gaps.multiplicity import adjust_comparisons

        return adjust_comparisons(
            self, method=method, test=test,
            confidence_level=self.confidence_level if confidence_level is None
            else confidence_level,
            seed=self.seed if seed is None else seed)

    def summary(self) -> list[str]:
        """Plain-language sentences, biased comparisons first."""
        from fairbound.report.audit_report import comparison_sentence, sentence_context

        order = sorted(self.comparisons, key=lambda c: (c.verdict in (NO_EVIDENCE,
                                                                      NOT_ESTIMABLE),))
        ctx = sentence_context(self)  # column names, positive class, favourable outcome
        return [comparison_sentence(c.to_dict(), result=ctx) for c in order]

    def plot(self, kind: str = "forest", **options):
        """Draw a figure of this audit (needs matplotlib: ``pip install "fairbound[plot]"``).

        Parameters
        ----------
        kind : {'forest', 'rates', 'sample-size'}
            Every gap with its interval; each group's rates with Wilson intervals; or the
            annotated examples needed vs the gap, with the current n marked.
        **options
            Passed to :func:`fairbound.viz.audit.plot_forest`, ``plot_group_rates`` or
            ``plot_sample_size`` (e.g. ``ax=``).

        Returns
        -------
        matplotlib.figure.Figure
        """
        from fairbound.viz.audit import plot_audit

        return plot_audit(self, kind, **options)

    @fill
    def report(self, path, *, title: str | None = None):
        """Write the self-contained HTML report (see :func:`fairbound.report.write_audit_report`).

        {{report_sections}}
        """
        from fairbound.report import write_audit_report

        return write_audit_report([self], path, title=title)
