"""The explicit interval cache of the exact method: named, active, shared, thread-safe."""

from __future__ import annotations

import threading

from fairbound.stats import GroupStats
from fairbound.stats import exact as E
from fairbound.stats.auto import prefetch_intervals
from fairbound.stats.exact import SHARED, IntervalCache, using


def test_a_named_cache_is_filled_and_the_shared_one_is_left_alone():
    E.clear_cache()
    c = IntervalCache()
    got = E.exact_interval(4, 20, 1, 22, cache=c)
    assert len(c) == 1 and len(SHARED) == 0
    assert E._CACHE is SHARED                       # the old name is the shared cache
    assert E.exact_interval(4, 20, 1, 22) == got    # the same numbers without a cache
    assert len(SHARED) == 1
    E.clear_cache()


def test_prefetch_fills_the_cache_it_is_given_and_using_reads_it(monkeypatch):
    # large tables are searched in the batch; the loop then reads them from the same cache
    items = [(GroupStats.from_counts(40_000, 12_000 + 37 * i),
              GroupStats.from_counts(60_000, 18_500), 0.95) for i in range(4)]
    E.clear_cache()
    c = prefetch_intervals(items, "auto", cache=IntervalCache())
    assert len(c) == 4 and len(SHARED) == 0

    def no_search(*args, **kwargs):
        raise AssertionError("searched again")

    monkeypatch.setattr(E.interval, "_search", no_search)
    monkeypatch.setattr(E.interval, "_bound_search", no_search)
    with using(c):
        for a, b, rho in items:
            E._exact(a, b, rho)
    assert len(SHARED) == 0


def test_the_cache_is_bounded_and_safe_across_threads():
    c = IntervalCache(max_size=50)
    errors = []

    def work(offset):
        try:
            for i in range(200):
                key = (i % 7, 10, offset, 11, 0.05, 0.001, 1e-3)
                assert c.store(key, -0.1, 0.2) == (-0.1, 0.2)
                assert len(c) <= 50
        except AssertionError as exc:       # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and 0 < len(c) <= 50
    # a table equal to its mirror gets a symmetric interval
    assert c.store((3, 10, 3, 10, 0.05, 0.001, 1e-3), -0.25, 0.3) == (-0.3, 0.3)
