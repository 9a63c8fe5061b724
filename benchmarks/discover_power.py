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

for ``fairbound`` (weighted Bonferroni by depth, the default), ``bonferroni`` (the same
finite-sample bound, plain Bonferroni over every candidate) and, when installed,
``sliceline`` (top 5 slices, no inference: "flagged" = reported), ``divexplorer``
(itemsets with Welch ``t > 2`` and positive divergence, no multiplicity control) and
``fairaudit`` (Cherian & Candes' bootstrap lower bounds vs the population, ``B`` resamples;
slow, so only at ``n <= --fairaudit-max-n``).

Run::

    python benchmarks/discover_power.py --reps 200 --out discover_power.json
    python benchmarks/discover_power.py --quick            # a few reps, for a smoke test
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


def _ours(df: pd.DataFrame, depth: int) -> dict:
    import fairbound
    from fairbound.stats.slices import depth_weights, gap_lower_bound

    res = fairbound.discover(df, FEATURES, label="y", prediction="p", depth=3)
    st = res.state
    c = st.counts
    keys = c.keys[1:]
    n_s, k_s = st.n_den[1:], st.k[1:]
    N, K = st.n_den[0], st.k[0]
    ok = (n_s > 0) & (N - n_s > 0)
    dep = (keys >= 0).sum(axis=1)
    m = res.n_candidates
    out = {}
    for name, miss in (("fairbound", 0.05 * depth_weights(dep, c.lattice)),
                       ("bonferroni", np.full(len(n_s), 0.05 / m))):
        lb = np.full(len(n_s), -1.0)
        lb[ok] = gap_lower_bound(k_s[ok], n_s[ok], K - k_s[ok], N - n_s[ok], miss[ok])
        flagged = np.flatnonzero(lb > 0)
        kinds = set()
        for i in flagged:
            conds = {c.features[f].name: c.features[f].levels[code]
                     for f, code in enumerate(keys[i]) if code >= 0}
            kinds.add(_truth(conds, depth))
        out[name] = {"false": "false" in kinds, "power": "planted" in kinds,
                     "any_true": bool(kinds - {"false"})}
    assert out["fairbound"]["false"] + out["fairbound"]["power"] >= 0
    assert res.n_flagged == int(np.sum(
        gap_lower_bound(k_s[ok], n_s[ok], K - k_s[ok], N - n_s[ok],
                        0.05 * depth_weights(dep, c.lattice)[ok]) > 0))
    out["fairbound"]["n_flagged"] = res.n_flagged
    out["candidates"] = m
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
    ours = _ours(df, depth)
    out["seconds"] = time.perf_counter() - t
    out["fairbound"], out["bonferroni"] = ours["fairbound"], ours["bonferroni"]
    out["candidates"] = ours["candidates"]
    for name, fn in (("sliceline", _sliceline), ("divexplorer", _divexplorer),
                     ("fairaudit", lambda d, k: _fairaudit(d, k, B[0]))):
        if name not in peers or n > (fa_max_n if name == "fairaudit" else B[2]):
            continue
        if name == "fairaudit" and rep >= B[1]:
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
        for tool in ("fairbound", "bonferroni", "sliceline", "divexplorer", "fairaudit"):
            got = [r[tool] for r in rs if r.get(tool) is not None]
            if not got:
                continue
            hits = sum(g["false"] for g in got)
            row[f"{tool}_fwer"] = round(hits / len(got), 3)
            row[f"{tool}_fwer_p"] = round(binomtest(hits, len(got), 0.05,
                                                    alternative="greater").pvalue, 4)
            row[f"{tool}_power"] = round(sum(g["power"] for g in got) / len(got), 3)
            row[f"{tool}_reps"] = len(got)
        if row.get("bonferroni_power"):
            row["power_ratio"] = round(row["fairbound_power"] / row["bonferroni_power"], 2)
        rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="2000,20000,200000")
    ap.add_argument("--depths", default="1,2,3")
    ap.add_argument("--c", default="0,3.5,5", help="planted effect in slice standard errors")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--peers", default="sliceline,divexplorer,fairaudit")
    ap.add_argument("--fairaudit-max-n", type=int, default=2000)
    ap.add_argument("--fairaudit-B", type=int, default=200)
    ap.add_argument("--fairaudit-reps", type=int, default=20)
    ap.add_argument("--peers-max-n", type=int, default=20000)
    ap.add_argument("--raw", default=None, help="append each data set's result here (JSONL)")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    if a.quick:
        a.n, a.depths, a.c, a.reps, a.peers = "2000", "2", "0,5", 3, "sliceline,divexplorer"
    ns = [int(x) for x in a.n.split(",")]
    depths = [int(x) for x in a.depths.split(",")]
    cs = [float(x) for x in a.c.split(",")]
    peers = set(filter(None, a.peers.split(",")))
    tasks = [(n, d, c, r, peers, a.fairaudit_max_n,
              (a.fairaudit_B, a.fairaudit_reps, a.peers_max_n))
             for n, d, c in itertools.product(ns, depths, cs) for r in range(a.reps)]
    # interleaved, so that a run cut short still has some data sets in every cell
    order = np.random.default_rng(0).permutation(len(tasks))
    tasks = [tasks[i] for i in order]
    t = time.time()
    results = []
    raw = open(a.raw, "a") if a.raw else None
    with Pool(max(a.workers, 1)) as pool:
        for r in pool.imap_unordered(run_one, tasks, chunksize=1):
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
    print(f"{len(tasks)} data sets in {time.time() - t:.0f} s")


if __name__ == "__main__":
    main()
