"""Subgroup discovery: which slices of the data bear more of a metric's cost.

:func:`discover` reads the data in one ``GROUPING SETS`` scan
(:mod:`fairbound.engines.discover`, DuckDB or Spark SQL) into every candidate slice's
confusion counts, then :func:`evaluate` tests each slice against its complement with
Fisher's exact test under Tarone-weighted error control, its levels raised by the tests'
attainable sizes (:func:`decide`), and bounds its gap with simultaneous finite-sample
intervals (:mod:`fairbound.stats.slices`, :mod:`fairbound.audits.control`).
"""

from __future__ import annotations

import datetime as _dt
import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairbound._validate import check_choice, check_int
from fairbound._words import SMALL_GROUP
from fairbound.audits.control import (
    check_error_control,
    controlled,
    dependence_robust_level,
    level_function,
)
from fairbound.audits.discover.result import COMPARISONS, DiscoverResult, SliceFinding
from fairbound.audits.verdicts import A_DISADVANTAGED, NO_EVIDENCE, NOT_ESTIMABLE
from fairbound.errors import FairboundError
from fairbound.metrics import COST, check_favourable, get_metric, oriented
from fairbound.stats.base import check_confidence_level
from fairbound.stats.slices import (
    best_refinement_bound,
    depth_weights,
    discrete_scale,
    exact_detectable_gap,
    exact_harm_pvalue,
    exact_min_log_pvalue,
    exact_refinement_log_pvalue,
    exact_required_total_n,
    gap_lower_bound,
    harmonic,
    tarone_depth_weights,
)

#: Defaults, documented in docs/discover.md.
DEPTH = 2
MIN_SUPPORT = 0.01
MAX_CANDIDATES = 100_000
MAX_LEVELS = 100
MAX_ROWS = 20
#: Two slices whose rows overlap at least this much (Jaccard) are near duplicates.
NEAR_DUPLICATE = 0.9
#: Candidates are pruned at this miss probability or the largest one in use, whichever
#: is larger, so the slices evaluated (and the rows reported) do not depend on the level.
PRUNE_MISS = 0.5
#: Slices are ranked by their bound at this miss probability times their weight (a
#: ranking that does not change with the level asked for).
REFERENCE_MISS = 0.05


@dataclass(frozen=True)
class _State:
    """Everything :func:`evaluate` needs: the counts of every candidate, no data."""

    counts: Any             # fairbound.engines.discover.SliceCounts
    metric: str
    component: str
    rate: str
    rate_is_cost: bool
    favourable: str
    comparison: str
    n_den: np.ndarray
    k: np.ndarray
    depth: int
    max_rows: int
    columns: dict
    index: dict             # key tuple -> row of the counts


def _check_features(features) -> tuple[str, ...]:
    if isinstance(features, str):
        features = [features]
    if not isinstance(features, list | tuple) or not features or not all(
            isinstance(f, str) and f for f in features):
        raise FairboundError(f"features must be a list of column names; got {features!r:.80}",
                             param="features")
    seen = set()
    for f in features:
        if f in seen:
            raise FairboundError(f"features: {f!r} is given twice; name each column once",
                                 param="features")
        seen.add(f)
    return tuple(features)


def _check_min_support(value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            math.isfinite(value) and value > 0):
        raise FairboundError("min_support must be a share of the rows in (0, 1) or a number "
                             f"of rows >= 1; got {value!r}", param="min_support")
    if value >= 1 and float(value) != int(value):
        raise FairboundError(f"min_support must be a whole number of rows when >= 1; got "
                             f"{value!r}", param="min_support")
    return float(value)


