"""Prediction-powered intervals for a gap between two groups, from sufficient statistics.

Setting.  In each group some rows carry a gold label and a proxy label (a stronger model,
an LLM judge, a crowd majority), the others only the proxy.  For a cost ``Y`` in
``[0, C]`` computed with the gold label and the same cost ``f`` computed with the proxy,
the labeled rows give ``(Y_i, f_i)``, ``i = 1..n``, and the unlabeled rows ``f_j``,
``j = 1..N``.  Prediction-powered inference (PPI) estimates ``E[Y]`` by

    theta(lambda) = lambda mean_j(f_j) + mean_i(Y_i - lambda f_i),

the proxy's mean on the unlabeled rows corrected by the *rectifier* ``Y - lambda f`` measured
on the labeled rows.  Its expectation is ``E[Y]`` for every fixed ``lambda`` and every proxy,
however biased, because the labeled and the unlabeled rows come from the same
distribution.  Its variance is

    Var theta = lambda^2 Var(f) / N + Var(Y - lambda f) / n,

which is smaller than the labeled-only ``Var(Y) / n`` when the proxy tracks the gold cost.
``lambda = 1`` is the original PPI (Angelopoulos et al. 2023); PPI++ (Angelopoulos, Duchi &
Zrnic 2023) minimises the variance over ``lambda``:

    lambda* = Cov(Y, f) / ((1 + n / N) Var(f)),

estimated by plug-in exactly as the reference implementation ``ppi_py`` does
(``ppi_mean_ci(..., lam=None)``: covariance over the labeled rows with ``ddof=0``, variance
of the proxy over labeled and unlabeled rows together with ``ddof=1``), clipped to
``[0, 1]``.  A useless proxy (``Cov = 0``) gets ``lambda`` near 0 and the interval is then
close to the labeled-only one; a constant proxy gets ``lambda = 0``; with no unlabeled rows
the tuned estimate is the labeled-only one.  The interval is ``theta +- z se``.

Standard error.  ``variance='plugin'`` is PPI++'s (and ``ppi_py``'s): the variance above at
the estimated ``lambda`` with ``ddof=0`` moments.  It ignores the noise of the estimated
``lambda``, which is second order but not small with few labels: with 60 labels of 600 rows
and a 98%-agreement 0/1 proxy, ``lambda`` has a standard deviation of about 0.17, the
estimate's spread is 25% above the plug-in standard error and 95% intervals cover about
90% of the time.  ``variance='jackknife'`` is the two-sample jackknife
``sum over parts ((m - 1) / m) sum_i (theta_(-i) - mean theta_(-.))^2`` (parts: labeled and
unlabeled rows), with ``lambda`` re-tuned on every leave-one-out sample, so it includes that
noise; with 0/1 costs the leave-one-out samples are one per non-empty cell of the counts,
so it is exact from the sufficient statistics (4 + 2 cells for a mean, 8 + 4 for a ratio).
The default ``'auto'`` is the jackknife for 0/1 costs and the plug-in otherwise (nine sums
do not determine the leave-one-out estimates).  Measured (``benchmarks/ppi_gain.py``):
coverage back to nominal for good proxies at 60 labels, slightly conservative (0.97) for
a perfect proxy, about the plug-in's width from a few hundred labels on.  The point estimate
is the same either way (``ppi_py``'s).

Everything above is a function of nine numbers per group, :class:`PPIStats`:
``n, sum Y, sum Y^2, sum f, sum f^2, sum Y f`` over the labeled rows and
``N, sum f, sum f^2`` over the unlabeled rows.

Gaps.  Groups are independent, so the gap estimate ``theta_A - theta_B`` has variance
``Var theta_A + Var theta_B`` and each group's ``lambda`` is tuned on its own statistics
(which minimises the sum) -- :func:`ppi_gap_interval`; :func:`classical_gap_interval` is
the labeled-only Wald interval with the same conventions, for comparison.

Ratio metrics.  TPR, FPR, precision... are means conditional on the label,
``R = E[U] / E[V]`` with ``U = num(Y, pred)`` and ``V = den(Y, pred)`` (TPR: ``U = Y pred``,
``V = Y``).  On unlabeled rows the proxy label ``f`` replaces ``Y`` in both.  Numerator and
denominator are PPI means with one common ``lambda``, ``R = theta_U / theta_V``, and the
variance is the delta method with the *joint* covariance of the two estimates,

    Sigma = lambda^2 Cov_unlabeled(U~, V~) / N + Cov_labeled(U - lambda U~, V - lambda V~) / n,
    Var R = g' Sigma g,   g = (1 / theta_V, -theta_U / theta_V^2),

(``U~, V~``: the same with the proxy label).  This is the M-estimator of ``R`` (estimating
equation ``E[U - R V] = 0``) and ``g' Sigma g`` its sandwich variance; PPI++ tunes ``lambda``
on the influence function ``phi = U - R V``: ``lambda* = Cov(phi, phi~) / ((1 + n/N)
Var(phi~))`` with a pilot ``R`` from ``lambda = 1``, as ``ppi_py`` does for its
M-estimators.  For 0/1 gold labels, proxy labels and predictions the sufficient statistics
are the counts of :class:`PPICounts`: per group, rows by (labeled, gold, proxy,
prediction), a ``GROUP BY`` in any engine.

A guaranteed variant.  :func:`ppi_guaranteed_gap_interval` holds for every sample size
(no CLT) with a ``lambda`` fixed in advance (default 1; a tuned ``lambda`` would depend on
the data): confidence intervals for the unlabeled mean of ``f`` and for the rectifier mean
``E[Y - lambda f]`` in each group, combined by a union bound (the error ``alpha`` split
over the pieces) and interval arithmetic.  For 0/1 costs with ``lambda = 1`` the pieces
are exact binomial: Clopper-Pearson for ``E f``, and for the rectifier
``E[Y - f] = pi (2 q - 1)`` (``pi``: probability of disagreement, ``q``: share of the
disagreements where the gold cost is 1) a Clopper-Pearson interval for ``pi`` and one for
``q`` given the number of disagreements, combined over the rectangle.  For other costs each
piece is the intersection of a Hoeffding and a Maurer-Pontil empirical-Bernstein interval.
It is conservative: widths add linearly instead of in quadrature, ``alpha`` is split over
up to six pieces, and the rectangle scales the spread of ``q`` by the upper end of ``pi``.
Measured: 2 to 2.5 times the asymptotic PPI++ width for one mean, 3.5 to 4 times for a
gap; against the guaranteed labeled-only interval (``lam=0``, Clopper-Pearson) it is
narrower only for near-perfect proxies (agreement of 98% or more, with many more unlabeled
than labeled rows: 0.85 of the width at 98% and 1,000 of 21,000 rows labeled, 0.72 at
99%, 1.08 at 95%, 1.4 at 90%).  It is a floor to build on, not yet a useful default.

Planning.  With ``M = n + N`` rows in a group and gold labels drawn from it, the tuned
variance for ``n`` labels is ``min over lambda in [0, 1]`` of
``(Var Y - 2 lambda Cov + lambda^2 Var f) / n + lambda^2 Var f / (M - n)`` (unclipped:
``Var(Y) ((1 - rho^2) / n + rho^2 / M)``), convex in ``n``;
:func:`neyman_allocation` splits a labeling budget between the groups to minimise the gap's
variance (Neyman allocation, ``n_g`` roughly proportional to ``sd(Y_g) sqrt(1 - rho_g^2)``)
and :func:`labels_needed` finds the fewest labels for a target half-width.  The moments are
those measured on the current data, and the variance is the plug-in one (no allowance for
the noise of the estimated ``lambda``), so plans below about a hundred labels per group are
optimistic; with a near-perfect proxy a plan can ask for very few labels, where the CLT
intervals are not to be trusted (use the guaranteed interval there).

Guarantee: the asymptotic intervals are CLT intervals (coverage tends to the level as ``n``
and ``N`` grow; measured in ``tests/stats/test_ppi.py``); the guaranteed ones hold for every
``n`` and ``N``.  Both assume that, within each group, the labeled rows are a uniformly
random sample of the rows (labeled and unlabeled rows from the same distribution; groups
independent); :func:`proxy_shift_pvalue` checks the part that can be checked, the proxy's
distribution on both sides.

Not covered: labels chosen by the proxy's uncertainty or by any other rule than uniform
sampling within a group (inverse-probability weights: :mod:`fairbound.stats.ppi_ipw`);
tuned ``lambda`` in the guaranteed intervals; ratio metrics in the guaranteed intervals;
small labeled sets (the CLT intervals can under-cover when a group has few labeled rows
or a rate near 0 or 1, like Wald: 0.93 at 95% with 60 labels and an 80%-agreement proxy,
where the labeled-only Wald interval also gives 0.93).

References
----------
A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic.
"Prediction-powered inference." Science 382 (2023) 669-674.

A. N. Angelopoulos, J. C. Duchi and T. Zrnic. "PPI++: Efficient prediction-powered
inference." arXiv:2311.01453 (2023).

J. Gao and J. Gronsbell. "Reliable fairness auditing with semi-supervised inference."
(2025) -- the same estimator for fairness metrics.

A. Maurer and M. Pontil. "Empirical Bernstein bounds and sample variance penalization."
COLT 2009.

J. Neyman. "On the two different aspects of the representative method." Journal of the
Royal Statistical Society 97 (1934) 558-625.

Where each part lives
---------------------
* :mod:`~fairbound.stats.ppi.counts` - the input: :class:`PPIStats` (sums of one group),
  :class:`PPICounts` (cells of a 0/1 classifier), the checks, the result types.
* :mod:`~fairbound.stats.ppi.wald` - the asymptotic step every estimator shares (also
  :mod:`fairbound.stats.ppi_ipw` and :mod:`fairbound.stats.ppi_score`).
* :mod:`~fairbound.stats.ppi.means` - PPI++ and labeled-only intervals for means and gaps,
  :func:`proxy_shift_pvalue`.
* :mod:`~fairbound.stats.ppi.ratios` - ratio metrics (TPR, FPR, precision, ...) by the
  delta method.
* :mod:`~fairbound.stats.ppi.guaranteed` - the finite-sample intervals.
* :mod:`~fairbound.stats.ppi.planning` - :func:`neyman_allocation`, :func:`labels_needed`.

Every name is importable from here, as before the split.

Examples
--------
A proxy that agrees with the gold cost on 90% of rows, 200 gold labels and 2,000
unlabeled rows per group:

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> def group(p, n=200, N=2000):
...     y = rng.random(n + N) < p
...     f = np.where(rng.random(n + N) < 0.9, y, ~y)
...     return PPIStats.from_arrays(y[:n], f[:n], f[n:])
>>> a, b = group(0.30), group(0.20)
>>> ppi = ppi_gap_interval(a, b, 0.95)
>>> lab = classical_gap_interval(a, b, 0.95)
>>> round(ppi.low, 3), round(ppi.high, 3), round(ppi.width / lab.width, 2)
(0.029, 0.152, 0.75)
>>> lo, hi = ppi  # unpacks like every interval in fairbound
"""

