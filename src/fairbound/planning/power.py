"""Power, required sample size and minimum detectable gap for every interval method.

One function, :func:`solve_power`, solves for whichever of ``n_total``, ``gap`` and
``power`` is ``None`` (as ``statsmodels.stats.power.Power.solve_power`` does).  Power is the
probability that the interval excludes 0 on the correct side (``low > 0``) when group A's
true mean cost is ``rate_b + gap`` and group B's is ``rate_b``, with ``share`` of the
examples in group A.

Two bases:

* ``"analytic"`` - methods whose interval is a deterministic function of the sufficient
  statistics (Wald, Agresti-Caffo, Newcombe, Welch, BBU, Hoeffding, empirical Bernstein,
  Bayesian).  The half-width ``h(n)`` below the estimate is computed at the expected
  statistics and the estimate is taken as normal:
  ``power = Phi((gap - h(n)) / se(n))`` with ``se(n)^2 = var_A / n_A + var_B / n_B``.
  For Wald this is the textbook ``n = (z_{1-alpha/2} + z_{power})^2 se_1^2 / gap^2``.
* ``"simulation"`` - methods that depend on a random order or resampling (betting,
  bootstrap): power is the fraction of ``n_sims`` seeded data sets whose interval excludes 0,
  and ``n`` is found by bisection on a log scale with the same seed at every ``n`` (common
  random numbers keep the estimated power curve close to monotone).  The seed and the
  Monte Carlo standard error are recorded in the result.

Every result also carries the required ``n`` of the reference method (``bbu-corrected``,
BBU with its worst-case variance, the seed paper's guaranteed form) and the ratio to it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np

from fairbound._validate import (
    check_choice,
    check_float,
    check_int,
    check_probability,
    check_seed,
    check_unknown,
)
from fairbound.errors import FairboundError
from fairbound.stats.auto import union_applies
from fairbound.stats.base import (
    GroupStats,
    NotEstimable,
    check_confidence_level,
    difference_interval,
    get_method,
)

#: The method every plan is compared with: BBU with its worst-case variance.
REFERENCE_METHOD = "bbu-corrected"

_COSTS = ("binary", "beta")
_N_MAX = 10**8
_NORMAL = NormalDist()


@dataclass(frozen=True)
class PowerResult:
    """A solved power problem for one interval method.

    Attributes
    ----------
    method, guarantee : str
        Interval method and what it promises.
    n_total : float
        Total annotated examples (A + B).
    gap : float
        True gap ``E_A[cost] - E_B[cost]``.
    power : float
        Probability that the interval excludes 0 (``low > 0``): the target when solving for
        ``n_total`` or ``gap``.
    achieved_power : float
        Power at the solution: equal to ``power`` for analytic results; the simulated power
        at the returned ``n_total`` or ``gap`` otherwise (at least the target, up to Monte
        Carlo error).
    rate_a, rate_b : float
        True mean costs of groups A and B.
    share : float
        Share of group A among the ``n_total`` examples.
    cost : str
        ``"binary"`` (0/1 costs) or ``"beta"`` (Beta costs with ``alpha + beta =
        concentration``).
    concentration : float
        Beta concentration (``cost="beta"`` only).
    confidence_level : float
        Level of the interval.
    solved_for : str
        Which of ``n_total``, ``gap``, ``power`` was solved.
    basis : str
        ``"analytic"`` or ``"simulation"``.
    n_sims : int
        Simulated data sets per evaluation (0 for analytic).
    seed : int
        Seed of the simulation (recorded for reproducibility).
    power_se : float
        Monte Carlo standard error of ``power`` (0 for analytic).
    reference_method : str
        Method of the comparison (``bbu-corrected``).
    reference_n_total : float
        Its required ``n_total`` at the same ``gap`` and ``power`` (NaN when solving for
        the gap).
    ratio_to_reference : float
        ``n_total / reference_n_total``.
    """

    method: str
    guarantee: str
    n_total: float
    gap: float
    power: float
    achieved_power: float
    rate_a: float
    rate_b: float
    share: float
    cost: str
    concentration: float
    confidence_level: float
    solved_for: str
    basis: str
    n_sims: int
    seed: int
    power_se: float
    reference_method: str
    reference_n_total: float
    ratio_to_reference: float
    tolerance: float | None = None

    def to_dict(self) -> dict:
        """Plain-Python form, e.g. for JSON."""
        return asdict(self)

    def to_frame(self):
        """Return a one-row pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame([self.to_dict()])


