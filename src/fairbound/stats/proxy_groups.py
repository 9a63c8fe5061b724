"""Rates and gaps of groups that are not observed: group probabilities as proxies.

The protected attribute ``G`` is missing on most rows; every row carries probabilities
``p_g = P(G = g | proxies)`` (BISG, a name classifier, a model) and the outcome cell
``k = 2 y + y_hat`` (label and prediction are known on every row).  A rate of a side ``u``
(one group, or several pooled: a 0/1 vector over the groups) is a ratio of means

    r_u = E[z_u c_k] / E[z_u d_k],    z_u = sum_g u_g 1{G = g},

where ``d_k`` says whether cell ``k`` is in the rate's denominator (``y = 1`` for TPR) and
``c_k`` whether it is in its numerator (``y = 1`` and ``y_hat = 1``).  Two estimators live
here, both on sufficient statistics only (sums over outcome cells; no rows):

**Prediction-powered (a random annotated subset, :class:`ProxyMoments`).**  ``p_u c_k``
is the proxy of ``z_u c_k``; on the annotated rows the difference corrects its bias.  With
every row's probabilities known (``N`` rows) and ``n`` rows annotated with probability
``pi_i`` (``pi = n / N`` for a uniform sample; recorded by ``fairbound sample`` otherwise),
a mean ``E[Y]`` with proxy ``F`` is estimated by

    theta(lambda) = lambda mean_all(F) + sum_lab w (Y - lambda F) / sum_lab w,  w = 1 / pi

(Hajek form of the PPI++ estimator of Angelopoulos, Duchi & Zrnic 2023; ``lambda = 0`` is
the annotated-only estimator).  Its variance is ``Var(Y) / N`` (the population's own
sampling) plus the design variance ``sum_lab w (w - 1) (e - e_bar)^2 / (sum_lab w)^2`` of
the correction (``e = Y - lambda F``; for a uniform sample this is ``(1/n - 1/N) S_e^2``,
the simple-random-sampling variance).  A gap of two ratios is linearised (delta method)
into one per-row quantity ``Y = sum_g alpha_{k,g} z_g``, ``F = sum_g alpha_{k,g} p_g``
with ``alpha_{k,g} = u_g (c_k - r_a d_k) / D_a - v_g (c_k - r_b d_k) / D_b``; the sides may
share rows (each-vs-rest, or groups that are never disjoint because ``G`` is unknown), which
this linearisation counts.  ``lambda`` minimises the variance (``Cov(e) / Var(F)``,
clipped to ``[0, 1]``), as PPI++ power tuning does.

**Partial identification (no annotated row, discrete proxy cells, :func:`cell_bounds`).**
Within a proxy cell ``c`` (e.g. surname x tract) the marginals ``q_c(g) = P(G = g | c)``
and ``s_c(k) = P(k | c)`` are known but their joint is not: every coupling of the two is
consistent with the data.  The rate's outcome cells fall in three kinds: in numerator and
denominator (``A``), in the denominator only (``B``), outside it (``O``).  For side ``a``
and its complement (two groups, or one group against the rest) the gap depends on the
couplings only through ``D = P(G = a, denominator)`` and ``X = P(G = a, numerator)``;
each cell contributes a segment of the polygon ``{(D_c, X_c)}`` (``D_c`` between
``max(0, q - s_O)`` and ``min(q, s_A + s_B)``; ``X_c`` between ``max(0, D_c - s_B)`` and
``min(D_c, s_A)``), the aggregate is their Minkowski sum, and the gap
``X / D - (S_A - X) / (S_D - D)`` rises with ``X``; so its supremum lies on the upper hull
``X = X_0 + min(D - D_0, E_1)`` and its infimum on the lower hull, two linear pieces each,
and along a piece the gap has at most one stationary point (a closed form).  These are the
sharp bounds of the Frechet (transport-polytope) coupling cell by cell - what Kallus, Mao &
Zhou (2022, Management Science 68:1959-1981) characterise as the identified set of a
disparity with proxy cells and known ``P(G | cell)``, derived here directly and checked
against brute-force linear programs over every coupling (tests).  For two groups that are
not complements (pairwise among three or more) the set given is the difference of each
rate's own sharp bounds: valid, possibly wider than sharp.

Sampling uncertainty (the cells' outcome shares are estimated) widens the bounds as in
Imbens & Manski (2004): each bound moves out by ``z_{1 - alpha/2}`` bootstrap standard
errors, so that the reported set covers the **identified set** with probability at least
``1 - alpha`` (asymptotically), and so the true gap as well.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from fairbound.errors import FairboundError
from fairbound.stats.base import NotEstimable

#: Outcome cells, ``k = 2 y + y_hat``.
CELLS = ((0, 0), (0, 1), (1, 0), (1, 1))

__all__ = ["CELLS", "BoundsResult", "GapEstimate", "ProxyMoments", "calibration",
           "cell_bounds", "complement_bounds", "ppi_gap", "rate_bounds", "weighted_gap"]


def _z(level: float) -> float:
    return NormalDist().inv_cdf(0.5 + level / 2.0)


# --------------------------------------------------------------------------- moments
@dataclass(frozen=True)
class ProxyMoments:
    """Sufficient statistics of group probabilities, annotations and outcome cells.

    ``K`` groups, 4 outcome cells ``k = 2 y + y_hat``.  Sums over all rows, and over the
    annotated rows with two weights ``omega``: ``w = 1 / pi`` and ``w (w - 1)``
    (index 0 and 1 of the first axis).

    Attributes
    ----------
    n_all : ndarray (4,)
        Rows per outcome cell.
    p_all : ndarray (4, K)
        Sum of ``p_g`` per cell.
    w, z, p, zp : ndarray
        Annotated rows: ``sum omega`` (2, 4), ``sum omega z_g`` (2, 4, K),
        ``sum omega p_g`` (2, 4, K), ``sum omega z_g p_h`` (2, 4, K, K).
    pp : ndarray (2, 4, K, K)
        Annotated rows: ``sum omega p_g p_h``.
    n_labeled : int
        Annotated rows.
    """

    n_all: np.ndarray
    p_all: np.ndarray
    w: np.ndarray
    z: np.ndarray
    p: np.ndarray
    zp: np.ndarray
    pp: np.ndarray
    n_labeled: int

    @property
    def n(self) -> int:
        """All rows."""
        return int(round(float(self.n_all.sum())))

    @property
    def k(self) -> int:
        """Number of groups."""
        return self.p_all.shape[1]

    @classmethod
    def from_rows(cls, prob, cell, group=None, probability=None) -> ProxyMoments:
        """Statistics from per-row arrays (tests, simulations, in-memory data).

        Parameters
        ----------
        prob : array (N, K)
            Group probabilities.
        cell : array (N,)
            Outcome cell ``2 y + y_hat`` in 0..3.
        group : array (N,), optional
            Annotated group index in ``0..K-1``, ``-1`` where not annotated.
        probability : array (N,), optional
            Probability each annotated row was drawn with (``None``: a uniform sample).

        Examples
        --------
        >>> import numpy as np
        >>> m = ProxyMoments.from_rows(np.array([[0.2, 0.8], [0.6, 0.4]]), np.array([3, 0]),
        ...                            np.array([1, -1]))
        >>> m.n, m.n_labeled, m.z[0, 3].tolist()
        (2, 1, [0.0, 2.0])
        """
        prob = np.asarray(prob, dtype=float)
        cell = np.asarray(cell, dtype=int)
        n, k = prob.shape
        group = np.full(n, -1) if group is None else np.asarray(group, dtype=int)
        onehot = np.eye(4)[cell]                                   # (N, 4)
        lab = group >= 0
        nl = int(lab.sum())
        if probability is None:
            w = np.where(lab, n / max(nl, 1), 0.0)
        else:
            pi = np.asarray(probability, dtype=float)
            w = np.where(lab, 1.0 / np.where(lab, pi, 1.0), 0.0)
        omegas = np.stack([w, w * (w - 1.0)])                       # (2, N)
        z = np.zeros((n, k))
        z[lab, group[lab]] = 1.0
        return cls(
            n_all=onehot.sum(axis=0), p_all=onehot.T @ prob,
            w=omegas @ onehot,
            z=np.einsum("wn,nc,ng->wcg", omegas, onehot, z),
            p=np.einsum("wn,nc,ng->wcg", omegas, onehot, prob),
            zp=np.einsum("wn,nc,ng,nh->wcgh", omegas, onehot, z, prob),
            pp=np.einsum("wn,nc,ng,nh->wcgh", omegas, onehot, prob, prob),
            n_labeled=nl)

    def pooled(self, other: ProxyMoments) -> ProxyMoments:
        """Sums of two disjoint sets of rows (chunks of one scan)."""
        return ProxyMoments(*(getattr(self, f) + getattr(other, f) for f in
                              ("n_all", "p_all", "w", "z", "p", "zp", "pp", "n_labeled")))


def _sums(m: ProxyMoments, alpha: np.ndarray):
    """Sums over annotated rows of ``Y``, ``F`` and their products, and ``mean_all(F)``.

    Per weight (``w``, ``w (w - 1)``); ``alpha`` is (4, K).
    """
    sy = np.einsum("wcg,cg->w", m.z, alpha)
    sf = np.einsum("wcg,cg->w", m.p, alpha)
    syy = np.einsum("wcg,cg->w", m.z, alpha**2)               # z one-hot: z_g z_h = d z_g
    syf = np.einsum("wcgh,cg,ch->w", m.zp, alpha, alpha)
    sff = np.einsum("wcgh,cg,ch->w", m.pp, alpha, alpha)
    fall = float(np.einsum("cg,cg->", m.p_all, alpha)) / max(m.n, 1)
    return sy, sf, syy, syf, sff, fall


def _mean(m: ProxyMoments, alpha: np.ndarray, lam: float) -> float:
    sy, sf, _, _, _, fall = _sums(m, alpha)
    if m.n_labeled == 0:
        return fall
    return lam * fall + (sy[0] - lam * sf[0]) / m.w[0].sum()


def _variance(m: ProxyMoments, alpha: np.ndarray):
    """``(v_pop, vy, cyf, vf)``: ``Var(Y) / N`` and the design quadratic in ``lambda``."""
    sy, sf, syy, syf, sff, _ = _sums(m, alpha)
    sw = float(m.w[0].sum())
    sv = float(m.w[1].sum())
    ybar, fbar = sy[0] / sw, sf[0] / sw
    v_pop = max(syy[0] / sw - ybar**2, 0.0) / max(m.n, 1)
    vy = syy[1] - 2 * ybar * sy[1] + ybar**2 * sv
    cyf = syf[1] - ybar * sf[1] - fbar * sy[1] + ybar * fbar * sv
    vf = sff[1] - 2 * fbar * sf[1] + fbar**2 * sv
    return v_pop, max(vy, 0.0) / sw**2, cyf / sw**2, max(vf, 0.0) / sw**2


def _alpha_side(u, num, den, coef_num: float, coef_den: float) -> np.ndarray:
    return np.outer(coef_num * np.asarray(num, float) + coef_den * np.asarray(den, float),
                    np.asarray(u, float))


def _ratio(m, u, num, den, lam):
    nn = _mean(m, _alpha_side(u, num, den, 1.0, 0.0), lam)
    dd = _mean(m, _alpha_side(u, num, den, 0.0, 1.0), lam)
    return nn, dd


def _linearised(m, ua, ub, num, den, lam):
    """Gap (or rate with ``ub=None``) at ``lambda`` and its per-row coefficients."""
    na, da = _ratio(m, ua, num, den, lam)
    if da <= 0:
        raise NotEstimable("a side has no rows in this rate's denominator")
    ra = na / da
    alpha = _alpha_side(ua, num, den, 1.0 / da, -ra / da)
    if ub is None:
        return ra, alpha, ra, math.nan
    nb, db = _ratio(m, ub, num, den, lam)
    if db <= 0:
        raise NotEstimable("a side has no rows in this rate's denominator")
    rb = nb / db
    alpha = alpha - _alpha_side(ub, num, den, 1.0 / db, -rb / db)
    return ra - rb, alpha, ra, rb


@dataclass(frozen=True)
class GapEstimate:
    """One rate or gap: prediction-powered and annotated-only, with the labels needed.

    Attributes
    ----------
    estimate, low, high, std_error : float
        The prediction-powered (PPI++) gap ``r_a - r_b`` (or a rate) and interval.
    rate_a, rate_b : float
        The sides' rates (``rate_b`` NaN for a single rate).
    lam : float
        The power-tuning ``lambda``.
    labeled_estimate, labeled_low, labeled_high, labeled_std_error : float
        From the annotated rows alone (``lambda = 0``).
    needed, needed_labeled_only : float
        Annotated rows (drawn as these were) with which the interval at this level would
        exclude 0 if the prediction-powered estimate were the truth (both planned at that
        same gap); ``inf`` when even annotating every row
        would not; NaN for a single rate.
    """

    estimate: float
    low: float
    high: float
    std_error: float
    rate_a: float
    rate_b: float
    lam: float
    labeled_estimate: float
    labeled_low: float
    labeled_high: float
    labeled_std_error: float
    needed: float
    needed_labeled_only: float


def _needed(m: ProxyMoments, gap: float, v_pop: float, design: float, level: float) -> float:
    """Annotated rows at which ``z se = |gap|``: design variance scales as ``1/n - 1/N``."""
    if not math.isfinite(gap) or not math.isfinite(design):
        return math.nan
    z = _z(level)
    n_now, n_all = m.n_labeled, m.n
    if gap == 0 or n_now >= n_all:
        return math.inf
    s2 = design / (1.0 / n_now - 1.0 / n_all)
    room = (gap / z) ** 2 - v_pop
    if room <= 0 or s2 <= 0:
        return math.inf if room <= 0 else float(n_now)
    need = 1.0 / (room / s2 + 1.0 / n_all)
    return math.inf if need > n_all else float(max(n_now, math.ceil(need)))


def ppi_gap(m: ProxyMoments, ua, ub, num, den, level: float,
            lam: float | None = None) -> GapEstimate:
    """Prediction-powered interval of ``r_a - r_b`` (or of ``r_a`` with ``ub=None``).

    Parameters
    ----------
    m : ProxyMoments
        The sufficient statistics (at least 2 annotated rows).
    ua, ub : array (K,)
        The sides as 0/1 vectors over the groups (``ub`` may be ``None``).
    num, den : array (4,)
        Whether each outcome cell ``2 y + y_hat`` is in the rate's numerator and
        denominator (TPR: ``[0, 0, 0, 1]`` and ``[0, 0, 1, 1]``).
    level : float
        Confidence level of this interval.
    lam : float, optional
        Fix ``lambda`` (default: tuned, clipped to ``[0, 1]``).

    Returns
    -------
    GapEstimate

    Raises
    ------
    NotEstimable
        Fewer than 2 annotated rows, or an empty denominator.

    Examples
    --------
    Probabilities that are the group itself (a perfect proxy) give the annotated-only
    point estimate's target with a narrower interval:

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> g = rng.integers(0, 2, 4000)
    >>> y = rng.integers(0, 2, 4000); yh = rng.integers(0, 2, 4000)
    >>> lab = np.where(rng.random(4000) < 0.1, g, -1)
    >>> m = ProxyMoments.from_rows(np.eye(2)[g], 2 * y + yh, lab)
    >>> r = ppi_gap(m, [1, 0], [0, 1], [0, 0, 0, 1], [0, 0, 1, 1], 0.95)
    >>> bool(r.high - r.low < r.labeled_high - r.labeled_low), round(r.lam, 2)
    (True, 1.0)
    """
    if m.n_labeled < 2:
        raise NotEstimable("fewer than 2 annotated rows")
    z = _z(level)
    # labeled-only (lambda = 0)
    lest, lalpha, _, _ = _linearised(m, ua, ub, num, den, 0.0)
    lv_pop, lvy, _, _ = _variance(m, lalpha)
    lse = math.sqrt(lv_pop + lvy)
    if lam is None:
        # PPI++: lambda tuned at the lambda = 1 linearisation, then the estimate at it
        _, alpha1, _, _ = _linearised(m, ua, ub, num, den, 1.0)
        _, _, cyf, vf = _variance(m, alpha1)
        lam = float(np.clip(cyf / vf, 0.0, 1.0)) if vf > 0 else 0.0
    est, alpha, ra, rb = _linearised(m, ua, ub, num, den, lam)
    v_pop, vy, cyf, vf = _variance(m, alpha)
    design = max(vy - 2 * lam * cyf + lam**2 * vf, 0.0)
    se = math.sqrt(v_pop + design)
    single = ub is None
    return GapEstimate(
        estimate=est, low=est - z * se, high=est + z * se, std_error=se, rate_a=ra,
        rate_b=rb, lam=lam, labeled_estimate=lest, labeled_low=lest - z * lse,
        labeled_high=lest + z * lse, labeled_std_error=lse,
        needed=math.nan if single else _needed(m, est, v_pop, design, level),
        needed_labeled_only=math.nan if single else _needed(m, est, lv_pop, lvy, level))


def weighted_gap(m: ProxyMoments, ua, ub, num, den) -> tuple[float, float, float]:
    """The probability-weighted estimate ``(gap, r_a, r_b)`` over all rows.

    ``r_u = sum p_u c / sum p_u d``: Chen, Kallus, Mao, Svacha & Udell (2019) show it is
    biased whenever the outcome and the group are dependent given the proxies (its bias
    is a conditional covariance); shown beside the answer, never as it.
    """
    p_all = m.p_all

    def rate(u):
        pu = p_all @ np.asarray(u, float)
        d = float(np.asarray(den, float) @ pu)
        return float(np.asarray(num, float) @ pu) / d if d > 0 else math.nan

    ra = rate(ua)
    rb = math.nan if ub is None else rate(ub)
    return (ra if ub is None else ra - rb), ra, rb


# --------------------------------------------------------------------------- calibration
def calibration(count, observed, predicted) -> tuple[float, float, float]:
    """Calibration of one group's probabilities on the annotated rows, by bins.

    Parameters
    ----------
    count, observed, predicted : array (bins,)
        Per bin of ``p_g``: (weighted) annotated rows, rows annotated as ``g``, and the
        sum of ``p_g``.

    Returns
    -------
    (float, float, float)
        Mean probability, observed share, and the Hosmer-Lemeshow p-value (chi-square
        with one degree of freedom per non-empty bin: the probabilities were not fitted on
        these rows); NaN without annotated rows.

    Examples
    --------
    >>> mean_p, share, p = calibration([100, 100], [10, 80], [10.0, 80.0])
    >>> round(mean_p, 2), round(share, 2), round(p, 3)
    (0.45, 0.45, 1.0)
    """
    from scipy import stats as st

    n = np.asarray(count, float)
    o = np.asarray(observed, float)
    e = np.asarray(predicted, float)
    tot = n.sum()
    if tot <= 0:
        return math.nan, math.nan, math.nan
    keep = n > 0
    pbar = e[keep] / n[keep]
    var = n[keep] * pbar * (1 - pbar)
    ok = var > 1e-12
    diff = (o[keep] - e[keep])
    stat = float((diff[ok] ** 2 / var[ok]).sum())
    if np.any(~ok & (np.abs(diff) > 1e-9)):
        stat = math.inf
    df = int(ok.sum())
    p = float(st.chi2.sf(stat, df)) if df else math.nan
    return float(e.sum() / tot), float(o.sum() / tot), p


# --------------------------------------------------------------------------- bounds
def _kinds(counts, num, den):
    """Per cell shares of the three outcome kinds ``(A, B, O)``, shape (..., C, 3)."""
    num = np.asarray(num, float)
    den = np.asarray(den, float)
    if np.any(num > den):
        raise FairboundError("metric: a numerator cell outside the denominator", param="metric")
    counts = np.asarray(counts, float)
    n = counts.sum(axis=-1, keepdims=True)
    share = np.divide(counts, n, out=np.zeros_like(counts), where=n > 0)
    a = share @ num
    b = share @ (den - num)
    return np.stack([a, b, 1.0 - a - b], axis=-1), n[..., 0]


def _hulls(P, q, s):
    """Breakpoints ``(D, X)`` of the upper and lower hulls of the aggregate polygon.

    Broadcasts over leading axes; ``P`` (..., C), ``q`` (C,), ``s`` (..., C, 3).
    """
    sa, sb, so = s[..., 0], s[..., 1], s[..., 2]
    low = np.maximum(0.0, q - so)
    up = np.maximum(np.minimum(q, sa + sb), low)
    d0 = (P * low).sum(-1)
    dmax = (P * up).sum(-1)
    xu0 = (P * np.minimum(low, sa)).sum(-1)
    e1 = (P * np.maximum(0.0, np.minimum(up, sa) - low)).sum(-1)
    xl0 = (P * np.maximum(0.0, low - sb)).sum(-1)
    e0 = (P * np.maximum(0.0, np.minimum(up, np.maximum(low, sb)) - low)).sum(-1)
    upper = ((d0, xu0), (d0 + e1, xu0 + e1), (dmax, xu0 + e1))
    lower = ((d0, xl0), (d0 + e0, xl0), (dmax, xl0 + (dmax - d0 - e0)))
    return upper, lower, dmax


def _gap_on_piece(p1, p2, sA, sD, best):
    """Extreme of the gap ``X/D - (S_A - X)/(S_D - D)`` along the segment ``p1 -> p2``.

    ``best`` is ``np.maximum`` or ``np.minimum``; the candidates are the ends and the one
    stationary point.
    """
    (d1, x1), (d2, x2) = p1, p2
    eps = 1e-12
    span = d2 - d1
    beta = np.divide(x2 - x1, span, out=np.zeros_like(np.asarray(span, float)),
                     where=np.abs(span) > eps)
    alpha = x1 - beta * d1

    def f(d):
        d = np.clip(d, eps, sD - eps)
        x = alpha + beta * d
        return x / d - (sA - x) / (sD - d)

    kappa = alpha + beta * sD - sA
    same = alpha * kappa > 0
    ra, rk = np.sqrt(np.abs(alpha)), np.sqrt(np.abs(kappa))
    dstar = np.where(same, sD * ra / np.where(ra + rk > 0, ra + rk, 1.0), d1)
    inside = same & (dstar > d1) & (dstar < d2)
    cand = [f(d1), f(d2), np.where(inside, f(dstar), f(d1))]
    out = cand[0]
    for c in cand[1:]:
        out = best(out, c)
    return out


@dataclass(frozen=True)
class BoundsResult:
    """Bounds on a gap (or rate) from proxy cells, estimated and widened.

    Attributes
    ----------
    low, high : float
        The estimated identified set (sharp for complements, else outer).
    low_widened, high_widened : float
        Widened for sampling uncertainty (covers the identified set at ``level``).
    sharp : bool
        Whether ``[low, high]`` is the sharp set.
    se_low, se_high : float
        Bootstrap standard errors of the two ends.
    """

    low: float
    high: float
    low_widened: float
    high_widened: float
    sharp: bool
    se_low: float
    se_high: float


def complement_bounds(P, q, s):
    """Sharp bounds on ``r_a - r_not_a`` (closed form; see the module's description).

    Parameters
    ----------
    P : array (..., C)
        Share of rows in each proxy cell.
    q : array (C,)
        ``P(G = a | cell)``.
    s : array (..., C, 3)
        Per cell, the shares of the outcome kinds (numerator, denominator only, outside).

    Returns
    -------
    (ndarray, ndarray)
        Lower and upper bound (NaN where a side's denominator is empty under every
        coupling).

    Examples
    --------
    One cell, half the rows in group a, TPR with base rate 0.5 and 0.6 of positives
    predicted positive: the group could hold all positives or none of them.

    >>> import numpy as np
    >>> lo, hi = complement_bounds(np.array([1.0]), np.array([0.5]),
    ...                            np.array([[0.3, 0.2, 0.5]]))
    >>> float(lo), float(hi)
    (-1.0, 1.0)
    """
    P = np.asarray(P, float)
    s = np.asarray(s, float)
    upper, lower, _ = _hulls(P, np.asarray(q, float), s)
    sA = (P * s[..., 0]).sum(-1)
    sD = (P * (s[..., 0] + s[..., 1])).sum(-1)
    hi = np.maximum(_gap_on_piece(upper[0], upper[1], sA, sD, np.maximum),
                    _gap_on_piece(upper[1], upper[2], sA, sD, np.maximum))
    lo = np.minimum(_gap_on_piece(lower[0], lower[1], sA, sD, np.minimum),
                    _gap_on_piece(lower[1], lower[2], sA, sD, np.minimum))
    return np.clip(lo, -1.0, 1.0), np.clip(hi, -1.0, 1.0)


def rate_bounds(P, q, s):
    """Sharp bounds on one side's rate ``X / D`` (a linear-fractional, extreme at vertices).

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = rate_bounds(np.array([1.0]), np.array([0.2]), np.array([[0.3, 0.2, 0.5]]))
    >>> float(lo), float(hi)
    (0.0, 1.0)
    """
    P = np.asarray(P, float)
    s = np.asarray(s, float)
    upper, lower, _ = _hulls(P, np.asarray(q, float), s)
    eps = 1e-12

    def r(pt):
        d, x = pt
        return np.where(d > eps, x / np.maximum(d, eps), np.where(x > 0, 1.0, np.nan))

    hi = np.fmax(np.fmax(r(upper[0]), r(upper[1])), r(upper[2]))
    # at D -> 0 along a slope-1 upper piece the rate tends to 1
    hi = np.where((upper[0][0] <= eps) & (upper[1][0] > upper[0][0] + eps), 1.0, hi)
    lo = np.fmin(np.fmin(r(lower[0]), r(lower[1])), r(lower[2]))
    lo = np.where((lower[0][0] <= eps) & (lower[1][0] > lower[0][0] + eps), 0.0, lo)
    return np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)


def _gap_bounds(counts, q_a, q_b, num, den, complement: bool):
    s, n = _kinds(counts, num, den)
    tot = n.sum(-1, keepdims=True)
    P = n / np.where(tot > 0, tot, 1.0)
    if complement:
        return complement_bounds(P, q_a, s)
    la, ha = rate_bounds(P, q_a, s)
    if q_b is None:
        return la, ha
    lb, hb = rate_bounds(P, q_b, s)
    return la - hb, ha - lb


def cell_bounds(counts, q_a, q_b, num, den, level: float, *, complement: bool,
                boot: int = 200, seed: int = 0) -> BoundsResult:
    """Bounds on ``r_a - r_b`` (or ``r_a``, ``q_b=None``) from proxy cells, widened.

    Parameters
    ----------
    counts : array (C, 4)
        Rows per proxy cell and outcome cell ``2 y + y_hat``.
    q_a, q_b : array (C,)
        ``P(side | cell)`` of each side (``q_b`` ignored when ``complement``).
    num, den : array (4,)
        The rate's numerator and denominator cells.
    level : float
        Level at which the widened set covers the identified set.
    complement : bool
        Whether side b is every row not in side a (sharp bounds); otherwise each rate's
        own bounds are combined (outer bounds).
    boot, seed : int
        Multinomial bootstrap replicates of the counts, and their seed.

    Returns
    -------
    BoundsResult

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[40, 10, 10, 40], [10, 40, 40, 10]])
    >>> b = cell_bounds(counts, np.array([0.9, 0.1]), None, [0, 0, 0, 1], [0, 0, 1, 1],
    ...                 0.95, complement=True)
    >>> bool(b.low_widened <= b.low <= b.high <= b.high_widened), b.sharp
    (True, True)
    """
    counts = np.asarray(counts, float)
    lo, hi = (float(v) for v in _gap_bounds(counts, q_a, q_b, num, den, complement))
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise NotEstimable("a side's denominator is empty under every coupling")
    total = int(round(counts.sum()))
    rng = np.random.default_rng(seed)
    flat = counts.ravel() / counts.sum()
    draws = rng.multinomial(total, flat, size=boot).reshape((boot, *counts.shape))
    blo, bhi = _gap_bounds(draws, q_a, q_b, num, den, complement)
    se_lo = float(np.nanstd(blo, ddof=1)) if boot > 1 else 0.0
    se_hi = float(np.nanstd(bhi, ddof=1)) if boot > 1 else 0.0
    z = _z(level)
    floor = -1.0 if q_b is not None or complement else 0.0
    return BoundsResult(low=lo, high=hi, low_widened=max(lo - z * se_lo, floor),
                        high_widened=min(hi + z * se_hi, 1.0), sharp=bool(complement),
                        se_low=se_lo, se_high=se_hi)
