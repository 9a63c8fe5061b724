"""Betting confidence intervals and sequences for bounded means, and the betting gap interval.

A mean ``mu`` of variables in ``[0, 1]`` is estimated by betting against every candidate
value ``m``: a gambler starts with capital 1 and, before seeing ``x_t``, bets a predictable
fraction ``lambda_t`` that ``x_t > m`` (capital ``K+``) or that ``x_t < m`` (capital ``K-``).
When ``m`` is the true mean both capitals are non-negative martingales, so by Ville's
inequality the hedged capital ``max(K+ / 2, K- / 2)`` ever reaching ``1 / alpha`` has
probability at most ``alpha``.  The values ``m`` at which neither capital has ever reached
``2 / alpha`` form the interval; it is valid for every sample size and, because it uses the
running maximum of the capital, it is also a confidence sequence (valid when the data are
looked at after every example).

Bets follow the hedged-capital construction of Waudby-Smith & Ramdas (2024), with the
predictable plug-in empirical-Bernstein bets

    lambda_t = sqrt(2 log(2 / alpha) / (n sigma2_{t-1}))          (fixed horizon n)
    lambda_t = sqrt(2 log(2 / alpha) / (t log(1 + t) sigma2_{t-1}))  (open-ended sequence)

from running estimates ``mu_t = (1/2 + sum x) / (t + 1)`` and
``sigma2_t = (1/4 + sum (x_i - mu_i)^2) / (t + 1)``, truncated at ``c / m`` for ``K+`` and
``c / (1 - m)`` for ``K-`` (``c = 3/4`` for data in a given order, ``0.9`` for the
fixed-horizon intervals below, ``0.99`` for the v2 bets of blocked pairs on both groups) so
that every factor stays above ``1 - c``.

Each factor of ``K+`` decreases in ``m`` and each factor of ``K-`` increases, so the kept set
is an interval ``[L, U]``; both ends are found by a search that evaluates the capital on a
grid of candidates at once.  The capital loop is written here by hand with numpy because no
dependency provides it (the reference implementation, ``confseq``, is not a dependency of
fairbound) and because it is the hot path of every betting interval: the loop over examples
is a cumulative sum of logarithms, vectorised over the candidate grid and processed in
chunks so that memory stays bounded for millions of examples.

Two uses, with different guarantees
-----------------------------------
*Data in a given order* (:func:`betting_mean_interval`, :func:`betting_confidence_sequence`,
and the monitor): the running maximum of one capital, valid by Ville's inequality at every
sample size and when looking after every example.

*Data summarised by group* (:func:`group_mean_interval` and ``method="betting"`` /
``"betting-union"``): the order is ours to choose, and one fixed choice is not enough.  The
first version rebuilt each group's sequence from counts and shuffled it with the caller's
fixed seed, so every data set of a given size had its ones at the same nested positions; the
sequences were not exchangeable and the default audit claimed a gap on null data in up to
71% of data sets.  These intervals therefore:

1. draw :data:`ARRANGEMENTS` (16) arrangements of each group's costs from a generator
   seeded by the user's seed (``None`` is 0) together with a hash of the group's sufficient
   statistics (and, for fractional costs, of its sorted sample).  Data sets thus get their
   own arrangements, and the same data and seed always give the same interval;
2. run the bets on each arrangement with the horizon ``n`` and stop each capital when it
   first reaches :data:`STOP_FACTOR` ``x 2 / alpha`` (``e_j = min(K_{tau ^ n}, level)``);
   for blocked pairs of fractional costs the bets are placed on each group's cost rather
   than on their difference (:func:`_pair_final_capital`, below);
3. reject a candidate when the *average* of the stopped ``K+`` (or of the stopped ``K-``)
   over the arrangements reaches ``2 / alpha``.  Both averages are monotone in the
   candidate, so the ends are still found separately, by a bracketed root search.

What is exact: for one arrangement drawn uniformly at random independently of exchangeable
data (e.g. i.i.d. examples within each group, groups independent), the arranged sequence is
distributed like the data, the capital at the true mean is a non-negative martingale (a
supermartingale when the bets are placed on each group's cost), and by optional stopping
each stopped capital ``e_j`` has expectation at most 1 (an e-value).
An average of e-values is an e-value whatever their dependence, so by Markov's inequality
``P(average K+ >= 2 / alpha) <= alpha / 2``, the same for ``K-``, and the interval misses
the truth with probability at most ``alpha``.  No running maximum over the average is used
(it would not be valid), only each arrangement's own stopping time.

What the hash seeding assumes: the arrangements are a deterministic function of the data and
the seed.  Averaged over seeds the guarantee above is exact; for one fixed seed it treats the
hash as a random function unrelated to the data-generating distribution (the usual
random-oracle assumption).  The average over 16 arrangements also makes each decision close
to that of the exact e-value averaged over *all* arrangements (a function of the data
alone), so that no single arrangement decides: near a verdict boundary the ends vary across
seeds about 4 times less than with one arrangement (e.g. 12/60 vs 4/60: the lower end's
standard deviation over seeds is 0.008 instead of 0.031), and null data sets with a fixed
seed claim a gap at or below the nominal rate in every checked cell (tests).  Not claimed:
validity when examples within a group are not exchangeable (drifting rates, clusters), and
looking at the interval as data arrive (use the monitor's confidence sequences for that).

The price of removing the seed's influence is width: about 5-15% wider than one random
arrangement with a running maximum (which is valid only with a fresh random seed per data
set).  The fixed-horizon intervals truncate bets at :data:`FIXED_TRUNCATION` (0.9, factors
>= 0.1) rather than 0.75, which narrows low-variance intervals (fractional costs, rare
events against a large group) by about 10%.

Gap intervals
-------------
* ``betting-union`` - a betting interval for each group at ``alpha / 2`` and the difference
  of the bounds (union bound).  Works for any group sizes; the building block for many groups.
* ``betting`` - blocked pairs (Chugg et al. 2023): the smaller group S (``m`` examples) is
  paired with ``m`` consecutive blocks of the larger group L; ``Z_j = s (c_S,j - mean of block
  j)`` has mean ``delta`` and lies in ``[-C, C]``; the betting interval of
  ``(Z + C) / (2C)`` is mapped back.  :func:`choose_variant` switches to ``betting-union``
  by group sizes only (a small group against a much larger one).

  v2, fractional costs: from the pair after the first cost strictly between 0 and its
  maximum (a predictable switch, so 0/1 costs are unchanged), each pair's factor bets on
  the two costs separately, ``(1 + lam (u - a)) (1 - lam (v - b))`` with centres
  ``a - b = delta`` around a running estimate of the groups' common level.  At the true gap
  its conditional mean is ``1 - lam^2 (mu_A - a)^2 <= 1``, and it allows bets up to
  :data:`PAIR_TRUNCATION` ``/ (1/2 + |s - 1/2|)`` (in units of ``1 / C``) instead of about
  ``truncation``, which is what low-variance fractional costs need: 1.93 instead of 2.15
  times Wald's total n for 80% power on Beta(1.5, 8.5) vs Beta(1, 9) costs
  (``benchmarks/betting_fractional.py --reps 300``).  Details in
  :func:`_pair_final_capital`.

Nothing is ordered or paired by cost: the arrangements are uniformly random given the data.

References
----------
I. Waudby-Smith and A. Ramdas. "Estimating means of bounded random variables by betting."
Journal of the Royal Statistical Society, Series B 86(1) (2024) 1-27.

B. Chugg, S. Cortes-Gomez, B. Wilder and A. Ramdas. "Auditing Fairness by Betting."
NeurIPS 2023.

Where each part lives
---------------------
* :mod:`~fairbound.stats.betting.sequence` - data in a given order: the predictable bets,
  the running capital, :func:`betting_mean_interval`, :func:`betting_confidence_sequence`.
* :mod:`~fairbound.stats.betting.arrangements` - data summarised by group: the seeded
  arrangements, the stopped capital of one group and of blocked pairs averaged over them,
  the root search for the ends.
* :mod:`~fairbound.stats.betting.intervals` - :func:`group_mean_interval`, the gap intervals
  (``betting``, ``betting-union``), :func:`choose_variant`, :func:`approximate_required_n`.
* :mod:`fairbound.stats._betting_blocks` - the blocked capital that makes long 0/1 groups
  fast.

Every name is importable from here, as before the split.
"""