def discover(
    data,
    features,
    *,
    label: str | None = None,
    prediction: str | None = None,
    metric: str = "accuracy_parity",
    depth: int = DEPTH,
    min_support: float = MIN_SUPPORT,
    max_candidates: int = MAX_CANDIDATES,
    comparison: str = "complement",
    favourable: str = "positive",
    error_control: str = "family",
    confidence_level: float = 0.95,
    pos_label: Any = None,
    bins=None,
    max_levels: int = MAX_LEVELS,
    max_rows: int = MAX_ROWS,
    engine: str = "auto",
) -> DiscoverResult:
    """Search every slice of up to ``depth`` feature conditions for one that is harmed.

    Parameters
    ----------
    data : DataFrame, Table, path, ...
        Predictions, as :func:`fairbound.audit` reads them (DuckDB: pandas, polars, pyarrow,
        dicts of arrays, CSV / Parquet / JSON-lines files, DuckDB databases).
    features : list of str
        Columns slices are built from.  Categorical columns give one condition per value
        (at most ``max_levels`` values); numeric columns with more than 10 values are cut
        into ``bins`` quantile bins (edges from the feature alone).
    label, prediction : str
        0/1 (or true/false) columns, or any values with ``pos_label``; ``prediction`` may be
        a checked expression such as ``"score >= 0.5"``.  ``demographic_parity`` needs no
        label.
    metric : str
        One metric of the audit with a single component (default ``"accuracy_parity"``:
        the error rate; also ``demographic_parity``, ``equal_opportunity``,
        ``false_positive_rate``, ``false_negative_rate``, ``predictive_parity``,
        ``equalized_odds_cost``).
    depth : int
        Most conditions in a slice (default 2; capped at the number of features).
    min_support : float
        Rows a slice needs: a share of all rows if below 1 (default 0.01), else a count.
    max_candidates : int
        Refuse (before the main scan) a lattice that could hold more slices (default
        100,000).
    comparison : {'complement', 'population'}
        Each slice against the rows outside it (default) or against every row.
    favourable : {'positive', 'negative'}
        Whether the positive prediction is the favourable outcome; it decides which side of
        a rate is the cost.
    error_control : {'family', 'fdr', 'none'}
        ``"family"`` (default): each slice's one-sided Fisher exact test against its
        complement, at ``s alpha w`` with Tarone-weighted depth weights ``w`` over the
        slices that can reach their level at all and the largest ``s >= 1`` the tests'
        attainable sizes leave room for (both fixed by the margins), so no slice is flagged
        falsely with probability at least ``confidence_level``; the intervals shown are
        depth-weighted Bonferroni over the whole lattice, so they hold jointly at that
        level too.  ``"fdr"``: the weighted Benjamini-Yekutieli step-up over the testable
        slices (valid under any dependence) with false-coverage-rate intervals.
        ``"none"``: each slice on its own.
    confidence_level : float
        The level of the search.
    pos_label : object, optional
        The positive class of label and prediction when they are not 0/1.
    bins : int or dict, optional
        Quantile bins for numeric features (default 4), or a dict mapping a column to a
        number of bins or to a list of edges.
    max_levels : int
        Refuse a categorical feature with more distinct values (default 100).
    max_rows : int
        Slices reported besides the flagged ones (default 20).
    engine : {'auto', 'duckdb', 'spark'}
        Who runs the two scans: DuckDB for files and in-memory frames, Spark SQL for a
        Spark DataFrame (``"auto"`` picks by the data; ``"spark"`` with a path reads the
        file with Spark).

    Returns
    -------
    DiscoverResult

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> n = 4000
    >>> df = pd.DataFrame({"sex": rng.choice(["F", "M"], n),
    ...                    "region": rng.choice(["N", "S", "E", "W"], n),
    ...                    "y": rng.integers(0, 2, n)})
    >>> harmed = (df.sex == "F") & (df.region == "S")
    >>> wrong = rng.random(n) < np.where(harmed, 0.35, 0.1)
    >>> df["p"] = np.where(wrong, 1 - df.y, df.y)
    >>> res = discover(df, ["sex", "region"], label="y", prediction="p")
    >>> [c.slice for c in res.flagged][:1]
    ['sex=F & region=S']
    >>> res.n_candidates
    14
    """
    features = _check_features(features)
    d = check_int(depth, "depth", low=1)
    d = min(d, len(features))
    ms = _check_min_support(min_support)
    mc = check_int(max_candidates, "max_candidates", low=1)
    ml = check_int(max_levels, "max_levels", low=2)
    mr = check_int(max_rows, "max_rows", low=1)
    comparison = check_choice(comparison, COMPARISONS, "comparison", fold=True)
    favourable = check_favourable(favourable)
    error_control = check_error_control(error_control)
    rho = check_confidence_level(confidence_level)
    engine = check_choice(engine, ("auto", "duckdb", "spark"), "engine")
    spark_frame = type(data).__module__.startswith("pyspark")
    if engine == "duckdb" and spark_frame:
        raise FairboundError("engine: 'duckdb' reads files and in-memory frames; a Spark "
                             "DataFrame runs on engine='spark' (or 'auto')", param="engine")
    if engine == "spark" and not spark_frame:
        if not isinstance(data, str | os.PathLike):
            raise FairboundError("engine: 'spark' needs a Spark DataFrame or a file path; "
                                 f"got {type(data).__name__}", param="engine")
        from fairbound.engines.spark import read_spark

        data = read_spark(data)
    m = get_metric(metric)
    if m is COST or len(m.components) != 1:
        raise FairboundError(f"metric: discover takes a metric with one rate; "
                             f"{m.name!r} has {len(m.components) or 'no'} (use e.g. "
                             "equal_opportunity or false_positive_rate)", param="metric")
    if prediction is None:
        raise FairboundError("prediction: name the predicted-label column", param="prediction")
    needs_label = m.name != "demographic_parity"
    if needs_label and label is None:
        raise FairboundError(f"label: metric {m.name!r} needs the true-label column",
                             param="label")
    from fairbound.engines.discover import count_slices

    counts = count_slices(data, features=features, label=label, prediction=prediction,
                          pos_label=pos_label, depth=d, min_support=ms, max_candidates=mc,
                          max_levels=ml, bins=bins, needs_label=needs_label)
    comp = oriented(m.components[0], favourable)
    n_den, k = comp.counts(counts.confusion, 1)
    state = _State(counts=counts, metric=m.name, component=comp.name, rate=comp.rate,
                   rate_is_cost=comp.rate_is_cost, favourable=favourable,
                   comparison=comparison, n_den=np.asarray(n_den, dtype=float),
                   k=np.asarray(k, dtype=float), depth=d, max_rows=mr,
                   columns={"features": list(features), "label": label,
                            "prediction": prediction},
                   index={tuple(kk): j for j, kk in enumerate(counts.keys.tolist())})
    return evaluate(state, confidence_level=rho, error_control=error_control)


