"""Tests of "no gap" for one comparison: p-values, e-values and a permutation test.

A p-value or e-value per comparison is what multiplicity corrections
(:mod:`fairbound.stats.multiplicity`) need to decide which of many gaps are real.

* ``method="z"`` - the two-sample z-test: pooled variance for 0/1 costs (the score test,
  as ``statsmodels.stats.proportion.proportions_ztest``), unpooled (Welch) variance for
  fractional costs.  Asymptotic.
* ``method="permutation"`` - the studentized permutation test of DiCiccio & Romano: exact
  level under exchangeability and asymptotically valid for equal means even when the two
  groups' variances differ.  For 0/1 costs the permutation distribution is enumerated
  exactly from counts (hypergeometric), so it costs nothing per row.
* ``method="betting"`` - the hedged betting capital against ``delta = 0`` on blocked pairs
  (Waudby-Smith & Ramdas 2024; Chugg et al. 2023).  Its final value is an e-value and
  ``1 / max_t K_t`` is a p-value valid in finite samples, even under continuous
  monitoring.
* ``e_value(method="calibrated")`` - the z-test p-value turned into an e-value with the
  calibrator ``e = kappa p^(kappa - 1)`` (Vovk & Wang 2021), ``kappa = 1/2``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy import stats as _st

from fairbound._validate import check_choice, check_int, check_probability
from fairbound.errors import FairboundError
from fairbound.stats.base import GroupStats, NotEstimable, check_confidence_level

Alternative = Literal["two-sided", "greater", "less"]
_ALTERNATIVES = ("two-sided", "greater", "less")
_P_METHODS = ("z", "permutation", "betting")
_E_METHODS = ("betting", "calibrated")

#: Default number of permutations when the permutation distribution is sampled.
DEFAULT_PERMUTATIONS = 9999


def _check_groups(a, b) -> None:
    for name, g in (("a", a), ("b", b)):
        if not isinstance(g, GroupStats):
            raise FairboundError(f"{name} must be a GroupStats; got {type(g).__name__}",
                                 param=name)
        if g.n <= 0:
            raise NotEstimable(f"group {name.upper()} has no annotated examples")


def _tail_p(z: float, alternative: str) -> float:
    if math.isnan(z):
        return math.nan
    if alternative == "greater":
        return float(_st.norm.sf(z))
    if alternative == "less":
        return float(_st.norm.cdf(z))
    return float(min(1.0, 2.0 * _st.norm.sf(abs(z))))


def _z_statistic(a: GroupStats, b: GroupStats) -> float:
    d = a.mean - b.mean
    if a.binary and b.binary:
        pooled = (a.total + b.total) / (a.n + b.n)
        C = max(a.cost_max, b.cost_max)
        var = pooled * (C - pooled) * (1.0 / a.n + 1.0 / b.n)
    else:
        if a.n < 2 or b.n < 2:
            raise NotEstimable("the z-test of fractional costs needs two examples per group")
        var = a.var_unbiased / a.n + b.var_unbiased / b.n
    if var <= 0:
        return 0.0 if d == 0 else math.copysign(math.inf, d)
    return d / math.sqrt(var)


# ----------------------------------------------------------------------- permutation test


@dataclass(frozen=True)
class PermutationTestResult:
    """Result of :func:`permutation_test`.

    Attributes
    ----------
    statistic : float
        Observed (studentized) statistic.
    p_value : float
    alternative : str
    exact : bool
        Whether the permutation distribution was enumerated (0/1 costs) rather than sampled.
    n_resamples : int
        Permutations drawn (0 when exact).
    n_a, n_b : int
        Group sizes.
    """

    statistic: float
    p_value: float
    alternative: str
    exact: bool
    n_resamples: int
    n_a: int
    n_b: int
    null_distribution: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0))

    def to_dict(self) -> dict:
        """JSON-ready fields (the null distribution left out)."""
        return {
            "statistic": self.statistic, "p_value": self.p_value,
            "alternative": self.alternative, "exact": self.exact,
            "n_resamples": self.n_resamples, "n_a": self.n_a, "n_b": self.n_b,
        }


def _welch_t(xa: np.ndarray, xb: np.ndarray, axis: int = -1) -> np.ndarray:
    """Studentized difference of means, unpooled variances (ddof=1)."""
    na, nb = xa.shape[axis], xb.shape[axis]
    d = xa.mean(axis=axis) - xb.mean(axis=axis)
    se = np.sqrt(xa.var(axis=axis, ddof=1) / na + xb.var(axis=axis, ddof=1) / nb)
    return _studentized(d, se)


def _binary_t(ka: np.ndarray, na: int, kb: np.ndarray, nb: int) -> np.ndarray:
    """Studentized gap of two proportions with unpooled plug-in variances."""
    pa, pb = ka / na, kb / nb
    d = pa - pb
    se = np.sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb)
    return _studentized(d, se)


def _studentized(d: np.ndarray, se: np.ndarray) -> np.ndarray:
    """``d / se``; where ``se`` is 0: 0 for ``d == 0``, else infinity with the sign of ``d``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = d / se
        return np.where(se > 0, t, np.where(d == 0, 0.0, np.sign(d) * np.inf))


