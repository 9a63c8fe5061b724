"""Invariances every registered interval method must satisfy.

Like ``tests/metrics/test_common.py`` for metrics: each entry of the registry is run through
the same checks, so a new method is tested the day it is registered.  Validity (coverage and
false claims through ``fairbound.audit``) is in ``tests/test_validity.py`` and the coverage
modules; these are the identities.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairbound.errors import FairboundError
from fairbound.stats import INTERVAL_METHODS, GroupStats, NotEstimable, difference_interval

METHODS = sorted(INTERVAL_METHODS)
# resampling methods draw the two groups' resamples from one generator, so swapping the
# groups changes the draws; they are checked to mirror within their Monte-Carlo error
RESAMPLING = {m for m in METHODS if INTERVAL_METHODS[m].guarantee == "resampling"}


def _pair(method: str, *, scale: float = 1.0):
    if INTERVAL_METHODS[method].binary_only:
        return (GroupStats.from_counts(80, 30, cost_max=scale),
                GroupStats.from_counts(120, 25, cost_max=scale))
    rng = np.random.default_rng(4)
    return (GroupStats.from_costs(scale * rng.beta(2, 5, 80), cost_max=scale),
            GroupStats.from_costs(scale * rng.beta(2, 7, 120), cost_max=scale))


@pytest.mark.parametrize("method", METHODS)
def test_same_call_same_interval(method):
    a, b = _pair(method)
    assert difference_interval(a, b, method=method) == difference_interval(a, b, method=method)


@pytest.mark.parametrize("method", METHODS)
def test_swapping_groups_mirrors_the_interval(method):
    a, b = _pair(method)
    lo, hi = difference_interval(a, b, method=method)
    lo2, hi2 = difference_interval(b, a, method=method)
    tol = 0.02 if method in RESAMPLING else 1e-9
    assert lo2 == pytest.approx(-hi, abs=tol) and hi2 == pytest.approx(-lo, abs=tol)


@pytest.mark.parametrize("method", METHODS)
def test_estimate_inside(method):
    a, b = _pair(method)
    lo, hi = difference_interval(a, b, method=method)
    assert lo <= a.mean - b.mean <= hi


@pytest.mark.parametrize("method", METHODS)
def test_levels_nest(method):
    a, b = _pair(method)
    lo90, hi90 = difference_interval(a, b, method=method, confidence_level=0.90)
    lo99, hi99 = difference_interval(a, b, method=method, confidence_level=0.99)
    tol = 0.01 if method in RESAMPLING else 1e-9
    assert lo99 <= lo90 + tol and hi90 <= hi99 + tol
    assert hi99 - lo99 > hi90 - lo90


@pytest.mark.parametrize("method", METHODS)
def test_cost_max_scales_the_interval(method):
    a, b = _pair(method)
    a3, b3 = _pair(method, scale=3.0)
    lo, hi = difference_interval(a, b, method=method)
    lo3, hi3 = difference_interval(a3, b3, method=method)
    tol = 0.02 if method in RESAMPLING else 1e-6
    assert lo3 == pytest.approx(3 * lo, abs=3 * tol) and hi3 == pytest.approx(3 * hi, abs=3 * tol)


@pytest.mark.parametrize("method", METHODS)
def test_empty_group_is_not_estimable(method):
    a, _ = _pair(method)
    empty = GroupStats(n=0, total=0.0, total_sq=0.0, binary=a.binary)
    with pytest.raises(NotEstimable):
        difference_interval(a, empty, method=method)


@pytest.mark.parametrize("method", METHODS)
def test_unknown_option_and_bad_level_raise(method):
    a, b = _pair(method)
    with pytest.raises(FairboundError, match="takes no option 'frobnicate'"):
        difference_interval(a, b, method=method, frobnicate=1)
    with pytest.raises(FairboundError, match="confidence_level"):
        difference_interval(a, b, method=method, confidence_level=1.5)


@pytest.mark.parametrize("method", METHODS)
def test_bounds_are_finite_and_within_the_cost_range(method):
    a, b = _pair(method)
    lo, hi = difference_interval(a, b, method=method)
    assert math.isfinite(lo) and math.isfinite(hi)
    assert -1.0 - 1e-9 <= lo <= hi <= 1.0 + 1e-9 or INTERVAL_METHODS[method].guarantee in (
        "asymptotic",)


@pytest.mark.parametrize("method", METHODS)
def test_only_methods_marked_random_use_the_generator(method):
    # difference_interval hands a Generator only to methods registered with random=True;
    # every other method must give the same interval whatever generator it is given
    a, b = _pair(method)
    got = {difference_interval(a, b, method=method, rng=np.random.default_rng(s))
           for s in (0, 1, 2)}
    assert (len(got) > 1) == INTERVAL_METHODS[method].random


ACCEPTING = [m for m in METHODS if INTERVAL_METHODS[m].accepts is not None]


@pytest.mark.parametrize("method", ACCEPTING)
@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_accepts_inside_and_not_far_outside(method, scale):
    # the registry's accepts hook: True only for values the interval contains (planning
    # relies on it), in both orientations and in the cost's own scale
    accepts = INTERVAL_METHODS[method].accepts
    a, b = _pair(method, scale=scale)
    lo, hi = difference_interval(a, b, method=method)
    width = hi - lo
    for d in (a.mean - b.mean, lo + 0.25 * width, hi - 0.25 * width):
        assert accepts(a, b, d, 0.95)
        assert accepts(b, a, -d, 0.95)
    for d in (lo - 0.3 * width, hi + 0.3 * width):
        assert not accepts(a, b, d, 0.95)
        assert not accepts(b, a, -d, 0.95)
    # the level matters: a value just inside the 90% interval's end is outside the 50% one
    lo50, _ = difference_interval(a, b, method=method, confidence_level=0.5)
    lo90, _ = difference_interval(a, b, method=method, confidence_level=0.9)
    d = lo90 + 0.1 * (lo50 - lo90)
    assert accepts(a, b, d, 0.9) and not accepts(a, b, d, 0.5)


@pytest.mark.parametrize("method", ACCEPTING)
def test_accepts_refuses_what_the_interval_refuses(method):
    a, b = _pair(method)
    empty = GroupStats(n=0, total=0.0, total_sq=0.0, binary=a.binary)
    assert not INTERVAL_METHODS[method].accepts(empty, b, 0.0, 0.95)
    other = GroupStats.from_counts(120, 25, cost_max=2.0)
    assert not INTERVAL_METHODS[method].accepts(a, other, 0.0, 0.95)
