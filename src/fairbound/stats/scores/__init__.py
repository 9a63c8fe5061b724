"""Score-based audits from per-group score histograms: AUC, calibration, threshold sweeps.

One module per idea, every public name re-exported here (``from fairbound.stats.scores import
X`` works for all of them):

* :mod:`~fairbound.stats.scores.histogram` - binning rules and :class:`ScoreHistogram`;
* :mod:`~fairbound.stats.scores.roc` - the AUC (Mann-Whitney on the histogram), DeLong, ROC;
* :mod:`~fairbound.stats.scores.calibration` - calibration in the large and per bin;
* :mod:`~fairbound.stats.scores.sweep` - threshold sweeps with simultaneous bands.

A model that outputs a score ``s`` (a probability, a 1-10 risk decile, a logit) is audited
per group from one small table: for each distinct score value (or score bin), the number
of positive and negative examples and the sums of the scores (:class:`ScoreHistogram`).
The engines build it with one ``GROUP BY group, score_bin, label``
(:func:`fairbound.engines.scores.score_histograms`); :func:`histograms_from_counts` turns
their output into histograms.  Everything here is computed from histograms alone.

What each result estimates and what its interval guarantees
-----------------------------------------------------------
``auc`` - the Mann-Whitney AUC ``P(s+ > s-) + P(s+ = s-) / 2``; exact (equal to
    :func:`sklearn.metrics.roc_auc_score`) when the bins are the distinct scores.  DeLong's
    (1988) variance from the structural components, one per distinct value (ties count
    1/2).  Interval: Wald on the AUC or on ``logit(AUC)``; **asymptotic** (normal
    approximation of a U-statistic).  Binned scores give the binned AUC, labelled
    approximate, with the bound ``|AUC_binned - AUC_exact| <= 0.5 sum_b pos_b neg_b / (P N)``
    (only pairs inside one bin can be ordered differently, and each moves by at most 1/2).
``auc_gap`` - ``AUC_a - AUC_b`` for two independent groups: DeLong variances added
    (Wald), or the MOVER combination (Zou & Donner 2008) of the two logit intervals;
    **asymptotic**.
``calibration_in_the_large`` - ``mean(score) - mean(label)`` (positive: the scores
    over-predict); CLT interval from the sample variance of ``s - y``; **asymptotic**.
    ``calibration_in_the_large_gap`` - its difference between two groups, variances added.
``binned_calibration`` - per calibration bin ``j`` the target ``c_j = E[s | bin j] -
    P(y = 1 | bin j)`` with intervals that hold **simultaneously over the bins**
    (Bonferroni): a Wilson interval for the label rate and, when the scores vary within
    the bin, a CLT interval for the mean score (intersected with the bin's edges), joined
    by the union bound; **asymptotic** (Wilson and the CLT are).  The expected calibration
    error ``ECE = sum_j (n_j / n) |c_j|`` (weights: the observed shares) gets the interval
    implied by the per-bin family (the range of ``sum_j w_j |c_j|`` over the box of
    per-bin intervals), valid whenever the family is.  ``binned_calibration_gap``
    compares two groups bin by bin: both families at level ``1 - alpha / 2``, so every
    per-bin gap interval and the ECE-gap interval hold together with probability at least
    ``1 - alpha`` (asymptotically).
``threshold_sweep`` - at every threshold ``t`` (each distinct score or bin edge) the rate
    of ``s >= t`` per group (selection rate, TPR or FPR) and the gap between two groups,
    with a band **simultaneous over all thresholds**:

    * ``band="dkw"`` (default): the Dvoretzky-Kiefer-Wolfowitz inequality with Massart's
      (1990) constant, ``P(sup_t |S^(t) - S(t)| > eps) <= 2 exp(-2 n eps^2)``, holds for
      any distribution (ties and discrete scores included); with ``alpha / 2`` per group,
      both empirical survival functions lie within ``eps_g`` of the truth at every
      threshold at once, and the band is the interval arithmetic of the two (clipped to
      ``[0, 1]`` per rate).  **Finite-sample** valid at every threshold, observed or not.
    * ``band="sup-t"``: the studentized gap's maximum over the thresholds, its critical
      value simulated from the joint normal limit of the cumulative counts (the
      multinomial covariance estimated from the histogram).  Narrower in the middle of the
      score range; **asymptotic**, and only computed at thresholds where every group has
      at least ``min_count`` examples on each side (the normal approximation fails in the
      tails), elsewhere the band is NaN.

    ``established`` marks the thresholds whose band excludes 0: there, with the stated
    joint confidence, the rates differ.

Histograms with a bin of width zero (exact) or of known edges (binned) are the only
input; the engines never return rows.
"""

from __future__ import annotations

from fairbound._validate import check_bins
from fairbound.stats.scores._common import (
    BANDS,
    GUARANTEE_ASYMPTOTIC,
    GUARANTEE_FINITE,
    RATES,
    TRANSFORMS,
)
from fairbound.stats.scores.calibration import (
    BinnedCalibration,
    BinnedCalibrationGap,
    CalibrationGap,
    CalibrationInTheLarge,
    binned_calibration,
    binned_calibration_gap,
    calibration_in_the_large,
    calibration_in_the_large_gap,
)
from fairbound.stats.scores.histogram import (
    ScoreHistogram,
    assign_bins,
    binning_description,
    histograms_from_counts,
)
from fairbound.stats.scores.roc import (
    AUCGapResult,
    AUCResult,
    auc,
    auc_error_bound,
    auc_gap,
    auc_value,
    delong_variance,
    roc_curve,
)
from fairbound.stats.scores.sweep import (
    DEFAULT_MAX_THRESHOLDS,
    ThresholdSweep,
    dkw_epsilon,
    sweep_grid,
    threshold_sweep,
)

__all__ = ["BANDS", "DEFAULT_MAX_THRESHOLDS", "GUARANTEE_ASYMPTOTIC", "GUARANTEE_FINITE",
           "RATES", "TRANSFORMS", "AUCGapResult", "AUCResult", "BinnedCalibration",
           "BinnedCalibrationGap", "CalibrationGap", "CalibrationInTheLarge", "ScoreHistogram",
           "ThresholdSweep", "assign_bins", "auc", "auc_error_bound", "auc_gap", "auc_value",
           "binned_calibration", "binned_calibration_gap", "binning_description",
           "calibration_in_the_large", "calibration_in_the_large_gap", "check_bins",
           "delong_variance", "dkw_epsilon", "histograms_from_counts", "roc_curve",
           "sweep_grid", "threshold_sweep"]
