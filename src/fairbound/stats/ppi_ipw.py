"""Prediction-powered intervals when gold labels were drawn with unequal probabilities.

:mod:`fairbound.stats.ppi` assumes the gold-labeled rows of a group are a uniformly random
sample of it.  Labeling is cheaper when the rows sent to annotators are those the proxy is
unsure about (Zrnic & Candès 2024, "Active statistical inference"): a row ``i`` is drawn
with a probability ``pi_i`` recorded at the time, and the estimate weights it by
``1 / pi_i`` (inverse-probability weighting).  This module gives the interval for that
design, for every 0/1 metric of a prediction-powered audit, from sufficient statistics.

Design.  Labels arrive in batches ``j = 0, 1, ..., K``.  Batch 0 holds gold labels
collected before any weighted sampling and is taken as a uniform random sample of the
group (``pi = n_0 / M``).  In batch ``j >= 1`` every row not labeled before it is drawn
independently with its probability ``pi_i^(j)`` (Poisson sampling), which may depend on
the proxy, the prediction and the gold labels of earlier batches, but not on the row's
own gold label: :func:`fairbound.audits.ppi.sampling.sample_for_annotation` draws such batches
and records ``pi`` and ``j``.

Estimate.  For a per-row value ``g`` (a metric's numerator or denominator) computed with
the gold label, ``g~`` the same with the proxy label, and ``lambda`` in ``[0, 1]``, batch
``j`` gives

    T_j = (1 / M) [ lambda sum_all g~ + sum_{labeled before j} (g - lambda g~)
                    + M_j * Hajek_j(g - lambda g~) ],

(``M``: rows of the group; ``M_j``: rows not labeled before batch ``j``; ``Hajek_j``: the
``1 / pi``-weighted mean of the rectifier over the rows drawn in batch ``j``, an estimate
of its mean over those ``M_j`` rows).  Given everything before batch ``j`` its
linearisation is unbiased for the group mean of ``g`` whatever ``pi^(j)`` was, because the
rows labeled earlier are known exactly and batch ``j`` is a probability sample of the rest.
Batches combine as ``T = sum_j beta_j T_j`` with ``beta_j`` proportional to the batch's
labeled rows: a martingale, so the design variances add, ``sum_j beta_j^2 V_j``, with

    V_j = (1 / M^2) sum_{drawn in j} (1 - pi) / pi^2 (r - Hajek_j(r))^2,   r = g - lambda g~,

the Poisson-sampling variance of the linearised Hajek estimator.  The target is the mean
of the distribution the rows come from (as for :mod:`fairbound.stats.ppi`), so the
variance of the rows' own mean, ``Var(g) / M``, is added.  Ratios ``R = E[U] / E[V]``
(TPR, FPR, precision) use the delta method: the interval is that of ``T(U) / T(V)`` with
the variance of ``T(h) / T(V)``, ``h = U - R V``.  ``lambda`` minimises the design
variance of ``T(h)`` (the PPI++ idea with weights, clipped to ``[0, 1]``; a pilot ``R``
from ``lambda = 1``); ``lambda = 0`` is the labeled-only (Hajek) estimate.

Guarantee: asymptotic (a CLT for Poisson sampling and martingale differences; coverage
measured in ``tests/stats/test_ppi_ipw.py`` and by ``benchmarks/ppi_active.py``).  It
assumes that ``pi`` and the batch of each labeled row are recorded exactly as drawn, that
every drawn row was annotated (a drawn row without a gold label is an error, not a row to
skip), that ``pi`` is bounded away from 0 (the sampler floors it: weights stay bounded),
and that batch 0 is a uniform sample of each group.

Not covered: a guaranteed (finite-sample) interval with weights; ``lambda`` noise in the
variance (the plug-in, as PPI++'s); ``beta_j`` from the realised batch sizes, which are
random under Poisson sampling (a second-order effect); early stopping across batches,
which :func:`fairbound.audits.ppi.audit.ppi_audit` handles with ``looks`` (the error split
over the planned batches).

References
----------
T. Zrnic and E. J. Candès. "Active statistical inference." ICML 2024 (arXiv:2403.03208).

A. N. Angelopoulos, J. C. Duchi and T. Zrnic. "PPI++: Efficient prediction-powered
inference." arXiv:2311.01453 (2023).

C.-E. Särndal, B. Swensson and J. Wretman. *Model Assisted Survey Sampling.* Springer
(1992), sections 3.6 (Poisson sampling) and 5.7 (the Hajek estimator, linearised).

Examples
--------
Uncertain rows drawn more often; the interval for each group's TPR and the gap:

>>> import numpy as np
>>> from fairbound.stats.ppi_ipw import WeightedPPICounts, ipw_ratio_gap_interval
>>> rng = np.random.default_rng(0)
>>> def group(rate, M=5000, budget=400):
...     y = (rng.random(M) < rate).astype(int)
...     score = np.clip(np.where(y == 1, 0.7, 0.3) + rng.normal(0, 0.2, M), 0.01, 0.99)
...     f = (score >= 0.5).astype(int)
...     pred = np.where(rng.random(M) < 0.8, y, 1 - y)
...     u = np.sqrt(score * (1 - score))
...     pi = np.clip(budget * u / u.sum(), 0.02, 1.0)
...     drawn = rng.random(M) < pi
...     return WeightedPPICounts.from_arrays(np.where(drawn, y, -1), f, pred,
...                                          probability=np.where(drawn, pi, np.nan),
...                                          batch=np.where(drawn, 1, -1))
>>> a, b = group(0.4), group(0.3)
>>> r = ipw_ratio_gap_interval(a, b, 0.95, metric="tpr")
>>> lab = ipw_ratio_gap_interval(a, b, 0.95, metric="tpr", proxy=False)
>>> bool(r.low < r.estimate < r.high), bool(r.width < lab.width)
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairbound._docs import fill
from fairbound.errors import FairboundError
from fairbound.stats.base import NotEstimable
from fairbound.stats.ppi.counts import PPIInterval, _cells, _UnlabeledCells
from fairbound.stats.ppi.wald import _rate_gap_interval, _rate_interval, _tuned_ratio

__all__ = ["WeightedPPICounts", "ipw_ratio_gap_interval", "ipw_ratio_interval"]


@dataclass(frozen=True)
class WeightedPPICounts(_UnlabeledCells):
    """One group's rows by (gold, proxy, prediction), with the labeled rows' batch weights.

    Parameters
    ----------
    unlabeled : array_like, shape (2, 2)
        Rows without a gold label, indexed ``[f, pred]``.
    batches : tuple of int
        The batches with labeled rows, increasing (0: labeled before any weighted sampling,
        a uniform sample of the group).
    n, w, w2 : array_like, shape (K, 2, 2, 2)
        Per batch and cell ``[y, f, pred]`` of the labeled rows: their number, the sum of
        ``1 / pi`` and the sum of ``1 / pi^2``.  For batch 0, :meth:`from_arrays` and the
        engine fill in ``pi = n_0 / M``.

    Attributes
    ----------
    labeled : numpy.ndarray
        Labeled rows over all batches, ``[y, f, pred]`` (as :class:`~fairbound.stats.ppi.
        PPICounts` has it).

    Raises
    ------
    FairboundError
        Naming the array with a wrong shape or bad values, or ``w`` when a weight is below 1
        (``pi`` above 1).
    """

    unlabeled: np.ndarray
    batches: tuple
    n: np.ndarray
    w: np.ndarray
    w2: np.ndarray

    def __post_init__(self) -> None:
        batches = tuple(int(b) for b in self.batches)
        if list(batches) != sorted(set(batches)) or any(b < 0 for b in batches):
            raise FairboundError(f"batches must be distinct non-negative integers in "
                                 f"increasing order; got {self.batches!r}", param="batches")
        k = len(batches)
        object.__setattr__(self, "batches", batches)
        object.__setattr__(self, "unlabeled",
                           _cells(self.unlabeled, "unlabeled", (2, 2), whole=True))
        object.__setattr__(self, "n", _cells(self.n, "n", (k, 2, 2, 2), whole=True))
        object.__setattr__(self, "w", _cells(self.w, "w", (k, 2, 2, 2), whole=False))
        object.__setattr__(self, "w2", _cells(self.w2, "w2", (k, 2, 2, 2), whole=False))
        tol = 1e-9 * (1.0 + self.n)
        if np.any(self.w < self.n - tol) or np.any(self.w2 < self.w - tol * 10):
            raise FairboundError("w: every weight 1 / pi must be at least 1 (pi in (0, 1]) "
                                 "and w2 the sum of their squares", param="w")
        lab = self.n.sum(axis=0)
        lab.setflags(write=False)
        object.__setattr__(self, "labeled", lab)

    @classmethod
    def from_arrays(cls, y, f, pred, *, probability, batch) -> WeightedPPICounts:
        """From per-row arrays (simulations and tests).

        Parameters
        ----------
        y : array_like
            Gold label 0/1, or -1 (or NaN) where the row has none.
        f, pred : array_like
            Proxy label and prediction, 0/1.
        probability : array_like
            ``pi`` of each labeled row in its batch (ignored elsewhere and for batch 0).
        batch : array_like
            Batch of each labeled row (0: uniform sample before weighting; ignored where
            ``y`` is missing).
        """
        y = np.asarray(y, dtype=float)
        f, pred = np.asarray(f, dtype=int), np.asarray(pred, dtype=int)
        pi = np.asarray(probability, dtype=float)
        b = np.asarray(batch, dtype=float)
        lab = np.isfinite(y) & (y >= 0)
        unl = np.zeros((2, 2))
        np.add.at(unl, (f[~lab], pred[~lab]), 1)
        yi, fi, pr, bi, pl = (y[lab].astype(int), f[lab], pred[lab], b[lab].astype(int),
                              pi[lab])
        batches = tuple(sorted(set(bi.tolist())))
        k = len(batches)
        n, w, w2 = (np.zeros((k, 2, 2, 2)) for _ in range(3))
        index = np.searchsorted(np.asarray(batches), bi)
        if 0 in batches:   # batch 0: a uniform sample of the whole group
            pl = np.where(bi == 0, (bi == 0).sum() / len(y), pl)
        np.add.at(n, (index, yi, fi, pr), 1)
        np.add.at(w, (index, yi, fi, pr), 1.0 / pl)
        np.add.at(w2, (index, yi, fi, pr), 1.0 / pl**2)
        return cls(unlabeled=unl, batches=batches, n=n, w=w, w2=w2)

    @property
    def n_labeled(self) -> int:
        """Rows with a gold label (all batches)."""
        return int(self.n.sum())

    @property
    def rows(self) -> int:
        """``M``: every row of the group."""
        return self.n_labeled + self.n_unlabeled

    def pooled(self, *others: WeightedPPICounts) -> WeightedPPICounts:
        """The union of this group and ``others`` (each-vs-rest): cells add batch by batch.

        Weights are kept as recorded, so the union is a probability sample of the pooled
        rows in every batch (batch 0's ``pi`` stays each group's own).
        """
        parts = (self, *others)
        batches = tuple(sorted({b for p in parts for b in p.batches}))
        k = len(batches)
        n, w, w2 = (np.zeros((k, 2, 2, 2)) for _ in range(3))
        for p in parts:
            idx = [batches.index(b) for b in p.batches]
            n[idx] += p.n
            w[idx] += p.w
            w2[idx] += p.w2
        return WeightedPPICounts(unlabeled=sum(p.unlabeled for p in parts), batches=batches,
                                 n=n, w=w, w2=w2)


def _per_cell(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A 2x2 table ``[y, pred]`` as gold and proxy values over labeled cells ``[y, f, pred]``."""
    return table[:, None, :] * np.ones((1, 2, 1)), table[None, :, :] * np.ones((2, 1, 1))


