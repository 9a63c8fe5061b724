"""Multiplicity corrections: which of many gaps can be declared at once.

An audit of ``G`` groups and several metrics makes many comparisons; declaring every one
whose own test rejects at 5% finds spurious gaps.  :func:`adjust` takes one p-value or
e-value per comparison and returns adjusted decisions:

* ``'bonferroni'`` and ``'holm'`` (p-values): family-wise error rate (FWER) at
  ``1 - confidence_level`` under any dependence; Holm rejects at least as much.
* ``'bh'`` (p-values): Benjamini-Hochberg false discovery rate (FDR), valid for independent
  or positively dependent p-values.
* ``'e-holm'`` (e-values): closed testing with the arithmetic mean as the merging
  function (Vovk & Wang 2021): FWER under any dependence.
* ``'e-bh'`` (e-values): e-BH (Wang & Ramdas 2022): FDR under any dependence.

Every method reports ``adjusted`` on the p-value scale: comparison ``i`` is rejected
exactly when ``adjusted[i] <= 1 - confidence_level``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fairbound._validate import check_choice
from fairbound.errors import FairboundError
from fairbound.stats.base import check_confidence_level

P_METHODS = ("bonferroni", "holm", "bh")
E_METHODS = ("e-holm", "e-bh")
_ALIASES = {"fdr-bh": "bh", "benjamini-hochberg": "bh", "eholm": "e-holm", "ebh": "e-bh"}


@dataclass(frozen=True)
class MultiplicityResult:
    """Adjusted decisions for a family of comparisons.

    Attributes
    ----------
    reject : numpy.ndarray of bool
        Whether each comparison's "no gap" null is rejected.
    adjusted : numpy.ndarray
        Adjusted p-values (for e-value methods, ``1 / adjusted e-value`` for ``'e-holm'`` and
        the BH adjustment of ``1 / e`` for ``'e-bh'``); reject iff ``adjusted <= level``.
    values : numpy.ndarray
        The p-values or e-values given.
    method : str
    level : float
        ``1 - confidence_level``: the FWER or FDR controlled.
    error_rate : str
        ``'FWER'`` or ``'FDR'``.
    labels : tuple of str
    excluded : tuple of (str, str)
        Comparisons left out of the family (label, reason), e.g. not estimable.
    """

    reject: np.ndarray
    adjusted: np.ndarray
    values: np.ndarray
    method: str
    level: float
    error_rate: str
    labels: tuple[str, ...]
    excluded: tuple[tuple[str, str], ...] = ()

    @property
    def n_rejected(self) -> int:
        """Number of rejected comparisons."""
        return int(self.reject.sum())

    def to_frame(self):
        """One row per comparison, as a :class:`pandas.DataFrame`."""
        import pandas as pd

        kind = "e_value" if self.method in E_METHODS else "p_value"
        return pd.DataFrame(
            {"label": list(self.labels), kind: self.values, "adjusted": self.adjusted,
             "reject": self.reject}
        )

    def to_dict(self) -> dict:
        """JSON-ready summary."""
        return {
            "method": self.method, "level": self.level, "error_rate": self.error_rate,
            "rows": self.to_frame().to_dict(orient="records"),
            "excluded": [{"label": lab, "reason": why} for lab, why in self.excluded],
        }


def _check_method(method) -> str:
    """``method`` as one of :data:`P_METHODS` or :data:`E_METHODS` (aliases: ``'fdr_bh'``...)."""
    return check_choice(method, P_METHODS + E_METHODS, "method", fold=True, sep="-",
                        aliases=_ALIASES)


def _validate_adjust(values, method, confidence_level, labels):
    key = _check_method(method)
    try:
        v = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise FairboundError(f"values must be numbers; got {values!r}", param="values") from None
    if v.size == 0:
        raise FairboundError("values must hold at least one p-value or e-value; got none",
                             param="values")
    if np.isnan(v).any():
        raise FairboundError(
            f"values must not be NaN; got NaN at position {int(np.flatnonzero(np.isnan(v))[0])}"
            " (leave non-estimable comparisons out of the family)",
            param="values",
        )
    if key in P_METHODS:
        bad = (v < 0) | (v > 1)
        if bad.any():
            raise FairboundError(
                f"p-values must be in [0, 1]; got {float(v[bad][0])!r}", param="values"
            )
    else:
        bad = v < 0
        if bad.any():
            raise FairboundError(
                f"e-values must be >= 0; got {float(v[bad][0])!r}", param="values"
            )
    rho = check_confidence_level(confidence_level)
    if labels is None:
        names = tuple(str(i) for i in range(v.size))
    else:
        names = tuple(str(x) for x in labels)
        if len(names) != v.size:
            raise FairboundError(
                f"labels must have one entry per value ({v.size}); got {len(names)}",
                param="labels",
            )
    return v, key, 1.0 - rho, names


def _holm(p: np.ndarray) -> np.ndarray:
    m = p.size
    order = np.argsort(p, kind="stable")
    adj = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def _bh(p: np.ndarray) -> np.ndarray:
    m = p.size
    order = np.argsort(p, kind="stable")
    ranked = p[order] * m / np.arange(1, m + 1)
    adj = np.minimum.accumulate(ranked[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def e_holm_adjusted(e) -> np.ndarray:
    """Return adjusted e-values of closed testing with arithmetic-mean merging.

    ``e*_i = min over sets I containing i of mean(e_I)``; for a set size ``j + 1`` the
    minimum takes ``i`` with the ``j`` smallest other e-values, so the search is over ``j``
    only (Vovk & Wang 2021, sec. 5, Algorithm 1).

    Parameters
    ----------
    e : array_like
        Non-negative e-values.

    Returns
    -------
    numpy.ndarray
        Adjusted e-values, ``e*_i <= e_i``; reject ``i`` at FWER ``alpha`` when
        ``e*_i >= 1/alpha``.

    Examples
    --------
    >>> e_holm_adjusted([100.0, 30.0, 0.5]).round(2).tolist()
    [43.5, 15.25, 0.5]
    """
    e = np.asarray(e, dtype=float).ravel()
    K = e.size
    order = np.argsort(e, kind="stable")
    s = e[order]
    csum = np.concatenate(([0.0], np.cumsum(s)))
    rank = np.empty(K, dtype=np.int64)
    rank[order] = np.arange(K)
    j = np.arange(K)  # number of other e-values merged with e_i
    out = np.empty(K)
    for i in range(K):
        r = rank[i]
        # sum of the j smallest e-values other than e_i
        others = np.where(j <= r, csum[j], csum[np.minimum(j + 1, K)] - s[r])
        out[i] = np.min((e[i] + others) / (j + 1))
    return out


def adjust(
    values: Sequence[float] | np.ndarray,
    *,
    method: str = "holm",
    confidence_level: float = 0.95,
    labels: Sequence | None = None,
) -> MultiplicityResult:
    """Adjust a family of p-values or e-values for multiple comparisons.

    Parameters
    ----------
    values : array_like
        One p-value (methods ``'bonferroni'``, ``'holm'``, ``'bh'``) or one e-value
        (``'e-holm'``, ``'e-bh'``) per comparison.
    method : {'holm', 'bonferroni', 'bh', 'e-holm', 'e-bh'}
        The correction; see the module notes.
    confidence_level : float
        The FWER or FDR controlled is ``1 - confidence_level``.
    labels : sequence, optional
        Names of the comparisons, for the table.

    Returns
    -------
    MultiplicityResult
        ``reject``, ``adjusted`` (p-value scale) and the inputs.

    Notes
    -----
    Holm: sort ``p_(1) <= ... <= p_(m)``; the adjusted value of the ``k``-th is
    ``max_{j <= k} min(1, (m - j + 1) p_(j))``.  BH: ``min_{j >= k} min(1, m p_(j) / j)``.
    e-Holm rejects ``i`` when every mean of e-values over a set containing ``i`` is at
    least ``1/alpha``; since the mean of e-values is an e-value for the intersection null,
    this is a closed test and controls the FWER with no assumption on dependence.  e-BH
    rejects the ``k*`` largest e-values with ``k* = max{k : e_(k) >= m / (alpha k)}``
    (largest first), which equals BH applied to ``1/e``; it controls the FDR under any
    dependence.  Bonferroni, Holm and BH agree with ``statsmodels.stats.multitest
    .multipletests`` (checked in ``tests/stats/test_multiplicity.py``).

    References
    ----------
    S. Holm. "A simple sequentially rejective multiple test procedure." Scandinavian
    Journal of Statistics 6 (1979) 65-70.
    Y. Benjamini and Y. Hochberg. JRSS-B 57 (1995) 289-300.
    V. Vovk and R. Wang. "E-values: Calibration, combination and applications." Annals of
    Statistics 49 (2021) 1736-1754.
    R. Wang and A. Ramdas. "False discovery rate control with e-values." JRSS-B 84 (2022)
    822-852.

    Examples
    --------
    >>> res = adjust([0.01, 0.04, 0.03, 0.2], method="holm")
    >>> res.reject.tolist(), res.adjusted.round(2).tolist()
    ([True, False, False, False], [0.04, 0.09, 0.09, 0.2])
    >>> adjust([80.0, 45.0, 2.0, 0.3], method="e-bh").reject.tolist()
    [True, True, False, False]
    """
    v, key, level, names = _validate_adjust(values, method, confidence_level, labels)
    m = v.size
    if key == "bonferroni":
        adj = np.minimum(v * m, 1.0)
    elif key == "holm":
        adj = _holm(v)
    elif key == "bh":
        adj = _bh(v)
    elif key == "e-holm":
        with np.errstate(divide="ignore"):
            adj = np.minimum(1.0, 1.0 / e_holm_adjusted(v))
    else:  # e-bh
        with np.errstate(divide="ignore"):
            adj = _bh(np.minimum(1.0, 1.0 / v))
    # A tiny tolerance keeps values exactly at the level rejected despite rounding
    # (e.g. e = 1/alpha computed as 19.999999999999996).
    reject = adj <= level * (1.0 + 1e-12)
    rate = "FDR" if key in ("bh", "e-bh") else "FWER"
    return MultiplicityResult(reject=reject, adjusted=adj, values=v, method=key, level=level,
                              error_rate=rate, labels=names)
