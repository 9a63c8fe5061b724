"""The metric registry: every fairness metric is a cost plus the rows it is computed on.

A metric has one or more *components*.  A component maps a confusion array ``conf`` whose
last three axes are (group, true label, prediction) to the per-group number of rows in its
denominator ``n`` and the number of those rows with cost 1.  The functions are vectorised
over any leading axes, so resampled confusion arrays of shape ``(B, G, K, K)`` work as they
are.  For multi-class labels every component is evaluated one-vs-rest for each class ``k``
(Jourdan et al. 2023): ``GP = P(yhat = k | g)``, ``TPR = P(yhat = k | y = k, g)``,
``PP = P(y = k | yhat = k, g)``.

Costs follow Ethayarajh (2020): a positive gap ``E_A[cost] - E_B[cost]`` means group A
bears more cost, i.e. is disadvantaged.  Each component also names the familiar *rate*
(selection rate, TPR, ...) and whether the rate is the cost itself or ``1 - cost``.

``equalized_odds_cost`` is one reading of the paper's cost for equalized odds (Ethayarajh
2020, section 2: "The annotation function would be the same as for equal opportunity but the
cost would have to account for differences in false positive rates as well. This could be
done by letting c be the zero-one loss."): one zero-one cost, ``1`` when ``y_hat != y``, on
every row, audited as a mean gap (the gap in error rate).  Read that way it is *exactly*
``accuracy_parity`` (the same counts, the same numbers).  Read literally, the annotation
function of equal opportunity keeps only the rows with ``y = 1``; there the zero-one loss is
``1 - y_hat`` and the metric collapses to ``equal_opportunity``.  Neither reading is
equalized odds: a TPR gap and an FPR gap of opposite signs can cancel in the error rate (on
COMPAS the error-rate gap is inconclusive while both the TPR and the FPR gaps show a
disadvantage).  For equalized odds use ``equalized_odds``: the TPR and FPR gaps with
simultaneous intervals.  The metric is kept, with these numbers, for the paper's sake, and
every result row for it carries :data:`EQUALIZED_ODDS_COST_NOTE`.  Ethayarajh, "Is Your
Classifier Actually Biased? Measuring Fairness under Uncertainty with Bernstein Bounds",
ACL 2020.

Who bears a cost depends on whether the positive prediction is *favourable* (a loan
granted, a candidate hired) or *harmful* (flagged as high risk, content removed).  Every
component is registered for a favourable positive class: the cost of a person is not getting
the favourable outcome (``1 - [y_hat = k]``) among the component's rows, so a group with a
lower selection rate, TPR or FPR bears more cost, and for predictive parity a group whose
positive predictions are *more* often right (higher precision) is held to a stricter
standard and bears the cost.  :func:`oriented` turns a component round for a harmful
positive class (``favourable="negative"``): the cost becomes ``[y_hat = k]`` (and
``[y != k]`` among predicted positives for precision), so a higher FPR or TPR is then the
heavier burden.  Accuracy is the same either way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fairbound._validate import check_choice
from fairbound.errors import FairboundError

CountFunc = Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray]]


def _selection(conf: np.ndarray, k: int):
    n = conf.sum(axis=(-2, -1))
    return n, n - conf[..., :, :, k].sum(axis=-1)


def _tpr(conf: np.ndarray, k: int):
    n = conf[..., :, k, :].sum(axis=-1)
    return n, n - conf[..., :, k, k]


def _fpr(conf: np.ndarray, k: int):
    n = conf.sum(axis=(-2, -1)) - conf[..., :, k, :].sum(axis=-1)
    return n, n - (conf[..., :, :, k].sum(axis=-1) - conf[..., :, k, k])


def _fnr(conf: np.ndarray, k: int):
    n = conf[..., :, k, :].sum(axis=-1)
    return n, n - conf[..., :, k, k]


def _precision(conf: np.ndarray, k: int):
    n = conf[..., :, :, k].sum(axis=-1)
    return n, conf[..., :, k, k]


def _accuracy(conf: np.ndarray, k: int):
    n = conf.sum(axis=(-2, -1))
    return n, n - np.trace(conf, axis1=-2, axis2=-1)


def _zero_one(conf: np.ndarray, k: int):
    """Ethayarajh's (2020) equalized-odds cost, read over all rows: ``[y_hat != y]``.

    The cost count is the number of misclassified rows, and the rate shown is that cost
    itself (the error rate), so the gap ``E_A[cost] - E_B[cost]`` is the error-rate gap:
    the same as ``accuracy_parity``.  Under the paper's other reading (the rows with
    ``y = 1`` only) it would be the equal-opportunity gap; see the module docstring.

    Examples
    --------
    >>> conf = np.array([[[6, 4], [2, 8]]])  # one group: rows y, columns y_hat
    >>> _zero_one(conf, 1)
    (array([20]), array([6]))
    """
    return _accuracy(conf, k)


@dataclass(frozen=True)
class Component:
    """One gap a metric reports.

    Attributes
    ----------
    name : str
        Short name (``"tpr"``).
    rate : str
        The rate shown to users (``"TPR"``).
    rate_is_cost : bool
        ``True`` if the rate is the cost (FPR); ``False`` if it is ``1 - cost``.
    denominator : str
        Which rows count, in words (``"rows with y = k"``).
    counts : callable
        ``counts(conf, k) -> (n, cost_count)``, vectorised over leading axes.
    per_class : bool
        Whether it depends on the class (``False`` for accuracy).
    depends_on_favourable : bool
        Whether who bears the cost turns round when the positive class is harmful
        (``False`` for accuracy, whose errors cost either way).
    """

    name: str
    rate: str
    rate_is_cost: bool
    denominator: str
    counts: CountFunc
    per_class: bool = True
    depends_on_favourable: bool = True


SELECTION = Component("selection_rate", "selection rate", False, "all rows", _selection)
TPR = Component("tpr", "TPR", False, "rows with y = {k}", _tpr)
FPR = Component("fpr", "FPR", False, "rows with y != {k}", _fpr)
FNR = Component("fnr", "FNR", True, "rows with y = {k}", _fnr)
PRECISION = Component("precision", "precision", True, "rows with y_hat = {k}", _precision)
ACCURACY = Component("accuracy", "accuracy", False, "all rows", _accuracy, per_class=False,
                     depends_on_favourable=False)
#: Ethayarajh's (2020) zero-one cost for equalized odds: 1 when y_hat != y, on every row.
ZERO_ONE = Component("zero_one", "error rate", True, "all rows", _zero_one, per_class=False,
                     depends_on_favourable=False)

FAVOURABLE = ("positive", "negative")


def check_favourable(favourable) -> str:
    """Validate ``favourable``: whether the positive class is the favourable outcome.

    Examples
    --------
    >>> check_favourable("Negative")
    'negative'
    """
    return check_choice(
        favourable, FAVOURABLE, "favourable", fold=True,
        aliases={"favourable": "positive", "harmful": "negative", "favorable": "positive"},
        note="positive: the positive class is the favourable outcome, e.g. loan granted, "
             "hired; negative: it is harmful, e.g. flagged, high risk")


def oriented(component: Component, favourable: str = "positive") -> Component:
    """The component with its cost as borne when the positive class is ``favourable``.

    Components are registered for a favourable positive class; for ``"negative"`` (the
    positive prediction harms the person) the cost count becomes ``n - count`` and the rate
    that was ``1 - cost`` becomes the cost itself.

    Examples
    --------
    >>> conf = np.array([[[6, 4], [2, 8]]])  # one group: rows y, columns y_hat
    >>> FPR.counts(conf, 1)[1], oriented(FPR, "negative").counts(conf, 1)[1]
    (array([6]), array([4]))
    >>> TPR.counts(conf, 1)[1], oriented(TPR, "negative").counts(conf, 1)[1]
    (array([2]), array([8]))
    """
    if check_favourable(favourable) == "positive" or not component.depends_on_favourable:
        return component
    base = component.counts

    def counts(conf, k):
        n, c = base(conf, k)
        return n, n - c

    return Component(component.name, component.rate, not component.rate_is_cost,
                     component.denominator, counts, component.per_class, True)


@dataclass(frozen=True)
class Metric:
    """A registered fairness metric.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"equal_opportunity"``.
    components : tuple of Component
        The gaps it reports; several components get simultaneous intervals.
    summary : str
        One line for help texts and reports.
    needs : tuple of str
        Columns it reads: ``("label", "prediction")`` or ``("cost",)``.
    note : str
        A caveat carried in the ``note`` of every result row of the metric (empty for
        most).
    """

    name: str
    components: tuple[Component, ...]
    summary: str
    needs: tuple[str, ...] = ("label", "prediction")
    note: str = ""

    @property
    def simultaneous(self) -> bool:
        """Whether the components' intervals are adjusted to hold jointly."""
        return len(self.components) > 1


