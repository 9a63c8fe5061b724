"""Audit a classifier: every fairness gap with an interval, a verdict and a sample-size plan.

* :mod:`fairbound.audits.gaps.result` - :class:`Comparison` (one gap) and :class:`AuditResult`.
* :mod:`fairbound.audits.gaps.build` - :func:`audit`: one scan through an engine, then the
  comparisons, their error control and the n that would settle each.
* :mod:`fairbound.audits.pairing` - which pairs of groups are compared (pairwise, each vs
  the rest, vs a reference).
* :mod:`fairbound.audits.verdicts` - what an interval lets an audit say.
* :mod:`fairbound.audits.control` - the error control of every audit kind (family, fdr,
  none): the one place that sets interval levels.
* :mod:`fairbound.audits.gaps.bootstrap`, :mod:`fairbound.audits.gaps.simultaneous`,
  :mod:`fairbound.audits.gaps.multiplicity` - the core's bootstrap, simultaneous intervals and
  multiplicity corrections applied to a whole audit.

``fairbound.audit(...)`` (the attribute of the top-level package) is the function
:func:`audit`.
"""

from fairbound.audits.gaps.build import (
    SMALL_GROUP,
    audit,
    audit_aggregates,
    required_parity_n,
    required_total_n,
)
from fairbound.audits.gaps.result import SCHEMA, AuditResult, Comparison
from fairbound.audits.pairing import COMPARISONS, MAX_COMPARISONS
from fairbound.audits.verdicts import (
    A_DISADVANTAGED,
    B_DISADVANTAGED,
    ERROR_CONTROLS,
    NO_EVIDENCE,
    NO_GAP,
    NOT_ESTIMABLE,
    UNEQUAL,
)

__all__ = [
    "A_DISADVANTAGED",
    "B_DISADVANTAGED",
    "COMPARISONS",
    "ERROR_CONTROLS",
    "MAX_COMPARISONS",
    "NOT_ESTIMABLE",
    "NO_EVIDENCE",
    "NO_GAP",
    "SCHEMA",
    "SMALL_GROUP",
    "UNEQUAL",
    "AuditResult",
    "Comparison",
    "audit",
    "audit_aggregates",
    "required_parity_n",
    "required_total_n",
]
