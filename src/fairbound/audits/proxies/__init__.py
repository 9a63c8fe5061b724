"""Audits when the protected attribute is missing for most rows: group probabilities.

* :mod:`fairbound.audits.proxies.audit` - :func:`proxy_audit` and its result types.
"""

from __future__ import annotations

from fairbound.audits.proxies.audit import (
    BOUNDS_ASSUMPTION,
    DEFAULT_PROXY_METRICS,
    NOT_IDENTIFIED,
    PPI_ASSUMPTION,
    SCHEMA,
    ProxyAuditResult,
    ProxyComparison,
    ProxyGroup,
    proxy_audit,
    proxy_audit_statistics,
)

__all__ = ["BOUNDS_ASSUMPTION", "DEFAULT_PROXY_METRICS", "NOT_IDENTIFIED", "PPI_ASSUMPTION",
           "SCHEMA", "ProxyAuditResult", "ProxyComparison", "ProxyGroup", "proxy_audit",
           "proxy_audit_statistics"]
