"""The audit looks its interval method up by name once, at its front door.

``fairbound.audit(..., method="auto")`` validates the name once and passes the registry's
:class:`~fairbound.stats.base.IntervalMethod` down; ``auto`` picks exact or betting per
comparison from the costs without another lookup by name (before, it looked the name up
once or more per comparison).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.stats import base


def _frame(n: int = 900) -> pd.DataFrame:
    rng = np.random.default_rng(11)
    return pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "y": rng.integers(0, 2, n),
                         "p": rng.integers(0, 2, n)})


@pytest.fixture()
def lookups(monkeypatch):
    """Calls of the registry's lookup by name (``get_method`` with a string)."""
    seen: list[object] = []
    real = base.check_choice

    def spy(value, choices, param, **kw):
        if param == "method":
            seen.append(value)
        return real(value, choices, param, **kw)

    monkeypatch.setattr(base, "check_choice", spy)
    return seen


@pytest.mark.parametrize("method", ["auto", "newcombe", "exact"])
def test_a_default_audit_resolves_its_method_once(lookups, method):
    r = fairbound.audit(_frame(), group="g", label="y", prediction="p", method=method)
    rows = [c for c in r.comparisons if c.component != "max"]
    assert len(rows) >= 15
    assert lookups == [method]


def test_recompute_looks_up_once_and_gives_the_same_intervals(lookups):
    r = fairbound.audit(_frame(), group="g", label="y", prediction="p")
    lookups.clear()
    again = r.recompute(method="auto")
    assert lookups == ["auto"]
    assert [(c.low, c.high, c.verdict) for c in again.comparisons] == [
        (c.low, c.high, c.verdict) for c in r.comparisons]
