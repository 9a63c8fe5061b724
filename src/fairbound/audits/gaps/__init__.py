"""The main audit kind: a metric's gaps between groups.

Each gap has an interval, a verdict and the n that would settle it.

* :mod:`fairbound.audits.gaps.build` - :func:`audit`: one scan through an engine, then the
  comparisons, their error control and the n that would settle each.
* :mod:`fairbound.audits.gaps.comparison` - :class:`Comparison` (one gap) and how it is
  computed from two groups' statistics (also by :meth:`Comparison.recompute`).
* :mod:`fairbound.audits.gaps.result` - :class:`AuditResult` (all the gaps).
* :mod:`fairbound.audits.gaps.bootstrap`, :mod:`fairbound.audits.gaps.simultaneous`,
  :mod:`fairbound.audits.gaps.multiplicity` - the core's bootstrap, simultaneous intervals
  and multiplicity corrections applied to a whole audit.
"""

from __future__ import annotations

from fairbound.audits.gaps.build import (
    audit,
    audit_aggregates,
    required_parity_n,
    required_total_n,
)
from fairbound.audits.gaps.result import (
    SCHEMA,
    AuditResult,
    Comparison,
)

__all__ = ["AuditResult", "Comparison", "SCHEMA", "audit", "audit_aggregates", "required_parity_n",
           "required_total_n"]
