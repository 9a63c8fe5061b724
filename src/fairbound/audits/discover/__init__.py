"""Subgroup discovery: which slices of the data bear more of a metric's cost.

* :mod:`fairbound.audits.discover.build` - :func:`discover`: one scan for every candidate
  slice's counts, then a finite-sample test of each against its complement under the
  audit's error control.
* :mod:`fairbound.audits.discover.result` - :class:`SliceFinding` and
  :class:`DiscoverResult`.
* :mod:`fairbound.audits.discover.report` - sentences, the statement, the figure and the
  HTML report.

``fairbound.discover(...)`` is the function :func:`discover`.
"""

from __future__ import annotations

from fairbound.audits.discover.build import (
    DEPTH,
    MAX_CANDIDATES,
    MAX_LEVELS,
    MAX_ROWS,
    MIN_SUPPORT,
    discover,
    evaluate,
)
from fairbound.audits.discover.result import COMPARISONS, SCHEMA, DiscoverResult, SliceFinding

__all__ = ["COMPARISONS", "DEPTH", "MAX_CANDIDATES", "MAX_LEVELS", "MAX_ROWS", "MIN_SUPPORT",
           "SCHEMA", "DiscoverResult", "SliceFinding", "discover", "evaluate"]