# --------------------------------------------------------------------------- validation
def _validate_solve(method, n_total, gap, power, rate_b, share, cost, concentration,
                    confidence_level, n_sims, seed):
    m = get_method(method)
    check_unknown({"n_total": n_total, "gap": gap, "power": power})
    rate_b = check_probability(rate_b, "rate_b")
    share = check_probability(share, "share")
    rho = check_confidence_level(confidence_level)
    check_choice(cost, _COSTS, "cost")
    concentration = check_float(concentration, "concentration", low=0.0, low_open=True)
    if m.binary_only and cost != "binary":
        raise FairboundError(f"method {m.name!r} needs 0/1 costs; got cost={cost!r}",
                             param="method")
    if n_total is not None:
        n_total = check_int(n_total, "n_total", low=4, whole_floats=True)
    if gap is not None:
        gap = check_float(gap, "gap", low=0.0, high=1.0 - rate_b)
    if power is not None:
        power = check_probability(power, "power")
    n_sims = check_int(n_sims, "n_sims", low=10)
    seed = check_int(seed, "seed")
    return m, n_total, gap, power, rate_b, share, cost, concentration, rho, n_sims, seed


# --------------------------------------------------------------------------- power curves
def _moments(mean: float, cost: str, k: float) -> tuple[float, float]:
    """Second moment and variance of a cost with this mean."""
    if cost == "binary":
        return mean, mean * (1.0 - mean)
    var = mean * (1.0 - mean) / (k + 1.0)
    return var + mean * mean, var


def _sizes(n_total: float, share: float) -> tuple[float, float]:
    n_a = share * n_total
    return n_a, n_total - n_a


def _is_analytic(m) -> bool:
    return not m.needs_order and m.guarantee != "resampling"


def _norm_cdf(x: float) -> float:
    """Standard normal cdf, ``scipy.special.ndtr``'s formula (``erfc``), without scipy."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _analytic_power(m, n_total, gap, rate_b, share, cost, k, rho, tolerance=None) -> float:
    a, b, se = _table(m, n_total, gap, rate_b, share, cost, k)
    try:
        lo, hi = difference_interval(a, b, method=m.name, confidence_level=rho, rng=0)
    except NotEstimable:
        return 0.0
    h = (a.mean - b.mean) - lo  # distance from the estimate down to the lower bound
    if tolerance is not None:
        # parity: the interval [est - h, est + h_up] inside (-tol, tol), est ~ N(gap, se^2)
        h_up = hi - (a.mean - b.mean)
        upper, lower = tolerance - h_up, -tolerance + h
        if upper <= lower:
            return 0.0
        if se == 0.0:
            return 1.0 if lower < gap < upper else 0.0
        return float(max(_norm_cdf((upper - gap) / se) - _norm_cdf((lower - gap) / se), 0.0))
    if se == 0.0:
        return 1.0 if h < gap else 0.0
    return float(_norm_cdf((gap - h) / se))


def _simulated_power(m, n_total, gap, rate_b, share, cost, k, rho, n_sims, seed,
                     tolerance=None):
    """Fraction of ``n_sims`` seeded data sets whose interval has ``low > 0``.

    With a ``tolerance``: the fraction whose interval lies within ``(-tolerance, tolerance)``.
    """
    rate_a = rate_b + gap
    n_a = int(round(share * n_total))
    n_a = min(max(n_a, 1), int(n_total) - 1)
    n_b = int(n_total) - n_a
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(n_sims):
        if cost == "binary":
            a = GroupStats.from_counts(n_a, int(rng.binomial(n_a, rate_a)))
            b = GroupStats.from_counts(n_b, int(rng.binomial(n_b, rate_b)))
        else:
            a = GroupStats.from_costs(rng.beta(rate_a * k, (1 - rate_a) * k, n_a),
                                      keep_sample=True)
            b = GroupStats.from_costs(rng.beta(rate_b * k, (1 - rate_b) * k, n_b),
                                      keep_sample=True)
        try:
            lo, hi = difference_interval(a, b, method=m.name, confidence_level=rho, rng=rng)
        except NotEstimable:
            continue
        hits += (-tolerance < lo and hi < tolerance) if tolerance is not None else lo > 0
    return hits / n_sims


def _table(m, n_total, gap, rate_b, share, cost, k):
    """The two groups :func:`_analytic_power` judges, and the estimate's standard error."""
    rate_a = rate_b + gap
    n_a, n_b = _sizes(n_total, share)
    ea2, va = _moments(rate_a, cost, k)
    eb2, vb = _moments(rate_b, cost, k)
    if m.binary_only:  # methods on counts (exact) need whole numbers: the nearest table
        na_, nb_ = max(int(round(n_a)), 1), max(int(round(n_b)), 1)
        a = GroupStats.from_counts(na_, min(int(round(na_ * rate_a)), na_))
        b = GroupStats.from_counts(nb_, min(int(round(nb_ * rate_b)), nb_))
    else:
        a = GroupStats(n=n_a, total=n_a * rate_a, total_sq=n_a * ea2, binary=cost == "binary")
        b = GroupStats(n=n_b, total=n_b * rate_b, total_sq=n_b * eb2, binary=cost == "binary")
    return a, b, math.sqrt(va / n_a + vb / n_b)


