"""fairbound: is this classifier actually biased.

Every fairness gap with a confidence interval, a verdict and the annotated sample size that
would settle it.

The public names are loaded on first use (PEP 562), so that ``import fairbound`` and the
command line (``fairbound --help``) start without scipy, pandas, DuckDB or matplotlib.
``fairbound.audit`` is the function :func:`fairbound.audits.audit`, as it always was; the
audit kinds (result objects, builders, pairing, verdicts, error control) live in the
package ``fairbound.audits``, one folder per kind, so every module is reachable by its
attribute path.  The old paths ``fairbound.audit.*`` still import, with a
``DeprecationWarning``, for one release (:mod:`fairbound._moved`).
"""

from __future__ import annotations

import importlib
import sys
import types

from fairbound import _moved
from fairbound.errors import DegenerateDataWarning, FairboundError, SmallGroupWarning

_moved.install()

#: Public name -> the module that defines it (imported on first use).
_LAZY = {
    "AuditResult": "fairbound.audits",
    "Comparison": "fairbound.audits",
    "impact_ratios": "fairbound.audits.ratios.audit",
    "ConfidenceInterval": "fairbound.stats.base",
    "ScoreAuditResult": "fairbound.audits.scores.audit",
    "score_audit": "fairbound.audits.scores.audit",
    "ppi_audit": "fairbound.audits.ppi.audit",
    "proxy_audit": "fairbound.audits.proxies.audit",
    "disagreement_audit": "fairbound.audits.disagreement.audit",
    "discover": "fairbound.audits.discover",
    "DiscoverResult": "fairbound.audits.discover",
    "simulate": "fairbound.evaluation.simulate",
    "__version__": "fairbound._version",
}

__all__ = [
    "AuditResult",
    "Comparison",
    "ConfidenceInterval",
    "DegenerateDataWarning",
    "FairboundError",
    "ScoreAuditResult",
    "SmallGroupWarning",
    "__version__",
    "audit",
    "disagreement_audit",
    "discover",
    "DiscoverResult",
    "impact_ratios",
    "score_audit",
    "ppi_audit",
    "proxy_audit",
    "simulate",
]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fairbound' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Fairbound(types.ModuleType):
    """The ``fairbound`` module, whose attribute ``audit`` is always the audit function.

    Importing the deprecated path ``fairbound.audit`` (:mod:`fairbound._moved`) makes
    Python set the module it gives as an attribute of ``fairbound``; this property keeps
    the name bound to the function (loaded on first use) and leaves a module alone.  It
    goes with the old paths.
    """

    @property
    def audit(self):
        """:func:`fairbound.audits.audit`."""
        fn = self.__dict__.get("_audit_function")
        if fn is None:
            fn = importlib.import_module("fairbound.audits").audit
            self.__dict__["_audit_function"] = fn
        return fn

    @audit.setter
    def audit(self, value) -> None:
        if not isinstance(value, types.ModuleType):
            self.__dict__["_audit_function"] = value


sys.modules[__name__].__class__ = _Fairbound