class _Design:
    """Batch sums of one group laid out for the estimators (arrays over batches)."""

    def __init__(self, c: WeightedPPICounts) -> None:
        if c.n_labeled < 2:
            raise NotEstimable("fewer than 2 gold-labeled rows")
        self.c = c
        self.M = float(c.rows)
        self.all_rows = c.labeled.sum(axis=0) + c.unlabeled      # [f, pred]
        sizes = c.n.sum(axis=(1, 2, 3))
        before = np.concatenate([[0.0], np.cumsum(sizes)[:-1]])
        self.rest = self.M - before                               # M_j
        self.old = np.cumsum(c.n, axis=0) - c.n                   # labeled before j
        self.beta = sizes / sizes.sum()
        self.sw = c.w.sum(axis=(1, 2, 3))
        self.v = np.maximum(c.w2 - c.w, 0.0)                      # (1 - pi) / pi^2 sums

    def hajek(self, r: np.ndarray) -> np.ndarray:
        """Per batch, the weighted mean of a cell value ``r[y, f, pred]``."""
        return (self.c.w * r).sum(axis=(1, 2, 3)) / self.sw

    def total(self, g: np.ndarray, lam: float) -> float:
        """``T(g)`` for a 2x2 table ``g[y, pred]``."""
        gy, gf = _per_cell(g)
        r = gy - lam * gf
        base = lam * float((self.all_rows * g).sum())
        old = (self.old * r).sum(axis=(1, 2, 3))
        t = (base + old + self.rest * self.hajek(r)) / self.M
        return float(self.beta @ t)

    def centred(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Gold and proxy cell values of ``g``, centred per batch by their Hajek means."""
        gy, gf = _per_cell(g)
        hy = gy[None] - self.hajek(gy)[:, None, None, None]
        hf = gf[None] - self.hajek(gf)[:, None, None, None]
        return hy, hf

    def design_var(self, g: np.ndarray, lam: float) -> float:
        """``sum_j beta_j^2 V_j`` of ``T(g)`` at ``lam``."""
        hy, hf = self.centred(g)
        vj = (self.v * (hy - lam * hf) ** 2).sum(axis=(1, 2, 3)) / self.M**2
        return float((self.beta**2) @ vj)

    def best_lambda(self, g: np.ndarray) -> float:
        """The ``lambda`` in ``[0, 1]`` that minimises the design variance of ``T(g)``."""
        hy, hf = self.centred(g)
        b2 = (self.beta**2)[:, None, None, None]
        den = float((b2 * self.v * hf * hf).sum())
        if not den > 0:
            return 0.0
        return min(max(float((b2 * self.v * hy * hf).sum()) / den, 0.0), 1.0)


def _ratio_parts(c: WeightedPPICounts, num, den, proxy: bool) -> tuple[float, float, float]:
    """(estimate, variance, lambda) of one group's ratio ``E[num] / E[den]``."""
    d = _Design(c)
    est, tv, lam = _tuned_ratio(d.total, d.best_lambda, num, den, proxy)
    h = num - est * den
    pop = max(d.total(h * h, lam) - d.total(h, lam) ** 2, 0.0) / d.M
    var = (d.design_var(h, lam) + pop) / tv**2
    return est, var, lam


@fill
def ipw_ratio_interval(counts: WeightedPPICounts, confidence_level: float = 0.95, *,
                       metric="tpr", proxy: bool = True) -> PPIInterval:
    """Weighted prediction-powered CLT interval for one group's rate.

    Parameters
    ----------
    counts : WeightedPPICounts
        The group's cells and batch weights.
    {{ppi_rate_parameters}}
    proxy : bool
        Use the proxy (tuned ``lambda``, default) or not (``lambda = 0``: the weighted
        labeled-only estimate).

    {{ppi_ratio_raises}}

    Examples
    --------
    Gold labels on a uniform sample of 100 of the group's 1,100 rows (batch 0 only,
    ``pi = 100 / 1100``):

    >>> import numpy as np
    >>> c = WeightedPPICounts(unlabeled=[[400, 60], [70, 470]], batches=(0,),
    ...                       n=[[[[40, 5], [4, 1]], [[2, 3], [6, 39]]]],
    ...                       w=[[[[440, 55], [44, 11]], [[22, 33], [66, 429]]]],
    ...                       w2=[[[[4840, 605], [484, 121]], [[242, 363], [726, 4719]]]])
    >>> r = ipw_ratio_interval(c, metric="tpr")
    >>> round(r.estimate, 3), round(r.low, 3), round(r.high, 3)
    (0.879, 0.807, 0.951)
    """
    return _rate_interval(counts, WeightedPPICounts, confidence_level, metric,
                          lambda g, num, den: _ratio_parts(g, num, den, bool(proxy)))


def ipw_ratio_gap_interval(a: WeightedPPICounts, b: WeightedPPICounts,
                           confidence_level: float = 0.95, *, metric="tpr",
                           proxy: bool = True) -> PPIInterval:
    """Weighted prediction-powered CLT interval for the gap ``rate_A - rate_B``.

    Each group's rate as in :func:`ipw_ratio_interval` (its own ``lambda``); independent
    groups, so the variances add.

    Raises
    ------
    NotEstimable
        Naming the group (A or B) that has fewer than 2 labeled rows or a denominator
        estimated at 0.
    """
    return _rate_gap_interval(a, b, WeightedPPICounts, confidence_level, metric,
                              lambda g, num, den: _ratio_parts(g, num, den, bool(proxy)))
