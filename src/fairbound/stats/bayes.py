"""Beta-binomial posterior for a gap between two groups' cost rates (0/1 costs).

Each group's cost rate ``p_g`` gets an independent ``Beta(a0, b0)`` prior; with ``k_g`` of
``n_g`` examples having cost 1 the posterior is ``Beta(a0 + k_g, b0 + n_g - k_g)``.  The
posterior of ``delta = C (p_A - p_B)`` is the distribution of a difference of two
independent Beta variables, computed here by quadrature (no Monte Carlo), and the
registered method ``bayes`` reports its equal-tailed credible interval.

The prior is the uniform ``Beta(1, 1)`` by default (the labelled-data model of Ji, Smyth &
Steyvers 2020); ``prior="jeffreys"`` gives ``Beta(1/2, 1/2)``, and any ``(a0, b0)`` pair is
accepted.

References
----------
D. Ji, P. Smyth and M. Steyvers. "Can I Trust My Fairness Metric? Assessing Fairness with
Unlabeled Data and Bayesian Inference." NeurIPS 2020.
"""

from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass

import numpy as np

from fairbound.errors import FairboundError
from fairbound.stats.base import (
    GroupStats,
    NotEstimable,
    check_confidence_level,
    register_interval,
)

_PRIORS = {"uniform": (1.0, 1.0), "jeffreys": (0.5, 0.5)}

