"""Coverage, width and power of every interval method, by seeded simulation.

:func:`simulate` draws two groups from a named scenario for every cell of a grid (total
size, share of group A) and runs each registered interval method on the same draws.  It
reports how often the interval covers the true gap (with a one-sided binomial test of
``coverage >= nominal``), its mean width, and how often it excludes 0 (power for a real
gap, type-I error on a null scenario).  :func:`peeking_error` measures what happens when an
interval is recomputed after every new pair of examples and the first exclusion of the truth
is believed: the betting confidence sequence keeps its level, the Wald interval does not.

Everything is driven by one integer seed: the same seed gives the same table.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fairbound._validate import check_choice, check_int, check_probability
from fairbound.errors import FairboundError
from fairbound.stats.base import (
    INTERVAL_METHODS,
    GroupStats,
    NotEstimable,
    check_confidence_level,
    difference_interval,
    get_method,
)


@dataclass(frozen=True)
class Scenario:
    """A data-generating process for two groups' costs in ``[0, 1]``.

    Attributes
    ----------
    name : str
        Registry key.
    kind : {'binary', 'beta'}
        0/1 costs (Bernoulli) or fractional Beta costs.
    mean_a, mean_b : float
        True mean cost of groups A and B.
    concentration : float
        ``alpha + beta`` of the Beta distributions (``kind='beta'`` only).
    """

    name: str
    kind: str
    mean_a: float
    mean_b: float
    concentration: float = 2.0

    @property
    def delta(self) -> float:
        """True gap ``E_A[cost] - E_B[cost]``."""
        return self.mean_a - self.mean_b

    @property
    def is_null(self) -> bool:
        """Whether the two groups have the same mean cost."""
        return self.mean_a == self.mean_b

    def draw(self, n_a: int, n_b: int, rng: np.random.Generator) -> tuple[GroupStats, GroupStats]:
        """Draw the statistics of one data set (costs kept as samples for Beta costs)."""
        if self.kind == "binary":
            return (GroupStats.from_counts(n_a, int(rng.binomial(n_a, self.mean_a))),
                    GroupStats.from_counts(n_b, int(rng.binomial(n_b, self.mean_b))))
        k = self.concentration
        xa = rng.beta(self.mean_a * k, (1 - self.mean_a) * k, n_a)
        xb = rng.beta(self.mean_b * k, (1 - self.mean_b) * k, n_b)
        return GroupStats.from_costs(xa, keep_sample=True), GroupStats.from_costs(
            xb, keep_sample=True)

    def stream(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``n`` costs per group in arrival order."""
        if self.kind == "binary":
            return (rng.binomial(1, self.mean_a, n).astype(float),
                    rng.binomial(1, self.mean_b, n).astype(float))
        k = self.concentration
        return (rng.beta(self.mean_a * k, (1 - self.mean_a) * k, n),
                rng.beta(self.mean_b * k, (1 - self.mean_b) * k, n))


#: Named scenarios: the acceptance case of 0/1 costs 0.15 vs 0.10, rare errors 0.03 vs 0.01,
#: fractional Beta costs with the same means (``alpha + beta = 2``), and null versions.
SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario("binary", "binary", 0.15, 0.10),
        Scenario("rare", "binary", 0.03, 0.01),
        Scenario("beta", "beta", 0.15, 0.10, 2.0),
        Scenario("null-binary", "binary", 0.10, 0.10),
        Scenario("null-rare", "binary", 0.02, 0.02),
        Scenario("null-beta", "beta", 0.10, 0.10, 2.0),
    )
}

#: The full grid of the issue: total sizes and shares of group A.
FULL_N = (100, 300, 1000, 3000, 10000)
FULL_SHARES = (0.1, 0.5)

_COLUMNS = (
    "scenario", "n_total", "share", "n_a", "n_b", "delta", "method", "guarantee", "reps",
    "not_estimable", "coverage", "coverage_low", "p_value", "mean_width", "excludes_zero",
    "seconds",
)


