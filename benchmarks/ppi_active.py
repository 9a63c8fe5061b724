"""Which rows to annotate: uncertainty sampling vs uniform sampling, at the same budget.

Issue 16, item 4.  For a gold-label budget ``B`` the rows to annotate are drawn by
:func:`fairbound.audits.ppi.sampling.sample_for_annotation` in two ways:

* ``uniform``: no proxy score, uniform within each group (the budget split by group size);
* ``active``: the defaults with the proxy's score (``pi`` proportional to the proxy's
  uncertainty, 20% uniform mixed in, Neyman split between groups).

Both are audited with the weighted PPI++ interval (:mod:`fairbound.stats.ppi_ipw`, as
``fairbound ppi --sampling-probability`` runs it).  Printed per design: mean width of the
95% interval of each gap, its coverage of the true gap (every label known), and for
``active`` the width ratio to ``uniform`` and the labels uniform sampling would need for
the same width (``B / ratio^2``: variance scales as ``1 / B``).

Populations:

* ``sim``: 20,000 rows, two groups, calibrated proxy scores ``s ~ Beta(0.3, 0.3)``,
  gold ``y ~ Bernoulli(s)``, proxy label ``s >= 0.5``, a prediction right 80% of the
  time in one group and 85% in the other; a new population per replication, drawn with
  the sampler's default seed (0), as a user would call it.
* ``adult``: the official Adult test split (16,281 rows, by sex); the audited
  prediction is a small logistic regression (age, education, hours), the proxy score a
  gradient-boosted model's probability trained on the training split; one population, a
  fresh draw per replication (``seed = r``).

Usage::

    python benchmarks/ppi_active.py                     # 300 replications per cell
    python benchmarks/ppi_active.py --reps 100 --populations sim
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from fairbound.audits.ppi.sampling import sample_for_annotation
from fairbound.stats.ppi_ipw import WeightedPPICounts, ipw_ratio_gap_interval

METRICS = {"equal_opportunity": "tpr", "accuracy_parity": "error"}


def sim_population(rng, M=20_000):
    g = np.where(rng.random(M) < 0.5, "a", "b")
    s = rng.beta(0.3, 0.3, M)
    y = (rng.random(M) < s).astype(int)
    pred = np.where(rng.random(M) < np.where(g == "a", 0.80, 0.85), y, 1 - y)
    return pd.DataFrame({"g": g, "score": s, "proxy": (s >= 0.5).astype(int),
                         "pred": pred, "y": y})


def adult_population() -> pd.DataFrame:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    from fairbound.datasets import load_adult

    small = ["age", "education_num", "hours_per_week"]
    numeric = ["age", "education_num", "capital_gain", "capital_loss", "hours_per_week"]
    categorical = ["workclass", "education", "marital_status", "occupation", "relationship",
                   "native_country"]
    train, test = load_adult("train"), load_adult("test")
    pred = LogisticRegression(max_iter=1000).fit(train[small], train["income"]).predict(
        test[small])
    X, Xt = train[numeric + categorical].copy(), test[numeric + categorical].copy()
    for c in categorical:
        X[c] = X[c].astype("category")
        Xt[c] = pd.Categorical(Xt[c], categories=X[c].cat.categories)
    model = HistGradientBoostingClassifier(categorical_features="from_dtype",
                                           random_state=0).fit(X, train["income"])
    s = model.predict_proba(Xt)[:, 1]
    return pd.DataFrame({"g": test["sex"].to_numpy(), "score": s,
                         "proxy": (s >= 0.5).astype(int), "pred": pred,
                         "y": test["income"].to_numpy()})


def counts(frame: pd.DataFrame, drawn: pd.DataFrame) -> dict:
    """Per group, the weighted counts of one draw (the labels of the drawn rows known)."""
    out = {}
    lab = frame.index.isin(drawn.index)
    for g in sorted(frame["g"].unique()):
        m = (frame["g"] == g).to_numpy()
        y = np.where(lab[m], frame["y"].to_numpy()[m], -1)
        pi = np.full(m.sum(), np.nan)
        pi[lab[m]] = drawn.loc[frame.index[m & lab], "fairbound_probability"].to_numpy()
        out[g] = WeightedPPICounts.from_arrays(y, frame["proxy"].to_numpy()[m],
                                               frame["pred"].to_numpy()[m], probability=pi,
                                               batch=np.where(lab[m], 1, -1))
    return out


def true_gaps(frame: pd.DataFrame) -> dict:
    out = {}
    a, b = sorted(frame["g"].unique())
    for name, key in METRICS.items():
        rate = {}
        for g in (a, b):
            f = frame[frame["g"] == g]
            if key == "tpr":
                rate[g] = float(f.loc[f["y"] == 1, "pred"].mean())
            else:
                rate[g] = float((f["y"] == f["pred"]).mean())
        out[name] = rate[a] - rate[b]
    return out


def one(frame, budget, design, seed):
    score = "score" if design == "active" else None
    s = sample_for_annotation(frame.drop(columns="y"), group="g", budget=budget,
                              proxy_score=score, seed=seed)
    c = counts(frame, s.selected)
    a, b = sorted(c)
    res = {}
    for name, key in METRICS.items():
        r = ipw_ratio_gap_interval(c[a], c[b], 0.95, metric=key)
        lo, hi = (r.low, r.high) if key == "tpr" else (-r.high, -r.low)
        res[name] = (lo, hi, len(s.selected))
    return res


def study(name, make, budgets, reps, fixed):
    print(f"\n## {name}\n")
    print("| budget | metric | uniform width | uniform coverage | active width | "
          "active coverage | width ratio | uniform labels for active's width |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for budget in budgets:
        rows = {d: {m: [] for m in METRICS} for d in ("uniform", "active")}
        for r in range(reps):
            frame = make(r)
            truth = true_gaps(frame)
            for design in ("uniform", "active"):
                got = one(frame, budget, design, r if fixed else 0)
                for m, (lo, hi, _) in got.items():
                    rows[design][m].append((hi - lo, lo <= truth[m] <= hi))
        for m in METRICS:
            u = np.array(rows["uniform"][m])
            a = np.array(rows["active"][m])
            ratio = a[:, 0].mean() / u[:, 0].mean()
            print(f"| {budget:,} | {m} | {u[:, 0].mean():.4f} | {u[:, 1].mean():.3f} | "
                  f"{a[:, 0].mean():.4f} | {a[:, 1].mean():.3f} | {ratio:.3f} | "
                  f"{budget / ratio**2:,.0f} |")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--budgets", default="500,1500")
    ap.add_argument("--populations", default="sim,adult")
    args = ap.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]
    t0 = time.perf_counter()
    pops = args.populations.split(",")
    if "sim" in pops:
        study("simulated: 20,000 rows, calibrated Beta(0.3, 0.3) scores",
              lambda r: sim_population(np.random.default_rng([2024, r])), budgets, args.reps,
              fixed=False)
    if "adult" in pops:
        frame = adult_population()
        agree = float((frame["proxy"] == frame["y"]).mean())
        study(f"Adult test split by sex (16,281 rows; boosting proxy, agreement {agree:.3f})",
              lambda r: frame, budgets, args.reps, fixed=True)
    print(f"\n({args.reps} replications per cell, {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