# Gauss-Legendre nodes on (0, 1) for the probability-integral transform of the narrower
# posterior; 256 nodes give CDF errors below 1e-6 (typically 1e-8) against adaptive
# quadrature in tests/stats/test_bayes.py.  Computed on first use, not at import.
@functools.cache
def _quadrature() -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on (0, 1): ``(u, w)``."""
    nodes, weights = np.polynomial.legendre.leggauss(256)
    return (nodes + 1.0) / 2.0, weights / 2.0


#: Posteriors with ``a + b`` at least this (2**53, where whole counts stop being exact in
#: floating point and scipy's incomplete beta function returns NaN from about 1e16 on) use
#: the moment-matched gamma law of :class:`_BetaLaw`; smaller ones scipy's exact functions.
LARGE = 2.0**53
# Gamma shapes from this on use the Wilson-Hilferty cube-root normal law (its quantiles are
# within 2e-6 standard deviations of the gamma's here, closer beyond; scipy's gammaincinv
# drifts by a fifth of a standard deviation in the tails from about 1e9 on).
_WH_SHAPE = 1e6


class _BetaLaw:
    """CDF and quantile function of one group's ``Beta(a, b)`` posterior.

    For ``a + b < LARGE`` scipy's ``betainc`` / ``betaincinv`` (exact).  Beyond, the side
    with the smaller parameter (``X`` if ``a <= b``, else ``1 - X``) is a gamma variable
    with the Beta's mean and variance: with ``N = a + b >= 2**53`` its skewness differs from
    the Beta's by about ``2 / sqrt(N)``, so quantiles agree to about 1e-8 standard
    deviations.  The gamma itself is scipy's below shape 1e6 and the Wilson-Hilferty
    cube-root normal law above.
    """

    def __init__(self, a: float, b: float):
        self.a, self.b = float(a), float(b)
        n = self.a + self.b
        self.large = n >= LARGE
        if self.large:
            self.flip = self.a > self.b  # model 1 - X, whose parameter is the smaller
            m = min(self.a, self.b) / n  # mean of the side modelled
            var = m * (1.0 - m) / (n + 1.0)  # the Beta's variance, without overflow
            self.shape, self.scale, self.m = m * m / var, var / m, m

    def _gamma_cdf(self, g):
        from scipy import special

        if self.shape < _WH_SHAPE:
            return special.gammainc(self.shape, np.maximum(g, 0.0) / self.scale)
        k = self.shape
        # cube root of g / mean, from the relative deviation (exact near the mean)
        r = np.cbrt(1.0 + (g - self.m) / self.m)
        return special.ndtr((r - (1.0 - 1.0 / (9.0 * k))) * 3.0 * math.sqrt(k))

    def _gamma_ppf(self, u):
        from scipy import special

        if self.shape < _WH_SHAPE:
            return special.gammaincinv(self.shape, u) * self.scale
        k = self.shape
        r = 1.0 - 1.0 / (9.0 * k) + special.ndtri(u) / (3.0 * math.sqrt(k))
        return self.m * r**3

    def cdf(self, x):
        """``P(X <= x)`` for ``x`` in ``[0, 1]``."""
        from scipy import special

        if not self.large:
            return special.betainc(self.a, self.b, x)
        if self.flip:
            return 1.0 - self._gamma_cdf(1.0 - x)
        return self._gamma_cdf(x)

    def ppf(self, u):
        """Quantile of ``X`` at ``u`` in ``[0, 1]``, clipped to ``[0, 1]``."""
        from scipy import special

        if not self.large:
            return special.betaincinv(self.a, self.b, u)
        q = 1.0 - self._gamma_ppf(1.0 - u) if self.flip else self._gamma_ppf(u)
        return np.clip(q, 0.0, 1.0)


def check_prior(prior, param: str = "prior") -> tuple[float, float]:
    """Validate a Beta prior: ``'uniform'``, ``'jeffreys'`` or a pair ``(a0, b0) > 0``."""
    if isinstance(prior, str):
        key = prior.strip().lower()
        if key not in _PRIORS:
            raise FairboundError(
                f"{param} must be 'uniform', 'jeffreys' or a pair (a0, b0) of positive "
                f"numbers; got {prior!r}",
                param=param,
            )
        return _PRIORS[key]
    try:
        a0, b0 = (float(v) for v in prior)
    except (TypeError, ValueError):
        raise FairboundError(
            f"{param} must be 'uniform', 'jeffreys' or a pair (a0, b0) of positive numbers; "
            f"got {prior!r}",
            param=param,
        ) from None
    if not (a0 > 0 and b0 > 0 and math.isfinite(a0) and math.isfinite(b0)):
        raise FairboundError(
            f"{param} must be a pair (a0, b0) of positive numbers; got {prior!r}", param=param
        )
    return a0, b0


@dataclass(frozen=True)
class BetaDifferencePosterior:
    """Posterior of ``delta = C (p_A - p_B)`` with independent Beta posteriors.

    Attributes
    ----------
    alpha_a, beta_a, alpha_b, beta_b : float
        Posterior Beta parameters of the two groups' cost rates.
    cost_max : float
        The cost scale ``C``.
    prior : tuple of float
        The prior ``(a0, b0)`` used for both groups.
    """

    alpha_a: float
    beta_a: float
    alpha_b: float
    beta_b: float
    cost_max: float = 1.0
    prior: tuple[float, float] = (1.0, 1.0)

    @property
    def mean(self) -> float:
        """Posterior mean of ``delta``."""
        pa = self.alpha_a / (self.alpha_a + self.beta_a)
        pb = self.alpha_b / (self.alpha_b + self.beta_b)
        return self.cost_max * (pa - pb)

    def _sd(self, a: float, b: float) -> float:
        return math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1.0)))

    def cdf(self, d) -> np.ndarray | float:
        """``P(delta <= d)`` by Gauss-Legendre quadrature.

        The narrower of the two posteriors is integrated out through its quantile function
        (``u`` uniform on (0, 1)), which leaves a smooth integrand.
        """
        x = np.asarray(d, dtype=float) / self.cost_max
        flat = np.clip(np.atleast_1d(x), -1.0, 1.0)[:, None]
        aa, ba, ab, bb = self.alpha_a, self.beta_a, self.alpha_b, self.beta_b
        law_a, law_b = _BetaLaw(aa, ba), _BetaLaw(ab, bb)
        _U, _W = _quadrature()
        # The integrand is constant (0 or 1) outside the u-range where the inner CDF's
        # argument lies in (0, 1); integrating over that range only keeps the square-root
        # kinks of small Beta shapes at the ends, where Gauss-Legendre handles them.
        if self._sd(aa, ba) <= self._sd(ab, bb):
            # P(p_A - p_B <= x) = E_u[1 - F_B(ppf_A(u) - x)]
            u0 = law_a.cdf(np.clip(flat, 0.0, 1.0))
            u1 = law_a.cdf(np.clip(1.0 + flat, 0.0, 1.0))
            u = u0 + (u1 - u0) * _U[None, :]
            pa = law_a.ppf(u)
            inner = 1.0 - law_b.cdf(np.clip(pa - flat, 0.0, 1.0))
            out = u0[:, 0] + (u1 - u0)[:, 0] * (inner @ _W)
        else:
            # P(p_A - p_B <= x) = E_u[F_A(ppf_B(u) + x)]
            u0 = law_b.cdf(np.clip(-flat, 0.0, 1.0))
            u1 = law_b.cdf(np.clip(1.0 - flat, 0.0, 1.0))
            u = u0 + (u1 - u0) * _U[None, :]
            pb = law_b.ppf(u)
            inner = law_a.cdf(np.clip(pb + flat, 0.0, 1.0))
            out = (1.0 - u1[:, 0]) + (u1 - u0)[:, 0] * (inner @ _W)
        out = np.clip(out, 0.0, 1.0)
        x1 = np.atleast_1d(x)
        out = np.where(x1 < -1.0, 0.0, np.where(x1 >= 1.0, 1.0, out))
        return float(out[0]) if np.ndim(d) == 0 else out.reshape(np.shape(d))

    def ppf(self, q: float) -> float:
        """Posterior quantile of ``delta`` (root of ``cdf(d) = q``)."""
        if not 0.0 < q < 1.0:
            raise FairboundError(f"q must be in (0, 1); got {q!r}", param="q")
        C = self.cost_max
        # Bracket within 12 posterior standard deviations of the mean (widened to the whole
        # range if needed): Brent's method then needs about ten CDF evaluations.
        sd = C * math.hypot(self._sd(self.alpha_a, self.beta_a),
                            self._sd(self.alpha_b, self.beta_b))
        lo, hi = max(-C, self.mean - 12 * sd), min(C, self.mean + 12 * sd)
        if self.cdf(lo) > q:
            lo = -C
        if self.cdf(hi) < q:
            hi = C
        from scipy import optimize  # only here: it costs 0.3 s to import

        xtol = 1e-9 * C
        if max(self.alpha_a + self.beta_a, self.alpha_b + self.beta_b) >= LARGE:
            xtol = min(xtol, 1e-6 * sd)  # posteriors narrower than 1e-9: a finer tolerance
        return float(optimize.brentq(lambda d: self.cdf(d) - q, lo, hi, xtol=xtol,
                                     rtol=1e-12))

    def interval(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """Equal-tailed credible interval for ``delta``."""
        rho = check_confidence_level(confidence_level)
        return self.ppf((1.0 - rho) / 2.0), self.ppf((1.0 + rho) / 2.0)

    def prob_greater(self, threshold: float = 0.0) -> float:
        """Posterior probability that ``delta > threshold`` (A bears more cost)."""
        return float(1.0 - self.cdf(threshold))


def posterior_difference(
    a: GroupStats, b: GroupStats, *, prior="uniform"
) -> BetaDifferencePosterior:
    """Beta-binomial posterior of the gap ``E_A[cost] - E_B[cost]`` for 0/1 costs.

    Parameters
    ----------
    a, b : GroupStats
        Binary statistics of groups A and B.
    prior : {'uniform', 'jeffreys'} or (float, float)
        Beta prior ``(a0, b0)`` of each group's cost rate; ``'uniform'`` is ``(1, 1)``,
        ``'jeffreys'`` is ``(1/2, 1/2)``.

    Returns
    -------
    BetaDifferencePosterior
        With ``.interval(confidence_level)``, ``.cdf``, ``.ppf``, ``.prob_greater``.

    Notes
    -----
    The groups' rates are independent a priori, so their posteriors are independent Betas
    and ``delta`` has the law of a difference of Betas.  Its CDF is computed by 256-node
    Gauss-Legendre quadrature after the probability-integral transform of the narrower
    posterior; quantiles by Brent's method.  A credible interval is a statement about the
    posterior, not a frequentist guarantee; its frequentist coverage is close to nominal
    for moderate groups and is measured in ``tests/stats/test_bayes.py``.

    References
    ----------
    D. Ji, P. Smyth and M. Steyvers. "Can I Trust My Fairness Metric? Assessing Fairness
    with Unlabeled Data and Bayesian Inference." NeurIPS 2020.

    Examples
    --------
    >>> a, b = GroupStats.from_counts(200, 40), GroupStats.from_counts(300, 30)
    >>> post = posterior_difference(a, b)
    >>> lo, hi = post.interval(0.95)
    >>> round(lo, 3), round(hi, 3)
    (0.037, 0.167)
    >>> round(post.prob_greater(0.0), 4)
    0.9991
    """
    a0, b0 = _validate_posterior(a, b, prior)
    C = max(a.cost_max, b.cost_max)
    ka, kb = a.count, b.count
    return BetaDifferencePosterior(
        alpha_a=a0 + ka, beta_a=_plus_misses(b0, a.n, ka), alpha_b=a0 + kb,
        beta_b=_plus_misses(b0, b.n, kb), cost_max=C, prior=(a0, b0),
    )


def _plus_misses(b0: float, n, k: int) -> float:
    """``b0 + n - k``, with ``n - k`` in whole numbers when ``n`` is one.

    In floating point the misses of a group above 2**53 examples would be lost.
    """
    return b0 + (n - k) if isinstance(n, numbers.Integral) else b0 + n - k


def _validate_posterior(a, b, prior) -> tuple[float, float]:
    for name, g in (("a", a), ("b", b)):
        if not isinstance(g, GroupStats):
            raise FairboundError(
                f"{name} must be a GroupStats; got {type(g).__name__}", param=name
            )
        if not g.binary:
            raise NotEstimable("the Beta-binomial posterior needs 0/1 costs")
    if a.cost_max != b.cost_max:
        raise FairboundError(
            f"a and b must share cost_max; got {a.cost_max!r} and {b.cost_max!r}",
            param="cost_max",
        )
    return check_prior(prior)


@register_interval(
    "bayes",
    guarantee="bayesian",
    summary="Equal-tailed Beta-binomial credible interval (uniform Beta(1,1) priors), "
    "exact quadrature.",
    reference="Ji, Smyth & Steyvers, NeurIPS 2020",
    binary_only=True,
    options=("prior",),
    aliases=("bayesian", "beta-binomial"),
)
def _bayes(a, b, rho, *, rng=None, prior="uniform"):
    return posterior_difference(a, b, prior=prior).interval(rho)
