"""The stratified bootstrap of a whole audit (:meth:`fairbound.audits.AuditResult.bootstrap`).

Every confusion-table metric is a function of the per-group confusion counts that an audit
keeps, so :func:`fairbound.stats.bootstrap.bootstrap_cells` (the core, on arrays) resamples
them; this module reads the audit's counts, metrics, orientation and pairs.
"""

from __future__ import annotations

from dataclasses import replace

from fairbound._validate import check_choice
from fairbound.audits.pairing import group_name, index_pairs
from fairbound.errors import FairboundError
from fairbound.stats.base import check_confidence_level
from fairbound.stats.bootstrap import (
    BOOTSTRAP_METHODS,
    BootstrapKind,
    BootstrapResult,
    _check_cells,
    _metric_items,
    _run,
    check_n_resamples,
)


def bootstrap_audit(
    result,
    *,
    n_resamples: int = 1000,
    confidence_level: float | None = None,
    method: BootstrapKind = "percentile",
    seed: int | None = None,
) -> BootstrapResult:
    """Vectorised stratified bootstrap of every confusion-table gap of an audit.

    Parameters
    ----------
    result : AuditResult
        An audit of labels and predictions (it holds the per-group confusion counts).
    n_resamples : int
        Number of resamples.
    confidence_level : float, optional
        Default: the audit's level.
    method : {'percentile', 'bca'}
        Marginal interval per gap.
    seed : int, optional
        Default: the audit's seed.

    Returns
    -------
    BootstrapResult
        One column per metric component, class and pair of the audit, in the audit's
        orientation (``group_b`` is ``'rest'`` for each-vs-rest audits).

    Notes
    -----
    Every metric is a function of the ``(G, K, K)`` confusion counts, so resampling the
    counts of each group (:func:`resample_cells`) is an exact row bootstrap stratified by
    group, and the max-|t| band covers every gap of the audit at once (asymptotically).
    Cost-column metrics are left out (they are not functions of the counts).

    Examples
    --------
    >>> import pandas as pd
    >>> from fairbound.audits import audit
    >>> df = pd.DataFrame({"g": list("aabb") * 50, "y": [1, 0] * 100,
    ...                    "p": [1, 0, 1, 1] * 50})
    >>> res = audit(df, group="g", label="y", prediction="p", metrics="false_positive_rate")
    >>> boot = bootstrap_audit(res, n_resamples=200)
    >>> boot.metric, boot.group_a, boot.group_b, float(boot.estimate[0])
    (('false_positive_rate',), ('a',), ('b',), 1.0)
    """
    conf = getattr(result, "confusion", None)
    if conf is None:
        raise FairboundError(
            "result must be an audit of labels and predictions (it holds no confusion "
            "counts); got an audit of a cost column",
            param="result",
        )
    arr = _check_cells(conf)
    names = [group_name(g) for g, _ in result.groups]
    if len(names) != arr.shape[0]:
        raise FairboundError(
            f"result has {len(names)} groups but confusion counts for {arr.shape[0]}",
            param="result",
        )
    classes = list(result.classes)
    if result.positive is not None:
        ks = [classes.index(result.positive)]
    else:
        ks = list(range(len(classes)))
    metrics = [m for m in result.metrics if m != "cost"]
    # the audit's orientation: who bears the cost depends on the favourable outcome
    items = _metric_items(metrics, arr.shape[1], ks,
                          getattr(result, "favourable", "positive"))
    pairs = index_pairs(names, result.comparisons)
    B = check_n_resamples(n_resamples)
    rho = check_confidence_level(result.confidence_level if confidence_level is None
                                 else confidence_level)
    check_choice(method, BOOTSTRAP_METHODS, "method")
    res = _run(arr, names, items, pairs, B, rho, method, result.seed if seed is None else seed)
    # report classes by their label values, as the audit does
    return replace(res, label=tuple(None if k is None else classes[k] for k in res.label))
