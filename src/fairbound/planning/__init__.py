"""Sample-size planning: how much annotated data settles the question.

:func:`plan_bbu` solves Ethayarajh's (2020) Bernstein bound for whichever of ``n``,
``bias`` and ``confidence_level`` is missing, like ``statsmodels``' ``solve_power``.
With ``C = 1``, ``rho = 0.95``, ``gamma = 0.5`` and the worst-case variance
``(C/gamma)^2 = 4``, claiming a bias of 0.05 needs ``n > 11903`` annotated examples, 3.8
times the 3,160 sentences of WinoBias; with ``n = 3160`` the smallest claimable bias is
0.0975 (exact half-width 0.09742).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fairbound._validate import check_float, check_unknown
from fairbound.errors import FairboundError
from fairbound.stats import bernstein
from fairbound.stats.base import check_confidence_level, check_positive

WINOBIAS_N = 3160  # sentences in the first WinoBias release (Zhao et al. 2018)


@dataclass(frozen=True)
class BBUPlan:
    """A solved Bernstein plan.

    Attributes
    ----------
    n : float
        Annotated examples (real-valued; see :attr:`n_required`).
    bias : float
        Smallest claimable bias (half-width of the interval) at ``n``.
    confidence_level : float
        Confidence ``rho``.
    gamma, cost_max, variance, M : float
        Group-share lower bound, maximum cost ``C``, variance used and range constant.
    corrected : bool
        Whether the corrected range ``C/gamma + C`` was used.
    solved_for : str
        Which argument was missing.
    """

    n: float
    bias: float
    confidence_level: float
    gamma: float
    cost_max: float
    variance: float
    M: float
    corrected: bool
    solved_for: str

    @property
    def n_required(self) -> int:
        """Smallest whole number of examples strictly above the bound."""
        return int(math.floor(self.n)) + 1 if self.solved_for == "n" else int(self.n)

    @property
    def bias_rounded_up(self) -> float:
        """The claimable bias rounded up to 4 decimals (a conservative display value)."""
        return math.ceil(self.bias * 1e4 - 1e-9) / 1e4

    @property
    def winobias_ratio(self) -> float:
        """``n`` as a multiple of WinoBias' 3,160 sentences."""
        return self.n_required / WINOBIAS_N

    def curve(self, biases=None):
        """The n-vs-bias curve at this plan's confidence, gamma, C and variance.

        Parameters
        ----------
        biases : array-like, optional
            Bias values (default: 60 values from 0.01 to 0.3).

        Returns
        -------
        pandas.DataFrame
            Columns ``bias`` and ``n``.
        """
        return plan_curve(biases, confidence_level=self.confidence_level, gamma=self.gamma,
                          cost_max=self.cost_max, variance=self.variance,
                          corrected=self.corrected)

    def to_dict(self) -> dict:
        """Plain dictionary of the plan, with the derived display values."""
        return {
            "solved_for": self.solved_for, "n": self.n, "n_required": self.n_required,
            "bias": self.bias, "bias_rounded_up": self.bias_rounded_up,
            "confidence_level": self.confidence_level, "gamma": self.gamma,
            "cost_max": self.cost_max, "variance": self.variance, "M": self.M,
            "corrected": self.corrected, "winobias_ratio": self.winobias_ratio,
            "method": "bbu-corrected" if self.corrected else "bbu",
        }


def _validate_plan(n, bias, confidence_level, gamma, cost_max, variance):
    missing = check_unknown({"n": n, "bias": bias, "confidence_level": confidence_level})
    g = bernstein.check_gamma(gamma)
    C = check_positive(cost_max, "cost_max")
    if n is not None:
        n = check_float(n, "n", low=0.0, low_open=True, finite=False)
    if bias is not None:
        try:
            bias = float(bias)
        except (TypeError, ValueError):
            raise FairboundError(f"bias must be in (0, cost_max]; got {bias!r}",
                                 param="bias") from None
        if not (0 < bias <= C):
            raise FairboundError(f"bias must be in (0, {C:g}]; got {bias!r}", param="bias")
    if confidence_level is not None:
        confidence_level = check_confidence_level(confidence_level)
    if variance is None:
        variance = bernstein.worst_case_variance(C, g)
    else:
        try:
            variance = float(variance)
        except (TypeError, ValueError):
            raise FairboundError(f"variance must be a number >= 0; got {variance!r}",
                                 param="variance") from None
        if not variance >= 0:
            raise FairboundError(f"variance must be >= 0; got {variance!r}", param="variance")
    return missing, n, bias, confidence_level, g, C, variance


