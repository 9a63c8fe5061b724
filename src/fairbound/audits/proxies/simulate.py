"""Simulated audits with group probabilities: coverage of fairbound and of the shortcuts.

One data set (:func:`simulate_proxy_data`): ``n`` rows in ``cells`` proxy cells of equal
expected size, cell ``c`` holding group ``b`` with probability ``q_c`` (the
``Beta(0.85, 0.85)`` quantiles, so that the true group's probability separates the groups
with an AUC of about 0.85, like BISG for Black vs White); each row's probabilities are its
cell's (calibrated by construction).  The label is ``Bernoulli(base_rate)`` whatever the
group; the prediction has TPR ``tpr`` in group ``a`` and ``tpr - gap`` in group ``b``
(so the true TPR gap ``a - b`` is ``gap``) and FPR ``fpr`` in both.  A uniformly random
``annotated`` rows carry the true group.

:func:`coverage_study` runs many data sets through the statistical core and reports the
coverage and width of fairbound's prediction-powered interval, the annotated-only
interval, the bounds without annotations (which must contain the true gap), and two
shortcuts: the probability-weighted estimate and the threshold assignment (each row
assigned its most likely group, then a Wald interval), which are biased.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

__all__ = ["coverage_study", "simulate_proxy_data", "threshold_gap"]

TPR = ((0, 0, 0, 1), (0, 0, 1, 1))


def _cell_probs(cells: int, strength: float = 0.85) -> np.ndarray:
    from scipy.stats import beta

    return beta.ppf((np.arange(cells) + 0.5) / cells, strength, strength)


def simulate_proxy_data(n: int = 50_000, *, annotated: int = 1000, gap: float = 0.05,
                        tpr: float = 0.75, fpr: float = 0.2, base_rate: float = 0.4,
                        cells: int = 200, strength: float = 0.85, seed: int = 0,
                        frame: bool = True):
    """One simulated data set (see the module's description).

    ``strength`` is the ``a`` of the ``Beta(a, a)`` cell probabilities: 0.85 gives an AUC
    of 0.85; smaller values give stronger proxies (0.5: about 0.91, 0.25: about 0.96).

    Returns
    -------
    pandas.DataFrame or dict
        Columns ``p_a``, ``p_b`` (group probabilities), ``y``, ``pred``, ``cell``,
        ``group`` (the true group on annotated rows, ``None`` elsewhere) and
        ``true_group``; a dict of arrays with ``frame=False``.

    Examples
    --------
    >>> df = simulate_proxy_data(2000, annotated=100, seed=1)
    >>> int(df["group"].notna().sum()), sorted(df["true_group"].unique())
    (100, ['a', 'b'])
    """
    rng = np.random.default_rng(seed)
    q = _cell_probs(cells, strength)
    cell = rng.integers(0, cells, n)
    is_b = rng.random(n) < q[cell]
    y = rng.random(n) < base_rate
    rate = np.where(y, np.where(is_b, tpr - gap, tpr), fpr)
    pred = rng.random(n) < rate
    true = np.where(is_b, "b", "a")
    ann = np.zeros(n, dtype=bool)
    ann[rng.choice(n, size=min(annotated, n), replace=False)] = True
    out = {"p_a": 1.0 - q[cell], "p_b": q[cell], "y": y.astype(int),
           "pred": pred.astype(int), "cell": cell,
           "group": np.where(ann, true, None), "true_group": true}
    if not frame:
        return out
    import pandas as pd

    return pd.DataFrame(out)


def threshold_gap(prob_b, cell_index, level: float = 0.95) -> tuple[float, float, float]:
    """The shortcut: each row assigned its most likely group, then a Wald interval.

    Parameters
    ----------
    prob_b : array
        ``P(b | proxies)`` per row.
    cell_index : array
        Outcome cell ``2 y + y_hat`` per row.
    level : float
        Interval level.

    Returns
    -------
    (float, float, float)
        TPR gap ``a - b`` of the assigned groups, and its interval.
    """
    b = np.asarray(prob_b) > 0.5
    cell_index = np.asarray(cell_index)
    pos = cell_index >= 2
    hit = cell_index == 3
    na, nb = int((pos & ~b).sum()), int((pos & b).sum())
    ra, rb = hit[~b & pos].sum() / na, hit[b & pos].sum() / nb
    se = math.sqrt(ra * (1 - ra) / na + rb * (1 - rb) / nb)
    z = NormalDist().inv_cdf(0.5 + level / 2)
    return ra - rb, ra - rb - z * se, ra - rb + z * se


def _weighted_interval(prob, outcome, num, den, level):
    """The probability-weighted TPR gap ``a - b`` with its own delta-method interval.

    ``r_g = sum p_g c / sum p_g d`` over all rows, the standard error from the per-row
    linearisation (the shortcut's own sampling error, which ignores its bias).
    """
    c, d = num[outcome], den[outcome]
    psi = np.zeros(len(outcome))
    est = 0.0
    for j, sign in ((0, 1.0), (1, -1.0)):
        pd_ = prob[:, j] * d
        dd = pd_.mean()
        r = (prob[:, j] * c).mean() / dd
        est += sign * r
        psi += sign * prob[:, j] * (c - r * d) / dd
    se = psi.std() / math.sqrt(len(outcome))
    z = NormalDist().inv_cdf(0.5 + level / 2)
    return est, est - z * se, est + z * se


def coverage_study(sets: int = 300, *, n: int = 50_000, annotated: int = 1000,
                   gap: float = 0.05, cells: int = 200, strength: float = 0.85,
                   level: float = 0.95, boot: int = 100, seed: int = 0,
                   design: str = "uniform") -> dict:
    """Coverage of each interval over ``sets`` simulated data sets (TPR gap ``a - b``).

    ``design="proxy"`` draws the annotated rows as ``fairbound sample`` may (unequal
    probabilities, four times higher where ``|p_b - 0.5| < 0.3``, ``annotated`` rows
    expected) and weights them by ``1 / probability``.

    Returns
    -------
    dict
        For each of ``"ppi"``, ``"annotated_only"``, ``"bounds"`` (no annotated row, the
        cells), ``"threshold"`` and ``"weighted"`` (the probability-weighted estimate with
        its own delta-method interval, which ignores its bias): ``coverage``
        (share of sets whose interval holds the true gap), ``mean_width`` and
        ``mean_estimate`` (NaN for bounds); plus ``width_ratio`` (mean of the
        prediction-powered over annotated-only width) and ``binomial_p`` (one-sided exact
        binomial p-value of the prediction-powered coverage against ``level``).

    Examples
    --------
    >>> out = coverage_study(3, n=5000, annotated=300, boot=20)
    >>> sorted(out)[:3], 0 <= out["ppi"]["coverage"] <= 1
    (['annotated_only', 'binomial_p', 'bounds'], True)
    """
    from scipy import stats as st

    from fairbound.stats.proxy_groups import ProxyMoments, cell_bounds, ppi_gap

    num, den = (np.array(t, float) for t in TPR)
    keys = ("ppi", "annotated_only", "bounds", "threshold", "weighted")
    cover = {k: [] for k in keys}
    width = {k: [] for k in keys}
    est = {k: [] for k in keys}
    ratio = []
    for s in range(sets):
        d = simulate_proxy_data(n, annotated=annotated, gap=gap, cells=cells,
                                strength=strength, seed=seed + s, frame=False)
        prob = np.column_stack([d["p_a"], d["p_b"]])
        outcome = 2 * d["y"] + d["pred"]
        gi = np.where(d["group"] == "a", 0, np.where(d["group"] == "b", 1, -1))
        pi = None
        if design == "proxy":
            rng = np.random.default_rng(seed + s + 10**6)
            raw = np.where(np.abs(d["p_b"] - 0.5) < 0.3, 4.0, 1.0)
            pi = np.minimum(raw * annotated / raw.sum(), 1.0)
            drawn = rng.random(n) < pi
            truth = np.where(d["true_group"] == "a", 0, 1)
            gi = np.where(drawn, truth, -1)
        m = ProxyMoments.from_rows(prob, outcome, gi, pi)
        r = ppi_gap(m, [1, 0], [0, 1], num, den, level)
        rows = (("ppi", r.low, r.high, r.estimate),
                ("annotated_only", r.labeled_low, r.labeled_high, r.labeled_estimate))
        w = _weighted_interval(prob, outcome, num, den, level)
        t = threshold_gap(d["p_b"], outcome, level)
        counts = np.zeros((cells, 4))
        np.add.at(counts, (d["cell"], outcome), 1)
        q = _cell_probs(cells, strength)
        b = cell_bounds(counts, 1.0 - q, q, num, den, level, complement=True, boot=boot,
                        seed=s)
        rows += (("bounds", b.low_widened, b.high_widened, math.nan),
                 ("threshold", t[1], t[2], t[0]), ("weighted", w[1], w[2], w[0]))
        for k, lo, hi, e in rows:
            cover[k].append(lo <= gap <= hi)
            width[k].append(hi - lo)
            est[k].append(e)
        ratio.append((r.high - r.low) / (r.labeled_high - r.labeled_low))
    out: dict = {k: {"coverage": float(np.mean(cover[k])),
                     "mean_width": float(np.mean(width[k])),
                     "mean_estimate": float(np.mean(est[k])) if k != "bounds" else math.nan}
                 for k in keys}
    out["width_ratio"] = float(np.mean(ratio))
    hits = int(np.sum(cover["ppi"]))
    out["binomial_p"] = float(st.binomtest(hits, sets, level, alternative="less").pvalue)
    out["sets"] = sets
    return out
