"""Confidence intervals for the ratio of two proportions (impact ratios).

For 0/1 outcomes group A has ``k_A`` successes in ``n_A`` examples and group B ``k_B`` in
``n_B``; the ratio is ``theta = p_A / p_B`` (the impact ratio of the EEOC four-fifths
rule when A is a group and B the group with the highest selection rate).  Three intervals:

``katz_log_interval``
    Katz et al. (1978): ``log(theta^) +- z sqrt(1/k_A - 1/n_A + 1/k_B - 1/n_B)``.
    Asymptotic.  When a table cell is empty (``k = 0`` or ``k = n`` in a group), 0.5 is
    added to every cell (Haldane-Anscombe: ``(k + 0.5) / (n + 1)``); besides, ``k_A = 0``
    gives the lower end 0 and ``k_B = 0`` the upper end ``inf`` (the data cannot bound
    the ratio there), so both zero gives ``(0, inf)``.
``koopman_interval``
    Koopman (1984): the ``theta`` not rejected by the asymptotic score (Pearson
    chi-squared) test of ``p_A = theta p_B``; the score statistic is

        T(x, y; theta) = (x / n_A - theta y / n_B)
                         / sqrt(pA~ qA~ / n_A + theta^2 pB~ qB~ / n_B),

    with ``(pA~, pB~) = (theta pB~, pB~)`` the maximum-likelihood estimate under the null
    (closed-form root of a quadratic, Farrington & Manning 1990), i.e. the statistic of
    Miettinen & Nurminen (1985) without their ``N / (N - 1)`` factor; ``T^2`` is Koopman's
    chi-squared statistic.  ``T`` decreases in ``theta``, so the two ends solve
    ``T = +-z`` (Brent's method on ``log theta``).  This is the interval of
    ``Koopman_asymptotic_score_CI_2x2`` in Fagerland, Lydersen & Laake's R package
    ``contingencytables`` (checked in the tests); R's ``PropCIs::riskscoreci`` computes
    Koopman's interval by Nam's (1995) non-iterative method.  Asymptotic; ``k_A = 0``
    and ``k_B = 0`` give the same open ends as above, by the statistic itself.
``exact_ratio_interval``
    Exact unconditional, with a finite-sample guarantee (construction below).

Exact interval.  The hull of the ``theta`` at which ONE two-sided exact unconditional test
of ``p_A = theta p_B`` does not reject at level ``alpha``, with the score statistic ``T``
above and the Berger & Boos (1994) p-value

    p(theta) = sup over nu in C_gamma of P_{theta nu, nu}(|T| >= |T_obs|) + gamma.

``nu = p_B`` is the nuisance parameter and ``C_gamma`` the part of the null line inside the
Clopper-Pearson intervals of both groups at level ``1 - gamma/4`` each (it misses the
truth with probability at most ``gamma/2``; the other ``gamma/2`` is a margin for the
numerically computed supremum); ``gamma = alpha / 50`` by default, ``gamma=0`` takes the
supremum over every ``nu``.  This is the construction of :mod:`fairbound.stats.exact`
for the difference, on the ratio's null lines, and it is built from the same parts
(:mod:`fairbound.stats.exact.binomial`: the windows of counts and their log binomial
coefficients, the Clopper-Pearson boxes of the nuisance set, the arcsine nuisance grid,
the dense table of statistics of small windows; the tie tolerance and ``GAMMA_SHARE``).
What is the ratio's own: its statistic, the runs guessed from its null curves, the
rejection sums over each null's own windows, the refinement of the supremum and the
search in ``log theta``, with the tuning constants below.

Computation.  ``T`` decreases in ``y`` and increases in ``x`` (checked on every table of
many sizes in the tests), so the accepted tables ``|T| < |T_obs|`` of column ``x`` are one
run ``lo(x) <= y < hi(x)``, guessed from the curves ``T = +-|T_obs|``, certified with the
statistic and bisected where wrong (a dense table of statistics when small), and

    P(accept) = sum_x pmf_A(x) (F_B(hi(x) - 1) - F_B(lo(x) - 1)),

each null summing over windows of about six standard deviations either side of its
expected counts (Bernstein radius for a dropped mass of ``2 exp(-20)``; dropped tables
count as rejections, which can only raise ``p``).  The supremum over ``nu`` is taken on a
grid of steps of 0.6 standard errors (combined arcsine scale), the two best local maxima
then refined twice on local grids of four points; against a grid of 4,001 points the
refined supremum was at most 2e-5 short over 8,500 nulls near the ends of 900 random
tables (sizes 5 to 5,000, ``benchmarks/ratio_coverage.py``) and the grid value at most
0.0013 short (the ``gamma/2`` margin is 0.0005 at 95%; grid values more than 0.005 below
``alpha`` are taken as rejections without refining).  The ends are searched in
``log theta``: candidates where ``|T_obs|`` is a little above its ``1 - (alpha - gamma)/2``
normal quantile (close to Koopman's ends), then k-section to within ``min(1e-5, tol se)``
(``se`` of ``log theta``) or geometric steps outwards while nothing is rejected; the
rejected, outer, end of the final bracket is reported.  The accepted set need not be an
interval, so the search also looks 0.3 se past each end in steps of 0.01 se (0.02 se in
steps of 0.005 when ``n p q > 100`` in a group) and goes on from any accepted value.

Speed (CPU time per interval, numpy only, a fresh cache, on a shared two-core machine;
``benchmarks/ratio_coverage.py``): about 10 ms at 10 per group, 20-40 ms at 50, 20-55 ms
at 500, 30-55 ms at 5,000, 90-155 ms at 50,000 and 540 ms at a million (rates 0.3 and
0.5; rare events cost less: 37 ms at a million for rates 0.001 and 0.0015); intervals are
cached.  The cost grows like the standard deviations of the counts, so groups above
:data:`EXACT_MAX_N` (a million) get the Bonferroni box :func:`bonferroni_ratio_interval`
instead, chosen from the sizes only (so the guarantee holds either way).  It is about 1.6
times as wide on the log scale as the exact interval (1.58 to 1.61 measured at a million
per group): for rates 0.3 vs 0.5 at a million per group, a relative half-width of 0.57%
instead of 0.36%.

Guarantee: coverage at least the nominal level for every ``n_A, n_B >= 1`` and every pair
of true rates with ``p_B > 0``, by construction (a valid p-value for every simple null, a
confidence set for the nuisance, test inversion), up to the numerical supremum discussed
above; checked by enumerating every table for small groups in the tests.  ``k_A = 0``
gives the lower end 0 and ``k_B = 0`` the upper end ``inf``.

Not covered: the examples of a group must be independent draws with one success
probability, groups independent (clustered or dependent data need another method).  The
ratio is undefined when ``p_B = 0``.  Like every exact method for discrete data the
interval is conservative.  The hull is only as complete as the scan for islands.  The
asymptotic intervals have no guarantee: Katz's can be far below the level for small
counts, Koopman's close to it but sometimes below.  Choosing B as the group with the
highest observed rate is a data-driven choice these functions do not account for.

References
----------
P. A. R. Koopman. "Confidence intervals for the ratio of two binomial proportions."
Biometrics 40 (1984) 513-517.

D. Katz, J. Baptista, S. P. Azen and M. C. Pike. "Obtaining confidence intervals for the
risk ratio in cohort studies." Biometrics 34 (1978) 469-474.

O. Miettinen and M. Nurminen. "Comparative analysis of two rates." Statistics in Medicine
4 (1985) 213-226.

C. P. Farrington and G. Manning. "Test statistics and sample size formulae for
comparative binomial trials with null hypothesis of non-zero risk difference or non-unity
relative risk." Statistics in Medicine 9 (1990) 1447-1454.

J. Nam. "Confidence limits for the ratio of two binomial proportions based on likelihood
scores: non-iterative method." Biometrical Journal 37 (1995) 375-379.

R. L. Berger and D. D. Boos. "P values maximized over a confidence set for the nuisance
parameter." Journal of the American Statistical Association 89 (1994) 1012-1016.

M. W. Fagerland, S. Lydersen and P. Laake. Statistical Analysis of Contingency Tables.
Chapman & Hall/CRC (2017), chapter 4 (reference values, R package ``contingencytables``).

Examples
--------
Perondi et al. (2004), 7 of 34 vs 1 of 34; Fagerland, Lydersen & Laake (2017) give
0.9096 to 53.8695 (Katz) and 1.2209 to 42.5757 (Koopman):

>>> lo, hi = katz_log_interval(7, 34, 1, 34)
>>> round(lo, 4), round(hi, 4)
(0.9096, 53.8695)
>>> lo, hi = koopman_interval(7, 34, 1, 34)
>>> round(lo, 4), round(hi, 4)
(1.2209, 42.5757)
>>> lo, hi = exact_ratio_interval(60, 200, 100, 200)   # impact ratio 0.6
>>> round(lo, 4), round(hi, 4)   # below 0.8: evidence of adverse impact
(0.463, 0.7707)
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import optimize, special

from fairbound._docs import fill
from fairbound._validate import check_choice, check_probability
from fairbound.errors import FairboundError
from fairbound.stats.base import (
    check_confidence_level,
    check_counts,
    check_gamma,
    check_positive,
)
from fairbound.stats.exact.binomial import (
    arcsine_grid,
    count_spread,
    dense_runs,
    nuisance_boxes,
    window_table,
)
from fairbound.stats.exact.binomial import bernstein_radius as _radius
from fairbound.stats.exact.binomial import clopper_pearson as _clopper_pearson
from fairbound.stats.exact.interval import GAMMA_SHARE
from fairbound.stats.exact.inversion import TIE as _TIE

#: Largest group size tested exactly; above it the Bonferroni box is reported.
EXACT_MAX_N = 1_000_000

_TAIL_LOG = 20.0        # windows drop at most 2 exp(-20) ~ 4e-9 of each binomial's mass
_DENSE_CELLS = 150_000  # runs from a dense table of statistics below this many cells
_CHUNK_CELLS = 4_000_000  # rows of a batch are processed in chunks of this many pmf cells
_SPACING = 0.6          # nuisance grid step, in standard errors (arcsine scale)
_SETTLED = 0.005        # grid p-values this far below alpha are rejections (gap < 0.001)
_LOG_EDGE = 40.0        # |log theta| beyond which the search stops (0 or inf reported)
_SCAN_WIDE = (0.3, 0.01)     # islands are looked for 0.3 se past each end in 0.01 steps,
_SCAN_NEAR = (0.02, 0.005)   # or 0.02 se in 0.005 steps when n p q > 100 in a group
_FIRST = {8: np.array([-0.3, -0.1, 0.0, 0.03, 0.08, 0.15, 0.3, 0.6]),
          4: np.array([-0.003, 0.0, 0.003, 0.008, 0.016])}

# numpydoc sections of the two asymptotic intervals (``_docs.fill``)
_PIECES = {
    "asymptotic_sections": (
        "Parameters\n"
        "----------\n"
        "k_a, n_a, k_b, n_b : int\n"
        "    Success counts and group sizes.\n"
        "confidence_level : float\n"
        "    In (0, 1).\n"
        "\n"
        "Returns\n"
        "-------\n"
        "(float, float)\n"
        "    Lower and upper end."
    ),
}


# --------------------------------------------------------------------------- checks
def _z(alpha: float) -> float:
    return float(special.ndtri(1.0 - alpha / 2.0))


def _swap(lo: float, hi: float) -> tuple[float, float]:
    """The interval for ``p_B / p_A`` from the one for ``p_A / p_B``."""
    return (0.0 if hi == math.inf else 1.0 / hi), (math.inf if lo == 0.0 else 1.0 / lo)


# --------------------------------------------------------------------------- statistic
@fill
def restricted_mle_ratio(x, y, n_a, n_b, theta):
    """Maximum-likelihood ``(p_A, p_B)`` under ``p_A = theta p_B``.

    The smaller root of ``N theta p^2 - (n_A theta + x + n_B + y theta) p + x + y = 0``
    (Farrington & Manning 1990), written without cancellation; broadcasts.

    Parameters
    ----------
    x, y : array_like
        Success counts in groups A and B.
    n_a, n_b : int
        Group sizes.
    theta : array_like
        Hypothesised ratio ``p_A / p_B > 0``.

    {{restricted_mle_returns}}

    Examples
    --------
    >>> pa, pb = restricted_mle_ratio(3, 5, 10, 10, 1.0)  # pooled under equality
    >>> round(float(pa), 6), round(float(pb), 6)
    (0.4, 0.4)
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    th = np.asarray(theta, dtype=float)
    a = (n_a + n_b) * th
    b = n_a * th + x + n_b + y * th                 # minus the linear coefficient
    c = x + y
    disc = np.sqrt(np.maximum(b * b - 4.0 * a * c, 0.0))
    pb = 2.0 * c / (b + disc)
    pb = np.minimum(pb, np.minimum(1.0, 1.0 / th))
    return th * pb, pb


