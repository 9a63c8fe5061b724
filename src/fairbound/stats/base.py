"""Sufficient statistics and the registry of interval methods.

Everything statistical in fairbound works on :class:`GroupStats`: for one group and one
comparison, the number of annotated examples, the sum and the sum of squares of a cost in
``[0, C]``.  For 0/1 costs those are the confusion counts.  An interval method is one small
function registered with :func:`register_interval` that takes the statistics of the two
groups and a confidence level and returns ``(low, high)`` for
``delta = E_A[cost] - E_B[cost]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal, NamedTuple

import numpy as np

from fairbound._validate import check_choice, check_float, check_probability
from fairbound.errors import FairboundError

Guarantee = Literal["finite-sample", "asymptotic", "bayesian", "resampling"]


class NotEstimable(FairboundError):
    """Raised by methods when a quantity cannot be estimated; the message is the reason.

    A :class:`~fairbound.errors.FairboundError`, so that a public call on an empty group is
    one line; audits catch it and report the comparison as not estimable.
    """


class ConfidenceInterval(NamedTuple):
    """An interval ``(low, high)``: what every ``confidence_interval(...)`` returns.

    A named tuple, as scipy's result objects return, so ``lo, hi = ci`` works; for results
    with many rows ``low`` and ``high`` are arrays in the rows' order.

    Examples
    --------
    >>> ci = ConfidenceInterval(-0.02, 0.21)
    >>> ci.low, ci.high
    (-0.02, 0.21)
    >>> lo, hi = ci
    """

    low: float
    high: float


@dataclass(frozen=True)
class GroupStats:
    """Sufficient statistics of a cost in ``[0, cost_max]`` for one group.

    Parameters
    ----------
    n : float
        Number of annotated examples (the metric's denominator, e.g. positives for TPR).
    total : float
        Sum of the costs.
    total_sq : float
        Sum of the squared costs.
    cost_max : float
        The declared maximum cost ``C``.
    binary : bool
        Whether every cost is 0 or ``cost_max`` (then ``total / cost_max`` is a count).
    sample : numpy.ndarray, optional
        Per-example costs in random order, for methods whose result depends on the order
        (betting).  ``None`` for binary costs, whose sequences are rebuilt from counts.
    sample_complete : bool
        Whether ``sample`` holds every cost of the group (``False``: a uniform subsample).

    Examples
    --------
    >>> s = GroupStats.from_costs([0, 1, 1, 0])
    >>> s.n, s.mean, s.binary
    (4, 0.5, True)
    """

    n: float
    total: float
    total_sq: float
    cost_max: float = 1.0
    binary: bool = False
    sample: np.ndarray | None = field(default=None, compare=False, repr=False)
    sample_complete: bool = field(default=False, compare=False, repr=False)

    @classmethod
    def from_counts(cls, n: int, cost_count: int, *, cost_max: float = 1.0) -> GroupStats:
        """Statistics of ``n`` examples of which ``cost_count`` have cost ``cost_max``.

        Raises
        ------
        FairboundError
            Unless ``0 <= cost_count <= n`` are whole numbers and ``cost_max`` is positive.
        """
        n = _whole(n, "n")
        k = float(_whole(cost_count, "cost_count"))
        if k > n:
            raise FairboundError(f"cost_count must be at most n = {n}; got {cost_count!r}",
                                 param="cost_count")
        cost_max = check_positive(cost_max, "cost_max")
        return cls(
            n=int(n), total=k * cost_max, total_sq=k * cost_max**2, cost_max=cost_max,
            binary=True,
        )

    @classmethod
    def from_costs(
        cls, costs, *, cost_max: float = 1.0, keep_sample: bool | None = None
    ) -> GroupStats:
        """Statistics of an array of costs (kept as the sample when not binary)."""
        cost_max = check_positive(cost_max, "cost_max")
        try:
            c = np.asarray(costs, dtype=float)
        except (TypeError, ValueError):
            raise FairboundError(f"costs must be numbers in [0, cost_max]; got {costs!r:.60}",
                                 param="costs") from None
        if c.ndim != 1:
            raise FairboundError(f"costs must be one-dimensional; got shape {c.shape}",
                                 param="costs")
        bad = c[~((c >= 0) & (c <= cost_max))]  # also catches NaN and inf
        if bad.size:
            raise FairboundError(f"costs must be finite numbers in [0, {cost_max:g}]; got "
                                 f"{float(bad[0])!r}", param="costs")
        binary = bool(np.all((c == 0) | (c == cost_max)))
        if keep_sample is None:
            keep_sample = not binary
        return cls(
            n=int(c.size), total=float(c.sum()), total_sq=float(np.dot(c, c)),
            cost_max=float(cost_max), binary=binary,
            sample=c.copy() if keep_sample else None, sample_complete=bool(keep_sample),
        )

    @property
    def mean(self) -> float:
        """Mean cost (NaN for an empty group)."""
        return self.total / self.n if self.n > 0 else math.nan

    @property
    def var(self) -> float:
        """Population (plug-in, ``ddof=0``) variance of the cost."""
        if self.n <= 0:
            return math.nan
        m = self.total / self.n
        return max(self.total_sq / self.n - m * m, 0.0)

    @property
    def var_unbiased(self) -> float:
        """Sample variance with ``ddof=1`` (NaN below two examples)."""
        if self.n < 2:
            return math.nan
        return self.var * self.n / (self.n - 1)

    @property
    def count(self) -> int:
        """Number of examples with cost ``cost_max`` (binary costs only)."""
        if not self.binary:
            raise NotEstimable("costs are not 0/1, so there is no count of cost-C examples")
        return int(round(self.total / self.cost_max))

    def scaled(self, factor: float) -> GroupStats:
        """The statistics of a sample ``factor`` times larger with the same moments."""
        return replace(
            self, n=self.n * factor, total=self.total * factor,
            total_sq=self.total_sq * factor, sample=None, sample_complete=False,
        )

    def add_pseudo(self, k: float = 1.0) -> GroupStats:
        """Add ``k`` pseudo-examples of cost 0 and ``k`` of cost ``C`` (Agresti-Caffo)."""
        return replace(
            self, n=self.n + 2 * k, total=self.total + k * self.cost_max,
            total_sq=self.total_sq + k * self.cost_max**2, sample=None,
        )

    def costs(self, rng: np.random.Generator) -> np.ndarray:
        """Per-example costs in a seeded random order.

        Binary costs are rebuilt from the counts (a uniformly random arrangement, which is
        exactly the distribution of an exchangeable sample); other costs come from
        ``sample``, shuffled.
        """
        if self.binary:
            n = int(round(self.n))
            k = self.count
            # shuffling 1-byte flags is twice as fast as floats and gives the same order
            flags = np.zeros(n, dtype=np.int8)
            flags[:k] = 1
            rng.shuffle(flags)
            return flags * float(self.cost_max)
        if self.sample is None:
            raise NotEstimable(
                "this method needs per-example costs; the engine kept only moments "
                "(pass sample_size= to keep a random sample per group)"
            )
        return rng.permutation(self.sample)


@dataclass(frozen=True)
class IntervalMethod:
    """A registered interval method for ``delta = E_A[cost] - E_B[cost]``."""

    name: str
    func: Callable[..., tuple[float, float]]
    guarantee: Guarantee
    binary_only: bool
    needs_order: bool
    summary: str
    reference: str
    options: tuple[str, ...] = ()
    required_n: Callable[..., float] | None = None
    batch: Callable[..., None] | None = None
    vectorised: Callable[..., tuple] | None = None
    random: bool = False
    accepts: Callable[..., bool] | None = None


INTERVAL_METHODS: dict[str, IntervalMethod] = {}
_ALIASES: dict[str, str] = {}


def register_interval(
    name: str,
    *,
    guarantee: Guarantee,
    summary: str,
    reference: str,
    binary_only: bool = False,
    needs_order: bool = False,
    options: tuple[str, ...] = (),
    aliases: tuple[str, ...] = (),
    required_n: Callable[..., float] | None = None,
    batch: Callable[..., None] | None = None,
    vectorised: Callable[..., tuple] | None = None,
    random: bool = False,
    accepts: Callable[..., bool] | None = None,
):
    """Register ``func(a, b, confidence_level, *, rng, **options) -> (low, high)``.

    Parameters
    ----------
    name : str
        Public name, used as ``method=name``.
    guarantee : {'finite-sample', 'asymptotic', 'bayesian', 'resampling'}
        What the interval promises; shown in results and reports.
    summary, reference : str
        One-line description and literature reference.
    binary_only : bool
        Whether the method is defined for 0/1 costs only.
    needs_order : bool
        Whether the method needs per-example costs in random order.
    options : tuple of str
        Names of the extra keyword options the method accepts.
    aliases : tuple of str
        Other accepted spellings.
    required_n : callable, optional
        ``required_n(a, b, confidence_level, **options) -> float``: total annotated examples
        this method needs to exclude 0 if the observed gap were the truth.  Without it,
        planning scales the moments (closed-form methods) or reports NaN (order-dependent
        methods).
    batch : callable, optional
        ``batch(items)`` with ``items`` a list of ``(a, b, confidence_level)``: computes many
        intervals at once (vectorised) so that later calls of ``func`` on the same arguments
        are cheap.  It must not change any result: ``func`` returns the same interval with
        or without it.
    vectorised : callable, optional
        ``vectorised(a, b, confidence_level) -> (low, high)`` on
        :class:`~fairbound.stats.vectorised.StatsArrays`: the same formula on arrays, for
        audits of many groups (closed-form methods only).
    random : bool
        Whether ``func`` draws from ``rng`` (resamples, arrangements).  Only such methods
        are handed a ``numpy.random.Generator`` (built from the seed when not given one);
        the others get ``rng`` as it was passed and ignore it, and a small audit never
        loads ``numpy.random`` (``tests/stats/test_interval_common.py`` checks that a
        method not marked ``random`` gives the same interval whatever the generator).
    accepts : callable, optional
        ``accepts(a, b, delta, confidence_level) -> bool`` for a method that inverts a
        test: ``True`` only where the test does not reject ``delta`` (so ``delta`` lies in
        the interval, the hull of the values not rejected), at a fraction of the cost of
        the interval.  ``False`` says nothing.  Planning uses it to settle, without the
        interval, that a sample size's power is below a target.
    """

    def deco(func):
        INTERVAL_METHODS[name] = IntervalMethod(
            name=name, func=func, guarantee=guarantee, binary_only=binary_only,
            needs_order=needs_order, summary=summary, reference=reference, options=options,
            required_n=required_n, batch=batch, vectorised=vectorised, random=random,
            accepts=accepts,
        )
        for alias in aliases:
            _ALIASES[alias] = name
        return func

    return deco


def get_method(method: str | IntervalMethod) -> IntervalMethod:
    """Look up an interval method by name or alias, with a one-line error if unknown.

    An :class:`IntervalMethod` is returned as it is: a caller that resolved the name once
    (the audit does, at its front door) passes the object down and nothing is looked up
    again.
    """
    if isinstance(method, IntervalMethod):
        return method
    key = check_choice(method, sorted(INTERVAL_METHODS), "method", fold=True, sep="-",
                       aliases=_ALIASES)
    return INTERVAL_METHODS[key]


def _whole(value, param: str) -> int:
    """A non-negative whole number (``10.0`` is accepted, ``10.5``, NaN and -1 are not)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise FairboundError(f"{param} must be a non-negative whole number; got {value!r}",
                             param=param) from None
    if not (math.isfinite(x) and x >= 0 and x == int(x)) or isinstance(value, bool):
        raise FairboundError(f"{param} must be a non-negative whole number; got {value!r}",
                             param=param)
    return int(x)


def check_stats(g, param: str = "a") -> None:
    """Refuse statistics no sample could have (NaN, inf, negative, total outside [0, C n])."""
    if not isinstance(g, GroupStats):
        raise FairboundError(f"{param} must be a GroupStats; got {type(g).__name__}",
                             param=param)
    vals = (g.n, g.total, g.total_sq, g.cost_max)
    if not all(isinstance(v, int | float | np.integer | np.floating) and math.isfinite(v)
               for v in vals):
        raise FairboundError(f"{param}: statistics must be finite numbers; got n={g.n!r}, "
                             f"total={g.total!r}, total_sq={g.total_sq!r}", param=param)
    C = g.cost_max
    tol = 1e-9 * max(1.0, C * g.n, C * C * g.n)
    if g.n < 0 or g.total < -tol or g.total_sq < -tol or C <= 0:
        raise FairboundError(f"{param}: statistics must be non-negative; got n={g.n!r}, "
                             f"total={g.total!r}, total_sq={g.total_sq!r}", param=param)
    if g.total > C * g.n + tol or g.total_sq > C * g.total + tol:
        raise FairboundError(f"{param}: costs above cost_max = {C:g} (total={g.total!r} for "
                             f"n={g.n!r}); declare the maximum with cost_max", param=param)


def check_confidence_level(confidence_level, param: str = "confidence_level") -> float:
    """Validate a confidence level in the open interval (0, 1)."""
    return check_probability(confidence_level, param)


def check_counts(k_a, n_a, k_b, n_b) -> tuple[int, int, int, int]:
    """Two groups' counts ``k`` of ``n`` as whole numbers, ``n >= 1``, ``0 <= k <= n``."""
    vals = []
    for name, v in (("k_a", k_a), ("n_a", n_a), ("k_b", k_b), ("n_b", n_b)):
        try:
            ok = not isinstance(v, bool) and float(v) == int(v)
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            raise FairboundError(f"{name} must be a whole number; got {v!r}", param=name)
        vals.append(int(v))
    ka, na, kb, nb = vals
    for name, n in (("n_a", na), ("n_b", nb)):
        if n < 1:
            raise FairboundError(f"{name} must be at least 1; got {n}", param=name)
    for name, k, n in (("k_a", ka, na), ("k_b", kb, nb)):
        if not 0 <= k <= n:
            raise FairboundError(f"{name} must be between 0 and {n}; got {k}", param=name)
    return ka, na, kb, nb


def check_gamma(gamma, upper: float) -> float:
    """A Berger-Boos ``gamma`` in ``[0, upper)``."""
    return check_float(gamma, "gamma", low=0.0, high=upper, high_open=True)


def check_positive(value, param: str) -> float:
    """Validate a finite positive number (e.g. ``cost_max``)."""
    return check_float(value, param, low=0.0, low_open=True)


def difference_interval(
    a: GroupStats,
    b: GroupStats,
    *,
    method: str = "agresti-caffo",
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = None,
    **options,
) -> tuple[float, float]:
    """Confidence interval for ``E_A[cost] - E_B[cost]`` from sufficient statistics.

    Parameters
    ----------
    a, b : GroupStats
        Statistics of groups A and B.
    method : str
        A registered method (see ``fairbound.stats.INTERVAL_METHODS``).
    confidence_level : float
        In (0, 1).
    rng : numpy.random.Generator or int, optional
        Seed for methods that randomise (betting arrangements, bootstrap).  ``None`` means
        seed 0, so that the same call always gives the same interval.
    **options
        Method options (e.g. ``gamma=`` and ``variance=`` for BBU).

    Returns
    -------
    (float, float)
        Lower and upper bound.

    Raises
    ------
    NotEstimable
        When a group is empty or the method cannot handle these costs.

    Examples
    --------
    >>> a = GroupStats.from_counts(100, 30)
    >>> b = GroupStats.from_counts(100, 20)
    >>> lo, hi = difference_interval(a, b, method="agresti-caffo")
    >>> round(lo, 4), round(hi, 4)
    (-0.0208, 0.2169)
    """
    m = get_method(method)
    rho = check_confidence_level(confidence_level)
    unknown = set(options) - set(m.options)
    if unknown:
        raise FairboundError(
            f"method {m.name!r} takes no option {sorted(unknown)[0]!r}; "
            f"its options are {list(m.options) or 'none'}",
            param=sorted(unknown)[0],
        )
    check_stats(a, "a")
    check_stats(b, "b")
    for label, g in (("A", a), ("B", b)):
        if g.n <= 0:
            raise NotEstimable(f"group {label} has no annotated examples")
    if m.binary_only and not (a.binary and b.binary):
        raise NotEstimable(f"method {m.name!r} needs 0/1 costs")
    if m.random and not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(0 if rng is None else rng)
    lo, hi = m.func(a, b, rho, rng=rng, **options)
    return float(lo), float(hi)