def _below_fn(m, *, rate_b, share, cost, k, rho):
    """``below(n, gap, power)``: ``True`` only if :func:`_analytic_power` is below ``power``.

    For a method with an ``accepts`` hook (a test it inverts).  The analytic power is
    ``Phi((gap - h) / se)``, ``h`` the distance from the estimate down to the interval's
    lower end, so it is below ``power`` exactly when ``h > h* = gap - z_power se``.  One
    value ``d`` a little farther than ``h*`` below the estimate that the test accepts puts
    the lower end at or below ``d`` (the interval is the hull of the accepted values), so
    ``h > h*``: one p-value settles what the whole interval would.  The n found is the
    search's own except where the interval's search misses a narrow island of accepted
    values past its end that this value falls in: then that size counts as short and the
    plan asks for more (1 of 128 plans of ``exact`` on a grid of rates, gaps, shares,
    powers and levels: 315 instead of 314; ``tests/planning/test_power.py``).  ``None``
    without the hook.
    """
    if m.accepts is None:
        return None
    # per table (whole-number methods round many n to one table): the lowest value found
    # accepted (the interval reaches it), and the tables left to the interval itself,
    # which the power function then computes once and looks up after
    accepted: dict[tuple, float] = {}
    left: set[tuple] = set()

    def below(n_total, gap, power):
        if not 0.0 < power < 1.0:
            return False
        a, b, se = _table(m, n_total, gap, rate_b, share, cost, k)
        h_star = gap - _NORMAL.inv_cdf(power) * se
        if not (se > 0.0 and h_star > 0.0):
            return False
        # the margin keeps Phi((gap - h) / se) below power by more than its rounding
        d = (a.mean - b.mean) - h_star * (1.0 + 1e-6) - 1e-6 * se
        key = (a.n, a.total, b.n, b.total)
        if key in accepted and accepted[key] <= d:
            return True
        if key in left:
            return False
        if m.accepts(a, b, d, rho):
            accepted[key] = min(d, accepted.get(key, d))
            return True
        left.add(key)
        return False

    return below


def _power_fn(m, gap_or_n_fixed, *, rate_b, share, cost, k, rho, n_sims, seed,
              tolerance=None):
    if _is_analytic(m):
        return lambda n, g: _analytic_power(m, n, g, rate_b, share, cost, k, rho, tolerance)
    return lambda n, g: _simulated_power(m, n, g, rate_b, share, cost, k, rho, n_sims, seed,
                                         tolerance)


def _solve_n(pf, gap, power, *, integer: bool, below=None) -> float:
    """Smallest n with ``pf(n, gap) >= power``: doubling then bisection on a log scale.

    ``below(n, gap, power)``, when given, is a cheaper check that is ``True`` only where
    the power is short (:func:`_below_fn`), asked first: the same steps and answer, except
    where it sees an accepted value that the interval's search missed.
    """
    def short(n):
        return (below is not None and below(n, gap, power)) or pf(n, gap) < power

    lo, hi = 4.0, 64.0
    while short(hi):
        lo, hi = hi, hi * 2.0
        if hi > _N_MAX:
            return math.inf
    # simulated power carries Monte Carlo error of a few percent in n, so a simulated
    # search stops at 1% relative precision; analytic curves are solved to 1e-6
    rel = 1.01 if integer else 1.0 + 1e-6
    while hi / lo > rel:
        mid = math.sqrt(lo * hi)
        if integer:
            mid = float(round(mid))
            if mid in (lo, hi):
                mid = math.floor((lo + hi) / 2)
                if mid in (lo, hi):
                    break
        if not short(mid):
            hi = mid
        else:
            lo = mid
    return math.ceil(hi)