@dataclass(frozen=True)
class SimulationResult:
    """Coverage table of a simulation, one row per (scenario, size, share, method).

    Attributes
    ----------
    rows : tuple of dict
        Columns ``scenario, n_total, share, n_a, n_b, delta, method, guarantee, reps,
        not_estimable, coverage, coverage_low, p_value, mean_width, excludes_zero, seconds``.
        ``coverage`` counts intervals containing the true gap among the ``reps`` estimable
        runs; ``coverage_low`` is its one-sided 95% Clopper-Pearson lower bound; ``p_value``
        is the one-sided binomial test of ``coverage >= confidence_level``;
        ``excludes_zero`` is the power (type-I error on null scenarios).
    confidence_level : float
        Nominal level of every interval.
    n_reps : int
        Data sets drawn per cell.
    seed : int
        The seed that reproduces the table.
    """

    rows: tuple
    confidence_level: float
    n_reps: int
    seed: int

    def to_frame(self):
        """Return the table as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(list(self.rows), columns=list(_COLUMNS))

    def to_dict(self) -> dict:
        """Plain-Python form, e.g. for JSON."""
        return {"confidence_level": self.confidence_level, "n_reps": self.n_reps,
                "seed": self.seed, "rows": [dict(r) for r in self.rows]}

    def summary(self):
        """One row per method: worst and mean coverage over the cells, mean width."""
        df = self.to_frame()
        g = df.groupby(["method", "guarantee"], sort=False)
        out = g.agg(min_coverage=("coverage", "min"), mean_coverage=("coverage", "mean"),
                    mean_width=("mean_width", "mean"), cells=("coverage", "size"))
        return out.reset_index()

    def to_markdown(self) -> str:
        """Return the full table as GitHub-flavoured Markdown."""
        df = self.to_frame()
        cols = ["scenario", "n_total", "share", "method", "guarantee", "coverage",
                "mean_width", "excludes_zero", "reps"]
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for _, r in df[cols].iterrows():
            cells = []
            for c in cols:
                v = r[c]
                if isinstance(v, float):
                    cells.append("" if math.isnan(v) else f"{v:.3f}")
                else:
                    cells.append(str(v))
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"


def _validate_simulate(methods, scenarios, n_total, share, n_reps, confidence_level, seed):
    if methods is None:
        methods = tuple(sorted(INTERVAL_METHODS))
    elif isinstance(methods, str):
        methods = (methods,)
    names = tuple(get_method(m).name for m in methods)
    if isinstance(scenarios, str):
        scenarios = (scenarios,)
    scen = []
    for s in scenarios:
        if isinstance(s, Scenario):
            scen.append(s)
        elif s in SCENARIOS:
            scen.append(SCENARIOS[s])
        else:
            raise FairboundError(
                f"scenarios must be among {', '.join(SCENARIOS)}; got {s!r}", param="scenarios")
    sizes = (n_total,) if np.isscalar(n_total) else tuple(n_total)
    for n in sizes:
        if not (isinstance(n, int | np.integer) and n >= 4):
            raise FairboundError(f"n_total must be integers >= 4; got {n!r}", param="n_total")
    shares = tuple(check_probability(p, "share")
                   for p in ((share,) if np.isscalar(share) else share))
    n_reps = check_int(n_reps, "n_reps", low=1)
    rho = check_confidence_level(confidence_level)
    return names, tuple(scen), sizes, shares, n_reps, rho, check_int(seed, "seed")


def _group_sizes(n_total: int, share: float) -> tuple[int, int]:
    n_a = min(max(int(round(share * n_total)), 2), n_total - 2)
    return n_a, n_total - n_a


def simulate(
    methods: Sequence[str] | str | None = None,
    *,
    scenarios: Sequence[str] | str = ("binary", "rare", "beta", "null-binary", "null-beta"),
    n_total: Sequence[int] | int = FULL_N,
    share: Sequence[float] | float = FULL_SHARES,
    n_reps: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
) -> SimulationResult:
    """Measure coverage, width and power of interval methods over a grid of scenarios.

    Parameters
    ----------
    methods : str or sequence of str, optional
        Registered interval methods (default: all).
    scenarios : str or sequence of str
        Keys of :data:`SCENARIOS`.
    n_total : int or sequence of int
        Total examples (A + B) per data set.
    share : float or sequence of float
        Share of group A (the group with the higher mean cost).
    n_reps : int, default 1000
        Data sets per cell; every method sees the same data sets.
    confidence_level : float, default 0.95
        Nominal level of every interval.
    seed : int, default 0
        Reproduces the whole table.

    Returns
    -------
    SimulationResult
        One row per cell and method.

    Notes
    -----
    Methods that cannot handle a data set (e.g. a 0/1-only method on Beta costs, or a
    variance of 0) count as "not estimable" and are left out of that cell's coverage.  The
    binomial p-value tests ``H0: coverage >= nominal`` against ``coverage < nominal``; a
    small value is evidence that the method under-covers in that cell.

    Examples
    --------
    >>> r = simulate(["wald", "betting"], scenarios="binary", n_total=200, share=0.5,
    ...              n_reps=50, seed=1)
    >>> r.to_frame()[["method", "reps"]].values.tolist()
    [['wald', 50], ['betting', 50]]
    """
    from scipy import stats as st

    names, scen, sizes, shares, reps, rho, seed = _validate_simulate(
        methods, scenarios, n_total, share, n_reps, confidence_level, seed)
    rows = []
    root = np.random.SeedSequence(seed)
    cells = [(s, n, p) for s in scen for n in sizes for p in shares]
    children = root.spawn(len(cells))
    for (sc, n, p), child in zip(cells, children, strict=True):
        n_a, n_b = _group_sizes(n, p)
        data_seq, method_seq = child.spawn(2)
        drng = np.random.default_rng(data_seq)
        draws = [sc.draw(n_a, n_b, drng) for _ in range(reps)]
        mseeds = method_seq.spawn(len(names))
        for name, mseed in zip(names, mseeds, strict=True):
            mrng = np.random.default_rng(mseed)
            covered = excl = n_ok = n_bad = 0
            width = 0.0
            t0 = time.perf_counter()
            for a, b in draws:
                try:
                    lo, hi = difference_interval(a, b, method=name, confidence_level=rho,
                                                 rng=mrng)
                except NotEstimable:
                    n_bad += 1
                    continue
                if not (math.isfinite(lo) and math.isfinite(hi)):
                    n_bad += 1
                    continue
                n_ok += 1
                covered += lo <= sc.delta <= hi
                excl += lo > 0 or hi < 0
                width += hi - lo
            secs = time.perf_counter() - t0
            if n_ok:
                cov = covered / n_ok
                cov_low = float(st.binomtest(covered, n_ok, rho, alternative="greater")
                                .proportion_ci(0.95).low)
                pval = float(st.binomtest(covered, n_ok, rho, alternative="less").pvalue)
            else:
                cov = cov_low = pval = math.nan
            rows.append({
                "scenario": sc.name, "n_total": n, "share": p, "n_a": n_a, "n_b": n_b,
                "delta": sc.delta, "method": name, "guarantee": get_method(name).guarantee,
                "reps": n_ok, "not_estimable": n_bad, "coverage": cov,
                "coverage_low": cov_low, "p_value": pval,
                "mean_width": width / n_ok if n_ok else math.nan,
                "excludes_zero": excl / n_ok if n_ok else math.nan, "seconds": secs,
            })
    return SimulationResult(tuple(rows), rho, reps, seed)


@dataclass(frozen=True)
class PeekingResult:
    """How often a stream's running interval ever misses the truth.

    Attributes
    ----------
    method : tuple of str
        ``"wald"`` (recomputed after every pair) and ``"betting"`` (confidence sequence).
    ever_missed : tuple of float
        Fraction of streams whose interval excluded the true gap at some look.
    missed_at_end : tuple of float
        Fraction whose final interval excludes it.
    n_pairs, n_streams, first_look, seed : int
        Stream length, number of streams, first pair count looked at, seed.
    confidence_level : float
        Nominal level.
    """

    method: tuple
    ever_missed: tuple
    missed_at_end: tuple
    n_pairs: int
    n_streams: int
    first_look: int
    confidence_level: float
    seed: int

    def to_frame(self):
        """Return one row per method as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame({"method": self.method, "ever_missed": self.ever_missed,
                             "missed_at_end": self.missed_at_end})

    def to_dict(self) -> dict:
        """Plain-Python form."""
        return {"method": list(self.method), "ever_missed": list(self.ever_missed),
                "missed_at_end": list(self.missed_at_end), "n_pairs": self.n_pairs,
                "n_streams": self.n_streams, "first_look": self.first_look,
                "confidence_level": self.confidence_level, "seed": self.seed}


