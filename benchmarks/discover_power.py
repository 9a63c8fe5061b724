"""Planted-subgroup simulations for :func:`fairbound.discover`, peers side by side.

Data: ``n`` rows, 6 categorical features with 4 equally likely levels each (independent),
a 0/1 label, and predictions wrong at rate 0.15, except in one planted slice (the first
``d`` features at level ``"0"``, share ``4 ** -d``) where they are wrong at
``0.15 + delta``; ``delta = c * sqrt(0.15 * 0.85 / (n * 4 ** -d))`` (``c`` standard errors
of the slice's own rate) and ``c = 0`` is null data.  Search: 6 features, depth 3, the error
rate (``metric="accuracy_parity"``), every other argument at its default.

A slice's true gap is positive exactly when its conditions agree with the planted ones
(it overlaps the planted slice), so a *false flag* is a flagged slice with a condition that
contradicts them (zero overlap: its true gap is negative).  Per cell we count

* ``fwer``: data sets with any false flag (binomial test of "rate <= 5%" per cell),
* ``power``: data sets where the planted slice itself is flagged,

for ``fairbound`` (the default: Fisher's exact test, Tarone-weighted Bonferroni by depth),
``bonferroni`` (the finite-sample Clopper-Pearson difference bound - the search's
previous test - with plain Bonferroni over every candidate, ``alpha / M``),
``bonferroni_exact`` (the same exact test as the default, plain Bonferroni ``alpha / M``),
``depth_cp`` (the previous default: the bound, depth weights) and, when installed,
``sliceline`` (top 5 slices, no inference: "flagged" = reported), ``divexplorer``
(itemsets with Welch ``t > 2`` and positive divergence, no multiplicity control) and
``fairaudit`` (Cherian & Candes' bootstrap lower bounds vs the population, ``B`` resamples;
slow, so only at ``n <= --fairaudit-max-n``).

``--fast`` draws each data set's sufficient statistics exactly (multinomial cell sizes,
binomial errors per cell: the distribution of the counts of the rows ``make_data`` would
build) and runs the search's statistical core on them (``decide``; the whole ``evaluate``
on the first two data sets of each cell, asserted to flag the same slices), so
``n = 200,000`` costs what ``n = 2,000`` does; peers need rows and are skipped there.

Run::

    python benchmarks/discover_power.py --reps 200 --out discover_power.json
    python benchmarks/discover_power.py --quick            # a few reps, for a smoke test
    python benchmarks/discover_power.py --fast --null-depth-once --reps 100 \
        --c 0,3.5,4.5,6 --workers 2 --out discover_power_fast.json
    python benchmarks/discover_power.py --from-raw benchmarks/results/discover_fairaudit_raw.jsonl
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import time
import warnings
from multiprocessing import Pool

import numpy as np
import pandas as pd

BASE = 0.15
LEVELS = 4
FEATURES = [f"x{i}" for i in range(6)]


def make_data(n: int, depth: int, c: float, seed: int) -> tuple[pd.DataFrame, float]:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, LEVELS, (n, len(FEATURES)))
    planted = np.all(X[:, :depth] == 0, axis=1)
    share = LEVELS ** -depth
    delta = c * math.sqrt(BASE * (1 - BASE) / (n * share))
    y = rng.integers(0, 2, n)
    wrong = rng.random(n) < np.where(planted, min(BASE + delta, 1.0), BASE)
    df = pd.DataFrame({f: X[:, i].astype(str) for i, f in enumerate(FEATURES)})
    df["y"] = y
    df["p"] = np.where(wrong, 1 - y, y)
    return df, delta


def _truth(conds: dict, depth: int) -> str:
    """'planted', 'overlap' (true gap > 0) or 'false' (no overlap: true gap < 0)."""
    for j in range(depth):
        v = conds.get(FEATURES[j])
        if v is not None and v != "0":
            return "false"
    if set(conds) == set(FEATURES[:depth]) and all(conds[f] == "0" for f in FEATURES[:depth]):
        return "planted"
    return "overlap"


def _flags_of(res, depth: int) -> dict:
    """Truth of the slices a :class:`DiscoverResult` flags (every flagged one is a row)."""
    kinds = {_truth(dict(cond.split("=", 1) for cond in c.conditions), depth)
             for c in res.comparisons if c.flagged}
    return {"false": "false" in kinds, "power": "planted" in kinds,
            "any_true": bool(kinds - {"false"})}


def _baselines(res, depth: int) -> dict:
    """Plain Bonferroni over every candidate, with the old bound and with the exact test."""
    from fairbound.stats.slices import depth_weights, exact_harm_pvalue, gap_lower_bound

    st = res.state
    c = st.counts
    keys = c.keys[1:]
    n_s, k_s = st.n_den[1:], st.k[1:]
    N, K = st.n_den[0], st.k[0]
    ok = (n_s > 0) & (N - n_s > 0)
    dep = (keys >= 0).sum(axis=1)
    m = res.n_candidates
    with np.errstate(all="ignore"):
        up = ok & (k_s / np.where(ok, n_s, 1) > (K - k_s) / np.where(ok, N - n_s, 1))
    out = {}
    pv = np.ones(len(n_s))
    pv[up] = exact_harm_pvalue(k_s[up], n_s[up], K, N)
    for name, rule in (
            ("bonferroni", ("cp", np.full(len(n_s), 0.05 / m))),
            ("bonferroni_exact", ("exact", np.full(len(n_s), 0.05 / m))),
            ("depth_cp", ("cp", 0.05 * depth_weights(dep, c.lattice)))):
        kind, miss = rule
        if kind == "cp":
            lb = np.full(len(n_s), -1.0)
            lb[up] = gap_lower_bound(k_s[up], n_s[up], K - k_s[up], N - n_s[up], miss[up])
            flagged = np.flatnonzero(lb > 0)
        else:
            flagged = np.flatnonzero(pv <= miss)
        kinds = set()
        for i in flagged:
            conds = {c.features[f].name: c.features[f].levels[code]
                     for f, code in enumerate(keys[i]) if code >= 0}
            kinds.add(_truth(conds, depth))
        out[name] = {"false": "false" in kinds, "power": "planted" in kinds,
                     "any_true": bool(kinds - {"false"})}
    return out


def _ours(df: pd.DataFrame, depth: int) -> dict:
    import fairbound

    res = fairbound.discover(df, FEATURES, label="y", prediction="p", depth=3)
    return _score(res, depth)


def _score(res, depth: int) -> dict:
    out = _baselines(res, depth)
    out["fairbound"] = _flags_of(res, depth)
    out["fairbound"]["n_flagged"] = res.n_flagged
    out["candidates"] = res.n_candidates
    out["testable"] = res.n_testable
    return out


_LATTICE: dict = {}


def _lattice(n_feat: int, levels: int, depth: int):
    """Every slice of up to ``depth`` of the features as (subset, keys) in the engine's order."""
    got = _LATTICE.get((n_feat, levels, depth))
    if got is None:
        rows = [np.full(n_feat, -1)]
        subsets = []
        for d in range(1, depth + 1):
            for sub in itertools.combinations(range(n_feat), d):
                codes = np.array(list(itertools.product(range(levels), repeat=d)))
                k = np.full((len(codes), n_feat), -1)
                k[:, list(sub)] = codes
                rows.append(k)
                subsets.append(sub)
        keys = np.vstack(rows)
        dep = (keys >= 0).sum(axis=1)
        order = np.lexsort(tuple(keys[:, j] for j in range(n_feat - 1, -1, -1)) + (dep,))
        keys = keys[order]
        # for each subset of features: the rows of its slices and their flat cell index
        where = []
        for sub in [()] + subsets:
            rows_of = np.flatnonzero(np.all((keys >= 0) == np.isin(np.arange(n_feat),
                                                                   sub), axis=1))
            flat = np.zeros(len(rows_of), dtype=np.int64)
            for j in sub:
                flat = flat * levels + keys[rows_of, j]
            where.append((sub, rows_of, flat))
        got = _LATTICE[(n_feat, levels, depth)] = (keys, where)
    return got


