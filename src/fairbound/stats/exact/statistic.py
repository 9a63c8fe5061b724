"""The score statistic of ``p_A - p_B = delta`` and its restricted maximum-likelihood estimate.

Miettinen & Nurminen (1985) / Farrington & Manning (1990), without the ``N / (N - 1)``
factor; vectorised over tables and nulls.  The test of :mod:`fairbound.stats.exact` is
built on it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["restricted_mle", "score_statistic"]


def restricted_mle(x, y, n_a, n_b, delta):
    """Maximum-likelihood ``(p_A, p_B)`` under ``p_A - p_B = delta``.

    The closed-form root of the likelihood equation (a cubic), as given by Miettinen &
    Nurminen (1985) and Farrington & Manning (1990); broadcasts over all arguments.

    Parameters
    ----------
    x, y : array_like
        Counts of cost-``C`` examples in groups A and B.
    n_a, n_b : int
        Group sizes.
    delta : array_like
        Hypothesised ``p_A - p_B`` in ``[-1, 1]``.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``p_A`` and ``p_B``.

    Examples
    --------
    >>> pa, pb = restricted_mle(3, 5, 10, 10, 0.0)  # pooled under equality
    >>> round(float(pa), 6), round(float(pb), 6)
    (0.4, 0.4)
    """
    scalar = _all_scalar(x, y, delta)
    pa, pb = _mle(x, y, n_a, n_b, np.reshape(np.asarray(delta, float), 1) if scalar else delta)
    return (pa[0], pb[0]) if scalar else (pa, pb)


def _all_scalar(*args) -> bool:
    # np.ndim(v) == 0 for every argument, without np.ndim's overhead for numbers
    return all(isinstance(v, (float, int)) or (v.ndim == 0 if isinstance(v, np.ndarray)
                                               else np.ndim(v) == 0) for v in args)


def _mle(x, y, n_a, n_b, delta):
    """:func:`restricted_mle` for arguments of at least one dimension together.

    Speed: the statistic is evaluated on thousands of tables per null, so after the first
    array of the full (broadcast) shape every step writes into an existing buffer
    (``out=``) instead of allocating a temporary, and ``b3 * b3`` is formed once.  Each
    value is computed with the same operations in the same order as the plain formulas in
    the comments, so the results are the same bit for bit.
    """
    th = n_b / n_a
    p1 = x / n_a
    s = (x + y) / n_a                       # p1 + th * p2
    a = 1.0 + th
    # b = -(a + s + delta * (th + 2.0)) / a, then b3 = b / 3
    b3 = a + s + delta * (th + 2.0)
    np.negative(b3, out=b3)
    np.divide(b3, a, out=b3)
    np.divide(b3, 3.0, out=b3)
    # c = (delta * delta + delta * (2.0 * p1 + a) + s) / a
    c = delta * delta + delta * (2.0 * p1 + a) + s
    np.divide(c, a, out=c)
    # v = b3 * (b3 * b3 - 0.5 * c) - 0.5 * p1 * delta * (1.0 + delta) / a
    bb = b3 * b3
    v = np.multiply(0.5, c)
    np.subtract(bb, v, out=v)
    np.multiply(b3, v, out=v)
    np.subtract(v, 0.5 * p1 * delta * (1.0 + delta) / a, out=v)
    # u = copysign(sqrt(max(b3 * b3 - c / 3, 0)), v)
    np.divide(c, 3.0, out=c)
    u = np.subtract(bb, c, out=bb)
    np.maximum(u, 0.0, out=u)
    np.sqrt(u, out=u)
    np.copysign(u, v, out=u)
    # r = clip(v / (u * u * u), -1, 1), and 1 where u = 0
    r = np.multiply(u, u, out=c)
    np.multiply(r, u, out=r)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(v, r, out=r)
        np.maximum(r, -1.0, out=r)
        np.minimum(r, 1.0, out=r)
    np.copyto(r, 1.0, where=u == 0.0)
    # pa = 2 u cos((pi + arccos(r)) / 3) - b3, within [max(0, delta), min(1, 1 + delta)]
    np.arccos(r, out=r)
    np.add(np.pi, r, out=r)
    np.divide(r, 3.0, out=r)
    np.cos(r, out=r)
    pa = np.multiply(2.0, u, out=u)
    np.multiply(pa, r, out=pa)
    np.subtract(pa, b3, out=pa)
    np.maximum(pa, np.maximum(0.0, delta), out=pa)
    np.minimum(pa, np.minimum(1.0, 1.0 + delta), out=pa)
    return pa, pa - delta


def score_statistic(x, y, n_a, n_b, delta):
    """Score statistic of ``p_A - p_B = delta`` (Miettinen-Nurminen, no ``n/(n-1)``).

    ``(x/n_A - y/n_B - delta) / sqrt(pA~ qA~ / n_A + pB~ qB~ / n_B)`` with the restricted
    MLE of :func:`restricted_mle`; 0 where numerator and variance are both 0, and
    ``+-inf`` where only the variance is.

    Examples
    --------
    >>> round(float(score_statistic(7, 12, 15, 15, 0.0)), 4)  # pooled z at delta = 0
    -1.8943
    """
    scalar = _all_scalar(x, y, delta)
    if scalar:
        delta = np.reshape(np.asarray(delta, float), 1)
    pa, pb = _mle(x, y, n_a, n_b, delta)
    # var = pa (1 - pa) / n_a + pb (1 - pb) / n_b, in place (as in _mle)
    var = np.subtract(1.0, pa)
    np.multiply(pa, var, out=var)
    np.divide(var, n_a, out=var)
    q = np.subtract(1.0, pb, out=pa)
    np.multiply(pb, q, out=q)
    np.divide(q, n_b, out=q)
    np.add(var, q, out=var)
    num = x / n_a - y / n_b - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.sqrt(var, out=pb)
        np.divide(num, t, out=t)
    # the rare tables without variance: 0 or +-inf
    flat = ~(var > 0.0)
    if flat.any():
        np.copyto(t, np.where(num == 0.0, 0.0, np.copysign(np.inf, num)), where=flat)
    return t.reshape(()) if scalar else t