METRICS: dict[str, Metric] = {}
_ALIASES: dict[str, str] = {}


def register_metric(metric: Metric, *, aliases: tuple[str, ...] = ()) -> Metric:
    """Add a metric to the registry (and its aliases)."""
    METRICS[metric.name] = metric
    for alias in aliases:
        _ALIASES[alias] = metric.name
    return metric


register_metric(
    Metric("demographic_parity", (SELECTION,),
           "selection-rate gap; cost 1 - [y_hat = k] over all rows"),
    aliases=("group_parity", "statistical_parity", "dp", "gp"),
)
register_metric(
    Metric("equal_opportunity", (TPR,),
           "true-positive-rate gap; cost 1 - [y_hat = k] over rows with y = k"),
    aliases=("tpr", "eo", "true_positive_rate"),
)
register_metric(
    Metric("false_positive_rate", (FPR,),
           "false-positive-rate gap; cost 1 - [y_hat = k] over rows with y != k "
           "([y_hat = k] when the positive class is harmful)"),
    aliases=("fpr", "fpr_parity", "false_positive_rate_parity"),
)
register_metric(
    Metric("false_negative_rate", (FNR,),
           "false-negative-rate gap; cost 1 - [y_hat = k] over rows with y = k "
           "([y_hat = k] when the positive class is harmful)"),
    aliases=("fnr", "fnr_parity", "false_negative_rate_parity"),
)
register_metric(
    Metric("equalized_odds", (TPR, FPR),
           "TPR and FPR gaps with simultaneous intervals, plus the larger of the two"),
    aliases=("eodds",),
)
#: The caveat every ``equalized_odds_cost`` result row carries.
EQUALIZED_ODDS_COST_NOTE = (
    "equalized_odds_cost is the zero-one loss over all rows, i.e. the error-rate gap, equal "
    "to accuracy_parity; under the paper's other reading (rows with y = 1 only, the "
    "annotation of equal opportunity) it is equal_opportunity; neither is equalized odds: "
    "use equalized_odds (TPR and FPR gaps)")