def peeking_error(
    *,
    scenario: str = "null-binary",
    n_pairs: int = 2500,
    n_streams: int = 200,
    first_look: int = 10,
    confidence_level: float = 0.95,
    seed: int = 0,
) -> PeekingResult:
    """Fraction of streams whose running interval misses the true gap at some look.

    Pairs ``(c_A, c_B)`` arrive one at a time; after each pair from ``first_look`` on, the
    Wald interval of the paired differences is recomputed, and the betting confidence
    sequence (open-ended bets, grid ends rounded outwards) is updated.

    Parameters
    ----------
    scenario : str, default 'null-binary'
        Key of :data:`SCENARIOS`.
    n_pairs : int, default 2500
        Pairs per stream.
    n_streams : int, default 200
        Number of independent streams.
    first_look : int, default 10
        First number of pairs at which the intervals are inspected.
    confidence_level : float, default 0.95
        Nominal level.
    seed : int, default 0
        Seed of the streams.

    Returns
    -------
    PeekingResult
        Per method, the fraction of streams that ever (and finally) missed the truth.

    Notes
    -----
    A fixed-n interval recomputed after every look is no longer a 95% statement about the
    stream: by the law of the iterated logarithm the Wald interval eventually misses with
    probability 1.  The confidence sequence's guarantee covers all looks at once.

    Examples
    --------
    >>> r = peeking_error(n_pairs=300, n_streams=20, seed=3)
    >>> r.method
    ('wald', 'betting')
    """
    from scipy import stats as st

    from fairbound.stats.betting import betting_confidence_sequence

    check_choice(scenario, SCENARIOS, "scenario")
    for pname, v, lo in (("n_pairs", n_pairs, 2), ("n_streams", n_streams, 1),
                         ("first_look", first_look, 2)):
        check_int(v, pname, low=lo)
    if first_look > n_pairs:
        raise FairboundError(f"first_look must be <= n_pairs ({n_pairs}); got {first_look!r}",
                             param="first_look")
    rho = check_confidence_level(confidence_level)
    sc = SCENARIOS[scenario]
    rng = np.random.default_rng(seed)
    z = float(st.norm.ppf(0.5 + rho / 2))
    t = np.arange(1, n_pairs + 1)
    look = t >= first_look
    ever = np.zeros(2)
    end = np.zeros(2)
    for _ in range(n_streams):
        xa, xb = sc.stream(n_pairs, rng)
        d = xa - xb
        mean = np.cumsum(d) / t
        var = np.maximum(np.cumsum(d * d) / t - mean**2, 0.0)
        half = z * np.sqrt(var / t)
        miss_w = (np.abs(mean - sc.delta) > half) & look
        ever[0] += miss_w.any()
        end[0] += miss_w[-1]
        cs = betting_confidence_sequence((d + 1.0) / 2.0, confidence_level=rho, grid_size=512)
        lo, hi = 2 * cs.low - 1, 2 * cs.high - 1
        miss_b = ((lo > sc.delta) | (hi < sc.delta)) & look
        ever[1] += miss_b.any()
        end[1] += miss_b[-1]
    return PeekingResult(("wald", "betting"), tuple((ever / n_streams).tolist()),
                         tuple((end / n_streams).tolist()), int(n_pairs), int(n_streams),
                         int(first_look), rho, int(seed))