def _label(counts, key) -> tuple[str, tuple]:
    conds = tuple(counts.features[j].condition(int(c)) for j, c in enumerate(key) if c >= 0)
    return " & ".join(conds), conds


@dataclass(frozen=True)
class Decision:
    """The verdicts of a search and the levels behind them (what :func:`decide` returns)."""

    m_total: int            # candidates (the whole lattice)
    w: np.ndarray           # the intervals' depth weights over the lattice
    estimable: np.ndarray
    est: np.ndarray         # observed cost gap, slice - complement
    wt: np.ndarray          # the test's Tarone depth weights (0: not testable)
    m_t: int                # testable slices
    pruned: np.ndarray
    live: np.ndarray
    idx: np.ndarray         # slices whose p-value and bound are computed
    pv: np.ndarray          # exact p-values (NaN where not computed)
    test_miss: np.ndarray   # the level each slice is tested at
    scale: float            # how far the discrete sizes raised the levels (family)
    flagged: np.ndarray
    miss: np.ndarray        # the intervals' miss probabilities
    n_found: int

    @property
    def plan_miss(self) -> np.ndarray:
        """The level "n needed" plans for: each test level before the discrete scale."""
        return self.test_miss / self.scale


def decide(n_s, k_s, N: float, K: float, dep, lattice: dict, *, confidence_level: float,
           error_control: str) -> Decision:
    """The verdicts of every candidate from its counts.

    The statistical core of :func:`evaluate`, which adds the intervals' bounds and the
    rows; the benchmarks call it on simulated counts.

    Parameters
    ----------
    n_s, k_s : numpy.ndarray
        Each candidate's denominator rows and cost rows.
    N, K : float
        The same for the whole population.
    dep : numpy.ndarray
        Each candidate's depth.
    lattice : dict
        Candidates by depth.
    confidence_level : float
    error_control : {'family', 'fdr', 'none'}

    Returns
    -------
    Decision

    Examples
    --------
    >>> import numpy as np
    >>> d = decide(np.array([500., 500., 250.]), np.array([100., 50., 60.]), 1000., 150.,
    ...            np.array([1, 1, 2]), {1: 2, 2: 1}, confidence_level=0.95,
    ...            error_control="family")
    >>> d.flagged.tolist(), d.m_t, d.plan_miss.round(4).tolist()
    ([True, False, True], 3, [0.0125, 0.0125, 0.025])

    Tarone's levels above, raised by the tests' attainable sizes (the slices' exact tests
    reach few p-values, so a common factor keeps their sizes' sum within 0.05):

    >>> round(d.scale, 3), d.test_miss.round(4).tolist()
    (1.387, [0.0173, 0.0173, 0.0347])
    """
    rho, control = confidence_level, error_control
    n_s, k_s = np.asarray(n_s, dtype=float), np.asarray(k_s, dtype=float)
    n_c, k_c = N - n_s, K - k_s
    m_total = int(sum(lattice.values()))
    w = depth_weights(dep, lattice)
    alpha = 1.0 - rho
    h = harmonic(m_total) if control == "fdr" else 1.0
    estimable = (n_s > 0) & (n_c > 0)
    # --- the verdicts: Fisher's exact test under Tarone-weighted Bonferroni / BY -------
    # which slices can reach a p-value below their level depends on the margins only
    # (n_S, N, K), so the testable set and its weights are fixed before the costs are
    # placed (docs/discover.md, "The test")
    lmin = np.full(len(n_s), np.inf)
    if estimable.any():
        lmin[estimable] = exact_min_log_pvalue(n_s[estimable], K, N)
    if control == "none":
        wt, m_t = np.where(np.isfinite(lmin), 1.0, 0.0), int(np.isfinite(lmin).sum())
        top_test = alpha
    else:
        wt, m_t = tarone_depth_weights(dep, lmin, alpha, fdr=control == "fdr")
        top_test = alpha * float(wt.max(initial=0.0)) * (
            m_t / harmonic(m_t) if control == "fdr" and m_t else 1.0)
    # family: raise every level by the factor the tests' attainable sizes leave room for
    # (a function of the margins too: docs/discover.md, "Discrete sizes")
    scale = 1.0
    if control == "family" and m_t:
        scale = discrete_scale(alpha * wt, np.where(estimable, n_s, 0.0), K, N, alpha,
                               cap=PRUNE_MISS)
        top_test *= scale
    # --- the intervals: Clopper-Pearson differences, depth-weighted over the lattice ---
    top = alpha if control == "none" else alpha * float(w.max(initial=0.0)) * (
        m_total / h if control == "fdr" else 1.0)
    # a slice is pruned (with all its refinements) when neither its refinements' exact
    # p-values nor their bounds could reach any level in use
    pruned = estimable & (best_refinement_bound(k_s, K, N, max(PRUNE_MISS, top)) <= 0) & (
        exact_refinement_log_pvalue(k_s, K, N) > math.log(max(PRUNE_MISS, top_test)))
    live = estimable & ~pruned
    with np.errstate(all="ignore"):
        est = k_s / np.where(n_s > 0, n_s, 1) - k_c / np.where(n_c > 0, n_c, 1)
    # a bound can only be above 0, and the exact p-value below 1/2, where the observed gap
    # is (CP_lower <= k/n <= CP_upper at miss <= 1/2; the hypergeometric median is within
    # the mean's floor and ceiling), so both are computed there only
    idx = np.flatnonzero(live & ((est > 0) | (max(top, top_test) >= 0.5)))
    pv = np.full(len(n_s), np.nan)
    pv[idx] = exact_harm_pvalue(k_s[idx], n_s[idx], K, N)

    def test(level_of):
        base = 1.0 - level_of(1)
        if control == "fdr":
            tm = base * m_t * wt
        else:
            tm = alpha * scale * wt
        return tm, np.nan_to_num(pv, nan=2.0) <= tm

    if m_t:
        test_miss, flagged = controlled(
            test, error_control=control,
            confidence_level=dependence_robust_level(rho, m_t, control), m=m_t,
            discoveries=lambda b: int(np.sum(b[1])))
    else:
        test_miss, flagged = np.zeros(len(n_s)), np.zeros(len(n_s), bool)
    flagged = flagged & live
    n_found = int(flagged.sum())
    if control == "none":
        miss = np.full(len(n_s), alpha)
    else:   # family: alpha w; fdr: false-coverage-rate intervals at R alpha w / H_M
        level_of = level_function(control, dependence_robust_level(rho, m_total, control),
                                  m_total, discoveries=max(n_found, 1))
        miss = (1.0 - level_of(1)) * m_total * w
    return Decision(m_total=m_total, w=w, estimable=estimable, est=est, wt=wt, m_t=m_t,
                    pruned=pruned, live=live, idx=idx, pv=pv, test_miss=test_miss,
                    scale=scale, flagged=flagged, miss=miss, n_found=n_found)