def _solve_gap(pf, n_total, power, gmax) -> float:
    if pf(n_total, gmax) < power:
        return math.inf
    lo, hi = 0.0, gmax
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if pf(n_total, mid) >= power:
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-5:
            break
    return hi


def solve_power(
    method: str = "betting",
    *,
    n_total: int | None = None,
    gap: float | None = None,
    power: float | None = None,
    rate_b: float = 0.10,
    share: float = 0.5,
    cost: str = "binary",
    concentration: float = 2.0,
    confidence_level: float = 0.95,
    n_sims: int = 400,
    seed: int = 0,
    tolerance: float | None = None,
) -> PowerResult:
    """Solve for the one of ``n_total``, ``gap``, ``power`` that is ``None``.

    Parameters
    ----------
    method : str, default 'betting'
        A registered interval method.
    n_total : int, optional
        Total annotated examples (A + B).
    gap : float, optional
        True gap ``E_A[cost] - E_B[cost] > 0`` (A's mean cost is ``rate_b + gap``).
    power : float, optional
        Probability that the interval excludes 0, in (0, 1).
    rate_b : float, default 0.10
        Mean cost of group B.
    share : float, default 0.5
        Share of group A among the examples.
    cost : {'binary', 'beta'}, default 'binary'
        0/1 costs, or Beta-distributed costs in [0, 1] with ``alpha + beta =
        concentration``.
    concentration : float, default 2.0
        Beta concentration.
    confidence_level : float, default 0.95
        Level of the interval.
    n_sims : int, default 400
        Simulated data sets per power evaluation (simulation basis only).
    seed : int, default 0
        Seed of the simulation, recorded in the result.
    tolerance : float, optional
        Plan to show *parity* instead: power is then the probability that the interval lies
        within ``(-tolerance, tolerance)`` when the true gap is ``gap`` (``0 <= gap <
        tolerance``); solve for ``n_total`` or ``power`` (there is no reference plan).

    Returns
    -------
    PowerResult
        The completed problem, its basis, and the ratio to BBU (``bbu-corrected``).

    Notes
    -----
    Analytic results are normal approximations around the method's half-width at the
    expected statistics: exact in the limit for Wald-type intervals, approximate for small
    ``n``.  Simulation results carry Monte Carlo error (``power_se``, about 0.02 at
    ``n_sims=400``) and a required ``n`` that is accurate to a few percent; raise ``n_sims``
    for tighter numbers.

    References
    ----------
    K. Ethayarajh, ACL 2020 (the BBU reference); statsmodels ``Power.solve_power`` (the
    solve-for-the-missing-argument interface).

    Examples
    --------
    >>> r = solve_power("wald", gap=0.05, power=0.8, rate_b=0.10)
    >>> r.n_total, r.basis
    (1366, 'analytic')
    >>> round(r.ratio_to_reference, 3)
    0.094
    """
    (m, n_total, gap, power, rate_b, share, cost, k, rho, n_sims, seed) = _validate_solve(
        method, n_total, gap, power, rate_b, share, cost, concentration, confidence_level,
        n_sims, seed)
    if m.name == "auto":  # what the default audit runs for these costs and sizes
        m = get_method("betting" if cost != "binary" else
                       "exact-union" if union_applies(share, 1.0 - share) else "exact")
    analytic = _is_analytic(m)
    if tolerance is not None:
        tolerance = check_probability(tolerance, "tolerance")
        if gap is None:
            raise FairboundError("tolerance: a parity plan solves for n_total or power; give "
                                 "the true gap (e.g. 0)", param="tolerance")
        if gap >= tolerance:
            raise FairboundError(f"gap must be below the tolerance {tolerance:g} for a parity "
                                 f"plan (no n can show parity otherwise); got {gap!r}",
                                 param="gap")
    pf = _power_fn(m, None, rate_b=rate_b, share=share, cost=cost, k=k, rho=rho,
                   n_sims=n_sims, seed=seed, tolerance=tolerance)
    if power is None:
        solved = "power"
        power = pf(n_total, gap)
    elif n_total is None:
        solved = "n_total"
        below = (_below_fn(m, rate_b=rate_b, share=share, cost=cost, k=k, rho=rho)
                 if analytic and tolerance is None else None)
        n_total = _solve_n(pf, gap, power, integer=not analytic, below=below)
        if analytic and math.isfinite(n_total):
            n_total = int(math.ceil(n_total))
    else:
        solved = "gap"
        gap = _solve_gap(pf, n_total, power, 1.0 - rate_b)
    achieved = power
    if solved != "power" and not analytic and math.isfinite(n_total) and math.isfinite(gap):
        achieved = pf(n_total, gap)
    se = 0.0 if analytic else math.sqrt(max(achieved * (1 - achieved), 0.0) / n_sims)
    ref_n = math.nan
    if solved != "gap" and math.isfinite(gap) and tolerance is None:
        ref = get_method(REFERENCE_METHOD)
        rpf = _power_fn(ref, None, rate_b=rate_b, share=share, cost=cost, k=k, rho=rho,
                        n_sims=n_sims, seed=seed)
        target = achieved if solved == "power" else power
        ref_n = _solve_n(rpf, gap, target, integer=False) if 0 < target < 1 else math.nan
        if math.isfinite(ref_n):   # inf: the reference needs more than any n searched
            ref_n = float(math.ceil(ref_n))
    ratio = n_total / ref_n if ref_n and math.isfinite(ref_n) else math.nan
    return PowerResult(
        method=m.name, guarantee=m.guarantee, n_total=n_total, gap=gap,
        power=float(power), achieved_power=float(achieved),
        rate_a=rate_b + gap if math.isfinite(gap) else math.nan, rate_b=rate_b, share=share,
        cost=cost, concentration=k, confidence_level=rho, solved_for=solved,
        basis="analytic" if analytic else "simulation", n_sims=0 if analytic else n_sims,
        seed=seed, power_se=se, reference_method=REFERENCE_METHOD, reference_n_total=ref_n,
        ratio_to_reference=ratio, tolerance=tolerance,
    )


