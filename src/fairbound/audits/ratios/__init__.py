"""Impact ratios and Local Law 144 audits.

The audits and their result types live in :mod:`fairbound.audits.ratios.audit`.
"""

from __future__ import annotations

from fairbound.audits.ratios.audit import (
    ADVERSE,
    LL144_SCHEMA,
    NO_ADVERSE,
    NO_EVIDENCE,
    NOT_ESTIMABLE,
    RATES,
    REFERENCE,
    SCHEMA,
    VERDICTS,
    VERSUS,
    GroupRate,
    ImpactRatio,
    ImpactRatioResult,
    LL144Audit,
    date_range,
    impact_ratios,
    ll144_audit,
)

__all__ = ["ADVERSE", "GroupRate", "ImpactRatio", "ImpactRatioResult", "LL144Audit",
           "LL144_SCHEMA", "NOT_ESTIMABLE", "NO_ADVERSE", "NO_EVIDENCE", "RATES", "REFERENCE",
           "SCHEMA", "VERDICTS", "VERSUS", "date_range", "impact_ratios", "ll144_audit"]