register_metric(
    Metric("equalized_odds_cost", (ZERO_ONE,),
           "Ethayarajh's (2020) equalized-odds cost read over all rows: the zero-one loss "
           "[y_hat != y], i.e. the error-rate gap, identical to accuracy_parity (read over "
           "rows with y = 1, as the paper's annotation function says, it would be "
           "equal_opportunity); for equalized odds use equalized_odds",
           note=EQUALIZED_ODDS_COST_NOTE),
    aliases=("eo_cost", "zero_one_cost", "equalized_odds_zero_one"),
)
register_metric(
    Metric("predictive_parity", (PRECISION,),
           "precision gap; cost [y = k] over rows with y_hat = k "
           "([y != k] when the positive class is harmful)"),
    aliases=("pp", "precision", "ppv"),
)
register_metric(
    Metric("accuracy_parity", (ACCURACY,), "accuracy gap; zero-one loss over all rows"),
    aliases=("accuracy", "zero_one"),
)
COST = register_metric(
    Metric("cost", (), "a per-row cost column in [0, C] (declare C with cost_max)",
           needs=("cost",)),
    aliases=("custom", "custom_cost"),
)

DEFAULT_METRICS = (
    "demographic_parity", "equal_opportunity", "false_positive_rate", "predictive_parity",
    "accuracy_parity",
)


def get_metric(name: str) -> Metric:
    """Look up a metric by name or alias; one-line error listing the choices."""
    key = check_choice(name, sorted(METRICS), "metric", fold=True, sep="_", aliases=_ALIASES)
    return METRICS[key]


def get_metrics(metrics) -> list[Metric]:
    """Look up one metric name or a list of them: the metrics, each once, in the order given.

    Examples
    --------
    >>> [m.name for m in get_metrics(["tpr", "equal_opportunity", "dp"])]
    ['equal_opportunity', 'demographic_parity']
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    elif not isinstance(metrics, list | tuple | set | frozenset):
        raise FairboundError(f"metrics must be a metric name or a list of them; got "
                             f"{metrics!r:.60}", param="metrics")
    out: list[Metric] = []
    for name in metrics:
        m = get_metric(name)
        if m not in out:
            out.append(m)
    return out


def supported_metrics(metrics, default, kinds, *, audit: str, hint: str) -> tuple[Metric, ...]:
    """:func:`get_metrics` of ``metrics`` (``None``: ``default``) for an audit of a few rates.

    Every component of every metric must be one of ``kinds`` (component names), else a
    :class:`~fairbound.errors.FairboundError` ``"metric 'x' is not supported by <audit>;
    <hint>"``; an empty selection is an error too.

    Examples
    --------
    >>> [m.name for m in supported_metrics(None, ["tpr"], {"tpr"}, audit="a", hint="")]
    ['equal_opportunity']
    >>> supported_metrics(["dp"], (), {"tpr"}, audit="x", hint="y")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: metric 'demographic_parity' is not supported by x; y
    """
    out = get_metrics(list(default) if metrics is None else metrics)
    for mm in out:
        if not mm.components or any(c.name not in kinds for c in mm.components):
            raise FairboundError(f"metric {mm.name!r} is not supported by {audit}; {hint}",
                                 param="metric")
    if not out:
        raise FairboundError("metrics: nothing to audit", param="metrics")
    return tuple(out)


__all__ = [
    "ACCURACY", "COST", "DEFAULT_METRICS", "EQUALIZED_ODDS_COST_NOTE", "FAVOURABLE", "FNR",
    "FPR", "METRICS", "PRECISION",
    "SELECTION", "TPR", "ZERO_ONE", "Component", "Metric", "check_favourable", "get_metric",
    "get_metrics",     "oriented", "register_metric", "supported_metrics",
]