def fast_state(n: int, depth: int, c: float, seed: int):
    """The sufficient statistics :func:`fairbound.discover` would read from ``make_data``.

    Cell sizes (one cell per combination of the 6 features' levels) are multinomial and the
    errors in each cell binomial: exactly the distribution of the counts of ``make_data``'s
    rows, drawn without building the rows.  Returns the ``_State`` that
    :func:`fairbound.audits.discover.build.evaluate` takes (the public function's code after
    its scan).
    """
    from fairbound.audits.discover.build import MAX_ROWS, _State
    from fairbound.engines.discover import Feature, SliceCounts

    rng = np.random.default_rng(seed)
    F = len(FEATURES)
    cells = rng.multinomial(n, np.full(LEVELS ** F, LEVELS ** -F)).reshape((LEVELS,) * F)
    share = LEVELS ** -depth
    delta = c * math.sqrt(BASE * (1 - BASE) / (n * share))
    rate = np.full(cells.shape, BASE)
    rate[(0,) * depth] = min(BASE + delta, 1.0)
    err = rng.binomial(cells, rate)
    keys, where = _lattice(F, LEVELS, 3)
    support = np.empty(len(keys), dtype=np.int64)
    kk = np.empty(len(keys), dtype=np.int64)
    for sub, rows, flat in where:
        other = tuple(j for j in range(F) if j not in sub)
        support[rows] = cells.sum(axis=other).reshape(-1)[flat]
        kk[rows] = err.sum(axis=other).reshape(-1)[flat]
    floor = max(int(math.ceil(0.01 * n)), 1)
    keep = (support >= floor)
    keep[0] = True
    keys, support, kk = keys[keep], support[keep], kk[keep]
    dep = (keys >= 0).sum(axis=1)
    feats = tuple(Feature(f, tuple(str(v) for v in range(LEVELS))) for f in FEATURES)
    counts = SliceCounts(feats, keys, support, np.zeros((len(keys), 2, 2)), n, {},
                         {d: int((dep == d).sum()) for d in range(1, 4)}, "simulated counts",
                         "numpy", floor)
    st = _State(counts=counts, metric="accuracy_parity", component="error_rate",
                rate="error rate", rate_is_cost=True, favourable="positive",
                comparison="complement", n_den=support.astype(float), k=kk.astype(float),
                depth=3, max_rows=MAX_ROWS, columns={"features": list(FEATURES)},
                index={tuple(x): j for j, x in enumerate(keys.tolist())})
    return st, delta


