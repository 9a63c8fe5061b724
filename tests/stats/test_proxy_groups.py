"""The statistical core of proxy-group audits: closed-form bounds against brute-force LPs,
the prediction-powered interval against direct per-row formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import linprog

from fairbound.stats.base import NotEstimable
from fairbound.stats.proxy_groups import (
    ProxyMoments,
    calibration,
    cell_bounds,
    complement_bounds,
    ppi_gap,
    rate_bounds,
    weighted_gap,
)

TPR = ([0, 0, 0, 1], [0, 0, 1, 1])
SEL = ([0, 1, 0, 1], [1, 1, 1, 1])
PREC = ([0, 0, 0, 1], [0, 1, 0, 1])


def _lp_gap_bounds(P, q, s4, num, den, grid=401):
    """Brute force: every coupling pi_c(g, k) of the marginals q_c(g) and s_c(k) (g = a or
    not a, k = 4 outcome cells), the gap maximised by an LP at each fixed denominator D_a
    on a fine grid (the gap is linear in the numerator once D_a is fixed)."""
    C = len(P)
    nv = C * 8                               # pi[c, g, k], g in (a, rest)

    def idx(c, g, k):
        return c * 8 + g * 4 + k

    a_eq, b_eq = [], []
    for c in range(C):
        for g, qq in ((0, q[c]), (1, 1 - q[c])):
            row = np.zeros(nv)
            for k in range(4):
                row[idx(c, g, k)] = 1
            a_eq.append(row)
            b_eq.append(qq)
        for k in range(4):
            row = np.zeros(nv)
            row[idx(c, 0, k)] = row[idx(c, 1, k)] = 1
            a_eq.append(row)
            b_eq.append(s4[c, k])
    num, den = np.asarray(num, float), np.asarray(den, float)
    dvec = np.zeros(nv)
    nvec = np.zeros(nv)
    for c in range(C):
        for k in range(4):
            dvec[idx(c, 0, k)] = P[c] * den[k]
            nvec[idx(c, 0, k)] = P[c] * num[k]
    sA = sum(P[c] * s4[c] @ num for c in range(C))
    sD = sum(P[c] * s4[c] @ den for c in range(C))
    ends = [linprog(sgn * dvec, A_eq=a_eq, b_eq=b_eq, bounds=(0, None)).fun * sgn
            for sgn in (1, -1)]
    best_hi, best_lo = -np.inf, np.inf
    for d in np.linspace(max(ends[0], 1e-6), min(ends[1], sD - 1e-6), grid):
        aa = np.vstack([a_eq, dvec])
        bb = np.append(b_eq, d)
        for sgn in (1, -1):
            r = linprog(-sgn * nvec, A_eq=aa, b_eq=bb, bounds=(0, None))
            if r.status != 0:
                continue
            x = sgn * -r.fun
            gap = x / d - (sA - x) / (sD - d)
            if sgn == 1:
                best_hi = max(best_hi, gap)
            else:
                best_lo = min(best_lo, gap)
    return best_lo, best_hi


def _check_against_lp(seed, metric, grid, tol):
    rng = np.random.default_rng(seed)
    C = 3
    P = rng.dirichlet(np.ones(C))
    q = rng.uniform(0.1, 0.9, C)
    s4 = rng.dirichlet(np.ones(4), C)
    num, den = metric
    s = np.stack([s4 @ np.array(num, float), s4 @ (np.array(den, float) - num),
                  1 - s4 @ np.array(den, float)], axis=1)
    lo, hi = complement_bounds(P, q, s)
    blo, bhi = _lp_gap_bounds(P, q, s4, num, den, grid=grid)
    # the closed form is exact; the grid approaches it from inside
    assert float(lo) <= blo + 1e-7 and float(hi) >= bhi - 1e-7
    assert abs(float(lo) - blo) < tol and abs(float(hi) - bhi) < tol


def test_complement_bounds_equal_brute_force_lp():
    _check_against_lp(0, TPR, grid=15, tol=0.05)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("metric", [TPR, PREC, SEL])
def test_complement_bounds_equal_brute_force_lp_fine(seed, metric):
    _check_against_lp(seed, metric, grid=301, tol=0.003)


def test_complement_bounds_identified_when_cells_are_pure():
    # P(a | cell) in {0, 1}: the group is known, the set is a point (the true gap)
    P = np.array([0.5, 0.5])
    q = np.array([1.0, 0.0])
    s4 = np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.1, 0.4, 0.1]])
    s = np.stack([s4[:, 3], s4[:, 2], s4[:, 0] + s4[:, 1]], axis=1)
    lo, hi = complement_bounds(P, q, s)
    true = 0.4 / 0.7 - 0.1 / 0.5
    assert float(lo) == pytest.approx(true) and float(hi) == pytest.approx(true)


def test_rate_bounds_against_lp():
    rng = np.random.default_rng(5)
    P = rng.dirichlet(np.ones(4))
    q = rng.uniform(0.2, 0.8, 4)
    s = rng.dirichlet(np.ones(3), 4)
    lo, hi = rate_bounds(P, q, s)
    # LP over x^A, x^B per cell for a fixed D, rate = X / D maximised on a grid
    best = []
    for d in np.linspace(1e-3, 1.0, 60):
        c = np.concatenate([-P, np.zeros(4)])
        a_eq = [np.concatenate([P, P])]
        a_ub = np.vstack([np.hstack([np.eye(4), np.eye(4)]),
                          -np.hstack([np.eye(4), np.eye(4)])])
        b_ub = np.concatenate([q, -(q - s[:, 2])])
        bounds = [(0, s[i, 0]) for i in range(4)] + [(0, s[i, 1]) for i in range(4)]
        for sgn in (1, -1):
            r = linprog(sgn * c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[d], bounds=bounds)
            if r.status == 0:
                best.append(-sgn * r.fun / d if sgn == 1 else r.fun / d)
    assert float(hi) >= max(best) - 1e-7 and float(hi) == pytest.approx(max(best), abs=0.02)
    assert float(lo) <= min(best) + 1e-7 and float(lo) == pytest.approx(min(best), abs=0.02)


def test_cell_bounds_widened_contains_estimated_and_outer_for_pairs():
    counts = np.array([[40, 10, 10, 40], [10, 40, 40, 10], [25, 25, 25, 25]])
    qa = np.array([0.7, 0.2, 0.1])
    qb = np.array([0.2, 0.3, 0.1])
    sharp = cell_bounds(counts, qa, None, *TPR, 0.95, complement=True)
    outer = cell_bounds(counts, qa, qb, *TPR, 0.95, complement=False)
    assert sharp.sharp and not outer.sharp
    assert sharp.low_widened < sharp.low <= sharp.high < sharp.high_widened
    assert outer.low <= outer.high and -1 <= outer.low_widened


def _rows(n, rng, strength=1.5, gap=0.05):
    g = (rng.random(n) < 0.5).astype(int)
    logit = rng.normal(np.where(g == 1, strength, -strength) / 2, 1.0)
    p1 = 1 / (1 + np.exp(-logit * strength))
    y = (rng.random(n) < 0.4).astype(int)
    yh = (rng.random(n) < np.where(y == 1, np.where(g == 1, 0.75, 0.75 + gap), 0.2)).astype(int)
    return g, np.column_stack([1 - p1, p1]), 2 * y + yh


def test_ppi_gap_equals_direct_row_formula():
    rng = np.random.default_rng(3)
    n = 3000
    g, prob, cell = _rows(n, rng)
    lab = np.where(rng.random(n) < 0.1, g, -1)
    m = ProxyMoments.from_rows(prob, cell, lab)
    num, den = np.array(TPR[0], float), np.array(TPR[1], float)
    res = ppi_gap(m, [1, 0], [0, 1], num, den, 0.95, lam=0.7)
    # direct: per-row numerators/denominators with the PPI estimator at lambda = 0.7
    L = lab >= 0
    z = np.eye(2)[g]

    def est(y, f):
        return 0.7 * f.mean() + (y[L] - 0.7 * f[L]).mean()

    c, d = num[cell], den[cell]
    na, da = est(z[:, 0] * c, prob[:, 0] * c), est(z[:, 0] * d, prob[:, 0] * d)
    nb, db = est(z[:, 1] * c, prob[:, 1] * c), est(z[:, 1] * d, prob[:, 1] * d)
    assert res.estimate == pytest.approx(na / da - nb / db)
    ra, rb = na / da, nb / db
    y = z[:, 0] * (c - ra * d) / da - z[:, 1] * (c - rb * d) / db
    f = prob[:, 0] * (c - ra * d) / da - prob[:, 1] * (c - rb * d) / db
    e = y[L] - 0.7 * f[L]
    nl = L.sum()
    var = y[L].var() / n + (1 / nl - 1 / n) * e.var()
    assert res.std_error == pytest.approx(math.sqrt(var), rel=1e-6)
    w = weighted_gap(m, [1, 0], [0, 1], num, den)
    assert w[1] == pytest.approx((prob[:, 0] * c).sum() / (prob[:, 0] * d).sum())


def test_ppi_gap_needs_annotations_and_weights_reduce_to_uniform():
    rng = np.random.default_rng(4)
    g, prob, cell = _rows(2000, rng)
    with pytest.raises(NotEstimable):
        ppi_gap(ProxyMoments.from_rows(prob, cell), [1, 0], [0, 1], *TPR, 0.95)
    lab = np.where(rng.random(2000) < 0.2, g, -1)
    pi = np.full(2000, (lab >= 0).mean())
    a = ppi_gap(ProxyMoments.from_rows(prob, cell, lab), [1, 0], [0, 1], *TPR, 0.95)
    b = ppi_gap(ProxyMoments.from_rows(prob, cell, lab, pi), [1, 0], [0, 1], *TPR, 0.95)
    assert a.estimate == pytest.approx(b.estimate) and a.high == pytest.approx(b.high)
    assert a.needed >= 0 and a.needed_labeled_only >= a.needed


def test_calibration_flags_miscalibrated_probabilities():
    _, share, p_ok = calibration([200, 200], [21, 158], [20.0, 160.0])
    _, _, p_bad = calibration([200, 200], [60, 100], [20.0, 160.0])
    assert p_ok > 0.5 and p_bad < 1e-6
    assert math.isnan(calibration([0], [0], [0.0])[2])