from __future__ import annotations

from fairbound.stats.ppi.counts import (
    MEAN_COSTS,
    RATIO_METRICS,
    UNLABELED_ALPHA_SHARE,
    LabelPlan,
    PPICounts,
    PPIInterval,
    PPIStats,
    _cells,  # noqa: F401  (ppi_ipw, ppi_score)
)
from fairbound.stats.ppi.guaranteed import (
    ppi_guaranteed_gap_interval,
    ppi_guaranteed_mean_interval,
)
from fairbound.stats.ppi.means import (
    classical_gap_interval,
    classical_mean_interval,
    ppi_gap_interval,
    ppi_lambda,
    ppi_mean_interval,
    proxy_shift_pvalue,
)
from fairbound.stats.ppi.planning import labels_needed, neyman_allocation
from fairbound.stats.ppi.ratios import (
    classical_ratio_gap_interval,
    ppi_ratio_gap_interval,
    ppi_ratio_interval,
)
from fairbound.stats.ppi.wald import (  # noqa: F401  (kept importable from here)
    _rate_gap_interval,
    _rate_interval,
    _tuned_ratio,
    _wald,
)

__all__ = [
    "MEAN_COSTS",
    "RATIO_METRICS",
    "UNLABELED_ALPHA_SHARE",
    "LabelPlan",
    "PPICounts",
    "PPIInterval",
    "PPIStats",
    "classical_gap_interval",
    "classical_mean_interval",
    "classical_ratio_gap_interval",
    "labels_needed",
    "neyman_allocation",
    "ppi_gap_interval",
    "ppi_guaranteed_gap_interval",
    "ppi_guaranteed_mean_interval",
    "ppi_lambda",
    "ppi_mean_interval",
    "ppi_ratio_gap_interval",
    "ppi_ratio_interval",
    "proxy_shift_pvalue",
]