def _kinds(keys, flagged, depth: int) -> dict:
    kinds = {_truth({FEATURES[f]: str(code) for f, code in enumerate(keys[i]) if code >= 0},
                    depth) for i in np.flatnonzero(flagged)}
    return {"false": "false" in kinds, "power": "planted" in kinds,
            "any_true": bool(kinds - {"false"})}


def run_fast(task) -> dict:
    """One data set through the counts path (no rows, no DuckDB).

    The default's verdicts come from :func:`fairbound.audits.discover.build.decide`, the
    statistical core :func:`fairbound.discover` runs after its scan; on the first two data
    sets of every cell the whole of ``evaluate`` runs too and must flag the same slices.
    """
    from fairbound.audits.discover.build import decide, evaluate
    from fairbound.stats.slices import depth_weights, exact_harm_pvalue, gap_lower_bound

    n, depth, c, rep = task[:4]
    st, delta = fast_state(n, depth, c, seed=hash((n, depth, c, rep, 1)) % 2**32)
    t = time.perf_counter()
    keys = st.counts.keys[1:]
    n_s, k_s, N, K = st.n_den[1:], st.k[1:], st.n_den[0], st.k[0]
    dep = (keys >= 0).sum(axis=1)
    dec = decide(n_s, k_s, N, K, dep, st.counts.lattice, confidence_level=0.95,
                 error_control="family")
    out = {"n": n, "depth": depth, "c": c, "delta": delta, "rep": rep,
           "seconds": time.perf_counter() - t, "candidates": dec.m_total,
           "testable": dec.m_t, "scale": dec.scale}
    out["fairbound"] = _kinds(keys, dec.flagged, depth)
    out["fairbound"]["n_flagged"] = dec.n_found
    if rep < 2:
        res = evaluate(st, confidence_level=0.95, error_control="family")
        assert _flags_of(res, depth) == {k: v for k, v in out["fairbound"].items()
                                         if k != "n_flagged"}
        assert res.n_flagged == dec.n_found
    m = dec.m_total
    up = dec.estimable & (dec.est > 0)
    pv = np.ones(len(n_s))
    pv[up] = exact_harm_pvalue(k_s[up], n_s[up], K, N)
    out["bonferroni_exact"] = _kinds(keys, pv <= 0.05 / m, depth)
    # the default before the attainable sizes raised its levels: Tarone's levels alone
    out["tarone"] = _kinds(keys, dec.live & (np.nan_to_num(dec.pv, nan=2.0) <= dec.plan_miss),
                           depth)
    for name, miss in (("bonferroni", np.full(len(n_s), 0.05 / m)),
                       ("depth_cp", 0.05 * depth_weights(dep, st.counts.lattice))):
        lb = np.full(len(n_s), -1.0)
        lb[up] = gap_lower_bound(k_s[up], n_s[up], K - k_s[up], N - n_s[up], miss[up])
        out[name] = _kinds(keys, lb > 0, depth)
    return out