def _exceeds(null: np.ndarray, obs: float, alternative: str) -> np.ndarray:
    # A relative tolerance keeps permutations tied with the observed table counted as
    # "at least as extreme" despite rounding.
    tol = 1e-9 * max(1.0, abs(obs)) if np.isfinite(obs) else 0.0
    if alternative == "greater":
        return null >= obs - tol
    if alternative == "less":
        return null <= obs + tol
    return np.abs(null) >= abs(obs) - tol


def permutation_test(
    a: GroupStats,
    b: GroupStats,
    *,
    alternative: Alternative = "two-sided",
    n_resamples: int = DEFAULT_PERMUTATIONS,
    rng: np.random.Generator | int | None = 0,
) -> PermutationTestResult:
    """Studentized permutation test of ``E_A[cost] = E_B[cost]``.

    Parameters
    ----------
    a, b : GroupStats
        Statistics of groups A and B.  0/1 costs need counts only; fractional costs need
        every per-example cost (``GroupStats.from_costs``).
    alternative : {'two-sided', 'greater', 'less'}
        ``'greater'``: A bears more cost than B.
    n_resamples : int
        Permutations drawn for fractional costs (0/1 costs are enumerated exactly).
    rng : numpy.random.Generator or int, optional
        Seed for the sampled permutations.

    Returns
    -------
    PermutationTestResult

    Notes
    -----
    The statistic is the Welch-studentized gap ``(mean_A - mean_B) / se`` with unpooled
    variances.  Permuting group labels gives an exact test of "the two groups' costs are
    exchangeable"; studentizing makes it also asymptotically valid for the weaker null of
    equal means with unequal variances (DiCiccio & Romano 2017), which is the null of a
    fairness gap (DiCiccio, Vasudevan, Basu, Kenthapadi & Agarwal 2020).  For 0/1 costs
    equal means imply exchangeability, so the test is exact; the number of cost-1
    examples of A under permutation is hypergeometric and the p-value is summed over its
    support.  For fractional costs permutations are sampled with
    :func:`scipy.stats.permutation_test` and the p-value is ``(1 + #extreme)/(1 + B)``.

    References
    ----------
    C. DiCiccio, S. Vasudevan, K. Basu, K. Kenthapadi and D. Agarwal. "Evaluating Fairness
    Using Permutation Tests." KDD 2020.
    C. J. DiCiccio and J. P. Romano. "Robust permutation tests for correlation and
    regression coefficients." JASA 112 (2017) 1211-1220.

    Examples
    --------
    >>> res = permutation_test(GroupStats.from_counts(120, 30), GroupStats.from_counts(150, 20))
    >>> res.exact, round(res.p_value, 4)
    (True, 0.0178)
    """
    alt, B = _validate_permutation(a, b, alternative, n_resamples)
    if a.binary and b.binary:
        na, nb = int(round(a.n)), int(round(b.n))
        ka, kb = a.count, b.count
        K = ka + kb
        support = np.arange(max(0, K - nb), min(na, K) + 1)
        pmf = _st.hypergeom.pmf(support, na + nb, K, na)
        t_null = _binary_t(support, na, K - support, nb)
        t_obs = float(_binary_t(np.array(ka), na, np.array(kb), nb))
        p = float(min(1.0, pmf[_exceeds(t_null, t_obs, alt)].sum()))
        return PermutationTestResult(t_obs, p, alt, True, 0, na, nb, t_null)
    xa, xb = _samples(a), _samples(b)
    if xa.size < 2 or xb.size < 2:
        raise NotEstimable("the studentized permutation test needs two examples per group")
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    res = _st.permutation_test(
        (xa, xb), _welch_t, permutation_type="independent", vectorized=True,
        n_resamples=B, alternative=alt, rng=rng,
    )
    t_obs = float(res.statistic)
    null = np.asarray(res.null_distribution)
    exact = null.size < B
    k = int(_exceeds(null, t_obs, alt).sum())
    p = k / null.size if exact else (k + 1.0) / (null.size + 1.0)
    return PermutationTestResult(t_obs, float(min(1.0, p)), alt, exact,
                                 0 if exact else B, xa.size, xb.size, null)