from __future__ import annotations

# Private names that other modules, tests and benchmarks import from here (kept importable).
from fairbound.stats.betting.arrangements import (  # noqa: F401
    ARRANGEMENTS,
    FIXED_TRUNCATION,
    MAX_COUNT_N,
    PAIR_TRUNCATION,
    STOP_FACTOR,
    _Arranger,
    _final_capital,
    _group_bounds,
    _pair_final_capital,
    _search_root,
)
from fairbound.stats.betting.intervals import (
    approximate_required_n,
    blocked_pairs,
    choose_variant,
    group_mean_interval,
)
from fairbound.stats.betting.sequence import (
    DEFAULT_TRUNCATION,
    ConfidenceSequence,
    _search_bound,  # noqa: F401
    betting_confidence_sequence,
    betting_mean_interval,
    predictable_bets,
)

__all__ = [
    "ARRANGEMENTS",
    "DEFAULT_TRUNCATION",
    "FIXED_TRUNCATION",
    "MAX_COUNT_N",
    "PAIR_TRUNCATION",
    "STOP_FACTOR",
    "ConfidenceSequence",
    "approximate_required_n",
    "betting_confidence_sequence",
    "betting_mean_interval",
    "blocked_pairs",
    "choose_variant",
    "group_mean_interval",
    "predictable_bets",
]