def required_n(method: str = "betting", *, gap: float, power: float = 0.8, **kwargs) -> PowerResult:
    """Total annotated examples for ``power`` at a true ``gap`` (see :func:`solve_power`).

    Parameters
    ----------
    method : str, default 'betting'
        A registered interval method.
    gap : float
        True gap.
    power : float, default 0.8
        Target power.
    **kwargs
        ``rate_b``, ``share``, ``cost``, ``concentration``, ``confidence_level``,
        ``n_sims``, ``seed`` as in :func:`solve_power`.

    Returns
    -------
    PowerResult
        With ``n_total`` solved.

    Examples
    --------
    >>> required_n("agresti-caffo", gap=0.05).n_total
    1379
    """
    return solve_power(method, gap=gap, power=power, n_total=None, **kwargs)


def minimum_detectable_gap(
    method: str = "betting", *, n_total: int, power: float = 0.8, **kwargs
) -> PowerResult:
    """Smallest true gap detected with ``power`` at ``n_total`` examples.

    Parameters
    ----------
    method : str, default 'betting'
        A registered interval method.
    n_total : int
        Total annotated examples.
    power : float, default 0.8
        Target power.
    **kwargs
        As in :func:`solve_power`.

    Returns
    -------
    PowerResult
        With ``gap`` solved (``inf`` when even the largest gap is not detected).

    Examples
    --------
    >>> round(minimum_detectable_gap("wald", n_total=1366).gap, 3)
    0.05
    """
    return solve_power(method, n_total=n_total, power=power, gap=None, **kwargs)


