"""Threshold sweeps on a grid (:func:`fairbound.stats.scores.sweep_grid`) against the full sweep."""

from __future__ import annotations

import numpy as np
import pytest

from fairbound.errors import FairboundError
from fairbound.stats.scores import (
    DEFAULT_MAX_THRESHOLDS,
    ScoreHistogram,
    sweep_grid,
    threshold_sweep,
)


def pair(n_a: int = 4000, n_b: int = 2500, seed: int = 0, digits: int | None = None):
    """Two groups of continuous scores (nearly every value distinct) with a rate gap."""
    rng = np.random.default_rng(seed)
    ya, yb = rng.random(n_a) < 0.4, rng.random(n_b) < 0.3
    sa = rng.normal(size=n_a) + 1.2 * ya
    sb = rng.normal(size=n_b) + 0.6 * yb + 0.2
    if digits is not None:
        sa, sb = np.round(sa, digits), np.round(sb, digits)
    return ScoreHistogram.from_arrays(sa, ya), ScoreHistogram.from_arrays(sb, yb)


@pytest.mark.parametrize("rate", ["selection_rate", "tpr", "fpr"])
def test_grid_is_a_subset_of_the_scores_with_both_minima(rate):
    ha, hb = pair()
    t, full = sweep_grid(ha, hb, rate=rate, max_thresholds=201)
    assert not full and 3 <= len(t) <= 201
    assert np.all(np.diff(t) > 0)
    assert np.isin(t, np.union1d(ha.values, hb.values)).all()
    assert t[0] == min(ha.values[0], hb.values[0])


def test_few_distinct_scores_give_the_full_sweep():
    ha, hb = pair(digits=1)  # about 70 distinct values: under the default
    t, full = sweep_grid(ha, hb)
    assert full and np.array_equal(t, np.union1d(ha.values, hb.values))
    sw = threshold_sweep(ha, hb, max_thresholds=DEFAULT_MAX_THRESHOLDS)
    ref = threshold_sweep(ha, hb)
    assert not sw.grid and sw.resolution == 0.0
    for name in ("thresholds", "rate_a", "rate_b", "gap", "low", "high"):
        assert np.array_equal(getattr(sw, name), getattr(ref, name))


@pytest.mark.parametrize("rate", ["selection_rate", "tpr", "fpr"])
def test_grid_values_are_the_full_sweeps_bit_for_bit(rate):
    ha, hb = pair(seed=1)
    full = threshold_sweep(ha, hb, rate=rate)  # every distinct score
    grid = threshold_sweep(ha, hb, rate=rate, max_thresholds=301)
    assert grid.grid and len(grid.thresholds) <= 301 < len(full.thresholds)
    at = np.searchsorted(full.thresholds, grid.thresholds)
    assert np.array_equal(full.thresholds[at], grid.thresholds)
    for name in ("rate_a", "rate_b", "gap", "low", "high"):
        assert np.array_equal(getattr(full, name)[at], getattr(grid, name)), name
    assert grid.critical == full.critical  # DKW: the band's width does not depend on t


@pytest.mark.parametrize("seed", range(4))
def test_resolution_bounds_the_gap_between_grid_thresholds(seed):
    ha, hb = pair(seed=seed)
    full = threshold_sweep(ha, hb, rate="tpr")
    grid = threshold_sweep(ha, hb, rate="tpr", max_thresholds=41)
    k = (41 - 1) // 2
    assert 0 < grid.resolution
    # each group's rate moves by at most 1/(k + 1) plus one value's share between grid points
    atom = max(ha.pos.max() / ha.n_pos, hb.pos.max() / hb.n_pos)
    assert grid.resolution <= 1 / (k + 1) + atom + 1e-12
    assert np.max(np.abs(full.gap)) <= np.max(np.abs(grid.gap)) + grid.resolution + 1e-12
    assert np.max(np.abs(grid.gap)) <= np.max(np.abs(full.gap))


def test_sup_t_on_the_grid_draws_the_same_law():
    """Merged cells (one normal per cell) against every score's normal at the same grid."""
    ha, hb = pair(n_a=1200, n_b=800, seed=2)
    grid = threshold_sweep(ha, hb, band="sup-t", max_thresholds=61, n_sim=3000, seed=3)
    # the same thresholds given explicitly: simulated over every distinct score
    ref = threshold_sweep(ha, hb, band="sup-t", thresholds=grid.thresholds, n_sim=3000, seed=4)
    assert grid.grid and grid.guarantee == "asymptotic"
    # two Monte Carlo estimates of one 95% quantile (3,000 draws each): within a few percent
    assert abs(grid.critical - ref.critical) < 0.08 * ref.critical
    # and a wrong law would show: the pointwise 95% value (1.96) is well below both
    assert grid.critical > 2.3


@pytest.mark.parametrize("bad", [0, 2, 2.5, True, "many"])
def test_bad_max_thresholds_is_one_line(bad):
    ha, hb = pair(n_a=50, n_b=50)
    with pytest.raises(FairboundError, match="max_thresholds must be a whole number >= 3"):
        sweep_grid(ha, hb, max_thresholds=bad)
