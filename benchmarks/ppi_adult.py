"""Prediction-powered audits on Adult: interval width, gold labels needed, coverage.

The setting of issue 16 on real data.  The audited classifier is a small model (logistic
regression on age, years of education and hours per week); the proxy labeler is a
stronger model trained on other rows (the training split): the logistic regression on
every feature of ``fairbound.examples`` ("logistic") or gradient-boosted trees on the
same features ("boosting").  The population is the official test split (16,281 rows, by
sex); gold labels are the true incomes of a uniformly random subset of its rows, the
other rows carry only the proxy label and the prediction.  The truth is each gap with
every income known.

For each proxy and gold budget, over ``--reps`` random gold subsets:

* mean width of the PPI++ interval and of the labeled-only interval (95%, each
  comparison on its own), and their ratio;
* coverage of both (share of subsets whose interval holds the true gap);
* gold labels needed for the labeled-only interval's half-width at this budget, by
  PPI++ and by labeled-only (:func:`fairbound.stats.ppi.labels_needed`, Neyman-allocated,
  from the moments of the subset; median over the first ``--plan-reps`` subsets).

Then one audit (seed 0, 1,500 gold labels, family-wise 95%) as :func:`fairbound.ppi_audit`
reports it, with the gold labels each interval would need to settle each gap.

Usage::

    python benchmarks/ppi_adult.py                # 500 subsets per cell (a few minutes)
    python benchmarks/ppi_adult.py --reps 100     # quicker
    python benchmarks/ppi_adult.py --write adult_ppi.parquet --proxies logistic
    fairbound ppi adult_ppi.parquet --group sex --label gold --proxy proxy \
        --prediction prediction
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from fairbound.audits.ppi.audit import SamplingWarning, ppi_audit, ppi_audit_counts
from fairbound.engines.ppi import PPITable, ppi_counts
from fairbound.stats.ppi import PPICounts, labels_needed

LEVEL = 0.95
METRICS = ("equal_opportunity", "false_positive_rate", "predictive_parity", "accuracy_parity")
KEYS = {"equal_opportunity": ("ratio", "tpr"), "false_positive_rate": ("ratio", "fpr"),
        "predictive_parity": ("ratio", "precision"), "accuracy_parity": ("mean", "error")}
SMALL = ["age", "education_num", "hours_per_week"]
NUMERIC = ["age", "education_num", "capital_gain", "capital_loss", "hours_per_week"]
CATEGORICAL = ["workclass", "education", "marital_status", "occupation", "relationship",
               "native_country"]


def adult_frame(proxy: str = "logistic") -> pd.DataFrame:
    """Adult test rows with ``sex``, ``income``, ``prediction`` (small model), ``proxy``."""
    from sklearn.linear_model import LogisticRegression

    from fairbound.datasets import load_adult

    train, test = load_adult("train"), load_adult("test")
    small = LogisticRegression(max_iter=1000).fit(train[SMALL], train["income"])
    out = test[["sex", "race", "income"]].copy()
    out["prediction"] = small.predict(test[SMALL])
    if proxy == "logistic":
        from fairbound.examples import adult_predictions

        out["proxy"] = adult_predictions()["prediction"].to_numpy()
    elif proxy == "boosting":
        from sklearn.ensemble import HistGradientBoostingClassifier

        X, Xt = train[NUMERIC + CATEGORICAL].copy(), test[NUMERIC + CATEGORICAL].copy()
        for c in CATEGORICAL:
            X[c] = X[c].astype("category")
            Xt[c] = pd.Categorical(Xt[c], categories=X[c].cat.categories)
        model = HistGradientBoostingClassifier(categorical_features="from_dtype",
                                               random_state=0).fit(X, train["income"])
        out["proxy"] = model.predict(Xt)
    else:
        raise SystemExit(f"unknown proxy {proxy!r}")
    return out


def codes(frame: pd.DataFrame):
    """Group index (Female 0, Male 1), cell code y*4 + f*2 + pred, and the groups."""
    groups = tuple(sorted(frame["sex"].unique()))
    g = frame["sex"].map({k: i for i, k in enumerate(groups)}).to_numpy()
    cell = (4 * frame["income"].to_numpy() + 2 * frame["proxy"].to_numpy()
            + frame["prediction"].to_numpy()).astype(int)
    return g, cell, groups


def table_for(g, cell, groups, labeled: np.ndarray) -> PPITable:
    lab = np.zeros((len(groups), 8), dtype=np.int64)
    unl = np.zeros((len(groups), 4), dtype=np.int64)
    np.add.at(lab, (g[labeled], cell[labeled]), 1)
    np.add.at(unl, (g[~labeled], cell[~labeled] % 4), 1)
    return PPITable(groups=groups, labeled=lab.reshape(-1, 2, 2, 2),
                    unlabeled=unl.reshape(-1, 2, 2), classes=(0, 1), positive=1,
                    n_rows=len(g), excluded={}, engine="numpy", source="adult test",
                    columns={"group": ["sex"]})


def truth(g, cell, groups) -> dict:
    """Each gap with every income known (all rows labeled)."""
    full = table_for(g, cell, groups, np.ones(len(g), dtype=bool))
    res = ppi_audit_counts(full, metrics=list(METRICS), error_control="none", plan=False)
    return {c.metric: c.labeled_estimate for c in res}


def needed_for_width(t: PPITable, metric: str, half: float) -> tuple[float, float]:
    """Gold labels for half-width ``half``: PPI++ and labeled-only (from scratch)."""
    kind, key = KEYS[metric]
    a, b = (PPICounts(labeled=t.labeled[i], unlabeled=t.unlabeled[i]) for i in (0, 1))
    if kind == "mean":
        a, b, opts = a.mean_stats(key), b.mean_stats(key), {}
    else:
        opts = {"metric": key}
    out = []
    for proxy in (True, False):
        plan = labels_needed(a, b, half, LEVEL, proxy=proxy, respect_current=False, **opts)
        out.append(np.inf if plan is None else plan.total)
    return out[0], out[1]


def study(frame, budgets, reps, plan_reps, seed):
    g, cell, groups = codes(frame)
    true = truth(g, cell, groups)
    agree = {s: float((frame.proxy == frame.income)[frame.sex == s].mean()) for s in groups}
    print(f"proxy agreement with the gold label: overall "
          f"{(frame.proxy == frame.income).mean():.3f}; "
          + ", ".join(f"{s} {a:.3f}" for s, a in agree.items())
          + f"; classifier accuracy {(frame.prediction == frame.income).mean():.3f}")
    print("true gaps (Female - Male, every income known): "
          + ", ".join(f"{m} {v:+.4f}" for m, v in true.items()))
    rng = np.random.default_rng(seed)
    n = len(g)
    for budget in budgets:
        rec = {m: {"w": [], "lw": [], "hit": [], "lhit": [], "np": [], "nl": []}
               for m in METRICS}
        t0 = time.time()
        for r in range(reps):
            labeled = np.zeros(n, dtype=bool)
            labeled[rng.choice(n, budget, replace=False)] = True
            t = table_for(g, cell, groups, labeled)
            res = ppi_audit_counts(t, metrics=list(METRICS), confidence_level=LEVEL,
                                   error_control="none", plan=False)
            for c in res:
                d = rec[c.metric]
                d["w"].append(c.width)
                d["lw"].append(c.labeled_width)
                d["hit"].append(c.low <= true[c.metric] <= c.high)
                d["lhit"].append(c.labeled_low <= true[c.metric] <= c.labeled_high)
                if r < plan_reps:
                    p, q = needed_for_width(t, c.metric, c.labeled_width / 2)
                    d["np"].append(p)
                    d["nl"].append(q)
        print(f"\n{budget:,} gold labels of {n:,} rows, {reps} random gold subsets "
              f"({time.time() - t0:.0f} s)")
        print("| metric | true gap | PPI++ width | labeled-only width | ratio | PPI++ "
              "coverage | labeled-only coverage | gold for labeled-only's width: PPI++ / "
              "labeled-only |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for m in METRICS:
            d = rec[m]
            w, lw = np.mean(d["w"]), np.mean(d["lw"])
            npp, nl = np.median(d["np"]), np.median(d["nl"])
            print(f"| {m} | {true[m]:+.4f} | {w:.4f} | {lw:.4f} | {w / lw:.2f} | "
                  f"{np.mean(d['hit']):.3f} | {np.mean(d['lhit']):.3f} | "
                  f"{npp:,.0f} / {nl:,.0f} ({npp / nl:.2f}) |")


def with_gold(frame, budget=1500, seed=0) -> pd.DataFrame:
    """``frame`` with ``gold``: the income on ``budget`` random rows, missing elsewhere."""
    rng = np.random.default_rng(seed)
    gold = np.full(len(frame), np.nan)
    idx = rng.choice(len(frame), budget, replace=False)
    gold[idx] = frame["income"].to_numpy()[idx]
    return frame.assign(gold=gold)


def one_audit(frame, budget=1500, seed=0):
    data = with_gold(frame, budget, seed)
    gold = data["gold"].to_numpy()
    # the engine's counts equal the ones the study builds with numpy
    g, cell, groups = codes(frame)
    t = ppi_counts(data, group="sex", label="gold", proxy="proxy", prediction="prediction")
    mine = table_for(g, cell, groups, ~np.isnan(gold))
    assert np.array_equal(t.labeled, mine.labeled)
    assert np.array_equal(t.unlabeled, mine.unlabeled)
    res = ppi_audit(data, group="sex", label="gold", proxy="proxy", prediction="prediction")
    print(f"\none audit: {budget:,} gold labels (seed {seed}), family-wise 95% over "
          f"{res.n_tests} comparisons (each interval at {res.comparisons[0].interval_level:.2%})")
    print("| metric | gap (F - M) | PPI++ interval | labeled-only interval | width ratio | "
          "verdict | gold needed: PPI++ / labeled-only |")
    print("|---|---:|---|---|---:|---|---:|")
    for c in res:
        v = c.verdict if c.disadvantaged is None else f"{c.disadvantaged} disadvantaged"
        print(f"| {c.metric} | {c.estimate:+.3f} | [{c.low:+.3f}, {c.high:+.3f}] | "
              f"[{c.labeled_low:+.3f}, {c.labeled_high:+.3f}] | {c.width_ratio:.2f} | {v} | "
              f"{c.gold_labels_needed:,.0f} / {c.gold_labels_needed_labeled_only:,.0f} |")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--plan-reps", type=int, default=50)
    ap.add_argument("--budgets", default="500,1500,4000")
    ap.add_argument("--proxies", default="logistic,boosting")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write", metavar="PATH",
                    help="only write the first proxy's rows with 1,500 gold labels (seed 0) "
                         "to PATH (.csv or .parquet), for `fairbound ppi`")
    args = ap.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]
    if args.write:
        data = with_gold(adult_frame(args.proxies.split(",")[0]))
        data = data[["sex", "race", "gold", "proxy", "prediction"]]
        if args.write.endswith(".parquet"):
            data.to_parquet(args.write, index=False)
        else:
            data.to_csv(args.write, index=False)
        print(f"wrote {len(data):,} rows ({int(data.gold.notna().sum()):,} with a gold "
              f"label) to {args.write}")
        return
    warnings.simplefilter("ignore", SamplingWarning)  # random subsets: 1% false alarms
    for proxy in args.proxies.split(","):
        print(f"\n## proxy: {proxy}\n")
        frame = adult_frame(proxy)
        study(frame, budgets, args.reps, min(args.plan_reps, args.reps), args.seed)
        one_audit(frame)


if __name__ == "__main__":
    main()