def evaluate(state: _State, *, confidence_level: float, error_control: str) -> DiscoverResult:
    """Test every candidate of ``state`` and build the result (no data read)."""
    from fairbound._version import __version__

    rho = check_confidence_level(confidence_level)
    control = check_error_control(error_control)
    c = state.counts
    keys, depth_of = c.keys, (c.keys >= 0).sum(axis=1)
    N, K = float(state.n_den[0]), float(state.k[0])
    n_s, k_s = state.n_den[1:], state.k[1:]
    n_c, k_c = N - n_s, K - k_s
    dep = depth_of[1:]
    dec = decide(n_s, k_s, N, K, dep, c.lattice, confidence_level=rho,
                 error_control=control)
    m_total, w, estimable, est = dec.m_total, dec.w, dec.estimable, dec.est
    wt, m_t, pruned, live, idx = dec.wt, dec.m_t, dec.pruned, dec.live, dec.idx
    pv, test_miss, flagged, miss, n_found = (dec.pv, dec.test_miss, dec.flagged, dec.miss,
                                             dec.n_found)
    lb = np.full(len(n_s), np.nan)
    lb[idx] = gap_lower_bound(k_s[idx], n_s[idx], k_c[idx], n_c[idx], miss[idx])
    # a ranking that does not depend on the level: the gap's z statistic less the normal
    # critical value at REFERENCE_MISS spread by the same weights
    from scipy.special import ndtri

    ref = np.full(len(n_s), REFERENCE_MISS) if control == "none" else REFERENCE_MISS * w
    with np.errstate(all="ignore"):
        pooled = K / N
        z = est / np.sqrt(max(pooled * (1 - pooled), 1e-12) * (1 / n_s + 1 / n_c))
        score = z + ndtri(ref)
    candidates = [i for i in idx[np.lexsort((-est[idx], -score[idx]))].tolist()
                  if est[i] > 0 or flagged[i]]
    index = state.index
    rows = _choose_rows(candidates, flagged, keys, c.support, index, state.max_rows)
    scale = (n_c / N) if state.comparison == "population" else np.ones(len(n_s))
    need = np.full(len(n_s), np.nan)
    chosen = np.array([r for r, _ in rows], dtype=int) - 1 if rows else np.zeros(0, int)
    if chosen.size:
        need[chosen] = exact_required_total_n(k_s[chosen], n_s[chosen], k_c[chosen],
                                              n_c[chosen], dec.plan_miss[chosen])

    def brief(j: int) -> dict:
        i = j - 1
        label, _ = _label(c, keys[j])
        v = NOT_ESTIMABLE if not estimable[i] else (
            A_DISADVANTAGED if flagged[i] else NO_EVIDENCE)
        g = est[i] * scale[i] if estimable[i] else math.nan
        return {"slice": label, "rows": int(c.support[j]), "n_a": int(n_s[i]),
                "rate_gap": _rate_gap(g, state.rate_is_cost), "verdict": v}

    out = []
    for j, merged in rows:
        i = j - 1
        label, conds = _label(c, keys[j])
        parents = []
        for f in np.flatnonzero(keys[j] >= 0):
            pk = keys[j].copy()
            pk[f] = -1
            pj = index.get(tuple(pk.tolist()))
            if pj is not None and pj != 0:
                parents.append(brief(pj))
        kids = []
        for f in np.flatnonzero(keys[j] < 0):
            for lev in range(len(c.features[f].levels)):
                ck = keys[j].copy()
                ck[f] = lev
                cj = index.get(tuple(ck.tolist()))
                if cj is not None:
                    kids.append(brief(cj))
        kids = sorted(kids, key=lambda b: -_cost_gap(b, state.rate_is_cost))[:5]
        notes = []
        above = [b["slice"] for b in parents if b["verdict"] == A_DISADVANTAGED]
        if flagged[i] and above:
            notes.append(f"refines the flagged slice {above[0]}")
        if flagged[i] and not lb[i] > 0:
            notes.append("flagged by the exact test; the simultaneous interval still "
                         "reaches 0")
        elif not flagged[i] and lb[i] > 0:
            notes.append("the simultaneous interval lies above 0 but the exact test at "
                         "this slice's level does not reject")
        if wt[i] <= 0:
            notes.append("too few rows to ever reach its level (not counted in the "
                         "multiplicity)")
        if n_s[i] < SMALL_GROUP:
            notes.append(f"small slice ({int(n_s[i])} rows in the denominator)")
        v = A_DISADVANTAGED if flagged[i] else NO_EVIDENCE
        rn = float(need[i])
        if v == NO_EVIDENCE and math.isfinite(rn) and rn <= n_s[i] + n_c[i]:
            rn = math.nan
        if state.comparison == "population":
            n_o, k_o = N, K
        else:
            n_o, k_o = n_c[i], k_c[i]
        out.append(SliceFinding(
            group_a=label, group_b=state.comparison, conditions=conds, depth=int(dep[i]),
            rows=int(c.support[j]), n=int(n_s[i]), count=int(k_s[i]), n_other=int(n_o),
            count_other=int(k_o), estimate=float(est[i] * scale[i]),
            low=float(lb[i] * scale[i]), high=float(scale[i]),
            interval_level=float(1.0 - miss[i]), verdict=v, p_value=float(pv[i]),
            test_alpha=float(test_miss[i]),
            required_n=rn, metric=state.metric, component=state.component,
            rate=state.rate, rate_is_cost=state.rate_is_cost, note="; ".join(notes),
            merged=tuple(_label(c, keys[q])[0] for q in merged), parents=tuple(parents),
            children=tuple(kids), weight=float(w[i])))
    detect = _detectable(c, n_s, N, K, dec.plan_miss, dep, wt > 0)
    return DiscoverResult(
        comparisons=tuple(out), metric=state.metric, component=state.component,
        rate=state.rate, favourable=state.favourable, comparison=state.comparison,
        confidence_level=rho, error_control=control, depth=state.depth,
        min_support=c.min_support,
        features=tuple({"name": f.name, "levels": list(f.levels), "binned": f.binned,
                        "edges": list(f.edges)} for f in c.features),
        n_rows=c.n_rows, excluded=dict(c.excluded), source=c.source, engine=c.engine,
        n_candidates=m_total, lattice=dict(c.lattice), n_evaluated=int(live.sum()),
        n_pruned=int(pruned.sum()), n_not_estimable=int((~estimable).sum()),
        n_flagged=n_found, population_n=int(N),
        population_rate=_rate(K, N, state.rate_is_cost), detectable=detect,
        version=__version__,
        created=_dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        columns=dict(state.columns), n_testable=m_t, discrete_scale=dec.scale, state=state)