def ratio_score_statistic(x, y, n_a, n_b, theta):
    """Score statistic of ``p_A = theta p_B`` (Koopman; Miettinen-Nurminen without N/(N-1)).

    ``(x/n_A - theta y/n_B) / sqrt(pA~ qA~ / n_A + theta^2 pB~ qB~ / n_B)`` with the
    restricted MLE of :func:`restricted_mle_ratio`; 0 where numerator and variance are
    both 0, ``+-inf`` where only the variance is.  Broadcasts.

    Examples
    --------
    >>> x, y, n = 7, 12, 15
    >>> p = (x + y) / (2 * n)                 # at theta = 1: the pooled z statistic
    >>> z = (x - y) / n / (2 * p * (1 - p) / n) ** 0.5
    >>> bool(abs(float(ratio_score_statistic(x, y, n, n, 1.0)) - z) < 1e-12)
    True
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    th = np.asarray(theta, dtype=float)
    pa, pb = restricted_mle_ratio(x, y, n_a, n_b, th)
    var = pa * (1.0 - pa) / n_a + th * th * pb * (1.0 - pb) / n_b
    num = x / n_a - th * y / n_b
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / np.sqrt(var)
    return np.where(var > 0.0, t, np.where(num == 0.0, 0.0, np.copysign(np.inf, num)))


# --------------------------------------------------------------------------- asymptotic
@fill(**_PIECES)
def katz_log_interval(k_a, n_a, k_b, n_b, confidence_level=0.95):
    """Katz log interval for ``p_A / p_B`` (asymptotic).

    ``exp(log(theta^) +- z sqrt(1/k_A - 1/n_A + 1/k_B - 1/n_B))``.  If a cell of the
    table is empty (``k = 0`` or ``k = n`` in a group) 0.5 is added to every cell; then
    ``k_A = 0`` sets the lower end to 0 and ``k_B = 0`` the upper end to ``inf``.

    {{asymptotic_sections}}

    Examples
    --------
    scipy's ``relative_risk(10, 75, 12, 225).confidence_interval()`` gives (1.1262, 5.5499):

    >>> lo, hi = katz_log_interval(10, 75, 12, 225)
    >>> round(lo, 4), round(hi, 4)
    (1.1262, 5.5499)
    >>> katz_log_interval(0, 20, 0, 30)
    (0.0, inf)
    """
    ka, na, kb, nb = check_counts(k_a, n_a, k_b, n_b)
    z = _z(1.0 - check_confidence_level(confidence_level))
    if ka == 0 and kb == 0:
        return 0.0, math.inf
    fa, fb, ma, mb = float(ka), float(kb), float(na), float(nb)
    if ka in (0, na) or kb in (0, nb):
        fa, fb, ma, mb = fa + 0.5, fb + 0.5, ma + 1.0, mb + 1.0
    centre = math.log(fa / ma) - math.log(fb / mb)
    se = math.sqrt(max(1.0 / fa - 1.0 / ma + 1.0 / fb - 1.0 / mb, 0.0))
    lo = 0.0 if ka == 0 else math.exp(centre - z * se)
    hi = math.inf if kb == 0 else math.exp(centre + z * se)
    return float(lo), float(hi)


def _score_root(ka, na, kb, nb, target: float, lo: float, hi: float) -> float:
    """``log theta`` in ``[lo, hi]`` with ``T_obs(theta) = target`` (T decreasing)."""
    def f(u):
        return float(ratio_score_statistic(ka, kb, na, nb, math.exp(u))) - target

    flo, fhi = f(lo), f(hi)
    if flo <= 0.0:
        return lo
    if fhi >= 0.0:
        return hi
    return float(optimize.brentq(f, lo, hi, xtol=1e-13, maxiter=200))


@fill(**_PIECES)
def koopman_interval(k_a, n_a, k_b, n_b, confidence_level=0.95):
    """Koopman's (1984) asymptotic score interval for ``p_A / p_B``.

    The ``theta`` with ``|T(k_A, k_B; theta)| < z`` for the score statistic of
    :func:`ratio_score_statistic`, found by Brent's method on ``log theta``.  ``k_A = 0``
    gives the lower end 0, ``k_B = 0`` the upper end ``inf`` (``T`` never reaches ``z``).

    {{asymptotic_sections}}

    Examples
    --------
    >>> lo, hi = koopman_interval(0, 16, 15, 72)
    >>> lo, round(hi, 4)
    (0.0, 0.9619)
    """
    ka, na, kb, nb = check_counts(k_a, n_a, k_b, n_b)
    z = _z(1.0 - check_confidence_level(confidence_level))
    if ka == 0 and kb == 0:
        return 0.0, math.inf
    edge = _LOG_EDGE
    if ka > 0:
        mid = math.log(ka / na) - math.log(kb / nb) if kb > 0 else edge
        u = _score_root(ka, na, kb, nb, z, -edge, mid)
        lo = 0.0 if u <= -edge else math.exp(u)
    else:
        lo = 0.0
    if kb > 0:
        mid = math.log(ka / na) - math.log(kb / nb) if ka > 0 else -edge
        u = _score_root(ka, na, kb, nb, -z, mid, edge)
        hi = math.inf if u >= edge else math.exp(u)
    else:
        hi = math.inf
    return float(lo), float(hi)


# --------------------------------------------------------------------------- helpers
def _local_pmf(n: int, ks: np.ndarray, logc: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Binomial pmf at counts ``ks`` (shape ``p.shape + (W,)``) with ``logc`` their log C(n, k)."""
    p = np.minimum(np.maximum(p, 1e-300), 1.0 - 1e-16)
    lq = np.log1p(-p)
    out = ks * (np.log(p) - lq)[..., None]
    out += logc
    out += (n * lq)[..., None]
    return np.exp(out, out=out)


