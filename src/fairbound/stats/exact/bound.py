"""The tail bound used where the counts are too large to test exactly.

Per tail the smaller of the normal tail plus the Berry-Esseen term (Shevtsova's constant
0.56) and the Chernoff bound with the exact binomial moment generating functions: both
bound the same probability from above, so does their minimum.  :func:`bound_tail` and the
suprema over the nuisance parameter built on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from fairbound.stats.exact.inversion import _Table

__all__ = ["bound_tail"]

_BE_CONSTANT = 0.56     # Shevtsova (2010), non-identically distributed summands


def _logs(p):
    """``log p`` and ``log(1 - p)``, clipped away from 0 (the binomial's log rates)."""
    return np.log(np.maximum(p, 1e-300)), np.log1p(-np.minimum(p, 1.0 - 1e-16))


def _chernoff_log(na, nb, pa, pb, c, logs=None):
    """Logarithm of min over lambda >= 0 of E exp(lambda (X/na - Y/nb - c)) (Newton).

    ``logs``: ``(la, qa, lb, qb)`` of :func:`_logs` when the caller has them already.
    """
    la, qa, lb, qb = (*_logs(pa), *_logs(pb)) if logs is None else logs
    var = pa * (1.0 - pa) / na + pb * (1.0 - pb) / nb
    lam = np.maximum(c - (pa - pb), 0.0) / np.maximum(var, 1e-300)

    def k(lam, steps=True):
        # the value, and for a Newton step its first two derivatives (each shifted log
        # rate computed once: the same bits as writing it twice)
        sa, sb = la + lam / na, lb - lam / nb
        ua, ub = np.logaddexp(qa, sa), np.logaddexp(qb, sb)
        val = na * ua + nb * ub - lam * c
        if not steps:
            return val
        pia, pib = np.exp(sa - ua), np.exp(sb - ub)
        return (val, pia - pib - c, pia * (1.0 - pia) / na + pib * (1.0 - pib) / nb)

    best = np.zeros(np.broadcast(lam, c).shape)     # lambda = 0: the trivial bound 1
    # any lambda >= 0 gives a valid bound; from the normal optimum two Newton steps reach
    # the minimum within a relative 1.2e-10 (python benchmarks/exact_checks.py newton)
    for _ in range(2):
        val, grad, hess = k(lam)
        best = np.minimum(best, val)
        lam = np.maximum(lam - grad / np.maximum(hess, 1e-300), 0.0)
    return np.minimum(best, k(lam, steps=False))


def bound_tail(n_a, n_b, p_a, p_b, delta, s):
    """Upper bound on ``P(|X/n_A - Y/n_B - delta| >= s)`` for independent binomials.

    ``X ~ Bin(n_A, p_A)``, ``Y ~ Bin(n_B, p_B)``.  Each tail is bounded by the smallest of

    * the normal tail plus the Berry-Esseen term ``0.56 sum E|Z_i - EZ_i|^3 / sd^3``
      (Shevtsova 2010, independent non-identically distributed summands),
    * the Chernoff bound ``min_lambda E exp(lambda (D - c))`` with the exact binomial
      moment generating functions, and
    * Hoeffding's ``exp(-2 t^2 / (1/n_A + 1/n_B))``, ``t`` the threshold's distance from the
      mean (the Chernoff bound at one ``lambda``: it caps the two Newton steps of the
      Chernoff minimisation where they stop far from the minimum, small skewed groups);

    all bound the same probability, so their minimum does too.  The two tails are added.

    Parameters
    ----------
    n_a, n_b : float
        Group sizes.
    p_a, p_b, delta, s : array_like
        Rates, centre (usually ``p_a - p_b``) and distance.

    Returns
    -------
    numpy.ndarray
        The bound, at most 1.

    Examples
    --------
    The probability beyond 1.96 standard deviations is about 0.05; at 10,000 examples
    per group the bound gives

    >>> sd = (0.15 * 0.85 / 10_000 + 0.10 * 0.90 / 10_000) ** 0.5
    >>> round(float(bound_tail(10_000, 10_000, 0.15, 0.10, 0.05, 1.96 * sd)), 4)
    0.0686
    """
    from fairbound.stats.exact._special import ufuncs  # only large groups need scipy

    special = ufuncs()

    pa, pb = np.asarray(p_a, float), np.asarray(p_b, float)
    n_a, n_b = np.asarray(n_a, float), np.asarray(n_b, float)
    va, vb = pa * (1 - pa), pb * (1 - pb)
    sd = np.sqrt(va / n_a + vb / n_b)
    third = va * (pa * pa + (1 - pa) ** 2) / n_a**2 + vb * (pb * pb + (1 - pb) ** 2) / n_b**2
    with np.errstate(divide="ignore", invalid="ignore"):
        be = np.where(sd > 0, special.ndtr(-s / sd) + _BE_CONSTANT * third / sd**3, 1.0)
    # both tails at once: D - delta >= s, and -D + delta >= s (groups swapped); the sizes
    # broadcast too, so that many tables are bounded in one call
    na_, nb_, pa_, pb_, dl, s_ = np.broadcast_arrays(n_a, n_b, pa, pb, delta, s)
    # the swapped tail has the same four log rates, swapped: computed once (same bits)
    (la, qa), (lb, qb) = _logs(pa_), _logs(pb_)
    logs = (np.stack([la, lb]), np.stack([qa, qb]), np.stack([lb, la]), np.stack([qb, qa]))
    tails = np.exp(_chernoff_log(np.stack([na_, nb_]), np.stack([nb_, na_]),
                                 np.stack([pa_, pb_]), np.stack([pb_, pa_]),
                                 np.stack([dl + s_, s_ - dl]), logs))
    # Hoeffding's bound for each tail, exp(-2 t^2 / (1/n_A + 1/n_B)) with t the threshold's
    # distance from the mean: the Chernoff bound at one lambda, which the two Newton steps
    # can miss by far for a small, skewed group (for 5 examples at 0.072 the steps stop at
    # 0.087 where the minimum is 2.7e-4); with it no bound exceeds 2 exp(-2 s^2 / ...) at
    # distance s from the centre, which bounds how far out a null can be accepted
    with np.errstate(divide="ignore", invalid="ignore"):
        width = 1.0 / n_a + 1.0 / n_b
        t_up = np.maximum(delta + s - (pa - pb), 0.0)
        t_down = np.maximum((pa - pb) - (delta - s), 0.0)
        hoeff = np.exp(-2.0 * np.stack([t_up, t_down]) ** 2 / width)
    tails = np.minimum(tails, hoeff)
    return np.minimum(1.0, np.minimum(be, tails[0]) + np.minimum(be, tails[1]))


def _bound_sup(tab: _Table, d, s, a, b, holes, grid: int = 33, rounds: int = 3):
    """Sup of :func:`bound_tail` over ``[a, b]`` minus the open intervals ``holes``."""
    u = np.linspace(0.0, 1.0, grid)
    nu = a[:, None] + (b - a)[:, None] * u
    ends = [np.clip(e, a, b)[:, None] for pair in holes for e in pair]
    nu = np.sort(np.concatenate([nu] + ends, axis=1), axis=1)

    def allowed(v):
        ok = np.ones(v.shape, bool)
        for h0, h1 in holes:
            ok &= ~((v > h0[:, None]) & (v < h1[:, None]))
        return ok

    def f(v):
        val = bound_tail(tab.na, tab.nb, v + d[:, None], v, d[:, None], s[:, None])
        return np.where(allowed(v), val, -np.inf)

    best = _grid_sup(f, nu, a, b, grid, rounds)
    return np.where(np.isfinite(best), best, 0.0)


def _grid_sup(f, nu, a, b, grid: int, rounds: int, distinct: bool = False,
              settle_ends: bool = False):
    """Row-wise sup of ``f`` over ``[a, b]`` from the grid ``nu``.

    The best grid point, then ``rounds`` local grids of 7 points around the best so far,
    each 3 times finer.  With ``settle_ends`` (and ``distinct``, whose row numbers it uses),
    a row whose best grid point is an end of ``[a, b]`` above its neighbour keeps the grid's
    value (no local grids).  That misses a
    maximum inside the grid step next to the end; for the tail bound, whose supremum over
    the nuisance rate usually sits at an end, the default grid then fell short of a
    4,001-point grid by at most a relative 2.7e-5 (``benchmarks/exact_checks.py sup``,
    :func:`~fairbound.stats.exact.inversion._bound_sup_rows`).

    With ``distinct``, ``f(v, r)`` takes flat candidates ``v`` and their row numbers ``r``
    and each row's distinct candidates are evaluated once: a local grid clipped at an end
    of ``[a, b]`` repeats that end (3 of its 7 points when the best point is an end, the
    usual case for the tail bound), and each value is copied to its repeats, so every
    row's numbers, its arg max and the result are the same bits (the arithmetic is
    element-wise).  Nor is a point of the grid before evaluated again (the centre of each
    local grid, the best point so far, always is one): its value is copied.
    """
    rows = np.arange(nu.shape[0])

    def distinct_values(v, pv=None, pf=None):
        fresh = np.ones(v.shape, bool)
        fresh[:, 1:] = v[:, 1:] != v[:, :-1]        # candidates ascend along each row
        out = np.empty(v.shape)
        known = fresh
        if pv is not None:
            # points of the grid before (the centre, the best point so far, always; at an
            # end of [a, b] also its neighbour of the first grid) have known values
            eq = v[:, :, None] == pv[:, None, :]
            same = eq.any(axis=2)
            out[same] = np.take_along_axis(pf, eq.argmax(axis=2), axis=1)[same]
            known = fresh | same
            fresh = fresh & ~same
        r, j = np.nonzero(fresh)
        out[r, j] = f(v[r, j], r if sub is None else sub[r])
        first = np.maximum.accumulate(np.where(known, np.arange(v.shape[1]), 0), axis=1)
        return np.take_along_axis(out, first, axis=1)

    sub = None                      # the rows still refined, when not all of them
    val = distinct_values(nu) if distinct else f(nu)
    j = val.argmax(axis=1)
    best, c = val[rows, j], nu[rows, j]
    h = (b - a) / (grid - 1)
    off = np.linspace(-1.0, 1.0, 7)
    pv, pf = nu, val
    if settle_ends and distinct and nu.shape[1] > 1:
        last = nu.shape[1] - 1
        ends = (((j == 0) & (val[:, 0] > val[:, 1]))
                | ((j == last) & (val[:, last] > val[:, last - 1])))
        if ends.any():
            sub = np.flatnonzero(~ends)
            out = best                      # the settled rows' values; the rest filled below
            if not sub.size:
                return out
            best, c, h, pv, pf, a, b = (x[sub] for x in (best, c, h, pv, pf, a, b))
            rows = np.arange(sub.size)
    for _ in range(rounds):
        cand = np.clip(c[:, None] + h[:, None] * off, a[:, None], b[:, None])
        v = distinct_values(cand, pv, pf) if distinct else f(cand)
        pv, pf = cand, v
        k = v.argmax(axis=1)
        better = v[rows, k] > best
        c = np.where(better, cand[rows, k], c)
        best = np.maximum(best, v[rows, k])
        h = h / 3.0
    if sub is not None:
        out[sub] = best
        return out
    return best
