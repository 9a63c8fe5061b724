"""Betting on data summarised by group: arrangements, stopped capital, root search.

Seeded arrangements of each group's costs, the stopped capital of one group and of blocked
pairs averaged over them, and the root search for the interval's ends (fixed horizon).

Part of :mod:`fairbound.stats.betting`; its docstring describes what is guaranteed.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from fairbound._validate import fail
from fairbound.errors import FairboundError
from fairbound.stats._betting_blocks import (
    MIN_LENGTH,
    bet_caps,
    binary_capital,
    block_summary,
    ones_per_block,
    pair_block_summary,
    stacked_final_capital,
    stacked_pair_capital,
    stopped_mean,
)
from fairbound.stats.base import (
    GroupStats,
)
from fairbound.stats.betting.sequence import (
    _CHUNK_CELLS,
    predictable_bets,
)

# --------------------------------------------------------------------------- fixed horizon
# The intervals from GroupStats (group_mean_interval, method="betting" and "betting-union")
# average the final capital over several arrangements of each group's costs; see the module
# docstring for what this guarantees.

#: Arrangements of each group's costs whose capitals are averaged (fixed horizon).
ARRANGEMENTS = 16
#: Default bet truncation of the fixed-horizon intervals (the bets of the confidence
#: sequences keep :data:`DEFAULT_TRUNCATION`).
FIXED_TRUNCATION = 0.9

# At most this many (arrangement, example) cells are kept for the per-example capital;
# fewer arrangements are used for samples so long that 16 would not fit.
_MAX_CELLS = 1 << 22
# Version tag hashed into every arrangement seed (change it and every arrangement changes).
_SALT = b"fairbound.betting.arrangements.v1"
#: Each arrangement's capital is stopped at ``STOP_FACTOR`` times the rejection level.
STOP_FACTOR = 2.0


def _seed_words(rng) -> list[int]:
    """The user's seed as 32-bit words: the same words for the same seed, whatever the state.

    An integer (or ``None``, read as 0) is the seed itself.  A generator is keyed by the seed
    it was created from (its ``SeedSequence`` entropy and spawn key), not by its current
    state, so that the same data and seed give the same interval at every call
    (:func:`fairbound.stats.difference_interval` turns ``rng=None`` into seed 0).
    """
    if isinstance(rng, np.random.Generator):
        seq = getattr(rng.bit_generator, "seed_seq", None)
        entropy = getattr(seq, "entropy", None)
        if entropy is None:
            return [0]
        ent = [int(e) for e in np.atleast_1d(np.asarray(entropy, dtype=object))]
        key = [int(s) for s in getattr(seq, "spawn_key", ())]
        words = ent + ([0xFFFFFFFF, *key] if key else [])
    elif rng is None or isinstance(rng, bool):
        words = [0]
    else:
        try:
            words = [int(e) for e in np.atleast_1d(np.asarray(rng, dtype=object))]
        except (TypeError, ValueError):
            raise FairboundError(f"rng must be a numpy Generator, an integer or None; got "
                                 f"{rng!r:.60}", param="rng") from None
    out = []
    for w in words:
        if w < 0:
            raise FairboundError(f"rng must be a non-negative seed; got {w}", param="rng")
        out.extend(_split_words(w))
    return out


def _split_words(value: int) -> list[int]:
    words = [value & 0xFFFFFFFF]
    value >>= 32
    while value:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
    return words


def _sorted_costs(g: GroupStats) -> np.ndarray | None:
    """The group's costs scaled to ``[0, 1]`` and sorted; ``None`` for 0/1 costs."""
    if g.binary:
        return None
    if g.sample is None:
        g.costs(np.random.default_rng(0))  # raises the NotEstimable message
    return np.sort(np.clip(np.asarray(g.sample, dtype=float) / g.cost_max, 0.0, 1.0))


