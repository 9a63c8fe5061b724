"""Audits when the protected attribute is missing for most rows: group probabilities.

* :mod:`fairbound.audits.proxies.audit` - :func:`proxy_audit` and its result types.
"""

from __future__ import annotations

from fairbound.audits.proxies import audit
from fairbound.audits.proxies.audit import (  # noqa: F401 (re-exported: __all__)
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

#: The public names of :mod:`~fairbound.audits.proxies.audit`, re-exported here.
__all__ = audit.__all__