def power_table(
    sim: SimulationResult | Sequence[str] | None = None,
    *,
    gap: float = 0.05,
    rate_b: float = 0.10,
    power: float = 0.8,
    n_sims: int = 400,
    seed: int = 0,
    skip_beta: Sequence[str] = (),
):
    """Required total n per method for 0/1 and Beta costs (the issue's acceptance case).

    Parameters
    ----------
    sim : SimulationResult or sequence of str, optional
        Methods to plan for (those of a simulation; default all registered).
    gap, rate_b, power : float
        True gap, group B's mean cost and target power (A's cost is ``rate_b + gap``).
    n_sims : int, default 400
        Simulated data sets per power evaluation for order-dependent and resampling
        methods.
    seed : int, default 0
        Seed of those simulations.
    skip_beta : sequence of str
        Methods not planned for Beta costs (NaN), e.g. ones too slow to simulate.

    Returns
    -------
    pandas.DataFrame
        ``method, guarantee, basis, n_binary, ratio_binary, n_beta, ratio_beta`` (ratios to
        ``bbu-corrected``; NaN where a method does not apply or was skipped).

    Examples
    --------
    >>> power_table(["wald"])[["method", "n_binary"]].values.tolist()
    [['wald', 1366]]
    """
    import pandas as pd

    from fairbound.planning.power import required_n

    if sim is None:
        names = tuple(sorted(INTERVAL_METHODS))
    elif isinstance(sim, SimulationResult):
        names = tuple(dict.fromkeys(r["method"] for r in sim.rows))
    else:
        names = tuple(get_method(m).name for m in sim)
    rows = []
    for name in names:
        m = get_method(name)
        row = {"method": name, "guarantee": m.guarantee, "basis": None}
        for cost in ("binary", "beta"):
            if cost != "binary" and (m.binary_only or name in skip_beta):
                row[f"n_{cost}"], row[f"ratio_{cost}"] = math.nan, math.nan
                continue
            r = required_n(name, gap=gap, power=power, rate_b=rate_b, cost=cost,
                           n_sims=n_sims, seed=seed)
            row["basis"] = r.basis
            row[f"n_{cost}"] = r.n_total
            row[f"ratio_{cost}"] = r.ratio_to_reference
        rows.append(row)
    out = pd.DataFrame(rows, columns=["method", "guarantee", "basis", "n_binary",
                                      "ratio_binary", "n_beta", "ratio_beta"])
    out.attrs.update(n_sims=n_sims, seed=seed, gap=gap, rate_b=rate_b, power=power)
    return out