class _Table:
    """One observed table and its Berger-Boos nuisance bounds."""

    def __init__(self, k_a: int, n_a: int, k_b: int, n_b: int, gamma: float):
        self.ka, self.na, self.kb, self.nb = int(k_a), int(n_a), int(k_b), int(n_b)
        self.gamma = float(gamma)
        self.cp_a, self.cp_b = nuisance_boxes(self.ka, self.na, self.kb, self.nb, self.gamma)

    def nuisance(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Range of ``p_B`` in the nuisance set under ``p_A = theta p_B``."""
        lo = np.maximum(self.cp_b[0], self.cp_a[0] / theta)
        hi = np.minimum(np.minimum(self.cp_b[1], self.cp_a[1] / theta), 1.0 / theta)
        return lo, np.minimum(hi, 1.0)


class _Batch:
    """Nulls ``(theta, threshold)`` with nuisance ranges ``[a, b]`` on one window of tables.

    The accepted tables of row ``r`` are ``lo[r, x] <= y < hi[r, x]`` (indices into the
    window's ``ys``).
    """

    def __init__(self, na: int, nb: int, theta, thr, a, b):
        self.na, self.nb = na, nb
        self.theta, self.thr, self.a, self.b = theta, thr, a, b
        self.xl, self.xh, self.xs, self.lca = window_table(
            na, float(np.min(theta * a)), float(np.max(theta * b)), _TAIL_LOG)
        self.yl, self.yh, self.ys, self.lcb = window_table(
            nb, float(np.min(a)), float(np.max(b)), _TAIL_LOG)
        m, wx, wy = theta.size, self.xs.size, self.ys.size
        if m * wx * wy <= _DENSE_CELLS:
            self.lo, self.hi = dense_runs(ratio_score_statistic, self.xs, self.ys, na, nb,
                                          theta, thr)
        else:
            self.lo = self._count(False)
            self.hi = self._count(True)

    def _pred(self, j, x, theta, th, upper: bool) -> np.ndarray:
        """Whether row ``j`` of column ``x`` still lies before the run's end."""
        t = ratio_score_statistic(x, self.ys[np.minimum(np.maximum(j, 0), self.ys.size - 1)],
                                  self.na, self.nb, theta)
        return (t > -th) if upper else (t >= th)

    def _count(self, upper: bool) -> np.ndarray:
        """Per row and column, how many leading ``ys`` have ``T >= thr`` (``T > -thr``).

        Guessed from the curve ``T = c``: ``y = n_B / theta (x / n_A - c s)`` with ``s`` the
        standard error under the null at the previous guess (two steps), certified by the
        statistic at the guess and the row before, and bisected where wrong.
        """
        na, nb, wy = self.na, self.nb, self.ys.size
        shape = (self.theta.size, self.xs.size)
        th = np.broadcast_to(self.thr[:, None], shape)
        x = np.broadcast_to(self.xs[None, :], shape)
        theta = np.broadcast_to(self.theta[:, None], shape)
        c = -th if upper else th
        y = nb * x / (theta * na)
        for _ in range(2):
            pa, pb = restricted_mle_ratio(x, np.clip(y, 0.0, nb), na, nb, theta)
            s = np.sqrt(pa * (1.0 - pa) / na + theta * theta * pb * (1.0 - pb) / nb)
            y = nb / theta * (x / na - c * s)
        y = np.nan_to_num(y, nan=-1.0, posinf=nb + 1.0, neginf=-1.0)
        g = np.clip(np.floor(y) - self.yl + 1.0, 0, wy).astype(np.int64)
        both = self._pred(np.stack([g - 1, g]), x, theta, th, upper)
        here = (g == 0) | both[0]
        nxt = (g == wy) | ~both[1]
        bad = np.flatnonzero(~(here & nxt).ravel())
        if bad.size:
            g = g.ravel()
            lo = np.where(here.ravel()[bad], g[bad] + 1, 0)       # answer in [lo, hi]
            hi = np.where(here.ravel()[bad], wy, g[bad] - 1)
            xb, tb, hb = x.ravel()[bad], theta.ravel()[bad], th.ravel()[bad]
            while True:
                act = lo < hi
                if not act.any():
                    break
                mid = (lo + hi) // 2            # is the count above mid?
                pred = self._pred(mid, xb, tb, hb, upper)
                lo = np.where(act & pred, mid + 1, lo)
                hi = np.where(act & ~pred, mid, hi)
            g[bad] = lo
            g = g.reshape(shape)
        return g

    def reject(self, nu: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Probability of each row's rejection region at the nuisance values ``nu`` (m, k).

        Each null ``(theta nu, nu)`` sums over its own windows of the counts (the Bernstein
        radius around ``n p``, inside the batch's windows); the dropped tables count as
        rejections and the distribution function of ``Y`` is summed within its window, so
        the acceptance probability is never overstated.
        """
        if rows is None:
            rows = np.arange(self.theta.size)
        m, k = nu.shape
        na, nb = self.na, self.nb
        wx, wy = self.xs.size, self.ys.size
        pa_all = self.theta[rows][:, None] * nu
        ra = _radius(na, float(np.clip(0.5, np.min(pa_all), np.max(pa_all))), _TAIL_LOG)
        rb = _radius(nb, float(np.clip(0.5, np.min(nu), np.max(nu))), _TAIL_LOG)
        nx = min(wx, 2 * int(math.ceil(ra)) + 3)
        ny = min(wy, 2 * int(math.ceil(rb)) + 3)
        jx = np.arange(nx)
        jy = np.arange(ny)
        out = np.empty((m, k))
        step = max(1, int(_CHUNK_CELLS // max(1, k * (nx + ny))))
        for s in range(0, m, step):
            r = rows[s:s + step]
            v = nu[s:s + step]
            pa = pa_all[s:s + step]
            mm = r.size
            sx = np.clip(np.floor(na * pa - ra) - self.xl, 0, wx - nx).astype(np.int64)
            sy = np.clip(np.floor(nb * v - rb) - self.yl, 0, wy - ny).astype(np.int64)
            ix = sx[..., None] + jx                                  # (mm, k, nx)
            iy = sy[..., None] + jy
            fa = _local_pmf(na, self.xl + ix, self.lca.take(ix), pa)
            fb = _local_pmf(nb, self.yl + iy, self.lcb.take(iy), v)
            cz = np.zeros((mm, k, ny + 1))
            np.cumsum(fb, axis=-1, out=cz[..., 1:])
            flat = cz.reshape(-1)
            base = (np.arange(mm * k) * (ny + 1)).reshape(mm, k, 1)
            at = r[:, None, None] * wx + ix
            hi = self.hi.reshape(-1).take(at)
            lo = np.minimum(self.lo.reshape(-1).take(at), hi)
            off = sy[..., None]
            hi -= off
            lo -= off
            np.minimum(np.maximum(hi, 0, out=hi), ny, out=hi)
            np.minimum(np.maximum(lo, 0, out=lo), ny, out=lo)
            inside = flat.take(base + hi)
            inside -= flat.take(base + lo)
            out[s:s + step] = 1.0 - np.einsum("mkx,mkx->mk", fa, inside)
        return out

    def grid(self, spacing: float = _SPACING) -> np.ndarray:
        """Nuisance grid per row: :func:`~fairbound.stats.exact.binomial.arcsine_grid`."""
        th = self.theta[:, None]
        return arcsine_grid(self.na, self.nb, self.a, self.b, lambda nu: th * nu, spacing)

    def refine(self, nu, r, rows, rounds: int = 2, peaks: int = 2) -> np.ndarray:
        """Suprema for ``rows``: the grid's best local maxima refined on local grids.

        Each round evaluates four points at ``+-h/3`` and ``+-2h/3`` from each maximum
        (``h`` the distance to the farther grid neighbour at first), moves to the best and
        divides ``h`` by 3.
        """
        nu, r = nu[rows], r[rows]
        m, g = nu.shape
        ix = np.arange(m)[:, None]
        left = np.concatenate([np.full((m, 1), -np.inf), r[:, :-1]], axis=1)
        right = np.concatenate([r[:, 1:], np.full((m, 1), -np.inf)], axis=1)
        score = np.where((r >= left) & (r >= right), r, -np.inf)
        j = np.argsort(-score, axis=1, kind="stable")[:, :min(peaks, g)]
        j = np.where(np.isfinite(score[ix, j]), j, j[:, :1])
        c, val = nu[ix, j], r[ix, j]
        h = np.maximum(c - nu[ix, np.maximum(j - 1, 0)], nu[ix, np.minimum(j + 1, g - 1)] - c)
        a, b = self.a[rows][:, None, None], self.b[rows][:, None, None]
        off = np.array([-2.0, -1.0, 1.0, 2.0]) / 3.0
        best = val.max(axis=1)
        for _ in range(rounds):
            cand = np.minimum(np.maximum(c[..., None] + h[..., None] * off, a), b)
            rc = self.reject(cand.reshape(m, -1), rows).reshape(cand.shape)
            k = rc.argmax(axis=-1)[..., None]
            top = np.take_along_axis(rc, k, axis=-1)[..., 0]
            better = top > val
            c = np.where(better, np.take_along_axis(cand, k, axis=-1)[..., 0], c)
            val = np.maximum(val, top)
            best = np.maximum(best, val.max(axis=1))
            h = h / 3.0
        return np.maximum(r.max(axis=1), best)


# --------------------------------------------------------------------------- p-values
def _pvalues(tab: _Table, theta, alpha: float | None = None, rounds: int = 2):
    """Berger-Boos p-values ``sup_{nu in C} p_nu + gamma`` at the nulls ``p_A = theta p_B``.

    Without ``alpha`` every supremum is refined; with it only grid values in
    ``(alpha - _SETTLED, alpha]`` are (a grid value above ``alpha`` already accepts, one
    further below is a rejection), which decides ``p > alpha`` as the refined value would.
    """
    theta = np.asarray(theta, dtype=float)
    m = theta.size
    tobs = np.abs(ratio_score_statistic(float(tab.ka), float(tab.kb), tab.na, tab.nb, theta))
    thr = tobs * (1.0 - _TIE)
    lo, hi = tab.nuisance(theta)
    p = np.full(m, tab.gamma)
    p[thr <= 0] = 1.0
    todo = np.flatnonzero((thr > 0) & (lo <= hi))
    if not todo.size:
        return np.minimum(p, 1.0)
    batch = _Batch(tab.na, tab.nb, theta[todo], thr[todo], lo[todo], hi[todo])
    nu = batch.grid()
    r = batch.reject(nu)
    sup = r.max(axis=1)
    g = sup + tab.gamma
    if alpha is None:
        need = np.arange(todo.size)
    else:
        need = np.flatnonzero((g <= alpha) & (g > alpha - _SETTLED))
    if need.size:
        sup[need] = batch.refine(nu, r, need, rounds)
    p[todo] = sup + tab.gamma
    return np.minimum(p, 1.0)


# --------------------------------------------------------------------------- search
class _End:
    """One end's candidates as ``(o, accepted)``; ``o = sign * log theta`` grows outwards."""

    def __init__(self, sign: float, o_hat: float, edge: float):
        self.sign = sign                  # +1 for the upper end, -1 for the lower end
        self.edge = edge                  # o of the search range's end (rejected there)
        self.o = [o_hat, edge]            # the estimate is accepted
        self.acc = [True, False]
        self.done = False
        self.scanned = -math.inf          # how far (in o) past its end the set was scanned

    def add(self, os, accs):
        for o, a in zip(os, accs, strict=True):
            self.o.append(float(o))
            self.acc.append(bool(a))

    def bracket(self) -> tuple[float, float]:
        """(inner, outer): outermost accepted ``o`` and the nearest candidate beyond."""
        o = np.asarray(self.o)
        acc = np.asarray(self.acc)
        inner = float(np.max(o[acc]))
        beyond = o[o > inner]
        return inner, (float(np.min(beyond)) if beyond.size else math.inf)


def _place(tab: _Table, targets: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """``log theta`` in ``[lo, hi]`` with ``T_obs`` near each target (vectorised)."""
    t = np.asarray(targets, dtype=float)[:, None]
    rows = np.arange(t.shape[0])[:, None]
    a = np.full(t.shape, lo)
    b = np.full(t.shape, hi)
    u = np.linspace(0.0, 1.0, 33)
    for _ in range(3):
        g = a + (b - a) * u
        v = ratio_score_statistic(float(tab.ka), float(tab.kb), tab.na, tab.nb, np.exp(g))
        k = np.clip((v >= t).sum(axis=1, keepdims=True), 1, u.size - 1)
        a, b = g[rows, k - 1], g[rows, k]
    return (0.5 * (a + b))[:, 0]


def _search(tab: _Table, alpha: float, tol: float) -> tuple[float, float]:
    """Hull of ``{theta : p(theta) > alpha}``, bracketed from outside in ``log theta``.

    Per end, ``o = -log theta`` (lower) or ``log theta`` (upper); the first candidates sit
    where ``|T_obs| = z + _FIRST`` (around Koopman's end), later ones k-section the bracket
    between the outermost accepted candidate and the nearest one beyond (or step outwards
    geometrically while nothing is rejected).  A bracket shorter than ``min(1e-5, tol se)``
    is scanned past its outer end for islands of acceptance, then reported by that end.
    """
    z = _z(alpha)
    z_gamma = _z(alpha - tab.gamma)      # where large tables' ends lie
    ka, na, kb, nb = tab.ka, tab.na, tab.kb, tab.nb
    klo, khi = koopman_interval(ka, na, kb, nb, 1.0 - alpha)
    if ka > 0 and kb > 0:
        u_hat = math.log(ka / na) - math.log(kb / nb)
    else:
        u_hat = -_LOG_EDGE if ka == 0 else _LOG_EDGE
    # standard errors of log theta on each side, from Koopman's ends
    se_lo = (u_hat - math.log(klo)) / z if klo > 0 else math.inf
    se_hi = (math.log(khi) - u_hat) / z if math.isfinite(khi) else math.inf
    se = {-1.0: se_lo if math.isfinite(se_lo) else se_hi,
          1.0: se_hi if math.isfinite(se_hi) else se_lo}
    spread = max(na * count_spread(ka, na), nb * count_spread(kb, nb))
    scan = _SCAN_WIDE if spread <= 100.0 else _SCAN_NEAR
    small = (min(na, 8.0 * math.sqrt(na) + 30) + 1) * (min(nb, 8.0 * math.sqrt(nb) + 30) + 1)
    points = 8 if small <= 20_000 else 4
    # the search range; with gamma > 0 nothing outside the Clopper-Pearson box is accepted
    # (the nuisance set is empty there), so its ends are rejections
    ulo, uhi = -_LOG_EDGE, _LOG_EDGE
    if tab.gamma > 0:
        if tab.cp_a[0] > 0:
            ulo = max(ulo, math.log(tab.cp_a[0] / tab.cp_b[1]) - 1e-9)
        if tab.cp_b[0] > 0:
            uhi = min(uhi, math.log(tab.cp_a[1] / tab.cp_b[0]) + 1e-9)
    ends = {-1.0: _End(-1.0, -u_hat, -ulo), 1.0: _End(1.0, u_hat, uhi)}
    ends[-1.0].done = ka == 0
    ends[1.0].done = kb == 0
    plan = {}
    for s in (-1.0, 1.0):
        if not ends[s].done:
            lo_u, hi_u = (ulo, u_hat) if s < 0 else (u_hat, uhi)
            us = _place(tab, -s * (z_gamma + _FIRST[points]), lo_u, hi_u)
            plan[s] = np.unique(s * us)
    while True:
        work = [s for s in (-1.0, 1.0) if not ends[s].done]
        if not work:
            break
        os = np.concatenate([plan[s] for s in work])
        own = np.concatenate([np.full(plan[s].size, s) for s in work])
        p = _pvalues(tab, np.exp(own * os), alpha)
        for s in work:
            ends[s].add(os[own == s], p[own == s] > alpha)
        for s in work:
            end = ends[s]
            inner, outer = end.bracket()
            if not math.isfinite(outer):          # accepted at the edge of the range
                end.done = True
                continue
            stop = min(1e-5, tol * se[s])
            reach = min(outer + scan[0] * se[s], end.edge)
            unscanned = end.scanned < reach - 1e-12 and reach > outer
            if outer - inner <= stop:
                if unscanned:
                    plan[s] = _scan(end, outer, reach, scan[1] * se[s])
                else:
                    end.done = True
                continue
            if outer >= end.edge and outer - inner > se[s]:
                # nothing rejected yet: step outwards geometrically
                o = inner + se[s] * 0.01 * 4.0 ** np.arange(points)
            else:
                o = inner + (outer - inner) * np.arange(1, points + 1) / (points + 1)
                if (outer - inner) / (points + 1) <= stop and unscanned:
                    # the bracket closes this round: scan past it in the same round
                    o = np.concatenate([o, _scan(end, outer, reach, scan[1] * se[s])])
            plan[s] = np.unique(np.minimum(o, end.edge))
    out = {}
    for s in (-1.0, 1.0):
        end = ends[s]
        open_end = 0.0 if s < 0 else math.inf
        if (s < 0 and ka == 0) or (s > 0 and kb == 0):
            out[s] = open_end
            continue
        inner, outer = end.bracket()
        if outer >= _LOG_EDGE:
            out[s] = open_end
        else:
            out[s] = math.exp(s * outer)
    return float(out[-1.0]), float(out[1.0])


def _scan(end: _End, outer: float, reach: float, step: float) -> np.ndarray:
    """Candidates past ``outer`` up to ``reach`` in steps of at most ``step`` (islands)."""
    start = max(outer, end.scanned)
    k = max(1, int(math.ceil((reach - start) / step)))
    end.scanned = reach
    return start + (reach - start) * np.arange(1, k + 1) / k


# --------------------------------------------------------------------------- public API
@fill
def exact_ratio_pvalue(k_a, n_a, k_b, n_b, theta0=1.0, *, gamma=0.001):
    """P-value of the exact unconditional score test of ``p_A = theta0 p_B``.

    ``sup over nu in C_gamma of P(|T| >= |T_obs|) + gamma`` (Berger & Boos 1994) with the
    score statistic of :func:`ratio_score_statistic`; ``gamma=0`` maximises over every
    nuisance value.  The supremum is refined as described in the module docstring, with
    four rounds instead of two.

    Parameters
    ----------
    k_a, n_a, k_b, n_b : int
        Success counts and group sizes.
    theta0 : float or array_like
        Hypothesised ratio(s), positive and finite.
    {{exact_pvalue_tail}}

    Examples
    --------
    >>> round(exact_ratio_pvalue(30, 100, 50, 100, 0.8), 4)
    0.1114
    """
    ka, na, kb, nb = check_counts(k_a, n_a, k_b, n_b)
    g = check_gamma(gamma, 1.0)
    th = np.atleast_1d(np.asarray(theta0, dtype=float)).ravel()
    if np.any(~np.isfinite(th)) or np.any(th <= 0):
        raise FairboundError(f"theta0 must be positive and finite; got {theta0!r}",
                             param="theta0")
    p = _pvalues(_Table(ka, na, kb, nb, g), th, rounds=4)
    return float(p[0]) if np.ndim(theta0) == 0 else p.reshape(np.shape(theta0))


def exact_ratio_interval(k_a, n_a, k_b, n_b, confidence_level=0.95, *, gamma=None, tol=1e-3):
    """Exact unconditional interval for ``p_A / p_B`` (score test, Berger-Boos).

    Parameters
    ----------
    k_a, n_a, k_b, n_b : int
        Success counts and group sizes.
    confidence_level : float
        In (0, 1).
    gamma : float, optional
        Berger-Boos ``gamma`` in ``[0, alpha)``; default ``alpha / 50``.
    tol : float
        The ends are located to within ``min(1e-5, tol * se)`` on the log scale and err
        outwards.

    Returns
    -------
    (float, float)
        The hull of the ratios not rejected at level ``alpha = 1 - confidence_level``;
        ``(0, inf)`` when ``k_A = k_B = 0``.  For a group larger than
        :data:`EXACT_MAX_N`, :func:`bonferroni_ratio_interval` (also valid, wider).

    Raises
    ------
    FairboundError
        For counts that are not whole numbers with ``0 <= k <= n``, ``n >= 1``, or a bad
        level, ``gamma`` or ``tol``; the message names the parameter.

    Examples
    --------
    Perondi et al. (2004), 7 of 34 vs 1 of 34 (Koopman: 1.22 to 42.6):

    >>> lo, hi = exact_ratio_interval(7, 34, 1, 34)
    >>> round(lo, 2), round(hi, 1)
    (1.16, 91.1)
    >>> exact_ratio_interval(0, 10, 3, 10)[0], exact_ratio_interval(3, 10, 0, 10)[1]
    (0.0, inf)
    """
    ka, na, kb, nb = check_counts(k_a, n_a, k_b, n_b)
    rho = check_confidence_level(confidence_level)
    alpha = 1.0 - rho
    g = alpha * GAMMA_SHARE if gamma is None else check_gamma(gamma, alpha)
    tol = check_probability(tol, "tol", high_open=False)
    if ka == 0 and kb == 0:
        return 0.0, math.inf
    # one orientation computes, so that swapping the groups inverts the interval exactly
    if (na, ka) > (nb, kb):
        return _swap(*exact_ratio_interval(kb, nb, ka, na, rho, gamma=g, tol=tol))
    if max(na, nb) > EXACT_MAX_N:
        return bonferroni_ratio_interval(ka, na, kb, nb, rho)
    return _cached_interval(ka, na, kb, nb, alpha, g, tol)


def bonferroni_ratio_interval(k_a, n_a, k_b, n_b, confidence_level=0.95):
    """Ratio of Clopper-Pearson intervals at level ``1 - alpha/2`` each (Bonferroni).

    ``(lo_A / hi_B, hi_A / lo_B)``: both group intervals hold with probability at least
    ``1 - alpha``, and then so does this one, for every ``n``; it is what
    :func:`exact_ratio_interval` reports for groups above :data:`EXACT_MAX_N`.  About 1.6
    times as wide as the exact interval on the log scale when both groups are equally
    precise (``z_{alpha/4} (se_A + se_B)`` against ``z_{alpha/2} sqrt(se_A^2 + se_B^2)``).

    Examples
    --------
    >>> lo, hi = bonferroni_ratio_interval(30, 100, 50, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.328, 1.076)
    """
    ka, na, kb, nb = check_counts(k_a, n_a, k_b, n_b)
    alpha = 1.0 - check_confidence_level(confidence_level)
    if ka == 0 and kb == 0:
        return 0.0, math.inf
    la, ha = _clopper_pearson(ka, na, alpha / 2.0)
    lb, hb = _clopper_pearson(kb, nb, alpha / 2.0)
    return float(la / hb), (float(ha / lb) if lb > 0 else math.inf)


@functools.lru_cache(maxsize=8192)
def _cached_interval(ka: int, na: int, kb: int, nb: int, alpha: float, g: float,
                     tol: float) -> tuple[float, float]:
    lo, hi = _search(_Table(ka, na, kb, nb, g), alpha, tol)
    if (na, ka) == (nb, kb):
        lo = 0.0 if hi == math.inf else 1.0 / hi
    return float(lo), float(hi)


# --------------------------------------------------------------------------- planning
def ratio_required_n(k_a, n_a, k_b, n_b, confidence_level=0.95, *, threshold=0.8,
                     method="exact"):
    """Approximate total ``n`` at which the interval would exclude ``threshold``.

    The observed rates and group shares are taken as the truth; the interval for
    ``p_A / p_B`` then lies below ``threshold`` (ratio below it: evidence of adverse
    impact) or above it (evidence of no adverse impact) for about half of the samples of
    that size.  On the log scale ``log theta^`` has variance ``V / N`` with
    ``V = q_A / (s_A p_A) + q_B / (s_B p_B)`` (``s`` the group shares), so

        N = z^2 V / (log(p_A / p_B) - log(threshold))^2,

    with ``z`` the normal quantile at ``(alpha - gamma) / 2`` for ``method='exact'``
    (``gamma = alpha / 50``) and at ``alpha / 2`` for ``'koopman'`` and ``'katz'``.
    When a rate is 0 or 1 (``V`` infinite or 0) the score statistic at ``threshold`` is
    used instead: it grows like ``sqrt(N)`` at fixed rates and shares, so
    ``N = z^2 / T_1^2`` with ``T_1`` the statistic of the table of rates times shares
    (Farrington & Manning 1990).

    Measured against the smallest total at which ``exact_ratio_interval`` of the expected
    counts (rounded) excludes 0.8, equal shares, 95%: 0.91 to 1.12 times that total for
    rates 0.3 vs 0.5 (312 planned, 294 needed), 0.2 vs 0.4, 0.6 vs 0.5, 0.05 vs 0.1,
    0.25 vs 0.5, 0.5 vs 0.9, 0.02 vs 0.03 (18,964 vs 18,946) and 0.7 vs 0.7; with a zero or
    full group 0.76 to 1.19 times (0 vs 0.3, 0 vs 0.05, 0.5 vs 0, 1 vs 1, 1 vs 0.6,
    0.4 vs 1); 1.9 times for 0.9 vs 0.6, where 8 examples suffice and discreteness
    dominates (``benchmarks/ratio_coverage.py``).

    Parameters
    ----------
    k_a, n_a, k_b, n_b : int
        Observed counts (they give the rates and the shares).
    confidence_level : float
        Level of the interval.
    threshold : float
        Ratio to exclude, positive (0.8: the four-fifths rule).
    method : {'exact', 'koopman', 'katz'}
        The interval planned for.

    Returns
    -------
    float
        Total examples ``n_A + n_B``; ``inf`` when the observed ratio equals
        ``threshold`` or both rates are 0.

    Examples
    --------
    >>> round(ratio_required_n(30, 100, 50, 100))
    312
    """
    ka, na, kb, nb = check_counts(k_a, n_a, k_b, n_b)
    alpha = 1.0 - check_confidence_level(confidence_level)
    thr = check_positive(threshold, "threshold")
    key = check_choice(method, ("exact", "katz", "koopman"), "method", fold=True)
    level = alpha * (1.0 - GAMMA_SHARE) if key == "exact" else alpha
    z = _z(level)
    pa, pb = ka / na, kb / nb
    sa = na / (na + nb)
    sb = 1.0 - sa
    if pa == 0 and pb == 0:
        return math.inf
    if pa == thr * pb:
        return math.inf
    if 0 < pa < 1 and 0 < pb < 1:
        v = (1.0 - pa) / (sa * pa) + (1.0 - pb) / (sb * pb)
        gap = math.log(pa / pb) - math.log(thr)
        return float(z * z * v / (gap * gap))
    # a rate of 0 or 1: the score test of p_A = threshold p_B (Farrington & Manning 1990),
    # whose statistic grows like sqrt(N) at fixed rates and shares
    t1 = float(ratio_score_statistic(sa * pa, sb * pb, sa, sb, thr))
    return float(z * z / (t1 * t1))