def plan_for_method(
    method: str,
    *,
    n: float | None = None,
    gap: float | None = None,
    power: float | None = None,
    rate_b: float = 0.10,
    share: float = 0.5,
    cost: str = "binary",
    confidence_level: float = 0.95,
    n_sims: int = 400,
    seed: int = 0,
    tolerance: float | None = None,
    concentration: float | None = None,
) -> PowerResult:
    """What ``fairbound plan --method M`` solves: power, n or gap for one interval method.

    The command line's defaults are filled in first: with none of ``n``, ``gap`` and
    ``power`` given, a gap of 0.05 at 80% power; with one of ``n`` and ``gap`` given,
    80% power; a parity plan (``tolerance``) takes a true gap of 0 unless ``gap`` says
    otherwise.  Then :func:`solve_power` solves for what is still missing.

    Parameters
    ----------
    method : str
        A registered interval method.
    n : float, optional
        Total annotated examples (a whole number).
    gap, power, rate_b, share, cost, confidence_level, n_sims, seed, tolerance
        As in :func:`solve_power`.
    concentration : float, optional
        ``alpha + beta`` of the Beta costs (``cost='beta'`` only; default 2, as in
        :func:`solve_power`): Beta(1.5, 8.5) against Beta(1, 9) is ``rate_b=0.1``,
        ``gap=0.05``, ``concentration=10``.

    Returns
    -------
    PowerResult

    Examples
    --------
    >>> plan_for_method("wald").n_total
    1366
    """
    check_seed(seed)
    if concentration is not None and cost != "beta":
        raise FairboundError(f"concentration: only Beta costs have one (use cost='beta'); got "
                             f"concentration={concentration!r} with cost={cost!r}",
                             param="concentration")
    if tolerance is not None and gap is None:
        gap = 0.0  # parity plans: the true gap defaults to 0
    if n is None and gap is None and power is None:
        gap, power = 0.05, 0.8
    elif power is None and (n is None or gap is None):
        power = 0.8
    n_total = None
    if n is not None:
        if float(n) != int(n):
            raise FairboundError(f"n must be a whole number of examples; got {n!r}", param="n")
        n_total = int(n)
    return solve_power(method, n_total=n_total, gap=gap, power=power, rate_b=rate_b,
                       share=share, cost=cost, confidence_level=confidence_level,
                       n_sims=n_sims, seed=seed, tolerance=tolerance,
                       concentration=2.0 if concentration is None else concentration)


def _count(n: float) -> str:
    """A planned n as a sentence writes it (beyond the search: "more than 100,000,000")."""
    return f"{n:,.0f}" if math.isfinite(n) else f"more than {_N_MAX:,}"


def _ratio(r: PowerResult) -> str:
    """`` (ratio x)`` to the reference plan, or nothing when either n is beyond the search."""
    q = r.ratio_to_reference
    return f" (ratio {q:.3f})" if math.isfinite(q) else ""


def describe_power_plan(r: PowerResult) -> list[str]:
    """The plan in words: what was solved, then the setting and the basis (two lines).

    Examples
    --------
    >>> describe_power_plan(plan_for_method("wald"))[0]  # doctest: +NORMALIZE_WHITESPACE
    'wald (asymptotic): n = 1,366 annotated examples for 80% power at a gap of 0.05;
     bbu-corrected needs 14,488 (ratio 0.094).'
    """
    basis = (f"simulation ({r.n_sims} data sets per evaluation, seed {r.seed}; simulated "
             f"power at the solution {r.achieved_power:.3f} +- {r.power_se:.3f})"
             if r.basis == "simulation" else "analytic")
    costs = (f"beta costs (concentration {r.concentration:g})" if r.cost == "beta"
             else f"{r.cost} costs")
    setting = (f"{costs} {r.rate_a:.3f} vs {r.rate_b:.3f}, group A share {r.share:g}, "
               f"{r.confidence_level:.0%} intervals" if r.gap == r.gap and r.gap != float("inf")
               else f"{costs}, base rate {r.rate_b:.3f}, group A share {r.share:g}")
    if r.tolerance is not None:
        what = (f"n = {r.n_total:,.0f} annotated examples for {r.power:.0%} power"
                if r.solved_for == "n_total" else f"power {r.power:.3f} at n = {r.n_total:,}")
        first = (f"{r.method} ({r.guarantee}): {what} to show parity (the interval within "
                 f"+/-{r.tolerance:g}) when the true gap is {r.gap:g}.")
    elif r.solved_for == "n_total":
        first = (f"{r.method} ({r.guarantee}): n = {_count(r.n_total)} annotated examples "
                 f"for {r.power:.0%} power at a gap of {r.gap:g}; {r.reference_method} "
                 f"needs {_count(r.reference_n_total)}{_ratio(r)}.")
    elif r.solved_for == "gap":
        first = (f"{r.method} ({r.guarantee}): with n = {r.n_total:,} the minimum "
                 f"detectable gap at {r.power:.0%} power is {r.gap:.4f}.")
    else:
        first = (f"{r.method} ({r.guarantee}): power {r.power:.3f} at n = {r.n_total:,} "
                 f"and a gap of {r.gap:g}; {r.reference_method} needs "
                 f"{_count(r.reference_n_total)} for that power{_ratio(r)}.")
    return [first, f"{setting}; basis: {basis}"]
