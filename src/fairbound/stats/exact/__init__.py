"""Exact unconditional confidence interval for a difference of two proportions.

For 0/1 costs the statistics of a group are a count: ``k_A`` of ``n_A`` examples have cost
``C`` in group A, ``k_B`` of ``n_B`` in group B, and ``delta = C (p_A - p_B)``.  The
``exact`` method is the interval of Agresti & Min (2001): the values ``d`` at which ONE
two-sided exact unconditional test of ``p_A - p_B = d`` does not reject,

    CI = hull { d : p(d) > alpha },

with, at ``d``, the score statistic of Miettinen & Nurminen (1985) / Farrington & Manning
(1990)

    T(x, y) = (x / n_A - y / n_B - d) / sqrt(pA~ qA~ / n_A + pB~ qB~ / n_B),

where ``(pA~, pB~)`` is the maximum-likelihood estimate under ``p_A - p_B = d`` (closed-form
root of a cubic, vectorised over tables), and the Berger & Boos (1994) p-value

    p(d) = sup over nu in C_gamma of P_{d, nu}(|T| >= |T_obs|) + gamma.

``nu = p_B`` is the nuisance parameter (``p_A = nu + d``) and ``C_gamma`` a confidence set
for it: the Clopper-Pearson intervals of both groups, each at level ``1 - gamma/4``, so
``C_gamma`` misses the truth with probability at most ``gamma/2``; the other ``gamma/2``
is a margin for the numerically computed supremum (below).  ``gamma = alpha / 50`` by
default (0.001 at the 95% level, as Berger & Boos suggest); ``gamma=0`` takes the
supremum over every ``nu`` and gives the classical test (at ``d = 0`` it is Barnard's test
with the pooled statistic, ``scipy.stats.barnard_exact(..., pooled=True)``).

Computation.  For a fixed ``d`` the statistic decreases in ``y`` and increases in ``x``, so
the accepted tables ``|T| < |T_obs|`` of column ``x`` are one run ``lo(x) <= y <= hi(x)``;
the runs are guessed from the curves ``T = +-|T_obs|`` (two linear equations in ``(x, y)``
for each value of the restricted MLE), checked with the statistic itself and repaired by
bisection where wrong, so every run is exact.  Then

    P_{d, nu}(accept) = sum_x pmf_A(x) (F_B(hi(x)) - F_B(lo(x) - 1)),

summed over a window of about eight standard deviations around the nuisance set (dropped
tables count as rejections, which can only raise ``p``).  The supremum over ``nu`` is
taken on a grid of steps of 0.8 standard errors (combined arcsine scale of both groups),
then the two best local maxima are refined on shrinking local grids with a parabolic step;
against grids 16 times finer the refined supremum was never more than 2e-5 short (4e-6
with the Berger-Boos restriction; the ``gamma/2`` margin is 0.0005 at 95%).

The two ends are searched together from the asymptotic score interval, in the scale of
``|T_obs(d)|`` (candidates placed by interpolating ``z(p)`` while the bracket is wide, by
k-section after); candidates are first judged on the grid supremum, a lower bound that
suffices to accept, and a rejection is confirmed with the refined supremum.  The outer,
rejected, end of a final bracket shorter than ``min(1e-5, 0.001 se)`` is reported.  The
accepted set is not always an interval: past its first end it can be accepted again
(found for 4 of 25 random tables at 10 and 25 examples, for extreme tables at 200 per
group, up to 0.22 standard errors past the end; p hovers just below ``alpha`` in
between).  The search therefore scans past each end, 0.5 se in steps of 0.01 when the
counts vary little (``n p q <= 25``; an island was found 0.31 se out), 0.1 se when ``n p q
<= 100`` (on 300 random tables there a 0.3 se scan found nothing further out:
``benchmarks/exact_checks.py scan``), 0.02 se otherwise.  Islands narrower than the scan's
step are found by zooming: past an end the rejection region ``{|T| >= |T_obs|}`` changes
only at the nulls where one table's statistic meets the observed one, ``p`` is continuous
between them and largest at an end of each such piece (on 21,918 pieces past the ends of
300 random tables, none was higher inside: ``benchmarks/exact_checks.py pieces``), so
between two scanned nulls whose ``p`` comes within 2% of ``alpha`` every such change is
located (from the statistics of the window's tables, without p-values) and ``p`` tested on
both sides of it.  The search restarts from any accepted value it finds; the hull of what
it finds is reported.  Where the tail bound below tests every null because one group is
large, a small other group's p can be accepted again much farther out (for 18 examples
against 7,541,211, up to 0.5 se): such tables are also scanned, in steps of 0.02 se of the
smaller group, out to the distance past which Hoeffding's inequality rejects every null,
and the hull widened to the outermost accepted null found (``_far_scan`` in
:mod:`~fairbound.stats.exact.inversion`; on 400 random such tables no null accepted on a
grid of 0.001 fell more than 1e-4 outside the hull, against 54 tables, up to 0.205 past an
end, before: ``python benchmarks/exact_checks.py islands --tables 400``).

Without scipy.  Groups of up to 10,000 examples are handled without importing scipy (whose
``scipy.special`` import costs more than a small audit's intervals): normal quantiles come
from :class:`statistics.NormalDist`, log binomial coefficients from :func:`math.lgamma`,
and Clopper-Pearson bounds from Newton's method on the binomial tail; they agree with
``scipy.special`` within the tolerances ``tests/stats/test_exact.py`` checks.  The tail
bound and the Clopper-Pearson bounds of larger groups use SciPy's ``ndtr``, ``ndtri`` and
``betaincinv``, loaded when first needed from the compiled module that holds them without
the ``scipy.special`` package around it (:mod:`~fairbound.stats.exact._special`: the same
ufunc objects, about half a second of CPU less per process).

Large counts.  Testing exactly costs time growing like the standard deviations of the
counts, so each simple null ``(d, nu)`` whose binomial variances ``n p (1 - p)`` both stay
within :data:`EXACT_VARIANCE` is tested exactly as above, and any other one with the
difference ``D = X / n_A - Y / n_B`` and the tail bound of :func:`bound_tail` (per tail
the smallest of the normal tail plus the Berry-Esseen term with Shevtsova's constant 0.56,
the Chernoff bound with the exact binomial moment generating functions, and Hoeffding's
bound; all are upper bounds of the same probability, so is their minimum).  The choice
depends on the sizes and the hypothesised rates only, never on the counts, and each simple
null gets a valid p-value, so the Berger-Boos supremum is still valid.  Groups of at most
``4 EXACT_VARIANCE = 10,000`` examples are always tested exactly; above that the cost no
longer grows with ``n`` (common rates use the bound, rare ones the exact test).

Guarantee: coverage at least the nominal level for every ``n_A, n_B >= 1`` and every pair
of true rates, by construction (a valid p-value for every simple null, a confidence set
for the nuisance, test inversion), up to the numerical supremum discussed above.

Not covered: the examples of a group must be independent draws with one success
probability (Bernoulli sampling within each group, groups independent); clustered or
dependent annotations need another method.  Like every exact method for discrete data
the interval is conservative (coverage above the level, by an amount that shrinks with
the counts).  The hull is only as complete as the scan and the zoom described above:
the zoom tests at most 48 changes of the region per end and round, and none where the
window of tables holds more than 8,000 (two groups of a few hundred examples or more,
where the changes are dense and each moves ``p`` little).  Checked on a grid of 0.0005
standard errors out to 0.5 past each end (``python benchmarks/exact_checks.py finegrid``
with seeds 11, 12, 13: 500 random tables of 5 to 600 examples per group at 95% and ``1 -
0.05/30``), 5 tables have a value the test accepts past the hull, at most 0.0425 se out
with ``p`` at most 1.09% above ``alpha``, all at ends whose window the zoom leaves out;
before the zoom, 33 of the same 500, up to 0.324 se out and 31.24% above ``alpha``.  Where
such a value is 0, the verdict claims a gap the test does not; the null false-claim
checks through :func:`fairbound.audit` (``tests/test_validity.py``) and the coverage
enumerations hold with the hull as searched.
Only 0/1 costs: fractional costs need ``betting``.  Speed: 15.2 ms per interval at 50
examples per group, 21.0 ms at 500 and 26.8 ms at 5,000 (pure numpy; most of it is
per-call overhead), 1.9 ms and 7.5 ms at 50,000 and 5,000,000 in the tail-bound regime
(rates 0.15 vs 0.10, ``benchmarks/exact_power.py``); the zoom adds 55-67% on small
tables (5 to 600 examples per group: 35.7-38.6 ms a table against 22.9-24.2 ms,
``exact_checks.py finegrid``).  An audit's tables in the tail-bound regime whose counts
all vary (a group of any size against a large rest included, see
:func:`~fairbound.stats.exact.inversion._bound_only`) are searched together, on arrays and
on every core: 0.20 s of CPU for 600 tables of two large groups against 15.2 s with the
one-table search (0.17 s against 16.6 s for 600 of a group against a large rest; ``python
benchmarks/exact_checks.py onesided --tables 600``, ``benchmarks/results/exact_checks.txt``).

References
----------
A. Agresti and Y. Min. "On small-sample confidence intervals for parameters in discrete
distributions." Biometrics 57 (2001) 963-971.

I. S. F. Chan and Z. Zhang. "Test-based exact confidence intervals for the difference of
two binomial proportions." Biometrics 55 (1999) 1202-1209 (the same test inverted as two
one-sided tests; Agresti & Min show the single two-sided test gives shorter intervals).

R. L. Berger and D. D. Boos. "P values maximized over a confidence set for the nuisance
parameter." Journal of the American Statistical Association 89 (1994) 1012-1016.

O. Miettinen and M. Nurminen. "Comparative analysis of two rates." Statistics in Medicine
4 (1985) 213-226.

C. P. Farrington and G. Manning. "Test statistics and sample size formulae for
comparative binomial trials with null hypothesis of non-zero risk difference or non-unity
relative risk." Statistics in Medicine 9 (1990) 1447-1454.

I. G. Shevtsova. "An improvement of convergence rate estimates in the Lyapunov theorem."
Doklady Mathematics 82 (2010) 862-864.

Examples
--------
StatXact 11 and R's ``exact2x2`` (``uncondExact2x2(2, 7, 6, 13, method="score",
tsmethod="square")``, the same test without the Berger-Boos restriction) give
(-0.3079, 0.5542) for ``6/13 - 2/7``:

>>> lo, hi = exact_interval(6, 13, 2, 7, gamma=0)
>>> round(lo, 4), round(hi, 4)
(-0.3079, 0.5542)
>>> from fairbound.stats.base import GroupStats, difference_interval
>>> a, b = GroupStats.from_counts(25, 3), GroupStats.from_counts(25, 0)
>>> lo, hi = difference_interval(a, b, method="exact")
>>> round(lo, 4), round(hi, 4)
(-0.024, 0.32)

Layout.  The package is split by idea: :mod:`~fairbound.stats.exact.statistic` (the score
statistic and its restricted MLE), :mod:`~fairbound.stats.exact.binomial` (windows, log
binomial coefficients, pmf, Clopper-Pearson, normal quantile: the building blocks the
difference and the ratio engines share, under public names),
:mod:`~fairbound.stats.exact.bound` (the tail bound), :mod:`~fairbound.stats.exact.inversion`
(p-values and the search for the ends, one table or many), :mod:`~fairbound.stats.exact.cache`
(the explicit :class:`IntervalCache`; an audit fills one of its own, or the one made active
with :func:`using`), :mod:`~fairbound.stats.exact._special` (SciPy's ufuncs without
``scipy.special``'s import), :mod:`~fairbound.stats.exact.interval` (the public
functions and the registry entry) and :mod:`~fairbound.stats.exact.union` (the named
group-vs-rest method ``exact-union``).  Every name importable from the old module
``fairbound.stats.exact`` still is.
"""

