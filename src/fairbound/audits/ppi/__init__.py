"""Prediction-powered audits: gaps from few gold labels and a proxy labeler.

* :mod:`fairbound.audits.ppi.audit` - :func:`ppi_audit` and its result types.
* :mod:`fairbound.audits.ppi.sampling` - which rows to annotate next.
"""

from __future__ import annotations

from fairbound.audits.ppi.audit import (
    ASSUMPTION,
    DEFAULT_PPI_METRICS,
    SCHEMA,
    WEIGHTED_ASSUMPTION,
    GroupCheck,
    PPIAuditResult,
    PPIComparison,
    SamplingWarning,
    ppi_audit,
    ppi_audit_counts,
)
from fairbound.audits.ppi.sampling import (
    ALLOCATIONS,
    AnnotationSample,
    GroupDraw,
    annotation_probabilities,
    sample_for_annotation,
)

__all__ = ["ALLOCATIONS", "ASSUMPTION", "AnnotationSample", "DEFAULT_PPI_METRICS", "GroupCheck",
           "GroupDraw", "PPIAuditResult", "PPIComparison", "SCHEMA", "SamplingWarning",
           "WEIGHTED_ASSUMPTION", "annotation_probabilities", "ppi_audit", "ppi_audit_counts",
           "sample_for_annotation"]