def _fmt(v, digits=3) -> str:
    if v is None:
        return ""
    if isinstance(v, float | np.floating):
        if math.isnan(v):
            return "n/a"
        if math.isinf(v):
            return "inf"
        if float(v).is_integer() and abs(v) >= 10:
            return f"{v:,.0f}"
        return f"{v:.{digits}f}"
    if isinstance(v, int | np.integer):
        return f"{v:,}"
    return str(v)


def _md_table(header: list[str], rows: list[list]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(_fmt(v) for v in r) + " |" for r in rows]
    return out


def methods_page(
    sim: SimulationResult, power=None, peeking: PeekingResult | None = None, *,
    command: str = "python benchmarks/methods_table.py",
) -> str:
    """Markdown page comparing every method: coverage, width, required n, peeking error.

    Parameters
    ----------
    sim : SimulationResult
        Coverage simulation.
    power : pandas.DataFrame, optional
        Output of :func:`power_table`.
    peeking : PeekingResult, optional
        Output of :func:`peeking_error`.
    command : str
        The command that regenerates the page (printed at the top).

    Returns
    -------
    str
        The page.

    Examples
    --------
    >>> r = simulate(["wald"], scenarios="binary", n_total=100, share=0.5, n_reps=20)
    >>> methods_page(r).splitlines()[0]
    '# Interval methods compared'
    """
    df = sim.to_frame()
    nominal = sim.confidence_level
    lines = [
        "# Interval methods compared",
        "",
        f"Generated by `{command}` (seed {sim.seed}, {sim.n_reps:,} data sets per cell, "
        f"nominal level {nominal:.0%}); the same seed gives the same page.",
        "",
        "Scenarios: `binary` 0/1 costs 0.15 vs 0.10; `rare` 0.03 vs 0.01; `beta` Beta costs "
        "with means 0.15 vs 0.10 (alpha + beta = 2); `null-*` equal means.  Group A (the "
        "higher cost) has the share given (0.1 or 0.5) of `n_total` examples.  Coverage is "
        "the share of intervals containing the true gap; *min coverage* is the worst cell.",
        "",
        "Only methods labelled **finite-sample** promise coverage >= nominal for every n; "
        "the tests assert it for them in every cell with a one-sided binomial test.  "
        "**Asymptotic**, **bayesian** and **resampling** methods are shown with their "
        "measured coverage and make no such promise (they often under-cover for small "
        "groups and rare errors).",
        "",
        "## Which method",
        "",
        "- Verdicts: `auto`, the default: `exact` for 0/1 costs (the exact unconditional "
        "interval of Agresti & Min 2001, deterministic, coverage >= nominal at every n, "
        "within a few per cent of Wald's width) and `betting` for fractional costs "
        "(finite-sample, no variance or group-share knowledge; capital averaged over 16 "
        "arrangements so that the verdict does not hang on one).",
        "- Estimates with an asymptotic interval: `newcombe` (0/1 costs) or `welch` "
        "(fractional costs); they are narrower, but their coverage drops for small groups "
        "and rare errors (see the tables).  `agresti-caffo` adds pseudo-examples that cost "
        "power on fractional costs.",
        "- Reproducing Ethayarajh (2020): `bbu`; its guaranteed form `bbu-corrected` needs "
        "several times more data than `betting`.",
        "",
        "## Summary",
        "",
    ]
    summ = sim.summary().set_index("method")
    ref_cell = df[(df.scenario == "binary") & (df.share == 0.5)]
    ref_n = int(ref_cell.n_total.max()) if len(ref_cell) else None
    header = ["method", "guarantee", "min coverage", "mean coverage", "cells",
              f"mean width (binary, n={ref_n}, share 0.5)" if ref_n else "mean width"]
    if power is not None:
        header += ["n for 80% power, 0/1", "ratio to BBU", "n for 80% power, Beta",
                   "ratio to BBU (Beta)", "planning basis"]
        pw = power.set_index("method")
    rows = []
    for name, s in summ.iterrows():
        w = ref_cell[ref_cell.method == name].query("n_total == @ref_n").mean_width \
            if ref_n else df[df.method == name].mean_width
        row = [f"`{name}`", s.guarantee, s.min_coverage, s.mean_coverage, int(s.cells),
               float(w.mean()) if len(w) else math.nan]
        if power is not None:
            p = pw.loc[name] if name in pw.index else None
            row += ([p.n_binary, p.ratio_binary, p.n_beta, p.ratio_beta, p.basis]
                    if p is not None else [math.nan] * 4 + [""])
        rows.append(row)
    lines += _md_table(header, rows)
    if power is not None:
        lines += [
            "",
            "Required n: total annotated examples (equal groups) for 80% power to exclude 0 "
            "at a true gap of 0.05 (0.15 vs 0.10), from `fairbound.planning.power` "
            "(analytic normal approximation for closed-form methods, seeded simulation with "
            f"{power.attrs.get('n_sims', 400)} data sets per evaluation, seed "
            f"{power.attrs.get('seed', 0)}, for order-dependent and resampling methods).  "
            "The BBU reference is `bbu-corrected` with its worst-case variance.",
        ]
    if peeking is not None:
        lines += [
            "",
            "## Looking after every pair",
            "",
            f"{peeking.n_streams} null streams of {peeking.n_pairs:,} pairs "
            f"(scenario null-binary), intervals inspected after every pair from pair "
            f"{peeking.first_look} on:",
            "",
        ]
        lines += _md_table(
            ["interval", "streams that ever missed the truth", "missed at the end"],
            [[m, e, f] for m, e, f in zip(peeking.method, peeking.ever_missed,
                                           peeking.missed_at_end, strict=True)])
        lines += [
            "",
            "Recomputing a fixed-n interval after each batch inflates its error far beyond "
            "5%; the betting confidence sequence (what `fairbound monitor` prints) keeps it.",
        ]
    lines += ["", "## Coverage per cell", ""]
    piv = df.pivot_table(index=["scenario", "n_total", "share"], columns="method",
                         values="coverage", sort=False)
    methods = list(dict.fromkeys(df.method))
    rows = [[idx[0], idx[1], str(idx[2]), *[piv.loc[idx].get(m, math.nan) for m in methods]]
            for idx in piv.index]
    lines += _md_table(["scenario", "n_total", "share", *[f"`{m}`" for m in methods]], rows)
    lines += ["", "## Mean width per cell", ""]
    piv = df.pivot_table(index=["scenario", "n_total", "share"], columns="method",
                         values="mean_width", sort=False)
    rows = [[idx[0], idx[1], str(idx[2]), *[piv.loc[idx].get(m, math.nan) for m in methods]]
            for idx in piv.index]
    lines += _md_table(["scenario", "n_total", "share", *[f"`{m}`" for m in methods]], rows)
    lines += ["", "## Methods", ""]
    for name in methods:
        m = get_method(name)
        lines.append(f"- `{name}` ({m.guarantee}): {m.summary} *{m.reference}*")
    lines += [
        "",
        "## Commands",
        "",
        "```",
        "fairbound simulate --methods betting,wald --scenarios rare --n 100,1000 --reps 1000",
        "fairbound simulate --methods betting,wald --scenarios null-binary --n 1000 "
        "--peeking   # recomputed Wald vs betting sequences",
        "fairbound plan --method betting --bias 0.05 --power 0.8     # required n",
        "fairbound plan --method agresti-caffo --n 2000              # minimum detectable gap",
        "fairbound monitor rows.csv --group g --label y --prediction p "
        "--metric equal_opportunity --follow",
        "```",
        "",
        "In Python: `fairbound.evaluation.simulate.simulate`, `peeking_error`, "
        "`fairbound.planning.power.solve_power` (`required_n`, `minimum_detectable_gap`), "
        "`fairbound.stats.monitor.Monitor`, `fairbound.stats.betting.betting_mean_interval` "
        "and `betting_confidence_sequence`.",
    ]
    return "\n".join(lines) + "\n"