from __future__ import annotations

from fairbound.stats.exact.binomial import (  # noqa: F401  (old private names)
    _FACTORIAL_TABLE,
    _NATIVE_CP,
    _binom_pmf,
    _binomial_rate,
    _clopper_pearson,
    _distinct,
    _log_choose,
    _log_comb,
    _log_comb_window,
    _log_factorial,
    _ndtri,
    _radius,
    _unit,
    _window,
    bernstein_radius,
    binom_pmf,
    clopper_pearson,
    count_window,
    log_comb,
    log_comb_window,
    ndtri,
)
from fairbound.stats.exact.bound import (  # noqa: F401
    _BE_CONSTANT,
    _bound_sup,
    _chernoff_log,
    _grid_sup,
    bound_tail,
)
from fairbound.stats.exact.cache import SHARED, IntervalCache, active, current, using
from fairbound.stats.exact.interval import (  # noqa: F401
    _CACHE,
    GAMMA_SHARE,
    _cached_interval,
    _counts,
    _exact,
    _exact_batch,
    approximate_required_n,
    clear_cache,
    exact_interval,
    exact_pvalue,
)
from fairbound.stats.exact.inversion import (  # noqa: F401
    _DENSE_CELLS,
    _FIRST,
    _MATRIX_CELLS,
    _SCAN_MID,
    _SCAN_NEAR,
    _SCAN_SETTLED,
    _SCAN_WIDE,
    _SETTLED,
    _SPACING,
    _TAIL_LOG,
    _TIE,
    EXACT_VARIANCE,
    _bound_only,
    _bound_pvalues,
    _bound_search,
    _bound_sup_rows,
    _cheap_rate,
    _End,
    _ExactBatch,
    _invert_score,
    _pvalues,
    _search,
    _smooth,
    _Table,
    _z_of_p,
)
from fairbound.stats.exact.statistic import (  # noqa: F401
    _all_scalar,
    _mle,
    restricted_mle,
    score_statistic,
)
from fairbound.stats.exact.union import union_interval_many, union_split  # registers

__all__ = [
    "EXACT_VARIANCE", "GAMMA_SHARE", "SHARED", "IntervalCache", "active",
    "approximate_required_n",
    "bernstein_radius", "binom_pmf", "bound_tail", "clear_cache", "clopper_pearson",
    "count_window", "current", "exact_interval", "exact_pvalue", "log_comb",
    "log_comb_window", "ndtri", "restricted_mle", "score_statistic", "union_interval_many",
    "union_split", "using",
]