def _digest(g: GroupStats, values: np.ndarray | None) -> list[int]:
    """32-bit words of a hash of the group's sufficient statistics (and sorted sample)."""
    h = hashlib.blake2b(_SALT, digest_size=16)
    if values is None:
        h.update(b"counts" + np.array([round(g.n), g.count], dtype=np.int64).tobytes())
    else:
        # costs in units of cost_max, rounded to 12 decimals: the same data at another scale
        # (or with last-bit rounding differences) get the same arrangements
        h.update(b"sample" + np.ascontiguousarray(np.round(values, 12)).tobytes())
    return np.frombuffer(h.digest(), dtype=np.uint32).tolist()


class _Arranger:
    """Independent uniformly random arrangements of one group's costs (in ``[0, 1]``).

    Seeded from the user's seed, a hash of the group's statistics (and its sorted sample)
    and ``stream``: different data sets get different arrangements, the same data and seed
    always the same ones.
    """

    def __init__(self, g: GroupStats, seed: list[int], stream: int = 0):
        self.values = _sorted_costs(g)
        self.n = int(round(g.n)) if self.values is None else self.values.size
        self.k = g.count if self.values is None else 0
        words = [*seed, 0xA5A5A5A5, *_digest(g, self.values), stream]
        self.gen = np.random.default_rng(np.random.SeedSequence(words))

    def draw(self) -> np.ndarray:
        """One arrangement of the costs."""
        if self.values is None:
            flags = np.zeros(self.n, dtype=np.int8)
            flags[:self.k] = 1
            self.gen.shuffle(flags)
            return flags.astype(float)
        return self.gen.permutation(self.values)

    def draw_flagged(self) -> tuple[np.ndarray, np.ndarray]:
        """One arrangement (as :meth:`draw`) and which of its costs lie strictly in (0, 1)."""
        x = self.draw()
        if self.values is None:
            return x, np.zeros(x.size, dtype=bool)
        return x, (x > 0.0) & (x < 1.0)

    def draw_block_means(self, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """Means over consecutive blocks of one arrangement (0/1 costs: from counts)."""
        return self.draw_block_means_flagged(starts, sizes)[0]

    def draw_block_means_flagged(self, starts: np.ndarray, sizes: np.ndarray
                                 ) -> tuple[np.ndarray, np.ndarray]:
        """Block means (as :meth:`draw_block_means`) and which blocks hold a cost in (0, 1)."""
        if sizes.size == self.n:
            return self.draw_flagged()
        none = np.zeros(sizes.size, dtype=bool)
        if self.values is None and self.n > 32 * sizes.size:
            # ones per block of a random arrangement, from counts: O(blocks), not O(n)
            return ones_per_block(sizes, self.k, self.gen) / sizes, none
        if self.values is None:
            return np.add.reduceat(self.draw(), starts) / sizes, none
        x = self.gen.permutation(self.values)
        inside = (x > 0.0) & (x < 1.0)
        return np.add.reduceat(x, starts) / sizes, np.logical_or.reduceat(inside, starts)


#: 0/1 costs are rebuilt from counts held in 64-bit integers: fewer examples than this.
MAX_COUNT_N = 2**63


def _check_count_n(g: GroupStats, param: str) -> None:
    """Refuse 0/1 statistics with ``2**63`` or more examples (one line, not an overflow)."""
    if g.binary and g.n >= MAX_COUNT_N:
        fail(f"{param}.n", "below 2**63 for the betting methods (0/1 costs are rebuilt from "
             "64-bit counts)", g.n)


def _n_arrangements(requested: int, length: int) -> int:
    return max(1, min(int(requested), _MAX_CELLS // max(int(length), 1)))


def _final_capital(seqs: list[np.ndarray], alpha: float, truncation: float, stop: float):
    """``capital(grid, upper)``: averaged fixed-horizon e-values of several arrangements.

    Every sequence is one arrangement of the same data (same length); each contributes its
    capital stopped at level ``exp(stop)`` (``_betting_blocks.stopped_mean``).  Long
    few-valued sequences use bets constant over blocks (``_betting_blocks``); others the
    per-example capital.
    """
    n = seqs[0].size
    lams = [predictable_bets(y, alpha=alpha, horizon=n) for y in seqs]
    summaries = [block_summary(y, lam) for y, lam in zip(seqs, lams, strict=True)]
    if all(s is not None for s in summaries):
        return stacked_final_capital(summaries, truncation, stop)
    ys, lam = np.stack(seqs), np.stack(lams)
    n_arr = ys.shape[0]

    def capital(grid: np.ndarray, upper: bool) -> np.ndarray:
        grid, cap, sign = bet_caps(grid, upper, truncation)
        carry = np.zeros((n_arr, grid.size))
        best = np.zeros((n_arr, grid.size))
        chunk = max(1, _CHUNK_CELLS // (n_arr * grid.size))
        for start in range(0, n, chunk):
            y = ys[:, start:start + chunk, None]
            bets = np.minimum(lam[:, start:start + chunk, None], cap)
            logk = np.log1p(sign * bets * (y - grid))
            np.cumsum(logk, axis=1, out=logk)
            logk += carry[:, None, :]
            np.maximum(best, logk.max(axis=1), out=best)
            carry = logk[:, -1]
        return stopped_mean(carry, best, stop)

    # candidates per call of the search: several where numpy's per-call overhead dominates
    capital.points = int(min(15, max(1, (1 << 16) // (n_arr * n))))
    return capital


#: Truncation of the bets on both groups (fractional costs): every factor stays >= 0.01.
PAIR_TRUNCATION = 0.99


def _pair_steps(y: np.ndarray, u: np.ndarray, v: np.ndarray, fractional: np.ndarray,
                alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predictable quantities of one arrangement of blocked pairs.

    Returns the bets on the difference in units of ``C`` (half the plug-in bets on
    ``y = (1 + u - v) / 2``), the centre ``s_{t-1} = (1/2 + sum_{i<t} (u_i + v_i) / 2) / t``
    and whether step ``t`` bets on both groups: from the step after the first pair holding
    a cost strictly between 0 and its maximum (never for 0/1 costs).
    """
    n = y.size
    lam = predictable_bets(y, alpha=alpha, horizon=n) / 2.0
    s = (0.5 + np.cumsum(0.5 * (u + v))) / np.arange(2.0, n + 2.0)
    center = np.concatenate(([0.5], s[:-1]))
    first = int(np.argmax(fractional)) if fractional.any() else n
    return lam, center, np.arange(n) > first


def _pair_final_capital(seqs: list[np.ndarray], pairs: list[tuple], alpha: float,
                        truncation: float, stop: float):
    """``capital(grid, upper)`` for blocked pairs that bet on each group's cost (v2).

    ``seqs`` are the sequences ``y = (1 + u - v) / 2`` of :func:`_blocked_interval` and
    ``pairs`` the matching ``(u, v, fractional)``: A's and B's costs in each pair, in units
    of ``C``, and whether the pair holds a cost strictly between 0 and its maximum.  A
    candidate ``m`` for the mean of ``y`` is the gap ``delta = 2 m - 1``.

    Each step ``t`` multiplies the capital ``K+`` (which rejects gaps below the true one)
    by one of two factors, chosen from the past only (:func:`_pair_steps`):

    * until a fractional cost has been seen, the factor on the difference of v1,
      ``1 + lam_Y (y - m)`` with ``lam_Y = min(2 lam, truncation / m)``, so 0/1 costs give
      exactly the v1 interval;
    * afterwards a factor that bets on the two groups separately, centred at
      ``a = s + delta / 2`` for A and ``b = s - delta / 2`` for B, where ``s`` estimates
      ``(mu_A + mu_B) / 2`` from the past:

          (1 + lam (u - a)) (1 - lam (v - b)) = (1 + lam (p - m)) (1 + lam (r - m)),
          p = u - s + 1/2,  r = 1/2 + s - v,  lam = min(lam_t, c / (m + |s - 1/2|)),

      with ``c =`` :data:`PAIR_TRUNCATION`.  When ``delta`` is the true gap,
      ``mu_A - a = mu_B - b =: e`` and, A's and B's costs being independent, the factor has
      conditional mean ``(1 + lam e) (1 - lam e) = 1 - lam^2 e^2 <= 1``: the capital is a
      non-negative supermartingale whatever ``s``, so a stopped capital is an e-value.  The
      cap keeps both factors >= ``1 - c`` for all costs in ``[0, 1]``, and each factor
      decreases in ``m`` (for ``s <= 1/2`` the cap binds on B's factor, whose minimum is at
      ``v = 1``; above on A's), so the rejected candidates still form an interval.

    Betting on the difference alone must keep ``1 + lam (u - v - delta) >= 0`` at ``u = 0,
    v = 1``, which caps ``lam`` at about 1 on the gap scale ``C``; for costs of small
    variance (Beta(1.5, 8.5) vs Beta(1, 9): the plug-in bet is about 1.7 at 120 pairs)
    that cap binds at nearly every step.  The product bets up to ``c / (m + |s - 1/2|)``,
    1.13 there instead of 0.9: the total n for 80% power falls from 2.15 to 1.93 times
    Wald's (``benchmarks/betting_fractional.py --reps 300``).  Each of the two factors is
    the betting factor of Waudby-Smith & Ramdas (JRSS-B 2024, Sec. 4) for one group's mean
    at a hypothesised value, with their fixed-horizon plug-in bet; the common bet and the
    plugged-in level ``s`` are what make the product a supermartingale for the composite
    null "gap = delta" (the calculation above: a wrong ``s`` costs the ``lam^2 e^2``, not
    the validity).  Chugg et al. (NeurIPS 2023) bet on the difference, as v1 does.
    ``upper=True`` gives ``K-``, the mirror image: ``(1 - lam (p - m)) (1 - lam (r - m))``
    with ``lam = min(lam_t, c / (1 - m + |s - 1/2|))``.

    The guarantee is that of the module docstring (exchangeable examples within each group,
    independent groups); the switch between the two factors, the bets, the centre and the
    caps use past pairs only.  Long sequences with few distinct values use the same factors
    with bets, centres and the switch held constant over blocks
    (:func:`fairbound.stats._betting_blocks.stacked_pair_capital`).
    """
    n, n_arr = seqs[0].size, len(seqs)
    summaries = []
    for y, (u, v, f) in zip(seqs, pairs, strict=True):
        summary = (pair_block_summary(u, v, y, *_pair_steps(y, u, v, f, alpha))
                   if n >= MIN_LENGTH else None)
        if summary is None:
            break
        summaries.append(summary)
    else:
        return stacked_pair_capital(summaries, truncation, PAIR_TRUNCATION, stop)
    # per example: p and r (y where the step bets on the difference), |s - 1/2|, 1 / lam
    p, r, dist, inv_lam = (np.empty((n_arr, n)) for _ in range(4))
    head = np.empty(n_arr, dtype=np.int64)  # steps that bet on the difference
    for j, (y, (u, v, f)) in enumerate(zip(seqs, pairs, strict=True)):
        lam, center, both = _pair_steps(y, u, v, f, alpha)
        head[j] = k = n - int(np.count_nonzero(both))
        np.subtract(u, center, out=p[j])
        p[j] += 0.5
        np.add(center, 0.5, out=r[j])
        r[j] -= v
        p[j, :k] = r[j, :k] = y[:k]
        np.subtract(center, 0.5, out=dist[j])
        np.abs(dist[j], out=dist[j])
        np.divide(1.0, lam, out=inv_lam[j])
    diff = np.arange(n)[None, :] < head[:, None]  # steps that bet on the difference
    k0 = int(head.max())  # from step k0 on, every arrangement bets on both groups
    ch = PAIR_TRUNCATION
    buffers: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}

    def capital(grid: np.ndarray, upper: bool) -> np.ndarray:
        grid = np.atleast_1d(np.asarray(grid, dtype=float))
        g = grid.size
        mm = (1.0 - grid if upper else grid)[None, :, None]
        gg = grid[None, :, None]
        sg = -1.0 if upper else 1.0
        carry = np.zeros((n_arr, g))
        best = np.zeros((n_arr, g))
        chunk = max(1, _CHUNK_CELLS // (n_arr * g))
        key = (min(chunk, n), g)
        if key not in buffers:  # reused: fresh large arrays cost page faults at every call
            buffers[key] = tuple(np.empty((n_arr, g, key[0])) for _ in range(3))
        # layout (arrangement, candidate, time): numpy's inner loops run along time
        for start in range(0, n, chunk):
            end = min(start + chunk, n)
            sl = slice(start, end)
            bet, x1, x2 = (b[:, :, :end - start] for b in buffers[key])
            np.add(dist[:, None, sl], mm, out=bet)  # 1 / lam_max = (m' + |s - 1/2|) / c
            bet *= 1.0 / ch
            if start < k0:  # ... or 2 m' / truncation where the step bets on the difference
                np.copyto(bet, 2.0 * mm / truncation, where=diff[:, None, sl])
            np.maximum(bet, inv_lam[:, None, sl], out=bet)
            np.divide(sg, bet, out=bet)
            np.subtract(p[:, None, sl], gg, out=x1)
            x1 *= bet
            np.subtract(r[:, None, sl], gg, out=x2)
            x2 *= bet
            if start < k0:  # on the difference: 1 + x1 + x2 = 1 + lam_Y (y - m) (p = r = y)
                np.multiply(x1, x2, out=bet)
                bet *= diff[:, None, sl]
            x1 += 1.0
            x2 += 1.0
            x1 *= x2  # (1 + x1) (1 + x2)
            if start < k0:
                x1 -= bet
            np.log(x1, out=x1)
            np.cumsum(x1, axis=2, out=x1)
            x1 += carry[:, :, None]
            np.maximum(best, x1.max(axis=2), out=best)
            carry = x1[:, :, -1].copy()
        return stopped_mean(carry, best, stop)

    # candidates per call of the search: several where numpy's per-call overhead dominates
    capital.points = int(min(15, max(1, (1 << 16) // (n_arr * n))))
    return capital


def _search_root(capital, threshold: float, *, upper: bool, tol: float,
                 moments: tuple[float, float, int], plateau: float = math.inf,
                 points: int = 1) -> float:
    """Conservative end of the kept set of a monotone capital, to within ``tol``.

    ``capital(grid, upper)`` is the log of an e-value for each candidate: non-increasing in
    the candidate for the lower end (``K+``), non-decreasing for the upper end (``K-``);
    candidates where it reaches ``threshold`` are rejected.  It may jump (an arrangement's
    stopped capital jumps to its stop level) and it is flat at ``plateau`` (every
    arrangement stopped).  A bracket ``[rejected, kept]`` is refined by the Illinois
    variant of regula falsi, with bisection whenever a step fails to halve the bracket or
    an end lies on the plateau (after two failed steps, when the end sits at a jump, only
    bisection), and its rejected end is returned, so the reported interval contains the
    exact one.  With ``points > 1`` (cheap capitals, where a call costs about the same for
    a few candidates as for one) the bracket is first refined on grids of ``points``
    interior candidates per call.
    """
    mu, var, size = moments
    mu = min(max(mu, 0.0), 1.0)
    w = math.sqrt(2.0 * var * threshold / size) + 1.0 / size
    sgn = 1.0 if upper else -1.0  # direction from the mean towards rejected candidates
    edge, inner = (1.0, 0.0) if upper else (0.0, 1.0)

    def h(m):
        return capital(np.asarray(m, dtype=float), upper) - threshold

    def clip(m):
        return min(max(m, 0.0), 1.0)

    # the end is usually 1-1.6 large-sample half-widths from the mean
    p1, p2 = clip(mu + sgn * 1.0 * w), clip(mu + sgn * 1.6 * w)
    h1, h2 = h([p1, p2])
    if h2 < 0:  # both kept: walk outwards until a candidate is rejected
        kept, hk, step = p2, h2, 1.6 * w
        while True:
            if kept == edge:
                return edge  # nothing on this side is rejected
            step *= 2.0
            cand = clip(mu + sgn * step)
            hc = h([cand])[0]
            if hc >= 0:
                rejected, hr = cand, hc
                break
            kept, hk = cand, hc
    elif h1 >= 0:  # both rejected: walk inwards until a candidate is kept
        rejected, hr, step = p1, h1, 1.0 * w
        while True:
            if rejected == inner:
                return inner  # every candidate is rejected on this side
            step = step / 2.0 if step > 0.25 * w else -2.0 * max(abs(step), w)
            cand = clip(mu + sgn * step) if step > 0 else clip(mu - sgn * abs(step))
            if (cand - rejected) * sgn >= 0:  # no progress inwards: jump to the far side
                cand = inner
            hc = h([cand])[0]
            if hc < 0:
                kept, hk = cand, hc
                break
            rejected, hr = cand, hc
    else:
        kept, hk, rejected, hr = p1, h1, p2, h2
    side, guess = 0, None
    bisect, fails = False, 0
    while abs(kept - rejected) > tol and points > 1:  # a grid of candidates per call
        grid = np.linspace(min(kept, rejected), max(kept, rejected), points + 2)[1:-1]
        rej = h(grid) >= 0
        if upper:  # kept candidates first
            i = int(np.argmax(rej)) if rej.any() else grid.size
            kept = grid[i - 1] if i > 0 else kept
            rejected = grid[i] if i < grid.size else rejected
        else:  # rejected candidates first
            i = int(np.argmin(rej)) if not rej.all() else grid.size
            rejected = grid[i - 1] if i > 0 else rejected
            kept = grid[i] if i < grid.size else kept
    while abs(kept - rejected) > tol:
        width = abs(kept - rejected)
        lo, hi = min(kept, rejected), max(kept, rejected)
        if bisect or fails >= 2 or hr >= plateau - 1e-12:
            cand, guess = 0.5 * (lo + hi), None
        else:
            cand = rejected + (kept - rejected) * hr / (hr - hk)
            if guess is not None and abs(cand - guess) < 0.5 * tol:
                # the estimate has settled: step just across it, towards the end that
                # has not moved, to close the bracket
                stale = kept if side == 1 else rejected
                cand += math.copysign(0.5 * tol, stale - cand)
            guess = cand
        cand = min(max(cand, lo + 0.125 * tol), hi - 0.125 * tol)
        hc = h([cand])[0]
        if hc >= 0:
            rejected, hr = cand, hc
            if side == 1:
                hk *= 0.5  # Illinois: the kept end was retained twice
            side = 1
        else:
            kept, hk = cand, hc
            if side == -1:
                hr *= 0.5
            side = -1
        failed = abs(kept - rejected) > 0.5 * width and not bisect
        fails += failed  # twice: the end sits at a jump, where only bisection helps
        bisect = failed
    return float(rejected)


def _stop_level(alpha: float) -> float:
    return math.log(2.0 / alpha) + math.log(STOP_FACTOR)


def _fixed_bounds(capital, alpha: float, moments, tol: float = 1e-6) -> tuple[float, float]:
    thr = math.log(2.0 / alpha)
    top = _stop_level(alpha) - thr  # the averaged stopped capital cannot exceed this
    points = getattr(capital, "points", 1)
    low = _search_root(capital, thr, upper=False, tol=tol, moments=moments, plateau=top,
                       points=points)
    high = _search_root(capital, thr, upper=True, tol=tol, moments=moments, plateau=top,
                        points=points)
    return min(low, high), max(low, high)


def _group_bounds(g: GroupStats, alpha: float, truncation: float, seed: list[int],
                  arrangements: int) -> tuple[float, float]:
    """Fixed-horizon betting interval for one group's mean, in ``[0, 1]`` units."""
    arr = _Arranger(g, seed)
    if arr.values is None and arr.n >= MIN_LENGTH:
        # long 0/1 sequences: from counts, in time and memory independent of n
        capital, moments = binary_capital(arr.n, arr.k, alpha=alpha, truncation=truncation,
                                          rng=arr.gen, arrangements=arrangements,
                                          stop=_stop_level(alpha))
        return _fixed_bounds(capital, alpha, moments)
    k = _n_arrangements(arrangements, arr.n)
    seqs = [arr.draw() for _ in range(k)]
    x = seqs[0]
    capital = _final_capital(seqs, alpha, truncation, _stop_level(alpha))
    return _fixed_bounds(capital, alpha, (float(x.mean()), float(x.var()), x.size))