def _samples(g: GroupStats) -> np.ndarray:
    if g.binary:
        return g.costs(np.random.default_rng(0))
    if g.sample is None or not g.sample_complete:
        raise NotEstimable(
            "the permutation test of fractional costs needs every per-example cost "
            "(GroupStats.from_costs keeps them)"
        )
    return np.asarray(g.sample, dtype=float)


def _validate_permutation(a, b, alternative, n_resamples) -> tuple[str, int]:
    _check_groups(a, b)
    alt = check_choice(alternative, _ALTERNATIVES, "alternative", fold=True)
    return alt, check_int(n_resamples, "n_resamples", low=1)


# ------------------------------------------------------------------------- betting capital


def _betting_log_capital(
    a: GroupStats, b: GroupStats, rng: np.random.Generator | int | None, alternative: str,
    confidence_level: float,
) -> np.ndarray:
    """Return the running log of the hedged capital against ``delta = 0`` on blocked pairs."""
    from fairbound.stats import betting

    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    C = max(a.cost_max, b.cost_max)
    xa, xb = a.costs(rng), b.costs(rng)
    z, _ = betting.blocked_pairs(xa, xb)
    y = np.clip((z + C) / (2.0 * C), 0.0, 1.0)  # E y = 1/2 under the null
    theta = 0.5
    lam = betting.predictable_bets(y, alpha=1.0 - confidence_level, horizon=y.size)
    lam = np.minimum(lam, betting.DEFAULT_TRUNCATION / theta)
    log_up = np.cumsum(np.log1p(lam * (y - theta)))  # grows when delta > 0
    log_down = np.cumsum(np.log1p(-lam * (y - theta)))  # grows when delta < 0
    if alternative == "greater":
        return log_up
    if alternative == "less":
        return log_down
    return np.logaddexp(log_up, log_down) + math.log(0.5)


def _validate_test(a, b, method, allowed, alternative, confidence_level):
    _check_groups(a, b)
    m = check_choice(method, allowed, "method", fold=True)
    alt = check_choice(alternative, _ALTERNATIVES, "alternative", fold=True)
    rho = check_confidence_level(confidence_level)
    return m, alt, rho


