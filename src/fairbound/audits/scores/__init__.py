"""Score audits: AUC, calibration and threshold sweeps by group, with verdicts.

The audit and its result types live in :mod:`fairbound.audits.scores.audit`.
"""

from __future__ import annotations

from fairbound.audits.scores.audit import (
    METRICS,
    SCHEMA,
    SCORE_ERROR_CONTROLS,
    GroupScores,
    ScoreAuditResult,
    ScoreComparison,
    score_audit,
    score_audit_histograms,
)

__all__ = ["GroupScores", "METRICS", "SCHEMA", "SCORE_ERROR_CONTROLS", "ScoreAuditResult",
           "ScoreComparison", "score_audit", "score_audit_histograms"]