def plan_bbu(
    *,
    n: float | None = None,
    bias: float | None = None,
    confidence_level: float | None = None,
    gamma: float = 0.5,
    cost_max: float = 1.0,
    variance: float | None = None,
    corrected: bool = False,
) -> BBUPlan:
    """Solve the Bernstein (BBU) bound for the one argument that is ``None``.

    Parameters
    ----------
    n : float, optional
        Number of annotated examples.
    bias : float, optional
        Bias magnitude to claim (the interval's half-width).
    confidence_level : float, optional
        Confidence ``rho`` in (0, 1).
    gamma : float
        Lower bound on both groups' population shares, in (0, 0.5].
    cost_max : float
        Maximum cost ``C``.
    variance : float, optional
        Variance of the amortized disparity (default: worst case ``(C/gamma)^2``).
    corrected : bool
        Use the safe range ``C/gamma + C`` instead of the paper's ``C/gamma``.

    Returns
    -------
    BBUPlan

    Notes
    -----
    ``n > (2 sigma^2 + (2M/3) bias) (-log((1-rho)/2)) / bias^2`` (Ethayarajh 2020, with
    ``M = C/gamma``).  The claimable bias at a given ``n`` is the half-width of the BBU
    interval; the confidence at given ``n`` and bias inverts the tail bound.

    References
    ----------
    K. Ethayarajh. "Is Your Classifier Actually Biased? Measuring Fairness under
    Uncertainty with Bernstein Bounds." ACL 2020.

    Examples
    --------
    >>> plan_bbu(bias=0.05, confidence_level=0.95, gamma=0.5).n_required
    11903
    >>> p = plan_bbu(n=3160, confidence_level=0.95, gamma=0.5)
    >>> round(p.bias, 5), p.bias_rounded_up
    (0.09742, 0.0975)
    """
    solve, n, bias, rho, g, C, s2 = _validate_plan(n, bias, confidence_level, gamma, cost_max,
                                                   variance)
    M = bernstein.range_constant(C, g, corrected=corrected)
    if solve == "n":
        n = bernstein.required_n(bias, variance=s2, M=M, confidence_level=rho)
    elif solve == "bias":
        bias = bernstein.half_width(n, variance=s2, M=M, confidence_level=rho)
    else:
        rho = bernstein.achieved_confidence(n, bias, variance=s2, M=M)
    return BBUPlan(n=n, bias=bias, confidence_level=rho, gamma=g, cost_max=C, variance=s2,
                   M=M, corrected=corrected, solved_for=solve)


def plan_curve(
    biases=None,
    *,
    confidence_level: float = 0.95,
    gamma: float = 0.5,
    cost_max: float = 1.0,
    variance: float | None = None,
    corrected: bool = False,
):
    """Required ``n`` for each bias (the paper's Figure 2).

    Parameters
    ----------
    biases : array-like, optional
        Bias values (default: 60 values from 0.01 to 0.3).
    confidence_level, gamma, cost_max, variance, corrected
        As in :func:`plan_bbu`.

    Returns
    -------
    pandas.DataFrame
        Columns ``bias`` and ``n`` (smallest whole n above the bound).

    Examples
    --------
    >>> plan_curve([0.05, 0.1])["n"].tolist()
    [11903, 3001]
    """
    import pandas as pd

    if biases is None:
        biases = np.linspace(0.01, 0.3, 60)
    rows = [{"bias": float(b), "n": plan_bbu(bias=float(b), confidence_level=confidence_level,
                                            gamma=gamma, cost_max=cost_max, variance=variance,
                                            corrected=corrected).n_required}
            for b in np.asarray(biases, dtype=float)]
    return pd.DataFrame(rows)


__all__ = ["WINOBIAS_N", "BBUPlan", "plan_bbu", "plan_curve"]
