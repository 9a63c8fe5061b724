"""An explicit cache of exact intervals, passed to the functions that fill and read it.

Audits recompute, re-render and re-plan the same tables, and the batched search of many
tables (:func:`fairbound.stats.auto.prefetch_intervals`) computes intervals before the
one-at-a-time loop reads them.  Both go through an :class:`IntervalCache`: a bounded
mapping from ``(k_A, n_A, k_B, n_B, alpha, gamma, tol)`` to the interval, with a lock, so
that two threads never see a half-written entry.  Which cache a call uses is explicit:

* ``exact_interval(..., cache=c)`` and ``prefetch_intervals(..., cache=c)`` use ``c``;
* inside ``with using(c):`` every call that names no cache uses ``c`` (a context variable:
  each thread and each ``asyncio`` task sees its own setting);
* otherwise the process-wide :data:`SHARED` cache (what ``clear_cache()`` empties).

An audit (``fairbound.audit`` and its recomputations) passes one cache to its batched
search and reads it in its loop: the active one when the caller set one, else a new
cache of its own (:func:`active` tells which), so that audits neither see nor grow each
other's entries in :data:`SHARED`.

A cached value is exactly what the search returns (the cache only saves time).

Examples
--------
>>> from fairbound.stats.exact import exact_interval
>>> c = IntervalCache()
>>> lo, hi = exact_interval(3, 25, 0, 25, cache=c)
>>> len(c)
1
>>> with using(c):
...     exact_interval(3, 25, 0, 25) == (lo, hi)
True
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterator

__all__ = ["SHARED", "IntervalCache", "active", "current", "using"]


class IntervalCache:
    """Intervals already computed, keyed by table, level, ``gamma`` and tolerance.

    Parameters
    ----------
    max_size : int
        When full, the cache is emptied before the next entry is stored (a bound on
        memory; the next audit refills it).

    Examples
    --------
    >>> c = IntervalCache(max_size=2)
    >>> c.store((1, 5, 2, 5, 0.05, 0.001, 1e-3), -0.5, 0.3)
    (-0.5, 0.3)
    >>> c.get((1, 5, 2, 5, 0.05, 0.001, 1e-3)), len(c)
    ((-0.5, 0.3), 1)
    >>> c.clear(); len(c)
    0
    """

    def __init__(self, max_size: int = 65_536):
        self.max_size = int(max_size)
        self._data: dict[tuple, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: tuple) -> bool:
        return key in self._data

    def get(self, key: tuple) -> tuple[float, float] | None:
        """The cached interval of ``key``, or ``None``."""
        return self._data.get(key)

    def store(self, key: tuple, lo: float, hi: float) -> tuple[float, float]:
        """Store and return ``(lo, hi)`` as floats (a table equal to its mirror is symmetric)."""
        ka, na, kb, nb = key[:4]
        if (na, ka) == (nb, kb):
            lo = -hi
        value = (float(lo), float(hi))
        with self._lock:
            if len(self._data) >= self.max_size:
                self._data.clear()
            self._data[key] = value
        return value

    def clear(self) -> None:
        """Forget every interval."""
        with self._lock:
            self._data.clear()


#: The process-wide cache used when no other is named or active.
SHARED = IntervalCache()

_ACTIVE: contextvars.ContextVar[IntervalCache | None] = contextvars.ContextVar(
    "fairbound_exact_cache", default=None)


def current() -> IntervalCache:
    """The cache a call that names none uses: the active one, else :data:`SHARED`."""
    c = _ACTIVE.get()
    return SHARED if c is None else c


def active() -> IntervalCache | None:
    """The cache made active by :func:`using` in this context, or ``None`` (none is).

    An audit reads it to decide where its intervals go: into the caller's cache when one is
    active, else into a cache of its own (so that one audit neither reads nor grows what
    another left in :data:`SHARED`).

    Examples
    --------
    >>> active() is None
    True
    >>> with using(IntervalCache()) as c:
    ...     active() is c
    True
    """
    return _ACTIVE.get()


@contextlib.contextmanager
def using(cache: IntervalCache) -> Iterator[IntervalCache]:
    """Make ``cache`` the one every exact interval in this context reads and fills."""
    token = _ACTIVE.set(cache)
    try:
        yield cache
    finally:
        _ACTIVE.reset(token)