def _rate(k: float, n: float, rate_is_cost: bool) -> float:
    if n <= 0:
        return math.nan
    return k / n if rate_is_cost else 1.0 - k / n


def _rate_gap(cost_gap: float, rate_is_cost: bool) -> float | None:
    if not math.isfinite(cost_gap):
        return None
    return float(cost_gap if rate_is_cost else -cost_gap)


def _cost_gap(b: dict, rate_is_cost: bool) -> float:
    g = b["rate_gap"]
    if g is None:
        return -math.inf
    return g if rate_is_cost else -g


def _choose_rows(order, flagged, keys, support, index, max_rows) -> list[tuple[int, list]]:
    """``(candidate row, merged rows)`` in rank order, near duplicates folded in."""
    kept: list[tuple[int, list]] = []
    left = int(sum(bool(flagged[i]) for i in order))
    for i in order:
        left -= bool(flagged[i])
        if len(kept) >= max_rows and not flagged[i]:
            if left <= 0:
                break
            continue
        j = i + 1                         # row in the counts (0 is the population)
        dup = next((pos for pos, (r, _) in enumerate(kept)
                    if _jaccard(keys[j], keys[r], support[j], support[r], index, support)
                    >= NEAR_DUPLICATE), None)
        if dup is not None:
            kept[dup][1].append(j)
        else:
            kept.append((j, []))
    return kept


