"""Annotator disagreement by group, audited as a cost.

The audit lives in :mod:`fairbound.audits.disagreement.audit`.
"""

from __future__ import annotations

from fairbound.audits.disagreement.audit import (
    COST_COLUMN,
    MEASURES,
    TIES,
    disagreement,
    disagreement_audit,
    majority_labels,
    vote_counts,
)

__all__ = ["COST_COLUMN", "MEASURES", "TIES", "disagreement", "disagreement_audit",
           "majority_labels", "vote_counts"]