def _sliceline(df: pd.DataFrame, depth: int) -> dict | None:
    try:
        from sliceline.slicefinder import Slicefinder
    except ImportError:
        return None
    X = df[FEATURES].to_numpy()
    err = (df.y != df.p).to_numpy().astype(float)
    sf = Slicefinder(alpha=0.95, k=5, max_l=3, min_sup=max(1, int(0.01 * len(df))),
                     verbose=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sf.fit(X, err)
    kinds = set()
    for s in np.asarray(sf.top_slices_, dtype=object):
        conds = {FEATURES[j]: str(v) for j, v in enumerate(s) if v is not None}
        kinds.add(_truth(conds, depth))
    return {"false": "false" in kinds, "power": "planted" in kinds,
            "any_true": bool(kinds - {"false"})}


def _divexplorer(df: pd.DataFrame, depth: int) -> dict | None:
    try:
        from divexplorer import DivergenceExplorer
    except ImportError:
        return None
    d = df[FEATURES].copy()
    d["error"] = (df.y != df.p).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = DivergenceExplorer(d).get_pattern_divergence(min_support=0.01,
                                                            boolean_outcomes=["error"])
    kinds = set()
    for _, r in out.iterrows():
        items = list(r["itemset"])
        if not items or len(items) > 3:
            continue
        if not (r["error_div"] > 0 and r["error_t"] > 2):
            continue
        conds = dict(str(it).split("=", 1) for it in items)
        kinds.add(_truth(conds, depth))
    return {"false": "false" in kinds, "power": "planted" in kinds,
            "any_true": bool(kinds - {"false"})}


def _fairaudit(df: pd.DataFrame, depth: int, B: int) -> dict | None:
    try:
        from fairaudit.auditor import Auditor
        from fairaudit.groups import get_intersections
        from fairaudit.metrics import Metric
    except ImportError:
        return None
    X = df[FEATURES].to_numpy().astype(float)

    def err(Z, Y):
        return (Z.flatten() != Y.flatten()).astype(float)

    metric = Metric("error_rate_bench", evaluation_function=err,
                    threshold_function=lambda Z, Y, X=None: err(Z, Y))
    G = get_intersections(X.copy(), depth=3)
    G = G[:, G.mean(axis=0) >= 0.01]
    a = Auditor(X, df.y.to_numpy().reshape(-1, 1), df.p.to_numpy().reshape(-1, 1), metric)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a.calibrate_groups(alpha=0.05, type="upper", groups=G,
                           bootstrap_params={"seed": 0, "B": B})
    kinds = set()
    for g in range(G.shape[1]):
        lb = a.query_group(g)[0][0]
        if lb is not None and np.isfinite(lb) and lb > 0:
            rows = X[G[:, g]]
            conds = {FEATURES[j]: str(int(rows[0, j])) for j in range(len(FEATURES))
                     if np.all(rows[:, j] == rows[0, j])}
            kinds.add(_truth(conds, depth))
    return {"false": "false" in kinds, "power": "planted" in kinds,
            "any_true": bool(kinds - {"false"})}


def run_one(task) -> dict:
    n, depth, c, rep, peers, fa_max_n, B = task
    df, delta = make_data(n, depth, c, seed=hash((n, depth, c, rep)) % 2**32)
    t = time.perf_counter()
    out = {"n": n, "depth": depth, "c": c, "delta": delta, "rep": rep}
    out.update(_ours(df, depth))
    out["seconds"] = time.perf_counter() - t
    for name, fn in (("sliceline", _sliceline), ("divexplorer", _divexplorer),
                     ("fairaudit", lambda d, k: _fairaudit(d, k, B[0]))):
        if name not in peers or n > (fa_max_n if name == "fairaudit" else B[2]):
            continue
        if name == "fairaudit" and rep >= B[1] + B[3]:
            continue
        try:
            out[name] = fn(df, depth)
        except Exception as exc:  # a peer that breaks is reported, not fatal
            out[f"{name}_error"] = f"{type(exc).__name__}: {exc}"[:200]
    return out


def summarise(results: list[dict]) -> list[dict]:
    """Per cell: false-flag rate (with its binomial test), power, for every tool."""
    from scipy.stats import binomtest

    cells = {}
    for r in results:
        cells.setdefault((r["n"], r["depth"], r["c"]), []).append(r)
    rows = []
    for (n, depth, c), rs in sorted(cells.items()):
        row = {"n": n, "planted_depth": depth, "c": c, "delta": round(rs[0]["delta"], 4),
               "reps": len(rs), "candidates": int(np.median([r["candidates"] for r in rs])),
               "seconds_median": round(float(np.median([r["seconds"] for r in rs])), 3)}
        for tool in ("fairbound", "bonferroni", "bonferroni_exact", "depth_cp", "tarone",
                     "sliceline", "divexplorer", "fairaudit"):
            got = [r[tool] for r in rs if r.get(tool) is not None]
            if not got:
                continue
            hits = sum(g["false"] for g in got)
            row[f"{tool}_fwer"] = round(hits / len(got), 3)
            row[f"{tool}_fwer_p"] = round(binomtest(hits, len(got), 0.05,
                                                    alternative="greater").pvalue, 4)
            row[f"{tool}_power"] = round(sum(g["power"] for g in got) / len(got), 3)
            row[f"{tool}_reps"] = len(got)
        if "testable" in rs[0]:
            row["testable"] = int(np.median([r["testable"] for r in rs]))
        if "scale" in rs[0]:
            row["scale"] = round(float(np.median([r["scale"] for r in rs])), 2)
        for base, key in (("bonferroni", "ratio"), ("bonferroni_exact", "ratio_exact")):
            if row.get(f"{base}_power"):
                row[key] = round(row["fairbound_power"] / row[f"{base}_power"], 2)
        rows.append(row)
    return rows


def markdown(rows: list[dict]) -> None:
    """Print the ``--fast`` table as docs/discover.md shows it.

    A ratio is in bold where either power is between 20% and 80% (the target's cells), in
    parentheses elsewhere; ``inf`` where the baseline found nothing.
    """
    def ratio(a: float, b: float) -> str:
        r = "inf" if b == 0 else f"{a / b:.2f}"
        return f"**{r}**" if 0.2 <= a <= 0.8 or 0.2 <= b <= 0.8 else f"({r})"

    print("| n | planted depth | c | reps | testable | fairbound fwer (binomial p) | "
          "scale | fairbound power | Bonferroni (CP bound) power | ratio | Bonferroni (exact test) "
          "power | ratio | Tarone's levels alone power | ratio | previous default (CP, "
          "depth weights) power |")
    print("|" + "---|" * 15)
    for r in rows:
        cells = [f"{r['n']:,}", "any" if r["c"] == 0 else str(r["planted_depth"]),
                 f"{r['c']:g}", str(r["reps"]), f"{r['testable']:,}",
                 f"{r['fairbound_fwer']:.2f} ({r['fairbound_fwer_p']:.2f})",
                 f"{r['scale']:.2f}"]
        if r["c"] == 0:
            cells += ["-"] * 8
        else:
            fb = r["fairbound_power"]
            cells.append(f"{fb:.2f}")
            for base in ("bonferroni", "bonferroni_exact", "tarone"):
                cells += [f"{r[base + '_power']:.2f}", ratio(fb, r[base + "_power"])]
            cells.append(f"{r['depth_cp_power']:.2f}")
        print("| " + " | ".join(cells) + " |")


def read_raw(paths: list[str]) -> list[dict]:
    """Data sets of ``--raw`` files (a line cut short by a time limit is skipped)."""
    rows = []
    for path in paths:
        with open(path) as fh:
            for line in fh:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
    return rows


def paired_fairaudit(rows: list[dict]) -> None:
    """Print fairbound vs fairaudit on the data sets where both ran, per cell.

    Rates with 95% Clopper-Pearson intervals, and the power ratio with a paired bootstrap
    95% interval (2,000 resamples of the data sets, seed 0).
    """
    from scipy.stats import binomtest

    def ci(k: int, m: int) -> str:
        lo, hi = binomtest(k, m).proportion_ci(0.95, method="exact")
        return f"{k / m:.2f} [{lo:.2f}, {hi:.2f}]"

    cells: dict = {}
    for r in rows:
        if r.get("fairaudit") is not None:
            cells.setdefault((r["n"], r["depth"], r["c"]), []).append(r)
    print("| n | planted depth | c | data sets | fairbound false-flag | fairbound power "
          "| fairaudit false-flag | fairaudit power | fairbound / fairaudit power |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (n, depth, c), rs in sorted(cells.items()):
        m = len(rs)
        fb = np.array([bool(r["fairbound"]["power"]) for r in rs])
        fa = np.array([bool(r["fairaudit"]["power"]) for r in rs])
        if fa.sum():
            idx = np.random.default_rng(0).integers(0, m, (2000, m))
            num, den = fb[idx].sum(axis=1), fa[idx].sum(axis=1)
            lo, hi = np.percentile(num[den > 0] / den[den > 0], [2.5, 97.5])
            ratio = f"{fb.sum() / fa.sum():.2f} [{lo:.2f}, {hi:.2f}]"
        else:
            ratio = "- (fairaudit finds none)"
        print(f"| {n:,} | {depth} | {c:g} | {m} | "
              f"{ci(sum(bool(r['fairbound']['false']) for r in rs), m)} | "
              f"{ci(int(fb.sum()), m)} | "
              f"{ci(sum(bool(r['fairaudit']['false']) for r in rs), m)} | "
              f"{ci(int(fa.sum()), m)} | {ratio} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="2000,20000,200000")
    ap.add_argument("--depths", default="1,2,3")
    ap.add_argument("--c", default="0,3.5,5", help="planted effect in slice standard errors")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--rep-start", type=int, default=0,
                    help="first data set number (to add data sets to an earlier run)")
    ap.add_argument("--peers", default="sliceline,divexplorer,fairaudit")
    ap.add_argument("--fairaudit-max-n", type=int, default=2000)
    ap.add_argument("--fairaudit-B", type=int, default=200)
    ap.add_argument("--fairaudit-reps", type=int, default=20)
    ap.add_argument("--peers-max-n", type=int, default=20000)
    ap.add_argument("--raw", default=None, help="append each data set's result here (JSONL)")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--null-depth-once", action="store_true",
                    help="run c = 0 (null data) at the first planted depth only (the planted "
                         "depth plays no part in null data)")
    ap.add_argument("--fast", action="store_true",
                    help="draw each data set's counts exactly (no rows, no peers) and run "
                         "the search's evaluation on them")
    ap.add_argument("--out", default=None)
    ap.add_argument("--from-raw", nargs="+", default=None, metavar="JSONL",
                    help="run nothing: print fairbound vs fairaudit from these --raw files")
    a = ap.parse_args()
    if a.from_raw:
        paired_fairaudit(read_raw(a.from_raw))
        return
    if a.quick:
        a.n, a.depths, a.c, a.reps, a.peers = "2000", "2", "0,5", 3, "sliceline,divexplorer"
    ns = [int(x) for x in a.n.split(",")]
    depths = [int(x) for x in a.depths.split(",")]
    cs = [float(x) for x in a.c.split(",")]
    peers = set(filter(None, a.peers.split(",")))
    tasks = [(n, d, c, r, peers, a.fairaudit_max_n,
              (a.fairaudit_B, a.fairaudit_reps, a.peers_max_n, a.rep_start))
             for n, d, c in itertools.product(ns, depths, cs)
             for r in range(a.rep_start, a.rep_start + a.reps)
             if not (a.null_depth_once and c == 0 and d != depths[0])]
    # interleaved, so that a run cut short still has some data sets in every cell
    order = np.random.default_rng(0).permutation(len(tasks))
    tasks = [tasks[i] for i in order]
    t = time.time()
    results = []
    raw = open(a.raw, "a") if a.raw else None
    with Pool(max(a.workers, 1)) as pool:
        for r in pool.imap_unordered(run_fast if a.fast else run_one, tasks,
                                     chunksize=4 if a.fast else 1):
            results.append(r)
            if raw is not None:
                raw.write(json.dumps(r) + "\n")
                raw.flush()
    rows = summarise(results)
    text = json.dumps({"rows": rows, "seconds": round(time.time() - t, 1),
                       "args": vars(a)}, indent=1)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text)
    print(pd.DataFrame(rows).to_string())
    if a.fast:
        print()
        markdown(rows)
    print(f"{len(tasks)} data sets in {time.time() - t:.0f} s")


if __name__ == "__main__":
    main()