def p_value(
    a: GroupStats,
    b: GroupStats,
    *,
    method: str = "z",
    alternative: Alternative = "two-sided",
    rng: np.random.Generator | int | None = 0,
    n_resamples: int = DEFAULT_PERMUTATIONS,
    confidence_level: float = 0.95,
) -> float:
    """Compute a p-value for "no gap", ``H0: E_A[cost] = E_B[cost]``.

    Parameters
    ----------
    a, b : GroupStats
        Statistics of groups A and B.
    method : {'z', 'permutation', 'betting'}
        See the module notes: asymptotic z-test, studentized permutation test, or the
        finite-sample (anytime-valid) betting p-value ``min(1, 1 / max_t K_t)``.
    alternative : {'two-sided', 'greater', 'less'}
        ``'greater'``: A bears more cost than B.
    rng : numpy.random.Generator or int, optional
        Seed for the permutation sample or the betting order.
    n_resamples : int
        Permutations drawn for fractional costs.
    confidence_level : float
        Tunes the betting fractions (they are sized to reject at ``1 - confidence_level``);
        the p-value is valid whatever its value.  Ignored by the other methods.

    Returns
    -------
    float
        The p-value; small values are evidence of a gap.

    Notes
    -----
    ``z``: ``(mean_A - mean_B) / se`` with the pooled variance ``p(1 - p)(1/n_A + 1/n_B)``
    for 0/1 costs and ``s_A^2/n_A + s_B^2/n_B`` otherwise, referred to the normal
    distribution.  ``betting``: under the null the hedged capital is a non-negative
    martingale started at 1, so by Ville's inequality ``P(max_t K_t >= 1/alpha) <= alpha``.

    References
    ----------
    I. Waudby-Smith and A. Ramdas. JRSS-B 86 (2024) 1-27.
    C. DiCiccio et al. KDD 2020.

    Examples
    --------
    >>> a, b = GroupStats.from_counts(500, 90), GroupStats.from_counts(500, 50)
    >>> round(p_value(a, b, method="z"), 5)
    0.00027
    >>> p_value(a, b, method="betting") < 0.05
    True
    """
    m, alt, rho = _validate_test(a, b, method, _P_METHODS, alternative, confidence_level)
    if m == "z":
        return _tail_p(_z_statistic(a, b), alt)
    if m == "permutation":
        return permutation_test(a, b, alternative=alt, n_resamples=n_resamples, rng=rng).p_value
    log_k = _betting_log_capital(a, b, rng, alt, rho)
    return float(min(1.0, math.exp(-max(0.0, float(log_k.max())))))


def e_value(
    a: GroupStats,
    b: GroupStats,
    *,
    method: str = "betting",
    alternative: Alternative = "two-sided",
    rng: np.random.Generator | int | None = 0,
    confidence_level: float = 0.95,
    kappa: float = 0.5,
) -> float:
    """Compute an e-value against "no gap", ``H0: E_A[cost] = E_B[cost]``.

    An e-value is a non-negative statistic with expectation at most 1 under the null; large
    values are evidence of a gap, and ``E >= 1/alpha`` rejects at level alpha (Markov).

    Parameters
    ----------
    a, b : GroupStats
        Statistics of groups A and B.
    method : {'betting', 'calibrated'}
        ``'betting'``: the hedged capital after the last blocked pair (finite-sample valid).
        ``'calibrated'``: ``kappa * p^(kappa - 1)`` of the z-test p-value (valid as far as
        the z-test is).
    alternative : {'two-sided', 'greater', 'less'}
        ``'greater'``: A bears more cost than B.
    rng : numpy.random.Generator or int, optional
        Seed of the random order of the betting sequence.
    confidence_level : float
        Tunes the betting fractions; the e-value is valid whatever its value.
    kappa : float
        Calibrator exponent in (0, 1) for ``method='calibrated'``.

    Returns
    -------
    float

    Notes
    -----
    Each group is shuffled with the seeded generator, the smaller group is paired with
    blocks of the larger (:func:`fairbound.stats.betting.blocked_pairs`), the differences
    are mapped to ``y`` in ``[0, 1]`` with mean ``1/2`` under the null, and the bets are the
    predictable plug-in fractions of Waudby-Smith & Ramdas truncated at ``0.75 / (1/2)``.
    The two-sided e-value is the average of the capital betting on ``delta > 0`` and on
    ``delta < 0``; each is a non-negative martingale with mean 1 under the null.

    References
    ----------
    I. Waudby-Smith and A. Ramdas. JRSS-B 86 (2024) 1-27.
    V. Vovk and R. Wang. "E-values: Calibration, combination and applications." Annals of
    Statistics 49 (2021) 1736-1754.

    Examples
    --------
    >>> a, b = GroupStats.from_counts(2000, 300), GroupStats.from_counts(2000, 200)
    >>> e_value(a, b) > 1000
    True
    >>> round(e_value(a, b, method="calibrated"), 1)
    378.5
    """
    m, alt, rho = _validate_test(a, b, method, _E_METHODS, alternative, confidence_level)
    if m == "calibrated":
        k = _check_kappa(kappa)
        p = _tail_p(_z_statistic(a, b), alt)
        return float(k * p ** (k - 1.0)) if p > 0 else math.inf
    log_k = _betting_log_capital(a, b, rng, alt, rho)
    return float(math.exp(float(log_k[-1])))


def _check_kappa(kappa) -> float:
    return check_probability(kappa, "kappa")
