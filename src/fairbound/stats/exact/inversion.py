"""The Berger-Boos p-value of the exact test and its inversion into an interval.

For one observed table (:class:`_Table`): the p-value ``p(d)`` of the exact unconditional
score test at many nulls at once (:func:`_pvalues`, exactly on windows of counts where the
binomial variances are small, with the tail bound of :mod:`fairbound.stats.exact.bound`
elsewhere), and the search for the ends of ``{d : p(d) > alpha}`` (:func:`_search`).  For
many tables in the tail-bound regime: both ends of every table searched together on arrays
(:func:`_bound_search`).  The method, its guarantee and its tuning are described in
:mod:`fairbound.stats.exact`.
"""

from __future__ import annotations

import math
import os

import numpy as np

from fairbound.stats.exact.binomial import (
    _binom_pmf,
    _distinct,
    _ndtri,
    _unit,
    _window,
    arcsine_grid,
    count_spread,
    dense_runs,
    nuisance_boxes,
    window_table,
)
from fairbound.stats.exact.bound import _bound_sup, _grid_sup, bound_tail
from fairbound.stats.exact.statistic import score_statistic

#: Binomial variance ``n p (1 - p)`` up to which a simple null is tested exactly.
EXACT_VARIANCE = 2500.0

#: ``|T| >= (1 - TIE) |T_obs|`` counts as "at least as extreme" (both statistics).
TIE = 1e-9
_TIE = TIE
_TAIL_LOG = 30.0        # windows drop at most 2 exp(-30) ~ 2e-13 of each binomial's mass
_DENSE_CELLS = 8_000    # runs from a dense table of statistics below this many cells
_MATRIX_CELLS = 20_000  # windows up to this many tables use a 0/1 acceptance matrix
_SPACING = 0.8          # nuisance grid step, in standard errors (arcsine scale)
_SETTLED = 0.01         # grid p-values this far below alpha are rejections (gain < 0.004)
_SCAN_WIDE = (0.5, 0.01)    # islands are looked for 0.5 se past each end in 0.01 steps,
_SCAN_MID = (0.1, 0.01)     # 0.1 se when 25 < n p q <= 100 (on 300 random tables there, at
                            # 95% and 99.67%, a 0.3 se scan found nothing further out:
                            # python benchmarks/exact_checks.py scan),
_SCAN_NEAR = (0.02, 0.005)  # or 0.02 se in 0.005 steps when n p q > 100 (p smoother)
_SMOOTH_SPREAD = 100.0   # n p q of both groups above this: p smooth enough to batch
_SCAN_SETTLED = 0.003    # scanned grid p-values this far below alpha are not refined
#: first candidates of the batched tail-bound search, in multiples of the normal end z se
_FIRST_Z = {4: np.array([1.0, 1.06, 1.14, 1.3])}
_FIRST = {4: np.array([0.0, 0.03, 0.08, 0.2]),
          8: np.array([-0.02, 0.0, 0.015, 0.03, 0.05, 0.08, 0.15, 0.3])}


def _cheap_rate(n: int) -> float:
    """Largest ``min(p, 1 - p)`` with ``n p (1 - p) <= EXACT_VARIANCE`` (0.5: every p)."""
    if n <= 4.0 * EXACT_VARIANCE:
        return 0.5
    return 0.5 - math.sqrt(0.25 - EXACT_VARIANCE / n)


