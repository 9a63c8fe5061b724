"""The blocked betting capital: same answers to within ~2% of the width, valid, faster."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

import fairbound.stats._betting_blocks as bb
from fairbound.errors import FairboundError
from fairbound.stats import GroupStats, difference_interval
from fairbound.stats.betting import betting_mean_interval


def _per_example(monkeypatch, fn, *args, **kw):
    monkeypatch.setattr(bb, "MIN_LENGTH", 10**12)
    try:
        return fn(*args, **kw)
    finally:
        monkeypatch.undo()


def test_block_starts_cover_sequence():
    s = bb.block_starts(50_000)
    assert s[0] == 0 and np.all(np.diff(s) >= 1) and s[-1] < 50_000
    assert np.array_equal(s[:bb.SINGLETONS], np.arange(bb.SINGLETONS))
    assert bb.block_starts(10).tolist() == list(range(10))


def test_bet_caps_both_sides():
    grid, cap, sign = bb.bet_caps(0.25, False, 0.75)
    assert grid.tolist() == [0.25] and cap.tolist() == [3.0] and sign == 1.0
    with np.errstate(all="raise"):  # the ends give infinite caps, not a warning
        grid, cap, sign = bb.bet_caps([0.0, 0.5, 1.0], True, 0.5)
    assert cap.tolist() == [0.5, 1.0, np.inf] and sign == -1.0
    assert bb.bet_caps([0.0], False, 0.5)[1].tolist() == [np.inf]


def test_not_used_for_short_or_many_valued_sequences():
    lam = np.ones(100)
    assert bb.blocked_capital(np.zeros(100), lam, 0.75) is None
    x = np.random.default_rng(0).random(bb.MIN_LENGTH)
    assert bb.blocked_capital(x, np.ones(x.size), 0.75) is None


@pytest.mark.parametrize("p", [0.02, 0.3, 0.5])
def test_close_to_per_example_interval(monkeypatch, p):
    x = (np.random.default_rng(1).random(60_000) < p).astype(float)
    fast = betting_mean_interval(x)
    slow = _per_example(monkeypatch, betting_mean_interval, x)
    width = slow[1] - slow[0]
    assert abs(fast[0] - slow[0]) < 0.03 * width
    assert abs(fast[1] - slow[1]) < 0.03 * width


def _coverage(p_a, p_b, n_a, n_b, reps, seed):
    rng = np.random.default_rng(seed)
    truth = p_a - p_b
    hits = 0
    for r in range(reps):
        a = GroupStats.from_counts(n_a, rng.binomial(n_a, p_a))
        b = GroupStats.from_counts(n_b, rng.binomial(n_b, p_b))
        lo, hi = difference_interval(a, b, method="betting", rng=r)
        hits += lo <= truth <= hi
    return hits


@pytest.mark.parametrize("p_a,p_b", [(0.03, 0.01), (0.15, 0.10)])
def test_blocked_path_coverage(p_a, p_b):
    # groups above MIN_LENGTH, so every interval takes the blocked path (few replications:
    # 16 arrangements of 25,000 pairs each; the slow test below runs 1,000)
    reps = 40
    hits = _coverage(p_a, p_b, 25_000, 40_000, reps, seed=7)
    # one-sided binomial test of coverage >= 0.95 (rejects only clear undercoverage)
    assert binomtest(hits, reps, 0.95, alternative="less").pvalue > 0.01


@pytest.mark.slow
@pytest.mark.parametrize("p_a,p_b", [(0.03, 0.01), (0.5, 0.5), (0.15, 0.10)])
def test_blocked_path_coverage_full(p_a, p_b):
    reps = 1000
    hits = _coverage(p_a, p_b, 25_000, 25_000, reps, seed=11)
    assert binomtest(hits, reps, 0.95, alternative="less").pvalue > 0.01


# ------------------------------------- blocked pairs of fractional costs (v2: both groups)
_LEVELS = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


def _levels(rng, n, p):
    return GroupStats.from_costs(rng.choice(_LEVELS, n, p=p))


@pytest.mark.parametrize("n_a,n_b", [(30_000, 30_000), (25_000, 60_000)])
def test_pair_blocks_close_to_per_example_interval(monkeypatch, n_a, n_b):
    # few cost levels: the blocked pair capital (bets, centre and factor choice constant
    # over blocks) against the per-example one
    rng = np.random.default_rng(1)
    a = _levels(rng, n_a, [0.7, 0.1, 0.1, 0.05, 0.05])
    b = _levels(rng, n_b, [0.75, 0.1, 0.08, 0.04, 0.03])
    fast = difference_interval(a, b, method="betting")
    slow = _per_example(monkeypatch, difference_interval, a, b, method="betting")
    width = slow[1] - slow[0]
    assert abs(fast[0] - slow[0]) < 0.02 * width
    assert abs(fast[1] - slow[1]) < 0.02 * width


def test_pair_block_summary_needs_long_few_valued_sequences():
    n = bb.MIN_LENGTH
    rng = np.random.default_rng(2)
    u, v = rng.choice(_LEVELS, n), rng.choice(_LEVELS, n)
    lam, center, both = np.ones(n), np.full(n, 0.5), np.arange(n) > 3
    summary = bb.pair_block_summary(u, v, (1 + u - v) / 2, lam, center, both)
    assert summary is not None and summary[-1] == 4  # four singleton blocks bet on u - v
    assert summary[1].sum() == 4 and summary[3].sum() == summary[5].sum() == n - 4
    assert bb.pair_block_summary(u[:100], v[:100], u[:100], lam[:100], center[:100],
                                 both[:100]) is None
    w = rng.random(n)
    assert bb.pair_block_summary(w, v, (1 + w - v) / 2, lam, center, both) is None


def test_pair_blocks_coverage():
    # long few-valued fractional costs with a gap: the blocked pair path covers it
    reps, hits = 20, 0
    rng = np.random.default_rng(9)
    pa, pb = [0.7, 0.1, 0.1, 0.05, 0.05], [0.75, 0.1, 0.08, 0.04, 0.03]
    truth = float(_LEVELS @ pa - _LEVELS @ pb)
    for _ in range(reps):
        lo, hi = difference_interval(_levels(rng, 25_000, pa), _levels(rng, 25_000, pb),
                                     method="betting")
        hits += lo <= truth <= hi
    assert binomtest(hits, reps, 0.95, alternative="less").pvalue > 0.01


# ------------------------------------------------------------ 0/1 sequences from counts

def test_counts_path_chosen_by_size_only():
    from fairbound.stats.betting import choose_variant

    assert choose_variant(2_000_000, 3_000_000, binary=True) == "union"
    assert choose_variant(2_000_000, 3_000_000, binary=False) == "blocked"
    assert choose_variant(500_000, 3_000_000, binary=True) == "blocked"


def test_choose_variant_rule():
    from fairbound.stats.betting import choose_variant

    # equal or moderately unequal groups: blocked pairs, even for tiny groups
    assert choose_variant(7, 9) == choose_variant(29, 100) == "blocked"
    assert choose_variant(60, 3000) == choose_variant(400, 5000) == "blocked"
    # a small group against a much larger one: per-group union
    assert choose_variant(10, 80) == choose_variant(20, 400) == "union"
    assert choose_variant(60, 6000) == choose_variant(6000, 60) == "union"
    assert choose_variant(150, 15_000) == "blocked"
    assert choose_variant(10, 10, "union") == "union"
    with pytest.raises(FairboundError, match="variant must be one of auto, blocked, union"):
        choose_variant(10, 10, "pairs")


def test_counts_path_huge_groups_fast_and_symmetric():
    a = GroupStats.from_counts(20_000_000, 3_000_000)
    b = GroupStats.from_counts(30_000_000, 4_000_000)
    lo, hi = difference_interval(a, b, method="betting", rng=3)
    assert lo < 0.15 - 0.4 / 3 < hi  # contains the observed gap
    assert hi - lo < 0.002
    lo2, hi2 = difference_interval(b, a, method="betting", rng=3)
    assert (lo2, hi2) == pytest.approx((-hi, -lo))


def test_counts_interval_close_to_sequence_interval(monkeypatch):
    # a long 0/1 group: arrangements drawn from counts (bets constant over blocks) against
    # the same number of explicit arrangements with per-example bets
    from fairbound.stats import betting as bt

    g = GroupStats.from_counts(50_000, 7_500)
    cnt = bt._group_bounds(g, 0.025, 0.9, [0], 16)
    monkeypatch.setattr(bt.arrangements, "MIN_LENGTH", 10**12)
    monkeypatch.setattr(bb, "MIN_LENGTH", 10**12)
    seq = bt._group_bounds(g, 0.025, 0.9, [0], 16)
    width = seq[1] - seq[0]
    assert abs((cnt[1] - cnt[0]) - width) < 0.05 * width
    assert cnt[0] < 0.15 < cnt[1] and seq[0] < 0.15 < seq[1]


def test_binary_capital_beyond_a_billion_examples():
    # numpy's samplers stop at 10**9 items; the counts path must not
    import time

    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for n, k in [(3_000_000_000, 900_000_000), (2_100_000_000, 3), (10**9, 10**9 - 5)]:
        capital, (p, var, size) = bb.binary_capital(n, k, alpha=0.05, truncation=0.9, rng=rng,
                                                    arrangements=4, stop=np.log(80))
        assert size == n and p == k / n
        grid = np.clip(np.array([p - 1e-4, p, p + 1e-4]), 0.0, 1.0)
        lower, upper = capital(grid, False), capital(grid, True)
        assert np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))
        assert lower[1] < np.log(40) and upper[1] < np.log(40)  # the truth is kept
        if 0.01 < p < 0.99:
            assert lower[0] > np.log(40) and upper[2] > np.log(40)
    ones = bb.ones_per_block(np.diff(np.append(bb.block_starts(3 * 10**9), 3 * 10**9)),
                             1_234_567_890, rng)
    assert ones.sum() == 1_234_567_890 and ones.min() >= 0
    lo, hi = difference_interval(GroupStats.from_counts(3_000_000_000, 900_000_000),
                                 GroupStats.from_counts(2_500_000_000, 700_000_000),
                                 method="betting")
    assert lo < 0.3 - 0.28 < hi and hi - lo < 2e-4
    assert time.perf_counter() - t0 < 20


def test_hypergeometric_split_is_exact(monkeypatch):
    # force the split path on small urns and compare with the exact distribution
    from scipy.stats import chisquare, hypergeom

    monkeypatch.setattr(bb, "_NUMPY_HG_LIMIT", 1000)
    rng = np.random.default_rng(1)
    good, bad, draw = 1500, 2500, 100
    x = np.array([bb.hypergeometric(good, bad, draw, rng) for _ in range(4000)])
    support = np.arange(0, draw + 1)
    pmf = hypergeom(good + bad, good, draw).pmf(support)
    keep = pmf * x.size >= 5
    obs = np.array([(x == v).sum() for v in support])
    f_obs = np.append(obs[keep], obs[~keep].sum())
    f_exp = np.append(pmf[keep], pmf[~keep].sum()) * x.size
    assert chisquare(f_obs, f_exp).pvalue > 0.001
    # the segment split of ones_per_block agrees with one multivariate draw in law
    monkeypatch.setattr(bb, "_SEGMENT", 40)
    sizes = np.full(10, 20)
    first = np.array([bb.ones_per_block(sizes, 60, rng)[:5].sum() for _ in range(3000)])
    assert abs(first.mean() - 30) < 0.3  # hypergeometric(60, 140, 100): mean 30, sd ~2.7
    assert abs(first.std() - np.sqrt(100 * 0.3 * 0.7 * 100 / 199)) < 0.2


def test_hypergeometric_edge_cases():
    rng = np.random.default_rng(2)
    assert bb.hypergeometric(0, 5, 3, rng) == 0
    assert bb.hypergeometric(5, 0, 3, rng) == 3
    assert bb.hypergeometric(5, 5, 0, rng) == 0
    assert bb.hypergeometric(2_000_000_000, 1_500_000_000, 3_500_000_000, rng) == 2_000_000_000
    with pytest.raises(ValueError, match="nsample"):
        bb.hypergeometric(1, 1, 3, rng)


@pytest.mark.parametrize("p_a,p_b", [(0.03, 0.01), (0.5, 0.45)])
def test_counts_path_coverage(p_a, p_b):
    # betting-union takes the counts path once both groups exceed MIN_LENGTH
    rng = np.random.default_rng(5)
    reps, hits = 40, 0
    for r in range(reps):
        a = GroupStats.from_counts(25_000, rng.binomial(25_000, p_a))
        b = GroupStats.from_counts(30_000, rng.binomial(30_000, p_b))
        lo, hi = difference_interval(a, b, method="betting-union", rng=r)
        hits += lo <= p_a - p_b <= hi
    assert binomtest(hits, reps, 0.95, alternative="less").pvalue > 0.01