def _jaccard(a, b, na, nb, index, support) -> float:
    """Row overlap of two slices from their counts (0 when it cannot be told)."""
    both = np.where(a >= 0, a, b)
    if np.any((a >= 0) & (b >= 0) & (a != b)):
        return 0.0
    j = index.get(tuple(both.tolist()))
    if j is None:
        return 0.0
    inter = float(support[j])
    return inter / float(na + nb - inter)


def _detectable(c, n_s, N, K, miss, dep, estimable) -> tuple:
    """Gaps a slice would have needed to be flagged, at a few slice sizes and each depth."""
    rate = K / N if N > 0 else 0.0
    sizes = sorted({int(c.min_support), int(max(c.min_support, round(0.05 * N))),
                    int(max(c.min_support, round(0.2 * N)))})
    cells = []
    for d in sorted(set(dep.tolist())):
        sel = (dep == d) & estimable
        if not sel.any():
            continue
        a = float(np.nanmax(miss[sel]))
        cells += [(int(d), size, a) for size in sizes if size < N]
    if not cells:
        return ()
    g = exact_detectable_gap([s for _, s, _ in cells], [N - s for _, s, _ in cells], rate,
                             [a for _, _, a in cells])
    return tuple({"depth": d, "slice_rows": size,
                  "gap": None if not math.isfinite(x) else float(x)}
                 for (d, size, _), x in zip(cells, np.atleast_1d(g), strict=True))


__all__ = ["DEPTH", "MAX_CANDIDATES", "MAX_LEVELS", "MAX_ROWS", "MIN_SUPPORT", "Decision",
           "decide", "discover", "evaluate"]
