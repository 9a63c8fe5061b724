"""The comparisons of an audit: one explicit interval cache per audit."""

from __future__ import annotations

import numpy as np

import fairbound
from fairbound.stats import exact as E
from fairbound.stats.exact import SHARED, IntervalCache, using


def _data(n=160, seed=3):
    rng = np.random.default_rng(seed)
    g = np.where(rng.random(n) < 0.5, "a", "b")
    y = (rng.random(n) < 0.5).astype(int)
    p = (rng.random(n) < np.where(g == "a", 0.6, 0.35)).astype(int)
    return g, y, p


def _audit(**kw):
    g, y, p = _data()
    return fairbound.audit(group=g, label=y, prediction=p,
                           metrics=["demographic_parity", "equal_opportunity"], **kw)


def test_an_audit_uses_its_own_cache_and_leaves_the_shared_one_alone(monkeypatch):
    E.clear_cache()
    searched = []
    search = E.interval._search

    def counting(tab, alpha, tol=1e-3):
        searched.append((tab.ka, tab.na, tab.kb, tab.nb, alpha))
        return search(tab, alpha, tol)

    monkeypatch.setattr(E.interval, "_search", counting)
    first = _audit()
    assert len(SHARED) == 0
    # every distinct table searched once; a second audit searches them again (no state
    # carried over from the first), and gets the same numbers
    assert len(searched) == len(set(searched)) == len(first.comparisons)
    second = _audit()
    assert len(searched) == 2 * (len(first.comparisons))
    assert [(c.low, c.high) for c in first.comparisons] == [
        (c.low, c.high) for c in second.comparisons]


def test_an_active_cache_receives_the_audits_intervals_and_is_read_back(monkeypatch):
    E.clear_cache()
    c = IntervalCache()
    with using(c):
        first = _audit()
    assert len(c) == len(first.comparisons) and len(SHARED) == 0

    def no_search(*args, **kwargs):
        raise AssertionError("searched again")

    monkeypatch.setattr(E.interval, "_search", no_search)
    with using(c):
        again = _audit()
    assert [(x.low, x.high) for x in again.comparisons] == [
        (x.low, x.high) for x in first.comparisons]