class _Table:
    """One observed table, its Berger-Boos nuisance bounds and exact-test rate limits."""

    def __init__(self, k_a: int, n_a: int, k_b: int, n_b: int, gamma: float):
        self.ka, self.na, self.kb, self.nb = int(k_a), int(n_a), int(k_b), int(n_b)
        self.gamma = float(gamma)
        self.d_hat = self.ka / self.na - self.kb / self.nb
        self.cp_a, self.cp_b = nuisance_boxes(self.ka, self.na, self.kb, self.nb, self.gamma)
        self.tau_a = _cheap_rate(self.na)
        self.tau_b = _cheap_rate(self.nb)
        self.all_exact = self.tau_a >= 0.5 and self.tau_b >= 0.5
        self.first_grid = None      # kept by _invert_score
        self.grid_rows: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}   # and its finer rows

    def nuisance(self, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Range of ``p_B`` in the nuisance confidence set under ``p_A - p_B = d``."""
        lo = np.maximum(np.maximum(0.0, -d), np.maximum(self.cp_b[0], self.cp_a[0] - d))
        hi = np.minimum(np.minimum(1.0, 1.0 - d), np.minimum(self.cp_b[1], self.cp_a[1] - d))
        return lo, hi

    def exact_pieces(self, d, lo, hi):
        """Sub-intervals of ``[lo, hi]`` where both binomial variances are small enough."""
        def parts(tau):
            return [(0.0, 1.0)] if tau >= 0.5 else [(0.0, tau), (1.0 - tau, 1.0)]

        pieces = []
        for ia in parts(self.tau_a):
            for ib in parts(self.tau_b):
                a = np.maximum(np.maximum(lo, ib[0]), ia[0] - d)
                b = np.minimum(np.minimum(hi, ib[1]), ia[1] - d)
                pieces.append((a, b))
        return pieces


# --------------------------------------------------------------------------- exact part
class _ExactBatch:
    """Nulls ``(d, threshold)`` with nuisance intervals ``[a, b]``, on one window of tables.

    Rows may come from different observed tables (they only share the group sizes); the
    accepted tables of row ``r`` are ``lo[r, x] <= y <= hi[r, x]`` (indices into the
    window's rows ``ys``).
    """

    def __init__(self, na: int, nb: int, d, thr, a, b):
        self.na, self.nb = na, nb
        self.d, self.thr, self.a, self.b = d, thr, a, b
        self.xl, self.xh, self.xs, self.lca = window_table(na, float(np.min(a + d)),
                                                          float(np.max(b + d)))
        self.yl, self.yh, self.ys, self.lcb = window_table(nb, float(np.min(a)),
                                                          float(np.max(b)))
        self.ka2 = np.concatenate([self.xs, na - self.xs]).reshape(2, -1)
        self.kb2 = np.concatenate([self.ys, nb - self.ys]).reshape(2, -1)
        m, wx, wy = d.size, self.xs.size, self.ys.size
        if m * wx * wy <= _DENSE_CELLS:
            self.lo, last = dense_runs(score_statistic, self.xs, self.ys, na, nb, d, thr)
            self.hi = last - 1
        else:
            self.lo, self.hi = self._runs()
        self.accept = None
        self._kept = None                   # rows last asked of reject and their copies
        if wx * wy <= _MATRIX_CELLS:
            yi = np.arange(wy)[None, :, None]
            self.accept = ((yi >= self.lo[:, None, :]) & (yi <= self.hi[:, None, :])).astype(
                float)
        else:
            # each column's run as the rows lo .. hi + 1 of the cumulated pmf of B that
            # :meth:`reject` subtracts (an empty run: equal rows)
            lo = np.minimum(np.maximum(self.lo, 0), wy)
            self._ends = lo, np.maximum(np.minimum(np.maximum(self.hi + 1, 0), wy), lo)

    # -- accepted runs -------------------------------------------------------------------
    def _pred(self, j, x, d, th, sg):
        # the run's end is reached: T < thr (first accepted) or T <= -thr (first beyond)
        t = score_statistic(x, self.ys[np.minimum(np.maximum(j, 0), self.ys.size - 1)],
                            self.na, self.nb, d)
        return np.where(sg, t < th, t <= -th)

    def _first_true(self, x, d, th, sg, a, b):
        # smallest j in (a, b] with pred(j), pred(b) holding by assumption (flat arrays)
        while True:
            act = np.flatnonzero(b - a > 1)
            if not act.size:
                return b
            mid = (a[act] + b[act]) // 2
            ok = self._pred(mid, x[act], d[act], th[act], sg[act])
            b[act] = np.where(ok, mid, b[act])
            a[act] = np.where(ok, a[act], mid)

    def _guess(self):
        """First accepted row and first row beyond, guessed from the curves ``T = +-thr``.

        The tables whose restricted MLE is ``(p_B + d, p_B)`` and on which ``T = t`` reduce
        to the point ``x = n_A p_A + t p_A q_A / s``, ``y = n_B p_B - t p_B q_B / s`` (``s``
        the standard error under the null): the likelihood equation and ``T = t`` are two
        linear equations in ``(x, y)``.  Sampling ``p_B`` traces the curve, and each
        column's crossing is read off by linear interpolation.
        """
        na, nb, d, thr = self.na, self.nb, self.d, self.thr
        m, wx, wy = d.size, self.xs.size, self.ys.size
        t = np.concatenate([thr, -thr]).reshape(2, m, 1)
        tmax = float(np.max(thr))
        mx = tmax * math.sqrt(na) / 2.0 + 2.0
        my = tmax * math.sqrt(nb) / 2.0 + 2.0
        lo = max((self.xl - mx) / na - float(np.max(d)), (self.yl - my) / nb)
        hi = min((self.xh + mx) / na - float(np.min(d)), (self.yh + my) / nb)
        k = int(min(max((hi - lo) * 2.0 * max(na, nb), 2.0), 8.0 * (wx + wy))) + 1
        lo_r = np.maximum(lo, np.maximum(0.0, -d) + 1e-12)[None, :, None]
        hi_r = np.minimum(hi, np.minimum(1.0, 1.0 - d) - 1e-12)[None, :, None]
        nu = lo_r + (np.maximum(hi_r, lo_r) - lo_r) * _unit(k)
        pa = nu + d[None, :, None]
        va, vb = pa * (1.0 - pa), nu * (1.0 - nu)
        s = np.sqrt(va / na + vb / nb)
        cx = na * pa + t * va / s                                    # (2, m, k)
        cy = nb * nu - t * vb / s
        # every row's curve is sorted in x: search all columns at once on shifted copies
        span = float(na) + 4.0 * mx + 4.0
        off = (np.arange(2 * m, dtype=float) * span).reshape(2, m, 1)
        flat = (np.minimum(np.maximum(cx, -mx - 1.0), na + mx + 1.0) + off).ravel()
        j = np.searchsorted(flat, (self.xs + off).ravel(), side="right").reshape(2, m, wx)
        base = (np.arange(2 * m) * k).reshape(2, m, 1)
        j = np.minimum(np.maximum(j - 1 - base, 0), k - 2) + base
        j1 = j + 1
        cx, cy = cx.ravel(), cy.ravel()
        x0, x1 = cx.take(j), cx.take(j1)
        y0, y1 = cy.take(j), cy.take(j1)
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(x1 > x0, (self.xs - x0) / (x1 - x0), 0.0)   # extrapolates at ends
        # ystar = y0 + w (y1 - y0), then nan -> 0, inf -> nb + 1, -inf -> -1
        ystar = np.subtract(y1, y0, out=y1)
        np.multiply(w, ystar, out=ystar)
        np.add(y0, ystar, out=ystar)
        if not np.isfinite(ystar).all():
            ystar = np.nan_to_num(ystar, nan=0.0, posinf=nb + 1.0, neginf=-1.0)
        # first accepted row floor(ystar) + 1 (T = +thr), first beyond ceil(ystar) (T = -thr)
        first = w
        np.floor(ystar[0], out=first[0])
        first[0] += 1.0
        np.ceil(ystar[1], out=first[1])
        first -= self.yl
        np.maximum(first, 0, out=first)
        return np.minimum(first, wy, out=first).astype(np.int64)

    def _runs(self):
        """Every column's run: guessed, certified by the statistic, repaired if wrong."""
        m, wx, wy = self.d.size, self.xs.size, self.ys.size
        shape = (2, m, wx)
        g = self._guess()
        # pred(g) and not pred(g - 1) certify g, the predicate being monotone in the row:
        # the statistic at rows (g, g - 1) x (first accepted, first beyond) x nulls x
        # columns, with the columns and nulls broadcast (as in _pred, elementwise)
        rows = np.minimum(np.maximum(np.stack([g, g - 1]), 0), wy - 1)
        t = score_statistic(self.xs, self.ys[rows], self.na, self.nb, self.d[:, None])
        th = self.thr[:, None]
        both = np.empty(t.shape, bool)
        np.less(t[:, 0], th, out=both[:, 0])
        np.less_equal(t[:, 1], -th, out=both[:, 1])
        both = both.reshape(2, -1)
        g = g.ravel()
        here = both[0] | (g >= wy)
        before = both[1] & (g > 0)
        bad = np.flatnonzero(~(here & ~before))
        if bad.size:
            # the flat arguments of _pred for the wrong guesses
            side, row, col = np.unravel_index(bad, shape)
            x, dd, th, sg = self.xs[col], self.d[row], self.thr[row], side == 0
            # above g when pred(g) fails, at or below g - 1 when pred(g - 1) holds;
            # guesses are rarely off by more than one, so try the neighbour first
            up = ~here[bad]
            gb = g[bad]
            h = np.where(up, gb + 1, gb - 1)
            pair = self._pred(np.stack([h, h - 1]), x, dd, th, sg)
            fixed = (pair[0] | (h >= wy)) & ~(pair[1] & (h > 0))
            g[bad[fixed]] = h[fixed]
            rest = ~fixed
            if rest.any():
                br = bad[rest]
                a = np.where(up[rest], np.where(pair[0][rest], gb[rest], h[rest]), -1)
                b = np.where(up[rest], np.where(pair[0][rest], h[rest], wy),
                             np.where(pair[1][rest], h[rest] - 1, h[rest]))
                g[br] = self._first_true(x[rest], dd[rest], th[rest], sg[rest], a, b)
        g = g.reshape(shape)
        return g[0], g[1] - 1

    # -- rejection probabilities ---------------------------------------------------------
    def _part(self, rows):
        """Nulls, acceptance matrix and run ends of ``rows`` (``None``: all rows).

        The copies for ``rows`` are kept for the next call with the same index array
        (:meth:`refine` asks for the same rows every round).
        """
        if rows is None:
            return self.d, self.accept, getattr(self, "_ends", None)
        kept = self._kept
        if kept is not None and kept[0] is rows:
            return kept[1]
        part = (self.d[rows], None if self.accept is None else self.accept[rows],
                None if self.accept is not None else (self._ends[0][rows],
                                                       self._ends[1][rows]))
        self._kept = rows, part
        return part

    def reject(self, nu: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Probability of each row's rejection region at the nuisance values ``nu`` (m, k)."""
        d, acc, ends = self._part(rows)
        pa_ = _binom_pmf(self.ka2, self.lca, nu + d[:, None])
        pb_ = _binom_pmf(self.kb2, self.lcb, nu)
        if acc is not None:
            # small windows: P(accept) = sum_x pA(x) sum_y [lo(x) <= y <= hi(x)] pB(y)
            return 1.0 - np.einsum("mkx,mkx->mk", pa_, pb_ @ acc)
        lo, hi = ends
        m, k = nu.shape
        wy = self.ys.size
        # the cumulated pmf of B with the nuisance values innermost, so that each column's
        # two ends are read as contiguous rows of k values; row 0 of each null is F(-1) = 0
        cz = np.empty((m * (wy + 1), k))
        cz3 = cz.reshape(m, wy + 1, k)
        cz3[:, 0, :] = 0.0
        np.cumsum(pb_.transpose(0, 2, 1), axis=1, out=cz3[:, 1:, :])
        # F(hi(x)) - F(lo(x) - 1) for every column x: whole rows picked by np.take, several
        # times faster than indexing cz3 with two index arrays, then x made innermost as in
        # pa_ (einsum's order of summation, hence the result, depends on the layout)
        base = (np.arange(m) * (wy + 1))[:, None]
        inside = np.take(cz, (hi + base).ravel(), axis=0)
        inside -= np.take(cz, (lo + base).ravel(), axis=0)
        inside = np.ascontiguousarray(inside.reshape(m, -1, k).transpose(0, 2, 1))
        return 1.0 - np.einsum("mkx,mkx->mk", pa_, inside)

    def grid(self, spacing: float = _SPACING) -> np.ndarray:
        """Nuisance grid per row, evenly spaced in the combined arcsine scale (m, G).

        :func:`~fairbound.stats.exact.binomial.arcsine_grid` with ``p_A = nu + d``.
        """
        d = self.d[:, None]
        return arcsine_grid(self.na, self.nb, self.a, self.b, lambda nu: nu + d, spacing)

    def coarse(self, spacing: float = _SPACING):
        """Rejection probabilities on the nuisance grid: ``(grid, values)``."""
        nu = self.grid(spacing)
        return nu, self.reject(nu)

    def refine(self, nu, r, rows, rounds: int = 2, peaks: int = 2) -> np.ndarray:
        """Suprema for ``rows``: the grid's best local maxima refined on local grids.

        Each round evaluates, around each maximum, four points at ``-2/3 h .. 2/3 h`` and
        the vertex of the parabola through the best point so far and its neighbours, then
        moves to the best and divides ``h`` by 3.
        """
        nu, r = nu[rows], r[rows]
        m, g = nu.shape
        ix = np.arange(m)[:, None]
        a, b = self.a[rows][:, None, None], self.b[rows][:, None, None]
        left = np.concatenate([np.full((m, 1), -np.inf), r[:, :-1]], axis=1)
        right = np.concatenate([r[:, 1:], np.full((m, 1), -np.inf)], axis=1)
        dup = np.concatenate([np.zeros((m, 1), bool), nu[:, 1:] == nu[:, :-1]], axis=1)
        score = np.where((r >= left) & (r >= right) & ~dup, r, -np.inf)
        j = np.argsort(-score, axis=1)[:, :min(peaks, g)]
        j = np.where(np.isfinite(score[ix, j]), j, j[:, :1])
        jl, jr = np.maximum(j - 1, 0), np.minimum(j + 1, g - 1)
        c, val = nu[ix, j], r[ix, j]
        h = np.maximum(np.maximum(c - nu[ix, jl], nu[ix, jr] - c),
                       (nu[ix, np.minimum(j + 2, g - 1)] - nu[ix, np.maximum(j - 2, 0)]) / 2.0)
        xs = np.stack([nu[ix, jl], c, nu[ix, jr]], axis=-1)
        ys = np.stack([r[ix, jl], val, r[ix, jr]], axis=-1)
        off = np.array([-2.0, -1.0, 1.0, 2.0]) / 3.0
        # (null, peak) indices, so that plain indexing picks along the last axis (as
        # np.take_along_axis would, without its overhead)
        pi = np.arange(j.shape[1])[None, :]
        ix3, pi3 = ix[..., None], pi[..., None]
        for _ in range(rounds):
            # vertex of the parabola through the best point and its neighbours so far
            order = np.argsort(xs, axis=-1)
            xs = xs[ix3, pi3, order]
            ys = ys[ix3, pi3, order]
            k = np.minimum(np.maximum(ys.argmax(axis=-1), 1), xs.shape[-1] - 2)
            x0, x1, x2 = (xs[ix, pi, k + o] for o in (-1, 0, 1))
            y0, y1, y2 = (ys[ix, pi, k + o] for o in (-1, 0, 1))
            num = (x1 - x0) ** 2 * (y1 - y2) - (x1 - x2) ** 2 * (y1 - y0)
            den = (x1 - x0) * (y1 - y2) - (x1 - x2) * (y1 - y0)
            with np.errstate(divide="ignore", invalid="ignore"):
                vert = np.where(den != 0, x1 - 0.5 * num / den, c)
            vert = np.where(np.isfinite(vert) & (vert >= x0) & (vert <= x2), vert, c)
            cand = np.concatenate([c[..., None] + h[..., None] * off, vert[..., None]], axis=-1)
            cand = np.minimum(np.maximum(cand, a), b)
            rc = self.reject(cand.reshape(m, -1), rows).reshape(cand.shape)
            # the points of this round in order around the centre, and the vertex
            xs = np.concatenate([cand[..., :2], c[..., None], cand[..., 2:]], axis=-1)
            ys = np.concatenate([rc[..., :2], val[..., None], rc[..., 2:]], axis=-1)
            best = np.argmax(ys, axis=-1)
            c, val = xs[ix, pi, best], ys[ix, pi, best]
            h = h / 3.0
        return np.maximum(r.max(axis=1), val.max(axis=1))



# --------------------------------------------------------------------------- p-values
def _pvalues(tab: _Table, d, alpha: float | None = None, settled=_SETTLED,
             rounds: int = 2):
    """Berger-Boos p-values ``sup_{nu in C} p_nu + gamma`` at the nulls ``p_A - p_B = d``.

    Returns ``(p, full)``: the p-values and whether each is the refined supremum (else the
    grid's value, a lower bound: enough to accept, not to reject).  Without ``alpha`` every
    supremum is refined; with it, only grid values in ``(alpha - settled, alpha]`` are
    (``settled`` a number or one per null; 0 never refines): a grid value above ``alpha``
    already accepts, and refinement adds less than 0.004 in our measurements.  Where a
    nuisance value is not tested exactly the tail bound is used, always at its supremum.
    """
    d = np.asarray(d, dtype=float)
    m = d.size
    settled = np.broadcast_to(np.asarray(settled, dtype=float), (m,))
    tobs = np.abs(score_statistic(float(tab.ka), float(tab.kb), tab.na, tab.nb, d))
    thr = tobs * (1.0 - _TIE)
    lo, hi = tab.nuisance(d)
    p = np.full(m, tab.gamma)
    p[thr <= 0] = 1.0
    full = np.ones(m, bool)
    todo = np.flatnonzero((thr > 0) & (lo <= hi))
    if not todo.size:
        return np.minimum(p, 1.0), full
    d, thr, lo, hi, settled = d[todo], thr[todo], lo[todo], hi[todo], settled[todo]
    sup = np.zeros(d.size)
    pieces = [(lo, hi)] if tab.all_exact else tab.exact_pieces(d, lo, hi)
    if not tab.all_exact:
        covered = np.zeros(d.size, bool)
        for a, b in pieces:
            covered |= (a <= lo) & (b >= hi)
        rest = np.flatnonzero(~covered)
        if rest.size:
            s = np.abs(tab.d_hat - d[rest])
            holes = [(a[rest], b[rest]) for a, b in pieces]
            sup[rest] = _bound_sup(tab, d[rest], s, lo[rest], hi[rest], holes)
    done = np.ones(d.size, bool)
    batches = []
    for a, b in pieces:
        rows = np.flatnonzero(a <= b)
        if rows.size:
            batch = _ExactBatch(tab.na, tab.nb, d[rows], thr[rows], a[rows], b[rows])
            nu, r = batch.coarse()
            sup[rows] = np.maximum(sup[rows], r.max(axis=1))
            batches.append((rows, batch, nu, r))
    for rows, batch, nu, r in batches:
        g = sup[rows] + tab.gamma
        if alpha is None:
            need = np.arange(rows.size)
        else:
            need = np.flatnonzero((g <= alpha) & (g > alpha - settled[rows]))
            done[rows] &= (g > alpha) | ((settled[rows] > 0) & (g <= alpha - settled[rows]))
        if need.size:
            sup[rows[need]] = np.maximum(sup[rows[need]], batch.refine(nu, r, need, rounds))
            done[rows[need]] = True
    p[todo] = sup + tab.gamma
    full[todo] = done
    return np.minimum(p, 1.0), full


# --------------------------------------------------------------------------- search
def _invert_score(tab: _Table, targets: np.ndarray) -> np.ndarray:
    """``d`` with ``T_obs(d) = target`` for every target (``T_obs`` decreases in ``d``)."""
    x, y = float(tab.ka), float(tab.kb)
    t = np.asarray(targets, dtype=float)[:, None]
    n = t.shape[0]
    rows = np.arange(n)[:, None]
    u = _unit(42)
    # the first round's grid, from -1 to 1, is the same for every target and so are its
    # statistics: the search inverts several times per table, so they are kept on it
    if tab.first_grid is None:
        g = -1.0 + 2.0 * u                  # lo + (hi - lo) * u
        tab.first_grid = g, score_statistic(x, y, tab.na, tab.nb, g)
    g, v = tab.first_grid
    k = np.minimum(np.maximum((v >= t).sum(axis=1, keepdims=True), 1), u.size - 1)
    # the finer grids: each row is lo + (hi - lo) u between two points of the grid before,
    # so it depends only on the brackets found so far (the key); rows and their statistics
    # are kept on the table, as the targets of one end fall in the same brackets round
    # after round (each value is computed elementwise, so the same bits in any batch)
    keys = [(j,) for j in k[:, 0].tolist()]
    ends = (g[k[:, 0] - 1], g[k[:, 0]])
    for _ in range(2):
        g, v = _grid_rows(tab, x, y, u, keys, ends)
        k = np.minimum(np.maximum((v >= t).sum(axis=1, keepdims=True), 1), u.size - 1)
        kk = k[:, 0]
        keys = [key + (j,) for key, j in zip(keys, kk.tolist(), strict=True)]
        ends = (g[rows[:, 0], kk - 1], g[rows[:, 0], kk])
    lo, hi = ends[0][:, None], ends[1][:, None]
    v0, v1 = v[rows, k - 1], v[rows, k]
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.clip(np.where(np.isfinite(v0) & np.isfinite(v1) & (v0 > v1),
                             (v0 - t) / (v0 - v1), 0.5), 0.0, 1.0)
    return (lo + w * (hi - lo))[:, 0]


def _grid_rows(tab: _Table, x: float, y: float, u: np.ndarray, keys: list[tuple],
               ends: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``lo + (hi - lo) u`` of :func:`_invert_score` and ``T_obs`` on them, per key.

    ``ends`` holds each key's ``(lo, hi)``; a key seen before on this table reuses its row.
    """
    memo = tab.grid_rows
    miss = [i for i, key in enumerate(keys) if key not in memo]
    if miss:
        fresh = {}
        for i in miss:                          # each new key once
            fresh.setdefault(keys[i], i)
        idx = np.array(list(fresh.values()))
        lo, hi = ends[0][idx][:, None], ends[1][idx][:, None]
        g = lo + (hi - lo) * u
        v = score_statistic(x, y, tab.na, tab.nb, g)
        for j, key in enumerate(fresh):
            memo[key] = (g[j], v[j])
    got = [memo[key] for key in keys]
    if not got:
        return np.empty((0, u.size)), np.empty((0, u.size))
    return np.stack([r[0] for r in got]), np.stack([r[1] for r in got])


_smooth = count_spread

# the zoom past each end (:func:`_zoom`): where the scanned p-values come within 2% of
# alpha, p is tested on both sides of every change of the rejection region
_ZOOM_HOVER = 0.02      # intervals with a scanned p above (1 - 0.02) alpha are zoomed into
_ZOOM_CELLS = 8_000     # not where the window holds more tables (the statistics cost more
                        # than the search: 2 groups of a few hundred)
_ZOOM_CHANGES = 48      # changes tested per zoom, in the intervals of highest p first
_ZOOM_SUB = 4           # sub-intervals in which the tables near the region are read
_ZOOM_SPLIT = 16        # each change's bracket is cut in 16 pieces,
_ZOOM_ROUNDS = 3        # three times (to 1/4,096 of its sub-interval)


def _crossings(tab: _Table, d0: np.ndarray, d1: np.ndarray):
    """Where the rejection region changes between ``d0`` and ``d1`` (arrays of intervals).

    The region ``R(d) = {(x, y) : |T(x, y; d)| >= |T_obs(d)|}`` is constant between the
    nulls at which one table's statistic meets the observed one.  Every table of the
    intervals' window is read at their ends; one that is on different sides at the two
    ends of an interval, or borders the region (a neighbour in ``y`` on the other side) at
    one of them, is read again at :data:`_ZOOM_SUB` evenly spaced nulls of the interval,
    and every change of side is narrowed to a bracket ``(l, r)`` 1/4,096 of a sub-interval
    wide: ``l`` lies on the side before the change, ``r`` after.  A table that
    changes side twice between two sub-points is not seen.

    Returns ``(interval, l, r)``: per crossing its interval's index and its bracket, or
    ``None`` where the window holds more than :data:`_ZOOM_CELLS` tables.
    """
    na, nb = tab.na, tab.nb
    empty = (np.empty(0, int), np.empty(0), np.empty(0))
    at, where = np.unique(np.r_[d0, d1], return_inverse=True)   # ends shared by intervals
    lo, hi = tab.nuisance(at)
    use = lo <= hi
    if not use.any():
        return empty
    xl, xh = _window(na, float(np.min(lo[use] + at[use])), float(np.max(hi[use] + at[use])))
    yl, yh = _window(nb, float(np.min(lo[use])), float(np.max(hi[use])))
    wx, wy = xh - xl + 1, yh - yl + 1
    if wx * wy > _ZOOM_CELLS:
        return None
    x, y = np.meshgrid(np.arange(xl, xh + 1.0), np.arange(yl, yh + 1.0), indexing="ij")
    x, y = x.ravel(), y.ravel()
    ka, kb = float(tab.ka), float(tab.kb)

    def side(xx, yy, dd):
        t_obs = np.abs(score_statistic(ka, kb, na, nb, dd)) * (1.0 - _TIE)
        return np.abs(score_statistic(xx, yy, na, nb, dd)) >= t_obs

    # the intervals' ends first: a table can change side inside an interval if its sides
    # at the ends differ, or (twice) if it borders the region at one of them
    ends = side(x[None, :], y[None, :], at[:, None])                # (ends, tables)
    grid3 = ends.reshape(at.size, wx, wy)
    edge = np.zeros(grid3.shape, bool)
    edge[..., 1:] |= grid3[..., 1:] != grid3[..., :-1]
    edge[..., :-1] |= grid3[..., 1:] != grid3[..., :-1]
    edge = edge.reshape(ends.shape)
    e0, e1 = where[:d0.size], where[d0.size:]
    near = (ends[e0] != ends[e1]) | edge[e0] | edge[e1]
    iv, t = np.nonzero(near)
    if not iv.size:
        return empty
    # then those tables at the sub-points of their interval
    u = np.linspace(0.0, 1.0, _ZOOM_SUB + 1)
    grid = d0[iv, None] + (d1 - d0)[iv, None] * u                # (pairs, sub)
    inside = side(x[t, None], y[t, None], grid)
    pair, k = np.nonzero(inside[:, 1:] != inside[:, :-1])
    if not pair.size:
        return empty
    iv, t = iv[pair], t[pair]
    xt, yt = x[t], y[t]
    left, r = grid[pair, k], grid[pair, k + 1]
    s_l = inside[pair, k]
    # k-section, a few calls on many points rather than many on few: each round keeps
    # the first of _ZOOM_SPLIT pieces where the side changes
    frac = np.arange(1, _ZOOM_SPLIT) / _ZOOM_SPLIT
    rows = np.arange(left.size)
    for _ in range(_ZOOM_ROUNDS):
        pts = left[:, None] + (r - left)[:, None] * frac
        other = side(xt[:, None], yt[:, None], pts) != s_l[:, None]
        j = np.where(other.any(axis=1), other.argmax(axis=1), frac.size)
        pts = np.concatenate([left[:, None], pts, r[:, None]], axis=1)
        left, r = pts[rows, j], pts[rows, j + 1]
    return iv, left, r


def _zoom(tab: _Table, end: _End, side: int, alpha: float) -> bool:
    """Test ``p`` on both sides of every change of the rejection region where it hovers.

    Past an end the p-value is continuous between the nulls where a table enters or leaves
    the rejection region (:func:`_crossings`) and, on every table measured, largest at one
    end of each such piece (``python benchmarks/exact_checks.py pieces``), so an island
    narrower than the scan's step shows at a piece's end.  Every interval between two
    scanned candidates of this end (past its bracket) where ``p`` at either candidate is
    within :data:`_ZOOM_HOVER` of ``alpha`` is zoomed into: ``p`` is tested just before and
    just after every change there (at most :data:`_ZOOM_CHANGES` changes, those of the
    intervals of highest ``p`` first; none where the window holds more than
    :data:`_ZOOM_CELLS` tables).  Returns whether a tested null was accepted (the search
    then goes on from it).
    """
    inner, outer = end.bracket()
    t_out = end.t[outer]
    idx = sorted((i for i, v in enumerate(end.t) if t_out <= v <= end.scanned + 1e-9),
                 key=end.t.__getitem__)
    pairs = [(i, j, max(end.p[i], end.p[j])) for i, j in zip(idx[:-1], idx[1:], strict=True)
             if end.t[j] > end.zoomed and end.d[i] != end.d[j]]
    pairs = [pair for pair in pairs if pair[2] > (1.0 - _ZOOM_HOVER) * alpha]
    end.zoomed = max(end.zoomed, end.scanned)
    if not pairs:
        return False
    d0 = np.array([end.d[i] for i, _, _ in pairs])
    d1 = np.array([end.d[j] for _, j, _ in pairs])
    found = _crossings(tab, d0, d1)
    if found is None or not found[1].size:
        return False
    iv, left, r = found
    peak = np.array([top for _, _, top in pairs])
    order = np.argsort(-peak, kind="stable")
    count = np.bincount(iv, minlength=len(pairs))[order]
    # whole intervals, highest peak first, while the budget lasts (at least one)
    take = order[:max(1, int(np.searchsorted(np.cumsum(count), _ZOOM_CHANGES, "right")))]
    keep = np.isin(iv, take)
    d = _distinct(np.r_[left[keep], r[keep]])
    p, full = _pvalues(tab, d, alpha, _ZOOM_HOVER * alpha)
    sign = 1.0 if side == 0 else -1.0
    t = sign * score_statistic(float(tab.ka), float(tab.kb), tab.na, tab.nb, d)
    hit = False
    for ti, di, pi, fi in zip(t.tolist(), d.tolist(), p.tolist(), full.tolist(),
                              strict=True):
        acc = pi > alpha
        hit |= acc and ti > end.t[inner]
        end.add(ti, di, pi, acc, acc or fi or pi <= (1.0 - _ZOOM_HOVER) * alpha)
    return hit


def _z_of_p(p):
    return _ndtri(1.0 - 0.5 * min(max(p, 1e-300), 1.0 - 1e-16))


class _End:
    """Search state for one end: every candidate tried, in the statistic's scale ``t``."""

    def __init__(self, d_hat: float, edge: float):
        # t = 0 is the estimate (p = 1, accepted); t = inf is the edge d = -1 or 1, where
        # p <= gamma (rejected; the one table with p = 1 there is handled before)
        self.t, self.d, self.p = [0.0, math.inf], [d_hat, edge], [1.0, 0.0]
        self.acc, self.sure = [True, False], [True, True]
        self.done = False
        self.scanned = -math.inf     # how far (in t) past its end the set was scanned
        self.zoomed = -math.inf      # and how far its changes of region were tested
        self.precise = False         # refine candidates' p-values near alpha

    def add(self, t, d, p, acc, sure):
        if t in self.t:                       # a check of an earlier candidate
            i = self.t.index(t)
            self.p[i], self.acc[i], self.sure[i] = float(p), bool(acc), bool(sure)
            if acc and not self.precise:
                # grid values hover just below alpha here: forget the unconfirmed
                # rejections and decide with suprema from now on
                self.precise = True
                keep = [j for j in range(len(self.t)) if self.acc[j] or self.sure[j]]
                for name in ("t", "d", "p", "acc", "sure"):
                    setattr(self, name, [getattr(self, name)[j] for j in keep])
            return
        self.t.append(float(t))
        self.d.append(float(d))
        self.p.append(float(p))
        self.acc.append(bool(acc))
        self.sure.append(bool(sure))

    def bracket(self) -> tuple[int, int]:
        """(inner, outer): outermost accepted candidate and the nearest one beyond it."""
        # plain Python on the short lists; max and min return the first of equal values,
        # as np.argmax and np.argmin do
        t = self.t
        inner = max((i for i, a in enumerate(self.acc) if a), key=t.__getitem__)
        outer = min((i for i, v in enumerate(t) if v > t[inner]), key=t.__getitem__)
        return inner, outer


def _search(tab: _Table, alpha: float, tol: float = 1e-3) -> tuple[float, float]:
    """Hull of ``{d : p(d) > alpha}``, bracketed from outside.

    Both ends are searched together in the scale of the observed statistic: the candidate
    ``d`` with ``|T_obs(d)| = t``.  The exact ends lie close to, and usually just outside,
    the asymptotic score interval's (``t = z``), so the first round tries ``t = z + _FIRST``.
    Each round keeps, per end, the outermost accepted candidate (inner end of the bracket)
    and the nearest candidate beyond (outer end) and tries new ones between them: around
    the crossing predicted by interpolating ``z(p)`` linearly in ``t`` while the bracket is
    wide, evenly spaced after.  Rounds use the grid supremum, a lower bound: acceptances are
    final; a rejection within ``_SETTLED`` of ``alpha`` is checked with the full supremum
    once it is the outer end of a bracket shorter than ``min(1e-5, tol * se)``.  The outer,
    rejected, end is reported, so the interval errs on the wide side by less than that.
    Past each end the search scans for islands of acceptance and zooms into the changes of
    the rejection region where the scanned p-values come close to ``alpha``
    (:func:`_zoom`); from any accepted null it finds it goes on outwards.
    """
    z = _ndtri(1.0 - alpha / 2.0)
    # small tables: p(d) jumps, so bisect with many candidates per round (cheap there)
    cells = (min(tab.na, 8.0 * math.sqrt(tab.na) + 30) + 1) * (
        min(tab.nb, 8.0 * math.sqrt(tab.nb) + 30) + 1)
    points = 8 if cells <= 20_000 else 4
    # how far past each end, and in which steps, to look for islands of acceptance: far
    # when the counts vary little (islands were found up to 0.22 se past an end there)
    spread = max(tab.na * _smooth(tab.ka, tab.na), tab.nb * _smooth(tab.kb, tab.nb))
    scan = _SCAN_WIDE if spread <= 25.0 else _SCAN_MID if spread <= 100.0 else _SCAN_NEAR
    ends = [_End(tab.d_hat, -1.0), _End(tab.d_hat, 1.0)]
    if tab.ka == 0 and tab.kb == tab.nb:       # p(-1) = 1: the interval reaches -1
        ends[0].done, ends[0].acc[1] = True, True
    if tab.ka == tab.na and tab.kb == 0:       # p(1) = 1
        ends[1].done, ends[1].acc[1] = True, True
    mn = _invert_score(tab, np.array([z, -z]))
    stop = min(1e-5, tol * max((mn[1] - mn[0]) / (2.0 * z), 1e-12))
    # plan: candidates for the next round and how far below alpha to refine their grid
    # p-values (0: a lower bound is enough while bracketing)
    plan = {s: (z + _FIRST[points], 0.0) for s in (0, 1)}
    while True:
        work = [s for s in (0, 1) if not ends[s].done]
        if not work:
            break
        tt = np.concatenate([plan[s][0] for s in work])
        own = np.concatenate([np.full(plan[s][0].size, s) for s in work])
        level = np.concatenate([np.broadcast_to(plan[s][1], plan[s][0].shape) for s in work])
        d = _invert_score(tab, np.where(own == 0, 1.0, -1.0) * tt)
        p, full = _pvalues(tab, d, alpha, level)
        for s, ti, di, pi, fi in zip(own.tolist(), tt.tolist(), d.tolist(), p.tolist(),
                                     full.tolist(), strict=True):
            acc = pi > alpha
            # the grid falls short of the supremum by less than 0.004 (measured), so grid
            # values more than _SETTLED below alpha are sure rejections
            ends[s].add(ti, di, pi, acc, acc or fi or pi <= alpha - _SETTLED)
        for s in work:
            end = ends[s]
            bisect = False
            while True:
                inner, outer = end.bracket()
                ti, to = end.t[inner], end.t[outer]
                if abs(end.d[outer] - end.d[inner]) > stop and to - ti > 1e-12:
                    bisect = True
                    break
                reach = to + scan[0]
                if np.isfinite(to) and end.scanned < reach - 1e-9:
                    # the accepted set can have islands past its first end: check the end
                    # and scan past it (refining grid values within _SCAN_SETTLED)
                    start = max(to, end.scanned)
                    batch = start + scan[1] * np.arange(1, int(round((reach - start) / scan[1]))
                                                        + 1)
                    check = [] if end.sure[outer] else [to]
                    plan[s] = (np.r_[check, batch],
                               np.r_[np.full(len(check), _SETTLED),
                                     np.full(batch.size, _SCAN_SETTLED)])
                    end.scanned = reach
                elif not end.sure[outer]:
                    plan[s] = (np.array([to]), _SETTLED)
                elif end.zoomed < end.scanned and _zoom(tab, end, s, alpha):
                    # an island past the end, found between two changes of the rejection
                    # region: go on from the new bracket
                    continue
                else:
                    end.done = True
                break
            if not bisect:
                continue
            zi, zo = _z_of_p(end.p[inner]), _z_of_p(end.p[outer])
            if not np.isfinite(to):
                # every candidate accepted: step outwards geometrically
                c = max(ti, z) + 0.1 * 2.0 ** np.arange(points)
            elif to - ti > 0.01 and ti > 0 and zi < z < zo:
                # around the crossing of the straight line through (t, z(p)) at both ends
                guess = ti + (z - zi) * (to - ti) / (zo - zi)
                c = guess + max(0.03 * (to - ti), 0.002) * np.linspace(-1.0, 1.0, points)
                c = _distinct(np.clip(c, ti + 1e-6, to - 1e-6))
            else:
                c = np.linspace(ti, to, points + 2)[1:-1]
            plan[s] = (c, _SETTLED if end.precise else 0.0)
    lo = ends[0].d[ends[0].bracket()[1]] if not ends[0].acc[1] else -1.0
    hi = ends[1].d[ends[1].bracket()[1]] if not ends[1].acc[1] else 1.0
    if _one_bounded(tab):
        lo, hi = _far_scan(tab, alpha, float(lo), float(hi), stop)
    return float(lo), float(hi)


def _large_box(tau: float, box: tuple[float, float]) -> bool:
    """Whether a group's Clopper-Pearson box lies where its variance exceeds the limit."""
    return tau < 0.5 and tau < box[0] and box[1] < 1.0 - tau


def _one_bounded(tab: _Table) -> bool:
    """Whether the tail bound tests every null of the table (one group's box is large)."""
    return tab.gamma > 0 and (_large_box(tab.tau_a, tab.cp_a) or _large_box(tab.tau_b, tab.cp_b))


_FAR_STEP = 0.02     # the far scan's step, in standard errors of the smaller group's rate


def _far_scan(tab: _Table, alpha: float, lo: float, hi: float,
              stop: float) -> tuple[float, float]:
    """The hull widened to every accepted null the tail bound leaves out past its ends.

    Where the bound tests every null and one group is small, ``p(d)`` can fall below
    ``alpha`` past an end and rise above it again well beyond the local scan (for 18 of 18
    against 7,541,211 at ``1 - 0.05/30``: accepted again up to 0.5 standard errors out).
    No null farther than ``s* = sqrt(log(2 / (alpha - gamma)) (1/n_A + 1/n_B) / 2)`` from
    the estimate is accepted: :func:`bound_tail` is at most Hoeffding's bound, ``2 exp(-2
    s^2 / (1/n_A + 1/n_B))`` at distance ``s``.  So the nulls between each end and ``d_hat -+ s*``
    are scanned in steps of :data:`_FAR_STEP` standard errors; past the outermost
    accepted one the crossing is bisected to ``stop`` and its rejected side reported.
    """
    room = alpha - tab.gamma
    if room <= 0:
        return lo, hi
    s_max = math.sqrt(math.log(2.0 / room) * (1.0 / tab.na + 1.0 / tab.nb) / 2.0)
    n_small = min(tab.na, tab.nb)
    k_small = tab.ka if tab.na <= tab.nb else tab.kb
    step = _FAR_STEP * math.sqrt(max(_smooth(k_small, n_small), 0.25 / n_small) / n_small)
    out = [lo, hi]
    for side, (end, far) in enumerate(((lo, max(-1.0, tab.d_hat - s_max)),
                                        (hi, min(1.0, tab.d_hat + s_max)))):
        if (far - end) * (1 if side else -1) <= 0:
            continue
        grid = np.r_[np.arange(end, far, step if side else -step)[1:], far]
        p, _ = _pvalues(tab, grid, alpha, _SCAN_SETTLED)
        acc = np.flatnonzero(p > alpha)
        if not acc.size:
            continue
        if acc[-1] + 1 == grid.size:        # accepted out to the edge -1 or 1 (s* past it)
            out[side] = 1.0 if side else -1.0
            continue
        inner, outer = float(grid[acc[-1]]), float(grid[acc[-1] + 1])
        while abs(outer - inner) > stop:
            mid = 0.5 * (inner + outer)
            pm, _ = _pvalues(tab, np.array([mid]), alpha, _SETTLED)
            if pm[0] > alpha:
                inner = mid
            else:
                outer = mid
        out[side] = outer
    return out[0], out[1]



# --------------------------------------------------------------------------- large counts
def _bound_only(tab: _Table) -> bool:
    """Whether the table's ends are searched with the other tail-bound tables, at once.

    A simple null ``(d, nu)`` is tested exactly only when BOTH binomial variances stay
    within :data:`EXACT_VARIANCE`, so the bound tests every null of the Berger-Boos set as
    soon as ONE group's Clopper-Pearson box (the set confines ``p_A`` to the first, ``p_B``
    to the second) lies where that group's variance ``n p (1 - p)`` exceeds it: two large
    groups, or a group against a large rest.  Then ``p(d) = gamma + sup_nu bound`` for
    every ``d``, and :func:`_bound_search` finds the ends of many tables at once when ``p``
    is also smooth: when both groups' counts vary (``n q (1 - q) > 100``, ``q`` as in
    :func:`count_spread`; always so for two large groups).  Below that the bound, loose
    for a small group, can dip below ``alpha`` and rise again towards the edge of the
    nuisance set (for 1 of 6 against 5,063,414 of 6,511,957 at ``1 - 0.05/30``, ``p <
    alpha`` at ``d = 0.06`` but ``> alpha`` from 0.07 to 0.164), so such a table is
    searched alone by :func:`_search`, which scans farther for islands.
    """
    if tab.gamma <= 0:
        return False
    if _large_box(tab.tau_a, tab.cp_a) and _large_box(tab.tau_b, tab.cp_b):
        return True
    smooth = min(tab.na * _smooth(tab.ka, tab.na), tab.nb * _smooth(tab.kb, tab.nb))
    return smooth > _SMOOTH_SPREAD and _one_bounded(tab)


def _bound_pvalues(na, nb, d_hat, cps, gamma, d):
    """``gamma + sup_nu bound_tail`` at the nulls ``d`` (one row per null, all arrays)."""
    a0, a1, b0, b1 = cps
    lo = np.maximum(np.maximum(0.0, -d), np.maximum(b0, a0 - d))
    hi = np.minimum(np.minimum(1.0, 1.0 - d), np.minimum(b1, a1 - d))
    ok = lo <= hi
    p = gamma.copy()
    if ok.any():
        r = np.flatnonzero(ok)
        s = np.abs(d_hat[r] - d[r])
        sup = _bound_sup_rows(na[r], nb[r], d[r], s, lo[r], hi[r])
        p[r] = np.where(s > 0, sup + gamma[r], 1.0)
    return np.minimum(p, 1.0)


def _bound_sup_rows(na, nb, d, s, a, b, grid: int = 9, rounds: int = 3):
    """Sup of :func:`bound_tail` over ``nu`` in ``[a, b]``, one row per null.

    As :func:`_bound_sup`: a grid, then three rounds of local grids around the best point.

    The bound is smooth in ``nu`` and usually largest at an end of ``[a, b]``, so a row whose
    best grid point is an end above its neighbour keeps the grid's value (``settle_ends``
    of :func:`~fairbound.stats.exact.bound._grid_sup`; about 40% fewer evaluations of the
    bound for the 1,000 groups of ``benchmarks/bench_groups.py``).  On nulls 2.5 to 4.5
    standard errors from random tables the result fell short of a 4,001-point grid by a
    relative 1.9e-5 at most for two groups of 12,000 to 2,000,000 examples (9.9e-7 with
    every row refined) and 2.7e-5 for a group of 1 to 12,000 against one of 12,000 to
    20,000,000 (the same both ways; the tables :func:`_bound_only` batches; ``python
    benchmarks/exact_checks.py sup``); the Berger-Boos margin ``gamma / 2`` is a relative
    1% of ``alpha``.  Rows go to threads in chunks (:func:`_row_chunks`) when there are
    many.
    """
    parts = _row_chunks(np.size(d))
    if len(parts) > 1:
        # rows are independent (element-wise arithmetic, row-wise arg max), so chunks on
        # threads give the same bits; numpy releases the GIL inside its loops
        def one(sl):
            return _bound_sup_chunk(na[sl], nb[sl], d[sl], s[sl], a[sl], b[sl], grid, rounds)

        return np.concatenate(list(_pool().map(one, parts)))
    return _bound_sup_chunk(na, nb, d, s, a, b, grid, rounds)


def _bound_sup_chunk(na, nb, d, s, a, b, grid: int, rounds: int):
    """:func:`_bound_sup_rows` on one thread."""
    u = np.linspace(0.0, 1.0, grid)
    nu = a[:, None] + (b - a)[:, None] * u

    def f(v, r):
        return bound_tail(na[r], nb[r], v + d[r], v, d[r], s[r])

    return _grid_sup(f, nu, a, b, grid, rounds, distinct=True, settle_ends=True)


_CHUNK_ROWS = 1024      # rows per thread below which splitting costs more than it saves
_KSECTION = 3           # more candidates a round for a bracket that failed to halve
_KSECTION_STEPS = np.arange(1, _KSECTION + 1) / (_KSECTION + 1.0)
_POOL: dict = {}         # process id -> pool (a forked child makes its own)


def _threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


def _row_chunks(rows: int) -> list[slice]:
    """Row slices for the threads: one when ``rows`` is small or one core is available."""
    k = min(_threads(), rows // _CHUNK_ROWS)
    if k <= 1:
        return [slice(0, rows)]
    edges = np.linspace(0, rows, k + 1).astype(int)
    return [slice(int(i), int(j)) for i, j in zip(edges[:-1], edges[1:], strict=True)]


def _pool():
    """The process's thread pool for many-row tail bounds (made when first needed).

    Keyed by process id: threads do not survive ``fork``, so a child process (a worker of
    a stability study, say) makes a pool of its own instead of waiting on its parent's.
    """
    pid = os.getpid()
    if pid not in _POOL:
        from concurrent.futures import ThreadPoolExecutor

        _POOL.clear()
        _POOL[pid] = ThreadPoolExecutor(max_workers=_threads(),
                                        thread_name_prefix="fairbound-bound")
    return _POOL[pid]


def _inverse_quadratic(z, d0, z0, d1, z1, d2, z2):
    """``d`` at ``z`` of the parabola ``d(z)`` through three points, clipped to ``[d0, d1]``.

    The secant's ``d`` where the three ``z`` are not distinct or not finite.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        sec = d0 + (z - z0) * (d1 - d0) / (z1 - z0)
        quad = (d0 * (z - z1) * (z - z2) / ((z0 - z1) * (z0 - z2))
                + d1 * (z - z0) * (z - z2) / ((z1 - z0) * (z1 - z2))
                + d2 * (z - z0) * (z - z1) / ((z2 - z0) * (z2 - z1)))
    g = np.where(np.isfinite(quad), quad, sec)
    g = np.where(np.isfinite(g), g, 0.5 * (d0 + d1))
    return np.clip(g, np.minimum(d0, d1), np.maximum(d0, d1))


def _bound_search(tabs: list[_Table], alpha: np.ndarray, tol: np.ndarray,
                  points: int = 4) -> list[tuple[float, float]]:
    """Both ends of every table in the tail-bound regime, searched together.

    Each end is bracketed between the estimate (accepted) and the edge of the nuisance
    set (``p = gamma``, rejected).  Every round tries candidates for all tables and ends in
    one vectorised evaluation: first ``d_hat -+ (1, 1.06, 1.14, 1.3) z se`` (the ends lie
    near the normal ones); then two candidates around the crossing of ``alpha`` by the
    parabola ``d(z(p))`` through the bracket's ends and the candidate next to them
    (inverse quadratic interpolation, as in Brent's method), each as far from it as the
    parabola's and the straight line's crossings differ, at least ``0.4 min(1e-5, tol *
    se)``; after that two candidates 0.02 of the bracket apart around the crossing of the
    straight line through both ends' ``z(p)`` (``p`` is smooth here), and, from the first
    round that did not halve a bracket on, three more at its quarters (where ``p`` bends,
    the line keeps missing: one 1M-row table took 14 rounds with one more candidate
    halfway to each end after such a round, 8 now); it
    keeps the outermost accepted candidate and the nearest one beyond it, until the
    bracket is shorter than ``min(1e-5, tol * se)``, and reports the outer, rejected, end.
    Past each end the set is scanned 0.02 standard errors in steps of 0.005 (as
    :func:`_search` does when the counts vary this much); a table with an accepted value
    there is searched again, alone, by :func:`_search`.  Each row's numbers depend on its
    own table only, so a table gets the same interval in any batch.

    Two rounds and the scan settle the 1,000 groups of 10,000 against their rest of
    ``benchmarks/bench_groups.py`` at 95% and at ``1 - 0.05/1000`` (three with the
    straight line alone).  On 1,200 random tail-bound tables (``python
    benchmarks/exact_checks.py onesided``) the ends were never more than 1e-5 inside
    :func:`_search`'s; see there for the numbers.
    """
    from fairbound.stats.exact._special import ufuncs  # the tail bound needs it anyway

    special = ufuncs()

    t = len(tabs)
    na = np.array([x.na for x in tabs], float)
    nb = np.array([x.nb for x in tabs], float)
    d_hat = np.array([x.d_hat for x in tabs])
    gam = np.array([x.gamma for x in tabs])
    cps = [np.array([x.cp_a[0] for x in tabs]), np.array([x.cp_a[1] for x in tabs]),
           np.array([x.cp_b[0] for x in tabs]), np.array([x.cp_b[1] for x in tabs])]
    pa = np.array([(x.ka + 0.5) / (x.na + 1.0) for x in tabs])
    pb = np.array([(x.kb + 0.5) / (x.nb + 1.0) for x in tabs])
    se = np.sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb)
    # rows 0..t-1 are the lower ends, t..2t-1 the upper ones
    idx = np.r_[np.arange(t), np.arange(t)]
    sign = np.r_[-np.ones(t), np.ones(t)]
    stop = np.minimum(1e-5, tol * se)[idx]
    se_r, alpha_r, gam_r = se[idx], alpha[idx], gam[idx]
    z = special.ndtri(1.0 - alpha_r / 2.0)
    inner, p_in = d_hat[idx].copy(), np.ones(2 * t)
    # just past the edge the nuisance set is empty: p = gamma < alpha, a sure rejection
    outer = np.r_[np.maximum(-1.0, cps[0] - cps[3]), np.minimum(1.0, cps[1] - cps[2])]
    outer = outer + sign * 1e-12
    p_out = gam_r.copy()

    def pvals(rows, d):
        i = idx[rows]
        return _bound_pvalues(na[i], nb[i], d_hat[i], [c[i] for c in cps], gam_r[rows], d)

    def z_of(p):
        return special.ndtri(1.0 - 0.5 * np.clip(p, 1e-300, 1.0 - 1e-16))

    live = np.abs(outer - inner) > stop
    first = points in _FIRST_Z
    second = False
    third_d, third_p = np.full(2 * t, np.nan), np.full(2 * t, np.nan)  # set in round 1
    before = np.full(2 * t, np.inf)          # each bracket's width a round earlier
    stalled = np.zeros(2 * t, bool)          # brackets that once failed to halve
    while live.any():
        rows = np.flatnonzero(live)
        ti, to = inner[rows], outer[rows]
        width = np.abs(to - ti)
        zi, zo = z_of(p_in[rows]), z_of(p_out[rows])
        lo_, hi_ = np.minimum(ti, to)[:, None], np.maximum(ti, to)[:, None]
        if first:
            # p is 1 at the estimate and drops to gamma at the edge of the nuisance set, so
            # the first guess comes from the normal quantile instead: the ends lie near the
            # asymptotic ones (1.06 and 1.13 times them for the groups of 10,000 of
            # benchmarks/bench_groups.py at 95% and 1 - 0.05/1000)
            near = ti[:, None] + (sign[rows] * se_r[rows] * z[rows])[:, None] * _FIRST_Z[points]
            first, second = False, True
        else:
            # the crossing of alpha by the straight line through both ends' z(p)
            with np.errstate(divide="ignore", invalid="ignore"):
                w = np.clip((z[rows] - zi) / (zo - zi), 0.0, 1.0)
            line = ti + w * (to - ti)
            if second:
                # after the first round: the parabola d(z(p)) through the bracket's ends and
                # the candidate next to them predicts the crossing; two candidates either
                # side of it, as far apart as the parabola and the line disagree (at least
                # 0.8 of the stop, so that where the guess is good they finish the end; the
                # rounds below go on from the bracket they leave)
                guess = _inverse_quadratic(z[rows], ti, zi, to, zo, third_d[rows],
                                           z_of(third_p[rows]))
                h = np.maximum(0.4 * stop[rows], np.abs(guess - line))
                near = guess[:, None] + (sign[rows] * h)[:, None] * np.array([-1.0, 1.0])
            else:
                # two candidates 0.02 of the bracket apart around the line's crossing (z(p)
                # is close to linear in d here)
                pair = line[:, None] + (sign[rows] * 0.01 * width)[:, None] * np.array(
                    [-1.0, 1.0])
                near = pair
                # a row whose bracket once failed to halve in a round has a p that the
                # line may not follow (a kink, where the supremum moves from one nuisance
                # value to another): from then on it also takes _KSECTION evenly spaced
                # candidates a round, so its bracket shrinks (_KSECTION + 1)-fold a round
                # even where the pair misses
                stalled[rows] |= width > 0.5 * before[rows]
                st = stalled[rows]
                if st.any():
                    # rows take 2 or 2 + _KSECTION candidates (NaN pads the others): each
                    # row's candidates depend on its own table only, whatever else is in
                    # the batch
                    even = ti[:, None] + (to - ti)[:, None] * _KSECTION_STEPS
                    near = np.c_[pair, np.where(st[:, None], even, np.nan)]
            second = False
        n_c = near.shape[1]
        near = np.clip(near, lo_ + 1e-3 * width[:, None], hi_ - 1e-3 * width[:, None])
        count = (~np.isnan(near)).sum(axis=1)
        j = np.arange(n_c)
        flat = ti[:, None] + (to - ti)[:, None] * ((j + 1.0) / (count + 1.0)[:, None])
        flat[j >= count[:, None]] = np.nan
        wide = np.isfinite(zo) & (zo > zi)
        cand = np.where(wide[:, None], near, flat)
        # candidates ordered from the estimate outwards, the padding last
        order = np.where(np.isnan(cand), np.inf, sign[rows, None] * cand)
        cand = np.take_along_axis(cand, np.argsort(order, axis=1), axis=1)
        real = ~np.isnan(cand)
        p = np.full(cand.shape, np.nan)
        p[real] = pvals(np.repeat(rows, n_c)[real.ravel()], cand[real])
        acc = p > alpha_r[rows, None]
        k = np.arange(rows.size)
        last = np.where(acc.any(axis=1), n_c - 1 - np.argmax(acc[:, ::-1], axis=1), -1)
        has = last >= 0
        inner[rows] = np.where(has, cand[k, np.maximum(last, 0)], ti)
        p_in[rows] = np.where(has, p[k, np.maximum(last, 0)], p_in[rows])
        nxt = last + 1
        beyond = nxt < count
        if second:
            # the first round's candidate next to the bracket's ends (of its 4, one is
            # always left), for the second round's parabola
            j3 = np.where(last >= 1, last - 1, nxt + 1)
            third_d[rows], third_p[rows] = cand[k, j3], p[k, j3]
        outer[rows] = np.where(beyond, cand[k, np.minimum(nxt, n_c - 1)], to)
        p_out[rows] = np.where(beyond, p[k, np.minimum(nxt, n_c - 1)], p_out[rows])
        before[rows] = width
        live[rows] = np.abs(outer[rows] - inner[rows]) > stop[rows]
    # islands of acceptance past the ends
    steps = np.arange(1, 5) * 0.005
    scan = outer[:, None] + sign[:, None] * se_r[:, None] * steps
    found = pvals(np.repeat(np.arange(2 * t), steps.size), scan.ravel()) > np.repeat(
        alpha_r, steps.size)
    found = found.reshape(scan.shape).any(axis=1)
    out = []
    for k, tab in enumerate(tabs):
        if found[k] or found[t + k]:
            out.append(_search(tab, float(alpha[k]), float(tol[k])))
        else:
            out.append((float(outer[k]), float(outer[t + k])))
    return out
