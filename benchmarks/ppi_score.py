"""A score proxy used as it is vs the same proxy thresholded at 0.5, through ``ppi_audit``.

Two groups of ``--rows`` rows in all, calibrated proxy scores ``s ~ Beta(0.5, 0.5)``, gold
``y ~ Bernoulli(s)`` known on a uniform ``--labels`` of them, a prediction right 80% of the
time in both groups (null data: no gap).  Each data set is audited twice with every
default, ``metrics=["equal_opportunity", "accuracy_parity"]``:

* ``score``: ``proxy="judge", proxy_kind="score"`` (:mod:`fairbound.stats.ppi_score`);
* ``label``: ``proxy="judge >= 0.5"`` (the label proxy, jackknife standard error).

Printed: the share of data sets where the audit claims a gap (family-wise 5% over the two
metrics) and the mean interval width of each.

Usage::

    python benchmarks/ppi_score.py --reps 200
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from fairbound.audits.ppi.audit import ppi_audit


def frame(rng, rows: int, labels: int) -> pd.DataFrame:
    g = np.where(rng.random(rows) < 0.5, "a", "b")
    s = rng.beta(0.5, 0.5, rows)
    y = (rng.random(rows) < s).astype(int)
    pred = np.where(rng.random(rows) < 0.8, y, 1 - y)
    gold = np.where(rng.random(rows) < labels / rows, y, np.nan)
    return pd.DataFrame({"g": g, "gold": gold, "judge": s, "pred": pred})


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--rows", type=int, default=4000)
    ap.add_argument("--labels", type=int, default=400)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    claims = {"score": 0, "label": 0}
    widths: dict[str, list[float]] = {"score": [], "label": []}
    for r in range(args.reps):
        df = frame(np.random.default_rng([5, r]), args.rows, args.labels)
        for kind, proxy in (("score", "judge"), ("label", "judge >= 0.5")):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = ppi_audit(df, group="g", label="gold", proxy=proxy, prediction="pred",
                                metrics=["equal_opportunity", "accuracy_parity"],
                                proxy_kind=kind)
            claims[kind] += any(c.verdict.endswith("disadvantaged") for c in res.comparisons)
            widths[kind].append(float(np.mean([c.width for c in res.comparisons])))
    print(f"{args.reps} null data sets, {args.rows:,} rows, ~{args.labels:,} gold labels")
    print("| proxy | data sets with a claimed gap | mean interval width |")
    print("|---|---:|---:|")
    for kind in ("score", "label"):
        print(f"| {kind} | {claims[kind] / args.reps:.3f} | {np.mean(widths[kind]):.4f} |")
    ratio = np.mean(widths["score"]) / np.mean(widths["label"])
    print(f"width ratio score / label: {ratio:.3f}  ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
