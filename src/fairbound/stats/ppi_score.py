"""Prediction-powered intervals with a *score* proxy: the proxy's probability, not its label.

:mod:`fairbound.stats.ppi` takes a proxy label (0/1).  Many proxies give a probability
``f`` in ``[0, 1]`` of the positive class (an LLM judge's confidence, a stronger model's
``predict_proba``), and thresholding it throws information away.  With a score the
proxy's version of a per-row value ``g(y, pred)`` is its expectation under the score,

    g~ = (1 - f) g(0, pred) + f g(1, pred),

which is linear in ``f``.  So every moment PPI++ needs (means, variances and covariances
of ``g`` and ``g~`` over labeled rows, of ``g~`` over unlabeled rows) is a function of, per
cell ``[y, pred]`` of the labeled rows, the count, ``sum f`` and ``sum f^2``, and per
prediction of the unlabeled rows the same three sums: :class:`ScorePPICounts`, a
``GROUP BY`` with ``count``, ``sum(f)`` and ``sum(f * f)``.

The estimator and its interval are those of :mod:`fairbound.stats.ppi` for ratio metrics
(TPR, FPR, precision...: numerator and denominator as PPI means with one ``lambda``, delta
method with their joint covariance; the error rate is the ratio with denominator 1):

    theta_g = lambda mean_unlabeled(g~) + mean_labeled(g - lambda g~),
    R = theta_U / theta_V,   h = U - R V,
    Var R = (lambda^2 Var_unlabeled(h~) / N + Var_labeled(h - lambda h~) / n) / theta_V^2,

with PPI++'s ``lambda = Cov_labeled(h, h~) / ((1 + n / N) Var_all(h~))`` clipped to
``[0, 1]`` (a pilot ``R`` from ``lambda = 1``), moments as ``ppi_py`` takes them (``ddof=0``
for the labeled covariance, ``ddof=1`` for the pooled variance).  With a 0/1 score the
result equals :func:`fairbound.stats.ppi.ppi_ratio_interval` with ``variance='plugin'``
(``tests/stats/test_ppi_score.py`` checks it).

Guarantee: asymptotic (CLT), as the plug-in PPI++ interval: it ignores the noise of the
estimated ``lambda``, so with few labels it can under-cover (the 0/1-proxy path has a
jackknife for that; a score's sums do not determine the leave-one-out estimates).  It
assumes, as every PPI interval, that the gold-labeled rows are a uniformly random sample of
each group.  Not covered: recorded sampling weights with a score proxy (use a proxy label,
e.g. ``"score >= 0.5"``, with :mod:`fairbound.stats.ppi_ipw`); guaranteed intervals.

References
----------
A. N. Angelopoulos, J. C. Duchi and T. Zrnic. "PPI++: Efficient prediction-powered
inference." arXiv:2311.01453 (2023).

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> s = rng.beta(0.5, 0.5, 4000)                     # calibrated scores
>>> y = (rng.random(4000) < s).astype(int)
>>> pred = np.where(rng.random(4000) < 0.8, y, 1 - y)
>>> gold = np.where(np.arange(4000) < 400, y, -1)   # 400 gold labels
>>> c = ScorePPICounts.from_arrays(gold, s, pred)
>>> r = ppi_score_ratio_interval(c, metric="tpr")
>>> lab = ppi_score_ratio_interval(c, metric="tpr", proxy=False)
>>> bool(r.low < 0.8 < r.high), bool(r.width < 0.8 * lab.width)
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairbound._docs import fill
from fairbound.errors import FairboundError
from fairbound.stats.base import NotEstimable
from fairbound.stats.ppi.counts import PPIInterval, _cells
from fairbound.stats.ppi.wald import _rate_gap_interval, _rate_interval, _tuned_ratio

__all__ = ["ScorePPICounts", "ppi_score_ratio_gap_interval", "ppi_score_ratio_interval"]


@dataclass(frozen=True)
class ScorePPICounts:
    """One group's rows with a score proxy: counts and score sums per cell.

    Parameters
    ----------
    labeled : array_like, shape (3, 2, 2)
        Over the gold-labeled rows, per cell ``[y, pred]``: the count, ``sum f`` and
        ``sum f^2`` (``f``: the proxy's score for the positive class).
    unlabeled : array_like, shape (3, 2)
        Over the rows without a gold label, per prediction: the same three sums.

    Raises
    ------
    FairboundError
        Naming the array with a wrong shape, negative sums, or sums no scores in
        ``[0, 1]`` could give (``sum f > count`` or ``sum f^2 > sum f``).
    """

    labeled: np.ndarray
    unlabeled: np.ndarray

    def __post_init__(self) -> None:
        lab = _cells(self.labeled, "labeled", (3, 2, 2), whole=False)
        unl = _cells(self.unlabeled, "unlabeled", (3, 2), whole=False)
        for name, a in (("labeled", lab), ("unlabeled", unl)):
            tol = 1e-9 * (1.0 + a[0])
            if np.any(a[1] > a[0] + tol) or np.any(a[2] > a[1] + tol):
                raise FairboundError(f"{name}: the sums are not those of scores in [0, 1] "
                                     "(sum f <= count and sum f^2 <= sum f)", param=name)
        object.__setattr__(self, "labeled", lab)
        object.__setattr__(self, "unlabeled", unl)

    @classmethod
    def from_arrays(cls, y, score, pred) -> ScorePPICounts:
        """From per-row arrays: ``y`` 0/1 or -1 / NaN (no gold label), ``score`` in [0, 1]."""
        y = np.asarray(y, dtype=float)
        f = np.asarray(score, dtype=float)
        p = np.asarray(pred, dtype=int)
        if np.any(~np.isfinite(f)) or np.any((f < 0) | (f > 1)):
            raise FairboundError("score must be finite numbers in [0, 1]", param="score")
        lab = np.isfinite(y) & (y >= 0)
        yl = y[lab].astype(int)
        L = np.zeros((3, 2, 2))
        U = np.zeros((3, 2))
        for k, v in enumerate((np.ones_like(f), f, f * f)):
            np.add.at(L[k], (yl, p[lab]), v[lab])
            np.add.at(U[k], p[~lab], v[~lab])
        return cls(labeled=L, unlabeled=U)

    @property
    def n(self) -> int:
        """Rows with a gold label."""
        return int(round(self.labeled[0].sum()))

    @property
    def n_unlabeled(self) -> int:
        """Rows without one."""
        return int(round(self.unlabeled[0].sum()))

    def pooled(self, *others: ScorePPICounts) -> ScorePPICounts:
        """The union with ``others`` (each-vs-rest): the sums add."""
        return ScorePPICounts(labeled=sum((o.labeled for o in others), self.labeled),
                              unlabeled=sum((o.unlabeled for o in others), self.unlabeled))


def _form_sum(S: np.ndarray, x, z=None) -> float:
    """``sum x`` (or ``sum x z``) over rows with score sums ``S`` = (count, sum f, sum f^2).

    ``x = (a, b)`` is the value ``a + b f`` per cell of ``S[k]`` (likewise ``z``).
    """
    a, b = x
    if z is None:
        return float((a * S[0] + b * S[1]).sum())
    c, d = z
    return float((a * c * S[0] + (a * d + b * c) * S[1] + b * d * S[2]).sum())


class _Forms:
    """Sums of products of per-row values that are linear in the score ``f``.

    A value is ``(a, b)``: ``a[y, pred] + b[y, pred] f`` on labeled rows, and on unlabeled
    rows (no ``y``) ``a[pred] + b[pred] f``.
    """

    def __init__(self, c: ScorePPICounts) -> None:
        self.L, self.U = c.labeled, c.unlabeled
        self.n, self.N = float(self.L[0].sum()), float(self.U[0].sum())

    def lab(self, x, z=None) -> float:
        """``sum x`` (or ``sum x z``) over labeled rows."""
        return _form_sum(self.L, x, z)

    def unl(self, x, z=None) -> float:
        """The same over unlabeled rows (``a``, ``b`` indexed by ``pred``)."""
        return _form_sum(self.U, x, z)


def _gold(table) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(table, dtype=float), np.zeros((2, 2))


def _proxy(table) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """``g~ = g(0, pred) + (g(1, pred) - g(0, pred)) f``: labeled form and unlabeled form."""
    t = np.asarray(table, dtype=float)
    a, b = t[0], t[1] - t[0]
    return (np.broadcast_to(a, (2, 2)), np.broadcast_to(b, (2, 2))), (a, b)


def _theta(F: _Forms, g, lam: float) -> float:
    gy = _gold(g)
    (la, lb), ua = _proxy(g)
    rect = (gy[0] - lam * la, -lam * lb)
    # a group whose rows are all labeled has no unlabeled term (and lambda = 0 there)
    unlabeled = lam * F.unl(ua) / F.N if lam and F.N > 0 else 0.0
    return unlabeled + F.lab(rect) / F.n


def _ratio_parts(c: ScorePPICounts, num, den, proxy: bool) -> tuple[float, float, float]:
    """(estimate, variance, lambda) of one group's ratio."""
    if c.n < 2:
        raise NotEstimable("PPI needs at least 2 labeled rows")
    F = _Forms(c)
    use = proxy and F.N > 0

    def best_lambda(h: np.ndarray) -> float:
        hy = _gold(h)
        hl, hu = _proxy(h)
        cov = F.lab(hy, hl) / F.n - (F.lab(hy) / F.n) * (F.lab(hl) / F.n)
        tot = F.n + F.N
        mean = (F.lab(hl) + F.unl(hu)) / tot
        var = ((F.lab(hl, hl) + F.unl(hu, hu)) - tot * mean**2) / (tot - 1)
        if not var > 0:
            return 0.0
        return min(max(cov / ((1.0 + F.n / F.N) * var), 0.0), 1.0)

    R, tv, lam = _tuned_ratio(lambda g, at: _theta(F, g, at), best_lambda, num, den, use)
    h = num - R * den
    hy = _gold(h)
    hl, hu = _proxy(h)
    r = (hy[0] - lam * hl[0], -lam * hl[1])
    var_lab = F.lab(r, r) / F.n - (F.lab(r) / F.n) ** 2
    var = var_lab / F.n
    if use and lam > 0:
        var_unl = F.unl(hu, hu) / F.N - (F.unl(hu) / F.N) ** 2
        var += lam**2 * var_unl / F.N
    return R, max(var, 0.0) / tv**2, lam


@fill
def ppi_score_ratio_interval(counts: ScorePPICounts, confidence_level: float = 0.95, *,
                             metric="tpr", proxy: bool = True) -> PPIInterval:
    """PPI++ CLT interval for one group's rate with a score proxy.

    Parameters
    ----------
    counts : ScorePPICounts
        The group's counts and score sums.
    {{ppi_rate_parameters}}
    proxy : bool
        Use the score (tuned ``lambda``, default) or not (the labeled-only delta-method
        interval).

    {{ppi_ratio_raises}}
    """
    return _rate_interval(counts, ScorePPICounts, confidence_level, metric,
                          lambda g, num, den: _ratio_parts(g, num, den, bool(proxy)))


def ppi_score_ratio_gap_interval(a: ScorePPICounts, b: ScorePPICounts,
                                 confidence_level: float = 0.95, *, metric="tpr",
                                 proxy: bool = True) -> PPIInterval:
    """PPI++ CLT interval for the gap ``rate_A - rate_B`` with a score proxy.

    Each group as in :func:`ppi_score_ratio_interval` (its own ``lambda``); the groups'
    variances add.

    Raises
    ------
    NotEstimable
        Naming the group (A or B) that is not estimable.
    """
    return _rate_gap_interval(a, b, ScorePPICounts, confidence_level, metric,
                              lambda g, num, den: _ratio_parts(g, num, den, bool(proxy)))
