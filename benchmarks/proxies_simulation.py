"""Audits with group probabilities: the simulation targets of issue 29, printed.

Data (:func:`fairbound.audits.proxies.simulate.simulate_proxy_data`): 50,000 rows in 200
proxy cells; ``P(b | cell)`` are the ``Beta(a, a)`` quantiles (``a = 0.85``: the true
group's probability separates the groups with an AUC of 0.85, like BISG for Black vs
White; calibrated by construction); label ``Bernoulli(0.4)``; prediction TPR 0.75 in group
``a`` and 0.70 in group ``b`` (true TPR gap 0.05), FPR 0.2; 1,000 uniformly annotated rows.

Printed, over ``--sets`` data sets (300 by default):

* coverage of the 95% prediction-powered interval of the TPR gap, and the exact one-sided
  binomial p-value against 95%; mean width, and its ratio to the annotated-only interval;
* coverage of the bounds without any annotated row (the proxy cells; widened for sampling);
* coverage of the two shortcuts: the probability-weighted estimate (with its own
  delta-method interval, blind to its bias) and the threshold assignment (each row its
  most likely group, then a Wald interval), with their mean estimates (the truth is 0.05);
* null data (no gap in any metric): share of data sets where ``fairbound.proxy_audit``
  with its defaults (5 metrics, family-wise 95%) claims any gap;
* the width ratio at stronger proxies (``a`` = 0.5, 0.25: AUC about 0.91 and 0.96);
* a weighted design: annotated rows drawn with unequal, recorded probabilities (four times
  more often where the proxy is unsure), weighted by ``1 / probability`` (printed first).

Usage::

    python benchmarks/proxies_simulation.py              # 300 sets (about 15 minutes)
    python benchmarks/proxies_simulation.py --sets 50
    python benchmarks/proxies_simulation.py --parts weighted   # one section
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _auc(a: float) -> float:
    from scipy.stats import beta

    q = beta.ppf((np.arange(200) + 0.5) / 200, a, a)
    # AUC of q for G ~ Bernoulli(q): P(q_1 > q_0) + ties / 2, cells equally likely
    w1, w0 = q / q.sum(), (1 - q) / (1 - q).sum()
    order = np.argsort(q)
    q, w1, w0 = q[order], w1[order], w0[order]
    below = np.concatenate([[0.0], np.cumsum(w0)[:-1]])
    return float((w1 * (below + w0 / 2)).sum())


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=300)
    ap.add_argument("--null-sets", type=int, default=None)
    ap.add_argument("--boot", type=int, default=100)
    ap.add_argument("--parts", default="coverage,null,strength,weighted",
                    help="comma-separated sections to run")
    args = ap.parse_args(argv)
    parts = set(args.parts.split(","))
    import warnings

    import fairbound
    from fairbound.audits.proxies import simulate as S
    from fairbound.audits.verdicts import DISADVANTAGED

    if "weighted" in parts:
        t0 = time.time()
        w = S.coverage_study(args.sets, n=50_000, annotated=1000, gap=0.05, cells=200,
                             boot=10, design="proxy")
        print(f"weighted design (annotated rows drawn 4x more often where the proxy is unsure, "
              f"1,000 expected, weighted by 1 / probability), {args.sets} sets: PPI coverage "
              f"{w['ppi']['coverage']:.3f}, annotated-only coverage "
              f"{w['annotated_only']['coverage']:.3f}, width ratio {w['width_ratio']:.3f} "
              f"[{time.time() - t0:.0f} s]")
    if "coverage" not in parts:
        return _rest(args, parts, S, fairbound, DISADVANTAGED, warnings)
    t0 = time.time()
    out = S.coverage_study(args.sets, n=50_000, annotated=1000, gap=0.05, cells=200,
                           boot=args.boot)
    print(f"issue 29 simulation: {args.sets} data sets, 50,000 rows, 200 cells, AUC "
          f"{_auc(0.85):.3f}, true TPR gap 0.05, 1,000 annotated rows, 95% intervals")
    print(f"{'interval':<32}{'coverage':>10}{'mean width':>12}{'mean estimate':>15}")
    for k, name in (("ppi", "fairbound prediction-powered"),
                    ("annotated_only", "annotated rows only"),
                    ("bounds", "fairbound bounds (no annotation)"),
                    ("weighted", "probability-weighted (biased)"),
                    ("threshold", "threshold assignment (biased)")):
        r = out[k]
        est = "-" if k == "bounds" else f"{r['mean_estimate']:.4f}"
        print(f"{name:<32}{r['coverage']:>10.3f}{r['mean_width']:>12.4f}{est:>15}")
    print(f"width ratio prediction-powered / annotated-only: {out['width_ratio']:.3f}")
    print(f"binomial p (PPI coverage below 95%, one-sided exact): {out['binomial_p']:.3f}")
    print(f"[{time.time() - t0:.0f} s]")
    return _rest(args, parts, S, fairbound, DISADVANTAGED, warnings)


def _rest(args, parts, S, fairbound, DISADVANTAGED, warnings) -> None:
    if "null" not in parts:
        return _strength(args, parts, S)
    t0 = time.time()
    sets = args.null_sets or args.sets
    claims = 0
    for s in range(sets):
        df = S.simulate_proxy_data(50_000, annotated=1000, gap=0.0, cells=200, seed=5000 + s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fairbound.proxy_audit(df, group_probabilities={"a": "p_a", "b": "p_b"},
                                        label="y", prediction="pred", group="group")
        claims += any(c.verdict in DISADVANTAGED for c in res.comparisons)
    print(f"null data, proxy_audit defaults (5 metrics, family-wise 95%): any false claim "
          f"in {claims} of {sets} data sets ({claims / sets:.3f}) [{time.time() - t0:.0f} s]")
    return _strength(args, parts, S)


def _strength(args, parts, S) -> None:
    if "strength" not in parts:
        return
    for a in (0.5, 0.25):
        k = min(args.sets, 100)
        r = S.coverage_study(k, n=50_000, annotated=1000, gap=0.05, cells=200, strength=a,
                             boot=10)
        print(f"proxy strength Beta({a}, {a}) (AUC {_auc(a):.3f}): width ratio "
              f"{r['width_ratio']:.3f}, PPI coverage {r['ppi']['coverage']:.3f} over {k} sets")


if __name__ == "__main__":
    main()
